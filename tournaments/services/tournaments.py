"""Tournaments and their entries: create and change a tournament, its directors; register,
remove, drop and undrop entries."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence

from django.db import transaction
from django.db.models import Max
from django.utils.text import slugify

from tournaments import systems, timing
from tournaments.errors import DomainError, gettext_noop
from tournaments.models import TOURNAMENT_SETTINGS, Entry, Player, Tournament
from tournaments.services.common import (
    audit,
    clean_name,
    entered_by,
    lock_entry,
    lock_tournament,
)
from tournaments.services.rounds import (
    last_round_played,
    return_to_rounds,
    withdraw_from_rounds,
)


def _unique_slug(name: str, date: dt.date) -> str:
    base = slugify(f"{name}-{date:%Y}")[:120] or f"torneo-{date:%Y}"
    slug, n = base, 2
    while Tournament.objects.filter(slug=slug).exists():
        slug = f"{base}-{n}"
        n += 1
    return slug


TOURNAMENT_FIELDS = TOURNAMENT_SETTINGS  # the keyword arguments of create/update_tournament


def _as_date(value):
    """A date typed as ISO text ("2025-03-01") becomes a date; anything else is left for
    ``timing.check_dates`` to refuse."""
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()) if value.strip() else None
        except ValueError:
            return value
    return value


def _check_tournament(t: Tournament) -> None:
    t.name = clean_name(t.name, field=gettext_noop("nombre"))
    t.date, t.end_date = _as_date(t.date), _as_date(t.end_date) or None
    if t.end_date == t.date:
        t.end_date = None  # a one-day tournament
    timing.check_dates(t.date, t.end_date)
    if t.target not in (100, 200):
        raise DomainError("invalid_target", target=t.target)
    if t.system not in systems.keys():
        raise DomainError("invalid_system", system=t.system)
    system = systems.of(t)
    if t.mode not in Tournament.Mode.values:
        raise DomainError("invalid_mode", mode=t.mode)
    if t.bye_rule not in Tournament.ByeRule.values:
        raise DomainError("invalid_bye_rule", bye_rule=t.bye_rule)
    if t.status not in Tournament.Status.values:
        raise DomainError("invalid_status", status=t.status)
    if t.mode not in system.modes:
        modes = ", ".join(
            str(label) for key, label in Tournament.Mode.choices if key in system.modes
        )
        raise DomainError("mode_not_for_system", system=system.label, modes=modes)
    if int(t.best_of) not in (1, 3, 5):
        raise DomainError("invalid_best_of", best_of=t.best_of)
    if not 1 <= int(t.rounds_planned) <= 99:
        raise DomainError("invalid_rounds")
    if t.time_limit is not None and not 1 <= int(t.time_limit) <= 600:
        raise DomainError("invalid_time_limit")
    system.check_settings(t)


@transaction.atomic
def create_tournament(*, acting_user, **fields) -> Tournament:
    """Create a tournament from ``TOURNAMENT_FIELDS`` keyword values; returns it with a unique slug.

    Without ``mode`` the system's first (default) mode. Raises DomainError with codes
    "invalid_target", "invalid_system", "invalid_mode", "mode_not_for_system" (a mode the
    system does not accept), the system's own ("invalid_forfeit_score" ...).
    """
    unknown = set(fields) - set(TOURNAMENT_FIELDS)
    if unknown:
        raise TypeError(f"unknown tournament fields: {sorted(unknown)}")
    if "mode" not in fields and fields.get("system") in systems.keys():
        fields["mode"] = systems.get(fields["system"]).modes[0]  # the system's default mode
    t = Tournament(**fields)
    _check_tournament(t)
    t.slug = _unique_slug(t.name, t.date)
    audit(t, acting_user).save()
    if entered_by(acting_user) is not None:
        t.directors.add(acting_user)
    return t


@transaction.atomic
def update_tournament(*, acting_user, tournament: Tournament, **fields) -> Tournament:
    """Change a tournament's settings. The mode and system cannot change once it has entries
    ("mode_locked"); a setting its stored results were validated against cannot change
    (``ScoringSystem.check_change``: the dominó target, time limit, forfeit score); the number
    of rounds cannot drop below the rounds already paired ("rounds_below_played"). A new
    date moves the games with it (``ScoringSystem.move_games``)."""
    t = lock_tournament(tournament)
    has_entries = t.entries.exists()
    system = systems.of(t)
    for key, value in fields.items():
        if key not in TOURNAMENT_FIELDS:
            raise TypeError(f"unknown tournament field: {key}")
        if key in ("mode", "system") and has_entries and getattr(t, key) != value:
            raise DomainError("mode_locked")
        if getattr(t, key) != value:
            system.check_change(t, key, value)
        if key == "rounds_planned" and str(value).isdigit() and 1 <= int(value) <= 99:
            played = t.rounds.aggregate(last=Max("number"))["last"] or 0
            if int(value) < played:
                raise DomainError("rounds_below_played", rounds=played)
        setattr(t, key, value)
    _check_tournament(t)
    old_date = Tournament.objects.values_list("date", flat=True).get(pk=t.pk)
    audit(t, acting_user).save()
    shift = t.date - old_date
    if shift:
        systems.of(t).move_games(t, shift, acting_user=acting_user)
        for rnd in t.rounds.filter(played_at__isnull=False):
            rnd.played_at += shift
            audit(rnd, acting_user).save(update_fields=["played_at"])
    _check_game_times(t, shift)
    return t


def _check_game_times(t: Tournament, shift: dt.timedelta) -> None:
    """Every stored time of the tournament's games and rounds lies within its days
    (``timing.game_window``), after they moved by ``shift`` with its date. Raises DomainError
    "games_outside_dates" naming the first time outside as it was before the move, or
    "games_would_leave_dates" (a move of the date) naming it before and after."""
    start, end = timing.game_window(t.date, t.end_date)
    times = list(systems.of(t).game_times(t)) + list(
        t.rounds.filter(played_at__isnull=False).values_list("played_at", flat=True)
    )
    outside = sorted(m for m in times if not start <= m < end)
    if outside:
        raise DomainError(
            "games_would_leave_dates" if shift else "games_outside_dates",
            value=timing.format_moment(outside[0] - shift),
            moved=timing.format_moment(outside[0]),
            first=t.date.isoformat(),
            last=(t.end_date or t.date).isoformat(),
        )


@transaction.atomic
def set_tournament_directors(
    *, acting_user, tournament: Tournament, directors: Iterable
) -> Tournament:
    """Replace the users who direct ``tournament`` (``Tournament.directors``): they manage it,
    and only it (``permissions.can_manage``). The caller must be allowed to manage it.

    A user added must be active staff (those already listed may stay). A director who is not a
    superuser cannot remove themselves (they would lose the page they are on).
    Raises DomainError "director_not_staff", "director_self_removal".
    """
    t = lock_tournament(tournament)
    wanted = {u.pk: u for u in directors}
    current = set(t.directors.values_list("pk", flat=True))
    for pk, user in wanted.items():
        if pk not in current and not (user.is_staff and user.is_active):
            raise DomainError("director_not_staff", name=user.get_username())
    acting_pk = getattr(acting_user, "pk", None)
    if (
        acting_pk in current
        and acting_pk not in wanted
        and not getattr(acting_user, "is_superuser", False)
    ):
        raise DomainError("director_self_removal")
    if set(wanted) != current:
        t.directors.set(list(wanted.values()))
        # The director list has no history of its own (HistoricalRecords(m2m_fields=[])):
        # record who changed it as a change of the tournament.
        audit(t, acting_user).save(update_fields=["updated_at"])
    return t


def _entry_size(t: Tournament) -> int:
    return 2 if t.mode == Tournament.Mode.PAIRS else 1


@transaction.atomic
def register_entry(*, acting_user, tournament: Tournament, players: Sequence[Player]) -> Entry:
    """Register an entry: two players for a pairs tournament, one otherwise.

    Raises DomainError "entry_size" (wrong number of players), "player_already_entered",
    "player_inactive", "tournament_finished".
    """
    t = lock_tournament(tournament)
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
    entry = Entry(
        tournament=t, player1=players[0], player2=players[1] if len(players) > 1 else None
    )
    audit(entry, acting_user).save()
    return entry


@transaction.atomic
def remove_entry(*, acting_user, entry: Entry) -> None:
    """Remove an entry that has not played (seated or rested). Raises "entry_has_results" otherwise."""
    entry = lock_entry(entry)
    if entry.seats.exists() or entry.byes.exists():
        raise DomainError("entry_has_results", name=entry.name)
    audit(entry, acting_user).delete()


@transaction.atomic
def drop_entry(*, acting_user, entry: Entry, after_round: int | None = None) -> Entry:
    """Withdraw an entry ("retirada", SCORING.md §5): it keeps its results and stays in the
    standings, but is never seated or given a bye again.

    The withdrawal takes effect after the last round the entry has played
    (``rounds.last_round_played``: its table has a result, or its rest counts, or the round is
    closed with it in it), 0 if none; that is ``after_round`` when not given. A larger
    ``after_round`` (a round it has not played, maybe already published) still takes effect
    after the last round played. Rounds already made after it lose the entry
    (``rounds.withdraw_from_rounds``): its bye goes; its table goes and its opponent rests (a
    bye by the tournament's bye rule) in dominó pairs / mano a mano and Swiss, the others
    wait to be seated again with rotating partners, a table game of 4 plays on with 3.

    Returns the entry, with ``seat_changes`` (``rounds.SeatChange`` list) saying what changed
    and ``already_withdrawn`` (True: it was withdrawn before, nothing changed).
    Raises DomainError "invalid_round_number" (``after_round`` not 0–99),
    "drop_before_played" (``after_round`` before a round it has played).
    """
    entry = lock_entry(entry)
    entry.already_withdrawn = entry.dropped_after_round is not None
    if entry.already_withdrawn:  # a second copy of the same withdrawal: nothing to do
        entry.seat_changes = []
        return entry
    played = last_round_played(entry)
    if after_round is not None:
        if not 0 <= int(after_round) <= 99:
            raise DomainError("invalid_round_number")
        if int(after_round) < played:
            raise DomainError(
                "drop_before_played", name=entry.name, round=int(after_round), played=played
            )
    entry.dropped_after_round = played
    audit(entry, acting_user).save()
    entry.seat_changes = withdraw_from_rounds(
        acting_user=acting_user, t=entry.tournament, entry=entry, after_round=played
    )
    return entry


@transaction.atomic
def undrop_entry(*, acting_user, entry: Entry) -> Entry:
    """Take back a withdrawal (SCORING.md §5): the entry is paired again from the next round
    that has not begun. Rounds already made after its withdrawal: one that began stays as it
    is (the entry does not play it); in one not begun, a round robin gives the entry its
    scheduled table (or rest) back, otherwise the director pairs the round again
    (``rounds.return_to_rounds``).

    Returns the entry, with ``seat_changes`` (``rounds.SeatChange`` list; empty when it was
    not withdrawn)."""
    entry = lock_entry(entry)
    was = entry.dropped_after_round
    entry.dropped_after_round = None
    audit(entry, acting_user).save()
    entry.seat_changes = []
    if was is not None:
        entry.seat_changes = return_to_rounds(
            acting_user=acting_user, t=entry.tournament, entry=entry, after_round=was
        )
    return entry
