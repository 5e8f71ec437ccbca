"""Dates and times of tournaments and games: the one window, and when a game was played if
nobody said. Pure (no database): the services, the CSV imports, the Django admin and
``rankings.ledger`` all call it, so they agree (docs/SCORING.md §2, "Dates and times").

The window:

- a tournament's ``date`` (its first day) lies between ``EARLIEST_DATE`` and ``LATEST_DATE``;
  a tournament played over several days gives its last day (``end_date``, at most
  ``MAX_DAYS`` days in all, never before ``date``);
- a game's time lies within its tournament's days, in the club's time zone: from 00:00 of the
  first day to ``NIGHT_END`` (06:00) of the day after the last day (a night session may run
  past midnight);
- a game entered without a time gets ``default_played_at``, which never leaves the first day.

The ranking orders games by the instant they were played (SCORING.md §2, "Order"), and a
ranking year is the calendar year of that instant in the club's time zone.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django.conf import settings

from tournaments.errors import DomainError

#: The first round of a tournament day starts at 10:00 local time.
FIRST_ROUND_AT = dt.time(10, 0)
#: Rounds 1–14 start an hour apart (10:00 … 23:00); later rounds 30 seconds apart after 23:00,
#: so that round 99, the last there can be, still starts on the first day (23:42:30).
HOURLY_ROUNDS = 14
LATE_ROUND_STEP = dt.timedelta(seconds=30)
#: The dates a tournament may have: a typing error ("0202", "20255") is refused, not stored.
EARLIEST_DATE = dt.date(1900, 1, 1)
LATEST_DATE = dt.date(2199, 12, 31)
#: The most days a tournament may last (``date`` to ``end_date``, both included).
MAX_DAYS = 31
#: Games of the last day may end past midnight, until this hour of the next day.
NIGHT_END = dt.time(6, 0)


def club_zone() -> dt.tzinfo:
    """The club's time zone (the ``TIME_ZONE`` setting), never the zone of the request."""
    return zoneinfo.ZoneInfo(settings.TIME_ZONE)


def check_dates(date, end_date=None) -> None:
    """Refuse a tournament's dates outside the window (module docstring).

    ``date``: the first day (a ``date``); ``end_date``: the last day or None (one day).
    Raises DomainError "date_out_of_range" (``date`` or ``end_date`` before
    ``EARLIEST_DATE`` or after ``LATEST_DATE``, or not a date), "end_date_before_date",
    "tournament_too_long" (more than ``MAX_DAYS`` days).
    """
    for day in [date] if end_date is None else [date, end_date]:
        if not isinstance(day, dt.date) or isinstance(day, dt.datetime):
            raise DomainError("date_out_of_range", value=str(day)[:20], **_range())
        if not EARLIEST_DATE <= day <= LATEST_DATE:
            raise DomainError("date_out_of_range", value=day.isoformat(), **_range())
    if end_date is not None:
        if end_date < date:
            raise DomainError("end_date_before_date", date=date.isoformat())
        if (end_date - date).days + 1 > MAX_DAYS:
            raise DomainError("tournament_too_long", days=MAX_DAYS)


def _range() -> dict:
    return {"first": EARLIEST_DATE.isoformat(), "last": LATEST_DATE.isoformat()}


def game_window(date: dt.date, end_date: dt.date | None = None) -> tuple[dt.datetime, dt.datetime]:
    """(start, end) of the times a game of a tournament may have: aware datetimes in the club's
    zone, start included, end excluded (module docstring). ``date``/``end_date`` as in
    ``check_dates`` (assumed valid)."""
    zone = club_zone()
    last = end_date or date
    start = dt.datetime.combine(date, dt.time(0, 0), tzinfo=zone)
    end = dt.datetime.combine(last + dt.timedelta(days=1), NIGHT_END, tzinfo=zone)
    return start, end


def check_played_at(played_at: dt.datetime, date: dt.date, end_date: dt.date | None = None):
    """Refuse a game time outside its tournament's window (``game_window``).

    ``played_at``: an aware datetime (a naive one is read in the club's zone). Returns it
    (aware). Raises DomainError "played_at_outside" naming the typed time and the window.
    """
    zone = club_zone()
    if played_at.tzinfo is None:
        played_at = played_at.replace(tzinfo=zone)
    start, end = game_window(date, end_date)
    try:
        inside = start <= played_at < end
    except OverflowError:  # a time at the edge of the calendar cannot be compared
        inside = False
    if not inside:
        last = end_date or date
        raise DomainError(
            "played_at_outside",
            value=format_moment(played_at),
            first=date.isoformat(),
            last=last.isoformat(),
        )
    return played_at


def format_moment(moment: dt.datetime) -> str:
    """``moment`` as "YYYY-MM-DD HH:MM" in the club's zone, for messages (as stored if it
    cannot be moved there: a time at the edge of the calendar)."""
    try:
        moment = moment.astimezone(club_zone())
    except (OverflowError, ValueError):
        pass
    return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d} {moment:%H:%M}"


def default_played_at(date: dt.date, round_number: int) -> dt.datetime:
    """When a game of round ``round_number`` (1–99) was played if nobody said: the
    tournament's first day ``date`` at 10:00 in the club's time zone plus one hour per round
    after the first up to round 14 (round 1 → 10:00, round 3 → 12:00, round 14 → 23:00), then
    30 seconds per round (round 15 → 23:00:30, round 99 → 23:42:30). An aware datetime, always
    on ``date``; later rounds are always later.

    The zone is the club's (``club_zone``), never the zone active in the request, so the same
    game always gets the same time and the same place in the ledger order (SCORING.md §2,
    "Order": date-time played, round, table).
    """
    start = dt.datetime.combine(date, FIRST_ROUND_AT, tzinfo=club_zone())
    hourly = min(round_number, HOURLY_ROUNDS) - 1
    late = max(round_number - HOURLY_ROUNDS, 0)
    return start + dt.timedelta(hours=hourly) + late * LATE_ROUND_STEP
