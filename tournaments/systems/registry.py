"""The registry of scoring systems: the only list of the systems the site knows.

Pure bookkeeping, no model import, so ``tournaments.models`` can use ``choices`` for the
``Tournament.system`` field. The adapters (``tournaments.systems.domino`` ...) register
themselves when ``tournaments.systems`` is imported (the app's ``ready``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from tournaments.systems.base import ScoringSystem

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
