"""Leagues (docs/SCORING.md, "Leagues"): the pure rule with the worked example and each
tiebreak, the services' refusals, pairs crediting both partners, the public pages (exact rows,
CSV and .xlsx), the player page's league positions, the directors' pages, the admin, and the
page cache after a result changes."""

import datetime as dt
import io
import re
from html.parser import HTMLParser

import openpyxl
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests import builders
from tournaments import leagues, services
from tournaments.errors import DomainError
from tournaments.models import League
from tournaments.scoring import league as rules
from tournaments.scoring.league import Placing, TournamentPlaces

# --- the pure rule ---------------------------------------------------------------------------------

DEFAULT_SCALE = "25,18,15,12,10,8,6,4,2,1"


def places(tid, spots, *, finished=True, pairs=False):
    """A tournament's places from {player: position}; a position held twice is shared (in a
    ``pairs`` tournament, by two pairs: each pair's two players hold one place)."""
    held = {}
    for pos in spots.values():
        held[pos] = held.get(pos, 0) + 1
    size = 2 if pairs else 1
    return TournamentPlaces(
        tid,
        tuple(Placing(pid, pos, held[pos] > size) for pid, pos in spots.items()),
        finished=finished,
    )


A, B, C, D, E, F, G, H = "ABCDEFGH"
#: SCORING.md "Leagues", worked example: T1 is a pairs tournament (A&B, C&E, D&F, G&H), the
#: others individual; in T4 G and H share 5th.
WORKED = [
    places(1, {A: 1, B: 1, C: 2, E: 2, D: 3, F: 3, G: 4, H: 4}, pairs=True),
    places(2, {C: 1, D: 2, A: 3, F: 4, B: 5}),
    places(3, {A: 1, E: 2, B: 3, D: 4, F: 5, C: 6}),
    places(4, {B: 1, D: 2, F: 3, A: 4, G: 5, H: 5, E: 7, C: 8}),
]


def table(tournaments, scale=DEFAULT_SCALE, participation=2, best=3):
    return rules.standings(
        tournaments, scale=rules.parse_scale(scale), participation=participation, best=best
    )


def test_the_worked_example_of_scoring_md():
    lines = table(WORKED)
    got = [
        (ln.position, ln.shared, ln.player_id, ln.total, ln.wins, ln.best_place, ln.decided_by)
        for ln in lines
    ]
    assert got == [
        (1, False, B, 71, 2, 1, "last_tournament"),
        (2, False, A, 71, 2, 1, "last_tournament"),
        (3, False, C, 57, 1, 1, "wins"),
        (4, False, D, 57, 0, 2, "wins"),
        (5, False, E, 48, 0, 2, "best_place"),
        (6, False, F, 48, 0, 3, "best_place"),
        (7, True, G, 26, 0, 4, None),
        (7, True, H, 26, 0, 4, None),
    ]
    results = {
        ln.player_id: [(r.tournament_id, r.points, r.status) for r in ln.results.values()]
        for ln in lines
    }
    assert results == {
        A: [(1, 27, "counted"), (2, 17, "counted"), (3, 27, "counted"), (4, 14, "discarded")],
        B: [(1, 27, "counted"), (2, 12, "discarded"), (3, 17, "counted"), (4, 27, "counted")],
        C: [(1, 20, "counted"), (2, 27, "counted"), (3, 10, "counted"), (4, 6, "discarded")],
        D: [(1, 17, "counted"), (2, 20, "counted"), (3, 14, "discarded"), (4, 20, "counted")],
        E: [(1, 20, "counted"), (3, 20, "counted"), (4, 8, "counted")],
        F: [(1, 17, "counted"), (2, 14, "counted"), (3, 12, "discarded"), (4, 17, "counted")],
        G: [(1, 14, "counted"), (4, 12, "counted")],
        H: [(1, 14, "counted"), (4, 12, "counted")],
    }
    # a shared place gives each the points of that place: G and H, =5th in T4, 10 + 2 each
    assert [r.shared for r in lines[-1].results.values()] == [False, True]


def test_every_result_counts_without_best_n():
    lines = {ln.player_id: ln for ln in table(WORKED, best=None)}
    assert lines[A].total == 27 + 17 + 27 + 14
    assert all(r.counted for ln in lines.values() for r in ln.results.values())


def test_points_of_a_place_past_the_scale_are_the_participation_points_alone():
    scale = rules.parse_scale("10,6,4")
    assert [rules.place_points(p, scale, 1) for p in (1, 2, 3, 4, 9)] == [11, 7, 5, 1, 1]
    assert rules.place_points(4, scale) == 0


def test_more_wins_break_a_tie():
    lines = table(
        [places(1, {A: 1, B: 2}), places(2, {C: 1, B: 2, A: 3}), places(3, {C: 1, B: 2, A: 3})],
        scale="10,6,4",
        participation=0,
        best=None,
    )  # C 10 + 10; A 10 + 4 + 4 = 18 with a win; B 6 + 6 + 6 = 18 without
    assert [(ln.player_id, ln.total, ln.wins, ln.decided_by) for ln in lines] == [
        (C, 20, 2, None),
        (A, 18, 1, "wins"),
        (B, 18, 0, "wins"),
    ]


def test_wins_count_discarded_results_too():
    lines = table(
        [places(1, {A: 1, B: 2}), places(2, {A: 9, B: 1}), places(3, {A: 1, B: 9})],
        scale="10,10,0",
        participation=0,
        best=1,
    )  # each keeps one 10; A has two wins (one of them discarded), B one
    assert [(ln.player_id, ln.total, ln.wins, ln.decided_by) for ln in lines] == [
        (A, 10, 2, "wins"),
        (B, 10, 1, "wins"),
    ]


def test_the_best_single_placing_breaks_a_tie_of_wins():
    lines = table(
        [places(1, {C: 1, A: 2, B: 3}), places(2, {C: 1, B: 3, A: 4})],
        scale="10,5,5,5",
        participation=0,
        best=None,
    )  # A and B 10 each, no wins; A's best is 2nd, B's 3rd
    assert [(ln.player_id, ln.total, ln.best_place, ln.decided_by) for ln in lines] == [
        (C, 20, 1, None),
        (A, 10, 2, "best_place"),
        (B, 10, 3, "best_place"),
    ]


def test_the_last_tournament_all_of_them_played_orders_a_group_and_again_inside_it():
    """Every result is worth 5 (scale "0", 5 for taking part): A, B, C and D have 15 each.
    D won all three: ahead by wins. A, B and C have no win and a best place of 2nd each. The
    last tournament the three played, T3: C 2nd, A and B =3rd; then A and B alone: level in
    T3, so T2: B 2nd, A 3rd."""
    lines = table(
        [
            places(1, {D: 1, A: 2, B: 3, C: 3}),
            places(2, {D: 1, B: 2, A: 3, C: 4}),
            places(3, {D: 1, C: 2, A: 3, B: 3}),
        ],
        scale="0",
        participation=5,
        best=None,
    )
    assert [(ln.player_id, ln.total, ln.position, ln.decided_by) for ln in lines] == [
        (D, 15, 1, "wins"),
        (C, 15, 2, "last_tournament"),
        (B, 15, 3, "last_tournament"),
        (A, 15, 4, "last_tournament"),
    ]


def test_the_last_tournament_is_the_last_both_played_not_the_last_of_the_league():
    lines = table(
        [places(1, {A: 2, B: 3}), places(2, {B: 2, A: 3}), places(3, {C: 1, A: 2})],
        scale="6,4,4",
        participation=0,
        best=2,
    )  # A 4 + 4 (T3's 4 discarded), B 4 + 4, no wins, best 2nd each; T3 is A's only, so T2
    # decides: B 2nd, A 3rd
    assert [(ln.player_id, ln.total, ln.decided_by) for ln in lines] == [
        (B, 8, "last_tournament"),
        (A, 8, "last_tournament"),
        (C, 6, None),
    ]
    assert lines[1].results[3].status == "discarded"


def test_players_level_after_every_rule_share_the_position():
    lines = table(
        [places(1, {A: 2, B: 2, C: 1}), places(2, {A: 1, B: 1})],
        scale="10,6",
        participation=0,
        best=None,
    )
    assert [(ln.player_id, ln.position, ln.shared) for ln in lines] == [
        (A, 1, True),
        (B, 1, True),
        (C, 3, False),
    ]


def test_a_running_tournament_is_provisional_and_counts_for_nothing():
    lines = table(
        [places(1, {A: 1, B: 2}), places(2, {B: 1, C: 1, A: 3}, finished=False)],
        scale="10,6,4",
        participation=1,
        best=None,
    )
    by = {ln.player_id: ln for ln in lines}
    assert (by[A].total, by[B].total, by[C].total) == (11, 7, 0)
    assert by[B].results[2].status == "provisional" and by[B].results[2].points == 11
    assert by[B].wins == 0 and by[C].best_place is None and by[C].played == 0
    assert [ln.player_id for ln in lines] == [A, B, C]


def test_tournaments_left():
    assert rules.tournaments_left(10, 4) == 6
    assert rules.tournaments_left(3, 5) == 0
    assert rules.tournaments_left(None, 4) is None


@pytest.mark.parametrize(
    ("typed", "scale"),
    [
        ("25,18,15", (25, 18, 15)),
        (" 25 , 18,15, ", (25, 18, 15)),
        ("0", (0,)),
        ("5,5,0", (5, 5, 0)),
        (",".join(["1"] * 50), (1,) * 50),
    ],
)
def test_a_points_scale_is_read_as_typed(typed, scale):
    assert rules.parse_scale(typed) == scale
    assert rules.scale_text(scale) == ",".join(str(v) for v in scale)


@pytest.mark.parametrize(
    ("typed", "code", "words"),
    [
        ("", "league_scale_empty", "Escribe los puntos por puesto"),
        ("   ", "league_scale_empty", "separados por comas"),
        ("25,x,15", "league_scale_value", "El valor 2 de los puntos por puesto es «x»"),
        ("25,-1", "league_scale_value", "«-1»"),
        ("25,,18", "league_scale_value", "El valor 2"),
        ("25;18", "league_scale_value", "«25;18»"),
        ("25.5", "league_scale_value", "de 0 a 9999"),
        ("10000", "league_scale_value", "«10000»"),
        ("²", "league_scale_value", "«²»"),
        (
            ",".join(["1"] * 51),
            "league_scale_too_long",
            "tienen 51 valores: como mucho pueden ser 50",
        ),
        ("10,12,8", "league_scale_order", "el puesto 2 vale más que el puesto 1"),
    ],
)
def test_a_points_scale_is_refused_in_words(typed, code, words):
    with pytest.raises(DomainError) as caught:
        rules.parse_scale(typed)
    assert caught.value.code == code
    assert words in caught.value.message


# --- the services ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_create_league_stores_the_scale_as_read_and_a_slug_with_the_season(director):
    t = builders.tournament(
        builders.LEAGUE_CUP, acting_user=director, name="Copa Uno", date=dt.date(2026, 1, 10)
    )
    league = services.create_league(
        acting_user=director,
        name="  Liga   de Invierno ",
        season="2026",
        points_scale="10, 6,4,",
        participation_points="1",
        best_results=" 2 ",
        planned_tournaments="",
        tournaments=[t],
    )
    league.refresh_from_db()
    assert (league.name, league.slug, league.season, league.points_scale) == (
        "Liga de Invierno",
        "liga-de-invierno-2026",
        2026,
        "10,6,4",
    )
    assert (league.participation_points, league.best_results, league.planned_tournaments) == (
        1,
        2,
        None,
    )
    assert list(league.tournaments.all()) == [t]
    assert league.history.first().history_user == director
    again = services.create_league(acting_user=director, name="Liga 2026", season=2026)
    assert again.slug == "liga-2026"
    third = services.create_league(acting_user=director, name="Liga", season=2026)
    assert third.slug == "liga-2026-2"
    assert third.points_scale == "25,18,15,12,10,8,6,4,2,1"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "code", "words"),
    [
        ({"name": "  "}, "name_required", "Falta el nombre."),
        ({"name": "x" * 121}, "name_too_long", "máximo 120"),
        ({"season": ""}, "league_season", "entre 1900 y 2999; se recibió «»"),
        ({"season": "dos mil"}, "league_season", "«dos mil»"),
        ({"season": 1899}, "league_season", "«1899»"),
        ({"points_scale": "10,20"}, "league_scale_order", "no pueden subir"),
        ({"participation_points": "-1"}, "league_participation", "de 0 a 9999"),
        ({"best_results": "0"}, "league_best_results", "de 1 a 99 (vacío: todos)"),
        ({"best_results": "tres"}, "league_best_results", "«tres»"),
        ({"planned_tournaments": "100"}, "league_planned", "de 1 a 99"),
        ({"description": "x" * 2001}, "league_description_too_long", "máximo 2000"),
    ],
)
def test_the_league_services_refuse_in_words_and_store_nothing(director, fields, code, words):
    values = {"name": "Liga", "season": 2026, **fields}
    with pytest.raises(DomainError) as caught:
        services.create_league(acting_user=director, **values)
    assert caught.value.code == code
    assert words in caught.value.message
    assert not League.objects.exists()


@pytest.mark.django_db
def test_a_league_cannot_hold_more_tournaments_than_planned(director):
    ts = [
        builders.tournament(
            builders.LEAGUE_CUP, acting_user=director, name=f"Copa {i}", date=dt.date(2026, i, 1)
        )
        for i in (1, 2, 3)
    ]
    with pytest.raises(DomainError) as caught:
        services.create_league(
            acting_user=director, name="Liga", season=2026, planned_tournaments=2, tournaments=ts
        )
    assert caught.value.code == "league_planned_below"
    assert caught.value.message == (
        "La liga tiene 3 torneos y se prevén 2: sube los torneos previstos o quita alguno de "
        "la liga."
    )
    league = services.create_league(
        acting_user=director, name="Liga", season=2026, planned_tournaments=2, tournaments=ts[:2]
    )
    with pytest.raises(DomainError) as caught:
        services.set_league_tournaments(acting_user=director, league=league, tournaments=ts)
    assert caught.value.code == "league_planned_below"
    with pytest.raises(DomainError) as caught:
        services.update_league(acting_user=director, league=league, planned_tournaments=1)
    assert caught.value.code == "league_planned_below"
    assert set(league.tournaments.all()) == set(ts[:2])
    services.update_league(
        acting_user=director, league=league, planned_tournaments=3, tournaments=ts
    )
    assert league.tournaments.count() == 3


@pytest.mark.django_db
def test_league_problems_gives_every_refusal_at_once(director):
    problems = services.league_problems(
        name="", season="x", points_scale="a", best_results="0", planned_tournaments="0"
    )
    assert [p.code for p in problems] == [
        "name_required",
        "league_season",
        "league_scale_value",
        "league_best_results",
        "league_planned",
    ]


# --- a league of real tournaments -----------------------------------------------------------------


@pytest.fixture
def winter(director):
    return builders.winter_league(director)


class Rows(HTMLParser):
    """The text of each cell of each body row of ``table.<css>``, without the screen-reader
    words (.sr-only) and the phone's detail line (.detail); struck cells as "~n~", provisional
    ones as "/n/"."""

    def __init__(self, css):
        super().__init__()
        self.css, self.inside, self.rows, self.skip, self.cell = css, 0, [], 0, None
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "table" and self.css in classes:
            self.inside = 1
        if not self.inside:
            return
        if self.skip or "sr-only" in classes or "detail" in classes:
            self.skip += 1 if tag not in ("br",) else 0
            return
        if tag == "tbody":
            self.inside = 2
        elif tag == "tr" and self.inside == 2:
            self.rows.append([])
        elif tag in ("td", "th") and self.inside == 2:
            self.cell = ""
        elif tag == "s" and self.cell is not None:
            self.cell += "~"
        elif tag == "i" and self.cell is not None:
            self.cell += "/"

    def handle_endtag(self, tag):
        if not self.inside:
            return
        if self.skip:
            self.skip -= 1
            return
        if tag in ("td", "th") and self.cell is not None and self.inside == 2:
            self.rows[-1].append(" ".join(self.cell.split()))
            self.cell = None
        elif tag == "s" and self.cell is not None:
            self.cell += "~"
        elif tag == "i" and self.cell is not None:
            self.cell += "/"
        elif tag == "table":
            self.inside = 0

    def handle_data(self, data):
        if self.inside and not self.skip and self.cell is not None:
            self.cell += data


def body_rows(html, css):
    parser = Rows(css)
    parser.feed(html)
    return parser.rows


EXPECTED_ROWS = [
    # pos, player, total, T1, T2, T3, T4 (provisional), tiebreak
    ["1", "Ana Alba", "22", "11", "11", "~5~", "/11/", ""],
    ["2", "Carla Cid", "18", "7", "~4~", "11", "—", "por el último torneo"],
    ["3", "Beto Bravo", "18", "11", "7", "~4~", "—", "por el último torneo"],
    ["4", "Dani Duarte", "14", "7", "~5~", "7", "/7/", ""],
]


@pytest.mark.django_db
def test_the_league_page_shows_each_line_with_its_discarded_and_provisional_results(client, winter):
    response = client.get(reverse("public:league", args=[winter["league"].slug]))
    assert response.status_code == 200
    html = response.content.decode()
    assert body_rows(html, "league-table") == EXPECTED_ROWS
    heads = re.findall(r'<abbr title="([^"]+)">(T\d)</abbr></th>', html)
    assert heads == [
        ("Copa Enero", "T1"),
        ("Copa Febrero", "T2"),
        ("Copa Marzo", "T3"),
        ("Copa Abril", "T4"),
    ]
    assert "Copa Mayo" not in html  # a draft
    assert "Elena" not in html  # entered, never played
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "Temporada 2026 · 3 torneos terminados · quedan 3 torneos" in text
    assert (
        "Tachado: resultado descartado (cuentan los 2 mejores resultados de cada jugador)." in text
    )
    assert "En cursiva: puntos provisionales de un torneo en curso" in text
    assert "10, 6, 4, 3" in text
    # the phone's detail line under each name: every tournament, then what placed it
    detail = re.search(r'Carla Cid</a> <span class="detail items">(.*?)</span></th>', html).group(1)
    detail = re.sub(r'<span class="sr-only">.*?</span>', "", detail)
    assert re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", detail)).split() == (
        "T1 7 T2 4 T3 11 T4 — por el último torneo".split()
    )
    assert '<s class="discarded" title="puesto 4 · descartado">4</s>' in html


@pytest.mark.django_db
def test_a_large_league_table_is_paged_like_the_standings(client, winter, monkeypatch):
    """Pages of two lines (no orphans): each page shows its lines with the positions of the
    whole table, a pager, and builds the players of its own lines only; the CSV stays whole;
    a page out of range shows the last one, text the first."""
    from tournaments.views import leagues as league_views

    monkeypatch.setattr(league_views, "STANDINGS_PAGE_SIZE", 2)
    monkeypatch.setattr(league_views, "STANDINGS_ORPHANS", 0)
    url = reverse("public:league", args=[winter["league"].slug])
    first = client.get(url).content.decode()
    assert body_rows(first, "league-table") == EXPECTED_ROWS[:2]
    assert "Página 1 de 2" in first and 'href="?page=2"' in first
    second = client.get(url + "?page=2").content.decode()
    assert body_rows(second, "league-table") == EXPECTED_ROWS[2:]
    assert "Página 2 de 2" in second and 'href="?page=1"' in second
    assert "Ana Alba" not in second
    # out of range: the last page; text: the first (the page cache redirects them there:
    # tests/test_every_address.py)
    assert (
        body_rows(client.get(url + "?page=9").content.decode(), "league-table")
        == (EXPECTED_ROWS[2:])
    )
    assert (
        body_rows(client.get(url + "?page=x").content.decode(), "league-table")
        == (EXPECTED_ROWS[:2])
    )
    csv = client.get(reverse("public:league_csv", args=[winter["league"].slug])).content
    assert len(csv.splitlines()) == 5  # the header and every line
    table = leagues.league_table(winter["league"], "2", per_page=3, orphans=0)
    assert [t.player.full_name for t in table.lines] == ["Dani Duarte"]
    assert (table.page.number, table.players, table.lines[0].line.position) == (2, 4, 4)
    whole = leagues.league_table(winter["league"], 1, per_page=3, orphans=1)  # 4 fit on one
    assert (whole.page, len(whole.lines)) == (None, 4)
    # a wide table: at most max_cells cells a page (4 tournaments: 8 cells, 2 lines), but never
    # fewer than MIN_PAGE_LINES lines
    monkeypatch.setattr(leagues, "MIN_PAGE_LINES", 1)
    wide = leagues.league_table(winter["league"], 1, per_page=100, orphans=10, max_cells=8)
    assert (wide.page.number, wide.page.paginator.num_pages, len(wide.lines)) == (1, 2, 2)
    monkeypatch.setattr(leagues, "MIN_PAGE_LINES", 3)
    wide = leagues.league_table(winter["league"], 1, per_page=100, orphans=10, max_cells=8)
    assert (wide.page.paginator.num_pages, len(wide.lines)) == (2, 3)


@pytest.mark.django_db
def test_pairs_credit_both_partners(winter):
    t1 = winter["tournaments"][0]
    got = leagues.tournament_places([t1])[t1.pk]
    p = winter["players"]
    assert sorted((pl.player_id, pl.position, pl.shared) for pl in got.placings) == sorted(
        [(p["Ana"].pk, 1, False), (p["Beto"].pk, 1, False)]
        + [(p["Carla"].pk, 2, False), (p["Dani"].pk, 2, False)]
    )
    table_ = leagues.league_table(winter["league"])
    first = {t.player.full_name: t.cells[0].result.points for t in table_.lines}
    assert first == {"Ana Alba": 11, "Beto Bravo": 11, "Carla Cid": 7, "Dani Duarte": 7}


@pytest.mark.django_db
def test_a_shared_place_in_a_tournament_gives_each_its_points(director):
    """Two tables won 100–50: the winners are level on everything and share 1st, the losers
    share 3rd (they never met): each takes the points of the place shared."""
    by = {"acting_user": director}
    ps = builders.players([f"Jugador {i}" for i in "ABCD"], **by)
    t = builders.tournament(builders.LEAGUE_CUP, name="Copa Empate", date=dt.date(2026, 6, 6), **by)
    e = builders.entries(t, ps, **by)
    results = [builders.tantos(100, 50)] * 2
    builders.play(t, 1, [(e[0], e[1]), (e[2], e[3])], results, version=0, close=True, **by)
    t = builders.finish(t, **by)
    league = services.create_league(
        acting_user=director, name="Liga", season=2026, points_scale="10,6,4,3", tournaments=[t]
    )
    got = [
        (t.line.position, t.line.shared, t.line.total) for t in leagues.league_table(league).lines
    ]
    assert got == [(1, True, 10), (1, True, 10), (3, True, 4), (3, True, 4)]


@pytest.mark.django_db
def test_the_league_list_shows_the_seasons_leagues(client, winter, director):
    services.create_league(acting_user=director, name="Liga Vieja", season=2025)
    html = client.get(reverse("public:leagues") + "?season=2026").content.decode()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "Liga de Invierno" in text and "Liga Vieja" not in text
    assert "3 de 6 torneos terminados · quedan 3 torneos" in text
    assert '<a href="?season=2025">2025</a>' in html
    old = client.get(reverse("public:leagues") + "?season=2025").content.decode()
    assert "Liga Vieja" in old and "Liga de Invierno" not in old
    assert client.get(reverse("public:leagues") + "?season=abc").status_code == 200


@pytest.mark.django_db
def test_an_unknown_league_is_404(client):
    assert client.get(reverse("public:league", args=["no-existe"])).status_code == 404
    assert client.get(reverse("public:league_csv", args=["no-existe"])).status_code == 404


@pytest.mark.django_db
def test_the_csv_and_xlsx_downloads(client, winter):
    slug = winter["league"].slug
    response = client.get(reverse("public:league_csv", args=[slug]))
    assert response["Content-Disposition"] == f'attachment; filename="{slug}.csv"'
    body = response.content.decode("utf-8")
    assert body.startswith("\ufeff")
    lines = body[1:].splitlines()
    assert lines[0] == (
        "position,player,total,wins,best_place,played,"
        "copa-enero-2026_place,copa-enero-2026_points,copa-enero-2026_status,"
        "copa-febrero-2026_place,copa-febrero-2026_points,copa-febrero-2026_status,"
        "copa-marzo-2026_place,copa-marzo-2026_points,copa-marzo-2026_status,"
        "copa-abril-2026_place,copa-abril-2026_points,copa-abril-2026_status"
    )
    assert lines[1:] == [
        "1,Ana Alba,22,2,1,3,1,11,counted,1,11,counted,3,5,discarded,1,11,provisional",
        "2,Carla Cid,18,1,1,3,2,7,counted,4,4,discarded,1,11,counted,,,",
        "3,Beto Bravo,18,1,1,3,1,11,counted,2,7,counted,4,4,discarded,,,",
        "4,Dani Duarte,14,0,2,3,2,7,counted,3,5,discarded,2,7,counted,2,7,provisional",
    ]
    exact = client.get(reverse("public:league_csv", args=[slug]) + "?precision=full")
    assert exact.content == response.content
    assert exact["Content-Disposition"] == f'attachment; filename="{slug}-exacto.csv"'
    book = client.get(reverse("public:league_xlsx", args=[slug]))
    assert book["Content-Disposition"] == f'attachment; filename="{slug}.xlsx"'
    sheet = openpyxl.load_workbook(io.BytesIO(book.content)).active
    assert sheet.title == "Liga"
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0][:6] == ("position", "player", "total", "wins", "best_place", "played")
    assert rows[2] == (2, "Carla Cid", 18, 1, 1, 3, 2, 7, "counted", 4, 4, "discarded") + (
        1,
        11,
        "counted",
        None,
        None,
        None,
    )


@pytest.mark.django_db
def test_the_player_page_shows_their_league_positions(client, winter, director):
    carla = winter["players"]["Carla"]
    html = client.get(reverse("rankings:player", args=[carla.pk])).content.decode()
    assert body_rows(html, "leagues") == [
        ["Liga de Invierno 2026 · quedan 3 torneos", "2 de 4", "18"]
    ]
    assert reverse("public:league", args=[winter["league"].slug]) in html
    elena = winter["players"]["Elena"]  # entered, never played: no place in the league
    html = client.get(reverse("rankings:player", args=[elena.pk])).content.decode()
    assert body_rows(html, "leagues") == [["Liga de Invierno 2026 · quedan 3 torneos", "—", "—"]]


@pytest.mark.django_db
def test_the_league_page_takes_a_fixed_number_of_queries_per_tournament(client, winter, director):
    url = reverse("public:league", args=[winter["league"].slug])

    def count(path):
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(path).status_code == 200
        return len(ctx.captured_queries)

    count(url)  # stores the finished tournaments' final places (no commit ran in the test)
    before = count(url)
    player_url = reverse("rankings:player", args=[winter["players"]["Ana"].pk])
    count(player_url)  # stores the player's story (read, not computed, from then on)
    player_before = count(player_url)
    table = winter["open_table"]
    services.record_result(acting_user=director, table=table, tantos_a=100, tantos_b=0, version=0)
    t4 = winter["tournaments"][3]
    entries = list(t4.entries.order_by("pk"))
    services.close_round(acting_user=director, round=table.round)
    builders.play(
        t4,
        2,
        [(entries[0], entries[1]), (entries[2], entries[3])],
        [builders.tantos(100, 10)] * 2,
        acting_user=director,
        version=0,
    )
    more = services.create_player(acting_user=director, full_name="Fermín Fuentes")
    services.register_entry(acting_user=director, tournament=t4, players=[more])
    assert count(url) == before
    assert count(player_url) == player_before


# --- the directors' pages and the admin ------------------------------------------------------------


@pytest.mark.django_db
def test_a_director_creates_and_edits_a_league(director_client, winter):
    t1, t2, *_ = winter["tournaments"]
    page = director_client.get(reverse("manage:league_add"))
    assert page.status_code == 200
    assert "Copa Enero" in page.content.decode()
    data = {
        "name": "Liga de Verano",
        "season": "2026",
        "points_scale": "5,3,1",
        "participation_points": "",
        "best_results": "",
        "planned_tournaments": "4",
        "tournaments": [t1.pk, t2.pk],
    }
    response = director_client.post(reverse("manage:league_add"), data)
    assert response.status_code == 302
    league = League.objects.get(slug="liga-de-verano-2026")
    assert set(league.tournaments.all()) == {t1, t2}
    assert (league.points_scale, league.participation_points, league.best_results) == (
        "5,3,1",
        0,
        None,
    )
    edit = reverse("manage:league_edit", args=[league.slug])
    assert director_client.get(edit).status_code == 200
    response = director_client.post(edit, {**data, "tournaments": [t1.pk], "best_results": "1"})
    assert response.status_code == 302
    league.refresh_from_db()
    assert list(league.tournaments.all()) == [t1] and league.best_results == 1
    listing = director_client.get(reverse("manage:leagues")).content.decode()
    assert "Liga de Verano" in listing and "Liga de Invierno" in listing


@pytest.mark.django_db
def test_the_league_form_shows_every_refusal_beside_its_field(director_client, winter):
    ts = winter["tournaments"]
    response = director_client.post(
        reverse("manage:league_add"),
        {
            "name": "Liga Mala",
            "season": "20x6",
            "points_scale": "10,12",
            "planned_tournaments": "2",
            "tournaments": [t.pk for t in ts[:3]],
        },
    )
    assert response.status_code == 400
    form = response.context["form"]
    assert form.errors["season"] == [
        "La temporada debe ser un año entre 1900 y 2999; se recibió «20x6»."
    ]
    assert form.errors["points_scale"] == [
        "En los puntos por puesto, el puesto 2 vale más que el puesto 1: los puntos no pueden "
        "subir al bajar de puesto."
    ]
    assert form.errors["planned_tournaments"] == [
        "La liga tiene 3 torneos y se prevén 2: sube los torneos previstos o quita alguno de la "
        "liga."
    ]
    assert not League.objects.filter(name="Liga Mala").exists()


@pytest.mark.django_db
def test_the_admin_creates_a_league_through_the_service(admin_client, winter):
    t1 = winter["tournaments"][0]
    data = {
        "name": "Liga Admin",
        "slug": "",
        "season": "2026",
        "description": "",
        "points_scale": "3,2,1",
        "participation_points": "0",
        "best_results": "",
        "planned_tournaments": "",
        "tournaments": [t1.pk],
    }
    refused = admin_client.post(
        reverse("admin:tournaments_league_add"), {**data, "points_scale": "3,x"}
    )
    assert refused.status_code == 200
    assert "El valor 2 de los puntos por puesto es «x»" in refused.content.decode()
    assert not League.objects.filter(name="Liga Admin").exists()
    response = admin_client.post(reverse("admin:tournaments_league_add"), data)
    assert response.status_code == 302
    league = League.objects.get(name="Liga Admin")
    assert league.slug == "liga-admin-2026" and list(league.tournaments.all()) == [t1]


# --- the page cache ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.page_cache
def test_the_league_and_player_pages_follow_a_result_and_a_change_of_tournaments(client, director):
    data = builders.winter_league(director)
    url = reverse("public:league", args=[data["league"].slug])
    beto = data["players"]["Beto"]
    player_url = reverse("rankings:player", args=[beto.pk])
    first = client.get(url)
    assert body_rows(first.content.decode(), "league-table")[2][6] == "—"  # Beto, T4
    assert body_rows(client.get(player_url).content.decode(), "leagues")[0][1] == "3 de 4"
    assert client.get(url)["ETag"] == first["ETag"]  # from the cache
    # Beto wins his T4 game: only T4's pages (and the lists) get a new generation.
    services.record_result(
        acting_user=director, table=data["open_table"], tantos_a=100, tantos_b=0, version=0
    )
    rows = body_rows(client.get(url).content.decode(), "league-table")
    beto_row = next(r for r in rows if r[1] == "Beto Bravo")
    assert beto_row[6] == "/11/"  # provisional 1st in T4
    # T4 finishes: its points count. Beto 11 + 11 = 22, level with Ana on points, wins (2)
    # and best place: Beto won T4, the last tournament both played, Ana was 2nd.
    t4 = data["tournaments"][3]
    services.close_round(acting_user=director, round=data["open_table"].round)
    services.update_tournament(acting_user=director, tournament=t4, status="finished")
    rows = body_rows(client.get(url).content.decode(), "league-table")
    assert [r[:3] for r in rows] == [
        ["1", "Beto Bravo", "22"],
        ["2", "Ana Alba", "22"],
        ["3", "Carla Cid", "18"],
        ["4", "Dani Duarte", "14"],
    ]
    assert body_rows(client.get(player_url).content.decode(), "leagues")[0][1] == "1 de 4"
    # A tournament taken out of the league (its row changes nothing of any tournament).
    services.set_league_tournaments(
        acting_user=director, league=data["league"], tournaments=data["tournaments"][:2]
    )
    rows = body_rows(client.get(url).content.decode(), "league-table")
    assert [r[:3] for r in rows][:2] == [["1", "Ana Alba", "22"], ["2", "Beto Bravo", "18"]]


@pytest.mark.django_db(transaction=True)
@pytest.mark.page_cache
def test_a_tournaments_places_are_kept_under_its_pages_generation(client, director):
    """With the page cache on, a league's other pages (its CSV) read the places kept by the
    first, without the tournaments' standings; a result renews those of its tournament."""
    data = builders.winter_league(director)
    slug = data["league"].slug
    assert client.get(reverse("public:league", args=[slug])).status_code == 200

    def standings_read(path):
        with CaptureQueriesContext(connection) as ctx:
            body = client.get(path).content
        return any('"tournaments_entry"' in q["sql"] for q in ctx.captured_queries), body

    read, body = standings_read(reverse("public:league_csv", args=[slug]))
    assert not read  # the places were kept by the league page
    assert b"2,Carla Cid,18," in body
    services.record_result(
        acting_user=director, table=data["open_table"], tantos_a=0, tantos_b=100, version=0
    )
    read, body = standings_read(reverse("public:league_csv", args=[slug]))
    assert read  # T4's generation is new: its places are read again (the others are kept)
    assert body.decode().splitlines()[2].endswith(",1,11,provisional")  # Carla won her T4 game


def test_the_league_list_and_page_agree_on_what_is_left(client, director):
    """Four planned, one finished, two more announced, one still a draft: "1 de 4 torneos
    terminados · quedan 3" on the list, "1 torneo terminado · quedan 3 torneos" on the page."""
    from django.urls import reverse

    statuses = ["finished", "running", "registration", "draft"]
    made = [
        builders.tournament(
            acting_user=director,
            name=f"Torneo {i + 1}",
            date=dt.date(2026, 3 + i, 7),
            mode="pairs",
            status=status,
        )
        for i, status in enumerate(statuses)
    ]
    league = services.create_league(
        acting_user=director,
        name="Liga Cuatro",
        season=2026,
        planned_tournaments=4,
        tournaments=made,
    )
    listing = client.get(reverse("public:leagues") + "?season=2026").content.decode()
    assert "1 de 4 torneos terminados · quedan 3 torneos" in " ".join(listing.split())
    page = client.get(reverse("public:league", args=[league.slug])).content.decode()
    flat = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    # three listed (one finished, two to play) and a fourth planned, still a draft
    assert "1 torneo terminado · quedan 3 torneos , 1 aún sin anunciar" in flat


@pytest.mark.django_db(transaction=True)
@pytest.mark.page_cache
def test_a_league_page_reads_its_own_scope_drawn_with_any_of_its_tournaments(client, director):
    """A hit on a league page reads the same keys however many tournaments the league has
    (``LEAGUES`` and the league's own scope, no query to name them); a result in one of its
    tournaments, and that tournament's deletion, draw the league's scope with the
    tournament's; a tournament outside the league does not."""
    data = builders.winter_league(director)
    league = data["league"]
    with CaptureQueriesContext(connection) as ctx:
        scopes = leagues.league_scopes(league.slug)
    assert scopes == [leagues.LEAGUES, f"league:{league.slug}"] and ctx.captured_queries == []
    ana = data["players"]["Ana"]
    assert leagues.player_scopes(ana.pk) == [leagues.LEAGUES, f"league:{league.slug}"]
    outsider = builders.player("Fuera de Liga", acting_user=director)
    assert leagues.player_scopes(outsider.pk) == [leagues.LEAGUES]
    # kept in the process under the CLUB and LEAGUES generations: no query of the leagues
    with CaptureQueriesContext(connection) as ctx:
        assert leagues.player_scopes(ana.pk) == [leagues.LEAGUES, f"league:{league.slug}"]
    assert not any('"tournaments_league"' in q["sql"] for q in ctx.captured_queries)
    # an entry in one of the league's tournaments (CLUB drawn): the outsider is in it now
    builders.entry(data["tournaments"][3], [outsider], acting_user=director)
    assert leagues.player_scopes(outsider.pk) == [leagues.LEAGUES, f"league:{league.slug}"]

    url = reverse("public:league", args=[league.slug])
    first = client.get(url)["ETag"]
    assert client.get(url)["ETag"] == first
    other = builders.tournament(
        builders.LEAGUE_CUP, name="Copa Suelta", date=dt.date(2026, 6, 6), acting_user=director
    )
    assert client.get(url)["ETag"] == first  # not one of the league's
    services.record_result(
        acting_user=director, table=data["open_table"], tantos_a=100, tantos_b=0, version=0
    )
    second = client.get(url)["ETag"]
    assert second != first
    assert client.get(url)["ETag"] == second
    # a league tournament deleted (its links to the league go with it, before the commit)
    data["tournaments"][4].delete()
    assert client.get(url)["ETag"] != second
    other.delete()
