"""The scoring systems: the only code that knows which systems exist (docs/ARCHITECTURE.md).

``of(tournament)`` gives the tournament's ``ScoringSystem`` adapter; everything the site
does that depends on the system (standings, result rows, table cards, imports, exports,
settings, actions, the admin) asks it. The built-in systems register here, in the order the
new-tournament form lists them; a test may ``register`` a toy system of its own.
"""

from __future__ import annotations

from django.db.models import Q

from tournaments.systems.base import (
    ACTIONS,
    CASTIGOS,
    COMMON_FIELDS,
    ROUND_ROBIN,
    SEATING_PROPOSAL,
    SORTEO,
    SWISS_PROPOSAL,
    Card,
    Column,
    RowField,
    ScoringSystem,
    Tiebreak,
)
from tournaments.systems.registry import (
    UnknownSystem,
    all_systems,
    choices,
    get,
    keys,
    register,
    unregister,
)


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
    pages show it (``ScoringSystem.card``). Returns the list."""
    system = of(tournament)
    tables = list(tables)
    for table in tables:
        table.card = system.card(table)
    return tables


def _register_builtin() -> None:
    from tournaments.systems.domino import Domino
    from tournaments.systems.swiss import Swiss
    from tournaments.systems.table import TableGame

    for system in (Domino(), Swiss(), TableGame()):
        register(system)


_register_builtin()

__all__ = [
    "ACTIONS",
    "CASTIGOS",
    "COMMON_FIELDS",
    "ROUND_ROBIN",
    "SEATING_PROPOSAL",
    "SORTEO",
    "SWISS_PROPOSAL",
    "Card",
    "Column",
    "RowField",
    "ScoringSystem",
    "Tiebreak",
    "UnknownSystem",
    "all_systems",
    "any_result",
    "choices",
    "get",
    "has_result_q",
    "keys",
    "no_result_q",
    "of",
    "register",
    "require",
    "result_relations",
    "unregister",
    "with_cards",
]
