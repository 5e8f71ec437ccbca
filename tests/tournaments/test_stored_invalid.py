"""A stored result that no longer holds under its tournament's settings (written before a
change the services now refuse, or by hand in the shell) is left out of the standings and
shown "needs correction" on the pages, never a server error; the director corrects it on the
round page as usual. A stored game time at the edge of the calendar never breaks the admin."""

import datetime as dt

import pytest
from django.urls import reverse

from tests import builders
from tournaments import services
from tournaments.models import MatchResult, Result, Seat, Table, Tournament

pytestmark = pytest.mark.django_db

PAGES = (
    ("public:tournament", False),
    ("public:round", True),
    ("public:standings", False),
    ("public:standings_csv", False),
    ("public:standings_xlsx", False),
    ("public:find_table", False),
    ("manage:tournament", False),
    ("manage:round", True),
)


def _tournament(user, system, **kw):
    """A running tournament of ``system`` with its entries (each made of new players) seated
    at table 1 of round 1, one table at a time (``services.seat_table``, as the imports do)."""
    t = builders.tournament(
        acting_user=user,
        name=f"Torneo {system}",
        date=dt.date(2026, 3, 14),
        system=system,
        status="running",
        **kw,
    )
    size = {"domino": 2, "swiss": 2, "table": 4}[system]
    entries = [
        builders.new_entry(
            t,
            [f"Jugador {system} {i} {k}" for k in range(2 if t.mode == "pairs" else 1)],
            acting_user=user,
        )
        for i in range(size)
    ]
    rnd = services.get_or_create_round(acting_user=user, tournament=t, number=1)
    if system == "table":
        table = services.seat_table(acting_user=user, round=rnd, number=1, seats=entries)
    else:
        table = services.seat_table(
            acting_user=user, round=rnd, number=1, sides=([entries[0]], [entries[1]])
        )
    return t, table, entries


def _statuses(client, t):
    return {
        name: client.get(reverse(name, args=[t.slug, 1] if numbered else [t.slug])).status_code
        for name, numbered in PAGES
    }


def _all_ok(client, t):
    assert set(_statuses(client, t).values()) == {200}


def test_a_domino_result_stored_under_another_target_needs_correction(director, director_client):
    t, table, entries = _tournament(director, "domino", mode="single", target=100, time_limit=30)
    services.record_result(
        acting_user=director, table=table, version=None, tantos_a=100, tantos_b=40
    )
    Tournament.objects.filter(pk=t.pk).update(target=200)  # behind the services' back
    t.refresh_from_db()

    _all_ok(director_client, t)
    standings = t.standings()
    assert standings.needs_correction == {
        table.pk: "Ningún lado llegó a 200 tantos (100–40); si la partida terminó por tiempo, "
        "márcalo."
    }
    assert [line.row.figures["played"] for line in standings] == [0, 0]
    page = director_client.get(reverse("public:standings", args=[t.slug])).content.decode()
    assert "quedan fuera de la clasificación" in page
    assert "Ronda 1, mesa 1: Ningún lado llegó a 200 tantos (100–40)" in page
    round_page = director_client.get(reverse("manage:round", args=[t.slug, 1])).content.decode()
    assert "Necesita corrección" in round_page

    # the director corrects it on the round page, and the mark goes
    fresh = Table.objects.get(pk=table.pk)
    services.record_result(
        acting_user=director, table=fresh, version=fresh.version, tantos_a=200, tantos_b=40
    )
    standings = t.standings()
    assert standings.needs_correction == {}
    assert [(line.entry.pk, line.row.figures["puntos"]) for line in standings] == [
        (entries[0].pk, 2),
        (entries[1].pk, 0),
    ]
    round_page = director_client.get(reverse("manage:round", args=[t.slug, 1])).content.decode()
    assert "Necesita corrección" not in round_page


@pytest.mark.parametrize(
    ("target", "time_limit", "values", "why"),
    [
        (
            100,
            None,
            {"tantos_a": 64, "tantos_b": 41, "ended_by_time": True},
            "no tiene tiempo límite",
        ),
        (100, 30, {"tantos_a": 300, "tantos_b": 100}, "100"),
        (100, 30, {"tantos_a": 100, "tantos_b": 120}, "100–120"),
    ],
)
def test_any_stored_domino_sheet_that_breaks_the_rules_is_marked(
    director, director_client, target, time_limit, values, why
):
    t, table, _ = _tournament(director, "domino", mode="single", target=100, time_limit=30)
    services.record_result(
        acting_user=director, table=table, version=None, tantos_a=100, tantos_b=4
    )
    Result.objects.update(**{"ended_by_time": False, **values})
    Tournament.objects.filter(pk=t.pk).update(target=target, time_limit=time_limit)
    t.refresh_from_db()
    _all_ok(director_client, t)
    assert list(t.standings().needs_correction) == [table.pk]
    assert why in t.standings().needs_correction[table.pk]


def test_a_swiss_match_stored_under_another_best_of_needs_correction(director, director_client):
    t, table, _ = _tournament(director, "swiss", best_of=3)
    services.record_result(acting_user=director, table=table, version=None, games_a=2, games_b=1)
    Tournament.objects.filter(pk=t.pk).update(best_of=1)
    t.refresh_from_db()
    _all_ok(director_client, t)
    assert list(t.standings().needs_correction) == [table.pk]
    assert [line.row.figures["match_points"] for line in t.standings()] == [0, 0]
    MatchResult.objects.update(games_a=5, games_b=5)
    _all_ok(director_client, t)
    assert list(t.standings().needs_correction) == [table.pk]


def test_a_table_game_with_a_seat_left_without_score_needs_correction(director, director_client):
    t, table, _ = _tournament(director, "table", mode="single")
    entries = [s.entry for s in Seat.objects.filter(table=table).order_by("position")]
    services.record_result(
        acting_user=director,
        table=table,
        version=None,
        scores={e.pk: vp for e, vp in zip(entries, (10, 8, 6, 4), strict=True)},
    )
    Seat.objects.filter(table=table, position=2).update(victory_points=None)
    _all_ok(director_client, t)
    assert list(t.standings().needs_correction) == [table.pk]
    page = director_client.get(reverse("manage:round", args=[t.slug, 1])).content.decode()
    assert "Necesita corrección" in page


@pytest.mark.parametrize(
    "moment",
    [dt.datetime(1, 1, 1, 0, 0, tzinfo=dt.UTC), dt.datetime(9999, 12, 31, 23, 59, tzinfo=dt.UTC)],
)
def test_a_stored_time_at_the_edge_of_the_calendar_breaks_no_page(
    director, director_client, admin_client, moment
):
    t, table, _ = _tournament(director, "domino", target=100, time_limit=30)
    services.record_result(
        acting_user=director, table=table, version=None, tantos_a=100, tantos_b=40
    )
    Result.objects.update(played_at=moment)  # by hand: the services refuse it
    _all_ok(director_client, t)
    result = Result.objects.get()
    listing = admin_client.get("/admin/tournaments/result/")
    assert listing.status_code == 200
    assert f"{moment:%Y}-" in listing.content.decode()
    assert "(necesita corrección)" in listing.content.decode()
    for page in ("change", "history"):
        response = admin_client.get(f"/admin/tournaments/result/{result.pk}/{page}/")
        assert response.status_code == 200
