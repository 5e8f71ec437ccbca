"""Spreadsheet in: dominó results, match-play results and castigos from CSV files (DESIGN.md,
"Writes").

Every import is all-or-nothing: the whole file is checked first, every bad line is collected
(line numbers count the header as line 1), and if any line is wrong nothing is stored and
``ImportRefused`` lists them all. A good file is written in one transaction, through the
services where they fit, with simple-history recording the acting user.

Results file (UTF-8, a BOM is accepted; header exactly as ``RESULTS_HEADER``)::

    round,table,side_a,side_b,tantos_a,tantos_b,ended_by_time,forfeit,played_at
    1,1,Ana Ruiz & Beto Gil,Carla Paz & Dani Sol,100,45,no,no,
    1,,Eva Mar & Fito Luz,,,,,,

A side is one name (mano a mano) or two joined by `` & `` (the pair of a pairs tournament, or
the two players sitting on that side in an individual tournament). A line with ``side_b`` and
both tantos empty is a bye (descanso) of the entry or entries in ``side_a``. Each result is
validated with ``scoring.domino.validate_result`` (seed 003, SCORING.md §1).

Match-play file of a swiss tournament (header exactly ``MATCH_HEADER``)::

    round,table,player_a,player_b,games_a,games_b,games_drawn,drop
    1,1,Ana Ruiz,Beto Gil,2,1,,
    1,2,Carla Paz,Dani Sol,1,1,1,b
    1,,Eva Mar,,,,,

Each match is checked with ``scoring.swiss.validate_match`` against the tournament's best-of
(seed 000, SCORING.md §3); a line with ``player_b`` and the three games columns empty is a bye;
``drop`` (``a``, ``b``, ``both`` or empty) drops that side's entry after the line's round.
See ``import_match_results``.

Table-game file of a 3–4 player tournament (system "table"; header exactly ``TABLE_HEADER``),
one line per seated player, the lines of one round/table forming one table of 3 or 4::

    round,table,player,vp,ended_by_time
    1,1,Ana Ruiz,10,no
    1,1,Beto Gil,8,no
    1,1,Carla Paz,7,no

Each table's VP are checked with ``scoring.table.validate_table`` (seed 004, SCORING.md §4).
See ``import_table_results``.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from tournaments import services
from tournaments.errors import MESSAGES, DomainError, ResultError
from tournaments.models import (
    Bye,
    Castigo,
    MatchResult,
    Player,
    Result,
    Round,
    Seat,
    Table,
    TableResult,
    Tournament,
)
from tournaments.scoring import domino, swiss
from tournaments.timing import default_played_at

RESULTS_HEADER = (
    "round",
    "table",
    "side_a",
    "side_b",
    "tantos_a",
    "tantos_b",
    "ended_by_time",
    "forfeit",
    "played_at",
)
CASTIGOS_HEADER = ("round", "player", "tantos", "reason")
MATCH_HEADER = (
    "round",
    "table",
    "player_a",
    "player_b",
    "games_a",
    "games_b",
    "games_drawn",
    "drop",
)
TABLE_HEADER = ("round", "table", "player", "vp", "ended_by_time")
MAX_LINES = 20_000
MAX_ROUND = 99
MAX_TABLE = 9999
MAX_CASTIGO = 100_000

_YES = {"yes", "sí", "si"}
_NO = {"no", ""}
_DIGITS = re.compile(r"-?[0-9]{1,9}")
_NEWLINE = re.compile(r"\r\n|\r|\n")


class LineError(NamedTuple):
    """One refused line: its number (header = 1), the error code and the message in Spanish."""

    line: int
    code: str
    message: str


class ImportRefused(DomainError):
    """The file was refused; nothing was stored.

    ``errors``: ``[(line_number, message), ...]`` sorted by line; ``codes``:
    ``[(line_number, code), ...]`` in the same order; ``line_errors``: the ``LineError`` tuples.
    ``code`` is "import_invalid" when lines are wrong, or the file-level reason: "bad_encoding",
    "bad_header", "file_too_large".
    """

    code = "import_invalid"

    def __init__(self, line_errors, code=None, **params):
        self.line_errors = sorted(line_errors, key=lambda e: e.line)
        self.errors = [(e.line, e.message) for e in self.line_errors]
        self.codes = [(e.line, e.code) for e in self.line_errors]
        if code is None:
            params = {"count": len(self.line_errors)}
        super().__init__(code, **params)


def _error(at: int, code: str, **params) -> LineError:
    return LineError(at, code, DomainError(code, **params).message)


def _file_error(at: int, code: str, **params) -> ImportRefused:
    return ImportRefused([_error(at, code, **params)], code, **params)


# --- reading the file --------------------------------------------------------------------------


def _decode(data: bytes | str) -> str:
    """The file as text: UTF-8 with or without BOM; anything else raises "bad_encoding"."""
    if isinstance(data, str):
        text = data
    else:
        raw = bytes(data).removeprefix(b"\xef\xbb\xbf")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise _file_error(line, "bad_encoding", line=line) from None
    text = text.removeprefix("\ufeff")
    if "\x00" in text:  # UTF-16 without BOM decodes as UTF-8 full of NULs
        line = text[: text.index("\x00")].count("\n") + 1
        raise _file_error(line, "bad_encoding", line=line)
    return text


def _locked(tournament: Tournament, system: str, wrong_system: Exception) -> Tournament:
    """The tournament re-read under a lock for the import's transaction (one import of a
    tournament at a time); ``wrong_system`` is raised when it is not of ``system``."""
    t = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
    if t.system != system:
        raise wrong_system
    return t


def _read_rows(text: str, header: tuple[str, ...]) -> list[tuple[int, list[str]]]:
    """``[(line_number, stripped fields), ...]`` after the header; blank lines are skipped.

    Raises ImportRefused "file_too_large" (over ``MAX_LINES`` lines, header included),
    "bad_header", or "import_invalid" for a line that is not CSV.
    """
    lines = len(_NEWLINE.findall(text)) + (0 if not text or text[-1] in "\r\n" else 1)
    if lines > MAX_LINES:
        raise _file_error(MAX_LINES + 1, "file_too_large", max=MAX_LINES)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for record in reader:
            fields = [f.strip() for f in record]
            if start == 1:
                found = [f.lower() for f in fields]
                if found != list(header):
                    raise _file_error(
                        1, "bad_header", expected=",".join(header), found=",".join(fields)[:200]
                    )
            elif any(fields):
                rows.append((start, fields))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ImportRefused([_error(start, "csv_syntax", detail=str(exc))]) from None
    if start == 1:  # empty file
        raise _file_error(1, "bad_header", expected=",".join(header), found="")
    return rows


def _positive(value: str, code: str, maximum: int) -> int:
    if re.fullmatch(r"[0-9]{1,6}", value) and 1 <= int(value) <= maximum:
        return int(value)
    raise DomainError(code, value=value, max=maximum)


def _yes_no(value: str, name: str) -> bool:
    word = unicodedata.normalize("NFC", value).casefold()
    if word in _YES:
        return True
    if word in _NO:
        return False
    raise DomainError("bad_yes_no", field=name, value=value)


def _tantos(value: str, side: str) -> int:
    if value == "":
        raise DomainError("tantos_missing", side=side)
    if not _DIGITS.fullmatch(value):
        raise ResultError("not_integer", value=value[:20])
    return int(value)


def _played_at(value: str) -> dt.datetime | None:
    """ISO date-time; naive values are local time of the TIME_ZONE setting."""
    if value == "":
        return None
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise DomainError("bad_played_at", value=value[:40]) from None
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, timezone.get_default_timezone())
    return moment


def _names(value: str) -> list[str]:
    return [part.strip() for part in value.split("&")] if value else []


# --- who is who --------------------------------------------------------------------------------


class _P:
    """A player named in the file: an existing ``Player`` or one to create (``player`` None)."""

    def __init__(self, name: str, player: Player | None):
        self.name = name
        self.player = player
        self.key = ("p", player.pk) if player else ("n", name)


class _E:
    """An entry named in the file: an existing ``Entry`` or one to register (``entry`` None)."""

    def __init__(self, players: tuple[_P, ...], entry=None):
        self.players = players
        self.entry = entry
        self.key = ("e", entry.pk) if entry else ("n",) + tuple(p.key for p in players)
        self.name = " & ".join(p.name for p in players)


class _Directory:
    """Resolves names to players and entries of one tournament, planning the ones to create.

    Players are matched by exact ``full_name``; when several players share it, the one entered
    in the tournament is taken, else the name is ambiguous.
    """

    def __init__(self, tournament: Tournament):
        self.t = tournament
        self.players: dict[str, _P] = {}
        self.entry_of: dict[tuple, _E] = {}  # player key -> entry
        self.new_players: list[_P] = []
        self.new_entries: list[_E] = []
        for e in tournament.entries.select_related("player1", "player2"):
            ps = tuple(_P(p.full_name, p) for p in (e.player1, e.player2) if p is not None)
            entry = _E(ps, e)
            for p in ps:
                self.entry_of[p.key] = entry

    def player(self, name: str) -> _P:
        name = services.clean_name(name, field=gettext_noop("nombre"))
        if name in self.players:
            return self.players[name]
        found = list(Player.objects.filter(full_name=name).order_by("pk"))
        if len(found) > 1:
            entered = [p for p in found if ("p", p.pk) in self.entry_of]
            if len(entered) != 1:
                raise DomainError("ambiguous_player", name=name, count=len(found))
            found = entered
        ref = _P(name, found[0] if found else None)
        if not found:
            self.new_players.append(ref)
        self.players[name] = ref
        return ref

    def entry(self, players: list[_P]) -> _E:
        """The entry made of exactly ``players`` (a pair, or one player), planning it if new."""
        keys = {p.key for p in players}
        if len(keys) < len(players):
            raise DomainError("player_twice_in_row", name=players[0].name)
        current = [self.entry_of.get(p.key) for p in players]
        if all(e is not None and {q.key for q in e.players} == keys for e in current):
            return current[0]
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
        new = _E(tuple(players))
        for p in players:
            self.entry_of[p.key] = new
        self.new_entries.append(new)
        return new

    def side(self, value: str, side: str, *, bye: bool = False) -> list[_E]:
        """Entries named by one side of a line, by the tournament's mode (SCORING.md §1)."""
        names = _names(value)
        mode = self.t.mode
        sizes = {
            Tournament.Mode.PAIRS: (2,),
            Tournament.Mode.SINGLE: (1,),
            Tournament.Mode.INDIVIDUAL: (1, 2) if bye else (2,),
        }[mode]
        if len(names) not in sizes or not all(names):
            raise DomainError(
                "side_names", side=side, size=gettext(" o ").join(map(str, sizes)), value=value
            )
        players = [self.player(n) for n in names]
        if mode == Tournament.Mode.PAIRS:
            return [self.entry(players)]
        if len({p.key for p in players}) < len(players):
            raise DomainError("player_twice_in_row", name=players[0].name)
        return [self.entry([p]) for p in players]


# --- results -----------------------------------------------------------------------------------


@dataclass
class _Game:
    line: int
    round: int
    table: int
    side_a: list[_E]
    side_b: list[_E]
    tantos_a: int
    tantos_b: int
    ended_by_time: bool
    forfeit: bool
    played_at: dt.datetime | None
    action: str = "new"  # new | same | flip | reseat


@dataclass
class _ByeLine:
    line: int
    round: int
    entries: list[_E]
    drops: list[_E] = field(default_factory=list)  # match play: entries dropped after the round


@dataclass
class _Plan:
    games: list = field(default_factory=list)  # ``_Game`` (dominó) or ``_Match`` (match play)
    byes: list[_ByeLine] = field(default_factory=list)
    errors: list[LineError] = field(default_factory=list)


def _parse_result_line(t: Tournament, who: _Directory, line: int, f: list[str]):
    """One data line → ``_Game`` or ``_ByeLine``; raises DomainError for the first problem."""
    if len(f) != len(RESULTS_HEADER):
        raise DomainError("field_count", found=len(f), expected=len(RESULTS_HEADER))
    rnd_s, table_s, side_a, side_b, ta, tb, by_time_s, forfeit_s, played_s = f
    number = _positive(rnd_s, "bad_round", MAX_ROUND)
    by_time = _yes_no(by_time_s, "ended_by_time")
    forfeit = _yes_no(forfeit_s, "forfeit")
    played_at = _played_at(played_s)
    if side_b == "" and ta == "" and tb == "":
        if by_time or forfeit:
            raise DomainError("bye_with_marks")
        return _ByeLine(line, number, who.side(side_a, "A", bye=True))
    if table_s == "":
        raise DomainError("table_required")
    table = _positive(table_s, "bad_table", MAX_TABLE)
    a_entries = who.side(side_a, "A")
    b_entries = who.side(side_b, "B")
    shared = {e.key for e in a_entries} & {e.key for e in b_entries}
    if shared:
        name = next(e.name for e in a_entries if e.key in shared)
        raise DomainError("player_twice_in_row", name=name)
    a, b = _tantos(ta, "A"), _tantos(tb, "B")
    if forfeit and by_time:
        raise DomainError("forfeit_by_time")
    if by_time and not t.time_limit:
        raise DomainError("no_time_limit")
    domino.validate_result(a, b, target=t.target, ended_by_time=by_time)
    if forfeit:
        winner, loser = t.forfeit_score
        if (a, b) not in ((winner, loser), (loser, winner)):
            raise DomainError(
                "forfeit_score_mismatch", winner=winner, loser=loser, tantos_a=a, tantos_b=b
            )
    return _Game(line, number, table, a_entries, b_entries, a, b, by_time, forfeit, played_at)


def _entries_of(item) -> list[_E]:
    """The entries a planned line names: both sides of a game or match, or those resting."""
    return item.entries if isinstance(item, _ByeLine) else item.side_a + item.side_b


def _plan_results(
    t: Tournament, rows: list[tuple[int, list[str]]], parse=_parse_result_line
) -> tuple[_Plan, _Directory]:
    """Parse every line with ``parse`` (dominó or match play) and check it against the file and
    the database; collect all errors."""
    who = _Directory(t)
    plan = _Plan()
    seen_entry: dict[tuple[int, tuple], int] = {}
    seen_table: dict[tuple[int, int], int] = {}
    for line, fields in rows:
        try:
            item = parse(t, who, line, fields)
            if not isinstance(item, _ByeLine):
                other = seen_table.get((item.round, item.table))
                if other:
                    raise DomainError(
                        "table_twice", table=item.table, round=item.round, other=other
                    )
            entries = _entries_of(item)
            for e in entries:
                other = seen_entry.get((item.round, e.key))
                if other:
                    raise DomainError(
                        "entry_twice_in_round", name=e.name, round=item.round, other=other
                    )
        except DomainError as exc:
            plan.errors.append(LineError(line, exc.code, exc.message))
            continue
        for e in entries:
            seen_entry[(item.round, e.key)] = line
        if isinstance(item, _ByeLine):
            plan.byes.append(item)
        else:
            seen_table[(item.round, item.table)] = line
            plan.games.append(item)
    _check_against_database(t, plan)
    return plan, who


def _sides_of(table: Table) -> tuple[frozenset, frozenset]:
    a = frozenset(("e", s.entry_id) for s in table.seats.all() if s.side == "A")
    b = frozenset(("e", s.entry_id) for s in table.seats.all() if s.side == "B")
    return a, b


def _check_against_database(t: Tournament, plan: _Plan) -> None:
    """Closed rounds, tables seated differently, entries already placed elsewhere in the round."""
    numbers = {g.round for g in plan.games} | {b.round for b in plan.byes}
    rounds = {r.number: r for r in t.rounds.filter(number__in=numbers)}
    tables = {
        (tbl.round.number, tbl.number): tbl
        for tbl in Table.objects.filter(round__in=rounds.values())
        .select_related("round", "result", "match_result")
        .prefetch_related("seats__entry__player1", "seats__entry__player2")
    }
    seats: dict[int, dict[tuple, int]] = {}  # round -> entry key -> table number
    for (number, table_no), tbl in tables.items():
        for s in tbl.seats.all():
            seats.setdefault(number, {})[("e", s.entry_id)] = table_no
    byes: dict[int, set[tuple]] = {}
    for number, entry_id in Bye.objects.filter(round__in=rounds.values()).values_list(
        "round__number", "entry_id"
    ):
        byes.setdefault(number, set()).add(("e", entry_id))

    for item in plan.byes:
        rnd = rounds.get(item.round)
        if rnd is not None and rnd.closed:
            plan.errors.append(_error(item.line, "round_closed", number=item.round))
    for g in plan.games:
        rnd = rounds.get(g.round)
        if rnd is not None and rnd.closed:
            plan.errors.append(_error(g.line, "round_closed", number=g.round))
            continue
        tbl = tables.get((g.round, g.table))
        if tbl is None:
            continue
        want = (frozenset(e.key for e in g.side_a), frozenset(e.key for e in g.side_b))
        have = _sides_of(tbl)
        if want == have:
            g.action = "same"
        elif want == (have[1], have[0]):
            g.action = "flip"
        elif tbl.any_result is None:
            g.action = "reseat"
        else:
            seated = gettext(" contra ").join(tbl.side_name(s) or "—" for s in ("A", "B"))
            found = gettext(" contra ").join(
                " & ".join(e.name for e in side) for side in (g.side_a, g.side_b)
            )
            plan.errors.append(
                _error(
                    g.line, "seats_differ", table=g.table, round=g.round, seated=seated, found=found
                )
            )

    in_file_tables = {(g.round, g.table) for g in plan.games}
    in_file_byes = {(b.round, e.key) for b in plan.byes for e in b.entries}
    for item in [*plan.games, *plan.byes]:
        for e in _entries_of(item):
            table_no = seats.get(item.round, {}).get(e.key)
            if table_no is not None and (item.round, table_no) not in in_file_tables:
                where = gettext("mesa {table}").format(table=table_no)
            elif e.key in byes.get(item.round, set()) and (item.round, e.key) not in in_file_byes:
                where = gettext("descanso")
            else:
                continue
            plan.errors.append(
                _error(item.line, "entry_elsewhere", name=e.name, round=item.round, where=where)
            )
            break


def _seat(acting_user, table: Table, rnd: Round, g) -> None:
    """Seat a planned game's or match's sides at ``table``."""
    for side, entries in (("A", g.side_a), ("B", g.side_b)):
        for pos, e in enumerate(entries, start=1):
            services.audit(
                Seat(table=table, round=rnd, entry=e.entry, side=side, position=pos), acting_user
            ).save()


def import_domino_results(
    *, acting_user, tournament: Tournament, data: bytes | str
) -> services.ImportReport:
    """Import dominó results from a CSV file (bytes or text); all or nothing.

    Header exactly ``RESULTS_HEADER``. Unknown players are created and unknown entries
    registered; missing rounds and tables are created. A round/table pair already in the
    tournament is corrected (its version grows, history keeps the old values) and tables the
    file does not name are left alone. A table already seated with other entries is re-seated
    if it has no result yet, else the line is refused ("seats_differ"); the same entries on
    swapped sides are the same game (the tantos follow their entries). An empty ``played_at``
    keeps an existing result's time, or takes the round's default (tournament date at 10:00
    plus one hour per round, ``tournaments.timing.default_played_at``).

    Returns ``services.ImportReport`` (results created / changed / unchanged, byes, players
    and entries created). Raises ``ImportRefused`` (codes "import_invalid", "bad_encoding",
    "bad_header", "file_too_large"; per line: ``validate_result`` codes, "round_closed",
    "seats_differ", "table_twice", "entry_twice_in_round", "entry_elsewhere" ...), or
    DomainError "import_not_domino". Nothing is stored on error.
    """
    text = _decode(data)
    rows = _read_rows(text, RESULTS_HEADER)
    with transaction.atomic():
        t = _locked(tournament, Tournament.System.DOMINO, DomainError("import_not_domino"))
        plan, who = _plan_results(t, rows)
        if plan.errors:
            raise ImportRefused(plan.errors)
        return _apply_results(acting_user, t, plan, who)


def _apply_results(
    acting_user, t: Tournament, plan: _Plan, who: _Directory
) -> services.ImportReport:
    report = services.ImportReport()
    _register_planned(acting_user, t, who, report)
    rounds = _open_rounds(acting_user, t, plan)
    entered_by = services.entered_by(acting_user)
    for g, table in zip(plan.games, _prepare_tables(acting_user, plan, rounds), strict=True):
        rnd = rounds[g.round]
        if g.action in ("new", "reseat"):
            _seat(acting_user, table, rnd, g)
        a, b = (g.tantos_b, g.tantos_a) if g.action == "flip" else (g.tantos_a, g.tantos_b)
        result = table.result_or_none
        if result is None:
            result = Result(table=table)
            played_at = g.played_at or rnd.played_at or default_played_at(t.date, rnd.number)
            report.created += 1
        else:
            played_at = g.played_at or result.played_at
            old = (
                result.tantos_a,
                result.tantos_b,
                result.ended_by_time,
                result.forfeit,
                result.played_at,
            )
            if old == (a, b, g.ended_by_time, g.forfeit, played_at):
                report.unchanged += 1
                continue
            report.changed += 1
        result.tantos_a, result.tantos_b = a, b
        result.ended_by_time, result.forfeit = g.ended_by_time, g.forfeit
        result.played_at = played_at
        result.entered_by = entered_by
        services.audit(result, acting_user).save()
        services.bump_version(table, acting_user)

    _record_byes(acting_user, t, plan, rounds, report)
    return report


def _register_planned(
    acting_user, t: Tournament, who: _Directory, report: services.ImportReport
) -> None:
    """Create the players and register the entries the file named but the database lacks.

    Names are matched exactly, so a new player may only differ from an existing one in case or
    Unicode form ("hermenegildo paz" / "Hermenegildo Paz"): the player is still created and
    ``report.warnings`` says so (``services.similar_players``)."""
    for p in who.new_players:
        similar = services.similar_players(p.name)
        p.player = services.create_player(acting_user=acting_user, full_name=p.name)
        report.players_created += 1
        if similar:
            report.warnings.append(_duplicate_warning(p.name, [q.full_name for q in similar]))
    for e in who.new_entries:
        e.entry = services.register_entry(
            acting_user=acting_user, tournament=t, players=[p.player for p in e.players]
        )
        report.entries_created += 1


def _duplicate_warning(name: str, existing: list[str]) -> str:
    """«hermenegildo paz» se creó como jugador nuevo; ya existe «Hermenegildo Paz»."""
    quoted = [f"«{n}»" for n in existing]
    if len(quoted) == 1:
        return gettext("«{name}» se creó como jugador nuevo; ya existe {other}").format(
            name=name, other=quoted[0]
        )
    listed = gettext("{first} y {last}").format(first=", ".join(quoted[:-1]), last=quoted[-1])
    return gettext("«{name}» se creó como jugador nuevo; ya existen {others}").format(
        name=name, others=listed
    )


def _open_rounds(acting_user, t: Tournament, plan: _Plan) -> dict[int, Round]:
    """The tournament's rounds by number (locked), creating those the file names; a tournament
    in draft or registration starts running."""
    numbers = sorted({g.round for g in plan.games} | {b.round for b in plan.byes})
    rounds = {
        r.number: r for r in Round.objects.select_for_update(no_key=True).filter(tournament=t)
    }
    for number in numbers:
        if number not in rounds:
            rounds[number] = services.audit(Round(tournament=t, number=number), acting_user)
            rounds[number].save()
    if numbers and t.status in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION):
        t.status = Tournament.Status.RUNNING
        services.audit(t, acting_user).save()
    return rounds


def _prepare_tables(acting_user, plan: _Plan, rounds: dict[int, Round]) -> list[Table]:
    """The table of each planned game, in ``plan.games`` order (locked; created when missing).

    Every table to re-seat is emptied first, so entries can move between tables."""
    numbers = {g.round for g in plan.games}
    existing = {
        (tbl.round_id, tbl.number): tbl
        for tbl in Table.objects.select_for_update(no_key=True, of=("self",))
        .filter(round__in=[rounds[n] for n in numbers])
        .select_related("result", "match_result", "table_result")
    }
    tables: list[Table] = []
    for g in plan.games:
        rnd = rounds[g.round]
        table = existing.get((rnd.pk, g.table))
        if table is None:
            table = services.audit(Table(round=rnd, number=g.table), acting_user)
            table.save()
        if g.action == "reseat":
            for seat in list(table.seats.all()):
                services.audit(seat, acting_user).delete()
        tables.append(table)
    return tables


def _record_byes(
    acting_user, t: Tournament, plan: _Plan, rounds: dict[int, Round], report: services.ImportReport
) -> None:
    """Store the file's byes not yet recorded (``report.byes`` counts the new ones)."""
    existing_byes = set(
        Bye.objects.filter(round__tournament=t).values_list("round__number", "entry_id")
    )
    for item in plan.byes:
        for e in item.entries:
            if (item.round, e.entry.pk) in existing_byes:
                continue
            services.audit(Bye(round=rounds[item.round], entry=e.entry), acting_user).save()
            existing_byes.add((item.round, e.entry.pk))
            report.byes += 1


# --- match play (swiss) ------------------------------------------------------------------------

#: Messages of the codes only the match-play import uses (the others are in errors.MESSAGES).
MATCH_MESSAGES = {
    "import_not_swiss": gettext_noop(
        "Este torneo no es suizo (match play): este archivo de encuentros solo se importa en "
        "torneos suizos."
    ),
    "games_missing": gettext_noop(
        "Faltan las partidas ganadas por el lado {side}; solo una ronda libre (player_b vacío) "
        "deja vacías las partidas."
    ),
    "bad_drop": gettext_noop(
        "«drop» debe estar vacío o ser «a», «b» o «both»; se recibió «{value}»."
    ),
    "bye_drop": gettext_noop(
        "En una ronda libre solo puede retirarse player_a («drop» vacío o «a»); "
        "se recibió «{value}»."
    ),
    "bye_line_games": gettext_noop(
        "Una ronda libre (player_b vacío) no lleva partidas: cuenta siempre como un encuentro "
        "ganado 2–0. Borra las partidas o escribe el rival."
    ),
    "drop_before_later_round": gettext_noop(
        "«{name}» no puede retirarse después de la ronda {round}: ya juega o descansa en la "
        "ronda {later}."
    ),
}
_DROPS = {"": (), "a": ("A",), "b": ("B",), "both": ("A", "B")}
_GAMES = re.compile(r"[0-9]{1,3}")


def _match_error(code: str, **params) -> DomainError:
    return DomainError(code, message=MATCH_MESSAGES.get(code), **params)


@dataclass
class MatchImportReport(services.ImportReport):
    """``services.ImportReport`` plus ``drops``: entries whose drop round the file set."""

    drops: int = 0


@dataclass
class _Match:
    line: int
    round: int
    table: int
    side_a: list[_E]  # one entry per side
    side_b: list[_E]
    games_a: int
    games_b: int
    games_drawn: int
    drops: list[_E]
    action: str = "new"  # new | same | flip | reseat


def _games(value: str, side: str) -> int:
    if value == "":
        raise _match_error("games_missing", side=side)
    if not _GAMES.fullmatch(value):
        raise ResultError("not_integer", message=MESSAGES["not_integer_games"], value=value[:20])
    return int(value)


def _match_side(who: _Directory, value: str, side: str) -> _E:
    """The one entry of a match side: a pair "Ana & Beto" in a pairs tournament, else a player."""
    names = _names(value)
    size = 2 if who.t.mode == Tournament.Mode.PAIRS else 1
    if len(names) != size or not all(names):
        raise DomainError("side_names", side=side, size=size, value=value)
    return who.entry([who.player(n) for n in names])


def _parse_match_line(t: Tournament, who: _Directory, line: int, f: list[str]):
    """One match-play line → ``_Match`` or ``_ByeLine``; raises DomainError for the first
    problem."""
    if len(f) != len(MATCH_HEADER):
        raise DomainError("field_count", found=len(f), expected=len(MATCH_HEADER))
    rnd_s, table_s, name_a, name_b, ga, gb, gd, drop_s = f
    number = _positive(rnd_s, "bad_round", MAX_ROUND)
    drop = unicodedata.normalize("NFC", drop_s).casefold()
    if drop not in _DROPS:
        raise _match_error("bad_drop", value=drop_s[:20])
    if name_b == "":
        if ga or gb or gd:
            raise _match_error("bye_line_games")
        if drop not in ("", "a"):
            raise _match_error("bye_drop", value=drop_s)
        if table_s:
            _positive(table_s, "bad_table", MAX_TABLE)
        entry = _match_side(who, name_a, "A")
        return _ByeLine(line, number, [entry], drops=[entry] if drop else [])
    if table_s == "":
        raise DomainError("table_required")
    table = _positive(table_s, "bad_table", MAX_TABLE)
    a, b = _match_side(who, name_a, "A"), _match_side(who, name_b, "B")
    if a.key == b.key:
        raise DomainError("player_twice_in_row", name=a.name)
    games = (_games(ga, "A"), _games(gb, "B"), _games(gd, "empates") if gd else 0)
    swiss.validate_match(*games, best_of=t.best_of)
    drops = [e for side, e in (("A", a), ("B", b)) if side in _DROPS[drop]]
    return _Match(line, number, table, [a], [b], *games, drops=drops)


def _check_drops(t: Tournament, plan: _Plan) -> dict[tuple, int]:
    """Drops against the rounds played; returns entry key → the round the file drops it after.

    An entry dropped after round r (by this file, else already in the database) cannot play or
    rest a later round of the file, nor be dropped before a later round it already has in the
    database that the file does not name. If the file drops an entry twice the earlier round
    counts (the later line is then refused). A file never takes a drop back: that is
    ``services.undrop_entry``.
    """
    items = sorted([*plan.games, *plan.byes], key=lambda i: i.line)
    dropped: dict[tuple, tuple[int, int]] = {}  # entry key -> (round, line)
    for item in items:
        for e in item.drops:
            if e.key not in dropped or item.round < dropped[e.key][0]:
                dropped[e.key] = (item.round, item.line)
    in_file = set()
    for item in items:
        for e in _entries_of(item):
            in_file.add((item.round, e.key))
            if e.key in dropped:
                after = dropped[e.key][0]
            elif e.entry is not None and e.entry.dropped_after_round is not None:
                after = e.entry.dropped_after_round
            else:
                continue
            if item.round > after:
                plan.errors.append(_error(item.line, "entry_dropped", name=e.name, round=after))
                break
    known = {e.entry.pk: e for item in items for e in item.drops if e.entry is not None}
    later: dict[tuple, int] = {}
    for model in (Seat, Bye):
        for entry_id, number in model.objects.filter(
            round__tournament=t, entry_id__in=known
        ).values_list("entry_id", "round__number"):
            e = known[entry_id]
            if number > dropped[e.key][0] and (number, e.key) not in in_file:
                later[e.key] = max(later.get(e.key, 0), number)
    for key, number in later.items():
        after, line = dropped[key]
        e = next(e for e in known.values() if e.key == key)
        exc = _match_error("drop_before_later_round", name=e.name, round=after, later=number)
        plan.errors.append(LineError(line, exc.code, exc.message))
    return {key: after for key, (after, _line) in dropped.items()}


def import_match_results(
    *, acting_user, tournament: Tournament, data: bytes | str
) -> services.ImportReport:
    """Import match-play results of a swiss tournament from a CSV file (bytes or text); all or
    nothing (seed 000, SCORING.md §3).

    Header exactly ``MATCH_HEADER``
    (``round,table,player_a,player_b,games_a,games_b,games_drawn,drop``). A side is one player
    (mano a mano or individual) or a pair "Ana & Beto" (pairs tournament) — one entry per side.
    ``games_a``/``games_b`` are required, ``games_drawn`` empty means 0, and each match must be
    possible in the tournament's best-of (``scoring.swiss.validate_match``). A line with
    ``player_b`` and the three games columns empty is a bye of ``player_a`` (its table may be
    empty and is ignored). ``drop`` empty, ``a``, ``b`` or ``both`` (``a`` only on a bye): that
    side's entry is dropped after the line's round (``Entry.dropped_after_round``, as
    ``services.drop_entry``); an entry cannot play after its drop (``_check_drops``).

    Like ``import_domino_results``: players matched by exact name and created if unknown,
    single-player (or pair) entries registered if missing, missing rounds and tables created;
    a round/table already in the tournament is corrected (its version grows, history keeps the
    old values), the same entries on swapped sides are the same match (the games follow their
    entries), and a table with a result and other entries is refused ("seats_differ").

    Returns ``MatchImportReport`` (a ``services.ImportReport``: results created / changed /
    unchanged, byes, players and entries created, plus ``drops`` set). Raises
    ``ImportRefused`` (file-level codes as ``import_domino_results``; per line
    ``validate_match`` codes "above_wins_needed", "too_many_games", "empty_match",
    "not_integer"; "games_missing", "bad_drop", "bye_drop", "bye_line_games",
    "entry_dropped", "drop_before_later_round", "entry_twice_in_round", "table_twice",
    "round_closed", "seats_differ", "entry_elsewhere" ...) or DomainError "import_not_swiss".
    Nothing is stored on error.
    """
    text = _decode(data)
    rows = _read_rows(text, MATCH_HEADER)
    with transaction.atomic():
        t = _locked(tournament, Tournament.System.SWISS, _match_error("import_not_swiss"))
        plan, who = _plan_results(t, rows, _parse_match_line)
        drops = _check_drops(t, plan)
        if plan.errors:
            raise ImportRefused(plan.errors)
        return _apply_matches(acting_user, t, plan, who, drops)


def _apply_matches(
    acting_user, t: Tournament, plan: _Plan, who: _Directory, drops: dict[tuple, int]
) -> MatchImportReport:
    report = MatchImportReport()
    _register_planned(acting_user, t, who, report)
    rounds = _open_rounds(acting_user, t, plan)
    entered_by = services.entered_by(acting_user)
    for m, table in zip(plan.games, _prepare_tables(acting_user, plan, rounds), strict=True):
        if m.action in ("new", "reseat"):
            _seat(acting_user, table, rounds[m.round], m)
        a, b = (m.games_b, m.games_a) if m.action == "flip" else (m.games_a, m.games_b)
        result = table.match_result_or_none
        if result is None:
            result = MatchResult(table=table)
            report.created += 1
        elif (result.games_a, result.games_b, result.games_drawn) == (a, b, m.games_drawn):
            report.unchanged += 1
            continue
        else:
            report.changed += 1
        result.games_a, result.games_b, result.games_drawn = a, b, m.games_drawn
        result.entered_by = entered_by
        services.audit(result, acting_user).save()
        services.bump_version(table, acting_user)

    _record_byes(acting_user, t, plan, rounds, report)
    entries = {e.key: e for item in [*plan.games, *plan.byes] for e in item.drops}
    for key, after in drops.items():
        entry = entries[key].entry
        if entry.dropped_after_round != after:
            services.drop_entry(acting_user=acting_user, entry=entry, after_round=after)
            report.drops += 1
    return report


# --- table games (3–4 players) -----------------------------------------------------------------

#: Messages of the codes only the table-game import uses (the others are in errors.MESSAGES).
TABLE_MESSAGES = {
    "import_not_table": gettext_noop(
        "Este torneo no es de juegos de mesa de 3–4 jugadores: este archivo de mesas solo se "
        "importa en esos torneos."
    ),
    "table_required": gettext_noop(
        "Falta el número de mesa: cada línea es un jugador sentado en una mesa."
    ),
    "table_size": gettext_noop(
        "La mesa {table} de la ronda {round} tiene {count} línea(s): una mesa lleva 3 o 4 "
        "jugadores, una línea por jugador."
    ),
    "score_missing": gettext_noop("Faltan los puntos de victoria (vp) de «{name}»."),
    "by_time_mismatch": gettext_noop(
        "ended_by_time dice «{value}», pero la línea {other} de la misma mesa {table} "
        "(ronda {round}) dice «{first}»: todas las líneas de una mesa deben coincidir."
    ),
    "seats_differ": gettext_noop(
        "La mesa {table} de la ronda {round} ya tiene resultado con otros jugadores "
        "({seated}); el archivo dice {found}. Corrige la mesa o borra su resultado antes."
    ),
}


def _table_error(code: str, **params) -> DomainError:
    return DomainError(code, message=TABLE_MESSAGES.get(code), **params)


@dataclass
class _TableLine:
    """One line of a table-game file: a player seated at a table with their in-game VP."""

    line: int
    round: int
    table: int
    entry: _E
    vp: int
    ended_by_time: bool


@dataclass
class _TableGame:
    """The lines of one round/table, in file order (= seat order), once all of them are good."""

    round: int
    table: int
    lines: list[_TableLine]
    action: str = "new"  # new | same | reseat

    @property
    def line(self) -> int:
        return self.lines[0].line

    @property
    def ended_by_time(self) -> bool:
        return self.lines[0].ended_by_time


def _vp(value: str, name: str) -> int:
    """A VP cell as a whole number ("-3" is returned and later refused by ``validate_table``)."""
    if value == "":
        raise _table_error("score_missing", name=name)
    try:
        return services.parse_int(value, "vp")
    except ResultError as exc:
        if exc.code == "not_integer":
            raise ResultError(
                "not_integer", message=MESSAGES["not_integer_vp"], value=value[:20]
            ) from None
        raise


def _seat_errors(scores: list[int], ended_by_time: bool) -> dict[int, ResultError]:
    """Every bad score of one table (index → error) by ``scoring.table.validate_table``: it
    names the first bad seat; that seat is set aside and the table is checked again."""
    from tournaments.scoring import table as table_scoring

    values, errors = list(scores), {}
    while True:
        try:
            table_scoring.validate_table(values, ended_by_time=ended_by_time)
            return errors
        except ResultError as exc:
            seat = exc.params.get("seat")
            if not isinstance(seat, int) or not 1 <= seat <= len(values) or seat - 1 in errors:
                return {i: exc for i in range(len(values))}
            errors[seat - 1] = exc
            values[seat - 1] = 0


def _parse_table_line(
    who: _Directory, line: int, f: list[str], located: dict[tuple[int, int], list[int]]
) -> _TableLine:
    """One table-game line → ``_TableLine``; raises DomainError for the first problem. Once its
    round and table are read the line counts in ``located`` (for the size of its table)."""
    if len(f) != len(TABLE_HEADER):
        raise DomainError("field_count", found=len(f), expected=len(TABLE_HEADER))
    rnd_s, table_s, name, vp_s, by_time_s = f
    number = _positive(rnd_s, "bad_round", MAX_ROUND)
    if table_s == "":
        raise _table_error("table_required")
    table = _positive(table_s, "bad_table", MAX_TABLE)
    located.setdefault((number, table), []).append(line)
    entry = who.entry([who.player(name)])
    vp = _vp(vp_s, entry.name)
    by_time = _yes_no(by_time_s, "ended_by_time")
    return _TableLine(line, number, table, entry, vp, by_time)


def _plan_table_results(
    t: Tournament, rows: list[tuple[int, list[str]]]
) -> tuple[_Plan, _Directory]:
    """Parse every line, group the lines of each round/table into a ``_TableGame`` and check the
    tables against the file and the database; collect all errors (one per line, the first)."""
    who = _Directory(t)
    plan = _Plan()
    bad: set[int] = set()
    seen_entry: dict[tuple[int, tuple], int] = {}
    located: dict[tuple[int, int], list[int]] = {}
    parsed: dict[int, _TableLine] = {}

    def refuse(line: int, exc: DomainError) -> None:
        if line not in bad:
            bad.add(line)
            plan.errors.append(LineError(line, exc.code, exc.message))

    for line, fields in rows:
        try:
            item = _parse_table_line(who, line, fields, located)
            other = seen_entry.get((item.round, item.entry.key))
            if other:
                raise DomainError(
                    "entry_twice_in_round", name=item.entry.name, round=item.round, other=other
                )
        except DomainError as exc:
            refuse(line, exc)
            continue
        seen_entry[(item.round, item.entry.key)] = line
        parsed[line] = item

    for (number, table), lines in located.items():
        if not 3 <= len(lines) <= 4:
            for line in lines:
                refuse(
                    line, _table_error("table_size", table=table, round=number, count=len(lines))
                )
            continue
        first = next((parsed[line] for line in lines if line in parsed), None)
        if first is None:
            continue
        for line in lines:
            item = parsed.get(line)
            if item is not None and item.ended_by_time != first.ended_by_time:
                refuse(
                    line,
                    _table_error(
                        "by_time_mismatch",
                        value="sí" if item.ended_by_time else "no",
                        first="sí" if first.ended_by_time else "no",
                        other=first.line,
                        table=table,
                        round=number,
                    ),
                )
        # Seats in file order; a line refused above stands in with 0 VP (it is refused anyway).
        scores = [parsed[line].vp if line in parsed else 0 for line in lines]
        for index, exc in _seat_errors(scores, first.ended_by_time).items():
            refuse(lines[index], exc)
        if not any(line in bad for line in lines):
            plan.games.append(_TableGame(number, table, [parsed[line] for line in lines]))
    _check_tables_against_database(t, plan, refuse)
    return plan, who


def _check_tables_against_database(t: Tournament, plan: _Plan, refuse) -> None:
    """Closed rounds, tables with a result and other players, players already seated (or
    resting) elsewhere in the round; every line concerned is refused with ``refuse``."""
    numbers = {g.round for g in plan.games}
    rounds = {r.number: r for r in t.rounds.filter(number__in=numbers)}
    tables = {
        (tbl.round.number, tbl.number): tbl
        for tbl in Table.objects.filter(round__in=rounds.values())
        .select_related("round", "table_result")
        .prefetch_related("seats__entry__player1")
    }
    seats: dict[int, dict[tuple, int]] = {}  # round -> entry key -> table number
    for (number, table_no), tbl in tables.items():
        for s in tbl.seats.all():
            seats.setdefault(number, {})[("e", s.entry_id)] = table_no
    byes = {
        (number, ("e", entry_id))
        for number, entry_id in Bye.objects.filter(round__in=rounds.values()).values_list(
            "round__number", "entry_id"
        )
    }
    in_file_tables = {(g.round, g.table) for g in plan.games}
    for g in plan.games:
        rnd = rounds.get(g.round)
        if rnd is not None and rnd.closed:
            for item in g.lines:
                refuse(item.line, DomainError("round_closed", number=g.round))
            continue
        tbl = tables.get((g.round, g.table))
        if tbl is not None:
            want = frozenset(item.entry.key for item in g.lines)
            have = frozenset(("e", s.entry_id) for s in tbl.seats.all())
            if want == have:
                g.action = "same"
            elif tbl.table_result_or_none is None:
                g.action = "reseat"
            else:
                seated = ", ".join(
                    s.entry.name for s in sorted(tbl.seats.all(), key=lambda s: s.position)
                )
                found = ", ".join(item.entry.name for item in g.lines)
                for item in g.lines:
                    refuse(
                        item.line,
                        _table_error(
                            "seats_differ", table=g.table, round=g.round, seated=seated, found=found
                        ),
                    )
                continue
        for item in g.lines:
            table_no = seats.get(g.round, {}).get(item.entry.key)
            if table_no is not None and (g.round, table_no) not in in_file_tables:
                where = gettext("mesa {table}").format(table=table_no)
            elif (g.round, item.entry.key) in byes:
                where = gettext("descanso")
            else:
                continue
            refuse(
                item.line,
                DomainError("entry_elsewhere", name=item.entry.name, round=g.round, where=where),
            )


def import_table_results(
    *, acting_user, tournament: Tournament, data: bytes | str
) -> services.ImportReport:
    """Import the results of a 3–4 player table game (system "table") from a CSV file (bytes or
    text); all or nothing (seed 004, SCORING.md §4).

    Header exactly ``TABLE_HEADER`` (``round,table,player,vp,ended_by_time``), one line per
    seated player; the lines of one round/table are one table of 3 or 4 players, seated in
    file order. ``vp`` is the player's in-game score, a whole number ≥ 0, checked with
    ``scoring.table.validate_table``; ``ended_by_time`` is ``sí``/``yes``/``no`` (empty = no)
    and must be the same on every line of a table. The file has no bye lines (a bye is set by
    the seating, ``services.set_seating``).

    Like the other imports: players matched by exact name and created if unknown (a name equal
    to an existing one but for case or Unicode form is created and named in
    ``report.warnings``), single-player entries registered if missing, missing rounds and
    tables created. A round/table already in the tournament with the same players is corrected
    (VP by player, whatever the order): a change of any VP or of ``ended_by_time`` counts as
    changed, the table's version grows and history keeps the old values; a table with no
    result yet is re-seated as the file says; a table with a result and other players is
    refused ("seats_differ").

    Returns ``services.ImportReport`` (tables created / changed / unchanged, players and
    entries created, warnings). Raises ``ImportRefused`` (file-level codes as
    ``import_domino_results``; per line "table_size" (a table of fewer than 3 or more than 4
    lines, on each of its lines), "by_time_mismatch", "score_missing", "not_integer",
    "negative_score", "value_too_large", "entry_twice_in_round", "round_closed",
    "seats_differ", "entry_elsewhere", "field_count", "bad_round", "bad_table",
    "table_required", "bad_yes_no", "name_required" ...) or DomainError "import_not_table".
    Nothing is stored on error.
    """
    text = _decode(data)
    rows = _read_rows(text, TABLE_HEADER)
    with transaction.atomic():
        t = _locked(tournament, Tournament.System.TABLE, _table_error("import_not_table"))
        plan, who = _plan_table_results(t, rows)
        if plan.errors:
            raise ImportRefused(plan.errors)
        return _apply_table_results(acting_user, t, plan, who)


def _apply_table_results(
    acting_user, t: Tournament, plan: _Plan, who: _Directory
) -> services.ImportReport:
    report = services.ImportReport()
    _register_planned(acting_user, t, who, report)
    rounds = _open_rounds(acting_user, t, plan)
    entered_by = services.entered_by(acting_user)
    for g, table in zip(plan.games, _prepare_tables(acting_user, plan, rounds), strict=True):
        new_vp: list[tuple[Seat, int]] = []
        if g.action in ("new", "reseat"):
            for position, item in enumerate(g.lines, start=1):
                services.audit(
                    Seat(
                        table=table,
                        round=rounds[g.round],
                        entry=item.entry.entry,
                        side=Seat.Side.A,
                        position=position,
                        vp=item.vp,
                    ),
                    acting_user,
                ).save()
        else:
            seats = {s.entry_id: s for s in table.seats.all()}
            for item in g.lines:
                seat = seats[item.entry.entry.pk]
                if seat.vp != item.vp:
                    new_vp.append((seat, item.vp))
        result = table.table_result_or_none
        if result is None:
            result = TableResult(table=table)
            report.created += 1
        elif not new_vp and result.ended_by_time == g.ended_by_time:
            report.unchanged += 1
            continue
        else:
            report.changed += 1
        for seat, vp in new_vp:
            seat.vp = vp
            services.audit(seat, acting_user).save(update_fields=["vp"])
        result.ended_by_time = g.ended_by_time
        result.entered_by = entered_by
        services.audit(result, acting_user).save()
        services.bump_version(table, acting_user)
    return report


# --- castigos ----------------------------------------------------------------------------------


def import_castigos(*, acting_user, tournament: Tournament, data: bytes | str) -> int:
    """Import castigos (SCORING.md §1, Castigos) from a CSV file; all or nothing.

    Header exactly ``CASTIGOS_HEADER`` (``round,player,tantos,reason``). ``round`` may be empty
    (the castigo belongs to no round) or name an existing, open round; ``player`` is the exact
    full name of a player entered in the tournament; ``tantos`` a whole number 1–100000;
    ``reason`` required. Importing the same file again creates nothing: a castigo identical to
    one already recorded (player, round, tantos, reason) counts as present, as many times as it
    is recorded. Returns the number of castigos created.

    Raises ``ImportRefused`` (file-level codes as ``import_domino_results``; per line
    "bad_round", "round_missing", "round_closed", "player_unknown", "player_not_entered",
    "ambiguous_player", "castigo_tantos", "name_required" ...).
    """
    text = _decode(data)
    rows = _read_rows(text, CASTIGOS_HEADER)
    with transaction.atomic():
        t = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
        rounds = {r.number: r for r in t.rounds.all()}
        entered = {pid for e in t.entries.all() for pid in e.player_ids()}
        players: dict[str, list[Player]] = {}
        wanted: list[tuple[int, Player, Round | None, int, str]] = []
        errors: list[LineError] = []
        for line, f in rows:
            try:
                if len(f) != len(CASTIGOS_HEADER):
                    raise DomainError("field_count", found=len(f), expected=len(CASTIGOS_HEADER))
                round_s, name, tantos_s, reason = f
                rnd = None
                if round_s:
                    number = _positive(round_s, "bad_round", MAX_ROUND)
                    rnd = rounds.get(number)
                    if rnd is None:
                        raise DomainError("round_missing", number=number)
                    if rnd.closed:
                        raise DomainError("round_closed", number=number)
                name = services.clean_name(name, field=gettext_noop("jugador"))
                if name not in players:
                    players[name] = list(Player.objects.filter(full_name=name).order_by("pk"))
                candidates = [p for p in players[name] if p.pk in entered]
                if not players[name]:
                    raise DomainError("player_unknown", name=name)
                if not candidates:
                    raise DomainError("player_not_entered", name=name)
                if len(candidates) > 1:
                    raise DomainError("ambiguous_player", name=name, count=len(candidates))
                if not (
                    re.fullmatch(r"[0-9]{1,6}", tantos_s) and 1 <= int(tantos_s) <= MAX_CASTIGO
                ):
                    raise DomainError("castigo_tantos")
                reason = services.clean_name(reason, field=gettext_noop("motivo"), max_length=200)
            except DomainError as exc:
                errors.append(LineError(line, exc.code, exc.message))
                continue
            wanted.append((line, candidates[0], rnd, int(tantos_s), reason))
        if errors:
            raise ImportRefused(errors)

        present = Counter(
            Castigo.objects.filter(tournament=t).values_list(
                "player_id", "round_id", "tantos", "reason"
            )
        )
        created = 0
        for _line, player, rnd, tantos, reason in wanted:
            key = (player.pk, rnd.pk if rnd else None, tantos, reason)
            if present[key] > 0:
                present[key] -= 1
                continue
            services.add_castigo(
                acting_user=acting_user,
                tournament=t,
                player=player,
                tantos=tantos,
                reason=reason,
                round=rnd,
            )
            created += 1
        return created


__all__ = [
    "CASTIGOS_HEADER",
    "ImportRefused",
    "LineError",
    "MATCH_HEADER",
    "MAX_LINES",
    "MatchImportReport",
    "RESULTS_HEADER",
    "TABLE_HEADER",
    "import_castigos",
    "import_domino_results",
    "import_match_results",
    "import_table_results",
]
