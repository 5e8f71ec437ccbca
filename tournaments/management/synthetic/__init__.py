"""Invented data of each scoring system for ``manage.py generate_club`` (``base.Synthetic``).

One generator per system key; ``of(system)`` gives a system's, or a ``Synthetic`` that is never
picked for the random tournaments (a system nobody taught the generator). The built-in
systems' generators are registered when this package is first imported.
"""

from __future__ import annotations

from tournaments.management.synthetic.base import Synthetic, SyntheticTable
from tournaments.management.synthetic.domino import DominoSynthetic
from tournaments.management.synthetic.swiss import SwissSynthetic
from tournaments.management.synthetic.table import TableSynthetic

_GENERATORS: dict[str, type[Synthetic]] = {
    "domino": DominoSynthetic,
    "swiss": SwissSynthetic,
    "table": TableSynthetic,
}


def register(key: str, generator: type[Synthetic]) -> None:
    """The generator class of the system ``key`` (replacing any)."""
    _GENERATORS[key] = generator


def of(system) -> Synthetic:
    """The generator of ``system`` (a ``ScoringSystem``), made for it."""
    return _GENERATORS.get(system.key, Synthetic)(system)


__all__ = ["Synthetic", "SyntheticTable", "of", "register"]
