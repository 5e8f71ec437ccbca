"""The language switcher in a real browser: a Spanish phone turns the standings into English, the
choice stays on the next pages, then into Russian; and a double tap on "Guardar" of a new
tournament creates it once."""

from tournaments import services
from tournaments.models import Tournament


def test_the_switcher_turns_the_site_into_english_and_russian(
    live_server,
    club,
    director,
    phone,
    expect,
    screenshot,
    no_sideways_scroll,
):
    page = phone
    t = club["t"]
    table = t.rounds.get(number=1).tables.get(number=1)  # a first result: the standings' table
    services.record_result(acting_user=director, table=table, tantos_a=40, tantos_b=100, version=0)
    page.goto(f"{live_server.url}/torneos/{t.slug}/clasificacion/")
    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect(page.locator("h1")).to_contain_text("Clasificación")

    def switch(code, heading):
        page.locator(f".lang-switch button[value={code}]").click()  # one tap
        expect(page.locator("html")).to_have_attribute("lang", code)
        expect(page.locator("h1")).to_contain_text(heading)
        expect(page.locator(f".lang-switch button[value={code}]")).to_have_attribute(
            "aria-current", "true"
        )

    switch("en", "Standings")
    assert page.url.endswith(f"/torneos/{t.slug}/clasificacion/")  # back on the same page
    expect(page.locator("table.data thead").first).to_contain_text("Points")
    no_sideways_scroll(page)
    screenshot(page, "standings-360-en")

    # The choice is remembered: the next page is English too, whatever the phone asks for.
    page.get_by_role("link", name="Tournaments").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("h1")).to_contain_text("Tournaments")

    switch("ru", "Турниры")
    page.goto(f"{live_server.url}/torneos/{t.slug}/clasificacion/")
    expect(page.locator("h1")).to_contain_text("Турнирная таблица")
    expect(page.locator("table.data thead").first).to_contain_text("Очки")
    no_sideways_scroll(page)
    screenshot(page, "standings-360-ru")


def test_a_double_tap_on_save_creates_one_tournament(live_server, director, phone, login, expect):
    page = phone
    login(page)
    page.goto(f"{live_server.url}/gestion/torneos/nuevo/")
    page.fill("#id_name", "Copa Doble Toque")
    page.fill("#id_date", "2026-12-12")
    button = page.get_by_role("button", name="Guardar")
    button.dblclick()
    expect(page.locator("h1")).to_contain_text("Copa Doble Toque")
    assert Tournament.objects.filter(name="Copa Doble Toque").count() == 1
