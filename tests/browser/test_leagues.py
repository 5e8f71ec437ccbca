"""A league on a 360 px phone, in Spanish, English and Russian (docs/SCORING.md "Leagues"):
the table's key columns (position, player, total) stay on the screen with long names, the
per-tournament points fold into the detail line under the name (a discarded one struck
through), nothing scrolls sideways; the league list and a player's league positions fit too;
"Ligas" is in the header on a phone as on a laptop; on a
laptop it is in the header."""

import pytest

from tests import builders
from tests.browser.helpers import CONTROLS, LANGUAGES, check_keys

LONG = "María de los Ángeles Fernández-Villaverde"
LONG_RU = "Александра Константиновна Верещагина-Преображенская"


@pytest.fixture
def league(director):
    from tournaments import services

    data = builders.winter_league(director)
    p = data["players"]
    services.update_player(acting_user=director, player=p["Ana"], full_name=LONG)
    services.update_player(acting_user=director, player=p["Dani"], full_name=LONG_RU)
    return data


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_league_fits_a_phone(live_server, league, phone, lang, expect, screenshot):
    page = phone
    page.context.add_cookies([{"name": "django_language", "value": lang, "url": live_server.url}])

    def visit(path, shot):
        page.goto(live_server.url + path)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        assert_fits(page)
        screenshot(page, f"phone-{shot}-{lang}")

    slug = league["league"].slug
    visit(f"/ligas/{slug}/", "league")
    check_keys(page, "table.league-table", ["position", "name", "points"], 4)
    minor = page.locator("table.league-table thead th.minor")
    expect(minor).to_have_count(5)  # four tournaments and the tiebreak
    for i in range(5):
        expect(minor.nth(i)).to_be_hidden()
    line = page.locator("table.league-table tbody tr", has_text=LONG)
    expect(line.locator(".detail")).to_be_visible()
    expect(line.locator(".detail s.discarded")).to_have_text("5")  # T3, discarded
    expect(line.locator(".detail i.provisional")).to_have_text("11")  # T4, running
    expect(page.locator(".league-progress .left")).to_be_visible()
    # every section in the header, one tap away, on a phone too (tests/browser/test_header.py)
    expect(page.locator(".site-header .leagues-link")).to_be_visible()

    visit("/ligas/?season=2026", "leagues")
    expect(page.locator(".cards.leagues a", has_text="Liga de Invierno")).to_be_visible()

    visit(f"/ranking/jugador/{league['players']['Ana'].pk}/", "player-leagues")
    check_keys(page, "table.leagues", ["league", "position", "points"], 1)


def assert_fits(page, width=360):
    from tests.browser.conftest import assert_no_sideways_scroll

    assert_no_sideways_scroll(page, width)


def test_the_header_links_to_the_leagues_on_a_laptop(
    live_server, league, desktop, expect, screenshot
):
    desktop.goto(live_server.url + "/")
    link = desktop.locator(".site-header .leagues-link")
    expect(link).to_be_visible()
    link.click()
    expect(desktop.locator("h1")).to_have_text("Ligas 2026")
    desktop.locator(".cards.leagues a").first.click()
    heads = desktop.locator("table.league-table thead th")
    expect(heads).to_have_count(8)  # every tournament's column, whole, on a laptop
    for i in range(8):
        expect(heads.nth(i)).to_be_visible()
    screenshot(desktop, "laptop-league")


def test_the_directors_league_pages_fit_a_phone(live_server, league, phone, login, screenshot):
    page = phone
    login(page)
    small = []
    for path, shot in (
        ("/gestion/ligas/", "manage-leagues"),
        (f"/gestion/ligas/{league['league'].slug}/", "manage-league-edit"),
        ("/gestion/ligas/nueva/", "manage-league-new"),
    ):
        page.goto(live_server.url + path)
        assert_fits(page)
        screenshot(page, f"phone-{shot}")
        found = page.evaluate(CONTROLS)
        small += [f"{path}: {s}" for s in found["small"]]
    assert small == []
