"""The calendar, the archive, head to head and a player's stories on a 360 px phone, in
Spanish, English and Russian: no sideways scroll, the key columns on screen, every control at
least 44 × 44 px (issue "calendar and archive", "player stories")."""

import datetime as dt
import re

import pytest

from tests import builders
from tests.browser.helpers import CONTROLS, LANGUAGES, check_keys, in_language

#: The controls of the page's own content (the header's are tests/browser/test_phone_layout.py's).
MAIN_CONTROLS = CONTROLS.replace(
    "document.querySelectorAll(selector)",
    "document.querySelector('main').querySelectorAll(selector)",
)
assert MAIN_CONTROLS != CONTROLS

LONG_TOURNAMENT = "Gran Premio de Dominó de las Marismas del Guadalquivir"


@pytest.fixture
def stories_club(transactional_db):
    from django.utils import timezone

    from tournaments import services

    players = builders.stories_club()
    today = timezone.localdate()
    services.create_tournament(
        acting_user=None,
        name=LONG_TOURNAMENT,
        date=today + dt.timedelta(days=9),
        start_time="19:30",
        venue="Casino del Puerto de Santa María",
        status="registration",
    )
    services.create_tournament(
        acting_user=None,
        name="Suizo de los Jueves",
        date=today + dt.timedelta(days=40),
        end_date=today + dt.timedelta(days=41),
        system="swiss",
        mode="single",
        status="registration",
    )
    return players


@pytest.mark.parametrize("lang", LANGUAGES)
def test_calendar_archive_and_stories_fit_a_phone(
    live_server, stories_club, phone, lang, expect, screenshot, no_sideways_scroll
):
    page = phone
    in_language(page, live_server, lang)
    ana, beto = stories_club["ana"], stories_club["beto"]
    small = []

    def visit(path, shot):
        page.goto(live_server.url + path)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        no_sideways_scroll(page)
        found = page.evaluate(MAIN_CONTROLS)
        small.extend(f"{path}: {s}" for s in found["small"])
        screenshot(page, f"phone-{shot}-{lang}")

    visit("/calendario/", "calendar")
    expect(page.locator(".month .card")).to_have_count(2)
    card = page.locator(".month .card", has_text=LONG_TOURNAMENT)
    expect(card).to_contain_text(re.compile(r"19:30|7:30 p\.m\."))
    expect(page.locator('a[href^="webcal://"]')).to_be_visible()

    visit("/torneos/?year=2025", "archive")
    expect(page.locator("nav.systems a")).to_have_count(4)  # all, dominó, Swiss, table games
    check_keys(page, "table.data", ["date", "name"], 5)
    visit("/torneos/?year=2025&system=swiss", "archive-swiss")
    check_keys(page, "table.data", ["date", "name"], 1)

    visit(f"/ranking/jugador/{ana.pk}/", "player-stories")
    expect(page.locator("#stories-h")).to_be_visible()
    check_keys(page, "table.partners", ["name", "games", "wins", "rate"], 2)
    check_keys(page, "table.rivals", ["name", "games", "record"], 5)

    visit(f"/ranking/jugador/{ana.pk}/contra/{beto.pk}/", "head-to-head")
    check_keys(page, "table.meetings", ["date", "tournament", "result", "change"], 6)
    expect(page.locator(".h2h-systems .card")).to_have_count(3)
    assert small == [], small
