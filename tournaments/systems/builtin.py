"""The built-in scoring systems, registered by the app's ``ready`` (``tournaments.apps``) in
the order the new-tournament form lists them. The registry itself never imports an adapter."""

from __future__ import annotations

from tournaments.systems.domino import Domino
from tournaments.systems.registry import register
from tournaments.systems.swiss import Swiss
from tournaments.systems.table import TableGame


def register_builtin() -> None:
    """Register dominó (seed 003), Swiss match play (seed 000) and table games (seed 004)."""
    for system in (Domino(), Swiss(), TableGame()):
        register(system)
