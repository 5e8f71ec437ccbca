"""Pure scoring systems (no Django): each module turns plain results into standings.

``SYSTEMS`` maps a tournament's scoring-system key to its module; every module exposes
``standings(...) -> list[StandingRow]``. Rules: /work/shared/spec/SCORING.md.
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
    # level with: None, "juegos_ganados", "efectividad", "tantos_a_favor", "diferencial", "sorteo"


from tournaments.scoring import domino, swiss, table  # noqa: E402  (need StandingRow defined above)

SYSTEMS = {"domino": domino, "swiss": swiss, "table": table}
