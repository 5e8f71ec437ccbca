"""Every write of the tournaments app (DESIGN.md, "Writes").

Each function takes keyword-only arguments and the acting user, runs in one transaction,
validates with the pure rules before anything is stored, and leaves an audit trail through
django-simple-history. Errors are ``DomainError`` subclasses carrying a stable ``code``.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.dispatch import Signal
from django.utils import timezone
from django.utils.text import slugify

from tournaments.errors import DomainError, ResultError, gettext_noop
from tournaments.models import (
    MAX_SCORE,
    Bye,
    Castigo,
    Entry,
    MatchResult,
    Player,
    Result,
    Round,
    Seat,
    Sorteo,
    Table,
    TableResult,
    Tournament,
    name_key,
)
from tournaments.pairing.round_robin import round_robin
from tournaments.scoring import domino

MAX_NAME = 120

# Row locks are ``select_for_update(no_key=True)`` (PostgreSQL FOR NO KEY UPDATE): they serialise
# the writers among themselves exactly as FOR UPDATE would, but do not block the foreign-key
# checks (FOR KEY SHARE) of a ledger replay inserting rows that point at the same tournament,
# table or player; with plain FOR UPDATE, a replay and a writer could deadlock.


def _audit(instance, acting_user):
    """Tell simple-history who made the change being saved."""
    if acting_user is not None and getattr(acting_user, "is_authenticated", False):
        instance._history_user = acting_user
    return instance


#: Sent after the transaction that changed results commits; ``table_ids``: the tables touched.
results_changed = Signal()


def _after_commit(table_ids: Iterable[int]) -> None:
    ids = list(table_ids)
    transaction.on_commit(lambda: results_changed.send(sender=Result, table_ids=ids))


# --- players -----------------------------------------------------------------------------------


def _clean_name(value: str, *, field: str, required: bool = True, max_length: int = MAX_NAME) -> str:
    value = (value or "").strip()
    if required and not value:
        raise DomainError("name_required", field=field)
    if len(value) > max_length:
        raise DomainError("name_too_long", field=field, max=max_length)
    if any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in value):
        raise DomainError("name_control_chars", field=field)
    return value


def similar_players(full_name: str, *, exclude_id: int | None = None) -> list[Player]:
    """Players whose name equals ``full_name`` after NFC and case folding (duplicate warning)."""
    qs = Player.objects.filter(name_key=name_key(full_name))
    if exclude_id:
        qs = qs.exclude(pk=exclude_id)
    return list(qs)


def _check_member_number(member_number: str | None, exclude_id: int | None) -> str | None:
    member_number = (member_number or "").strip() or None
    if member_number is None:
        return None
    if len(member_number) > 20:
        raise DomainError("member_number_too_long")
    qs = Player.objects.filter(member_number__iexact=member_number)
    if exclude_id:
        qs = qs.exclude(pk=exclude_id)
    if qs.exists():
        raise DomainError("member_number_taken", number=member_number)
    return member_number


@transaction.atomic
def create_player(
    *, acting_user, full_name: str, nickname: str = "", member_number: str | None = None,
    email: str = "", phone: str = "",
) -> Player:
    """Register a player. The name is kept exactly as typed (trimmed).

    Raises DomainError "name_required", "name_too_long", "name_control_chars",
    "member_number_taken". Duplicate names are allowed (see ``similar_players`` for the warning).
    """
    player = Player(
        full_name=_clean_name(full_name, field=gettext_noop("nombre")),
        nickname=_clean_name(nickname, field=gettext_noop("apodo"), required=False, max_length=60),
        member_number=_check_member_number(member_number, None),
        email=(email or "").strip(),
        phone=(phone or "").strip()[:40],
    )
    _audit(player, acting_user).save()
    return player


@transaction.atomic
def update_player(
    *, acting_user, player: Player, full_name: str, nickname: str = "",
    member_number: str | None = None, email: str = "", phone: str = "", active: bool = True,
) -> Player:
    """Change a player's data; same validation as ``create_player``."""
    player = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
    player.full_name = _clean_name(full_name, field=gettext_noop("nombre"))
    player.nickname = _clean_name(nickname, field=gettext_noop("apodo"), required=False, max_length=60)
    player.member_number = _check_member_number(member_number, player.pk)
    player.email = (email or "").strip()
    player.phone = (phone or "").strip()[:40]
    player.active = active
    _audit(player, acting_user).save()
    return player


@transaction.atomic
def set_player_active(*, acting_user, player: Player, active: bool) -> Player:
    """Activate or deactivate a player (deactivated players are hidden from new registrations)."""
    player = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
    player.active = active
    _audit(player, acting_user).save()
    return player


@transaction.atomic
def delete_player(*, acting_user, player: Player) -> None:
    """Delete a player who never played. Raises DomainError "player_has_results" otherwise."""
    player = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
    if player.has_results() or Entry.objects.filter(player1=player).exists() or Entry.objects.filter(
        player2=player
    ).exists():
        raise DomainError("player_has_results", name=player.full_name)
    _audit(player, acting_user).delete()


# --- tournaments and entries -------------------------------------------------------------------


def _unique_slug(name: str, date: dt.date) -> str:
    base = slugify(f"{name}-{date:%Y}")[:120] or f"torneo-{date:%Y}"
    slug, n = base, 2
    while Tournament.objects.filter(slug=slug).exists():
        slug = f"{base}-{n}"
        n += 1
    return slug


TOURNAMENT_FIELDS = (
    "name", "date", "venue", "system", "mode", "target", "time_limit", "bye_rule",
    "forfeit_winner_tantos", "forfeit_loser_tantos", "rounds_planned", "rated",
    "forfeits_rated", "status", "best_of",
)


def _check_tournament(t: Tournament) -> None:
    t.name = _clean_name(t.name, field=gettext_noop("nombre"))
    if t.target not in (100, 200):
        raise DomainError("invalid_target", target=t.target)
    if t.system not in Tournament.System.values:
        raise DomainError("invalid_system", system=t.system)
    if t.mode not in Tournament.Mode.values:
        raise DomainError("invalid_mode", mode=t.mode)
    if t.bye_rule not in Tournament.ByeRule.values:
        raise DomainError("invalid_bye_rule", bye_rule=t.bye_rule)
    if t.status not in Tournament.Status.values:
        raise DomainError("invalid_status", status=t.status)
    if t.system == Tournament.System.TABLE and t.mode != Tournament.Mode.SINGLE:
        raise DomainError("table_mode")
    if int(t.best_of) not in (1, 3, 5):
        raise DomainError("invalid_best_of", best_of=t.best_of)
    if not 1 <= int(t.rounds_planned) <= 99:
        raise DomainError("invalid_rounds")
    if t.time_limit is not None and not 1 <= int(t.time_limit) <= 600:
        raise DomainError("invalid_time_limit")
    winner, loser = t.forfeit_score
    try:
        domino.validate_result(winner, loser, target=t.target, ended_by_time=False)
    except ResultError as exc:
        raise DomainError("invalid_forfeit_score", score=f"{winner}-{loser}") from exc


@transaction.atomic
def create_tournament(*, acting_user, **fields) -> Tournament:
    """Create a tournament from ``TOURNAMENT_FIELDS`` keyword values; returns it with a unique slug.

    Raises DomainError with codes "invalid_target", "invalid_mode", "invalid_forfeit_score" ...
    """
    unknown = set(fields) - set(TOURNAMENT_FIELDS)
    if unknown:
        raise TypeError(f"unknown tournament fields: {sorted(unknown)}")
    t = Tournament(**fields)
    _check_tournament(t)
    t.slug = _unique_slug(t.name, t.date)
    _audit(t, acting_user).save()
    if acting_user is not None and getattr(acting_user, "is_authenticated", False):
        t.directors.add(acting_user)
    return t


@transaction.atomic
def update_tournament(*, acting_user, tournament: Tournament, **fields) -> Tournament:
    """Change a tournament's settings. The mode and system cannot change once it has entries;
    the target cannot change once it has results (they were validated against it); the number
    of rounds cannot drop below the rounds already paired ("rounds_below_played")."""
    t = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
    has_entries = t.entries.exists()
    has_results = Result.objects.filter(table__round__tournament=t).exists()
    for key, value in fields.items():
        if key not in TOURNAMENT_FIELDS:
            raise TypeError(f"unknown tournament field: {key}")
        if key in ("mode", "system") and has_entries and getattr(t, key) != value:
            raise DomainError("mode_locked")
        if key == "target" and has_results and t.target != value:
            raise DomainError("target_locked")
        if key == "time_limit" and not value and Result.objects.filter(
            table__round__tournament=t, ended_by_time=True
        ).exists():
            raise DomainError("time_limit_locked")
        if key in ("forfeit_winner_tantos", "forfeit_loser_tantos") and getattr(t, key) != value and (
            Result.objects.filter(table__round__tournament=t, forfeit=True).exists()
        ):
            raise DomainError("forfeit_score_locked")
        if key == "rounds_planned" and str(value).isdigit() and 1 <= int(value) <= 99:
            played = t.rounds.aggregate(last=Max("number"))["last"] or 0
            if int(value) < played:
                raise DomainError("rounds_below_played", rounds=played)
        setattr(t, key, value)
    _check_tournament(t)
    old_date = Tournament.objects.values_list("date", flat=True).get(pk=t.pk)
    _audit(t, acting_user).save()
    if old_date != t.date:
        # The games move with the tournament: keep their times of day, shift the day.
        shift = t.date - old_date
        for result in Result.objects.filter(table__round__tournament=t, played_at__isnull=False):
            result.played_at += shift
            _audit(result, acting_user).save(update_fields=["played_at"])
    _after_commit(Table.objects.filter(round__tournament=t).values_list("pk", flat=True))
    return t


@transaction.atomic
def set_tournament_directors(*, acting_user, tournament: Tournament, directors: Iterable) -> Tournament:
    """Replace the users who direct ``tournament`` (``Tournament.directors``): they manage it,
    and only it (``permissions.can_manage``). The caller must be allowed to manage it.

    A user added must be active staff (those already listed may stay). A director who is not a
    superuser cannot remove themselves (they would lose the page they are on).
    Raises DomainError "director_not_staff", "director_self_removal".
    """
    t = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
    wanted = {u.pk: u for u in directors}
    current = set(t.directors.values_list("pk", flat=True))
    for pk, user in wanted.items():
        if pk not in current and not (user.is_staff and user.is_active):
            raise DomainError("director_not_staff", name=user.get_username())
    acting_pk = getattr(acting_user, "pk", None)
    if (acting_pk in current and acting_pk not in wanted
            and not getattr(acting_user, "is_superuser", False)):
        raise DomainError("director_self_removal")
    if set(wanted) != current:
        t.directors.set(list(wanted.values()))
        # The director list has no history of its own (HistoricalRecords(m2m_fields=[])):
        # record who changed it as a change of the tournament.
        _audit(t, acting_user).save(update_fields=["updated_at"])
    return t


def _entry_size(t: Tournament) -> int:
    return 2 if t.mode == Tournament.Mode.PAIRS else 1


@transaction.atomic
def register_entry(*, acting_user, tournament: Tournament, players: Sequence[Player]) -> Entry:
    """Register an entry: two players for a pairs tournament, one otherwise.

    Raises DomainError "entry_size" (wrong number of players), "player_already_entered",
    "player_inactive", "tournament_finished".
    """
    t = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
    if t.status == Tournament.Status.FINISHED:
        raise DomainError("tournament_finished")
    players = list(players)
    if len(players) != _entry_size(t) or len({p.pk for p in players}) != len(players):
        raise DomainError("entry_size", size=_entry_size(t))
    for p in players:
        if not p.active:
            raise DomainError("player_inactive", name=p.full_name)
        if t.entries.filter(player1=p).exists() or t.entries.filter(player2=p).exists():
            raise DomainError("player_already_entered", name=p.full_name)
    entry = Entry(tournament=t, player1=players[0], player2=players[1] if len(players) > 1 else None)
    _audit(entry, acting_user).save()
    return entry


@transaction.atomic
def remove_entry(*, acting_user, entry: Entry) -> None:
    """Remove an entry that has not played (seated or rested). Raises "entry_has_results" otherwise."""
    entry = Entry.objects.select_for_update(no_key=True).get(pk=entry.pk)
    if entry.seats.exists() or entry.byes.exists():
        raise DomainError("entry_has_results", name=entry.name)
    _audit(entry, acting_user).delete()


# --- rounds and pairings -----------------------------------------------------------------------


def _side_size(t: Tournament) -> int:
    return 2 if t.mode == Tournament.Mode.INDIVIDUAL else 1


@transaction.atomic
def set_pairings(
    *, acting_user, tournament: Tournament, round_number: int,
    tables: Sequence[tuple[Sequence[Entry], Sequence[Entry]]], seed: int | None = None,
) -> Round:
    """Set the tables of a round: ``tables`` is a list of (side A entries, side B entries), table 1 first.

    A side has one entry (pairs, mano a mano) or two (individual with rotating partners).
    Entries left unseated rest ("descanso", recorded as byes). Replaces the round's earlier
    tables if none has a result yet.

    Raises DomainError "entry_twice", "side_size", "foreign_entry", "round_has_results",
    "round_closed", "no_tables", "invalid_round_number", "round_out_of_order" (a new round
    must be the one after the last: rounds are numbered 1, 2, 3 ... without gaps).
    """
    t = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
    if t.system == Tournament.System.TABLE:
        raise DomainError("wrong_system")
    size = _side_size(t)
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
    return _write_round(acting_user=acting_user, t=t, round_number=round_number, layout=layout, seed=seed)


@transaction.atomic
def set_seating(
    *, acting_user, tournament: Tournament, round_number: int, tables: Sequence[Sequence[Entry]],
    seed: int | None = None,
) -> Round:
    """Seat a round of a 3–4 player table game: ``tables`` lists each table's entries in seat
    order, table 1 first (SCORING.md §4, Seating). Unseated entries rest (byes).

    Raises DomainError "table_size_seating" (a table of fewer than 3 or more than 4), "wrong_system",
    and the checks of ``set_pairings`` ("entry_twice", "foreign_entry", "round_closed" ...).
    """
    t = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
    if t.system != Tournament.System.TABLE:
        raise DomainError("wrong_system")
    if not tables:
        raise DomainError("no_tables")
    for seats in tables:
        if not 3 <= len(seats) <= 4:
            raise DomainError("table_size_seating", size=len(seats))
    layout = [[(e, "A", pos) for pos, e in enumerate(seats, start=1)] for seats in tables]
    return _write_round(acting_user=acting_user, t=t, round_number=round_number, layout=layout, seed=seed)


def _write_round(*, acting_user, t: Tournament, round_number: int, layout, seed: int | None) -> Round:
    """Check and store a round's tables: ``layout`` is, per table, [(entry, side, position)].
    Entries of ``t`` left unseated (and not dropped) get a bye. Runs inside the caller's
    transaction with ``t`` locked."""
    if not 1 <= int(round_number) <= 99:
        raise DomainError("invalid_round_number")
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
    rnd = Round.objects.select_for_update(no_key=True).filter(tournament=t, number=round_number).first()
    if rnd is None:  # not get_or_create: the new round's history names the acting user
        following = (t.rounds.aggregate(last=Max("number"))["last"] or 0) + 1
        if int(round_number) > following:
            raise DomainError("round_out_of_order", number=int(round_number), next=following)
        rnd = _audit(Round(tournament=t, number=round_number), acting_user)
        rnd.save()
    if rnd.closed:
        raise DomainError("round_closed", number=rnd.number)
    if (
        Result.objects.filter(table__round=rnd).exists()
        or MatchResult.objects.filter(table__round=rnd).exists()
        or TableResult.objects.filter(table__round=rnd).exists()
    ):
        raise DomainError("round_has_results", number=rnd.number)
    if seed is not None:
        rnd.seed = seed
        _audit(rnd, acting_user).save()
    # One by one (not a queryset delete), so each deletion's history names the acting user.
    for old in [*rnd.seats.all(), *rnd.tables.all(), *rnd.byes.all()]:
        _audit(old, acting_user).delete()
    for number, seats in enumerate(layout, start=1):
        table = _audit(Table(round=rnd, number=number), acting_user)
        table.save()
        for e, side, pos in seats:
            _audit(Seat(table=table, round=rnd, entry=e, side=side, position=pos), acting_user).save()
    active = t.entries.filter(dropped_after_round__isnull=True) | t.entries.filter(
        dropped_after_round__gte=round_number
    )
    for e in active.exclude(pk__in=seen).order_by("pk"):
        _audit(Bye(round=rnd, entry=e), acting_user).save()
    if t.status in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION):
        t.status = Tournament.Status.RUNNING
        _audit(t, acting_user).save()
    return rnd


@transaction.atomic
def generate_round_robin(*, acting_user, tournament: Tournament, next_only: bool = False) -> list[Round]:
    """Make the todos-con-todos schedule (circle method) of a pairs or mano a mano tournament.

    ``next_only``: create only the first round of the schedule that does not exist yet.
    Returns the rounds created. Raises DomainError "round_robin_mode" (individual mode),
    "too_few_entries", "round_robin_complete".
    """
    t = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
    if t.mode == Tournament.Mode.INDIVIDUAL:
        raise DomainError("round_robin_mode")
    entries = list(t.entries.filter(dropped_after_round__isnull=True).order_by("pk"))
    by_id = {e.pk: e for e in entries}
    schedule = round_robin([e.pk for e in entries])
    existing = set(t.rounds.values_list("number", flat=True))
    if existing:
        seated: dict[int, dict[int, set[int]]] = {}
        for number, table_id, entry_id in Seat.objects.filter(round__tournament=t).values_list(
            "round__number", "table_id", "entry_id"
        ):
            seated.setdefault(number, {}).setdefault(table_id, set()).add(entry_id)
        for number in sorted(existing):
            planned = (
                {frozenset(p) for p in schedule[number - 1] if None not in p}
                if number <= len(schedule) else None
            )
            actual = {frozenset(s) for s in seated.get(number, {}).values()}
            if planned is None or actual != planned:
                raise DomainError("round_robin_conflict", number=number)
    created = []
    for number, pairs in enumerate(schedule, start=1):
        if number in existing:
            continue
        tables = [([by_id[a]], [by_id[b]]) for a, b in pairs if a is not None and b is not None]
        created.append(set_pairings(acting_user=acting_user, tournament=t, round_number=number, tables=tables))
        if next_only:
            break
    if not created:
        raise DomainError("round_robin_complete")
    if t.rounds_planned < len(schedule) and not next_only:
        t.rounds_planned = len(schedule)
        _audit(t, acting_user).save()
    return created


@transaction.atomic
def close_round(*, acting_user, round: Round) -> Round:
    """Close a round: results can no longer change. Raises "round_incomplete" if a table lacks a result."""
    rnd = Round.objects.select_for_update(no_key=True).get(pk=round.pk)
    if rnd.closed:
        raise DomainError("round_closed", number=rnd.number)
    missing = rnd.tables.filter(
        result__isnull=True, match_result__isnull=True, table_result__isnull=True
    ).values_list(
        "number", flat=True
    )
    if missing:
        raise DomainError("round_incomplete", tables=", ".join(str(n) for n in missing))
    rnd.closed = True
    _audit(rnd, acting_user).save()
    return rnd


@transaction.atomic
def reopen_round(*, acting_user, round: Round) -> Round:
    """Reopen a closed round so its results can be corrected."""
    rnd = Round.objects.select_for_update(no_key=True).get(pk=round.pk)
    rnd.closed = False
    _audit(rnd, acting_user).save()
    return rnd


# --- results -----------------------------------------------------------------------------------


def _default_played_at(t: Tournament, round_number: int) -> dt.datetime:
    """Tournament date at 10:00 local time plus one hour per round (SCORING.md §2 orders by it)."""
    tz = timezone.get_current_timezone()
    start = dt.datetime.combine(t.date, dt.time(10, 0), tzinfo=tz)
    return start + dt.timedelta(hours=round_number - 1)




def _parse_int(value, field: str) -> int:
    """A whole number typed by a person: "120", " 120 ", "-5" (later refused as negative).

    Raises ResultError "tantos_missing" (empty), "not_integer" (text, decimals, "1e3", NaN,
    "--5", "²") or "value_too_large" (above ``MAX_SCORE``).
    """
    if isinstance(value, bool):
        raise ResultError("not_integer", value=value)
    if isinstance(value, int):
        if abs(value) > MAX_SCORE:
            raise ResultError("value_too_large", value=value, max=MAX_SCORE)
        return value
    text = str(value).strip() if value is not None else ""
    if text == "":
        raise ResultError("tantos_missing", side=field)
    digits = text[1:] if text.startswith("-") else text
    if digits.isascii() and digits.isdigit():  # not "--5", "²" (int() fails)
        if len(digits) > 5 or int(digits) > MAX_SCORE:
            raise ResultError("value_too_large", value=text[:20], max=MAX_SCORE)
        return int(text)
    raise ResultError("not_integer", value=text[:20])


@transaction.atomic
def record_result(
    *, acting_user, table: Table, tantos_a, tantos_b, ended_by_time: bool = False,
    forfeit: bool = False, forfeiting_side: str | None = None, version: int | None,
    played_at: dt.datetime | None = None,
) -> Result:
    """Save (create or correct) the result of a dominó table.

    ``version`` is the table version the user saw; a different current version means someone
    else changed the table ("stale_version"). ``forfeiting_side`` ("A"/"B") records a no-show
    with the tournament's forfeit score (SCORING.md §1, Forfeits); otherwise the tantos are
    validated with ``scoring.domino.validate_result``.

    Raises ResultError (codes of ``scoring.domino``, "tantos_missing") or DomainError
    "stale_version", "round_closed", "table_empty". Nothing is stored on error.
    """
    tbl = _lock_table(table)
    rnd, t = tbl.round, tbl.round.tournament
    _check_writable(tbl, version)
    if t.system != Tournament.System.DOMINO:
        raise DomainError("wrong_system")
    if forfeiting_side:
        if forfeiting_side not in ("A", "B"):
            raise ResultError("invalid_side")
        if ended_by_time:
            raise ResultError("forfeit_by_time")
        winner, loser = t.forfeit_score
        tantos_a, tantos_b = (loser, winner) if forfeiting_side == "A" else (winner, loser)
        forfeit, ended_by_time = True, False
    a = _parse_int(tantos_a, "A")
    b = _parse_int(tantos_b, "B")
    if ended_by_time and not t.time_limit:
        raise ResultError("no_time_limit")
    domino.validate_result(a, b, target=t.target, ended_by_time=bool(ended_by_time))
    result = tbl.result_or_none or Result(table=tbl)
    result.tantos_a, result.tantos_b = a, b
    result.ended_by_time, result.forfeit = bool(ended_by_time), bool(forfeit)
    result.played_at = played_at or result.played_at or rnd.played_at or _default_played_at(t, rnd.number)
    result.entered_by = acting_user if getattr(acting_user, "is_authenticated", False) else None
    _audit(result, acting_user).save()
    bump_version(tbl, acting_user)
    _after_commit([tbl.pk])
    return result


def _lock_table(table: Table) -> Table:
    """``table`` again, locked with its round for a result change (the tournament comes along,
    unlocked). A no-key lock: see the note on locks above."""
    return (
        Table.objects.select_for_update(no_key=True, of=("self", "round"))
        .select_related("round__tournament")
        .get(pk=table.pk)
    )


def bump_version(tbl: Table, acting_user) -> None:
    """A table's result changed: its version grows by one (DESIGN.md, Concurrency), audited.
    Callers fire ``_after_commit`` for the tables they touched."""
    tbl.version += 1
    _audit(tbl, acting_user).save()


def _check_writable(tbl: Table, version) -> None:
    """Refuse a change to a table of a closed round, a stale version, or an empty table."""
    if tbl.round.closed:
        raise DomainError("round_closed", number=tbl.round.number)
    if version is not None and int(version) != tbl.version:
        raise DomainError("stale_version", table=tbl.number)
    if not tbl.seats.exists():
        raise DomainError("table_empty", table=tbl.number)


@transaction.atomic
def record_match_result(
    *, acting_user, table: Table, games_a, games_b, games_drawn=0, version: int | None,
) -> MatchResult:
    """Save (create or correct) the result of a match-play table: games won by A, by B, drawn.

    Validated with ``scoring.swiss.validate_match`` against the tournament's best-of-N
    (seed 000, SCORING.md §3). Same version check as ``record_result``. Raises ResultError
    ("too_many_games", "above_wins_needed", "empty_match", "not_integer" ...) or DomainError
    ("stale_version", "round_closed", "wrong_system"). Nothing is stored on error.
    """
    from tournaments.scoring import swiss

    tbl = _lock_table(table)
    t = tbl.round.tournament
    _check_writable(tbl, version)
    if t.system != Tournament.System.SWISS:
        raise DomainError("wrong_system")
    a = _parse_int(games_a, "A")
    b = _parse_int(games_b, "B")
    d = _parse_int(games_drawn if games_drawn not in (None, "") else 0, "empates")
    swiss.validate_match(a, b, d, best_of=t.best_of)
    result = tbl.match_result_or_none or MatchResult(table=tbl)
    result.games_a, result.games_b, result.games_drawn = a, b, d
    result.entered_by = acting_user if getattr(acting_user, "is_authenticated", False) else None
    _audit(result, acting_user).save()
    bump_version(tbl, acting_user)
    _after_commit([tbl.pk])
    return result


@transaction.atomic
def record_table_result(
    *, acting_user, table: Table, scores: dict[int, object], ended_by_time: bool = False,
    version: int | None,
) -> TableResult:
    """Save (create or correct) a 3–4 player table game: ``scores`` maps each seated entry id
    to its in-game score (VP, a whole number ≥ 0), every seat included.

    Validated with ``scoring.table.validate_table`` (seed 004, SCORING.md §4). Same version
    check as ``record_result``. Raises ResultError ("score_missing", "negative_score",
    "not_integer", "table_size") or DomainError ("stale_version", "round_closed",
    "wrong_system", "foreign_entry"). Nothing is stored on error.
    """
    from tournaments.scoring import table as table_scoring

    tbl = _lock_table(table)
    t = tbl.round.tournament
    _check_writable(tbl, version)
    if t.system != Tournament.System.TABLE:
        raise DomainError("wrong_system")
    seats = list(tbl.seats.select_related("entry__player1").order_by("position"))
    seated = {s.entry_id for s in seats}
    unknown = set(scores) - seated
    if unknown:
        raise DomainError("foreign_entry", name=", ".join(str(x) for x in sorted(unknown)))
    values = []
    for seat in seats:
        raw = scores.get(seat.entry_id)
        if raw is None or (isinstance(raw, str) and raw.strip() == ""):
            raise ResultError("score_missing", name=seat.entry.name)
        try:
            values.append(_parse_int(raw, seat.entry.name))
        except ResultError as exc:
            raise ResultError(exc.code, name=seat.entry.name, value=str(raw)[:20]) from exc
    table_scoring.validate_table(values, ended_by_time=bool(ended_by_time))
    for seat, value in zip(seats, values):
        if seat.vp != value:
            seat.vp = value
            _audit(seat, acting_user).save(update_fields=["vp"])
    result = tbl.table_result_or_none or TableResult(table=tbl)
    result.ended_by_time = bool(ended_by_time)
    result.entered_by = acting_user if getattr(acting_user, "is_authenticated", False) else None
    _audit(result, acting_user).save()
    bump_version(tbl, acting_user)
    _after_commit([tbl.pk])
    return result


@transaction.atomic
def drop_entry(*, acting_user, entry: Entry, after_round: int) -> Entry:
    """Drop an entry after ``after_round``: it keeps its results and stays in the standings but
    is never paired again (SCORING.md §3). Raises "invalid_round_number"."""
    entry = Entry.objects.select_for_update(no_key=True).get(pk=entry.pk)
    if not 0 <= int(after_round) <= 99:
        raise DomainError("invalid_round_number")
    entry.dropped_after_round = int(after_round)
    _audit(entry, acting_user).save()
    return entry


@transaction.atomic
def undrop_entry(*, acting_user, entry: Entry) -> Entry:
    """Take back a drop: the entry is paired again from the next round."""
    entry = Entry.objects.select_for_update(no_key=True).get(pk=entry.pk)
    entry.dropped_after_round = None
    _audit(entry, acting_user).save()
    return entry


@transaction.atomic
def delete_result(*, acting_user, table: Table, version: int | None) -> None:
    """Remove a table's result, dominó or match (kept in history).
    Raises "stale_version", "round_closed", "no_result"."""
    tbl = _lock_table(table)
    if tbl.round.closed:
        raise DomainError("round_closed", number=tbl.round.number)
    if version is not None and int(version) != tbl.version:
        raise DomainError("stale_version", table=tbl.number)
    result = tbl.any_result
    if result is None:
        raise DomainError("no_result", table=tbl.number)
    if isinstance(result, TableResult):
        for seat in tbl.seats.exclude(vp=None):
            seat.vp = None
            _audit(seat, acting_user).save(update_fields=["vp"])
    _audit(result, acting_user).delete()
    bump_version(tbl, acting_user)
    _after_commit([tbl.pk])


# --- castigos and sorteos ----------------------------------------------------------------------


@transaction.atomic
def add_castigo(
    *, acting_user, tournament: Tournament, player: Player, tantos, reason: str,
    round: Round | None = None,
) -> Castigo:
    """Charge a castigo of ``tantos`` (a positive whole number) to a player of the tournament.

    It lowers the efectividad of the player's entry (SCORING.md §1, Castigos). Raises
    DomainError "castigo_tantos", "castigo_reason", "player_not_entered", "round_closed",
    "foreign_round".
    """
    try:
        n = _parse_int(tantos, "castigo")
    except ResultError as exc:
        raise DomainError("castigo_tantos") from exc
    if not 1 <= n <= MAX_SCORE:
        raise DomainError("castigo_tantos")
    reason = _clean_name(reason, field=gettext_noop("motivo"), max_length=200)
    t = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
    if not (t.entries.filter(player1=player).exists() or t.entries.filter(player2=player).exists()):
        raise DomainError("player_not_entered", name=player.full_name)
    if round is not None:
        if round.tournament_id != t.pk:
            raise DomainError("foreign_round")
        if Round.objects.get(pk=round.pk).closed:
            raise DomainError("round_closed", number=round.number)
    castigo = Castigo(tournament=t, round=round, player=player, tantos=n, reason=reason,
                      entered_by=acting_user if getattr(acting_user, "is_authenticated", False) else None)
    _audit(castigo, acting_user).save()
    return castigo


@transaction.atomic
def remove_castigo(*, acting_user, castigo: Castigo) -> None:
    """Delete a castigo (the deletion stays in its history). Raises "round_closed" if its round is closed."""
    castigo = Castigo.objects.select_for_update(no_key=True, of=("self",)).select_related("round").get(pk=castigo.pk)
    if castigo.round is not None and castigo.round.closed:
        raise DomainError("round_closed", number=castigo.round.number)
    _audit(castigo, acting_user).delete()


@transaction.atomic
def record_sorteo(*, acting_user, tournament: Tournament, entries_in_order: Sequence[Entry]) -> list[Sorteo]:
    """Record a draw of lots: ``entries_in_order`` ranks the given tied entries, first = best.

    Replaces any earlier lot of those entries. Raises "sorteo_too_few", "foreign_entry", "entry_twice".
    """
    t = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
    entries = list(entries_in_order)
    if len(entries) < 2:
        raise DomainError("sorteo_too_few")
    if len({e.pk for e in entries}) != len(entries):
        raise DomainError("entry_twice", name="")
    for e in entries:
        if e.tournament_id != t.pk:
            raise DomainError("foreign_entry", name=e.name)
    for old in Sorteo.objects.filter(tournament=t, entry__in=entries):
        _audit(old, acting_user).delete()  # one by one: the history names the acting user
    rows = []
    for lot, e in enumerate(entries, start=1):
        s = Sorteo(tournament=t, entry=e, lot=lot, recorded_by=acting_user if getattr(acting_user, "is_authenticated", False) else None)
        _audit(s, acting_user).save()
        rows.append(s)
    return rows


@dataclass
class ImportReport:
    """What an import did: counts of results created, changed and left unchanged.

    ``warnings``: sentences in Spanish for people, e.g. a player the import created whose name
    equals an existing player's after NFC and case folding (``similar_players``); the import
    still went through (names are matched exactly).
    """

    created: int = 0
    changed: int = 0
    unchanged: int = 0
    byes: int = 0
    players_created: int = 0
    entries_created: int = 0
    warnings: list[str] = field(default_factory=list)


__all__ = [
    "IntegrityError", "ImportReport", "add_castigo", "close_round", "create_player",
    "create_tournament", "delete_player", "delete_result", "generate_round_robin",
    "record_result", "record_sorteo", "register_entry", "remove_castigo", "reopen_round",
    "results_changed", "set_pairings", "set_player_active", "similar_players", "update_player",
    "update_tournament",
]
