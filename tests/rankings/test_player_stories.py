"""Players' stories (issue "player stories"): head to head between two players (pairs,
individual with rotating partners, mano a mano, Swiss, table games), and on the player page
the best partners, the frequent rivals, zapatos given and received, podiums and tournaments
won, the rating peak; each in a fixed number of queries (rankings/stories.py)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from rankings import ledger, stories
from rankings.models import LedgerRow
from tests import builders
from tournaments import services
from tournaments.models import FinalPlace, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def club():
    return builders.stories_club()


def test_head_to_head_of_singles_counts_every_system_apart(club):
    ana, beto = club["ana"], club["beto"]
    h = stories.head_to_head(ana.pk, beto.pk)
    assert (h.total.games, h.total.wins, h.total.draws, h.total.losses) == (6, 3, 1, 2)
    by = {t.system: t for t in h.by_system}
    assert [t.system for t in h.by_system] == ["domino", "swiss", "table"]
    # Dominó: individual 100–50 (on opposite sides), mano a mano 100–99 and 0–100; the no-show
    # and the draft are no games.
    d = by["domino"]
    assert (d.games, d.wins, d.draws, d.losses, d.figures_for, d.figures_against) == (
        3,
        2,
        0,
        1,
        200,
        249,
    )
    s = by["swiss"]  # 1–2, then 1–1 (the drawn game counts for neither)
    assert (s.games, s.wins, s.draws, s.losses, s.figures_for, s.figures_against) == (
        2,
        0,
        1,
        1,
        2,
        3,
    )
    t = by["table"]  # the same table: 10 VP against 8
    assert (t.games, t.wins, t.figures_for, t.figures_against) == (1, 1, 10, 8)
    # As partners: the three games of their pair (won 1, lost 2).
    assert (h.partners.games, h.partners.wins, h.partners.losses) == (3, 1, 2)
    # The last meetings, newest first, from Ana's side.
    assert [(m.date.day, m.result, m.own, m.other) for m in h.last] == [
        (29, "win", 10, 8),
        (22, "draw", 1, 1),
        (22, "loss", 1, 2),
        (15, "loss", 0, 100),
        (15, "win", 100, 99),
        (8, "win", 100, 50),
    ]
    # The rating Ana took from Beto: her changes in the three rated games they met in.
    rows = LedgerRow.objects.filter(
        player=ana, table__in=LedgerRow.objects.filter(player=beto).values("table")
    )
    opposed = [r for r in rows if r.tournament.name != "Parejas de Marzo"]
    assert len(opposed) == 3 and h.rated_games == 3
    assert h.exchanged == pytest.approx(sum(r.rating_after - r.rating_before for r in opposed))
    assert [m.change is not None for m in h.last] == [False, False, False, True, True, True]


def test_head_to_head_of_pairs_and_of_a_rotating_partner(club):
    carla, ana = club["carla"], club["ana"]
    h = stories.head_to_head(carla.pk, ana.pk)
    # Pairs: 0–100 (a zapato received) and 100–80; the table game: 7 VP against 10.
    assert (h.total.games, h.total.wins, h.total.draws, h.total.losses) == (3, 1, 0, 2)
    d = {t.system: t for t in h.by_system}["domino"]
    assert (d.games, d.wins, d.losses, d.figures_for, d.figures_against) == (2, 1, 1, 100, 180)
    # The individual tournament: partners, and they won.
    assert (h.partners.games, h.partners.wins) == (1, 1)
    # Players who never met: nothing.
    none = stories.head_to_head(club["eva"].pk, club["carla"].pk)
    assert none.total.games == 0 and none.last == [] and none.exchanged is None


def test_best_partners_rivals_and_zapatos(club):
    s = stories.player_stories(club["ana"].pk)
    assert [(c.name, c.tally.games, c.tally.wins) for c in s.partners] == [
        ("Beto Bravo", 3, 1),
        ("Carla Cano", 1, 1),
    ]
    assert [(c.name, c.tally.games) for c in s.rivals] == [
        ("Beto Bravo", 6),
        ("Dani Duque", 4),
        ("Carla Cano", 3),
        ("Eva Esteve", 1),
        ("Fede Fuentes", 1),
    ]
    # Given: 100–0 with Beto in the pairs; received: 0–100 from Beto in the mano a mano (the
    # no-show 100–0 and the draft's 0–100 are not zapatos).
    assert (s.zapatos_given, s.zapatos_received) == (1, 1)
    carla = stories.player_stories(club["carla"].pk)
    assert (carla.zapatos_given, carla.zapatos_received) == (0, 1)
    assert [(c.name, c.tally.games, c.tally.wins) for c in carla.partners] == [
        ("Dani Duque", 2, 1),
        ("Ana Arenas", 1, 1),
    ]


def test_podiums_tournaments_won_and_the_rating_peak(club):
    s = stories.player_stories(club["ana"].pk)
    # Finished tournaments only (the mano a mano runs), newest first; a shared first place
    # (the individual) is a win.
    assert [(p.tournament, p.position, p.shared) for p in s.podiums] == [
        ("Mesa de Marzo", 1, False),
        ("Suizo de Marzo", 2, False),
        ("Individual de Marzo", 1, True),
        ("Parejas de Marzo", 1, False),
    ]
    assert (s.podium_count, s.wins) == (4, 3)
    rows = list(LedgerRow.objects.filter(player=club["ana"]).order_by("order_key"))
    best = max(rows, key=lambda r: r.rating_after)
    assert s.peak.rating == best.rating_after and s.peak.played_at == best.played_at
    # Eva: second in the pairs (one win, by efectividad over Carla & Dani).
    eva = stories.player_stories(club["eva"].pk)
    assert [(p.tournament, p.position) for p in eva.podiums] == [("Parejas de Marzo", 2)]
    assert eva.wins == 0


def test_the_player_page_shows_the_stories_and_links_head_to_head(client, club):
    ana, beto = club["ana"], club["beto"]
    body = client.get(reverse("rankings:player", args=[ana.pk])).content.decode()
    assert 'id="stories-h"' in body
    assert '<dd class="zapatos">dados: 1 · recibidos: 1</dd>' in body
    assert "4 podios · 3 torneos ganados" in body
    h2h = reverse("rankings:head_to_head", args=[ana.pk, beto.pk])
    assert f'href="{h2h}"' in body  # the rivals and the games' opponents
    page = client.get(h2h)
    assert page.status_code == 200
    text = page.content.decode()
    assert "<h1>Ana Arenas contra Beto Bravo</h1>" in text
    assert "6 partidas entre ellos" in text
    assert (
        "Ana Arenas ganó <strong>3</strong>, empató <strong>1</strong> y perdió <strong>2</strong>"
        in text
    )
    assert len(re.findall(r'<td class="result (?:win|draw|loss)">', text)) == 6
    assert "Borrador" not in text
    assert client.get(reverse("rankings:head_to_head", args=[ana.pk, ana.pk])).status_code == 404


@pytest.mark.parametrize("language", ["en", "ru"])
def test_head_to_head_reads_in_every_language(client, club, language):
    url = reverse("rankings:head_to_head", args=[club["ana"].pk, club["beto"].pk])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200 and f'lang="{language}"' in response.content.decode()


def test_a_player_only_in_drafts_has_no_head_to_head(client, club):
    hidden = services.create_player(acting_user=None, full_name="Gil Oculto")
    t = Tournament.objects.get(name="Borrador de Marzo")
    services.register_entry(acting_user=None, tournament=t, players=[hidden])
    url = reverse("rankings:head_to_head", args=[club["ana"].pk, hidden.pk])
    assert client.get(url).status_code == 404


def _more_games(club):
    """Another finished pairs tournament and another table game: more games for everyone."""
    ana, beto, carla, dani, eva, fede = club.values()
    t = builders.tournament(
        name="Parejas de Abril",
        date=dt.date(2025, 3, 31),
        status="running",
        mode="pairs",
        target=100,
    )
    groups = [[ana, beto], [carla, dani], [eva, fede]]
    ab, cd, ef = (builders.entry(t, g) for g in groups)
    for number in range(1, 5):
        builders.play(t, number, [(ab, cd)], [builders.tantos(100, 10 * number)])
    builders.finish(t, open_rounds_ok=True)
    ledger.rebuild()
    FinalPlace.objects.store_all(missing_only=True)  # what the finish's commit stores


def test_the_stories_take_a_fixed_number_of_queries(club, django_assert_num_queries):
    ana, beto = club["ana"], club["beto"]
    FinalPlace.objects.store_all()  # what the commits of the tournaments' finish stored
    # each reading the players' own rows: the two players' entries 1, the tables both sat
    # at 1, those tables 1, their seats 1, the seats' entries 1, outcomes 1 per system (3),
    # Ana's ledger rows 1
    with django_assert_num_queries(9):
        stories.head_to_head(ana.pk, beto.pk)
    # No stored story yet: whether a request waits 1, the stored story (none) 1, then the
    # figures from every game (Ana's entries 1, her tables' ids 1, the tables 1, their seats
    # 1, the seats' entries 1, outcomes 3), the story inserted 1, the companions' names 1,
    # podiums (the stored final places) 1, the peak 1
    with django_assert_num_queries(14):
        stories.player_stories(ana.pk)
    # Stored: whether a request waits 1, the story 1, the names 1, podiums 1, the peak 1
    with django_assert_num_queries(5):
        stories.player_stories(ana.pk)

    def count(call):
        with CaptureQueriesContext(connection) as ctx:
            call()
        return len(ctx.captured_queries)

    before = (
        count(lambda: stories.head_to_head(ana.pk, beto.pk)),
        count(lambda: stories.player_stories(ana.pk)),
    )
    _more_games(club)
    after = (
        count(lambda: stories.head_to_head(ana.pk, beto.pk)),
        count(lambda: stories.player_stories(ana.pk)),
    )
    assert after == before


def test_the_pages_take_the_same_queries_with_more_games(client, club):
    ana, beto = club["ana"], club["beto"]
    urls = [
        reverse("rankings:player", args=[ana.pk]),
        reverse("rankings:head_to_head", args=[ana.pk, beto.pk]),
    ]

    def counts():
        out = []
        for url in urls:
            with CaptureQueriesContext(connection) as ctx:
                assert client.get(url).status_code == 200
            out.append(len(ctx.captured_queries))
        return out

    FinalPlace.objects.store_all()  # what the commits of the tournaments' finish stored
    counts()  # the first read stores Ana's story (PlayerStory), as the worker would have
    before = counts()
    _more_games(club)
    assert counts() == before


def test_standings_of_many_tournaments_equal_each_ones_standings(club):
    from tournaments import systems

    finished = list(Tournament.objects.filter(status="finished"))
    for key in {t.system for t in finished}:
        mine = [t for t in finished if t.system == key]
        many = systems.get(key).standings_many(mine)
        for t in mine:
            one = t.standings()
            assert [(ln.entry.pk, ln.row) for ln in many[t.pk]] == [
                (ln.entry.pk, ln.row) for ln in one
            ]


@pytest.mark.page_cache
@pytest.mark.django_db(transaction=True)  # real commits: they draw the page cache's generations
def test_a_corrected_unrated_result_reaches_the_cached_pages(client):
    """A Swiss result starts no ledger replay: the pages name the scopes of the players'
    tournaments, so its correction still reaches them."""
    p = builders.stories_club()
    ana, beto = p["ana"], p["beto"]
    urls = [
        reverse("rankings:head_to_head", args=[ana.pk, beto.pk]),
        reverse("rankings:player", args=[ana.pk]),
    ]
    before = {url: client.get(url) for url in urls}
    for url, response in before.items():  # served from the cache now
        assert client.get(url, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304
    swiss = Tournament.objects.get(name="Suizo de Marzo")
    table = swiss.rounds.get(number=2).tables.get()
    services.record_result(
        acting_user=None, table=table, version=None, games_a=2, games_b=0, games_drawn=0
    )
    after = {url: client.get(url) for url in urls}
    for url in urls:
        assert after[url]["ETag"] != before[url]["ETag"], url
    assert "ganó <strong>4</strong>, empató <strong>0</strong>" in after[urls[0]].content.decode()


def test_frequent_rivals_are_ordered_by_games_won_and_lost_alike_best_partners_by_share_won():
    def companion(pid, name, wins, losses):
        tally = stories.Tally()
        for _ in range(wins):
            tally.add(stories.WIN)
        for _ in range(losses):
            tally.add(stories.LOSS)
        return stories.Companion(pid, name, tally)

    met = {
        1: companion(1, "Zoila Zamora", 3, 0),  # won every game against her
        2: companion(2, "Abel Alba", 0, 3),  # lost every game against him
        3: companion(3, "Mara Montes", 1, 1),
    }
    rivals = stories._ranked(met, 5, by_share_won=False)
    assert [c.name for c in rivals] == ["Abel Alba", "Zoila Zamora", "Mara Montes"]
    partners = stories._ranked(met, 5, by_share_won=True)
    assert [c.name for c in partners] == ["Zoila Zamora", "Abel Alba", "Mara Montes"]


def test_the_shorthand_of_the_games_is_explained_under_them(client, club):
    ana, beto = club["ana"], club["beto"]
    body = client.get(reverse("rankings:player", args=[ana.pk])).content.decode()
    assert (
        '<p class="hint legend">R1 M2: ronda 1, mesa 2; Esperado y Obtenido: la puntuación que '
        "el rating esperaba y la que hubo (1 ganar, 0 perder); K: cuánto mueve el rating una "
        "partida (glosario).</p>"
    ) in body
    page = client.get(reverse("rankings:head_to_head", args=[ana.pk, beto.pk])).content.decode()
    assert '<p class="hint legend">R1 M2: ronda 1, mesa 2.</p>' in page
