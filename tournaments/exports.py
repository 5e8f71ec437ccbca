"""Spreadsheet out: standings as CSV (DESIGN.md; figures of SCORING.md §1)."""
from __future__ import annotations

import csv
import io

from tournaments.models import Tournament

STANDINGS_HEADER = (
    "position", "entry", "played", "won", "puntos", "tantos_a_favor", "tantos_en_contra",
    "castigos", "efectividad", "byes",
)
_FIGURES = STANDINGS_HEADER[2:]


def standings_csv(tournament: Tournament) -> str:
    """The tournament's standings as CSV text, best first, "\\n" line endings.

    Columns ``STANDINGS_HEADER``: ``position`` is a number, shared by tied entries with the
    next one skipping (1, 2, 2, 4; the standings' own positions); ``entry`` is the entry's name
    ("Ana & Beto" for a pair); the other columns are whole numbers from
    ``Tournament.standings()`` (seed 003, SCORING.md §1).
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(STANDINGS_HEADER)
    for line in tournament.standings():
        figures = line.row.figures
        writer.writerow([line.row.position, line.entry.name, *(figures[k] for k in _FIGURES)])
    return out.getvalue()


__all__ = ["STANDINGS_HEADER", "standings_csv"]
