"""The calendar: the coming months' tournaments (``/calendario/``) and their iCalendar feed
(``/calendario.ics``) to subscribe to from a phone (``tournaments.calendar``).

Both show what the lists show (each tournament's name, dates, start time, venue, system and
status): they change with the page cache's ``CLUB`` scope, which every save of a tournament
draws (``clubsite.pagecache``)."""

from __future__ import annotations

from django.http import HttpResponse
from django.http.request import split_domain_port
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from clubsite.pagecache import CLUB, public_page
from tournaments import calendar


def _feed_addresses(request) -> tuple[str, str]:
    """The feed's address as ``https``/``http`` (``request``'s scheme) and as ``webcal``
    (which a phone opens in its calendar app, to subscribe)."""
    url = request.build_absolute_uri(reverse("public:calendar_ics"))
    return url, "webcal://" + url.split("://", 1)[1]


@require_safe
@public_page(scopes=[CLUB])
def calendar_page(request):
    """The published tournaments of this month and the next five that are not over yet, by
    month (``calendar.coming_months``), each with its date, start time, venue and system, and
    the links to subscribe to the feed. One query."""
    url, webcal = _feed_addresses(request)
    return render(
        request,
        "tournaments/calendar.html",
        {
            "months": calendar.coming_months(),
            "feed_url": url,
            "webcal_url": webcal,
            "months_shown": calendar.CALENDAR_MONTHS,
        },
    )


@require_safe
@public_page(scopes=[CLUB])
def calendar_ics(request):
    """The iCalendar feed (``text/calendar``; ``calendar.feed``): one event per published
    tournament to come or of the last ``calendar.FEED_PAST_DAYS`` days, at most
    ``calendar.FEED_MAX_EVENTS`` (``calendar.feed_tournaments``). A subscriber that sends back
    the ETag (``If-None-Match``) gets a 304 while nothing changed (the page cache). One
    query."""
    body = calendar.feed(
        calendar.feed_tournaments(),
        host=split_domain_port(request.get_host())[0] or "localhost",
        absolute_url=request.build_absolute_uri,
    )
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="calendario.ics"'
    return response
