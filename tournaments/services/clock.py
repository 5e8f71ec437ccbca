"""The round clock: the tournament's time limit counting down for one round (the public page
``/torneos/<slug>/reloj/``, the director's buttons on the round page).

What is stored, on the round (``Round.clock_*``): ``clock_running_since`` (when the clock was
last set going; None: it is not running), ``clock_elapsed`` (seconds run before that, pauses
included: the run time is ``clock_elapsed`` plus the time since ``clock_running_since``) and
``clock_added`` (whole seconds the director added, negative when taken away). The length of
the round is ``Tournament.time_limit`` minutes plus ``clock_added`` seconds. The server's time
is the truth: ``clock_state`` turns those fields and a moment into what every screen shows,
and a running clock's end (``ends_at``) does not depend on the moment it is asked, so every
screen counts down to the same instant.

The writers (``start_clock``, ``pause_clock``, ``resume_clock``, ``add_clock_time``,
``reset_clock``) lock the round (``lock_round``: tournament, then round), check, and save it
audited, in one transaction each. ``now`` (an aware datetime) may be given for tests; by
default it is ``timezone.now()``.
"""

from __future__ import annotations

import datetime as dt
import math

from django.db import transaction
from django.utils import timezone

from tournaments.errors import DomainError
from tournaments.models import Round
from tournaments.writing import audit, lock_round

#: The most seconds one "add" may add or take away (one hour).
MAX_CLOCK_STEP = 3600
#: The longest a round's clock may run, in hours (time limit plus what was added).
MAX_CLOCK_HOURS = 24

IDLE, RUNNING, PAUSED, OVER, NO_LIMIT = "idle", "running", "paused", "over", "no_limit"


def _total(rnd: Round) -> int | None:
    """The round's length in seconds (time limit plus what was added, never below 0), or None
    when the tournament has no time limit."""
    limit = rnd.tournament.time_limit
    if not limit:
        return None
    return max(0, limit * 60 + rnd.clock_added)


def _elapsed(rnd: Round, now: dt.datetime) -> float:
    """Seconds the clock has run at ``now``: before the last start, plus since it (if running;
    never negative, even if ``now`` is before the start)."""
    elapsed = rnd.clock_elapsed
    if rnd.clock_running_since is not None:
        elapsed += max(0.0, (now - rnd.clock_running_since).total_seconds())
    return elapsed


def clock_state(rnd: Round, now: dt.datetime) -> dict:
    """What the clock of ``rnd`` shows at ``now`` (an aware datetime). Pure: reads the round's
    fields and ``rnd.tournament.time_limit`` only (select the tournament with the round).

    Returns a dict:

    - ``status``: "idle" (never started), "running", "paused", "over" (no time left, running
      or not), or "no_limit" (the tournament has no time limit: the clock cannot start);
    - ``round``: the round's number; ``closed``: whether the round is closed;
    - ``total``: the round's length in seconds (time limit × 60 + ``clock_added``; None
      without a time limit); ``added``: the seconds added by the director;
    - ``elapsed``: seconds run (float);
    - ``remaining``: seconds left (float, ``total - elapsed``; 0 or less when over; None
      without a time limit);
    - ``ends_at``: when a running clock reaches zero (ISO 8601 with milliseconds), the same
      whatever ``now`` is; None unless running (a clock past zero still running gives the
      moment it reached zero).
    """
    total = _total(rnd)
    elapsed = _elapsed(rnd, now)
    running = rnd.clock_running_since is not None
    state = {
        "round": rnd.number,
        "closed": rnd.closed,
        "total": total,
        "added": rnd.clock_added,
        "elapsed": elapsed,
        "remaining": None,
        "ends_at": None,
    }
    if total is None:
        state["status"] = NO_LIMIT
        return state
    remaining = total - elapsed
    state["remaining"] = remaining
    if running:
        ends_at = rnd.clock_running_since + dt.timedelta(seconds=total - rnd.clock_elapsed)
        state["ends_at"] = ends_at.isoformat(timespec="milliseconds")
    if remaining <= 0:
        state["status"] = OVER
    elif running:
        state["status"] = RUNNING
    elif elapsed > 0:
        state["status"] = PAUSED
    else:
        state["status"] = IDLE
    return state


def shown_seconds(remaining: float | None) -> int | None:
    """The whole seconds a screen shows for ``remaining`` seconds left: rounded up (the clock
    shows 0:01 until the very end), never below 0; None stays None."""
    if remaining is None:
        return None
    return max(0, math.ceil(remaining - 1e-9))


def mm_ss(remaining: float | None) -> str:
    """``remaining`` seconds as the clock shows them, minutes and seconds rounded up
    (``shown_seconds``): 1500 → "25:00", 59.2 → "01:00", 0 or less → "00:00", 6300 →
    "105:00" (the minutes go past 99); None (no time limit) → "--:--"."""
    seconds = shown_seconds(remaining)
    if seconds is None:
        return "--:--"
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


# --- writers ------------------------------------------------------------------------------------


def _locked(round: Round) -> Round:
    """The round locked, checked open and with a time limit. Raises DomainError
    "round_closed", "clock_no_time_limit"."""
    rnd = lock_round(round)
    if rnd.closed:
        raise DomainError("round_closed", number=rnd.number)
    if not rnd.tournament.time_limit:
        raise DomainError("clock_no_time_limit")
    return rnd


def _settle(rnd: Round, now: dt.datetime) -> None:
    """Fold the run time up to ``now`` into ``clock_elapsed`` (a running clock restarts its
    count at ``now``), never past the round's length: a clock that ran past zero counts as
    exactly at zero, so time added afterwards counts from now."""
    elapsed = min(_elapsed(rnd, now), float(_total(rnd) or 0))
    rnd.clock_elapsed = elapsed
    if rnd.clock_running_since is not None:
        rnd.clock_running_since = now


@transaction.atomic
def start_clock(*, acting_user, round: Round, now: dt.datetime | None = None) -> Round:
    """Set the clock of ``round`` going from the full time limit. Returns the round.

    Raises DomainError "round_closed", "clock_no_time_limit", "clock_already_running",
    "clock_already_started" (paused: resume it instead; or reset it first)."""
    now = now or timezone.now()
    rnd = _locked(round)
    if rnd.clock_running_since is not None:
        raise DomainError("clock_already_running", number=rnd.number)
    if rnd.clock_elapsed > 0:
        raise DomainError("clock_already_started", number=rnd.number)
    rnd.clock_running_since = now
    audit(rnd, acting_user).save()
    return rnd


@transaction.atomic
def pause_clock(*, acting_user, round: Round, now: dt.datetime | None = None) -> Round:
    """Stop the clock of ``round``, keeping the time it ran (``clock_elapsed``, at most the
    round's length). Returns the round.

    Raises DomainError "round_closed", "clock_no_time_limit", "clock_not_running"."""
    now = now or timezone.now()
    rnd = _locked(round)
    if rnd.clock_running_since is None:
        raise DomainError("clock_not_running", number=rnd.number)
    _settle(rnd, now)
    rnd.clock_running_since = None
    audit(rnd, acting_user).save()
    return rnd


@transaction.atomic
def resume_clock(*, acting_user, round: Round, now: dt.datetime | None = None) -> Round:
    """Set a paused clock going again from where it stopped. Returns the round.

    Raises DomainError "round_closed", "clock_no_time_limit", "clock_already_running",
    "clock_not_started" (never started: start it instead)."""
    now = now or timezone.now()
    rnd = _locked(round)
    if rnd.clock_running_since is not None:
        raise DomainError("clock_already_running", number=rnd.number)
    if rnd.clock_elapsed <= 0:
        raise DomainError("clock_not_started", number=rnd.number)
    rnd.clock_running_since = now
    audit(rnd, acting_user).save()
    return rnd


@transaction.atomic
def add_clock_time(
    *, acting_user, round: Round, seconds: int, now: dt.datetime | None = None
) -> Round:
    """Add ``seconds`` (a whole number, 1 to ``MAX_CLOCK_STEP``; negative takes time away) to
    the round's clock, running, paused or not started. Returns the round.

    Time is never taken below zero left: taking more than what is left leaves exactly 0 (time
    is up). A clock that ran past zero counts from zero, so "+1 min" then gives one minute
    from now.

    Raises DomainError "round_closed", "clock_no_time_limit", "clock_bad_seconds" (not a whole
    number, 0, or above ``MAX_CLOCK_STEP`` either way), "clock_no_time_left" (taking time away
    from a clock with none left), "clock_too_long" (the round would last more than
    ``MAX_CLOCK_HOURS`` hours)."""
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int)
        or seconds == 0
        or abs(seconds) > MAX_CLOCK_STEP
    ):
        raise DomainError("clock_bad_seconds", value=seconds, max=MAX_CLOCK_STEP)
    now = now or timezone.now()
    rnd = _locked(round)
    _settle(rnd, now)
    total = _total(rnd)
    left = total - rnd.clock_elapsed
    if seconds < 0 and left <= 0:
        raise DomainError("clock_no_time_left", number=rnd.number)
    if total + seconds > MAX_CLOCK_HOURS * 3600:
        raise DomainError("clock_too_long", hours=MAX_CLOCK_HOURS)
    limit = rnd.tournament.time_limit * 60
    rnd.clock_added = max(rnd.clock_added + seconds, -limit)
    # Taking more than what is left: exactly zero left (the run time becomes the length).
    rnd.clock_elapsed = min(rnd.clock_elapsed, float(_total(rnd)))
    audit(rnd, acting_user).save()
    return rnd


@transaction.atomic
def reset_clock(*, acting_user, round: Round) -> Round:
    """Put the round's clock back as it was before starting: stopped, nothing run, nothing
    added. Returns the round. Raises DomainError "round_closed"."""
    rnd = lock_round(round)
    if rnd.closed:
        raise DomainError("round_closed", number=rnd.number)
    rnd.clock_running_since = None
    rnd.clock_elapsed = 0
    rnd.clock_added = 0
    audit(rnd, acting_user).save()
    return rnd
