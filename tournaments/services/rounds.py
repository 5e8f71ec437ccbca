"""Rounds, tables and seats: pairings (dominó, Swiss), seating (3–4 player tables), the
todos-con-todos schedule, closing and reopening a round; and the same one step at a time for
the CSV imports (``get_or_create_round``, ``unseat_table``, ``seat_table``, ``add_bye``), by
the same rules."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max, Q

from tournaments import events, systems
from tournaments.errors import DomainError
from tournaments.models import MAX_SCORE, Bye, Entry, Round, Seat, Table, Tournament
from tournaments.pairing.round_robin import first_conflict, slot_of
from tournaments.pairing.round_robin import schedule as rr_schedule
from tournaments.services import lifecycle
from tournaments.writing import audit, lock_round, lock_table, lock_tournament

#: The highest table number of a round.
MAX_TABLE = 9999


@transaction.atomic
def set_pairings(
    *,
    acting_user,
    tournament: Tournament,
    round_number: int,
    tables: Sequence[tuple[Sequence[Entry], Sequence[Entry]]],
    seed: int | None = None,
    seen: str | None = None,
    anyway: bool = False,
) -> Round:
    """Set the tables of a round: ``tables`` is a list of (side A entries, side B entries), table 1 first.

    A side has one entry (pairs, mano a mano) or two (individual with rotating partners).
    Entries left unseated rest ("descanso", recorded as byes). Replaces the round's earlier
    tables if none has a result yet.

    Raises DomainError "entry_twice", "side_size", "foreign_entry", "round_has_results",
    "round_closed", "no_tables", "invalid_round_number", "round_out_of_order" (a new round
    must be the one after the last: rounds are numbered 1, 2, 3 ... without gaps),
    "round_beyond_planned" (a new round above the tournament's ``rounds_planned``),
    "stale_pairings" (``seen``, the round's ``pairing_fingerprint`` when the director opened
    the form, is no longer the round's: someone else paired it meanwhile), and the lifecycle's
    (``lifecycle.check_next_round``: "previous_round_incomplete" unless ``anyway``, the
    director's "pair anyway"; "tournament_finished_no_pairing"; pairing round 1 starts the
    tournament: ``lifecycle.start``, "too_few_entries_to_start").
    """
    t = lock_tournament(tournament)
    if not systems.of(t).has_sides:
        raise DomainError("wrong_system")
    size = systems.of(t).entries_per_side(t)
    if not tables:
        raise DomainError("no_tables")
    for side_a, side_b in tables:
        if len(side_a) != size or len(side_b) != size:
            raise DomainError("side_size", size=size)
    layout = [
        [(e, "A", pos) for pos, e in enumerate(side_a, start=1)]
        + [(e, "B", pos) for pos, e in enumerate(side_b, start=1)]
        for side_a, side_b in tables
    ]
    return _write_round(
        acting_user=acting_user,
        t=t,
        round_number=round_number,
        layout=layout,
        seed=seed,
        seen=seen,
        anyway=anyway,
    )


@transaction.atomic
def set_seating(
    *,
    acting_user,
    tournament: Tournament,
    round_number: int,
    tables: Sequence[Sequence[Entry]],
    seed: int | None = None,
    seen: str | None = None,
    anyway: bool = False,
) -> Round:
    """Seat a round of a 3–4 player table game: ``tables`` lists each table's entries in seat
    order, table 1 first (SCORING.md §4, Seating). Unseated entries rest (byes).

    Raises DomainError "table_size_seating" (a table outside the system's ``seat_rule``, 3–4
    for table games), "wrong_system",
    and the checks of ``set_pairings`` ("entry_twice", "foreign_entry", "round_closed",
    "previous_round_incomplete" unless ``anyway`` ...).
    """
    t = lock_tournament(tournament)
    system = systems.of(t)
    if system.has_sides:
        raise DomainError("wrong_system")
    if not tables:
        raise DomainError("no_tables")
    fewest, most = system.seat_rule()
    for seats in tables:
        if not fewest <= len(seats) <= most:
            raise DomainError("table_size_seating", size=len(seats), fewest=fewest, most=most)
    layout = [[(e, "A", pos) for pos, e in enumerate(seats, start=1)] for seats in tables]
    return _write_round(
        acting_user=acting_user,
        t=t,
        round_number=round_number,
        layout=layout,
        seed=seed,
        seen=seen,
        anyway=anyway,
    )


def check_new_round(t: Tournament, number: int) -> None:
    """Whether round ``number`` of ``t`` may be created now (the pairings page asks before it
    shows its form): the one after the last, within ``rounds_planned``. Raises DomainError
    "invalid_round_number" (not 1–99), "round_out_of_order", "round_beyond_planned"."""
    if not 1 <= int(number) <= 99:
        raise DomainError("invalid_round_number")
    following = (t.rounds.aggregate(last=Max("number"))["last"] or 0) + 1
    if number > following:
        raise DomainError("round_out_of_order", number=number, next=following)
    if number > t.rounds_planned:
        raise DomainError("round_beyond_planned", number=number, planned=t.rounds_planned)


def _new_round(*, acting_user, t: Tournament, number: int) -> Round:
    """Create round ``number`` of ``t`` (locked by the caller), by the rules every path
    shares: rounds are numbered 1, 2, 3 ... without gaps, and never beyond the tournament's
    ``rounds_planned``. Raises DomainError "round_out_of_order" (not the one after the last),
    "round_beyond_planned" (above ``rounds_planned``). Not get_or_create: the new round's
    history names the acting user."""
    check_new_round(t, number)
    rnd = audit(Round(tournament=t, number=number), acting_user)
    rnd.save()
    return rnd


def pairing_fingerprint(t: Tournament, number: int) -> str:
    """A short digest of round ``number``'s tables, seats and byes as they are stored ("new"
    before the round exists): the pairings form carries it, so that saving a form opened
    before someone else paired the round is refused ("stale_pairings") instead of silently
    replacing their tables. Two queries."""
    rnd = Round.objects.filter(tournament=t, number=number).first()
    if rnd is None:
        return "new"
    seats = list(
        Seat.objects.filter(round=rnd)
        .order_by("table__number", "side", "position")
        .values_list("table__number", "side", "position", "entry_id")
    )
    byes = sorted(Bye.objects.filter(round=rnd).values_list("entry_id", flat=True))
    return hashlib.sha256(repr((seats, byes)).encode()).hexdigest()[:16]


def _write_round(
    *,
    acting_user,
    t: Tournament,
    round_number: int,
    layout,
    seed: int | None,
    seen: str | None = None,
    anyway: bool = False,
) -> Round:
    """Check and store a round's tables: ``layout`` is, per table, [(entry, side, position)].
    Entries of ``t`` left unseated get a bye when they are to be paired
    (``Tournament.entries_to_pair``: not dropped; arrived, i.e. not first seated or resting
    in a later round, SCORING.md §5 "Late arrivals"; present, once check-in is under way).
    Runs inside the caller's transaction with ``t`` locked. ``seen``: the
    ``pairing_fingerprint`` the director saw (None: no check). ``anyway``: pair even though
    the round before is not complete (``lifecycle.check_next_round``)."""
    if not 1 <= int(round_number) <= 99:
        raise DomainError("invalid_round_number")
    lifecycle.check_next_round(t, int(round_number), anyway=anyway)
    if seen is not None and seen != pairing_fingerprint(t, int(round_number)):
        raise DomainError("stale_pairings", number=int(round_number))
    entry_ids = set(t.entries.values_list("pk", flat=True))
    dropped = dict(
        t.entries.filter(dropped_after_round__isnull=False).values_list("pk", "dropped_after_round")
    )
    seen: set[int] = set()
    for seats in layout:
        for e, _side, _pos in seats:
            if e.pk not in entry_ids:
                raise DomainError("foreign_entry", name=e.name)
            if e.pk in seen:
                raise DomainError("entry_twice", name=e.name)
            if e.pk in dropped and dropped[e.pk] < int(round_number):
                raise DomainError("entry_dropped", name=e.name, round=dropped[e.pk])
            seen.add(e.pk)
    # The entries to pair left unseated rest (a bye); an absent one (check-in) gets nothing.
    resting = list(t.entries_to_pair(int(round_number)).exclude(pk__in=seen).order_by("pk"))
    systems.of(t).check_byes(t, seated=len(seen), resting=len(resting))
    rnd = (
        Round.objects.select_for_update(no_key=True)
        .filter(tournament=t, number=round_number)
        .first()
    )
    if rnd is None:
        rnd = _new_round(acting_user=acting_user, t=t, number=int(round_number))
    if rnd.closed:
        raise DomainError("round_closed", number=rnd.number)
    if rnd.tables.filter(systems.has_result_q()).exists():
        raise DomainError("round_has_results", number=rnd.number)
    if seed is not None:
        rnd.seed = seed
        audit(rnd, acting_user).save()
    # One by one (not a queryset delete), so each deletion's history names the acting user.
    for old in [*rnd.seats.all(), *rnd.tables.all(), *rnd.byes.all()]:
        audit(old, acting_user).delete()
    for number, seats in enumerate(layout, start=1):
        table = audit(Table(round=rnd, number=number), acting_user)
        table.save()
        for e, side, pos in seats:
            audit(
                Seat(table=table, round=rnd, entry=e, side=side, position=pos), acting_user
            ).save()
    for e in resting:
        audit(Bye(round=rnd, entry=e), acting_user).save()
    lifecycle.start(t, acting_user)
    # The round is published: once this commits, the listeners hear of it (the notices tell its
    # players with an email and consent their table, once per player and round).
    events.send_after_commit(events.round_paired, round_id=rnd.pk)
    return rnd


@transaction.atomic
def generate_round_robin(
    *, acting_user, tournament: Tournament, next_only: bool = False, anyway: bool = False
) -> list[Round]:
    """Make the todos-con-todos schedule (circle method) of a pairs or mano a mano tournament.

    ``next_only``: create only the first round of the schedule that does not exist yet.
    Returns the rounds created. The whole schedule raises ``rounds_planned`` to its length
    when it is shorter; ``next_only`` stays within it.

    Withdrawals (SCORING.md §5): the schedule is over every entry, withdrawn ones included
    (``pairing.round_robin.schedule``), so it carries on after a withdrawal: the rounds
    already made stay as they are, and in each later round the withdrawn entry has no table
    and no bye while its scheduled opponent rests (a bye, scored by the tournament's bye
    rule). A round where every entry still in rests is created without tables. Check-in
    (``Tournament.entries_to_pair``): the schedule is over the present entries (plus any
    already seated in an earlier round); a scheduled game of an entry absent when its round
    is made is left out, its opponent rests, and the absent entry gets neither table nor bye.

    The order of play (``lifecycle.check_next_round``): the first round made waits for the one
    before it to be complete ("previous_round_incomplete", unless ``anyway``); the rest of a
    whole schedule is made with it, as one schedule published in advance.

    Raises DomainError "round_robin_mode" (individual mode), "too_few_entries",
    "round_robin_complete", "round_beyond_planned" (``next_only`` past the planned rounds),
    "round_robin_conflict" (an existing round has a table the schedule does not give it;
    a scheduled table missing is no conflict).
    """
    t = lock_tournament(tournament)
    system = systems.of(t)
    if systems.ROUND_ROBIN not in system.actions(t):
        raise DomainError("round_robin_mode", system=system.presentation.summary(t))
    # Every entry, withdrawn ones included: a withdrawal never moves anybody else's games; a
    # withdrawn entry's scheduled opponents rest (SCORING.md §5, "Withdrawals"). Check-in
    # under way: the schedule is over the present entries (and those already seated in a
    # round made before), so a day's round robin is among those who came.
    entries = list(t.entries.order_by("pk"))
    checking_in = t.checking_in()
    if checking_in:
        seated = set(Seat.objects.filter(round__tournament=t).values_list("entry_id", flat=True))
        entries = [e for e in entries if e.present or e.pk in seated]
    by_id = {e.pk: e for e in entries}
    ids = list(by_id)
    rounds = rr_schedule(
        ids,
        withdrawn_after={
            e.pk: e.dropped_after_round for e in entries if e.dropped_after_round is not None
        },
    )
    existing = set(t.rounds.values_list("number", flat=True))
    if existing:
        seated: dict[int, dict[int, set[int]]] = {number: {} for number in existing}
        for number, table_id, entry_id in Seat.objects.filter(round__tournament=t).values_list(
            "round__number", "table_id", "entry_id"
        ):
            seated[number].setdefault(table_id, set()).add(entry_id)
        conflict = first_conflict(ids, {n: list(tbls.values()) for n, tbls in seated.items()})
        if conflict is not None:
            raise DomainError("round_robin_conflict", number=conflict)
    if len(existing) >= len(rounds):
        raise DomainError("round_robin_complete")
    if t.rounds_planned < len(rounds) and not next_only:
        # The whole schedule is asked for: it sets the number of rounds (before the rounds are
        # created, since no round may go beyond ``rounds_planned``). One round at a time
        # stays within the planned rounds ("round_beyond_planned").
        t.rounds_planned = len(rounds)
        audit(t, acting_user).save()
    created = []
    for planned in rounds:
        if planned.number in existing:
            continue
        # Straight to ``_write_round`` (not ``set_pairings``): a round may have no table at
        # all when every entry still in rests; the entries left unseated get their byes. A
        # game with an absent entry (check-in under way) is not set: its opponent rests.
        here = set(t.entries_to_pair(planned.number).values_list("pk", flat=True))
        layout = [
            [(by_id[a], "A", 1), (by_id[b], "B", 1)]
            for a, b in planned.games
            if (a in here and b in here) or not checking_in
        ]
        created.append(
            _write_round(
                acting_user=acting_user,
                t=t,
                round_number=planned.number,
                layout=layout,
                seed=None,
                anyway=anyway or bool(created),  # the rest of one schedule
            )
        )
        if next_only:
            break
    if not created:
        raise DomainError("round_robin_complete")
    return created


@transaction.atomic
def close_round(*, acting_user, round: Round) -> Round:
    """Close a round: results can no longer change. Raises "round_incomplete" if a table lacks a result."""
    rnd = lock_round(round)
    if rnd.closed:
        raise DomainError("round_closed", number=rnd.number)
    missing = rnd.tables.filter(systems.no_result_q()).values_list("number", flat=True)
    if missing:
        raise DomainError("round_incomplete", tables=", ".join(str(n) for n in missing))
    rnd.closed = True
    audit(rnd, acting_user).save()
    return rnd


@transaction.atomic
def reopen_round(*, acting_user, round: Round) -> Round:
    """Reopen a closed round so its results can be corrected."""
    rnd = lock_round(round)
    rnd.closed = False
    audit(rnd, acting_user).save()
    return rnd


# --- one round, one table, one bye at a time (the CSV imports) ---------------------------------


@transaction.atomic
def get_or_create_round(*, acting_user, tournament: Tournament, number: int) -> Round:
    """Round ``number`` of ``tournament`` (locked), created when it is the next one, by the
    rules of the pairings pages (``set_pairings``): rounds go in order and never beyond
    ``rounds_planned``. The tournament starts running (``lifecycle.start``). The imports that
    call it check the order of play once the whole file is written
    (``lifecycle.check_imported_rounds``).

    Raises DomainError "invalid_round_number" (not 1–99), "round_out_of_order" (a new round
    that is not the one after the last), "round_beyond_planned" (a new round above the
    tournament's ``rounds_planned``), "tournament_finished_no_pairing" (a new round of a
    finished tournament), "too_few_entries_to_start".
    """
    t = lock_tournament(tournament)
    if not 1 <= int(number) <= 99:
        raise DomainError("invalid_round_number")
    rnd = Round.objects.select_for_update(no_key=True).filter(tournament=t, number=number).first()
    if rnd is None:
        if t.status == Tournament.Status.FINISHED:
            raise DomainError("tournament_finished_no_pairing")
        rnd = _new_round(acting_user=acting_user, t=t, number=int(number))
    lifecycle.start(t, acting_user)
    return rnd


def _check_table_free(table: Table, rnd: Round) -> None:
    """Refuse changing who sits at ``table``: its round is closed or it has a result."""
    if rnd.closed:
        raise DomainError("round_closed", number=rnd.number)
    if systems.any_result(table) is not None:
        raise DomainError("table_has_result", table=table.number, round=rnd.number)


@transaction.atomic
def unseat_table(*, acting_user, table: Table) -> Table:
    """Empty ``table`` (its seats deleted one by one, each deletion audited) so that its
    entries may sit elsewhere in the round; the table stays. Raises DomainError
    "round_closed", "table_has_result" (a table with a result keeps its players)."""
    table = lock_table(table)
    _check_table_free(table, table.round)
    for seat in list(table.seats.all()):
        audit(seat, acting_user).delete()
    return table


@transaction.atomic
def seat_table(
    *,
    acting_user,
    round: Round,
    number: int,
    sides: tuple[Sequence[Entry], Sequence[Entry]] | None = None,
    seats: Sequence[Entry] | None = None,
    scores: dict[int, int] | None = None,
) -> Table:
    """Seat table ``number`` of ``round``, creating the table if missing, replacing its seats
    if it has no result yet; the round's other tables are left alone (``set_pairings`` and
    ``set_seating`` replace a whole round instead).

    Systems with sides (``ScoringSystem.has_sides``) give ``sides`` = (side A entries, side B
    entries), one entry per side (two in an individual tournament: the two players sitting
    on that side); systems without sides give ``seats`` = the entries in seat order, as many
    as the system's ``seat_rule``. ``scores`` (entry id → a whole number ≥ 0, optional): each
    seat's own score (``Seat.victory_points``) when the caller already has it (an import),
    stored with the seat so its history starts with it; the result's ``record`` still
    validates it (values that are not whole numbers 0–``MAX_SCORE`` are left for it to
    refuse).

    Raises DomainError "wrong_system" (sides for a system without, or the reverse),
    "side_size", "table_size_seating", "bad_table" (not 1–``MAX_TABLE``), "foreign_entry",
    "entry_twice" (twice at the table, or already seated at another table or resting in the
    round), "entry_dropped", "round_closed", "table_has_result".
    """
    rnd = lock_round(round)
    t = rnd.tournament
    system = systems.of(t)
    if (sides is not None) != system.has_sides or (seats is not None) == system.has_sides:
        raise DomainError("wrong_system")
    if sides is not None:
        size = systems.of(t).entries_per_side(t)
        side_a, side_b = (list(s) for s in sides)
        if len(side_a) != size or len(side_b) != size:
            raise DomainError("side_size", size=size)
        layout = [(e, "A", pos) for pos, e in enumerate(side_a, start=1)] + [
            (e, "B", pos) for pos, e in enumerate(side_b, start=1)
        ]
    else:
        fewest, most = system.seat_rule()
        seats = list(seats)
        if not fewest <= len(seats) <= most:
            raise DomainError("table_size_seating", size=len(seats))
        layout = [(e, "A", pos) for pos, e in enumerate(seats, start=1)]
    if not 1 <= int(number) <= MAX_TABLE:
        raise DomainError("bad_table", value=number, max=MAX_TABLE)
    if rnd.closed:
        raise DomainError("round_closed", number=rnd.number)
    table = (
        Table.objects.select_for_update(no_key=True, of=("self",))
        .filter(round=rnd, number=number)
        .first()
    )
    if table is not None:
        _check_table_free(table, rnd)
    # Only the entries of this table are read (an import seats hundreds of tables).
    wanted = [e.pk for e, _side, _pos in layout]
    dropped = dict(t.entries.filter(pk__in=wanted).values_list("pk", "dropped_after_round"))
    elsewhere = set(
        Bye.objects.filter(round=rnd, entry_id__in=wanted).values_list("entry_id", flat=True)
    )
    others = Seat.objects.filter(round=rnd, entry_id__in=wanted)
    if table is not None:
        others = others.exclude(table=table)
    elsewhere.update(others.values_list("entry_id", flat=True))
    seen: set[int] = set()
    for e, _side, _pos in layout:
        if e.pk not in dropped:
            raise DomainError("foreign_entry", name=e.name)
        if e.pk in seen or e.pk in elsewhere:
            raise DomainError("entry_twice", name=e.name)
        if dropped[e.pk] is not None and dropped[e.pk] < rnd.number:
            raise DomainError("entry_dropped", name=e.name, round=dropped[e.pk])
        seen.add(e.pk)
    scores = {
        entry_id: value
        for entry_id, value in (scores or {}).items()
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_SCORE
    }
    if table is None:
        table = audit(Table(round=rnd, number=number), acting_user)
        table.save()
    else:
        for old in list(table.seats.all()):
            audit(old, acting_user).delete()
    for e, side, pos in layout:
        audit(
            Seat(
                table=table,
                round=rnd,
                entry=e,
                side=side,
                position=pos,
                victory_points=scores.get(e.pk),
            ),
            acting_user,
        ).save()
    return table


@transaction.atomic
def add_bye(*, acting_user, round: Round, entry: Entry) -> tuple[Bye, bool]:
    """Record that ``entry`` rests ("descanso") in ``round``; returns (bye, created): a bye
    already recorded is returned as it is. Raises DomainError "foreign_entry",
    "round_closed", "entry_twice" (seated at a table of the round), "entry_dropped"."""
    rnd = lock_round(round)
    entry = Entry.objects.get(pk=entry.pk)
    if entry.tournament_id != rnd.tournament_id:
        raise DomainError("foreign_entry", name=entry.name)
    existing = Bye.objects.filter(round=rnd, entry=entry).first()
    if existing is not None:
        return existing, False
    if rnd.closed:
        raise DomainError("round_closed", number=rnd.number)
    if Seat.objects.filter(round=rnd, entry=entry).exists():
        raise DomainError("entry_twice", name=entry.name)
    if entry.dropped_after_round is not None and entry.dropped_after_round < rnd.number:
        raise DomainError("entry_dropped", name=entry.name, round=entry.dropped_after_round)
    bye = audit(Bye(round=rnd, entry=entry), acting_user)
    bye.save()
    return bye, True


# --- withdrawals: out of the rounds not played, and back (SCORING.md §5) ----------------------


@dataclass(frozen=True)
class SeatChange:
    """What a withdrawal (``services.drop_entry``) or its undoing (``services.undrop_entry``)
    changed in one round, for the director's message.

    ``kind``:

    - "bye_removed": the entry's own bye of that round was taken out;
    - "rest": its table ``table`` went and ``others`` rest that round (a bye, scored by the
      tournament's bye rule);
    - "reseat": its table ``table`` went and ``others`` have no table and no bye until the
      director seats the round again;
    - "play_on": it left table ``table``; ``others`` play on there without it;
    - "restored" (undo, round robin): it is back at table ``table`` against ``others``, as the
      schedule gives, and their rest is taken out;
    - "rests" (undo, round robin): it rests that round (a bye), as the schedule gives;
    - "unseated" (undo): a round already published that has not begun: it has no table there
      until the director pairs the round again;
    - "missed" (undo): a round that began without it: it does not play that round.
    """

    round: int
    kind: str
    table: int | None = None
    others: tuple[str, ...] = ()


def last_round_played(entry: Entry) -> int:
    """The last round ``entry`` has played, 0 if none: the round a withdrawal takes effect
    after (SCORING.md §5). An entry has played a round when its table there has a result, when
    it rests there and the round has begun (a result at any table, or the round closed: the
    standings already count that rest), or when the round is closed with it seated there.
    Three queries."""
    seated = (
        Seat.objects.filter(entry=entry)
        .filter(systems.has_result_q("table__") | Q(round__closed=True))
        .aggregate(last=Max("round__number"))["last"]
    )
    begun = entry.tournament.started_rounds()
    rested = Bye.objects.filter(entry=entry, round__in=begun).aggregate(last=Max("round__number"))
    return max(seated or 0, rested["last"] or 0)


def withdraw_from_rounds(*, acting_user, t: Tournament, entry: Entry, after_round: int):
    """Take ``entry`` (withdrawn after ``after_round``, at least its ``last_round_played``)
    out of every later round already made; runs in the caller's transaction with ``t`` locked.

    A bye of the entry there is deleted. Its table (which has no result, since the entry has
    not played that round) loses it; what becomes of the others at it is the system's
    ``after_withdrawal``: "play_on" (the table stays, the seats after it on its side move up
    one position, the table's version grows), "rest" (the table goes, each other entry gets a
    bye) or "reseat" (the table goes, the others wait to be seated again). Every row changed
    is audited. Returns the ``SeatChange`` list, by round. Raises DomainError "round_closed",
    "table_has_result" (only with data no service writes: a later round closed or scored)."""
    system = systems.of(t)
    changes: list[SeatChange] = []
    concerned = set(
        Seat.objects.filter(entry=entry, round__number__gt=after_round).values_list(
            "round_id", flat=True
        )
    ) | set(
        Bye.objects.filter(entry=entry, round__number__gt=after_round).values_list(
            "round_id", flat=True
        )
    )
    rounds = Round.objects.select_for_update(no_key=True).filter(pk__in=concerned)
    for rnd in rounds.order_by("number"):
        for bye in Bye.objects.filter(round=rnd, entry=entry):
            if rnd.closed:
                raise DomainError("round_closed", number=rnd.number)
            audit(bye, acting_user).delete()
            changes.append(SeatChange(round=rnd.number, kind="bye_removed"))
        for seat in Seat.objects.filter(round=rnd, entry=entry).select_related("table"):
            table = Table.objects.select_for_update(no_key=True).get(pk=seat.table_id)
            _check_table_free(table, rnd)
            seats = list(table.seats.select_related("entry__player1", "entry__player2"))
            others = [s for s in seats if s.entry_id != entry.pk]
            names = tuple(s.entry.name for s in others)
            outcome = system.after_withdrawal(t, left=len(others))
            if outcome == "play_on":
                audit(seat, acting_user).delete()
                for other in sorted(others, key=lambda s: s.position):
                    if other.side == seat.side and other.position > seat.position:
                        other.position -= 1
                        audit(other, acting_user).save(update_fields=["position"])
                table.version += 1
                audit(table, acting_user).save(update_fields=["version"])
            else:
                for old in seats:
                    audit(old, acting_user).delete()
                audit(table, acting_user).delete()
                if outcome == "rest":
                    for other in others:
                        audit(Bye(round=rnd, entry=other.entry), acting_user).save()
            changes.append(
                SeatChange(round=rnd.number, kind=outcome, table=table.number, others=names)
            )
    return changes


def return_to_rounds(*, acting_user, t: Tournament, entry: Entry, after_round: int):
    """Put ``entry``, whose withdrawal after ``after_round`` was just taken back, into the
    rounds already made after it (SCORING.md §5, "Undoing a withdrawal"); runs in the caller's
    transaction with ``t`` locked.

    A round that began (a result, or closed) stays as it is: the entry does not play it
    ("missed"). In a round not begun: when the tournament's rounds follow its round robin
    schedule (``pairing.round_robin.first_conflict``), the entry gets its scheduled place
    back: its rest ("rests"; also when its scheduled opponent is itself withdrawn), or its
    table against its scheduled opponent, whose rest is taken out ("restored": the schedule's
    table number when free, else the next one); otherwise (or when that opponent sits
    elsewhere) it has no table until the director pairs the round again ("unseated"). Every
    row written is audited. Returns the ``SeatChange`` list, by round."""
    present = set(Seat.objects.filter(entry=entry).values_list("round_id", flat=True)) | set(
        Bye.objects.filter(entry=entry).values_list("round_id", flat=True)
    )
    rounds = [
        rnd
        for rnd in Round.objects.select_for_update(no_key=True)
        .filter(tournament=t, number__gt=after_round)
        .order_by("number")
        if rnd.pk not in present
    ]
    if not rounds:
        return []
    begun = set(t.started_rounds().values_list("pk", flat=True))
    entries = {e.pk: e for e in t.entries.select_related("player1", "player2").order_by("pk")}
    ids = list(entries)
    follows = False
    if systems.ROUND_ROBIN in systems.of(t).actions(t) and len(ids) >= 2:
        seated: dict[int, dict[int, set[int]]] = {
            n: {} for n in t.rounds.values_list("number", flat=True)
        }
        for number, table_id, entry_id in Seat.objects.filter(round__tournament=t).values_list(
            "round__number", "table_id", "entry_id"
        ):
            seated[number].setdefault(table_id, set()).add(entry_id)
        follows = (
            first_conflict(ids, {n: list(tbls.values()) for n, tbls in seated.items()}) is None
        )
    changes: list[SeatChange] = []
    for rnd in rounds:
        if rnd.pk in begun:
            changes.append(SeatChange(round=rnd.number, kind="missed"))
            continue
        if not follows:
            changes.append(SeatChange(round=rnd.number, kind="unseated"))
            continue
        slot = slot_of(ids, rnd.number, entry.pk)
        rival = entries.get(slot.opponent) if slot.opponent is not None else None
        if rival is None or (
            rival.dropped_after_round is not None and rival.dropped_after_round < rnd.number
        ):
            audit(Bye(round=rnd, entry=entry), acting_user).save()
            changes.append(SeatChange(round=rnd.number, kind="rests"))
            continue
        rest = Bye.objects.filter(round=rnd, entry=rival).first()
        if rest is None or Seat.objects.filter(round=rnd, entry=rival).exists():
            changes.append(SeatChange(round=rnd.number, kind="unseated"))
            continue
        audit(rest, acting_user).delete()
        taken = set(rnd.tables.values_list("number", flat=True))
        number = slot.table if slot.table not in taken else max(taken) + 1
        table = audit(Table(round=rnd, number=number), acting_user)
        table.save()
        own, other = ("A", "B") if slot.side == "A" else ("B", "A")
        for e, side in ((entry, own), (rival, other)):
            audit(Seat(table=table, round=rnd, entry=e, side=side, position=1), acting_user).save()
        changes.append(
            SeatChange(round=rnd.number, kind="restored", table=number, others=(rival.name,))
        )
    return changes
