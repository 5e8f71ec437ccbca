"""Pure scoring systems (no Django): each module turns plain results into standings.

One module per system (``domino``, ``swiss``, ``table``), each exposing
``standings(...) -> list[StandingRow]``; which module a tournament uses is the business of its
adapter in ``tournaments.systems``. Rules: SCORING.md (docs/SCORING.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StandingRow:
    """One line of a standings table.

    ``figures`` holds the system's own figures (dominó: played, won, puntos, tantos_a_favor,
    tantos_en_contra, castigos, efectividad, byes — all ``int``).
    """

    position: int  # 1-based; tied entries share it, next skips (1,2,2,4)
    shared: bool  # True when shown "=" (tie not broken)
    entry_id: int
    figures: dict  # system-specific figures, e.g. {"played":..,"won":..,"puntos":..,...}
    decided_by: str | None  # which tiebreak separated this entry from the one(s) it was
    # level with: None, "sorteo", or a tiebreak named by the key of the figure it compares —
    # dominó "won", "efectividad", "tantos_a_favor" (and "diferencial", which has no figure),
    # Swiss "omw", "gwp", "ogw", table "victory_points", "pct_sum"
