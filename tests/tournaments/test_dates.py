"""One window for every date and time (tournaments.timing; docs/SCORING.md §2, "Dates and
times"): tournament dates within a sane range, each game's time within its tournament's days,
default times that never leave the first day. Every path (services, the CSV import, the
Django admin) refuses the same way, in words, with nothing stored."""

import datetime as dt
import zoneinfo

import pytest
from django.conf import settings
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from tests import builders
from tournaments import services, timing
from tournaments.errors import DomainError
from tournaments.imports import RESULTS_HEADER, ImportRefused, import_domino_results
from tournaments.models import Result, Round, Tournament

LOCAL = zoneinfo.ZoneInfo(settings.TIME_ZONE)


# --- the pure window ---------------------------------------------------------------------------


@given(
    date=st.dates(min_value=timing.EARLIEST_DATE, max_value=timing.LATEST_DATE),
    number=st.integers(min_value=1, max_value=99),
)
def test_default_times_stay_on_the_first_day_and_keep_the_round_order(date, number):
    when = timing.default_played_at(date, number)
    assert when.astimezone(LOCAL).date() == date
    start, end = timing.game_window(date)
    assert start <= when < end
    if number > 1:
        assert timing.default_played_at(date, number - 1) < when


def test_default_times_by_round():
    day = dt.date(2026, 12, 31)
    times = [timing.default_played_at(day, n).astimezone(LOCAL).time() for n in (1, 14, 15, 99)]
    assert times == [dt.time(10, 0), dt.time(23, 0), dt.time(23, 0, 30), dt.time(23, 42, 30)]
    # a New Year's Eve tournament of 30 rounds stays in its year's ranking
    assert timing.default_played_at(day, 30).astimezone(LOCAL).year == 2026


@given(st.dates())
def test_a_date_is_accepted_exactly_inside_the_range(date):
    inside = timing.EARLIEST_DATE <= date <= timing.LATEST_DATE
    if inside:
        timing.check_dates(date)
    else:
        with pytest.raises(DomainError) as caught:
            timing.check_dates(date)
        assert caught.value.code == "date_out_of_range"


@given(
    date=st.dates(min_value=dt.date(1900, 2, 15), max_value=dt.date(2199, 11, 1)),
    days=st.integers(min_value=-40, max_value=60),
)
def test_the_last_day_comes_after_the_first_and_within_a_month(date, days):
    end = date + dt.timedelta(days=days)
    if days < 0:
        expected = "end_date_before_date"
    elif days + 1 > timing.MAX_DAYS:
        expected = "tournament_too_long"
    else:
        expected = None
    if expected is None:
        timing.check_dates(date, end)
    else:
        with pytest.raises(DomainError) as caught:
            timing.check_dates(date, end)
        assert caught.value.code == expected


@given(
    moment=st.datetimes(
        min_value=dt.datetime(1, 1, 2),
        max_value=dt.datetime(9999, 12, 30),
        timezones=st.just(dt.UTC),
    )
)
def test_a_game_time_is_accepted_exactly_within_the_tournaments_days(moment):
    first, last = dt.date(2026, 3, 14), dt.date(2026, 3, 15)
    start = dt.datetime(2026, 3, 14, 0, 0, tzinfo=LOCAL)
    end = dt.datetime(2026, 3, 16, 6, 0, tzinfo=LOCAL)
    if start <= moment < end:
        assert timing.check_played_at(moment, first, last) == moment
    else:
        with pytest.raises(DomainError) as caught:
            timing.check_played_at(moment, first, last)
        assert caught.value.code == "played_at_outside"


def test_the_window_edges():
    day = dt.date(2026, 3, 14)
    timing.check_played_at(dt.datetime(2026, 3, 14, 0, 0, tzinfo=LOCAL), day)
    timing.check_played_at(dt.datetime(2026, 3, 15, 5, 59, tzinfo=LOCAL), day)
    # SCORING.md §9: before 06:00 of the next day, to the second
    timing.check_played_at(dt.datetime(2026, 3, 15, 5, 59, 59, 999999, tzinfo=LOCAL), day)
    with pytest.raises(DomainError) as caught:
        timing.check_played_at(dt.datetime(2026, 3, 15, 6, 0, tzinfo=LOCAL), day)
    assert caught.value.message == (
        "La hora de la partida (2026-03-15 06:00) no cae en los días del torneo (2026-03-14 a "
        "2026-03-14, hasta las 06:00 del día siguiente). Corrige la fecha de la partida o, si "
        "el torneo dura varios días, indica su último día."
    )
    with pytest.raises(DomainError):
        timing.check_played_at(dt.datetime(2026, 3, 13, 23, 59, tzinfo=LOCAL), day)
    with pytest.raises(DomainError):  # the edges of the calendar never overflow
        timing.check_played_at(dt.datetime(1, 1, 1, tzinfo=dt.UTC), day)
    with pytest.raises(DomainError):
        timing.check_played_at(dt.datetime(9999, 12, 31, 23, 59, tzinfo=dt.UTC), day)


# --- the services ------------------------------------------------------------------------------


#: The tournament of these tests (a script's): a pairs dominó to 100 on 14 March 2026.
FECHAS = {"name": "Copa de Fechas", "date": dt.date(2026, 3, 14), "target": 100}


def _table(t):
    """Table 1 of round 1 of ``t``: two new pairs ("Fechas 1 1" & "Fechas 1 2" against
    "Fechas 2 1" & "Fechas 2 2")."""
    entries = [builders.new_entry(t, [f"Fechas {i} {k}" for k in (1, 2)]) for i in (1, 2)]
    return builders.pair(t, 1, [(entries[0], entries[1])]).tables.get()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("date", "end_date", "code"),
    [
        (dt.date(1, 1, 1), None, "date_out_of_range"),
        (dt.date(9999, 12, 31), None, "date_out_of_range"),
        (dt.date(2026, 3, 14), dt.date(2026, 3, 13), "end_date_before_date"),
        (dt.date(2026, 3, 14), dt.date(2026, 5, 14), "tournament_too_long"),
        ("0202-03-14", None, "date_out_of_range"),
    ],
)
def test_tournament_dates_outside_the_window_are_refused(date, end_date, code):
    with pytest.raises(DomainError) as caught:
        builders.tournament(FECHAS, date=date, end_date=end_date)
    assert caught.value.code == code
    assert not Tournament.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "moment",
    [
        dt.datetime(1, 1, 1, 10, 0, tzinfo=dt.UTC),
        dt.datetime(9999, 12, 31, 10, 0, tzinfo=dt.UTC),
        dt.datetime(2056, 3, 14, 18, 0, tzinfo=LOCAL),  # decades away: another year's ranking
        dt.datetime(2026, 3, 13, 22, 0, tzinfo=LOCAL),  # the day before
    ],
)
def test_a_result_at_a_time_outside_the_tournament_is_refused(moment):
    t = builders.tournament(FECHAS)
    table = _table(t)
    with pytest.raises(DomainError) as caught:
        services.record_result(
            acting_user=None, table=table, version=None, tantos_a=100, tantos_b=20, played_at=moment
        )
    assert caught.value.code == "played_at_outside"
    assert not Result.objects.exists()


@pytest.mark.django_db
def test_a_tournament_over_two_days_takes_games_of_its_second_night():
    t = builders.tournament(FECHAS, end_date=dt.date(2026, 3, 15))
    table = _table(t)
    moment = dt.datetime(2026, 3, 16, 1, 30, tzinfo=LOCAL)
    services.record_result(
        acting_user=None, table=table, version=None, tantos_a=100, tantos_b=20, played_at=moment
    )
    assert Result.objects.get().played_at == moment
    # its last day cannot move before that game any more
    with pytest.raises(DomainError) as caught:
        services.update_tournament(acting_user=None, tournament=t, end_date=None)
    assert caught.value.code == "games_outside_dates"
    assert "2026-03-16 01:30" in caught.value.message
    t.refresh_from_db()
    assert t.end_date == dt.date(2026, 3, 15)


@pytest.mark.django_db
def test_moving_the_date_moves_games_and_rounds_with_it():
    t = builders.tournament(FECHAS)
    table = _table(t)
    Round.objects.filter(pk=table.round_id).update(
        played_at=dt.datetime(2026, 3, 14, 17, 0, tzinfo=LOCAL)
    )
    services.record_result(acting_user=None, table=table, version=None, tantos_a=100, tantos_b=20)
    services.update_tournament(acting_user=None, tournament=t, date=dt.date(2026, 4, 4))
    assert Result.objects.get().played_at == dt.datetime(2026, 4, 4, 17, 0, tzinfo=LOCAL)
    assert Round.objects.get().played_at == dt.datetime(2026, 4, 4, 17, 0, tzinfo=LOCAL)


@pytest.mark.django_db
def test_a_round_of_a_new_years_eve_tournament_stays_in_its_year():
    t = builders.tournament(FECHAS, date=dt.date(2026, 12, 31), rounds_planned=30)
    table = _table(t)
    for number in range(2, 21):
        Round.objects.create(tournament=t, number=number)
    Round.objects.filter(pk=table.round_id).update(number=99)
    table.refresh_from_db()
    services.record_result(acting_user=None, table=table, version=None, tantos_a=100, tantos_b=20)
    assert Result.objects.get().played_at == dt.datetime(2026, 12, 31, 23, 42, 30, tzinfo=LOCAL)


# --- the CSV import and the admin --------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("moment", ["0001-01-01 10:00", "9999-12-31 23:00", "2060-03-14 18:00"])
def test_an_import_with_a_time_outside_the_tournament_is_refused_on_its_line(director, moment):
    t = builders.tournament(FECHAS, status="running")
    data = "\n".join(
        [
            ",".join(RESULTS_HEADER),
            "1,1,Ana Uno & Bea Dos,Cris Tres & Dani Cuatro,100,20,no,no,2026-03-14 18:00",
            f"1,2,Eva Cinco & Fede Seis,Gema Siete & Hugo Ocho,100,30,no,no,{moment}",
        ]
    )
    with pytest.raises(ImportRefused) as caught:
        import_domino_results(acting_user=director, tournament=t, data=data.encode())
    assert caught.value.codes == [(3, "played_at_outside")]
    assert not Result.objects.exists()


@pytest.mark.django_db
def test_the_admin_refuses_a_round_time_outside_the_tournament(admin_client):
    t = builders.tournament(FECHAS)
    table = _table(t)
    rnd = table.round
    response = admin_client.post(
        f"/admin/tournaments/round/{rnd.pk}/change/",
        {
            "tournament": t.pk,
            "number": 1,
            "played_at_0": "2031-03-14",
            "played_at_1": "18:00",
            "seed": "",
            "tables-TOTAL_FORMS": "0",
            "tables-INITIAL_FORMS": "0",
            "byes-TOTAL_FORMS": "0",
            "byes-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 200
    assert "no cae en los días del torneo" in response.content.decode()
    rnd.refresh_from_db()
    assert rnd.played_at is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"date": "0001-01-01"}, "debe estar entre 1900-01-01 y 2199-12-31"),
        ({"end_date": "2026-03-01"}, "no puede ser anterior a su primer día (2026-03-14)"),
        ({"end_date": "2026-06-30"}, "como mucho 31 días"),
    ],
)
def test_the_admin_refuses_tournament_dates_outside_the_window(admin_client, changes, fragment):
    t = builders.tournament(FECHAS)
    url = f"/admin/tournaments/tournament/{t.pk}/change/"
    page = admin_client.get(url)
    form = page.context["adminform"].form
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value is None or value is False:
            continue
        data[name] = "on" if value is True else value
    for inline in page.context["inline_admin_formsets"]:
        management = inline.formset.management_form
        for name in management.fields:
            data[management.add_prefix(name)] = management[name].value()
    data.update(changes)
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert fragment in response.content.decode()
    t.refresh_from_db()
    assert (t.date, t.end_date) == (dt.date(2026, 3, 14), None)


@pytest.mark.django_db
def test_moving_a_multi_day_tournament_names_the_game_that_would_fall_outside():
    t = builders.tournament(FECHAS, date=dt.date(2027, 3, 1), end_date=dt.date(2027, 3, 3))
    table = _table(t)
    services.record_result(
        acting_user=None,
        table=table,
        version=None,
        tantos_a=100,
        tantos_b=20,
        played_at=dt.datetime(2027, 3, 3, 20, 0, tzinfo=LOCAL),
    )
    with pytest.raises(DomainError) as caught:
        services.update_tournament(
            acting_user=None, tournament=t, date=dt.date(2027, 3, 2), end_date=dt.date(2027, 3, 3)
        )
    assert caught.value.code == "games_would_leave_dates"
    assert caught.value.message == (
        "Las partidas se mueven con la fecha del torneo: la del 2027-03-03 20:00 pasaría al "
        "2027-03-04 20:00, fuera de los días nuevos (2027-03-02 a 2027-03-03). Elige también "
        "el último día del torneo o corrige antes esa partida."
    )
    assert Result.objects.get().played_at == dt.datetime(2027, 3, 3, 20, 0, tzinfo=LOCAL)


@pytest.mark.django_db
def test_the_settings_page_says_the_games_moved_with_the_date(director, director_client):
    t = builders.tournament(FECHAS)
    t.directors.add(director)
    table = _table(t)
    services.record_result(acting_user=None, table=table, version=None, tantos_a=100, tantos_b=20)
    url = reverse("manage:tournament_edit", args=[t.slug])
    form = director_client.get(url).context["form"]
    data = {name: form[name].value() for name in form.fields if form[name].value() is not None}
    data = {k: ("on" if v is True else v) for k, v in data.items() if v is not False}
    data["date"] = "2026-04-04"
    response = director_client.post(url, data, follow=True)
    shown = [m.message for m in response.context["messages"]]
    assert any(m.startswith("Las partidas guardadas se movieron con la fecha") for m in shown), (
        shown
    )
    assert Result.objects.get().played_at.astimezone(LOCAL).date() == dt.date(2026, 4, 4)
