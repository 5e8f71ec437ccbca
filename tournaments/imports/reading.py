"""Reading an import file: the file's text, its rows, the values in its cells and who is who.

Nothing here knows a scoring system or writes anything: the format modules (``domino``,
``swiss``, ``generic``, ``castigos``) read with these pieces and plan; ``apply`` writes the
plan through the services.

- ``open_file`` (``decode``: its text alone) and ``read_rows``: spreadsheets as people have
  them. A CSV file in UTF-8 (with or without a BOM), UTF-16 with a BOM (a spreadsheet's
  "Unicode text"), else Windows-1252 (cp1252: what a spreadsheet in a Spanish or English
  locale saves when not asked for UTF-8), with its columns separated by commas, semicolons or
  tabs (``read_rows`` tells which from the header line, which each format knows); or an
  .xlsx workbook (its first worksheet, the same columns), bounded before it is parsed
  (``check_workbook``: the zip's directory, cheap enough for a request) and while it is
  (the XML's elements, at most ``MAX_COLUMNS`` columns), and parsed only in a background job
  or a command. ``FileText.notes`` says how the file was read when it was not UTF-8 text. At
  most ``MAX_LINES`` lines, the header exactly as the format says (case aside), at least one
  row after it; line numbers count the header as line 1 (in a workbook, line = row).
- ``LineError``, ``ImportRefused`` and ``Errors`` (the refused lines, the first problem of
  each): an import is all or nothing, and a refusal lists every bad line.
- the cell parsers: ``positive`` (round and table numbers), ``yes_no``, ``played_at``,
  ``names`` (a side "Ana & Beto").
- ``Directory``: names to players and entries of one tournament (``PlayerRef``, ``EntryRef``),
  planning the players to create and the entries to register; ``player_candidates`` and
  ``choose_player``: the matching rule it shares with the castigos file (a name is cleaned
  with ``tournaments.names.clean``, then matched exactly, else up to case, accents and spacing
  when only one player fits — a ``LooseMatch``, reported as a warning —, else refused).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import unicodedata
import zipfile
from typing import NamedTuple
from xml.parsers import expat

import openpyxl
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from tournaments import names as name_rules
from tournaments import services, systems
from tournaments.errors import DomainError
from tournaments.models import Player, Tournament, name_key
from tournaments.services.rounds import MAX_TABLE

MAX_LINES = 20_000
MAX_ROUND = 99

_YES = {"yes", "sí", "si"}
_NO = {"no", ""}
_NEWLINE = re.compile(r"\r\n|\r|\n")

__all__ = [
    "MAX_COLUMNS",
    "MAX_FILE_BYTES",
    "MAX_LINES",
    "MAX_ROUND",
    "MAX_TABLE",
    "MAX_UNPACKED",
    "Directory",
    "EntryRef",
    "Errors",
    "FileText",
    "ImportRefused",
    "LineError",
    "LooseMatch",
    "PlayerRef",
    "check_workbook",
    "choose_player",
    "decode",
    "field_count",
    "file_error",
    "is_workbook",
    "line_error",
    "names",
    "open_file",
    "played_at",
    "player_candidates",
    "positive",
    "quoted_list",
    "read_rows",
    "yes_no",
]


# --- refusals ----------------------------------------------------------------------------------


class LineError(NamedTuple):
    """One refused line: its number (header = 1), the error code and the message in Spanish."""

    line: int
    code: str
    message: str


class ImportRefused(DomainError):
    """The file was refused; nothing was stored.

    ``errors``: ``[(line_number, message), ...]`` sorted by line; ``codes``:
    ``[(line_number, code), ...]`` in the same order; ``line_errors``: the ``LineError`` tuples.
    ``code`` is "import_invalid" when lines are wrong (its ``message`` then ends with the first
    bad line, so that a refusal shown in one sentence still says what is wrong), or the
    file-level reason: "bad_encoding", "bad_xlsx", "xls_file", "bad_header",
    "file_too_large", "no_rows" (a header and nothing else), or a workbook's bounds
    ("xlsx_too_many_parts", "xlsx_too_big", "xlsx_bomb", "xlsx_too_complex",
    "file_too_wide"). ``listed``: the lines to list under the refusal's sentence.
    """

    code = "import_invalid"

    def __init__(self, line_errors, code=None, **params):
        self.line_errors = sorted(line_errors, key=lambda e: e.line)
        self.errors = [(e.line, e.message) for e in self.line_errors]
        self.codes = [(e.line, e.code) for e in self.line_errors]
        if code is None:
            params = {"count": len(self.line_errors)}
        super().__init__(code, **params)

    @property
    def listed(self) -> list[tuple[int, str]]:
        """``errors`` to list under ``summary``: every refused line when lines are wrong; none
        for a refusal of the whole file, whose one sentence says it all (listing it as well
        would show it twice)."""
        return self.errors if self.code == "import_invalid" else []

    @property
    def summary(self) -> str:
        """The refusal in one sentence without the first bad line (for pages that list every
        line below it)."""
        return super().message

    @property
    def message(self) -> str:
        text = super().message
        if self.code == "import_invalid" and self.line_errors:
            first = self.line_errors[0]
            # The msgid of the refused lines' list on the tournament page.
            text += " " + gettext("Línea %(line)s: %(msg)s") % {
                "line": first.line,
                "msg": first.message,
            }
        return text


def line_error(at: int, code: str, message: str | None = None, **params) -> LineError:
    """A ``LineError`` at line ``at`` with the message of ``code`` (or ``message``)."""
    return LineError(at, code, DomainError(code, message=message, **params).message)


def file_error(at: int, code: str, **params) -> ImportRefused:
    """A refusal of the whole file, with its one line."""
    return ImportRefused([line_error(at, code, **params)], code, **params)


class Errors:
    """The refused lines of one import: the first problem of each line, in any order
    (``ImportRefused`` sorts them)."""

    def __init__(self):
        self._by_line: dict[int, LineError] = {}

    def add(self, line: int, exc: DomainError) -> None:
        """Refuse ``line`` with ``exc``, unless it is refused already."""
        if line not in self._by_line:
            self._by_line[line] = LineError(line, exc.code, exc.message)

    def add_all(self, lines, exc: DomainError) -> None:
        for line in lines:
            self.add(line, exc)

    def __contains__(self, line: int) -> bool:
        return line in self._by_line

    def __bool__(self) -> bool:
        return bool(self._by_line)

    def __len__(self) -> int:
        return len(self._by_line)

    def refusal(self) -> ImportRefused:
        return ImportRefused(list(self._by_line.values()))


# --- the file ----------------------------------------------------------------------------------


#: The first bytes of a zip archive (an .xlsx workbook is one) and of an old binary .xls.
ZIP_MAGIC = b"PK\x03\x04"
XLS_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: The column separators ``read_rows`` recognises, in order of preference.
DELIMITERS = (",", ";", "\t")


class FileText(NamedTuple):
    """An import file as text (``open_file``): ``text`` (CSV, any of ``DELIMITERS``) and
    ``encoding``: "utf-8" (with or without a BOM), "utf-16", "cp1252", "xlsx" (the first
    worksheet of a workbook, turned into comma-separated text: one line per row) or "text"
    (given as text already)."""

    text: str
    encoding: str
    sheet: str = ""

    @property
    def notes(self) -> list[str]:
        """How the file was read, for the import's report, when it was not UTF-8 text: one
        sentence, or none."""
        if self.encoding == "cp1252":
            return [gettext("Leído como Windows-1252 (no era UTF-8).")]
        if self.encoding == "utf-16":
            return [gettext("Leído como UTF-16.")]
        if self.encoding == "xlsx":
            return [
                gettext("Leída la primera hoja del archivo .xlsx: «{sheet}».").format(
                    sheet=self.sheet
                )
            ]
        return []


def open_file(data: bytes | str) -> FileText:
    """The import file ``data`` (bytes as uploaded or read, or text) as text.

    Bytes are read as: an .xlsx workbook when they start as a zip archive (``is_workbook``;
    bounded before and while it is parsed, ``_xlsx``: seconds at most, never in a request);
    UTF-8 after a UTF-8 BOM; UTF-16 after a UTF-16 BOM; else UTF-8, or, when they are not
    UTF-8, Windows-1252 (linear in the text). Raises ImportRefused "bad_encoding" (a byte that
    none of these encodings reads, or NUL characters: UTF-16 without a BOM; the line of the
    first one), "xls_file" (an old binary .xls), "bad_xlsx" (a zip that is no readable
    workbook), those of ``check_workbook`` ("xlsx_too_many_parts", "xlsx_too_big",
    "xlsx_bomb"), "xlsx_too_complex" (too many XML elements), "file_too_large" (a worksheet
    of more than ``MAX_LINES`` rows), "file_too_wide" (a row wider than ``MAX_COLUMNS``)."""
    if isinstance(data, str):
        text, encoding = data.removeprefix("\ufeff"), "text"
    else:
        raw = bytes(data)
        if is_workbook(raw):
            return _xlsx(raw)
        if raw.startswith(XLS_MAGIC):
            raise file_error(1, "xls_file")
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            text, encoding = _decoded(raw, "utf-16"), "utf-16"
        elif raw.startswith(b"\xef\xbb\xbf"):
            text, encoding = _decoded(raw[3:], "utf-8"), "utf-8"
        else:
            try:
                text, encoding = raw.decode("utf-8"), "utf-8"
            except UnicodeDecodeError:
                text, encoding = _decoded(raw, "cp1252"), "cp1252"
        text = text.removeprefix("\ufeff")
    if "\x00" in text:  # UTF-16 without BOM decodes as UTF-8 full of NULs
        line = text[: text.index("\x00")].count("\n") + 1
        raise file_error(line, "bad_encoding", line=line)
    return FileText(text, encoding)


def decode(data: bytes | str) -> str:
    """The import file as text (``open_file(data).text``)."""
    return open_file(data).text


def _decoded(raw: bytes, encoding: str) -> str:
    """``raw`` in ``encoding``; ImportRefused "bad_encoding" at the line of the first byte it
    cannot read."""
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        if encoding == "utf-16":
            before = before.decode("utf-16", errors="replace")
            line = before.count("\n") + 1
        else:
            line = before.count(b"\n") + 1
        raise file_error(line, "bad_encoding", line=line) from None


# --- workbooks ---------------------------------------------------------------------------------
#
# An .xlsx workbook is a zip of XML parts: a few hundred kilobytes may unpack to gigabytes, and a
# sheet may declare (``<dimension>``) or reference (``<c r="XFD1"/>``) millions of cells it does
# not hold. Each bound below is checked before the work it bounds (docs/performance.md,
# "Bounded inputs"); a request checks the zip's directory only (``check_workbook``), the parsing
# (``open_file``) is a background job's or a command's.

#: The largest file the import page takes (checked before it is read).
MAX_FILE_BYTES = 5 * 1024 * 1024
#: The zip's directory: at most ``MAX_PARTS`` parts unpacking to at most ``MAX_UNPACKED`` bytes
#: in all (their declared sizes: a part is never read past its declared size), none of more
#: than ``RATIO_FROM`` bytes compressed more than ``MAX_RATIO`` to 1 (a zip bomb; a real
#: worksheet compresses about 10 to 1).
MAX_PARTS = 1_000
MAX_UNPACKED = 30 * 1024 * 1024
MAX_RATIO = 100
RATIO_FROM = 1024 * 1024
#: The XML of the parts, streamed before openpyxl reads any (``_scan_parts``): at most
#: ``MAX_ELEMENTS`` elements in all; of them at most ``MAX_OTHER_ELEMENTS`` that are not rows,
#: cells or strings (``_LIGHT``, which openpyxl reads cheaply; styles, names, charts become
#: objects, about 15 µs and 1 KB each); at most ``MAX_ROW_ELEMENTS`` inside one row (openpyxl
#: holds a whole row at once: Excel's 16,384 columns, four elements a cell); no DTD. A results
#: file of ``MAX_LINES`` rows has about 460,000.
MAX_ELEMENTS = 1_000_000
MAX_OTHER_ELEMENTS = 100_000
MAX_ROW_ELEMENTS = 4 * 16_384
#: The first worksheet as read: at most ``MAX_LINES`` rows of at most ``MAX_COLUMNS`` cells
#: each (a results file has 5 to 12 columns), so at most ``MAX_CELLS`` cells are visited.
MAX_COLUMNS = 60
MAX_CELLS = MAX_LINES * MAX_COLUMNS
#: The elements of rows and strings (local names): a row, a cell, its value, formula, inline
#: string, text; an item of the shared strings.
_LIGHT = frozenset({"row", "c", "v", "f", "is", "t", "si"})
#: How much of a part the scan reads at a time.
_CHUNK = 64 * 1024


def is_workbook(data: bytes | str) -> bool:
    """Whether ``data`` is read as an .xlsx workbook (bytes starting as a zip archive,
    ``ZIP_MAGIC``): parsed by ``open_file`` in a background job or a command, never in a
    request, which may only ``check_workbook``."""
    return not isinstance(data, str) and bytes(data[:4]) == ZIP_MAGIC


def check_workbook(raw: bytes) -> None:
    """The check of workbook ``raw`` a request may make: the zip's central directory alone
    (the list of its parts with their declared sizes), no part unpacked, no XML read; linear in
    the file's size. Raises ImportRefused "bad_xlsx" (no zip, or one without a workbook's list
    of parts, ``[Content_Types].xml``: an .ods ...), "xlsx_too_many_parts" (more than
    ``MAX_PARTS``), "xlsx_too_big" (unpacking to more than ``MAX_UNPACKED`` bytes),
    "xlsx_bomb" (a part compressed more than ``MAX_RATIO`` to 1)."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            _check_directory(archive)
    except ImportRefused:
        raise
    except Exception:  # no zip, or a damaged one
        raise file_error(1, "bad_xlsx") from None


def _megabytes(size: int) -> int:
    return -(-size // (1024 * 1024))


def _check_directory(archive: zipfile.ZipFile) -> None:
    """``check_workbook`` on an open ``archive``."""
    parts = archive.infolist()
    if len(parts) > MAX_PARTS:
        raise file_error(1, "xlsx_too_many_parts", count=len(parts), max=MAX_PARTS)
    if not any(p.filename == "[Content_Types].xml" for p in parts):
        raise file_error(1, "bad_xlsx")
    unpacked = sum(p.file_size for p in parts)
    if unpacked > MAX_UNPACKED:
        raise file_error(1, "xlsx_too_big", size=_megabytes(unpacked), max=_megabytes(MAX_UNPACKED))
    for p in parts:
        if p.file_size > RATIO_FROM and p.file_size > MAX_RATIO * p.compress_size:
            ratio = p.file_size // max(p.compress_size, 1)
            raise file_error(1, "xlsx_bomb", ratio=ratio, max=MAX_RATIO)


def _scan_parts(archive: zipfile.ZipFile) -> None:
    """Stream the XML of every part of ``archive`` (``_check_directory`` passed: each part is
    read at most to its declared size) through expat, counting elements, before openpyxl
    parses any: openpyxl builds a tree of each part it reads (a whole row at once, every style
    and name as an object), so its memory and time follow the elements, which the unpacked
    size alone does not bound (``<c/>`` is four bytes). A part that is not XML (an image, a
    binary part) stops at its first bytes, as it would for openpyxl.

    Raises ImportRefused "xlsx_too_complex" (more than ``MAX_ELEMENTS`` elements, or more than
    ``MAX_OTHER_ELEMENTS`` outside rows and strings), "file_too_wide" (a row holding more than
    ``MAX_ROW_ELEMENTS``: far more than ``MAX_COLUMNS`` cells), "bad_xlsx" (a DTD: a
    workbook's XML has none, and entities are how XML grows inside the parser)."""
    counts = [0, 0]  # elements in all, elements not in _LIGHT
    for info in archive.infolist():
        if not info.is_dir():
            with archive.open(info) as part:
                _scan_xml(part, counts)


def _scan_xml(part, counts: list[int]) -> None:
    """One part of ``_scan_parts``, adding to ``counts``."""
    parser = expat.ParserCreate(namespace_separator=" ")
    depth = row_depth = row = inside = 0  # the row being read: its depth (0: none), number, size

    def start(name: str, attrs: dict) -> None:
        nonlocal depth, row_depth, row, inside
        depth += 1
        counts[0] += 1
        if counts[0] > MAX_ELEMENTS:
            raise file_error(1, "xlsx_too_complex", max=MAX_ELEMENTS)
        local = name.rpartition(" ")[2]
        if local not in _LIGHT:
            counts[1] += 1
            if counts[1] > MAX_OTHER_ELEMENTS:
                raise file_error(1, "xlsx_too_complex", max=MAX_OTHER_ELEMENTS)
        if row_depth:
            inside += 1
            if inside > MAX_ROW_ELEMENTS:
                raise file_error(row, "file_too_wide", row=row, max=MAX_COLUMNS)
        elif local == "row":
            number = attrs.get("r", "")
            ok = number.isascii() and number.isdigit() and len(number) < 8
            row_depth, row, inside = depth, int(number) if ok else row + 1, 0

    def end(_name: str) -> None:
        nonlocal depth, row_depth
        if depth == row_depth:
            row_depth = 0
        depth -= 1

    def no_dtd(*_args) -> None:
        raise file_error(1, "bad_xlsx")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.StartDoctypeDeclHandler = no_dtd
    while True:
        chunk = part.read(_CHUNK)
        try:
            parser.Parse(chunk, not chunk)
        except expat.ExpatError:  # no XML, or no more: openpyxl stops there too
            return
        if not chunk:
            return


def _xlsx(raw: bytes) -> FileText:
    """The first worksheet of workbook ``raw`` as comma-separated text, one line per row
    (so that line numbers are row numbers): each cell as text (``_cell_text``), each line as
    wide as the header row (the first) or its last filled cell.

    Bounded before and while it is parsed: the zip's directory (``check_workbook``), the XML
    of every part (``_scan_parts``), then the rows as openpyxl streams them, with the sheet's
    declared dimension ignored (a lying ``A1:XFD1048576`` would pad every row to 16,384 cells
    and the sheet to a million rows): at most ``MAX_LINES`` rows ("file_too_large"), none
    wider than ``MAX_COLUMNS`` ("file_too_wide", at its row; a row is as wide as its last
    cell, empty or not)."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            _check_directory(archive)
            _scan_parts(archive)
        book = openpyxl.load_workbook(
            io.BytesIO(raw), read_only=True, data_only=True, keep_links=False
        )
    except ImportRefused:
        raise
    except Exception:  # a zip that is no workbook (an .ods, a damaged file ...)
        raise file_error(1, "bad_xlsx") from None
    try:
        if not book.worksheets:
            raise file_error(1, "bad_xlsx")
        sheet = book.worksheets[0]
        sheet.reset_dimensions()  # rows as stored, not padded to what the sheet declares
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        width = 0
        for number, row in enumerate(sheet.iter_rows(values_only=True), start=1):
            if number > MAX_LINES:
                raise file_error(MAX_LINES + 1, "file_too_large", max=MAX_LINES)
            if len(row) > MAX_COLUMNS:
                raise file_error(number, "file_too_wide", row=number, max=MAX_COLUMNS)
            cells = [_cell_text(v) for v in row]
            while cells and cells[-1] == "":
                cells.pop()
            if number == 1:
                width = len(cells)
            writer.writerow(cells + [""] * (width - len(cells)) if cells else [])
        return FileText(out.getvalue(), "xlsx", sheet.title)
    except ImportRefused:
        raise
    except Exception:  # a workbook openpyxl cannot read through
        raise file_error(1, "bad_xlsx") from None
    finally:
        book.close()


def _cell_text(value) -> str:
    """A workbook cell as a CSV file would have it: "" for an empty cell, whole numbers
    without ".0" (100.0 → "100"), dates and times in ISO (2026-03-07, 2026-03-07 18:45; a
    date-time at midnight is its date), TRUE/FALSE as "yes"/"no", text as typed with any line
    break made a space (one row, one line)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0, 0):
            return value.date().isoformat()
        spec = "minutes" if not (value.second or value.microsecond) else "seconds"
        return value.isoformat(sep=" ", timespec=spec)
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return _NEWLINE.sub(" ", str(value))


def _delimiter(text: str, header: tuple[str, ...]) -> str:
    """The column separator of ``text``: the one of ``DELIMITERS`` that splits its first line
    into exactly ``header`` (case and spaces aside); when none does (a wrong header), the one
    the first line has most of (a comma on a tie)."""
    first = _NEWLINE.split(text, maxsplit=1)[0]
    for delimiter in DELIMITERS:
        try:
            fields = next(csv.reader([first], delimiter=delimiter), [])
        except csv.Error:
            continue
        if [f.strip().lower() for f in fields] == list(header):
            return delimiter
    return max(DELIMITERS, key=first.count)


def read_rows(
    text: str, header: tuple[str, ...], *, empty: str = "no_rows"
) -> list[tuple[int, list[str]]]:
    """``[(line_number, stripped fields), ...]`` after the header; blank lines are skipped.
    The columns are separated by commas, semicolons or tabs (``_delimiter``: the header line
    tells which), the same in every line.

    Raises ImportRefused "file_too_large" (over ``MAX_LINES`` lines, header included),
    "bad_header" (the first line is not exactly ``header``, case aside), ``empty`` (the
    header and no row after it: "no_rows", or the code the caller names for its file), or
    "import_invalid" for a line that is not CSV ("csv_syntax").
    """
    lines = len(_NEWLINE.findall(text)) + (0 if not text or text[-1] in "\r\n" else 1)
    if lines > MAX_LINES:
        raise file_error(MAX_LINES + 1, "file_too_large", max=MAX_LINES)
    delimiter = _delimiter(text, header)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for record in reader:
            fields = [f.strip() for f in record]
            if start == 1:
                found = [f.lower() for f in fields]
                if found != list(header):
                    raise file_error(
                        1, "bad_header", expected=",".join(header), found=",".join(fields)[:200]
                    )
            elif any(fields):
                rows.append((start, fields))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ImportRefused([line_error(start, "csv_syntax", detail=str(exc))]) from None
    if start == 1:  # empty file
        raise file_error(1, "bad_header", expected=",".join(header), found="")
    if not rows:
        raise file_error(2, empty)
    return rows


def field_count(fields: list[str], header: tuple[str, ...]) -> None:
    """Raise DomainError "field_count" unless the line has one field per column."""
    if len(fields) != len(header):
        raise DomainError("field_count", found=len(fields), expected=len(header))


# --- cells -------------------------------------------------------------------------------------


def positive(value: str, code: str, maximum: int) -> int:
    """A round or table number: a whole number 1–``maximum``; else DomainError ``code``."""
    if re.fullmatch(r"[0-9]{1,6}", value) and 1 <= int(value) <= maximum:
        return int(value)
    raise DomainError(code, value=value, max=maximum)


def yes_no(value: str, name: str) -> bool:
    """A yes/no cell: «sí», «si», «yes» (any case) → True, «no» or empty → False; else
    DomainError "bad_yes_no" naming the column ``name``."""
    word = unicodedata.normalize("NFC", value).casefold()
    if word in _YES:
        return True
    if word in _NO:
        return False
    raise DomainError("bad_yes_no", field=name, value=value)


def played_at(value: str) -> dt.datetime | None:
    """ISO date-time, or None when empty; naive values are local time of the TIME_ZONE
    setting. Raises DomainError "bad_played_at"."""
    if value == "":
        return None
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise DomainError("bad_played_at", value=value[:40]) from None
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, timezone.get_default_timezone())
    return moment


def names(value: str) -> list[str]:
    """The names of one side: "Ana & Beto" → ["Ana", "Beto"]; empty → []."""
    return [part.strip() for part in value.split("&")] if value else []


# --- who is who --------------------------------------------------------------------------------


class PlayerRef:
    """A player named in the file: an existing ``Player`` or one to create (``player`` None
    until ``apply`` creates it). ``lines``: the lines naming it."""

    def __init__(self, name: str, player: Player | None):
        self.name = name
        self.player = player
        self.key = ("p", player.pk) if player else ("n", name)
        self.lines: list[int] = []


class EntryRef:
    """An entry named in the file: an existing ``Entry`` or one to register (``entry`` None
    until ``apply`` registers it). ``lines``: the lines naming it."""

    def __init__(self, players: tuple[PlayerRef, ...], entry=None):
        self.players = players
        self.entry = entry
        self.key = ("e", entry.pk) if entry else ("n",) + tuple(p.key for p in players)
        self.name = " & ".join(p.name for p in players)
        self.lines: list[int] = []


def quoted_list(words: list[str]) -> str:
    """«Ana», «Beto» y «Carla» (the last two joined by the translated "y")."""
    quoted = [f"«{w}»" for w in words]
    if len(quoted) < 2:
        return "".join(quoted)
    return gettext("{first} y {last}").format(first=", ".join(quoted[:-1]), last=quoted[-1])


def player_candidates(name: str) -> tuple[list[Player], list[Player]]:
    """The players a cleaned ``name`` (``names.clean``) may mean, by name then id:
    ``(exact, loose)``, those whose cleaned full name is ``name`` and those whose name only
    has the same ``names.key`` (differs in case, accents or spacing). One query, on the indexed
    ``Player.name_key``."""
    wanted = name_rules.key(name)
    if not wanted:  # nothing to compare loosely (a name of combining marks only)
        return list(Player.objects.filter(full_name=name).order_by("full_name", "pk")), []
    exact: list[Player] = []
    loose: list[Player] = []
    for p in Player.objects.filter(name_key=name_key(name)).order_by("full_name", "pk"):
        if name_rules.clean(p.full_name) == name:
            exact.append(p)
        elif name_rules.key(p.full_name) == wanted:
            loose.append(p)
    return exact, loose


def choose_player(
    name: str,
    exact: list[Player],
    loose: list[Player],
    entered: set[int],
    *,
    entered_only: bool = False,
) -> tuple[Player | None, bool]:
    """Which player ``name`` is, from ``player_candidates(name)``: ``(player, loose)``, with
    ``loose`` True when the name matched only up to case, accents or spacing (the caller
    reports it), or ``(None, False)`` when no player has that name (a results import then plans
    a new player).

    The rule: an exact match wins (when several players share the exact name, the one among
    ``entered`` — the ids of the tournament's players —, else "ambiguous_player"); else a loose
    match is taken when it is the only one among ``entered``, or, none of them entered, the
    only one at all; two or more are refused ("ambiguous_player_similar", listing them).
    With ``entered_only`` (the castigos file: only a player of the tournament may be meant)
    only ``entered`` players count, and a name of no one entered raises "player_not_entered"
    (some player has it) or "player_unknown".
    """
    inside = [p for p in exact if p.pk in entered]
    pool = inside if entered_only else exact
    if len(pool) == 1:
        return pool[0], False
    if len(pool) > 1:
        if len(inside) == 1:
            return inside[0], False
        raise DomainError("ambiguous_player", name=name, count=len(pool))
    inside = [p for p in loose if p.pk in entered]
    pool = inside if (inside or entered_only) else loose
    if len(pool) == 1:
        return pool[0], True
    if len(pool) > 1:
        raise DomainError(
            "ambiguous_player_similar",
            name=name,
            count=len(pool),
            names=quoted_list([p.full_name for p in pool]),
        )
    if entered_only:
        if exact or loose:
            raise DomainError("player_not_entered", name=name)
        raise DomainError("player_unknown", name=name)
    return None, False


class LooseMatch(NamedTuple):
    """A name of the file taken as a player whose name differs from it only in case, accents
    or spacing (or as a player to create that an earlier line named so): the line that named
    it first, the name as typed (cleaned) and the player's reference."""

    line: int
    typed: str
    ref: PlayerRef

    def warning(self) -> str:
        """The sentence for the import's warnings (``ImportReport.warnings``)."""
        return loose_warning(self.line, self.typed, self.ref.name)


def loose_warning(line: int, typed: str, name: str) -> str:
    """Línea 3: «jose perez» se tomó como «José Pérez» …"""
    return gettext(
        "Línea {line}: «{typed}» se tomó como «{name}», que solo difiere en mayúsculas, "
        "acentos o espacios."
    ).format(line=line, typed=typed, name=name)


class Directory:
    """Resolves names to players and entries of one tournament, planning the ones to create.

    A name is cleaned (``names.clean``) and matched by ``choose_player``: exactly, else up to
    case, accents and spacing when one player only fits (recorded in ``loose``, a
    ``LooseMatch`` each, for the report's warnings); a name no player has is planned as a new
    player, and a later line naming it with other case, accents or spacing means that same new
    player (a ``LooseMatch`` too). ``at(line)`` says which line is being read, so that each
    player and entry knows the lines naming it.
    """

    def __init__(self, tournament: Tournament):
        self.t = tournament
        self.line = 0
        self.players: dict[str, PlayerRef] = {}  # cleaned name -> player
        self.entry_of: dict[tuple, EntryRef] = {}  # player key -> entry
        self.new_players: list[PlayerRef] = []
        self.new_entries: list[EntryRef] = []
        self.loose: list[LooseMatch] = []
        self._by_pk: dict[int, PlayerRef] = {}
        self._new_by_key: dict[str, PlayerRef] = {}  # names.key -> player to create
        for e in tournament.entries.select_related("player1", "player2"):
            ps = tuple(self._existing(p) for p in (e.player1, e.player2) if p is not None)
            entry = EntryRef(ps, e)
            for p in ps:
                self.entry_of[p.key] = entry

    def _existing(self, player: Player) -> PlayerRef:
        """The one reference of an existing player, however the file spells the name."""
        ref = self._by_pk.get(player.pk)
        if ref is None:
            ref = self._by_pk[player.pk] = PlayerRef(player.full_name, player)
        return ref

    def at(self, line: int) -> None:
        """The line being read (for the lines of the players and entries it names)."""
        self.line = line

    @staticmethod
    def _seen(ref, line: int):
        if line and (not ref.lines or ref.lines[-1] != line):
            ref.lines.append(line)
        return ref

    def player(self, name: str) -> PlayerRef:
        """The player ``name`` means (``choose_player``), planned for creation when no player
        has that name. Raises DomainError "name_required" (empty once cleaned),
        "name_too_long", "ambiguous_player", "ambiguous_player_similar"."""
        name = services.clean_name(name, field=gettext_noop("nombre"))
        ref = self.players.get(name)
        if ref is None:
            ref = self._resolve(name)
            self.players[name] = ref
        return self._seen(ref, self.line)

    def _resolve(self, name: str) -> PlayerRef:
        wanted = name_rules.key(name)
        planned = self._new_by_key.get(wanted) if wanted else None
        if planned is not None:  # an earlier line named this new player otherwise
            self.loose.append(LooseMatch(self.line, name, planned))
            return planned
        exact, loose = player_candidates(name)
        entered = {key[1] for key in self.entry_of if key[0] == "p"}
        player, approximate = choose_player(name, exact, loose, entered)
        if player is None:
            ref = PlayerRef(name, None)
            self.new_players.append(ref)
            if wanted:
                self._new_by_key[wanted] = ref
            return ref
        ref = self._existing(player)
        if approximate:
            self.loose.append(LooseMatch(self.line, name, ref))
        return ref

    def entry(self, players: list[PlayerRef]) -> EntryRef:
        """The entry made of exactly ``players`` (a pair, or one player), planning it if new.
        Raises DomainError "player_twice_in_row", "player_other_entry" (a player entered with
        someone else), "tournament_finished", "player_inactive"."""
        keys = {p.key for p in players}
        if len(keys) < len(players):
            raise DomainError("player_twice_in_row", name=players[0].name)
        current = [self.entry_of.get(p.key) for p in players]
        if all(e is not None and {q.key for q in e.players} == keys for e in current):
            return self._seen(current[0], self.line)
        for p, e in zip(players, current, strict=True):
            if e is not None:
                raise DomainError(
                    "player_other_entry",
                    name=p.name,
                    entry=e.name,
                    side=" & ".join(q.name for q in players),
                )
        if self.t.status == Tournament.Status.FINISHED:
            raise DomainError("tournament_finished")
        for p in players:
            if p.player is not None and not p.player.active:
                raise DomainError("player_inactive", name=p.name)
        new = EntryRef(tuple(players))
        for p in players:
            self.entry_of[p.key] = new
        self.new_entries.append(new)
        return self._seen(new, self.line)

    def side(self, value: str, side: str, *, bye: bool = False) -> list[EntryRef]:
        """Entries named by one side of a line, by the tournament's mode (SCORING.md §1): a
        pair (pairs), one player (mano a mano), two players each their own entry (individual;
        one or two on a bye line). Raises DomainError "side_names" and those of ``player`` and
        ``entry``."""
        parts = names(value)
        per_entry = self.t.players_per_entry
        per_side = per_entry * systems.of(self.t).entries_per_side(self.t)
        # a bye line of one-player entries names any of them, one or more
        sizes = tuple(range(1, per_side + 1)) if bye and per_entry == 1 else (per_side,)
        if len(parts) not in sizes or not all(parts):
            raise DomainError(
                "side_names", side=side, size=gettext(" o ").join(map(str, sizes)), value=value
            )
        players = [self.player(n) for n in parts]
        if per_entry == 2:
            return [self.entry(players)]
        if len({p.key for p in players}) < len(players):
            raise DomainError("player_twice_in_row", name=players[0].name)
        return [self.entry([p]) for p in players]
