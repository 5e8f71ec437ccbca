"""The player page by season: a summary of the career (rating, this year's position and games,
career games, every season's games, final rating and change) from two queries, and one season's
chart and games (``?year=``, the newest by default); the CSV stays whole."""

import csv
import datetime as dt
import io
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from rankings import ledger, queries
from rankings.models import LedgerRow
from tournaments import services

pytestmark = pytest.mark.django_db

Y = timezone.localdate().year
GAME_ROW = re.compile(r'<th scope="row" class="name"><a href="/torneos/([^/]+)/">')
SEASON_ROW = re.compile(
    r'<tr(?: class="selected")?><th scope="row"><a href="\?year=(\d+)"( aria-current="page")?>'
    r'\d+</a></th>\s*<td class="num">(\d+)</td><td class="num">([^<]+)</td>'
    r'<td class="num">([^<]+)</td></tr>'
)


@pytest.fixture
def career(django_capture_on_commit_callbacks):
    """Four players, mano a mano, two years ago one game, last year two, this year three; the
    first player (Amparo) always plays the second, the third the fourth."""
    names = ["Amparo Quiroga", "Bruno Saldívar", "Cira Talamantes", "Delfino Urrutia"]
    players = [services.create_player(acting_user=None, full_name=n) for n in names]
    with django_capture_on_commit_callbacks(execute=True):
        for year, games in (
            (Y - 2, [(100, 40)]),
            (Y - 1, [(100, 0), (60, 100)]),
            (Y, [(100, 90), (30, 100), (100, 50)]),
        ):
            t = services.create_tournament(
                acting_user=None,
                name=f"Liga {year}",
                date=dt.date(year, 6, 1),
                system="domino",
                mode="single",
                target=100,
                status="running",
            )
            entries = [
                services.register_entry(acting_user=None, tournament=t, players=[p])
                for p in players
            ]
            for number, (a, b) in enumerate(games, start=1):
                rnd = services.set_pairings(
                    acting_user=None,
                    tournament=t,
                    round_number=number,
                    tables=[([entries[0]], [entries[1]]), ([entries[2]], [entries[3]])],
                )
                for table in rnd.tables.order_by("number"):
                    services.record_result(
                        acting_user=None, table=table, tantos_a=a, tantos_b=b, version=None
                    )
    return players


def rows_of(player, year):
    return list(LedgerRow.objects.filter(player=player, year=year).order_by("order_key"))


def test_player_seasons_give_games_final_rating_and_change_newest_first(career):
    amparo = career[0]
    seasons = queries.player_seasons(amparo)
    assert [(s.year, s.games) for s in seasons] == [(Y, 3), (Y - 1, 2), (Y - 2, 1)]
    for s in seasons:
        rows = rows_of(amparo, s.year)
        assert s.rating == rows[-1].rating_after
        assert s.change == rows[-1].rating_after - rows[0].rating_before
    # Two new players, a 100–40 win: 1500 + 32 × (S − 0.5), S from the margin (SCORING.md §2).
    first_game = rows_of(amparo, Y - 2)[0]
    assert seasons[-1].change == first_game.rating_after - 1500.0


def test_player_seasons_run_one_query_with_or_without_games(career, django_assert_num_queries):
    with django_assert_num_queries(1):  # the year figures the replay keeps
        assert len(queries.player_seasons(career[0])) == 3
    newcomer = services.create_player(acting_user=None, full_name="Eulalia Nueva")
    with django_assert_num_queries(1):
        assert queries.player_seasons(newcomer) == []


def test_player_history_of_one_year_is_that_years_games_in_two_queries(
    career, django_assert_num_queries
):
    amparo = career[0]
    with django_assert_num_queries(2):
        lines = queries.player_history(amparo, year=Y - 1)
    assert [ln.row.pk for ln in lines] == [r.pk for r in rows_of(amparo, Y - 1)]
    assert [ln.opponents for ln in lines] == [["Bruno Saldívar"], ["Bruno Saldívar"]]
    assert queries.player_history(amparo, year=Y - 5) == []
    assert len(queries.player_history(amparo)) == 6  # every game without a year


def page(client, player, **params):
    response = client.get(reverse("rankings:player", args=[player.pk]), params)
    assert response.status_code == 200, params
    return response.content.decode()


def test_the_page_sums_up_the_career_and_shows_the_newest_season(client, career):
    amparo = career[0]
    body = page(client, amparo)
    seasons = queries.player_seasons(amparo)
    rating = f"{seasons[0].rating:.1f}".replace(".", ",")
    assert f'<p class="big">Rating <strong>{rating}</strong> · puesto ' in body
    assert f"3 partidas en {Y} · 6 partidas en total" in body
    assert SEASON_ROW.findall(body) == [
        (
            str(s.year),
            ' aria-current="page"' if s.year == Y else "",
            str(s.games),
            f"{s.rating:.1f}".replace(".", ","),
            f"{s.change:+.1f}".replace(".", ","),
        )
        for s in seasons
    ]
    assert f'<h2 id="season-h">Temporada {Y}</h2>' in body
    assert GAME_ROW.findall(body) == [f"liga-{Y}-{Y}"] * 3
    assert body.count("<circle") == 4  # the start rating and three games
    assert 'class="year"' not in body  # one season: no year boundary


def test_the_position_is_this_years(client, career):
    amparo = career[0]
    assert f"puesto {queries.year_position(amparo.pk, Y)} en {Y}" in page(client, amparo)


def test_another_season_is_chosen_with_year(client, career):
    amparo = career[0]
    body = page(client, amparo, year=Y - 1)
    assert f'<h2 id="season-h">Temporada {Y - 1}</h2>' in body
    assert GAME_ROW.findall(body) == [f"liga-{Y - 1}-{Y - 1}"] * 2
    assert body.count("<circle") == 3
    assert f'<a href="?year={Y - 1}" aria-current="page">' in body
    # The summary stays the career's and this year's.
    assert f"3 partidas en {Y} · 6 partidas en total" in body
    # Newest first, as the rating went: the last row of the table is the season's first game.
    first = rows_of(amparo, Y - 1)[0]
    rating_cells = re.findall(r'<td class="num strong">([^<]+)</td></tr>', body)
    assert rating_cells[-1] == f"{first.rating_after:.1f}".replace(".", ",")


@pytest.mark.parametrize("year", ["abc", "-1", "99999", "", str(Y - 5), "2.5", "9" * 30])
def test_a_year_that_is_not_a_season_of_the_player_shows_the_newest(client, career, year):
    body = page(client, career[0], year=year)
    assert f'<h2 id="season-h">Temporada {Y}</h2>' in body
    assert GAME_ROW.findall(body) == [f"liga-{Y}-{Y}"] * 3


def test_a_player_without_games_this_year_shows_the_newest_season_and_no_position(client, career):
    amparo = career[0]
    LedgerRow.objects.filter(year=Y).delete()
    ledger.refresh_year_ratings()  # the year figures, as a replay leaves them
    body = page(client, amparo)
    assert f"sin partidas en {Y}" in body and "puesto" not in body
    assert f"0 partidas en {Y} · 3 partidas en total" in body
    assert f'<h2 id="season-h">Temporada {Y - 1}</h2>' in body


def test_a_player_without_rated_games_has_no_season(client, career):
    newcomer = services.create_player(acting_user=None, full_name="Eulalia Nueva")
    body = page(client, newcomer, year=Y)
    assert "Todavía no tiene partidas con ranking." in body
    assert "Temporada" not in body and "<svg" not in body


def test_the_csv_keeps_the_whole_career(client, career):
    response = client.get(reverse("rankings:player_csv", args=[career[0].pk]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert len(rows) == 1 + 6


def test_the_page_runs_the_same_queries_whatever_the_career(
    client, career, django_capture_on_commit_callbacks
):
    amparo = career[0]

    def count(**params):
        with CaptureQueriesContext(connection) as ctx:
            page(client, amparo, **params)
        return len(ctx.captured_queries)

    before = count(), count(year=Y - 2)
    t = services.create_tournament(
        acting_user=None,
        name="Liga extra",
        date=dt.date(Y - 3, 9, 1),
        system="domino",
        mode="single",
        target=100,
        status="running",
    )
    entries = [services.register_entry(acting_user=None, tournament=t, players=[p]) for p in career]
    with django_capture_on_commit_callbacks(execute=True):
        for number in range(1, 5):
            rnd = services.set_pairings(
                acting_user=None,
                tournament=t,
                round_number=number,
                tables=[([entries[0]], [entries[1]])],
            )
            services.record_result(
                acting_user=None,
                table=rnd.tables.get(),
                tantos_a=100,
                tantos_b=number,
                version=None,
            )
    assert [s.year for s in queries.player_seasons(amparo)] == [Y, Y - 1, Y - 2, Y - 3]
    assert (count(), count(year=Y - 2)) == before


def test_a_season_with_many_games_is_paged_newest_first(client, career, monkeypatch):
    from rankings import views

    monkeypatch.setattr(views, "PLAYER_GAMES_PAGE_SIZE", 2)
    amparo = career[0]
    rows = rows_of(amparo, Y)

    def ratings(body):
        return re.findall(r'<td class="num strong">([^<]+)</td></tr>', body)

    def shown(row):
        return f"{row.rating_after:.1f}".replace(".", ",")

    first = page(client, amparo)
    assert ratings(first) == [shown(rows[2]), shown(rows[1])]
    assert "Página 1 de 2" in first and f'rel="next" href="?year={Y}&amp;page=2"' in first
    assert first.count("<circle") == 4  # the chart keeps the whole season
    second = page(client, amparo, year=Y, page=2)
    assert ratings(second) == [shown(rows[0])]
    assert f'rel="prev" href="?year={Y}&amp;page=1"' in second and 'rel="next"' not in second
    for bad, expected in (("abc", 1), ("-1", 2), ("99999", 2), ("", 1)):
        assert f"Página {expected} de 2" in page(client, amparo, year=Y, page=bad)
    # A season that fits has no pager.
    assert "Página" not in page(client, amparo, year=Y - 1)
