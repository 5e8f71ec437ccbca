"""What an import will do, before anything is written: the plan, and its checks against the
file itself and the database.

A format module (``domino``, ``swiss``, ``generic``) turns the file's rows into a ``Plan``:
the tables to seat and record (``PlannedTable``), the byes (``PlannedBye``), the drops
(``PlannedDrop``), the players and entries to create (its ``Directory``) and the refused lines
(``Errors``). ``check_against_database`` then says, for each planned table, whether it is new,
the same as the one stored (possibly with its sides swapped) or to be re-seated, and refuses
what the database forbids. ``apply.apply_plan`` writes it through the services.

Nothing here knows a scoring system: a table has sides (side A and side B entries, one line of
the file) or seats (one line per seated entry), as the file's format says.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from django.utils.translation import gettext

from tournaments import systems
from tournaments.errors import DomainError
from tournaments.imports.reading import Directory, EntryRef, Errors
from tournaments.models import Bye, Table, Tournament

#: What ``check_against_database`` decides for a table already in the database.
NEW, SAME, FLIP, RESEAT = "new", "same", "flip", "reseat"


@dataclass
class PlannedTable:
    """One table of the file.

    With sides: ``side_a``/``side_b`` (the entries of each side), ``values`` (the
    ``services.record_result`` values as the file says) and ``flipped`` (the same values for
    the sides swapped, used when the database has the same entries the other way round); one
    line. With seats: ``seats`` (the entries in seat order, one per line of ``lines``, None
    for a line whose name could not be read) and ``rows`` (each line as column → text), from
    which the system reads the values once the entries exist
    (``FileFormat.parse_rows``).

    ``lines``: the file lines of the table (the first is where a table-wide error goes);
    ``played_at``: the time of the game, if the file gives one; ``drops``: entries the line
    drops after this round (``PlannedDrop`` once checked); ``action``: ``NEW``, ``SAME``,
    ``FLIP`` or ``RESEAT`` (``check_against_database``); ``blocked``: some line of the table is
    refused already, so it is only checked, never written.
    """

    round: int
    number: int
    lines: list[int]
    side_a: list[EntryRef] = field(default_factory=list)
    side_b: list[EntryRef] = field(default_factory=list)
    seats: list[EntryRef | None] = field(default_factory=list)
    values: dict | None = None
    flipped: dict | None = None
    rows: list[dict] | None = None
    played_at: dt.datetime | None = None
    drops: list[EntryRef] = field(default_factory=list)
    action: str = NEW
    blocked: bool = False

    @property
    def line(self) -> int:
        return self.lines[0]

    @property
    def has_sides(self) -> bool:
        return self.rows is None

    def entries(self) -> list[EntryRef]:
        """Every entry at the table (both sides, or the seats)."""
        if self.has_sides:
            return [*self.side_a, *self.side_b]
        return [e for e in self.seats if e is not None]

    def line_of(self, entry: EntryRef) -> int:
        """The line that names ``entry`` (its seat's line; the table's line with sides)."""
        if not self.has_sides:
            for ref, line in zip(self.seats, self.lines, strict=True):
                if ref is entry:
                    return line
        return self.line


@dataclass
class PlannedBye:
    """A bye line: ``entries`` rest in ``round``."""

    line: int
    round: int
    entries: list[EntryRef]
    drops: list[EntryRef] = field(default_factory=list)

    @property
    def lines(self) -> list[int]:
        return [self.line]


@dataclass
class PlannedDrop:
    """``entry`` drops after round ``after`` (``services.drop_entry``), as line ``line`` says."""

    line: int
    after: int
    entry: EntryRef


@dataclass
class Plan:
    """Everything an import will write, and the lines refused so far."""

    who: Directory
    tables: list[PlannedTable] = field(default_factory=list)
    byes: list[PlannedBye] = field(default_factory=list)
    drops: list[PlannedDrop] = field(default_factory=list)
    errors: Errors = field(default_factory=Errors)

    def round_numbers(self) -> list[int]:
        """The rounds the file names, in order."""
        return sorted({t.round for t in self.tables} | {b.round for b in self.byes})

    def lines_of_round(self, number: int) -> list[int]:
        return sorted(
            line
            for item in [*self.tables, *self.byes]
            if item.round == number
            for line in item.lines
        )


def entries_of(item) -> list[EntryRef]:
    """The entries a planned line names: those at a table, or those resting."""
    return item.entries if isinstance(item, PlannedBye) else item.entries()


def plan_side_lines(t: Tournament, rows: list[tuple[int, list[str]]], parse: Callable) -> Plan:
    """The plan of a file with one line per table with sides, or per bye (dominó, Swiss).

    ``parse(t, who, line, fields)`` reads one line into a ``PlannedTable`` or ``PlannedBye``
    (raising DomainError for its first problem). Each line is then checked against the lines
    before it ("table_twice": a round/table twice; "entry_twice_in_round": an entry playing
    or resting twice in a round) and the plan against the database (``check_against_database``).
    """
    who = Directory(t)
    plan = Plan(who=who)
    seen_entry: dict[tuple[int, tuple], int] = {}
    seen_table: dict[tuple[int, int], int] = {}
    for line, fields in rows:
        who.at(line)
        try:
            item = parse(t, who, line, fields)
            if isinstance(item, PlannedTable):
                other = seen_table.get((item.round, item.number))
                if other:
                    raise DomainError(
                        "table_twice", table=item.number, round=item.round, other=other
                    )
            entries = entries_of(item)
            for e in entries:
                other = seen_entry.get((item.round, e.key))
                if other:
                    raise DomainError(
                        "entry_twice_in_round", name=e.name, round=item.round, other=other
                    )
        except DomainError as exc:
            plan.errors.add(line, exc)
            continue
        for e in entries:
            seen_entry[(item.round, e.key)] = line
        if isinstance(item, PlannedBye):
            plan.byes.append(item)
        else:
            seen_table[(item.round, item.number)] = line
            plan.tables.append(item)
    check_against_database(t, plan)
    return plan


def check_against_database(t: Tournament, plan: Plan) -> None:
    """Decide each planned table's ``action`` and refuse, line by line: rounds that are closed
    ("round_closed"), tables with a result and other entries ("seats_differ"), entries the
    round already has at a table or resting that the file does not change
    ("entry_elsewhere"). Blocked tables are left out."""
    tables_planned = [g for g in plan.tables if not g.blocked]
    numbers = {g.round for g in tables_planned} | {b.round for b in plan.byes}
    rounds = {r.number: r for r in t.rounds.filter(number__in=numbers)}
    tables = {
        (tbl.round.number, tbl.number): tbl
        for tbl in Table.objects.filter(round__in=rounds.values())
        .select_related("round", *systems.result_relations())
        .prefetch_related("seats__entry__player1", "seats__entry__player2")
    }
    seated: dict[int, dict[tuple, int]] = {}  # round -> entry key -> table number
    for (number, table_no), tbl in tables.items():
        for s in tbl.seats.all():
            seated.setdefault(number, {})[("e", s.entry_id)] = table_no
    byes: dict[int, set[tuple]] = {}
    for number, entry_id in Bye.objects.filter(round__in=rounds.values()).values_list(
        "round__number", "entry_id"
    ):
        byes.setdefault(number, set()).add(("e", entry_id))

    for item in plan.byes:
        rnd = rounds.get(item.round)
        if rnd is not None and rnd.closed:
            plan.errors.add(item.line, DomainError("round_closed", number=item.round))
    for g in tables_planned:
        rnd = rounds.get(g.round)
        if rnd is not None and rnd.closed:
            plan.errors.add_all(g.lines, DomainError("round_closed", number=g.round))
            continue
        tbl = tables.get((g.round, g.number))
        if tbl is not None:
            _compare(g, tbl, plan)

    in_file_tables = {(g.round, g.number) for g in tables_planned}
    in_file_byes = {(b.round, e.key) for b in plan.byes for e in b.entries}
    for item in [*tables_planned, *plan.byes]:
        for e in entries_of(item):
            table_no = seated.get(item.round, {}).get(e.key)
            if table_no is not None and (item.round, table_no) not in in_file_tables:
                where = gettext("mesa {table}").format(table=table_no)
            elif e.key in byes.get(item.round, set()) and (item.round, e.key) not in in_file_byes:
                where = gettext("descanso")
            else:
                continue
            line = item.line if isinstance(item, PlannedBye) else item.line_of(e)
            plan.errors.add(
                line, DomainError("entry_elsewhere", name=e.name, round=item.round, where=where)
            )


def _compare(g: PlannedTable, tbl: Table, plan: Plan) -> None:
    """The action for planned table ``g`` already in the database as ``tbl``: the same
    entries (on the same sides, or swapped), else re-seated if it has no result yet, else
    refused ("seats_differ", on each of its lines)."""
    seats = sorted(tbl.seats.all(), key=lambda s: (s.side, s.position))
    if g.has_sides:
        want = (frozenset(e.key for e in g.side_a), frozenset(e.key for e in g.side_b))
        have = tuple(
            frozenset(("e", s.entry_id) for s in seats if s.side == side) for side in ("A", "B")
        )
        if want == have:
            g.action = SAME
            return
        if want == (have[1], have[0]):
            g.action = FLIP
            return
    else:
        if frozenset(e.key for e in g.entries()) == frozenset(("e", s.entry_id) for s in seats):
            g.action = SAME
            return
    if systems.any_result(tbl) is None:
        g.action = RESEAT
        return
    if g.has_sides:
        seated = gettext(" contra ").join(tbl.side_name(s) or "—" for s in ("A", "B"))
        found = gettext(" contra ").join(
            " & ".join(e.name for e in side) for side in (g.side_a, g.side_b)
        )
    else:
        seated = ", ".join(s.entry.name for s in seats)
        found = ", ".join(e.name for e in g.entries())
    plan.errors.add_all(
        g.lines,
        DomainError("seats_differ", table=g.number, round=g.round, seated=seated, found=found),
    )
