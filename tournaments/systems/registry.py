"""The registry of scoring systems: the only list of the systems the site knows.

A leaf: pure bookkeeping with no import of the models, the adapters or anything that writes,
so ``tournaments.models`` may use it (``choices`` for ``Tournament.system``, ``of`` for a
tournament's adapter) without loading an adapter. The adapters (``tournaments.systems.domino``
...) are registered by the app's ``ready`` (``tournaments.systems.builtin``); a test may
``register`` a toy system of its own (docs/ARCHITECTURE.md, "How to add a scoring system").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Q

if TYPE_CHECKING:  # pragma: no cover
    from tournaments.systems.rules import ScoringSystem

#: The actions a system may offer on the director's pages (``ScoringSystem.actions``).
ROUND_ROBIN = "round_robin"  # generate every round of a round robin (circle method)
SWISS_PROPOSAL = "swiss_proposal"  # propose the next round by Swiss pairing
SEATING_PROPOSAL = "seating_proposal"  # propose tables of 3–4 / rotating partners
CASTIGOS = "castigos"  # penalties in tantos
ACTIONS = (ROUND_ROBIN, SWISS_PROPOSAL, SEATING_PROPOSAL, CASTIGOS)

_SYSTEMS: dict[str, ScoringSystem] = {}


class UnknownSystem(LookupError):
    """A tournament names a scoring system nobody registered."""


def register(system: ScoringSystem) -> ScoringSystem:
    """Add ``system`` under its ``key`` (replacing one of the same key); returns it."""
    _SYSTEMS[system.key] = system
    return system


def unregister(key: str) -> None:
    """Remove the system ``key`` (tests that register a toy system clean up with this)."""
    _SYSTEMS.pop(key, None)


def get(key: str) -> ScoringSystem:
    """The system registered under ``key``. Raises ``UnknownSystem``."""
    try:
        return _SYSTEMS[key]
    except KeyError:
        raise UnknownSystem(key) from None


def all_systems() -> list[ScoringSystem]:
    """Every registered system, in registration order (dominó first)."""
    return list(_SYSTEMS.values())


def choices() -> list[tuple[str, str]]:
    """``(key, label)`` of every system: the choices of ``Tournament.system`` (a callable, so
    a system registered later, even in a test, is a valid choice at once)."""
    return [(s.key, s.label) for s in _SYSTEMS.values()]


def keys() -> list[str]:
    return list(_SYSTEMS)


def of(tournament) -> ScoringSystem:
    """The scoring system of ``tournament`` (anything with a ``system`` key). Raises
    ``UnknownSystem``."""
    return get(tournament.system)


def require(tournament, key: str, refusal: Exception) -> ScoringSystem:
    """The registered system ``key`` when it is ``tournament``'s; else raise ``refusal`` (a
    path meant for one system, like a per-system import command, given another's
    tournament)."""
    try:
        system = get(key)
    except UnknownSystem:
        raise refusal from None
    if of(tournament) is not system:
        raise refusal
    return system


def result_relations() -> list[str]:
    """The names of ``Table``'s accessors to a result, one per storage model in use (two
    systems sharing a model share the name)."""
    seen: list[str] = []
    for system in all_systems():
        if system.result_relation not in seen:
            seen.append(system.result_relation)
    return seen


def has_result_q(prefix: str = "") -> Q:
    """A filter true for tables with a result of any system; ``prefix`` leads from the
    queried model to the table (``"tables__"`` from a round)."""
    q = Q()
    for relation in result_relations():
        q |= Q(**{f"{prefix}{relation}__isnull": False})
    return q


def no_result_q(prefix: str = "") -> Q:
    """A filter true for tables without a result of any system."""
    q = Q()
    for relation in result_relations():
        q &= Q(**{f"{prefix}{relation}__isnull": True})
    return q


def any_result(table):
    """``table``'s result, whatever the storage model, or None."""
    for system in all_systems():
        result = system.result_of(table)
        if result is not None:
            return result
    return None


def with_cards(tournament, tables):
    """``tables`` (prefetched as ``Table.with_results``) each with ``card``: how the public
    pages show it (``Presentation.card``). Returns the list."""
    system = of(tournament)
    tables = list(tables)
    for table in tables:
        table.card = system.presentation.card(table)
    return tables
