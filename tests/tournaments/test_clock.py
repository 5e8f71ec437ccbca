"""The round clock: its rule (``clock_state``, exact numbers at fixed moments), its services
(start, pause, resume, add or take away time, reset; each refusal's code), the public page and
its JSON state (never cached), and the director's buttons with and without JavaScript."""

import datetime as dt
import json
import re

import pytest
from django.urls import reverse

from tests import builders
from tests.helpers import offences
from tournaments import services
from tournaments.errors import MESSAGES, DomainError
from tournaments.models import Round, Tournament
from tournaments.services.clock import MAX_CLOCK_STEP, clock_state, mm_ss, shown_seconds

HTMX = {"HTTP_HX_REQUEST": "true"}
T0 = dt.datetime(2026, 9, 19, 18, 0, tzinfo=dt.UTC)


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def bare_round(time_limit=30, **clock) -> Round:
    """A round that is never saved (the rule reads fields only)."""
    return Round(tournament=Tournament(time_limit=time_limit), number=2, **clock)


# --- the rule: what the clock shows at a moment ------------------------------------------------


def test_a_clock_never_started_shows_the_whole_time_limit():
    state = clock_state(bare_round(), at(500))
    assert state == {
        "round": 2,
        "closed": False,
        "total": 1800,
        "added": 0,
        "elapsed": 0.0,
        "remaining": 1800.0,
        "ends_at": None,
        "status": "idle",
    }


def test_a_running_clock_counts_down_to_a_fixed_end():
    rnd = bare_round(clock_running_since=T0)
    state = clock_state(rnd, at(90))
    assert state["status"] == "running"
    assert state["remaining"] == 1710.0
    assert state["elapsed"] == 90.0
    assert state["ends_at"] == "2026-09-19T18:30:00.000+00:00"
    # The end does not depend on the moment asked: every screen counts to the same instant.
    assert clock_state(rnd, at(1.234))["ends_at"] == state["ends_at"]
    assert clock_state(rnd, at(0.25))["remaining"] == 1799.75


def test_a_paused_clock_keeps_what_it_ran():
    rnd = bare_round(clock_elapsed=600.5)
    for moment in (at(0), at(3600)):
        state = clock_state(rnd, moment)
        assert (state["status"], state["remaining"], state["ends_at"]) == ("paused", 1199.5, None)


def test_added_time_and_a_resumed_clock():
    rnd = bare_round(clock_running_since=at(400), clock_elapsed=300, clock_added=120)
    state = clock_state(rnd, at(460))
    assert state["total"] == 1920
    assert state["elapsed"] == 360.0
    assert state["remaining"] == 1560.0
    assert state["ends_at"] == "2026-09-19T18:33:40.000+00:00"  # 400 s + (1920 − 300) s


def test_time_is_up_at_zero_and_after():
    rnd = bare_round(clock_running_since=T0)
    assert clock_state(rnd, at(1799.9))["status"] == "running"
    exactly = clock_state(rnd, at(1800))
    assert (exactly["status"], exactly["remaining"]) == ("over", 0.0)
    later = clock_state(rnd, at(1801.5))
    assert (later["status"], later["remaining"]) == ("over", -1.5)
    assert later["ends_at"] == "2026-09-19T18:30:00.000+00:00"
    assert clock_state(bare_round(clock_elapsed=1800), at(0))["status"] == "over"


def test_without_a_time_limit_there_is_no_clock():
    state = clock_state(bare_round(time_limit=None), at(0))
    assert (state["status"], state["total"], state["remaining"]) == ("no_limit", None, None)


def test_the_clock_shows_whole_seconds_rounded_up():
    assert [shown_seconds(r) for r in (1710.0, 1709.01, 0.2, 0, -5, None)] == [
        1710,
        1710,
        1,
        0,
        0,
        None,
    ]
    assert mm_ss(1710.0) == "28:30"
    assert mm_ss(0.2) == "00:01"
    assert mm_ss(-3) == "00:00"
    assert mm_ss(6000) == "100:00"
    assert mm_ss(None) == "--:--"


# --- the services ------------------------------------------------------------------------------


def make_round(director, *, time_limit=30, name="Copa del Reloj"):
    """Round 1 of a new pairs dominó to 100 (two pairs, "<name> A. Ríos" ...), read again with
    its tournament."""
    t, (a, b) = builders.field(
        acting_user=director,
        name=name,
        date=dt.date(2026, 9, 19),
        mode="pairs",
        target=100,
        time_limit=time_limit,
        names=[f"{name} {c}. Ríos" for c in "ABCD"],
    )
    rnd = builders.pair(t, 1, [(a, b)], acting_user=director)
    return Round.objects.select_related("tournament").get(pk=rnd.pk)


@pytest.fixture
def rnd(director):
    return make_round(director)


def state(rnd, seconds):
    return clock_state(Round.objects.select_related("tournament").get(pk=rnd.pk), at(seconds))


def refused(code, call, **kwargs):
    with pytest.raises(DomainError) as caught:
        call(**kwargs)
    assert caught.value.code == code
    assert code in MESSAGES and "{" not in caught.value.message
    return caught.value


@pytest.mark.django_db
def test_start_pause_resume_with_exact_times(director, rnd):
    started = services.start_clock(acting_user=director, round=rnd, now=T0)
    assert started.clock_running_since == T0
    assert rnd.history.latest().history_user == director
    assert state(rnd, 100)["remaining"] == 1700.0
    services.pause_clock(acting_user=director, round=rnd, now=at(100))
    rnd.refresh_from_db()
    assert (rnd.clock_running_since, rnd.clock_elapsed) == (None, 100.0)
    assert state(rnd, 5000)["status"] == "paused"
    assert state(rnd, 5000)["remaining"] == 1700.0
    services.resume_clock(acting_user=director, round=rnd, now=at(400))
    resumed = state(rnd, 500)
    assert (resumed["status"], resumed["remaining"]) == ("running", 1600.0)
    assert resumed["ends_at"] == "2026-09-19T18:35:00.000+00:00"  # 400 s + 1700 s


@pytest.mark.django_db
def test_each_button_refuses_the_wrong_moment(director, rnd):
    kw = {"acting_user": director, "round": rnd}
    refused("clock_not_running", services.pause_clock, **kw)
    refused("clock_not_started", services.resume_clock, **kw)
    services.start_clock(now=T0, **kw)
    refused("clock_already_running", services.start_clock, now=at(1), **kw)
    refused("clock_already_running", services.resume_clock, now=at(1), **kw)
    services.pause_clock(now=at(10), **kw)
    refused("clock_already_started", services.start_clock, now=at(20), **kw)


@pytest.mark.django_db
def test_adding_and_taking_away_time(director, rnd):
    kw = {"acting_user": director, "round": rnd}
    services.start_clock(now=T0, **kw)
    services.add_clock_time(seconds=60, now=at(100), **kw)
    assert state(rnd, 100)["remaining"] == 1760.0
    services.add_clock_time(seconds=300, now=at(100), **kw)
    services.add_clock_time(seconds=-60, now=at(160), **kw)
    rnd.refresh_from_db()
    assert rnd.clock_added == 300
    assert state(rnd, 160)["remaining"] == 1940.0  # 1800 + 300 − 160
    assert state(rnd, 160)["ends_at"] == "2026-09-19T18:35:00.000+00:00"


@pytest.mark.django_db
def test_taking_away_more_than_is_left_leaves_exactly_zero(director, rnd):
    kw = {"acting_user": director, "round": rnd}
    services.start_clock(now=T0, **kw)
    services.add_clock_time(seconds=-60, now=at(1790), **kw)
    over = state(rnd, 1790)
    assert (over["status"], over["remaining"]) == ("over", 0.0)
    refused("clock_no_time_left", services.add_clock_time, seconds=-60, now=at(1795), **kw)
    # Taking away a whole hour from a paused clock with 20 minutes left: zero, never below.
    other = make_round(director, name="Copa Segunda")
    services.start_clock(acting_user=director, round=other, now=T0)
    services.pause_clock(acting_user=director, round=other, now=at(600))
    services.add_clock_time(acting_user=director, round=other, seconds=-3600, now=at(700))
    assert state(other, 700)["remaining"] == 0.0


@pytest.mark.django_db
def test_time_added_after_time_is_up_counts_from_now(director, rnd):
    kw = {"acting_user": director, "round": rnd}
    services.start_clock(now=T0, **kw)
    assert state(rnd, 1900)["remaining"] == -100.0
    services.add_clock_time(seconds=60, now=at(1900), **kw)
    assert state(rnd, 1900)["remaining"] == 60.0
    assert state(rnd, 1930)["remaining"] == 30.0
    assert state(rnd, 1930)["status"] == "running"


@pytest.mark.django_db
@pytest.mark.parametrize("seconds", [0, MAX_CLOCK_STEP + 1, -MAX_CLOCK_STEP - 1, True, 1.5, "60"])
def test_bad_amounts_of_time_are_refused(director, rnd, seconds):
    error = refused(
        "clock_bad_seconds",
        services.add_clock_time,
        acting_user=director,
        round=rnd,
        seconds=seconds,
    )
    assert f"«{seconds}»" in error.message


@pytest.mark.django_db
def test_a_round_lasts_at_most_a_day(director, rnd):
    Round.objects.filter(pk=rnd.pk).update(clock_added=24 * 3600 - 1800)  # 24 h in all
    refused("clock_too_long", services.add_clock_time, acting_user=director, round=rnd, seconds=1)


@pytest.mark.django_db
def test_without_a_time_limit_the_clock_cannot_start(director):
    rnd = make_round(director, time_limit=None)
    kw = {"acting_user": director, "round": rnd}
    error = refused("clock_no_time_limit", services.start_clock, **kw)
    assert "no tiene tiempo límite" in error.message
    refused("clock_no_time_limit", services.add_clock_time, seconds=60, **kw)


@pytest.mark.django_db
def test_a_closed_round_keeps_its_clock(director, rnd):
    services.start_clock(acting_user=director, round=rnd, now=T0)
    table = rnd.tables.get()
    services.record_result(acting_user=director, table=table, tantos_a=100, tantos_b=20, version=0)
    services.close_round(acting_user=director, round=rnd)
    kw = {"acting_user": director, "round": rnd}
    for call in (services.pause_clock, services.resume_clock, services.reset_clock):
        refused("round_closed", call, **kw)
    refused("round_closed", services.add_clock_time, seconds=60, **kw)


@pytest.mark.django_db
def test_reset_puts_the_clock_back(director, rnd):
    kw = {"acting_user": director, "round": rnd}
    services.start_clock(now=T0, **kw)
    services.add_clock_time(seconds=300, now=at(60), **kw)
    services.reset_clock(**kw)
    rnd.refresh_from_db()
    assert (rnd.clock_running_since, rnd.clock_elapsed, rnd.clock_added) == (None, 0, 0)
    assert state(rnd, 0)["status"] == "idle"
    services.start_clock(now=at(100), **kw)  # starts again from the whole time limit


# --- the public page and its state --------------------------------------------------------------


def clock_json(client, t, query=""):
    response = client.get(reverse("public:clock_state", args=[t.slug]) + query)
    assert response.status_code == 200
    return response, json.loads(response.content)


@pytest.mark.django_db
def test_the_state_is_json_never_stored(client, director, rnd):
    t = rnd.tournament
    response, data = clock_json(client, t)
    assert response["Content-Type"] == "application/json"
    assert "no-store" in response["Cache-Control"]
    assert not response.has_header("ETag")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", data["now"])
    assert data["status"] == "idle"
    assert (data["round"], data["total"], data["remaining"], data["shown"]) == (1, 1800, 1800, 1800)
    assert (data["ends_at"], data["time_limit"]) == (None, 30)


@pytest.mark.django_db
@pytest.mark.page_cache
def test_the_clock_is_never_served_from_the_page_cache(client, director, rnd):
    """Even a change that draws no new generation (a write without signals) shows at once."""
    t = rnd.tournament
    page = reverse("public:clock", args=[t.slug])
    assert "Sin empezar" in client.get(page).content.decode()
    assert clock_json(client, t)[1]["status"] == "idle"
    Round.objects.filter(pk=rnd.pk).update(clock_elapsed=60)  # no signal, no new generation
    assert clock_json(client, t)[1]["status"] == "paused"
    response = client.get(page)
    assert "En pausa" in response.content.decode()
    assert "no-store" in response["Cache-Control"] and not response.has_header("ETag")


@pytest.mark.django_db
def test_the_state_of_a_running_clock(client, director, rnd):
    services.start_clock(acting_user=director, round=rnd, now=T0)
    _, data = clock_json(client, rnd.tournament)
    assert data["status"] == "over"  # T0 is long past
    assert data["ends_at"] == "2026-09-19T18:30:00.000+00:00"
    assert data["shown"] == 0 and data["remaining"] < 0


@pytest.mark.django_db
def test_the_state_of_another_round_and_of_no_round(client, director, rnd):
    t = rnd.tournament
    assert clock_json(client, t, "?ronda=1")[1]["round"] == 1
    assert clock_json(client, t, "?ronda=abc")[1]["round"] == 1  # not a number: the current one
    assert client.get(reverse("public:clock_state", args=[t.slug]) + "?ronda=7").status_code == 404
    empty = services.create_tournament(
        acting_user=director, name="Copa Vacía", date=dt.date(2026, 9, 19), time_limit=20
    )
    services.update_tournament(
        acting_user=director, tournament=empty, status=Tournament.Status.REGISTRATION
    )
    _, data = clock_json(client, empty)
    assert (data["status"], data["round"], data["remaining"]) == ("no_round", None, None)


@pytest.mark.django_db
def test_the_clock_page_big_and_clear(client, director, rnd):
    t = rnd.tournament
    response = client.get(reverse("public:clock", args=[t.slug]))
    body = response.content.decode()
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    assert offences(body) == []
    assert '<h1 class="clock-round" data-clock-round>Ronda 1</h1>' in body
    assert ">30:00</p>" in body and "Sin empezar" in body
    assert "css/clock.css" in body and "js/clock.js" in body
    assert '<noscript><meta http-equiv="refresh" content="30"></noscript>' in body
    assert 'data-state-url="/torneos/' in body and 'class="clock is-idle' in body


@pytest.mark.django_db
def test_the_clock_page_running_and_at_time_up(client, director, rnd):
    t = rnd.tournament
    from django.utils import timezone

    services.start_clock(
        acting_user=director, round=rnd, now=timezone.now() - dt.timedelta(seconds=90)
    )
    body = client.get(reverse("public:clock", args=[t.slug])).content.decode()
    assert re.search(r">28:(30|29)</p>", body)
    assert "En marcha" in body and "Termina a las" in body and "is-running" in body
    services.add_clock_time(acting_user=director, round=rnd, seconds=-3600)
    body = client.get(reverse("public:clock", args=[t.slug])).content.decode()
    assert ">00:00</p>" in body and "¡Tiempo!" in body and 'class="clock is-over' in body


@pytest.mark.django_db
def test_the_clock_page_without_a_time_limit_says_so(client, director):
    rnd = make_round(director, time_limit=None)
    body = client.get(reverse("public:clock", args=[rnd.tournament.slug])).content.decode()
    assert "Este torneo no tiene tiempo límite: no hay reloj." in body
    assert "--:--" in body


@pytest.mark.django_db
def test_the_clock_page_in_english_and_russian_says_its_language(client, rnd):
    for lang in ("en", "ru"):
        body = client.get(
            reverse("public:clock", args=[rnd.tournament.slug]), HTTP_ACCEPT_LANGUAGE=lang
        ).content.decode()
        assert f'<html lang="{lang}">' in body


@pytest.mark.django_db
def test_the_tournament_page_links_to_the_clock_when_there_is_a_time_limit(client, director, rnd):
    clock_url = reverse("public:clock", args=[rnd.tournament.slug])
    assert clock_url in client.get(rnd.tournament.get_absolute_url()).content.decode()
    other = make_round(director, time_limit=None, name="Copa Sin Tiempo")
    page = client.get(other.tournament.get_absolute_url()).content.decode()
    assert reverse("public:clock", args=[other.tournament.slug]) not in page


# --- the director's buttons ---------------------------------------------------------------------


def press(client, rnd, action, htmx=False, **data):
    url = reverse("manage:clock", args=[rnd.tournament.slug, rnd.number])
    return client.post(url, {"action": action, **data}, **(HTMX if htmx else {}))


@pytest.mark.django_db
def test_without_javascript_each_button_goes_back_to_the_round_page(director_client, rnd):
    round_url = reverse("manage:round", args=[rnd.tournament.slug, 1])
    response = press(director_client, rnd, "start")
    assert (response.status_code, response["Location"]) == (302, round_url + "#reloj")
    page = director_client.get(round_url).content.decode()
    assert "Reloj de la ronda 1 en marcha." in page
    assert 'value="pause"' in page and 'value="start"' not in page
    press(director_client, rnd, "add", seconds="60")
    press(director_client, rnd, "add", seconds="-60")
    press(director_client, rnd, "add", seconds="300")
    rnd.refresh_from_db()
    assert rnd.clock_added == 300 and rnd.clock_running_since is not None
    assert "Reloj de la ronda 1: +5:00." in director_client.get(round_url).content.decode()
    press(director_client, rnd, "pause")
    rnd.refresh_from_db()
    assert rnd.clock_running_since is None and rnd.clock_elapsed > 0
    press(director_client, rnd, "pause")
    page = director_client.get(round_url).content.decode()
    assert "El reloj de la ronda 1 no está en marcha." in page
    assert 'value="resume"' in page


@pytest.mark.django_db
def test_with_htmx_the_panel_answers_alone(director_client, rnd):
    response = press(director_client, rnd, "start", htmx=True)
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body and 'id="reloj"' in body
    assert "Reloj de la ronda 1 en marcha." in body and "is-running" in body
    refused_answer = press(director_client, rnd, "start", htmx=True)
    assert refused_answer.status_code == 400
    assert "ya está en marcha" in refused_answer.content.decode()
    unknown = press(director_client, rnd, "explode", htmx=True)
    assert (
        unknown.status_code == 400 and "Ese botón del reloj no existe." in unknown.content.decode()
    )
    bad = press(director_client, rnd, "add", htmx=True, seconds="mucho")
    assert bad.status_code == 400 and "«mucho»" in bad.content.decode()


@pytest.mark.django_db
def test_a_double_tap_adds_time_once(director_client, rnd):
    token = "a" * 32
    press(director_client, rnd, "add", seconds="60", form_token=token)
    again = press(director_client, rnd, "add", seconds="60", form_token=token)
    assert again.status_code == 302
    rnd.refresh_from_db()
    assert rnd.clock_added == 60


@pytest.mark.django_db
def test_reset_asks_first(director_client, rnd, director):
    services.start_clock(acting_user=director, round=rnd)
    question = press(director_client, rnd, "reset")
    assert question.status_code == 200
    assert "¿Reiniciar el reloj de la ronda 1?" in question.content.decode()
    rnd.refresh_from_db()
    assert rnd.clock_running_since is not None
    press(director_client, rnd, "reset", confirm="1")
    rnd.refresh_from_db()
    assert (rnd.clock_running_since, rnd.clock_elapsed) == (None, 0)


@pytest.mark.django_db
def test_a_closed_round_is_a_conflict(director_client, director, rnd):
    table = rnd.tables.get()
    services.record_result(acting_user=director, table=table, tantos_a=100, tantos_b=20, version=0)
    services.close_round(acting_user=director, round=rnd)
    response = press(director_client, rnd, "start", htmx=True)
    assert response.status_code == 409 and "está cerrada" in response.content.decode()


@pytest.mark.django_db
def test_the_round_page_suggests_by_time_once_time_is_up(director_client, director, rnd):
    round_url = reverse("manage:round", args=[rnd.tournament.slug, 1])
    page = director_client.get(round_url).content.decode()
    assert 'value="start"' in page
    assert reverse("public:clock", args=[rnd.tournament.slug]) + "?ronda=1" in page
    notice = re.search(r"<p class=\"warning\"[^>]*data-clock-over-notice[^>]*>", page)
    assert notice and "hidden" in notice.group(0)  # there, for the moment the count reaches 0
    services.start_clock(acting_user=director, round=rnd)
    services.add_clock_time(acting_user=director, round=rnd, seconds=-1800)
    page = director_client.get(round_url).content.decode()
    notice = re.search(r"<p class=\"warning\"[^>]*data-clock-over-notice[^>]*>", page)
    assert notice and "hidden" not in notice.group(0)
    assert "marca «Terminó por tiempo»" in page
    assert 'class="clock-panel is-over"' in page


@pytest.mark.django_db
def test_the_round_page_without_a_time_limit_says_so(director_client, director):
    rnd = make_round(director, time_limit=None)
    page = director_client.get(reverse("manage:round", args=[rnd.tournament.slug, 1]))
    body = page.content.decode()
    assert "el reloj no se puede poner en marcha" in body
    assert reverse("manage:tournament_edit", args=[rnd.tournament.slug]) in body
    assert 'value="start"' not in body


@pytest.mark.django_db
def test_only_the_tournaments_directors_press_the_buttons(client, rnd):
    assert press(client, rnd, "start")["Location"].startswith(reverse("login"))
    other = builders.director("otro-director", password="x")
    client.force_login(other)
    assert press(client, rnd, "start").status_code == 403
    rnd.refresh_from_db()
    assert rnd.clock_running_since is None


def test_a_closed_round_reads_closed_not_ready_to_start(client, director, rnd):
    services.start_clock(acting_user=director, round=rnd)
    table = rnd.tables.get()
    services.record_result(acting_user=director, table=table, version=0, tantos_a=100, tantos_b=40)
    services.close_round(acting_user=director, round=rnd)
    t = rnd.tournament
    data = client.get(reverse("public:clock_state", args=[t.slug])).json()
    assert (data["status"], data["ends_at"]) == ("closed", None)
    page = client.get(reverse("public:clock", args=[t.slug])).content.decode()
    status = re.search(r'<p class="clock-status"[^>]*>(.*?)</p>', page, re.S).group(1)
    assert status.strip() == "Ronda cerrada"
    assert '<meta property="og:title" content="Reloj · Ronda 1 · Copa del Reloj">' in page
