"""Spreadsheet out: standings as CSV (DESIGN.md; figures of SCORING.md §1 and §3)."""
from __future__ import annotations

import csv
import io
from fractions import Fraction

from tournaments.models import Tournament

STANDINGS_HEADER = (
    "position", "entry", "played", "won", "puntos", "tantos_a_favor", "tantos_en_contra",
    "castigos", "efectividad", "byes",
)
SWISS_STANDINGS_HEADER = (
    "position", "entry", "match_points", "wins", "losses", "draws", "byes", "omw", "gwp", "ogw",
)
_FIGURES = STANDINGS_HEADER[2:]
_SWISS_FIGURES = SWISS_STANDINGS_HEADER[2:]
_PLACES = 6  # decimals of the swiss percentages in the CSV


def _cell(value) -> str | int:
    """A whole number as is; a ``Fraction`` as a decimal with ``_PLACES`` places (0.616399).

    Rounded only here, for display (SCORING.md: exact values inside the computation); the
    ``Fraction`` format rounds half to even, exactly.
    """
    if isinstance(value, Fraction):
        return format(value, f".{_PLACES}f")
    return value


def standings_csv(tournament: Tournament) -> str:
    """The tournament's standings as CSV text, best first, "\\n" line endings.

    ``position`` is a number, shared by tied entries with the next one skipping (1, 2, 2, 4;
    the standings' own positions); ``entry`` is the entry's name ("Ana & Beto" for a pair).

    Dominó: columns ``STANDINGS_HEADER``, whole numbers from ``Tournament.standings()``
    (seed 003, SCORING.md §1).

    Swiss match play: columns ``SWISS_STANDINGS_HEADER`` (seed 000, SCORING.md §3):
    ``match_points``, ``wins``, ``losses``, ``draws``, ``byes`` are whole numbers, and
    ``wins`` **includes the byes** (a bye is a match won 2–0, as in the standings figures and
    the seed's "3–2–0 including a round-1 bye"), so ``byes`` says how many of the wins were
    byes and ``match_points == 3 × wins + draws``. ``omw``, ``gwp``, ``ogw`` are the exact
    percentages (0.33 floor included) written as decimals with 6 places, e.g. 0.616399.
    """
    swiss = tournament.system == Tournament.System.SWISS
    header, figures = (
        (SWISS_STANDINGS_HEADER, _SWISS_FIGURES) if swiss else (STANDINGS_HEADER, _FIGURES)
    )
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for line in tournament.standings():
        values = line.row.figures
        writer.writerow([line.row.position, line.entry.name, *(_cell(values[k]) for k in figures)])
    return out.getvalue()


__all__ = ["STANDINGS_HEADER", "SWISS_STANDINGS_HEADER", "standings_csv"]
