"""A tournament's final places (SCORING.md §9, "A tournament's final place" and "Standings
before any game"): one answer, ``Tournament.final_places``, for the standings page and its
downloads, the podiums and "tournaments won" of the player pages, and the league points; a
withdrawn entry that played no game (a bye is not a game) takes no place, the places below
close up; before the first result nobody has a place; a sorteo is offered, and recorded, only
once the order is final (``Tournament.order_is_final``)."""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
import re

import pytest
from django.urls import reverse

from rankings import stories
from tests import builders
from tournaments import exports, leagues, services
from tournaments.errors import DomainError
from tournaments.models import Sorteo, Tournament
from tournaments.scoring.places import without_place

pytestmark = pytest.mark.django_db

#: A Swiss match won 2–1 by side A, and one won 2–0.
SWISS_2_1 = {"games_a": 2, "games_b": 1, "games_drawn": 0}
#: A dominó game side A wins 100–50: 2 puntos, efectividad +50.
DOMINO_WIN = {"tantos_a": 100, "tantos_b": 50}

ROW = re.compile(
    r'<tr(?: class="(?:shared|unplaced)")?>\s*<td class="pos">([^<]*)</td>\s*'
    r'<th scope="row" class="name">([^<]+?)( <span class="badge">retirado</span>)? <span'
)


def page_rows(body: str) -> list[tuple[str, str, bool]]:
    """The standings table of a page: (position shown, name, marked "retirado") per line."""
    return [(pos, html.unescape(name), bool(badge)) for pos, name, badge in ROW.findall(body)]


def places(t: Tournament) -> list[tuple[str, int | None, bool]]:
    """``t.final_places()`` as (name, place, shared), in order."""
    return [(line.entry.name, line.place, line.place_shared) for line in t.final_places()]


def public_page(client, name: str, t: Tournament) -> str:
    response = client.get(reverse(name, args=[t.slug]))
    assert response.status_code == 200
    return response.content.decode()


# --- the rule of who takes no place (pure) -----------------------------------------------------


def test_who_takes_no_place():
    entries = [1, 2, 3, 4, 5]
    # 1 played; 2 rested (a bye that counts) and is still in; 3 rested and withdrew;
    # 4 has neither played nor rested; 5 played and withdrew.
    facts = {"played": {1, 5}, "rested": {2, 3}, "withdrawn": {3, 5}}
    assert without_place(entries, finished=False, **facts) == {3, 4}
    assert without_place(entries, finished=True, **facts) == {2, 3, 4}


# --- a withdrawn entry with only a bye ----------------------------------------------------------


@pytest.fixture
def swiss_cup(director):
    """ "Suizo del Faro" (match play, best of 3, one round planned), running: Sara beat Tomás
    2–1 and Úrsula rested (a bye: a match won 2–0, 3 match points, GWP 100 %), then withdrew.
    Her bye alone puts her first in the standings' order (GWP 6/6 against Sara's 6/9)."""
    by = {"acting_user": director}
    t, (sara, tomas, ursula) = builders.field(
        name="Suizo del Faro",
        date=dt.date(2026, 6, 6),
        system="swiss",
        mode="single",
        best_of=3,
        rounds_planned=1,
        status="running",
        names=["Sara Sol", "Tomás Toro", "Úrsula Uría"],
        **by,
    )
    builders.play(t, 1, [(sara, tomas)], [SWISS_2_1], **by)
    services.drop_entry(entry=ursula, **by)
    return {"t": t, "sara": sara, "tomas": tomas, "ursula": ursula}


def test_a_withdrawn_entry_with_only_a_bye_first_in_the_order_takes_no_place(swiss_cup, client):
    t = swiss_cup["t"]
    assert [(line.entry.name, line.row.position) for line in t.standings()] == [
        ("Úrsula Uría", 1),
        ("Sara Sol", 2),
        ("Tomás Toro", 3),
    ]
    assert places(t) == [
        ("Sara Sol", 1, False),
        ("Tomás Toro", 2, False),
        ("Úrsula Uría", None, False),
    ]
    body = public_page(client, "public:standings", t)
    assert page_rows(body) == [
        ("1", "Sara Sol", False),
        ("2", "Tomás Toro", False),
        ("", "Úrsula Uría", True),
    ]
    assert '<tr class="unplaced">\n        <td class="pos"></td>' in body
    assert (
        "Sin número: no ha jugado ninguna partida (un descanso no cuenta como partida), así "
        "que no tiene puesto."
    ) in body
    assert page_rows(public_page(client, "public:tournament", t)) == page_rows(body)


def test_a_withdrawn_entry_with_only_a_bye_has_no_podium_no_win_and_no_league_points(
    swiss_cup, client, director
):
    t = builders.finish(swiss_cup["t"], acting_user=director, open_rounds_ok=True)
    sara, ursula = swiss_cup["sara"], swiss_cup["ursula"]
    league = services.create_league(
        acting_user=director,
        name="Liga del Faro",
        season=2026,
        points_scale="10,6,4",
        participation_points=1,
        tournaments=[t],
    )
    table = leagues.league_table(league)
    assert [(x.player.full_name, x.line.position, x.line.total) for x in table.lines] == [
        ("Sara Sol", 1, 11),
        ("Tomás Toro", 2, 7),
    ]
    assert table.line_of(ursula.player1_id) is None

    found = stories.player_stories(ursula.player1_id)
    assert (found.podiums, found.podium_count, found.wins) == ([], 0, 0)
    page = client.get(reverse("rankings:player", args=[ursula.player1_id])).content.decode()
    assert "torneo ganado" not in page and "Podios" not in page
    assert [(p.tournament, p.position, p.shared) for p in stories.podiums(sara.player1_id)] == [
        ("Suizo del Faro", 1, False)
    ]
    page = client.get(reverse("rankings:player", args=[sara.player1_id])).content.decode()
    assert '<dd class="podium-count">1 podio · 1 torneo ganado</dd>' in page


def test_an_entry_that_only_rested_keeps_its_position_while_the_tournament_runs(director):
    """Not withdrawn: its rest scores and it plays on. Once the tournament is finished, an
    entry that never played takes no place (docs/SCORING.md §6)."""
    by = {"acting_user": director}
    t, (ana, beto, _elena) = builders.field(
        name="Suizo de la Costa",
        date=dt.date(2026, 6, 13),
        system="swiss",
        mode="single",
        best_of=3,
        rounds_planned=1,
        status="running",
        names=["Ana Alba", "Beto Bravo", "Elena Esteve"],
        **by,
    )
    builders.play(t, 1, [(ana, beto)], [SWISS_2_1], **by)
    assert places(t) == [
        ("Elena Esteve", 1, False),
        ("Ana Alba", 2, False),
        ("Beto Bravo", 3, False),
    ]
    t = builders.finish(t, open_rounds_ok=True, **by)
    assert places(t) == [
        ("Ana Alba", 1, False),
        ("Beto Bravo", 2, False),
        ("Elena Esteve", None, False),
    ]


# --- withdrawn entries that played, and the places closing up ----------------------------------


def test_a_withdrawn_entry_that_played_a_game_keeps_its_position(client, director):
    by = {"acting_user": director}
    t, (a, b, c, d) = builders.field(
        name="Copa del Muelle",
        date=dt.date(2026, 6, 20),
        mode="single",
        target=100,
        rounds_planned=2,
        status="running",
        names=["Ana Alba", "Beto Bravo", "Carla Cid", "Dani Duarte"],
        **by,
    )
    builders.play(t, 1, [(a, b), (c, d)], [DOMINO_WIN, {"tantos_a": 100, "tantos_b": 60}], **by)
    services.drop_entry(entry=d, **by)  # after round 1, which it played (lost 60–100)
    assert places(t) == [
        ("Ana Alba", 1, False),
        ("Carla Cid", 2, False),
        ("Dani Duarte", 3, False),
        ("Beto Bravo", 4, False),
    ]
    assert page_rows(public_page(client, "public:standings", t)) == [
        ("1", "Ana Alba", False),
        ("2", "Carla Cid", False),
        ("3", "Dani Duarte", True),
        ("4", "Beto Bravo", False),
    ]


@pytest.fixture
def harbour(director):
    """ "Copa del Puerto", mano a mano to 100, bye rule "win", running: round 1 Ana 100–50
    Beto and Carla 100–50 Dani, Elena rests (1 punto) and then withdraws. The standings'
    order: Ana and Carla =1 (level on everything, they never met), Elena 3, Beto and Dani
    =4."""
    by = {"acting_user": director}
    t, (a, b, c, d, e) = builders.field(
        name="Copa del Puerto",
        date=dt.date(2026, 6, 27),
        mode="single",
        target=100,
        bye_rule="win",
        rounds_planned=3,
        status="running",
        names=["Ana Alba", "Beto Bravo", "Carla Cid", "Dani Duarte", "Elena Esteve"],
        **by,
    )
    builders.play(t, 1, [(a, b), (c, d)], [DOMINO_WIN, DOMINO_WIN], close=True, **by)
    services.drop_entry(entry=e, **by)
    return t


def test_the_places_below_an_entry_without_a_place_close_up(harbour, client):
    t = harbour
    assert [(line.entry.name, line.row.position, line.row.shared) for line in t.standings()] == [
        ("Ana Alba", 1, True),
        ("Carla Cid", 1, True),
        ("Elena Esteve", 3, False),
        ("Beto Bravo", 4, True),
        ("Dani Duarte", 4, True),
    ]
    assert places(t) == [
        ("Ana Alba", 1, True),
        ("Carla Cid", 1, True),
        ("Beto Bravo", 3, True),
        ("Dani Duarte", 3, True),
        ("Elena Esteve", None, False),
    ]
    body = public_page(client, "public:standings", t)
    assert page_rows(body) == [
        ("=1", "Ana Alba", False),
        ("=1", "Carla Cid", False),
        ("=3", "Beto Bravo", False),
        ("=3", "Dani Duarte", False),
        ("", "Elena Esteve", True),
    ]
    rows = list(csv.reader(io.StringIO(exports.standings_csv(t))))
    assert [row[:2] for row in rows] == [
        ["position", "entry"],
        ["1", "Ana Alba"],
        ["1", "Carla Cid"],
        ["3", "Beto Bravo"],
        ["3", "Dani Duarte"],
        ["", "Elena Esteve"],
    ]
    assert [row[:2] for row in exports.standings_rows(t)] == [
        [1, "Ana Alba"],
        [1, "Carla Cid"],
        [3, "Beto Bravo"],
        [3, "Dani Duarte"],
        [None, "Elena Esteve"],
    ]


def test_final_places_take_one_query_more_than_the_standings(harbour, django_assert_num_queries):
    with django_assert_num_queries(6):  # entries, seats, results, byes, castigos, sorteos
        harbour.standings()
    with django_assert_num_queries(7):  # and who played and rested
        harbour.final_places()
    with django_assert_num_queries(7):
        Tournament.final_places_of([harbour])


# --- before the first result -------------------------------------------------------------------


@pytest.fixture
def unplayed(director):
    """ "Copa Sin Jugar", pairs to 100: three pairs entered (not in the order of their names),
    round 1 paired, no result yet."""
    by = {"acting_user": director}
    t, e = builders.field(
        name="Copa Sin Jugar",
        date=dt.date(2026, 7, 4),
        mode="pairs",
        target=100,
        status="running",
        names=["Zoe Zapata", "Yago Yuste", "Ana Alba", "Beto Bravo", "Marta Mora", "Nico Nieto"],
        **by,
    )
    builders.pair(t, 1, [(e[0], e[1])], **by)  # Marta & Nico rest
    return t


def test_before_the_first_result_the_entries_are_listed_by_name_without_positions(
    unplayed, client, director_client
):
    t = unplayed
    assert places(t) == [
        ("Ana Alba & Beto Bravo", None, False),
        ("Marta Mora & Nico Nieto", None, False),
        ("Zoe Zapata & Yago Yuste", None, False),
    ]
    assert not t.final_places().started
    for name in ("public:standings", "public:tournament"):
        body = public_page(client, name, t)
        assert (
            "<p>Todavía no hay resultados: la clasificación empieza con el primer resultado.</p>\n"
            '  <ul class="entries unranked"><li>Ana Alba &amp; Beto Bravo</li>'
            "<li>Marta Mora &amp; Nico Nieto</li><li>Zoe Zapata &amp; Yago Yuste</li></ul>"
        ) in body
        assert 'class="pos"' not in body and ">=1<" not in body
        assert "sorteo" not in body.lower()
        assert "empate" not in body
    rows = list(csv.reader(io.StringIO(exports.standings_csv(t))))
    assert [row[:2] for row in rows] == [
        ["position", "entry"],
        ["", "Ana Alba & Beto Bravo"],
        ["", "Marta Mora & Nico Nieto"],
        ["", "Zoe Zapata & Yago Yuste"],
    ]
    manage = director_client.get(reverse("manage:tournament", args=[t.slug])).content.decode()
    assert "Sorteo de empates" not in manage


# --- the sorteo waits for the final order -------------------------------------------------------


@pytest.fixture
def five_rounds(director):
    """ "Copa de Cinco", pairs to 100, five rounds planned, running: four pairs; rounds 1 and 2
    the same tables, side A winning 100–50 each time: the two winners level first, the two
    losers level third."""
    by = {"acting_user": director}
    t, e = builders.field(
        name="Copa de Cinco",
        date=dt.date(2026, 7, 11),
        mode="pairs",
        target=100,
        rounds_planned=5,
        status="running",
        names=[f"Jugadora {i} Cinco" for i in range(8)],
        **by,
    )
    for number in (1, 2):
        builders.play(t, number, [(e[0], e[1]), (e[2], e[3])], [DOMINO_WIN] * 2, close=True, **by)
    return t, e


def test_a_sorteo_at_round_2_of_5_is_refused_and_offered_after_the_last_round(
    five_rounds, director, director_client
):
    t, e = five_rounds
    by = {"acting_user": director}
    assert [(line.place, line.place_shared) for line in t.final_places()] == [
        (1, True),
        (1, True),
        (3, True),
        (3, True),
    ]
    assert not t.order_is_final()
    with pytest.raises(DomainError) as refused:
        services.record_sorteo(tournament=t, entries_in_order=[e[2], e[0]], **by)
    assert refused.value.code == "sorteo_too_early"
    assert refused.value.message == (
        "Todavía no hay sorteo: el orden no es definitivo hasta que el torneo termine o se "
        "jueguen sus 5 rondas previstas con todos sus resultados."
    )
    page = director_client.get(reverse("manage:tournament", args=[t.slug])).content.decode()
    assert 'action="/gestion/torneos/copa-de-cinco-2026/sorteo/"' not in page
    assert "Hay puestos compartidos, pero el orden aún no es definitivo" in page
    response = director_client.post(
        reverse("manage:sorteo", args=[t.slug]),
        {"position": "1", "entry": [str(e[2].pk), str(e[0].pk)]},
    )
    assert response.status_code == 400
    assert "Todavía no hay sorteo: el orden no es definitivo" in html.unescape(
        response.content.decode()
    )
    assert not Sorteo.objects.exists()

    for number in (3, 4):
        builders.play(t, number, [(e[0], e[1]), (e[2], e[3])], [DOMINO_WIN] * 2, close=True, **by)
    builders.play(t, 5, [(e[0], e[1]), (e[2], e[3])], [DOMINO_WIN], **by)  # table 2 to come
    assert not t.order_is_final()
    with pytest.raises(DomainError) as refused:
        services.record_sorteo(tournament=t, entries_in_order=[e[2], e[0]], **by)
    assert refused.value.code == "sorteo_too_early"

    builders.record_round(t, 5, **DOMINO_WIN, **by)  # table 2 gets its result
    assert t.order_is_final()
    page = director_client.get(reverse("manage:tournament", args=[t.slug])).content.decode()
    assert 'id="sorteo-1"' in page and 'id="sorteo-3"' in page
    assert "el orden aún no es definitivo" not in page
    services.record_sorteo(tournament=t, entries_in_order=[e[2], e[0]], **by)
    assert [(line.entry.pk, line.place, line.place_shared) for line in t.final_places()] == [
        (e[2].pk, 1, False),
        (e[0].pk, 2, False),
        (e[1].pk, 3, True),
        (e[3].pk, 3, True),
    ]


# --- one place for the league and the stories --------------------------------------------------


def test_the_league_and_the_player_pages_use_the_same_places(harbour, swiss_cup, director):
    by = {"acting_user": director}
    finished = [
        builders.finish(harbour, open_rounds_ok=True, **by),
        builders.finish(swiss_cup["t"], open_rounds_ok=True, **by),
    ]
    league = services.create_league(
        acting_user=director,
        name="Liga de Verano",
        season=2026,
        points_scale="10,6,4,3",
        tournaments=finished,
    )
    table = leagues.league_table(league)
    in_league = {  # (player, tournament) → (place, shared)
        (x.player.full_name, column.tournament.name): (cell.result.position, cell.result.shared)
        for x in table.lines
        for column, cell in zip(table.columns, x.cells, strict=True)
        if cell.result is not None
    }
    assert in_league == {
        ("Ana Alba", "Copa del Puerto"): (1, True),
        ("Carla Cid", "Copa del Puerto"): (1, True),
        ("Beto Bravo", "Copa del Puerto"): (3, True),
        ("Dani Duarte", "Copa del Puerto"): (3, True),
        ("Sara Sol", "Suizo del Faro"): (1, False),
        ("Tomás Toro", "Suizo del Faro"): (2, False),
    }
    assert in_league == {
        (line.entry.name, t.name): (line.place, line.place_shared)
        for t in finished
        for line in t.final_places()
        if line.place is not None
    }
    on_player_pages = {
        (x.player.full_name, p.tournament): (p.position, p.shared)
        for x in table.lines
        for p in stories.podiums(x.player.pk)
    }
    assert on_player_pages == in_league  # every place here is a podium
    assert [
        (x.player.full_name, x.line.wins, stories.player_stories(x.player.pk).wins)
        for x in table.lines
    ] == [
        ("Ana Alba", 1, 1),
        ("Carla Cid", 1, 1),
        ("Sara Sol", 1, 1),
        ("Tomás Toro", 0, 0),
        ("Beto Bravo", 0, 0),
        ("Dani Duarte", 0, 0),
    ]
