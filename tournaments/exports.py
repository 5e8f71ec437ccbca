"""Spreadsheet out: the standings as CSV and .xlsx (DESIGN.md; figures of SCORING.md §1, §3 and
§4), and the pieces every download of the site shares (``rankings.exports`` too).

Two forms of every export:

- **for people** (the default): figures rounded as the pages show them
  (``clubsite.numbers``: percentages 2 decimals, ratings 1 ...), as CSV and as .xlsx;
- **exact** (``full_precision=True``; ``?precision=full`` on the download links,
  ``--full-precision`` on the commands): the machine format, for checking, as CSV.

Every CSV starts with a UTF-8 byte-order mark (``BOM``: downloads and the commands' output
alike), so that a spreadsheet opens its accents right; a program reads it with the
"utf-8-sig" encoding. Rows are typed (``csv_cell``, ``xlsx_bytes``): names are text (through
``safe_text`` in a CSV, so that a spreadsheet never runs one as a formula; text cells in an
.xlsx), figures are numbers.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from decimal import Decimal
from fractions import Fraction

from django.utils.translation import gettext
from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.styles import Font

from clubsite.numbers import rounded
from tournaments import systems
from tournaments.models import Tournament

_PLACES = 6  # decimals of the swiss percentages in the exact CSV
_PCT_PLACES = 2  # decimals of the table-game percentage sum (SCORING.md §4), and of a share as
# a percentage for people (the pages' ``pct``)
#: First characters that make a spreadsheet read a cell as a formula (CSV/formula injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
#: What every CSV starts with: the UTF-8 byte-order mark, as text.
BOM = "\ufeff"
CSV_TYPE = "text/csv; charset=utf-8"
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def safe_text(value) -> str:
    """A text cell (a name) safe to open in a spreadsheet: one that starts with ``=``, ``+``,
    ``-``, ``@``, TAB or CR gets a leading apostrophe ("=HYPERLINK(…)" → "'=HYPERLINK(…)",
    "-Raro" → "'-Raro"), so it shows as text and never runs as a formula.

    Only for text: numbers are written as numbers (an efectividad of -5 stays -5), so never
    pass a figure through this. ``None`` gives "".
    """
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_cell(value):
    """One typed cell as a CSV writes it: text through ``safe_text``; a date-time in ISO 8601
    with its offset; ``None`` empty; a number as it is (a float at full precision, its
    ``repr``; a ``Decimal`` with its places: 1553.9, 0.330000)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dt.datetime):
        return value.isoformat()
    return value


def csv_text(header, rows) -> str:
    """``header`` and ``rows`` (typed cells, ``csv_cell``) as CSV text, "\\n" line endings,
    without the ``BOM`` (a file, a download or a command's output starts with it)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([csv_cell(v) for v in row])
    return out.getvalue()


def xlsx_bytes(header, rows, *, title: str) -> bytes:
    """A workbook of one worksheet named ``title`` (cut to the 31 characters a sheet name
    may have): ``header`` in bold on a frozen first row, then ``rows``. Text is stored as text
    (never a formula, whatever it starts with); a ``Decimal`` as a number shown with its
    places (1553.9 → "0.0"); a date-time as the club's local time; ``None`` empty."""

    book = Workbook(write_only=True)
    sheet = book.create_sheet(_sheet_title(title))
    sheet.freeze_panes = "A2"
    bold = Font(bold=True)

    def head(text):
        cell = WriteOnlyCell(sheet, value=text)
        cell.font = bold
        return cell

    def cell(value):
        if value is None:
            return None
        if isinstance(value, str):
            out = WriteOnlyCell(sheet, value=value)
            out.data_type = "s"  # text, even "=…": never a formula
            return out
        if isinstance(value, Decimal):
            out = WriteOnlyCell(sheet, value=float(value))
            places = -value.as_tuple().exponent
            out.number_format = "0." + "0" * places if places > 0 else "0"
            return out
        if isinstance(value, dt.datetime):
            out = WriteOnlyCell(sheet, value=value.replace(tzinfo=None))
            out.number_format = "yyyy-mm-dd hh:mm"
            return out
        return value

    sheet.append([head(h) for h in header])
    for row in rows:
        sheet.append([cell(v) for v in row])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _sheet_title(title: str) -> str:
    """``title`` as a worksheet name may be: without ``[]:*?/\\``, at most 31 characters."""
    cleaned = "".join(" " if c in "[]:*?/\\" else c for c in title).strip()
    return cleaned[:31] or "1"


def _figure(value, *, full_precision: bool):
    """A standings figure typed for a row: a whole number as is; a ``Fraction`` (a Swiss
    share, 0–1) as a percentage with 2 decimals for people (0.616399… → 61.64, as the page's
    "OMW %"), or the share with ``_PLACES`` decimals when exact (0.616399); a ``Decimal`` (the
    table-game percentage sum) with ``_PCT_PLACES`` decimals (85.70).

    Rounded only here, for display (SCORING.md: exact values inside the computation): for
    people half away from zero (``clubsite.numbers.rounded``, as the pages), exactly; the exact
    CSV keeps its documented format (half to even, exactly)."""
    if isinstance(value, Fraction):
        if full_precision:
            return Decimal(format(value, f".{_PLACES}f"))
        return rounded(value * 100, _PCT_PLACES)
    if isinstance(value, Decimal):
        if full_precision:
            return Decimal(format(value, f".{_PCT_PLACES}f"))
        return rounded(value, _PCT_PLACES)
    return value


def standings_header(tournament: Tournament) -> tuple[str, ...]:
    """The standings CSV's columns: ``position``, the name column (``entry``, or ``player``
    for systems of one-player entries) and the system's figures (``csv_header``)."""
    system = systems.of(tournament)
    return ("position", system.presentation.csv_name_column(), *system.presentation.csv_header())


def standings_rows(tournament: Tournament, *, full_precision: bool = False) -> list[list]:
    """The standings as typed rows under ``standings_header``, best first: ``[position, name,
    *figures]`` (``_figure``: for people, or exact with ``full_precision``). ``position`` is
    the final place (``Tournament.final_places``, SCORING.md §9), None (an empty cell) for an
    entry that takes none, listed last; before the first result every position is empty and
    the entries are in the order of their names."""
    system = systems.of(tournament)
    return [
        [
            line.place,
            line.entry.name,
            *(
                _figure(v, full_precision=full_precision)
                for v in system.presentation.csv_values(line)
            ),
        ]
        for line in tournament.final_places()
    ]


def standings_csv(tournament: Tournament, *, full_precision: bool = False) -> str:
    """The tournament's standings as CSV text, best first, "\\n" line endings (without the
    ``BOM``: the download and the command write it first).

    ``position`` is a number, shared by tied entries with the next one skipping (1, 2, 2, 4;
    the final places, ``Tournament.final_places``), empty for an entry that played no game
    (listed last; before the first result, every entry, by name); ``entry`` is the entry's
    name ("Ana & Beto" for a pair).

    The columns are ``standings_header``; what the figures are is the system's. Dominó:
    ``played, won, puntos, tantos_a_favor, tantos_en_contra, castigos, efectividad, byes``, whole numbers from ``Tournament.standings()``
    (seed 003, SCORING.md §1).

    Swiss match play: ``match_points, wins, losses, draws, byes, omw, gwp, ogw`` (seed 000, SCORING.md §3):
    ``match_points``, ``wins``, ``losses``, ``draws``, ``byes`` are whole numbers, and
    ``wins`` **includes the byes** (a bye is a match won 2–0, as in the standings figures and
    the seed's "3–2–0 including a round-1 bye"), so ``byes`` says how many of the wins were
    byes and ``match_points == 3 × wins + draws``. ``omw``, ``gwp``, ``ogw`` are, for people,
    percentages with 2 decimals as the page shows them (61.64), and, with ``full_precision``,
    the exact shares (0.33 floor included) written as decimals with 6 places, e.g. 0.616399.

    Table games (3–4 players): ``player, games, points, vp, pct_sum`` (seed 004, SCORING.md §4):
    ``player`` (the entry's one player), ``games`` (tables played, byes not counted),
    ``points`` (tournament points, byes included), ``vp`` (total in-game VP, the figure
    ``victory_points``), whole numbers,
    and ``pct_sum``, the sum of the per-game percentages with 2 decimals (85.70).

    The name column goes through ``safe_text`` (no spreadsheet formulas); figures stay numbers.
    """
    return csv_text(
        standings_header(tournament),
        standings_rows(tournament, full_precision=full_precision),
    )


def standings_xlsx(tournament: Tournament) -> bytes:
    """The standings for people (``standings_rows``) as an .xlsx workbook, one worksheet
    named "Clasificación" (translated)."""

    return xlsx_bytes(
        standings_header(tournament), standings_rows(tournament), title=gettext("Clasificación")
    )


__all__ = [
    "BOM",
    "CSV_TYPE",
    "FORMULA_STARTS",
    "XLSX_TYPE",
    "csv_cell",
    "csv_text",
    "safe_text",
    "standings_csv",
    "standings_header",
    "standings_rows",
    "standings_xlsx",
    "xlsx_bytes",
]
