"""The round clock on a 360 px phone: the director starts, pauses and resumes it from the round
page; time up on the public clock is unmistakable and the round page then suggests "por
tiempo"; two screens agree to the second (one of them with its own clock three minutes
wrong); a screen keeps counting when the network drops."""

import datetime as dt
import re

from tournaments import services
from tournaments.models import Round

DIGITS = "[data-clock-time]"


def seconds_of(text: str) -> int:
    minutes, seconds = text.strip().split(":")
    return int(minutes) * 60 + int(seconds)


def round_one(club) -> Round:
    return Round.objects.get(tournament=club["t"], number=1)


def test_the_director_starts_pauses_and_resumes_the_clock_on_a_phone(
    live_server, phone, login, club, expect, no_sideways_scroll, screenshot
):
    page, t = phone, club["t"]
    login(page)
    page.goto(f"{live_server.url}/gestion/torneos/{t.slug}/ronda/1/")
    panel = page.locator("#reloj")
    expect(panel.locator(DIGITS)).to_have_text("30:00")
    expect(panel.locator("[data-clock-status]")).to_have_text("Sin empezar")
    expect(panel.get_by_role("link", name="Abrir el reloj en pantalla completa")).to_be_visible()

    def buttons_are_big_enough():
        buttons = panel.locator("button")
        assert buttons.count() >= 4
        for i in range(buttons.count()):
            box = buttons.nth(i).bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44, (buttons.nth(i).inner_text(), box)

    buttons_are_big_enough()
    panel.get_by_role("button", name="Empezar").click()
    expect(panel).to_have_class(re.compile(r"\bis-running\b"))
    expect(panel.get_by_text("Reloj de la ronda 1 en marcha.")).to_be_visible()
    expect(panel.locator(DIGITS)).to_have_text(re.compile(r"29:5\d"))  # counting by itself
    buttons_are_big_enough()
    no_sideways_scroll(page)
    screenshot(page, "clock-director-running-360")

    panel.get_by_role("button", name="Pausar").click()
    expect(panel).to_have_class(re.compile(r"\bis-paused\b"))
    expect(panel.locator("[data-clock-status]")).to_have_text("En pausa")
    frozen = panel.locator(DIGITS).inner_text()
    page.wait_for_timeout(1500)
    assert panel.locator(DIGITS).inner_text() == frozen
    assert round_one(club).clock_running_since is None

    panel.get_by_role("button", name="Reanudar").click()
    expect(panel).to_have_class(re.compile(r"\bis-running\b"))
    expect(panel.locator(DIGITS)).not_to_have_text(frozen)
    assert seconds_of(panel.locator(DIGITS).inner_text()) < seconds_of(frozen)

    before = seconds_of(panel.locator(DIGITS).inner_text())
    panel.get_by_role("button", name="+1 min").click()
    expect(panel.get_by_text("Reloj de la ronda 1: +1:00.")).to_be_visible()
    assert seconds_of(panel.locator(DIGITS).inner_text()) >= before + 55
    assert round_one(club).clock_added == 60


def test_time_up_is_unmistakable_and_the_round_page_suggests_by_time(
    live_server, phone, login, club, director, expect, no_sideways_scroll, screenshot
):
    page, t = phone, club["t"]
    rnd = round_one(club)
    services.start_clock(acting_user=director, round=rnd)
    page.goto(f"{live_server.url}/torneos/{t.slug}/reloj/")
    clock = page.locator("main.clock")
    expect(page.locator("h1")).to_have_text("Ronda 1")
    expect(clock).to_have_class(re.compile(r"\bis-running\b"))
    expect(clock.locator(DIGITS)).to_have_text(re.compile(r"(30:00|29:5\d)"))
    no_sideways_scroll(page)
    screenshot(page, "clock-public-running-360")

    # The director takes away all but 4 seconds: the open screen learns it on its next look
    # and reaches zero by itself.
    services.add_clock_time(acting_user=director, round=rnd, seconds=-(30 * 60 - 4))
    expect(clock.locator(DIGITS)).to_have_text(re.compile(r"00:0[0-5]"), timeout=15_000)
    expect(clock).to_have_class(re.compile(r"\bis-over\b"), timeout=15_000)
    expect(clock.locator(DIGITS)).to_have_text("00:00")
    expect(clock.locator("[data-clock-status]")).to_have_text("¡Tiempo!")
    background = clock.evaluate("(el) => getComputedStyle(el).backgroundColor")
    assert background == "rgb(164, 14, 38)"  # the whole screen turns red
    no_sideways_scroll(page)
    screenshot(page, "clock-public-time-up-360")

    login(page)
    page.goto(f"{live_server.url}/gestion/torneos/{t.slug}/ronda/1/")
    notice = page.locator("[data-clock-over-notice]")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("marca «Terminó por tiempo»")
    expect(page.locator("#reloj")).to_have_class(re.compile(r"\bis-over\b"))
    no_sideways_scroll(page)


def test_two_screens_agree_to_the_second_and_keep_counting_offline(
    live_server, phone, club, director, expect
):
    t = club["t"]
    services.start_clock(acting_user=director, round=round_one(club))
    url = f"{live_server.url}/torneos/{t.slug}/reloj/"
    first = phone
    second = phone.context.browser.new_context(
        viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True
    ).new_page()
    try:
        # The second screen's own clock is three minutes fast: the server's time still rules.
        second.clock.install(time=dt.datetime.now(dt.UTC) + dt.timedelta(minutes=3))
        first.goto(url)
        second.goto(url)
        for page in (first, second):
            expect(page.locator("main.clock")).to_have_class(re.compile(r"\bis-running\b"))
            expect(page.locator(DIGITS)).to_have_text(re.compile(r"29:\d\d"))
        second.wait_for_timeout(1200)  # a look at the state or two on each screen
        for _ in range(5):
            a = seconds_of(first.locator(DIGITS).inner_text())
            b = seconds_of(second.locator(DIGITS).inner_text())
            assert abs(a - b) <= 1, (a, b)
            first.wait_for_timeout(300)

        # No network: the screen says so and keeps counting.
        first.context.set_offline(True)
        expect(first.locator("[data-clock-offline]")).to_be_visible(timeout=15_000)
        offline_at = seconds_of(first.locator(DIGITS).inner_text())
        expect(first.locator(DIGITS)).not_to_have_text(
            re.compile(rf"^{offline_at // 60:02d}:{offline_at % 60:02d}$")
        )
        assert seconds_of(first.locator(DIGITS).inner_text()) < offline_at
        first.context.set_offline(False)
        expect(first.locator("[data-clock-offline]")).to_be_hidden(timeout=15_000)
        a = seconds_of(first.locator(DIGITS).inner_text())
        b = seconds_of(second.locator(DIGITS).inner_text())
        assert abs(a - b) <= 1, (a, b)
    finally:
        second.context.close()
