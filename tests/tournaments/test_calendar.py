"""The calendar (issue "calendar and archive"): a tournament's start time in its settings and
on its page, ``/calendario/`` by month, the iCalendar feed ``/calendario.ics`` read back with
the ``icalendar`` library, and the archive of ``/torneos/`` by year and system."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo

import icalendar
import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests import builders
from tournaments import calendar, services
from tournaments.errors import DomainError
from tournaments.forms import TournamentForm
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def events(client) -> dict[str, icalendar.Event]:
    response = client.get(reverse("public:calendar_ics"))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    cal = icalendar.Calendar.from_ical(response.content)
    assert cal["VERSION"] == "2.0"
    return {str(ev["SUMMARY"]): ev for ev in cal.walk("VEVENT")}


# --- the start time ------------------------------------------------------------------------------


def test_the_start_time_is_a_setting_of_the_services_the_form_and_the_admin():
    t = builders.tournament(
        name="Copa Hora", date=dt.date(2030, 5, 4), status="registration", start_time="19:30"
    )
    assert Tournament.objects.get(pk=t.pk).start_time == dt.time(19, 30)
    services.update_tournament(acting_user=None, tournament=t, start_time=dt.time(10, 0))
    assert Tournament.objects.get(pk=t.pk).start_time == dt.time(10, 0)
    services.update_tournament(acting_user=None, tournament=t, start_time=None)
    assert Tournament.objects.get(pk=t.pk).start_time is None
    with pytest.raises(DomainError) as refused:
        services.update_tournament(acting_user=None, tournament=t, start_time="25:99")
    assert refused.value.code == "invalid_start_time"
    for system in ("domino", "swiss", "table"):
        assert "start_time" in TournamentForm(initial={"system": system}).fields
    assert TournamentForm(instance=t)["start_time"].field.widget.input_type == "time"
    from tournaments.admin.tournaments import TournamentAdminForm

    assert "start_time" in TournamentAdminForm._meta.fields


def test_the_settings_page_saves_the_start_time(director, director_client):
    t = services.create_tournament(
        acting_user=director, name="Copa Ajustes", date=dt.date(2030, 5, 4), venue="Casino"
    )
    form = TournamentForm(instance=t)
    data = {name: form[name].value() for name in form.fields if name != "directors"}
    data = {k: v for k, v in data.items() if v is not None and v is not False}
    data["directors"] = [director.pk]
    data["start_time"] = "18:45"
    url = reverse("manage:tournament_edit", args=[t.slug])
    response = director_client.post(url, data)
    assert response.status_code == 302, response.context["form"].errors
    assert Tournament.objects.get(pk=t.pk).start_time == dt.time(18, 45)
    page = director_client.get(url).content.decode()
    assert 'type="time" name="start_time" value="18:45"' in page
    bad = director_client.post(url, {**data, "start_time": "a las siete"})
    assert bad.status_code == 400 and "start_time" in bad.context["form"].errors


def test_the_public_page_shows_date_start_time_and_venue(client):
    t = builders.tournament(
        name="Copa Noche",
        date=dt.date(2030, 5, 4),
        status="registration",
        start_time="19:30",
        venue="Casino del Puerto",
    )
    body = client.get(reverse("public:tournament", args=[t.slug])).content.decode()
    assert re.search(r'<p class="meta">4 de mayo de 2030 · a las 19:30 · Casino del Puerto', body)


# --- the calendar page ---------------------------------------------------------------------------


@pytest.fixture
def season(monkeypatch):
    """Today is 2030-05-20: tournaments in May (one running since April, one today, one next
    week at 19:30), June, October (the sixth month) and November (the seventh: out of the page),
    one over last week, a draft in May, a Swiss in June."""
    monkeypatch.setattr(timezone, "localdate", lambda *a, **k: dt.date(2030, 5, 20))
    made = {
        "running": builders.tournament(
            name="Liga de Primavera",
            date=dt.date(2030, 4, 28),
            status="running",
            end_date=dt.date(2030, 5, 25),
        ),
        "today": builders.tournament(
            name="Copa de Hoy", date=dt.date(2030, 5, 20), status="registration", venue="Sala 1"
        ),
        "evening": builders.tournament(
            name="Noche de Dominó",
            date=dt.date(2030, 5, 27),
            status="registration",
            start_time="19:30",
            venue="Casino",
        ),
        "june": builders.tournament(
            name="Abierto de Junio", date=dt.date(2030, 6, 8), status="registration"
        ),
        "swiss": builders.tournament(
            name="Suizo de Junio",
            date=dt.date(2030, 6, 15),
            status="registration",
            system="swiss",
            mode="single",
        ),
        "october": builders.tournament(
            name="Copa de Otoño", date=dt.date(2030, 10, 31), status="registration"
        ),
        "november": builders.tournament(
            name="Copa de Noviembre", date=dt.date(2030, 11, 1), status="registration"
        ),
        "over": builders.tournament(
            name="Copa Pasada", date=dt.date(2030, 5, 12), status="finished"
        ),
        "old": builders.tournament(
            name="Copa del Año Pasado", date=dt.date(2029, 6, 1), status="finished"
        ),
        "ancient": builders.tournament(
            name="Copa Antigua", date=dt.date(2028, 3, 1), status="finished"
        ),
        "draft": builders.tournament(
            name="Borrador de Mayo", date=dt.date(2030, 5, 28), status="draft"
        ),
    }
    return made


def test_the_calendar_groups_the_coming_tournaments_by_month(client, season):
    months = calendar.coming_months()
    assert [(m.first_day, [t.name for t in m.tournaments]) for m in months] == [
        (
            dt.date(2030, 5, 1),
            ["Liga de Primavera", "Copa de Hoy", "Noche de Dominó"],
        ),
        (dt.date(2030, 6, 1), ["Abierto de Junio", "Suizo de Junio"]),
        (dt.date(2030, 10, 1), ["Copa de Otoño"]),
    ]
    body = client.get(reverse("public:calendar")).content.decode()
    heads = re.findall(r'<h2 id="month-[\d-]+">([^<]+)</h2>', body)
    assert heads == ["Mayo de 2030", "Junio de 2030", "Octubre de 2030"]
    assert "Borrador" not in body and "Copa Pasada" not in body and "Noviembre" not in body
    assert "a las 19:30 · Casino" in body
    assert 'href="webcal://testserver/calendario.ics"' in body
    assert 'href="http://testserver/calendario.ics"' in body


def test_the_calendar_page_and_the_feed_take_one_query_whatever_the_number(client, season):
    def count(name):
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(reverse(name)).status_code == 200
        return len(ctx.captured_queries)

    few = count("public:calendar"), count("public:calendar_ics")
    for i in range(20):
        builders.tournament(
            name=f"Extra {i}",
            date=dt.date(2030, 6 + i % 4, 1 + i),
            status="registration",
            start_time="10:00",
        )
    assert (count("public:calendar"), count("public:calendar_ics")) == few == (1, 1)


def test_the_calendar_says_so_when_nothing_is_announced(client):
    body = client.get(reverse("public:calendar")).content.decode()
    assert "No hay torneos anunciados para los próximos 6 meses." in body


# --- the feed ------------------------------------------------------------------------------------


def test_the_feed_has_one_event_per_published_tournament_of_the_last_60_days_and_to_come(
    client, season
):
    found = events(client)
    assert sorted(found) == sorted(
        t.name for key, t in season.items() if key not in ("draft", "ancient", "old")
    )
    for t in season.values():
        if t.name in found:
            assert str(found[t.name]["UID"]) == f"torneo-{t.pk}@testserver"


def test_an_event_with_a_start_time_is_in_the_clubs_time_zone(client, season):
    ev = events(client)["Noche de Dominó"]
    assert ev["DTSTART"].params["TZID"] == settings.TIME_ZONE
    start = ev.decoded("DTSTART")
    zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    assert start == dt.datetime(2030, 5, 27, 19, 30, tzinfo=zone)
    assert ev.decoded("DTEND") == dt.datetime(2030, 5, 28, 0, 0, tzinfo=zone)
    assert str(ev["LOCATION"]) == "Casino"
    assert str(ev["URL"]) == f"http://testserver/torneos/{season['evening'].slug}/"
    assert "Parejas fijas a 100" in str(ev["DESCRIPTION"])
    raw = client.get(reverse("public:calendar_ics")).content.decode()
    assert "BEGIN:VTIMEZONE" in raw and f"TZID:{settings.TIME_ZONE}" in raw
    assert "\r\n" in raw


def test_an_event_without_a_start_time_takes_whole_days(client, season):
    found = events(client)
    running = found["Liga de Primavera"]
    assert running["DTSTART"].params.get("VALUE") == "DATE"
    assert running.decoded("DTSTART") == dt.date(2030, 4, 28)
    assert running.decoded("DTEND") == dt.date(2030, 5, 26)  # the day after the last
    today = found["Copa de Hoy"]
    assert (today.decoded("DTSTART"), today.decoded("DTEND")) == (
        dt.date(2030, 5, 20),
        dt.date(2030, 5, 21),
    )
    assert str(today["LOCATION"]) == "Sala 1"
    assert "LOCATION" not in found["Abierto de Junio"]
    assert "Suizo" in str(found["Suizo de Junio"]["DESCRIPTION"])


def test_a_change_keeps_the_uid_and_raises_the_sequence(client, season):
    t = season["june"]
    before = events(client)["Abierto de Junio"]
    # made ten minutes ago: the change below comes ten minutes after its creation
    Tournament.objects.filter(pk=t.pk).update(created_at=t.created_at - dt.timedelta(minutes=10))
    services.update_tournament(
        acting_user=None, tournament=Tournament.objects.get(pk=t.pk), name="Abierto de Junio II"
    )
    after = events(client)["Abierto de Junio II"]
    assert str(after["UID"]) == str(before["UID"])
    assert int(after["SEQUENCE"]) > int(before["SEQUENCE"])
    assert after.decoded("LAST-MODIFIED") >= before.decoded("LAST-MODIFIED")
    assert after.decoded("DTSTAMP") == after.decoded("LAST-MODIFIED")


@pytest.mark.page_cache
@pytest.mark.django_db(transaction=True)  # real commits: they draw the new generations
def test_the_feed_follows_a_change_through_the_page_cache(client, season):
    assert "Noche de Dominó" in events(client)
    first = client.get(reverse("public:calendar_ics"))
    # a subscriber that has the feed: 304, no body (the page cache's ETag)
    again = client.get(reverse("public:calendar_ics"), HTTP_IF_NONE_MATCH=first["ETag"])
    assert (again.status_code, again.content, again["ETag"]) == (304, b"", first["ETag"])
    t = Tournament.objects.get(pk=season["evening"].pk)
    services.update_tournament(acting_user=None, tournament=t, start_time=dt.time(20, 15))
    changed = client.get(reverse("public:calendar_ics"), HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    assert changed["Content-Type"] == "text/calendar; charset=utf-8"
    ev = events(client)["Noche de Dominó"]
    assert ev.decoded("DTSTART").time() == dt.time(20, 15)


def test_the_feed_speaks_the_readers_language(client, season):
    raw = client.get(reverse("public:calendar_ics"), HTTP_ACCEPT_LANGUAGE="en").content
    cal = icalendar.Calendar.from_ical(raw)
    assert len(cal.walk("VEVENT")) == 8


def test_the_feed_holds_at_most_its_cap_the_coming_tournaments_first(client, season, monkeypatch):
    """A window of fixed size whatever the club's history: 60 days back, at most
    ``FEED_MAX_EVENTS`` events (here 5): the coming ones, soonest first, then the latest past
    ones; in date order in the feed."""
    builders.tournament(name="Copa Reciente", date=dt.date(2030, 5, 18), status="finished")
    builders.tournament(name="Copa de Marzo", date=dt.date(2030, 3, 21), status="finished")
    builders.tournament(name="Copa de Febrero", date=dt.date(2030, 3, 20), status="finished")
    assert [t.name for t in calendar.feed_tournaments(limit=10)] == [
        "Copa de Marzo",  # 60 days back; the 20th of March is 61
        "Liga de Primavera",  # running since April: a coming one
        "Copa Pasada",
        "Copa Reciente",
        "Copa de Hoy",
        "Noche de Dominó",
        "Abierto de Junio",
        "Suizo de Junio",
        "Copa de Otoño",
        "Copa de Noviembre",
    ]
    # fewer: the seven coming ones, then the latest past one
    assert [t.name for t in calendar.feed_tournaments(limit=8)] == [
        "Liga de Primavera",
        "Copa Reciente",
        "Copa de Hoy",
        "Noche de Dominó",
        "Abierto de Junio",
        "Suizo de Junio",
        "Copa de Otoño",
        "Copa de Noviembre",
    ]
    monkeypatch.setattr(calendar, "FEED_MAX_EVENTS", 5)
    monkeypatch.setattr(calendar.feed_tournaments, "__kwdefaults__", {"limit": 5})
    assert sorted(events(client)) == sorted(
        [
            "Liga de Primavera",
            "Copa de Hoy",
            "Noche de Dominó",
            "Abierto de Junio",
            "Suizo de Junio",
        ]
    )


# --- the archive ---------------------------------------------------------------------------------

LIST_ROW = re.compile(r'<th scope="row" class="name"><a href="/torneos/[^/]+/">([^<]+)</a>')


def test_the_archive_filters_by_year_and_system(client, season):
    def listing(**params):
        response = client.get(reverse("public:tournaments"), params)
        assert response.status_code == 200
        return response.content.decode()

    body = listing(year=2030)
    assert "Suizo de Junio" in LIST_ROW.findall(body) and "Copa de Hoy" in LIST_ROW.findall(body)
    # A link per system the club played, keeping the year; "all" first.
    assert '<nav class="years systems"' in body
    assert 'href="?year=2030&amp;system=swiss">Suizo (match play)</a>' in body or re.search(
        r'href="\?year=2030&amp;system=swiss">[^<]+</a>', body
    )
    swiss = listing(year=2030, system="swiss")
    assert LIST_ROW.findall(swiss) == ["Suizo de Junio"]
    assert "<h1>Torneos suizos 2030</h1>" in swiss
    dominó = listing(year=2030, system="domino")
    assert "Suizo de Junio" not in LIST_ROW.findall(dominó)
    assert "<h1>Torneos de dominó 2030</h1>" in dominó
    # The year links keep the system; a system that is not one lists every system.
    assert 'href="?year=2029&amp;system=domino"' in dominó
    assert LIST_ROW.findall(listing(year=2029, system="domino")) == ["Copa del Año Pasado"]
    everything = listing(year=2030, system="nada")
    assert "<h1>Torneos 2030</h1>" in everything
    assert LIST_ROW.findall(everything) == LIST_ROW.findall(body)
    assert 'href="/calendario/"' in body
