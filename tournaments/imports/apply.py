"""Applying an import's plan: every write through the public services, all or nothing.

``run`` is one results import from start to end: read the file (``reading``), lock the
tournament, plan (the format module's ``make_plan``), apply (``apply_plan``), in one
transaction. ``apply_plan`` writes, in this order and only through ``tournaments.services``:
the players (``create_player``: only a club director may add players, "import_cannot_create_players")
and entries (``register_entry``), the rounds (``get_or_create_round``: in order, never beyond
``rounds_planned``), the tables to re-seat emptied (``unseat_table``), each table seated
(``seat_table``) and its result recorded (``record_result``, the system's own rules), the byes
(``add_bye``) and the drops (``drop_entry``).

The byes are the file's own: an import never rests an entry the file does not name, so a player
first named in round 2 (a late arrival, SCORING.md §5) has no bye for round 1, and a file with
both rounds stores what one file per round stores.

A ``DomainError`` from a service becomes a refused line (the line the write came from) and the
rest goes on, so that one refusal lists every bad line; then ``ImportRefused`` is raised and
the transaction (``run``'s, or the caller's) stores nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from tournaments import events, services, systems
from tournaments.errors import DomainError
from tournaments.imports import formats
from tournaments.imports.plan import FLIP, NEW, RESEAT, Plan, PlannedTable
from tournaments.imports.reading import Errors, open_file, read_rows
from tournaments.models import Seat, Table, Tournament
from tournaments.services import lifecycle


def run(
    system,
    *,
    acting_user,
    tournament: Tournament,
    data: bytes | str,
    header: tuple[str, ...],
    make_plan: Callable[[Tournament, list], Plan],
    report: services.ImportReport,
    progress: Callable[[int, int], None] | None = None,
) -> services.ImportReport:
    """One results import of ``system``'s format: all or nothing.

    Reads ``data`` (``reading.open_file``: CSV in UTF-8, UTF-16 or Windows-1252, or an .xlsx
    workbook; ``report.notes`` says how when it was not UTF-8) and its rows under ``header``
    (file-level refusals first: the header alone is "no_rows"), then in
    one transaction locks the tournament (one import of a tournament at a time), plans
    (``make_plan(t, rows)``) and applies the plan into ``report``; the ranking's replay is asked
    for once, for every table the file touched (``events.batched``). Raises ``ImportRefused``
    (nothing stored) or DomainError "wrong_system" (``system`` is not the tournament's).
    """
    source = open_file(data)
    rows = read_rows(source.text, header)
    report.notes.extend(source.notes)
    with transaction.atomic(), events.batched():
        t = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
        if systems.of(t) is not system:
            raise DomainError("wrong_system")
        plan = make_plan(t, rows)
        apply_plan(
            acting_user=acting_user,
            tournament=t,
            system=system,
            plan=plan,
            report=report,
            progress=progress,
        )
    return report


def apply_plan(
    *,
    acting_user,
    tournament: Tournament,
    system,
    plan: Plan,
    report: services.ImportReport,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Write ``plan`` through the services, counting in ``report`` (results created / changed /
    unchanged, byes, players and entries created, ``drops`` if the report has it; warnings).

    Must run inside a transaction (``run``'s): when ``plan.errors`` has lines, or a service
    refuses a write, every line is collected and ``ImportRefused`` raised at the end, so that
    the caller's transaction rolls everything back. ``progress(done, total)`` is called after
    each table, if given.
    """
    errors = plan.errors
    _register(acting_user, tournament, plan, report, errors)
    rounds = _rounds(acting_user, tournament, plan, errors)
    _tables(acting_user, system, plan, rounds, report, errors, progress)
    _byes(acting_user, plan, rounds, report, errors)
    if not errors:  # the file's own faults first: these depend on every table written
        _check_byes(tournament, system, plan, rounds, errors)
        _check_order(tournament, plan, rounds, errors)
    _drops(acting_user, plan, report, errors)
    if errors:
        raise errors.refusal()


# --- players and entries -----------------------------------------------------------------------


def _register(acting_user, t: Tournament, plan: Plan, report, errors: Errors) -> None:
    """Create the players and register the entries the file named but the database lacks.

    A name that only differs from a player's in case, accents or spacing was taken as that
    player when reading (``reading.Directory``; never a new player): ``report.warnings`` says
    so, one sentence per spelling, with the line naming it first; ``report.new_players`` names
    the players created. A refusal goes on every line naming the player (or entry)."""
    who = plan.who
    report.warnings.extend(match.warning() for match in who.loose)
    for p in who.new_players:
        try:
            p.player = services.create_player(acting_user=acting_user, full_name=p.name)
        except DomainError as exc:
            errors.add_all(p.lines, exc)
            continue
        report.players_created += 1
        report.new_players.append(p.player.full_name)
    for e in who.new_entries:
        if any(p.player is None for p in e.players):
            continue  # its lines are refused already
        try:
            e.entry = services.register_entry(
                acting_user=acting_user, tournament=t, players=[p.player for p in e.players]
            )
        except DomainError as exc:
            errors.add_all(e.lines, exc)
            continue
        report.entries_created += 1


# --- rounds ------------------------------------------------------------------------------------


def _rounds(acting_user, t: Tournament, plan: Plan, errors: Errors) -> dict:
    """The rounds the file names, by number, created in order when missing
    (``services.get_or_create_round``); a refused round refuses every line of it."""
    rounds = {}
    for number in plan.round_numbers():
        try:
            rounds[number] = services.get_or_create_round(
                acting_user=acting_user, tournament=t, number=number
            )
        except DomainError as exc:
            errors.add_all(plan.lines_of_round(number), exc)
    return rounds


def _check_byes(t: Tournament, system, plan: Plan, rounds: dict, errors: Errors) -> None:
    """Each round of the file, once written, must rest no more entries than the system allows
    (``ScoringSystem.check_byes``, as the pairings page: a table game seats everyone but the
    fifth of five); a refusal goes on every line of that round.

    The entries left without a table are counted as the pairings page counts them
    (``Tournament.entries_to_pair``): an entry whose first table is in a later round (of
    this file or the database) arrived late and is not missing from the earlier ones, so a
    file whose round 2 seats a newcomer imports in one go as two files (round 1, then round
    2) do; once check-in is under way, an absent entry is not missing either (SCORING.md
    §5, "Late arrivals")."""
    for number, rnd in rounds.items():
        seated = Seat.objects.filter(round=rnd).values("entry_id")
        resting = t.entries_to_pair(number).exclude(pk__in=seated).count()
        try:
            system.check_byes(t, seated=seated.count(), resting=resting)
        except DomainError as exc:
            errors.add_all(plan.lines_of_round(number), exc)


def _check_order(t: Tournament, plan: Plan, rounds: dict, errors: Errors) -> None:
    """The order of play, as on the pairings page (``lifecycle.check_imported_rounds``): once
    the file is written, each of its rounds follows a complete round (every table with its
    result, in the file or before it); a refusal ("import_round_incomplete", naming the
    tables still missing) goes on every line of the round that came too early."""
    for number in sorted(rounds):
        try:
            lifecycle.check_imported_rounds(t, [number])
        except DomainError as exc:
            errors.add_all(plan.lines_of_round(number), exc)


# --- tables and results ------------------------------------------------------------------------


class _Unchanged(Exception):
    """The file says what the table already has: its savepoint is rolled back."""


class _TableRefused(Exception):
    """A table's write was refused; ``pairs``: (lines, DomainError) to report."""

    def __init__(self, pairs):
        super().__init__()
        self.pairs = pairs


def _domain_errors(exc: BaseException) -> list[DomainError]:
    """The DomainErrors of ``exc`` (one, or an ExceptionGroup of them); anything else is
    raised again."""
    if isinstance(exc, BaseExceptionGroup):
        found, rest = exc.split(DomainError)
        if rest is not None:
            raise rest
        out: list[DomainError] = []
        for sub in found.exceptions:
            out.extend(_domain_errors(sub))
        return out
    return [exc]


def _placed(exc: DomainError, by_seat: list[int], lines: list[int]) -> list[int]:
    """Where an error of one table goes: the line of seat ``exc.params["seat"]`` (1-based,
    ``by_seat``: the line of each seat) when it names one, else every line of the table."""
    seat = exc.params.get("seat")
    if isinstance(seat, int) and not isinstance(seat, bool) and 1 <= seat <= len(by_seat):
        return [by_seat[seat - 1]]
    return lines


def _tables(acting_user, system, plan: Plan, rounds: dict, report, errors: Errors, progress):
    """Seat and record every planned table that can be written; check the blocked ones."""
    writable: list[PlannedTable] = []
    for g in plan.tables:
        if g.blocked or g.round not in rounds or any(line in errors for line in g.lines):
            _check_only(system, g, errors)
            continue
        if any(e.entry is None for e in g.entries()):
            continue  # an entry could not be registered: its lines are refused already
        writable.append(g)
    existing = {
        (tbl.round_id, tbl.number): tbl
        for tbl in Table.objects.filter(round__in=[rounds[g.round] for g in writable])
    }
    # Empty every table to re-seat first, so that entries can move between tables.
    for g in writable:
        if g.action == RESEAT:
            try:
                services.unseat_table(
                    acting_user=acting_user, table=existing[(rounds[g.round].pk, g.number)]
                )
            except DomainError as exc:
                errors.add_all(g.lines, exc)
    total = len(writable)
    for done, g in enumerate(writable, start=1):
        if any(line in errors for line in g.lines):
            continue
        try:
            with transaction.atomic():
                outcome = _write_table(
                    acting_user,
                    system,
                    g,
                    rounds[g.round],
                    existing.get((rounds[g.round].pk, g.number)),
                )
        except _Unchanged:
            report.unchanged += 1
        except _TableRefused as refused:
            for lines, exc in refused.pairs:
                errors.add_all(lines, exc)
        else:
            if outcome == "created":
                report.created += 1
            else:
                report.changed += 1
        if progress is not None:
            progress(done, total)


def _rows_with_ids(g: PlannedTable) -> list[dict]:
    """The table's lines as ``FileFormat.parse_rows`` takes them: column → text, plus ``line``
    and ``entry_id`` (a negative stand-in for a line whose entry does not exist: the table
    is then only checked)."""
    rows = []
    for row, ref, line in zip(g.rows, g.seats, g.lines, strict=True):
        entry = ref.entry if ref is not None else None
        rows.append({**row, "line": line, "entry_id": entry.pk if entry is not None else -line})
    return rows


def _parsed_values(system, g: PlannedTable) -> dict:
    """The ``record_result`` values of a table with seats, read from its lines by the system's
    file format (``FileFormat.parse_rows``); a refusal goes on the line of the seat it names,
    else on every line."""
    try:
        return formats.of(system).parse_rows(_rows_with_ids(g))
    except (DomainError, BaseExceptionGroup) as exc:
        raise _TableRefused(
            [(_placed(e, g.lines, g.lines), e) for e in _domain_errors(exc)]
        ) from None


def _check_only(system, g: PlannedTable, errors: Errors) -> None:
    """A table that will not be written (some line is refused) still has its values checked,
    so that the refusal lists every bad line."""
    if g.has_sides:
        return
    try:
        _parsed_values(system, g)
    except _TableRefused as refused:
        for lines, exc in refused.pairs:
            errors.add_all(lines, exc)


def _write_table(acting_user, system, g: PlannedTable, rnd, table: Table | None) -> str:
    """Seat (if new or re-seated) and record one table, inside its own savepoint (``table``:
    the one in the database, None for a new table). Returns
    "created" or "changed"; raises ``_Unchanged`` when nothing changed (the savepoint is
    rolled back, the version stays), ``_TableRefused`` when a service refused."""
    values = _parsed_values(system, g) if not g.has_sides else g.values
    if g.action == FLIP:
        values = g.flipped
    try:
        if g.action in (NEW, RESEAT):
            if g.has_sides:
                sides = ([e.entry for e in g.side_a], [e.entry for e in g.side_b])
                table = services.seat_table(
                    acting_user=acting_user, round=rnd, number=g.number, sides=sides
                )
            else:
                scores = values.get("scores")
                table = services.seat_table(
                    acting_user=acting_user,
                    round=rnd,
                    number=g.number,
                    seats=[e.entry for e in g.seats],
                    scores=scores if isinstance(scores, dict) else None,
                )
    except DomainError as exc:
        raise _TableRefused([(g.lines, exc)]) from None
    seats = list(Seat.objects.filter(table=table).order_by("position", "side"))
    if g.has_sides:
        by_seat = [g.line] * len(seats)
    else:
        line_of = {e.entry.pk: line for e, line in zip(g.seats, g.lines, strict=True)}
        by_seat = [line_of.get(s.entry_id, g.line) for s in seats]
    before = _state(system, table)
    extra = {"played_at": g.played_at} if g.played_at is not None else {}
    try:
        services.record_result(
            acting_user=acting_user, table=table, version=None, **extra, **values
        )
    except DomainError as exc:
        raise _TableRefused([(_placed(exc, by_seat, g.lines), exc)]) from None
    if before[0] is None:
        return "created"
    if _state(system, table) == before:
        raise _Unchanged
    return "changed"


def _state(system, table: Table) -> tuple:
    """What a table's result is, to tell a change from a re-import of the same values: the
    stored result's fields (not its author or times of change) and the seats."""
    fresh = Table.objects.get(pk=table.pk)
    result = system.result_of(fresh)
    fields = None
    if result is not None:
        fields = tuple(
            (f.attname, getattr(result, f.attname))
            for f in result._meta.concrete_fields
            if not f.primary_key
            and f.name not in ("table", "entered_by")
            and not getattr(f, "auto_now", False)
            and not getattr(f, "auto_now_add", False)
        )
    seats = tuple(
        Seat.objects.filter(table=table)
        .order_by("side", "position")
        .values_list("entry_id", "side", "position", "victory_points")
    )
    return fields, seats


# --- byes and drops ----------------------------------------------------------------------------


def _byes(acting_user, plan: Plan, rounds: dict, report, errors: Errors) -> None:
    """Store the file's byes not yet recorded (``report.byes`` counts the new ones)."""
    for item in plan.byes:
        if item.round not in rounds or item.line in errors:
            continue
        if any(e.entry is None for e in item.entries):
            continue
        for e in item.entries:
            try:
                _bye, created = services.add_bye(
                    acting_user=acting_user, round=rounds[item.round], entry=e.entry
                )
            except DomainError as exc:
                errors.add(item.line, exc)
                break
            if created:
                report.byes += 1


def _drops(acting_user, plan: Plan, report, errors: Errors) -> None:
    """Set the drops the file gives (``services.drop_entry``) where they differ."""
    for drop in plan.drops:
        entry = drop.entry.entry
        if entry is None or drop.line in errors:
            continue
        if entry.dropped_after_round == drop.after:
            continue
        try:
            services.drop_entry(acting_user=acting_user, entry=entry, after_round=drop.after)
        except DomainError as exc:
            errors.add(drop.line, exc)
            continue
        if hasattr(report, "drops"):
            report.drops += 1


__all__ = ["apply_plan", "run"]
