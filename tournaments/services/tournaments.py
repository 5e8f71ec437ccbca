"""Tournaments and their entries: create and change a tournament, its directors; register,
remove, drop and undrop entries."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Sequence

from django.db import transaction
from django.db.models import Max
from django.utils.text import slugify

from tournaments import events, systems, timing
from tournaments.errors import DomainError, gettext_noop
from tournaments.models import TOURNAMENT_SETTINGS, Entry, Player, Tournament
from tournaments.services.lifecycle import check_status_change
from tournaments.services.rounds import (
    last_round_played,
    return_to_rounds,
    withdraw_from_rounds,
)
from tournaments.writing import (
    audit,
    clean_name,
    entered_by,
    lock_entry,
    lock_tournament,
)


def _unique_slug(name: str, date: dt.date) -> str:
    """``copa-de-parejas-2026`` (``-2``, ``-3``… when taken): the name cut to 110 characters
    at most, never ending in a hyphen, and the year always kept."""
    base = f"{slugify(name)[:110].strip('-') or 'torneo'}-{date:%Y}"
    slug, n = base, 2
    while Tournament.objects.filter(slug=slug).exists():
        slug = f"{base}-{n}"
        n += 1
    return slug


def _with_start_time(settings: tuple[str, ...]) -> tuple[str, ...]:
    """``settings`` with ``start_time`` (the hour play starts, ``Tournament.start_time``) after
    ``venue``, unless it is there already: the settings forms and the services take it like
    any other setting; the model's ``TOURNAMENT_SETTINGS`` predates it."""
    if "start_time" in settings:
        return settings
    at = settings.index("venue") + 1
    return (*settings[:at], "start_time", *settings[at:])


#: The keyword arguments of create/update_tournament, in the order the settings forms show them.
TOURNAMENT_FIELDS = _with_start_time(TOURNAMENT_SETTINGS)


def _as_time(value):
    """A start time typed as text ("19:30", "19:30:00") becomes a time, "" none; anything
    else that is not a time is left for the settings check to refuse ("invalid_start_time")."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return dt.time.fromisoformat(text)
        except ValueError:
            return value
    return value


def _as_date(value):
    """A date typed as ISO text ("2025-03-01") becomes a date; anything else is left for
    ``timing.check_dates`` to refuse."""
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()) if value.strip() else None
        except ValueError:
            return value
    return value


#: The field of the tournament form (the directors' settings page, the admin) each refusal of
#: these services is about: a form shows the message beside it. Codes not listed are about
#: the tournament as a whole.
ERROR_FIELDS = {
    "name_required": "name",
    "name_too_long": "name",
    "name_control_chars": "name",
    "date_out_of_range": "date",
    "end_date_before_date": "end_date",
    "tournament_too_long": "end_date",
    "games_outside_dates": "end_date",
    "games_would_leave_dates": "date",
    "invalid_target": "target",
    "target_locked": "target",
    "invalid_system": "system",
    "invalid_mode": "mode",
    "mode_locked": "mode",
    "mode_not_for_system": "mode",
    "invalid_bye_rule": "bye_rule",
    "invalid_status": "status",
    "open_rounds": "status",
    "step_not_allowed": "status",
    "step_needs_reason": "reason",
    "too_few_entries_to_start": "status",
    "no_rounds_yet": "status",
    "rounds_already_played": "status",
    "invalid_best_of": "best_of",
    "best_of_locked": "best_of",
    "invalid_rounds": "rounds_planned",
    "rounds_below_played": "rounds_planned",
    "invalid_time_limit": "time_limit",
    "invalid_start_time": "start_time",
    "time_limit_locked": "time_limit",
    "invalid_forfeit_score": "forfeit_winner_tantos",
    "forfeit_score_locked": "forfeit_winner_tantos",
    "director_not_staff": "directors",
    "director_self_removal": "directors",
}

#: The settings a scoring system's ``check_settings`` reads (the result a forfeit records,
#: against the target; the games of a match): it is not asked while one of them is refused
#: (its answer would be about a value that will not be stored).
_SCORING_SETTINGS = ("system", "target", "best_of", "forfeit_winner_tantos", "forfeit_loser_tantos")


def _setting_problems(t: Tournament, skip: Collection[str] = ()) -> list[DomainError]:
    """Every rule of a tournament's settings broken by ``t``, in the order the services check
    them, each check on its own: one that reads a setting in ``skip`` (refused already) or
    refused by an earlier check is left out. ``t`` is normalized in place as it would be
    stored (name cleaned, ISO dates as dates, a last day equal to the first dropped).
    Reads nothing from the database."""
    problems: list[DomainError] = []
    refused = set(skip)

    def check(reads: tuple[str, ...], rule) -> None:
        if refused.intersection(reads):
            return
        try:
            rule()
        except DomainError as exc:
            problems.append(exc)
            refused.update(reads)

    def name():
        t.name = clean_name(t.name, field=gettext_noop("nombre"))

    def one_of(code, value, allowed, **params):
        def rule():
            if value not in allowed:
                raise DomainError(code, **params)

        return rule

    def mode_for_system():
        system = systems.of(t)
        if t.mode not in system.modes:
            modes = ", ".join(
                str(label) for key, label in Tournament.Mode.choices if key in system.modes
            )
            raise DomainError("mode_not_for_system", system=system.label, modes=modes)

    def best_of():
        if int(t.best_of) not in (1, 3, 5):
            raise DomainError("invalid_best_of", best_of=t.best_of)

    def rounds():
        if not 1 <= int(t.rounds_planned) <= 99:
            raise DomainError("invalid_rounds")

    def time_limit():
        if t.time_limit is not None and not 1 <= int(t.time_limit) <= 600:
            raise DomainError("invalid_time_limit")

    def start_time():
        t.start_time = _as_time(t.start_time)
        if t.start_time is not None and (
            not isinstance(t.start_time, dt.time) or t.start_time.tzinfo is not None
        ):
            raise DomainError("invalid_start_time", value=t.start_time)

    check(("name",), name)
    if not refused.intersection(("date", "end_date")):
        t.date, t.end_date = _as_date(t.date), _as_date(t.end_date) or None
        if t.end_date == t.date:
            t.end_date = None  # a one-day tournament
    check(("date", "end_date"), lambda: timing.check_dates(t.date, t.end_date))
    check(("target",), one_of("invalid_target", t.target, (100, 200), target=t.target))
    check(("system",), one_of("invalid_system", t.system, systems.keys(), system=t.system))
    check(("mode",), one_of("invalid_mode", t.mode, Tournament.Mode.values, mode=t.mode))
    check(
        ("bye_rule",),
        one_of("invalid_bye_rule", t.bye_rule, Tournament.ByeRule.values, bye_rule=t.bye_rule),
    )
    check(
        ("status",), one_of("invalid_status", t.status, Tournament.Status.values, status=t.status)
    )
    check(("system", "mode"), mode_for_system)
    check(("best_of",), best_of)
    check(("rounds_planned",), rounds)
    check(("time_limit",), time_limit)
    check(("start_time",), start_time)
    check(_SCORING_SETTINGS, lambda: systems.of(t).check_settings(t))
    return problems


def _check_tournament(t: Tournament) -> None:
    """Refuse ``t``'s settings at the first rule broken (``_setting_problems``)."""
    problems = _setting_problems(t)
    if problems:
        raise problems[0]


def _apply_changes(t: Tournament, fields: dict, skip: Collection[str] = ()) -> list[DomainError]:
    """Set ``fields`` on ``t`` (the tournament as stored), one by one, and return the refusals
    of those changes: the system or mode of a tournament with entries ("mode_locked"), a
    setting its stored results were checked against (``ScoringSystem.check_change``), fewer
    rounds than those paired ("rounds_below_played"). A key in ``skip`` is set unchecked.
    Raises TypeError for a key that is not a setting."""
    has_entries = t.entries.exists()
    system = systems.of(t)
    problems: list[DomainError] = []
    for key, value in fields.items():
        if key not in TOURNAMENT_FIELDS:
            raise TypeError(f"unknown tournament field: {key}")
        try:
            if key in skip:
                pass
            elif key in ("mode", "system") and has_entries and getattr(t, key) != value:
                raise DomainError("mode_locked")
            elif getattr(t, key) != value:
                system.check_change(t, key, value)
            if key == "rounds_planned" and str(value).isdigit() and 1 <= int(value) <= 99:
                played = t.rounds.aggregate(last=Max("number"))["last"] or 0
                if int(value) < played and key not in skip:
                    raise DomainError("rounds_below_played", rounds=played)
        except DomainError as exc:
            problems.append(exc)
        setattr(t, key, value)
    return problems


def settings_problems(
    *, tournament: Tournament | None = None, skip: Collection[str] = (), **fields
) -> list[DomainError]:
    """Every refusal ``create_tournament`` (``tournament`` None) or ``update_tournament`` (of
    ``tournament``) would make of the settings ``fields`` (``TOURNAMENT_FIELDS`` keywords),
    all at once, so that a form shows every problem after one submit; each its own
    ``DomainError`` (``ERROR_FIELDS`` names the setting it is about). ``skip``: settings
    the form refused already (their rules are not checked, nor those reading them). Reads
    only; ``tournament`` itself is left as it is. Not checked here (the save still refuses
    them): the games moving out of the new dates, the directors, a finish with open rounds.
    Raises TypeError for a key that is not a setting."""
    skip = set(skip)
    if tournament is None:
        unknown = set(fields) - set(TOURNAMENT_FIELDS)
        if unknown:
            raise TypeError(f"unknown tournament fields: {sorted(unknown)}")
        if "mode" not in fields and fields.get("system") in systems.keys():
            fields["mode"] = systems.get(fields["system"]).modes[0]
        t = Tournament(**fields)
        problems = []
    else:
        t = Tournament.objects.get(pk=tournament.pk)
        problems = _apply_changes(t, fields, skip)
        skip.update(ERROR_FIELDS.get(exc.code, "") for exc in problems)
    return problems + _setting_problems(t, skip)


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
def update_tournament(
    *,
    acting_user,
    tournament: Tournament,
    open_rounds_ok: bool = False,
    reason: str = "",
    **fields,
) -> Tournament:
    """Change a tournament's settings. The mode and system cannot change once it has entries
    ("mode_locked"); a setting its stored results were validated against cannot change
    (``ScoringSystem.check_change``: the dominó target, time limit, forfeit score); the number
    of rounds cannot drop below the rounds already paired ("rounds_below_played"). A new
    date moves the games with it (``ScoringSystem.move_games``).

    Finishing it (``status`` "finished", from another status) while some round is still open
    is refused with DomainError "open_rounds" (``open_rounds_refusal``: the rounds, and the
    tables each still misses) unless ``open_rounds_ok``: the directors' settings page asks
    first and sends it once the director confirms; the admin shows the refusal beside the
    status (close the rounds there first, in the tournament's rounds); the commands and
    imports never finish a tournament with open rounds. The rounds stay as they are.

    Any other change of ``status`` is a step of the tournament's life too
    (``lifecycle.check_status_change``): "step_not_allowed" when no step leads there (the
    message names those that do), the step's guard, and "step_needs_reason" when the step
    needs a ``reason`` (kept in the history: reopening a finished tournament, going back to
    draft). Raises also every refusal of ``settings_problems`` (the first one)."""
    t = lock_tournament(tournament)
    old_status = t.status
    problems = _apply_changes(t, fields)
    if problems:
        raise problems[0]
    _check_tournament(t)
    check_status_change(t, old_status, t.status, reason=reason, confirmed=open_rounds_ok)
    if reason.strip() and old_status != t.status:
        t._change_reason = reason.strip()[:100]
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
    if len(players) != t.players_per_entry or len({p.pk for p in players}) != len(players):
        raise DomainError("entry_size", size=t.players_per_entry)
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
    The place it filled under the maximum is free again (``Tournament.entries_in_places``):
    ``events.place_freed`` moves the sign-ups' waiting list up before the tournament starts.
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
    events.place_freed.send(sender=None, tournament=entry.tournament, acting_user=acting_user)
    return entry


@transaction.atomic
def undrop_entry(*, acting_user, entry: Entry) -> Entry:
    """Take back a withdrawal (SCORING.md §5): the entry is paired again from the next round
    that has not begun. Rounds already made after its withdrawal: one that began stays as it
    is (the entry does not play it); in one not begun, a round robin gives the entry its
    scheduled table (or rest) back, otherwise the director pairs the round again
    (``rounds.return_to_rounds``).

    Returns the entry, with ``seat_changes`` (``rounds.SeatChange`` list; empty when it was
    not withdrawn). Before the tournament starts the entry takes a place under the maximum
    again (its own went to the waiting list when it withdrew): raises DomainError
    "undrop_full" when none is left (``Tournament.entries_in_places``; requests waiting for
    approval do not count: the director decides them afterwards)."""
    entry = lock_entry(entry)
    was = entry.dropped_after_round
    t = entry.tournament
    if (
        was is not None
        and t.status in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION)
        and t.max_entries is not None
        and t.entries_in_places().count() >= t.max_entries
    ):
        raise DomainError("undrop_full", name=entry.name, most=t.max_entries)
    entry.dropped_after_round = None
    audit(entry, acting_user).save()
    entry.seat_changes = []
    if was is not None:
        entry.seat_changes = return_to_rounds(
            acting_user=acting_user, t=entry.tournament, entry=entry, after_round=was
        )
    return entry
