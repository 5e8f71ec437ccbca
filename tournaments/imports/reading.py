"""Reading a CSV import: the file's text, its rows, the values in its cells and who is who.

Nothing here knows a scoring system or writes anything: the format modules (``domino``,
``swiss``, ``generic``, ``castigos``) read with these pieces and plan; ``apply`` writes the
plan through the services.

- ``decode`` and ``read_rows``: UTF-8 (a BOM is accepted), at most ``MAX_LINES`` lines, the
  header exactly as the format says; line numbers count the header as line 1.
- ``LineError``, ``ImportRefused`` and ``Errors`` (the refused lines, the first problem of
  each): an import is all or nothing, and a refusal lists every bad line.
- the cell parsers: ``positive`` (round and table numbers), ``yes_no``, ``played_at``,
  ``names`` (a side "Ana & Beto").
- ``Directory``: names to players and entries of one tournament (``PlayerRef``, ``EntryRef``),
  planning the players to create and the entries to register.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import unicodedata
from typing import NamedTuple

from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from tournaments import services
from tournaments.errors import DomainError
from tournaments.models import Player, Tournament
from tournaments.services.rounds import MAX_TABLE

MAX_LINES = 20_000
MAX_ROUND = 99

_YES = {"yes", "sí", "si"}
_NO = {"no", ""}
_NEWLINE = re.compile(r"\r\n|\r|\n")

__all__ = [
    "MAX_LINES",
    "MAX_ROUND",
    "MAX_TABLE",
    "Directory",
    "EntryRef",
    "Errors",
    "ImportRefused",
    "LineError",
    "PlayerRef",
    "decode",
    "field_count",
    "file_error",
    "line_error",
    "names",
    "played_at",
    "positive",
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
    file-level reason: "bad_encoding", "bad_header", "file_too_large".
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


def decode(data: bytes | str) -> str:
    """The file as text: UTF-8 with or without BOM; anything else raises "bad_encoding"."""
    if isinstance(data, str):
        text = data
    else:
        raw = bytes(data).removeprefix(b"\xef\xbb\xbf")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise file_error(line, "bad_encoding", line=line) from None
    text = text.removeprefix("\ufeff")
    if "\x00" in text:  # UTF-16 without BOM decodes as UTF-8 full of NULs
        line = text[: text.index("\x00")].count("\n") + 1
        raise file_error(line, "bad_encoding", line=line)
    return text


def read_rows(text: str, header: tuple[str, ...]) -> list[tuple[int, list[str]]]:
    """``[(line_number, stripped fields), ...]`` after the header; blank lines are skipped.

    Raises ImportRefused "file_too_large" (over ``MAX_LINES`` lines, header included),
    "bad_header" (the first line is not exactly ``header``, case aside), or "import_invalid"
    for a line that is not CSV ("csv_syntax").
    """
    lines = len(_NEWLINE.findall(text)) + (0 if not text or text[-1] in "\r\n" else 1)
    if lines > MAX_LINES:
        raise file_error(MAX_LINES + 1, "file_too_large", max=MAX_LINES)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
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


class Directory:
    """Resolves names to players and entries of one tournament, planning the ones to create.

    Players are matched by exact ``full_name``; when several players share it, the one entered
    in the tournament is taken, else the name is ambiguous ("ambiguous_player"). ``at(line)``
    says which line is being read, so that each player and entry knows the lines naming it.
    """

    def __init__(self, tournament: Tournament):
        self.t = tournament
        self.line = 0
        self.players: dict[str, PlayerRef] = {}
        self.entry_of: dict[tuple, EntryRef] = {}  # player key -> entry
        self.new_players: list[PlayerRef] = []
        self.new_entries: list[EntryRef] = []
        for e in tournament.entries.select_related("player1", "player2"):
            ps = tuple(PlayerRef(p.full_name, p) for p in (e.player1, e.player2) if p is not None)
            entry = EntryRef(ps, e)
            for p in ps:
                self.entry_of[p.key] = entry

    def at(self, line: int) -> None:
        """The line being read (for the lines of the players and entries it names)."""
        self.line = line

    @staticmethod
    def _seen(ref, line: int):
        if line and (not ref.lines or ref.lines[-1] != line):
            ref.lines.append(line)
        return ref

    def player(self, name: str) -> PlayerRef:
        """The player of that exact name, planned for creation when there is none. Raises
        DomainError "name_required", "name_too_long", "name_control_chars",
        "ambiguous_player"."""
        name = services.clean_name(name, field=gettext_noop("nombre"))
        if name in self.players:
            return self._seen(self.players[name], self.line)
        found = list(Player.objects.filter(full_name=name).order_by("pk"))
        if len(found) > 1:
            entered = [p for p in found if ("p", p.pk) in self.entry_of]
            if len(entered) != 1:
                raise DomainError("ambiguous_player", name=name, count=len(found))
            found = entered
        ref = PlayerRef(name, found[0] if found else None)
        if not found:
            self.new_players.append(ref)
        self.players[name] = ref
        return self._seen(ref, self.line)

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
        mode = self.t.mode
        sizes = {
            Tournament.Mode.PAIRS: (2,),
            Tournament.Mode.SINGLE: (1,),
            Tournament.Mode.INDIVIDUAL: (1, 2) if bye else (2,),
        }[mode]
        if len(parts) not in sizes or not all(parts):
            raise DomainError(
                "side_names", side=side, size=gettext(" o ").join(map(str, sizes)), value=value
            )
        players = [self.player(n) for n in parts]
        if mode == Tournament.Mode.PAIRS:
            return [self.entry(players)]
        if len({p.key for p in players}) < len(players):
            raise DomainError("player_twice_in_row", name=players[0].name)
        return [self.entry([p]) for p in players]
