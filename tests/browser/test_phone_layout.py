"""Phone first (issue "the number that matters is off-screen", points 1 and 3).

At 360 px every public table shows its key figures without sideways scrolling, in Spanish,
English and Russian, with long names: the ranking (position, name, rating, change), a player's
games (date, rivals, result, change, rating), the standings of every system (position, name,
points, first tiebreak) and the tournament list (date, name); the other figures are in the
line's detail under the name. At 1280 px a player's games table fits whole. Every control on the
main public and director pages is at least 44 × 44 px; the header is one compact row; the
language changes in one tap; the ranking's year filter updates the address and the heading.

The key columns are marked in the tables' heads (``thead th[data-key]``); a key whose column is
hidden on a phone is shown in the line itself (``[data-key]`` inside the row: a player's dates).
"""

import datetime as dt
import re

import pytest

from tests import builders
from tests.browser.conftest import assert_no_sideways_scroll
from tests.browser.helpers import CONTROLS, LANGUAGES, check_keys, in_language

LONG_ES = "María de los Ángeles Fernández-Villaverde"
LONG_RU = "Александра Константиновна Верещагина-Преображенская"
OTHERS = [
    "Bartolomé Esteban Murillo-Quintanilla",
    "Ксенофонт Вениаминович Преображенский",
    "Leocadia Zamora",
    "Nicasio Urdiales",
    "Olvido Carranza",
    "Prudencio Lastra",
]
LONG_TOURNAMENT = "Gran Premio de Dominó de las Marismas del Guadalquivir"


@pytest.fixture
def field(director, monkeypatch):
    """Long names everywhere: eight players (two with very long names, in Spanish and in
    Russian) in a finished pairs dominó tournament this year (two rounds, rated), a small one
    last year, a running individual dominó tournament, a Swiss and a table-game evening, each
    with a round played. Pages of 5 in the ranking and of 2 in a player's games, so the pagers
    show."""
    from django.utils import timezone

    from rankings import views as ranking_views
    from tournaments import services
    from tournaments.models import Tournament

    monkeypatch.setattr(ranking_views, "RANKING_PAGE_SIZE", 5)
    monkeypatch.setattr(ranking_views, "PLAYER_GAMES_PAGE_SIZE", 2)
    today = timezone.localdate()
    names = [LONG_ES, LONG_RU, *OTHERS]
    by = {"acting_user": director}
    p = builders.players(names, **by)

    last_year = builders.tournament(
        name="Liga de Invierno", date=dt.date(today.year - 1, 6, 1), mode="pairs", target=100, **by
    )
    e = [builders.entry(last_year, g, **by) for g in [[p[0], p[2]], [p[1], p[3]]]]
    results = [builders.tantos(100, 64)]
    builders.play(last_year, 1, [(e[0], e[1])], results, version=0, close=True, **by)
    builders.finish(last_year, **by)

    pairs = builders.tournament(name=LONG_TOURNAMENT, date=today, mode="pairs", target=100, **by)
    groups = [[p[0], p[1]], [p[2], p[3]], [p[4], p[5]], [p[6], p[7]]]
    e = [builders.entry(pairs, g, **by) for g in groups]
    results = [builders.tantos(100, 35), builders.tantos(100, 80)]
    builders.play(pairs, 1, [(e[0], e[1]), (e[2], e[3])], results, version=0, close=True, **by)
    results = [builders.tantos(72, 100), builders.tantos(100, 99)]
    builders.play(pairs, 2, [(e[0], e[2]), (e[1], e[3])], results, version=0, close=True, **by)
    pairs = builders.finish(pairs, **by)

    individual = builders.tournament(
        name="Individual de los Jueves",
        date=today,
        mode="individual",
        target=100,
        rounds_planned=3,
        status="registration",
        **by,
    )
    e = [builders.entry(individual, [x], **by) for x in p]
    tables = [([e[0], e[1]], [e[2], e[3]]), ([e[4], e[5]], [e[6], e[7]])]
    results = [builders.tantos(100, 60), builders.tantos(45, 100)]
    builders.play(individual, 1, tables, results, version=0, **by)
    individual = services.update_tournament(
        acting_user=director, tournament=individual, status="running"
    )

    swiss = builders.tournament(
        name="Suizo de Otoño",
        date=today,
        system="swiss",
        mode="single",
        best_of=3,
        rounds_planned=3,
        **by,
    )
    e = [builders.entry(swiss, [x], **by) for x in p]
    results = [
        {"games_a": 2, "games_b": 1, "games_drawn": 0},
        {"games_a": 0, "games_b": 2, "games_drawn": 0},
        {"games_a": 2, "games_b": 0, "games_drawn": 0},
        {"games_a": 1, "games_b": 1, "games_drawn": 1},
    ]
    tables = [(e[k], e[k + 4]) for k in range(4)]
    builders.play(swiss, 1, tables, results, version=0, close=True, **by)

    table_game = builders.tournament(
        name="Noche de Mesa", date=today, system="table", rounds_planned=2, **by
    )
    e = [builders.entry(table_game, [x], **by) for x in p[:7]]
    rnd = builders.seat(table_game, 1, [e[:4], e[4:]], **by)
    for table, vps in zip(builders.tables_of(rnd), [(10, 8, 7, 5), (9, 9, 6)], strict=True):
        seated = list(table.seats.order_by("position"))
        scores = {s.entry_id: vp for s, vp in zip(seated, vps, strict=True)}
        builders.record(table, version=table.version, scores=scores, **by)
    builders.close(rnd, **by)

    return {
        "players": p,
        "pairs": pairs,
        "individual": individual,
        "swiss": Tournament.objects.get(pk=swiss.pk),
        "table": Tournament.objects.get(pk=table_game.pk),
        "year": today.year,
    }


@pytest.mark.parametrize("lang", LANGUAGES)
def test_key_columns_fit_a_phone_in_every_language(
    live_server, field, phone, lang, expect, screenshot, no_sideways_scroll
):
    page = phone
    in_language(page, live_server, lang)
    es = field["players"][0]

    def visit(path, shot):
        page.goto(live_server.url + path)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        no_sideways_scroll(page)
        screenshot(page, f"phone-{shot}-{lang}")

    # The ranking: five a page (the pager shows), position, name, rating and change on screen.
    visit("/ranking/", "ranking")
    check_keys(page, "#ranking table.data", ["position", "name", "rating", "change"], 5)
    expect(page.locator("#ranking tbody th.name", has_text=LONG_ES)).to_have_count(1)
    minor = page.locator("#ranking thead th.minor")  # games and last game: in the detail
    expect(minor).to_have_count(2)
    expect(minor.first).to_be_hidden()
    expect(minor.last).to_be_hidden()
    detail = page.locator("#ranking tbody tr", has_text=LONG_ES).locator(".detail")
    expect(detail).to_be_visible()
    if lang == "es":  # her three games this year: two of the pairs, one of the individual
        expect(detail).to_have_text(re.compile(r"^Partidas 3 · Última partida \d\d/\d\d/\d{4}$"))

    # Her page: two games a page, date, rivals, result, change and rating on screen; the
    # tournament and the expected score in the line's detail.
    visit(f"/ranking/jugador/{es.pk}/", "player")
    check_keys(page, "table.data.games", ["date", "opponents", "result", "change", "rating"], 2)
    first = page.locator("table.games tbody tr").first
    expect(first.locator("th.name")).to_be_hidden()
    detail = first.locator("td.opponents .detail").last
    expect(detail).to_be_visible()
    if lang == "es":  # the newest game: round 2 of the pairs, beside her partner
        expect(detail).to_have_text(
            f"{LONG_TOURNAMENT} R2 M1 · Compañero: {LONG_RU} · Esperado 0,533 · Obtenido 0,324"
            " · K 32,00"
        )
    else:
        expect(detail).to_contain_text(LONG_TOURNAMENT)
    expect(page.locator(".chart .chart-narrow .x-tick")).to_have_text(["1", "2", "3"])

    # The standings of every system: pairs and individual dominó, Swiss, table games.
    for key, rows in (("pairs", 4), ("individual", 8), ("swiss", 8), ("table", 7)):
        t = field[key]
        visit(f"/torneos/{t.slug}/clasificacion/", f"standings-{key}")
        check_keys(page, "#standings table.data", ["position", "name", "points", "tiebreak"], rows)
        expect(page.locator("#standings tbody .detail").first).to_be_visible()
    # Pairs: her pair's line, wrapped, with its other figures under the name.
    if lang == "es":
        visit(f"/torneos/{field['pairs'].slug}/clasificacion/", "standings-pairs")
        line = page.locator("#standings tbody tr", has_text=LONG_ES)
        expect(line.locator(".detail .item")).to_have_text(
            [
                "PJ 2",
                "TF 172",
                "TC 135",
                "Castigos 0",
                "Efectividad 37",
                "Descansos 0",
                "por juegos ganados",
            ]
        )
        name_box = line.locator("th.name").bounding_box()
        assert name_box["height"] > 60  # the long names wrap over several lines

    # The tournament page carries the same standings.
    visit(f"/torneos/{field['swiss'].slug}/", "tournament-swiss")
    check_keys(page, "#standings table.data", ["position", "name", "points", "tiebreak"], 8)

    # The tournament list: date and name, the rest under the name.
    visit("/torneos/", "tournaments")
    check_keys(page, "table.data", ["date", "name"], 4)
    visit(f"/torneos/?year={field['year'] - 1}", "tournaments-last-year")
    check_keys(page, "table.data", ["date", "name"], 1)

    visit("/", "home")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_players_games_fit_a_laptop_whole(live_server, field, desktop, lang, screenshot):
    page = desktop
    in_language(page, live_server, lang)
    page.goto(f"{live_server.url}/ranking/jugador/{field['players'][1].pk}/")
    box = page.evaluate("""() => {
        const box = document.querySelector('table.games').closest('.table-scroll');
        const right = box.getBoundingClientRect().right;
        const heads = [...document.querySelectorAll('table.games thead th')].map((th) => {
            const r = th.getBoundingClientRect();
            return [th.textContent.trim(), r.width > 0 && r.right <= right + 0.5];
        });
        return {scroll: box.scrollWidth, client: box.clientWidth, heads};
    }""")
    assert box["scroll"] <= box["client"], box
    assert len(box["heads"]) == 10 and all(shown for _, shown in box["heads"]), box["heads"]
    assert box["heads"][7][0] == "K"
    screenshot(page, f"laptop-player-{lang}")


def _small_controls(page, url):
    page.goto(url)
    assert_no_sideways_scroll(page)
    found = page.evaluate(CONTROLS)
    assert found["count"] >= 5, f"{url}: only {found['count']} controls found"
    return [f"{url}: {s}" for s in found["small"]]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_control_is_44_px_on_a_phone(live_server, field, phone, login, lang):
    page = phone
    in_language(page, live_server, lang)
    t, individual = field["pairs"], field["individual"]
    es = field["players"][0]
    public = [
        "/",
        "/torneos/",
        f"/torneos/{individual.slug}/",
        f"/torneos/{individual.slug}/ronda/1/",
        f"/torneos/{individual.slug}/clasificacion/",
        f"/torneos/{individual.slug}/mesa/",
        f"/torneos/{individual.slug}/mesa/?q=maria",
        "/ranking/",
        "/ranking/?page=2",
        f"/ranking/jugador/{es.pk}/",
        f"/ranking/jugador/{es.pk}/?page=2",
        "/glosario/",
    ]
    small = []
    for path in public:
        small += _small_controls(page, live_server.url + path)
    login(page)
    in_language(page, live_server, lang)
    director = [
        "/gestion/",
        f"/gestion/torneos/{individual.slug}/",
        f"/gestion/torneos/{individual.slug}/ronda/1/",
        f"/gestion/torneos/{individual.slug}/ronda/2/emparejamientos/",
        f"/gestion/torneos/{t.slug}/",
        "/gestion/jugadores/",
        f"/torneos/{individual.slug}/ronda/1/",
    ]
    for path in director:
        small += _small_controls(page, live_server.url + path)
    assert small == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_header_is_three_rows_at_most_and_the_language_changes_in_one_tap(
    live_server, field, phone, lang, expect, screenshot
):
    page = phone
    in_language(page, live_server, lang)
    individual = field["individual"]
    page.goto(f"{live_server.url}/torneos/{individual.slug}/mesa/")
    header = page.locator(".site-header").bounding_box()
    # the brand and the languages, then every public section (tests/browser/test_header.py),
    # in one row or two of 44 px targets depending on the language's words
    assert header["height"] <= 3 * 44 + 16, header
    screenshot(page, f"phone-header-{lang}")
    # The page's language needs no button on a phone; the other two are one tap each.
    current = page.locator(f".lang-switch button[value={lang}]")
    expect(current).to_have_attribute("aria-current", "true")
    expect(current).to_be_hidden()
    others = [code for code in LANGUAGES if code != lang]
    for code in others:
        expect(page.locator(f".lang-switch button[value={code}]")).to_be_visible()
    # A search typed on "find my table" stays through the change (static/js/forms.js).
    page.locator("#q").press_sequentially("maria", delay=30)
    expect(page.locator("#find-results .finding")).to_have_count(1)
    page.locator(f".lang-switch button[value={others[0]}]").click()
    expect(page.locator("html")).to_have_attribute("lang", others[0])
    assert page.url.endswith(f"/torneos/{individual.slug}/mesa/?q=maria"), page.url
    expect(page.locator("#find-results .finding")).to_contain_text(LONG_ES)


def test_a_director_header_stays_small(live_server, field, phone, login):
    page = phone
    login(page)
    page.goto(f"{live_server.url}/gestion/")
    assert page.locator(".site-header").bounding_box()["height"] <= 3 * 44 + 16


def test_the_ranking_year_filter_updates_the_address_and_the_heading(
    live_server, field, desktop, expect
):
    page = desktop
    year = field["year"]
    page.goto(f"{live_server.url}/ranking/")
    expect(page.locator("h1")).to_have_text(f"Ranking {year}")
    page.evaluate("window.sameDocument = true")
    page.select_option("#year", str(year - 1))
    expect(page.locator("h1")).to_have_text(f"Ranking {year - 1}")
    expect(page.locator("#ranking tbody th.name")).to_have_count(4)
    expect(page).to_have_title(f"Ranking {year - 1}")
    expect(page.locator("#ranking-links a").first).to_have_attribute(
        "href", f"/ranking/{year - 1}.csv"
    )
    assert page.evaluate("window.sameDocument === true"), "the filter reloaded the page"
    assert re.search(rf"/ranking/\?year={year - 1}(&|$)", page.url), page.url
    # The address shows what is on screen: a reload keeps it.
    page.reload()
    expect(page.locator("h1")).to_have_text(f"Ranking {year - 1}")
