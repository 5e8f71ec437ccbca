"""Spreadsheet out: standings as CSV (DESIGN.md; figures of SCORING.md §1, §3 and §4).

Every CSV export of the site (these standings, ``rankings.exports``) writes names through
``safe_text`` so that a spreadsheet never runs a name as a formula.
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from fractions import Fraction

from tournaments import systems
from tournaments.models import Tournament

_PLACES = 6  # decimals of the swiss percentages in the CSV
_PCT_PLACES = 2  # decimals of the table-game percentage sum (SCORING.md §4)
#: First characters that make a spreadsheet read a cell as a formula (CSV/formula injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_text(value) -> str:
    """A text cell (a name) safe to open in a spreadsheet: one that starts with ``=``, ``+``,
    ``-``, ``@``, TAB or CR gets a leading apostrophe ("=HYPERLINK(…)" → "'=HYPERLINK(…)",
    "-Raro" → "'-Raro"), so it shows as text and never runs as a formula.

    Only for text: numbers are written as numbers (an efectividad of -5 stays -5), so never
    pass a figure through this. ``None`` gives "".
    """
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _cell(value) -> str | int:
    """A whole number as is; a ``Fraction`` as a decimal with ``_PLACES`` places (0.616399); a
    ``Decimal`` (the table-game percentage sum) with ``_PCT_PLACES`` places (85.70).

    Rounded only here, for display (SCORING.md: exact values inside the computation); the
    ``Fraction`` format rounds half to even, exactly.
    """
    if isinstance(value, Fraction):
        return format(value, f".{_PLACES}f")
    if isinstance(value, Decimal):
        return format(value, f".{_PCT_PLACES}f")
    return value


def standings_header(tournament: Tournament) -> tuple[str, ...]:
    """The standings CSV's columns: ``position``, the name column (``entry``, or ``player``
    for systems of one-player entries) and the system's figures (``csv_header``)."""
    system = systems.of(tournament)
    return ("position", system.csv_name_column(), *system.csv_header())


def standings_csv(tournament: Tournament) -> str:
    """The tournament's standings as CSV text, best first, "\\n" line endings.

    ``position`` is a number, shared by tied entries with the next one skipping (1, 2, 2, 4;
    the standings' own positions); ``entry`` is the entry's name ("Ana & Beto" for a pair).

    The columns are ``standings_header``; what the figures are is the system's. Dominó:
    ``played, won, puntos, tantos_a_favor, tantos_en_contra, castigos, efectividad, byes``, whole numbers from ``Tournament.standings()``
    (seed 003, SCORING.md §1).

    Swiss match play: ``match_points, wins, losses, draws, byes, omw, gwp, ogw`` (seed 000, SCORING.md §3):
    ``match_points``, ``wins``, ``losses``, ``draws``, ``byes`` are whole numbers, and
    ``wins`` **includes the byes** (a bye is a match won 2–0, as in the standings figures and
    the seed's "3–2–0 including a round-1 bye"), so ``byes`` says how many of the wins were
    byes and ``match_points == 3 × wins + draws``. ``omw``, ``gwp``, ``ogw`` are the exact
    percentages (0.33 floor included) written as decimals with 6 places, e.g. 0.616399.

    Table games (3–4 players): ``player, games, points, vp, pct_sum`` (seed 004, SCORING.md §4):
    ``player`` (the entry's one player), ``games`` (tables played, byes not counted),
    ``points`` (tournament points, byes included), ``vp`` (total in-game VP, the figure
    ``victory_points``), whole numbers,
    and ``pct_sum``, the sum of the per-game percentages with 2 decimals (85.70).

    The name column goes through ``safe_text`` (no spreadsheet formulas); figures stay numbers.
    """
    system = systems.of(tournament)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(standings_header(tournament))
    for line in tournament.standings():
        values = system.csv_values(line)
        writer.writerow(
            [line.row.position, safe_text(line.entry.name), *(_cell(v) for v in values)]
        )
    return out.getvalue()


__all__ = [
    "FORMULA_STARTS",
    "safe_text",
    "standings_header",
    "standings_csv",
]
