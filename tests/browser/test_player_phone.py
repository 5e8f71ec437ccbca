"""A player with a phone, not logged in: finds their table from the home page as they type, then
watches the standings change when the director saves a result."""

import re

from tournaments import services

LIVE_REFRESH = (
    "document.querySelectorAll('[data-live]').forEach((el) => htmx.trigger(el, 'refresh'))"
)


def standings_row(page, name):
    return page.locator("#standings tbody tr", has=page.locator("th", has_text=name))


def test_player_finds_their_table_and_follows_the_live_standings(
    live_server,
    club,
    phone,
    desktop,
    director,
    expect,
    screenshot,
    no_sideways_scroll,
):
    page, t = phone, club["t"]

    page.goto(live_server.url + "/")
    card = page.locator(".card", has_text="Copa del Faro")
    expect(card.get_by_role("link", name="Encuentra tu mesa")).to_be_visible()
    expect(page.locator("#ranking-h")).to_contain_text("Ranking")
    assert page.locator("a[href^='/ranking/jugador/']").count() == 10
    no_sideways_scroll(page)
    screenshot(page, "home-360")

    # Find my table, as you type: results come in place (no page load) with accents optional.
    card.get_by_role("link", name="Encuentra tu mesa").click()
    expect(page.locator("h1")).to_have_text("Encuentra tu mesa")
    expect(page.locator("#find-results .table-card")).to_have_count(3)  # no query: every table
    page.evaluate("window.sameDocument = true")
    page.locator("#q").press_sequentially("damaso", delay=60)
    finding = page.locator("#find-results .finding")
    expect(finding).to_have_count(1)
    expect(finding).to_contain_text("Dámaso Olmedo")
    expect(finding.locator(".where")).to_have_text("Mesa 1")
    expect(finding.locator("dd").first).to_have_text("B")  # one entry a side: no seat number
    expect(finding).to_contain_text("Celia Quintana")  # partner
    expect(finding).to_contain_text("Amparo Rivas & Bruno Salcedo")  # the other side
    assert page.evaluate("window.sameDocument === true"), "the search reloaded the page"
    assert re.search(r"/mesa/\?q=damaso$", page.url)
    no_sideways_scroll(page)
    screenshot(page, "find-table-360")
    page.locator("#q").fill("ortuño")
    expect(page.locator("#find-results .finding.rests")).to_contain_text("descansa")

    # The standings, live while round 1 is open: no result yet, so the entries by name, with
    # no position (SCORING.md §9).
    page.goto(f"{live_server.url}/torneos/{t.slug}/clasificacion/")
    expect(page.locator("#standings ul.unranked li").first).to_have_text(
        "Amparo Rivas & Bruno Salcedo"
    )
    expect(page.locator("#standings td.pos")).to_have_count(0)
    row = standings_row(page, "Celia Quintana & Dámaso Olmedo")
    stamp = page.locator("#standings [data-live-stamp]")
    expect(stamp).to_have_text(re.compile(r"^\d\d:\d\d:\d\d$"))
    page.evaluate("document.querySelector('#standings [data-live-stamp]').textContent = 'antes'")
    no_sideways_scroll(page)

    # The director saves table 1 (side B wins); the next live refresh shows it.
    table = t.rounds.get(number=1).tables.get(number=1)
    services.record_result(acting_user=director, table=table, tantos_a=40, tantos_b=100, version=0)
    page.evaluate(LIVE_REFRESH)
    expect(row.locator("td").nth(1)).to_have_text("1")
    expect(row.locator("td.strong")).not_to_have_text("0")
    expect(page.locator("#ronda-1-mesas #mesa-1 .score")).to_contain_text("40 – 100")
    expect(stamp).to_have_text(re.compile(r"^\d\d:\d\d:\d\d$"))  # the time of this refresh
    expect(page.locator("[data-live]")).to_have_count(2)  # still live: the round is open
    screenshot(page, "standings-360")

    # The same pages on a laptop.
    desktop.goto(live_server.url + "/")
    screenshot(desktop, "home-1280")
    desktop.goto(f"{live_server.url}/torneos/{t.slug}/clasificacion/")
    expect(
        standings_row(desktop, "Celia Quintana & Dámaso Olmedo").locator("td").nth(1)
    ).to_have_text("1")
    screenshot(desktop, "standings-1280")


def test_live_refresh_runs_every_15_seconds_and_pauses_while_the_tab_is_hidden(
    live_server,
    club,
    phone,
    expect,
):
    """static/js/live.js on a fake clock: a refresh 15 s after the last, none while hidden, one
    as soon as the tab is visible again."""
    page, t = phone, club["t"]
    refreshes = []
    page.on(
        "request",
        lambda request: (
            refreshes.append(request.url) if request.headers.get("hx-request") == "true" else None
        ),
    )
    page.clock.install()
    page.goto(f"{live_server.url}/torneos/{t.slug}/clasificacion/")
    expect(page.locator("[data-live]")).to_have_count(2)

    page.clock.run_for(14_000)
    page.wait_for_timeout(300)
    assert refreshes == []
    with page.expect_request(lambda r: r.headers.get("hx-request") == "true"):
        page.clock.run_for(2_000)
    page.wait_for_timeout(500)
    assert sorted(url.rsplit("/torneos/", 1)[1] for url in refreshes) == [
        f"{t.slug}/clasificacion/",
        f"{t.slug}/ronda/1/",
    ]

    # Hidden: nothing for a minute.
    refreshes.clear()
    page.evaluate("""() => {
        Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => 'hidden'});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    page.clock.run_for(60_000)
    page.wait_for_timeout(300)
    assert refreshes == []

    # Visible again: a refresh at once.
    with page.expect_request(lambda r: r.headers.get("hx-request") == "true"):
        page.evaluate("""() => {
            Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => 'visible'});
            document.dispatchEvent(new Event('visibilitychange'));
        }""")
