"""The shape every standings order shares (SCORING.md §1 "Standings", §3, §4): sort by the
system's first figure, break ties with its tiebreaks in order (each only among entries still
level), then by a recorded sorteo; whoever is still level shares the position.

Pure Python. Each system module gives its figures and its list of tiebreaks; this module turns
them into ``StandingRow`` lines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tournaments.scoring import StandingRow

Key = Callable[[int], object]


def split(group: list[int], key: Key) -> list[list[int]]:
    """Split ``group`` into runs of equal ``key``, highest key first (order inside: entry id)."""
    parts: dict[object, list[int]] = {}
    for entry_id in sorted(group):
        parts.setdefault(key(entry_id), []).append(entry_id)
    return [parts[k] for k in sorted(parts, reverse=True)]


@dataclass(frozen=True)
class Tiebreak:
    """One tiebreak: ``name`` is what ``StandingRow.decided_by`` says when it separates entries;
    ``key(group)`` gives the key for the entries of a level ``group`` (higher ranks first);
    ``repeat``: apply it again inside a smaller group it leaves level (the dominó diferencial)."""

    name: str
    key: Callable[[list[int]], Key]
    repeat: bool = False


def by_figure(name: str, figures: dict[int, dict]) -> Tiebreak:
    """A tiebreak on one cumulative figure: ``name`` is both the figure's key in ``figures``
    (``entry_id → {figure key: value}``) and the ``decided_by`` name it gives, so the two never
    differ."""
    return Tiebreak(name, lambda group: lambda e: figures[e][name])


def rank(
    ids: Sequence[int],
    figures: dict[int, dict],
    *,
    first: str,
    tiebreaks: Sequence[Tiebreak],
    sorteo: dict[int, int],
) -> list[StandingRow]:
    """Standings lines: ``first`` figure high to low, then ``tiebreaks`` in order, then the
    sorteo (``entry_id → lot``, lower lot ranks higher; used only when every member of a level
    group has a lot). Level entries share a position (1, 2, 2, 4) with ``shared`` True."""

    # Each tier: (members still level, decided_by, shared).
    def resolve(group: list[int], stage: int, decided: str | None) -> list:
        if len(group) == 1:
            return [(group, decided, False)]
        if stage < len(tiebreaks):
            tiebreak = tiebreaks[stage]
            parts = split(group, tiebreak.key(group))
            if len(parts) == 1:
                return resolve(group, stage + 1, decided)
            after = stage if tiebreak.repeat else stage + 1
            return [tier for part in parts for tier in resolve(part, after, tiebreak.name)]
        if all(e in sorteo for e in group):  # lower lot ranks higher
            parts = split(group, lambda e: -sorteo[e])
            if len(parts) > 1:
                return [
                    (part, "sorteo", False) if len(part) == 1 else (part, decided, True)
                    for part in parts
                ]
        return [(group, decided, True)]

    rows: list[StandingRow] = []
    for level in split(list(ids), lambda e: figures[e][first]):
        for members, decided, shared in resolve(level, 0, None):
            position = len(rows) + 1
            for entry_id in members:
                rows.append(StandingRow(position, shared, entry_id, figures[entry_id], decided))
    return rows
