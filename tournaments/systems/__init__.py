"""The scoring systems: the only code that knows which systems exist (docs/ARCHITECTURE.md).

This package's own module is the registry's face, a leaf of the import graph: ``of(tournament)``
gives the tournament's ``ScoringSystem`` adapter, and everything the site does that depends on
the system (standings, result rows, table cards, imports, exports, settings, actions, the
admin) asks it. It imports no adapter and no model, so ``tournaments.models`` may import it;
the adapters (the submodules ``domino``, ``swiss``, ``table`` with their parts) are registered
by the app's ``ready`` (``builtin.register_builtin``); a test may ``register`` a toy system of
its own.
"""

from __future__ import annotations

from tournaments.systems.registry import (
    ACTIONS,
    CASTIGOS,
    ROUND_ROBIN,
    SEATING_PROPOSAL,
    SWISS_PROPOSAL,
    UnknownSystem,
    all_systems,
    any_result,
    choices,
    get,
    has_result_q,
    keys,
    no_result_q,
    of,
    register,
    require,
    result_relations,
    unregister,
    with_cards,
)

__all__ = [
    "ACTIONS",
    "CASTIGOS",
    "ROUND_ROBIN",
    "SEATING_PROPOSAL",
    "SWISS_PROPOSAL",
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
