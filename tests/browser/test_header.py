"""Every public section one tap away from the header on a 360 px phone, in Spanish, English and
Russian, signed out and signed in: tournaments, calendar, ranking, leagues and "Entrar" (or the
director's links), each a 44 px target on the screen, nothing sideways."""

import pytest

from tests.browser.helpers import LANGUAGES

SECTIONS = {
    "es": ["Torneos", "Calendario", "Ranking", "Ligas", "Entrar"],
    "en": ["Tournaments", "Calendar", "Ranking", "Leagues", "Sign in"],
    "ru": ["Турниры", "Календарь", "Рейтинг-лист", "Лиги", "Войти"],
}


def targets(page) -> list[tuple[str, dict]]:
    links = page.locator(".site-header nav a, .site-header nav button")
    return [
        (links.nth(i).inner_text().strip(), links.nth(i).bounding_box())
        for i in range(links.count())
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_section_is_one_tap_from_the_header_on_a_phone(
    live_server, club, phone, language, no_sideways_scroll, screenshot
):
    phone.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    phone.goto(live_server.url + "/")
    found = targets(phone)
    assert [name for name, _ in found] == SECTIONS[language]
    for name, box in found:
        assert box is not None, name
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360, (name, box)
        assert box["width"] >= 44 and box["height"] >= 44, (name, box)
        assert box["y"] + box["height"] <= 140, (name, box)  # in the header, at the top
    no_sideways_scroll(phone)
    screenshot(phone, f"header-phone-{language}")
    phone.get_by_role("link", name=SECTIONS[language][1], exact=True).click()
    phone.wait_for_url(f"{live_server.url}/calendario/")


def test_a_signed_in_director_has_every_section_too(live_server, club, phone, login):
    login(phone)
    phone.goto(live_server.url + "/")
    names = [name for name, _ in targets(phone)]
    assert names == ["Torneos", "Calendario", "Ranking", "Ligas", "Gestión", "Salir"]
    for name, box in targets(phone):
        assert box["x"] + box["width"] <= 360 and box["height"] >= 44, (name, box)
