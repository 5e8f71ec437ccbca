"""The tournaments' calendar: the coming months on a page (``/calendario/``) and an iCalendar
feed (``/calendario.ics``, RFC 5545, written with the ``icalendar`` library) that a phone
subscribes to once.

The feed holds one event (VEVENT) per published tournament (drafts never) in a fixed window:
the coming ones and those of the last ``FEED_PAST_DAYS`` days, at most ``FEED_MAX_EVENTS`` of
them: the running and coming ones first, the soonest first, then the most recent past ones
(``feed_tournaments``). A subscribed calendar keeps an event only while the feed holds it: the
season past is on the site (``/torneos/?year=``), not in the feed. So the feed's size does not grow with the club's history or its
number of tournaments. A subscriber that already has the feed gets a 304 without a body: the
feed is a page of the page cache (``clubsite.pagecache``), whose ETag is the key of the
generations it was made from, answered to ``If-None-Match`` after one cache read. Each event:

- ``UID`` ``torneo-<pk>@<host>``: stable for the tournament whatever changes (name, slug,
  date), so a calendar updates the event instead of adding another;
- ``DTSTART``: with a start time (``Tournament.start_time``), that hour of the first day in the
  club's time zone (``settings.TIME_ZONE``, with ``TZID`` and its ``VTIMEZONE``), ``DTEND`` the
  midnight that ends the last day (the club records no end time); without one, an all-day event:
  ``DTSTART;VALUE=DATE`` the first day, ``DTEND`` the day after the last (exclusive, RFC 5545);
- ``SUMMARY`` the name, ``LOCATION`` the venue (when given), ``URL`` the public page,
  ``DESCRIPTION`` the system and mode in words, the status and the address;
- ``DTSTAMP`` and ``LAST-MODIFIED``: the tournament's last change (``updated_at``), and
  ``SEQUENCE`` the whole seconds from its creation to that change, so it grows with every change
  and a calendar that already holds the event takes the new version.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass

import icalendar
from django.conf import settings
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone
from django.utils.translation import gettext

from tournaments import systems
from tournaments.models import Tournament

#: How far back the feed goes: the tournaments begun (or still running) in the last 60 days.
FEED_PAST_DAYS = 60
#: The most events the feed holds (``feed_tournaments``: the coming ones first). About 0.6 ms
#: of icalendar each on the 2-core machine of docs/performance.md: 30 made a federation's feed
#: 5.2× a small club's (21 ms against 4 ms); 15 keep it within 3×.
FEED_MAX_EVENTS = 15
#: The months the calendar page shows: this one and the next five.
CALENDAR_MONTHS = 6
#: How often a subscribed calendar is asked to look again (RFC 7986 REFRESH-INTERVAL).
REFRESH_INTERVAL = dt.timedelta(hours=6)


def published():
    """The tournaments any visitor may see: every one but the drafts (a queryset,
    ``Tournament.objects.public``)."""
    return Tournament.objects.public()


def add_months(day: dt.date, months: int) -> dt.date:
    """The first day of the month ``months`` after ``day``'s month (``day`` any date)."""
    index = day.year * 12 + day.month - 1 + months
    return dt.date(index // 12, index % 12 + 1, 1)


@dataclass
class Month:
    """One month of the calendar page: its first day and its tournaments in date order."""

    first_day: dt.date
    tournaments: list


def coming_months(today: dt.date | None = None, months: int = CALENDAR_MONTHS) -> list[Month]:
    """The published tournaments not over yet (their last day is today or later) that begin
    before the end of the ``months``-th month from this one, by month of their first day, in
    date order; one begun in an earlier month and still running is under this month. Only the
    months that have a tournament. One query."""
    today = today or timezone.localdate()
    this_month = today.replace(day=1)
    until = add_months(today, months)
    found = (
        published()
        .filter(Q(end_date__gte=today) | Q(end_date__isnull=True, date__gte=today))
        .filter(date__lt=until)
        .order_by("date", "start_time", "name", "pk")
    )
    by_month: dict[dt.date, list] = {}
    for t in found:
        by_month.setdefault(max(t.date.replace(day=1), this_month), []).append(t)
    return [Month(first_day=day, tournaments=items) for day, items in sorted(by_month.items())]


def feed_tournaments(
    today: dt.date | None = None, *, limit: int = FEED_MAX_EVENTS
) -> list[Tournament]:
    """The tournaments of the feed, by date: published, begun ``FEED_PAST_DAYS`` ago or later
    (or ending then or later), at most ``limit``: those not over yet (their last day is today
    or later) first, the soonest first, then those over, the most recent first. One query."""
    today = today or timezone.localdate()
    since = today - dt.timedelta(days=FEED_PAST_DAYS)
    coming = Q(end_date__gte=today) | Q(end_date__isnull=True, date__gte=today)
    over = Case(When(coming, then=Value(0)), default=Value(1))
    found = (
        published()
        .filter(Q(date__gte=since) | Q(end_date__gte=since))
        .annotate(feed_over=over)
        .order_by(
            "feed_over",
            Case(When(coming, then=F("date"))).asc(),
            Case(When(~coming, then=F("date"))).desc(),
            "pk",
        )[:limit]
    )
    return sorted(found, key=lambda t: (t.date, t.start_time or dt.time(0), t.name, t.pk))


def sequence(t: Tournament) -> int:
    """``SEQUENCE`` of the tournament's event: whole seconds from its creation to its last
    change (0 for one never changed), so every change gives a larger number."""
    if t.created_at is None or t.updated_at is None:
        return 0
    return max(0, int((t.updated_at - t.created_at).total_seconds()))


def feed(tournaments, *, host: str, absolute_url) -> bytes:
    """The iCalendar text (bytes, CRLF lines) of ``tournaments``: one VEVENT each (see the
    module's docstring), the ``VTIMEZONE`` of the club's time zone when an event has a start
    time. ``host``: the site's host name, for the UIDs; ``absolute_url(path)``: the full
    address of a path. Words (calendar name, descriptions) in the active language."""

    zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    cal = icalendar.Calendar()
    cal.add("prodid", "-//Club//Calendario de torneos//ES")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    name = gettext("Torneos del club")
    cal.add("name", name)
    cal.add("x-wr-calname", name)
    cal.add("x-wr-timezone", settings.TIME_ZONE)
    cal.add("refresh-interval", REFRESH_INTERVAL, parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", icalendar.vDuration(REFRESH_INTERVAL).to_ical().decode())
    for t in tournaments:
        event = icalendar.Event()
        event.add("uid", f"torneo-{t.pk}@{host}")
        changed = (t.updated_at or timezone.now()).astimezone(dt.UTC)
        event.add("dtstamp", changed)
        event.add("last-modified", changed)
        event.add("sequence", sequence(t))
        last_day = t.end_date or t.date
        if t.start_time is not None:
            start = dt.datetime.combine(t.date, t.start_time, tzinfo=zone)
            end = dt.datetime.combine(last_day + dt.timedelta(days=1), dt.time(0), tzinfo=zone)
            event.add("dtstart", start)
            event.add("dtend", end)
        else:
            event.add("dtstart", t.date)
            event.add("dtend", last_day + dt.timedelta(days=1))
        event.add("summary", t.name)
        if t.venue:
            event.add("location", t.venue)
        url = absolute_url(t.get_absolute_url())
        event.add("url", url)
        event.add(
            "description",
            "\n".join(
                (systems.of(t).presentation.summary(t), str(t.get_status_display()), url),
            ),
        )
        event.add("status", "CONFIRMED")
        event.add("transp", "OPAQUE")
        cal.add_component(event)
    timed = [t for t in tournaments if t.start_time is not None]
    if timed:  # the zone's rules over the years of the events only (a short VTIMEZONE)
        first = min(t.date for t in timed)
        last = max(t.end_date or t.date for t in timed)
        cal.add_missing_timezones(
            first_date=dt.date(first.year - 1, 1, 1), last_date=dt.date(last.year + 2, 1, 1)
        )
    return cal.to_ical()
