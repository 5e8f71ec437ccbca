"""A director at the venue with a phone: logs in, types every table's score sheet into the round
page (one refused, then corrected), records a castigo and closes the round."""

from tournaments.models import Castigo, Result

DESKTOP = {"width": 1280, "height": 900}


def test_director_enters_a_round_on_a_phone_and_closes_it(
    live_server,
    club,
    phone,
    browser,
    login,
    expect,
    screenshot,
    no_sideways_scroll,
):
    page = phone
    t = club["t"]
    login(page)
    page.goto(f"{live_server.url}/gestion/torneos/{t.slug}/ronda/1/")
    expect(page.locator("h1")).to_contain_text("Ronda 1")
    no_sideways_scroll(page)

    # Table 1: a plain win.
    row = page.locator("#mesa-1")
    row.locator("input[name=tantos_a]").fill("100")
    row.locator("input[name=tantos_b]").fill("64")
    row.get_by_role("button", name="Guardar mesa 1").click()
    expect(page.locator("#mesa-1 .saved-mark")).to_contain_text("guardada")

    # Table 2: nobody reached 100 and "ended by time" is not ticked: refused, in words, in the row.
    row = page.locator("#mesa-2")
    row.locator("input[name=tantos_a]").fill("80")
    row.locator("input[name=tantos_b]").fill("61")
    row.get_by_role("button", name="Guardar mesa 2").click()
    error = page.locator("#mesa-2 .error")
    expect(error).to_contain_text("Ningún lado llegó a 100 tantos (80–61)")
    expect(page.locator("#mesa-2 input[name=tantos_a]")).to_have_value("80")
    expect(page.locator("#mesa-2 input[name=tantos_b]")).to_have_value("61")
    expect(page.locator("#mesa-2 .pending-mark")).to_be_visible()
    expect(page.locator("#mesa-1 .saved-mark")).to_be_visible()  # the other rows are untouched
    no_sideways_scroll(page)
    screenshot(page, "round-entry-360")
    assert not Result.objects.filter(table__round__tournament=t, table__number=2).exists()

    # The sheet says the time ran out: tick it and save again.
    page.locator("#mesa-2").get_by_label("Terminó por tiempo").check()
    page.locator("#mesa-2").get_by_role("button", name="Guardar mesa 2").click()
    expect(page.locator("#mesa-2 .saved-mark")).to_contain_text("guardada")
    expect(page.locator("#mesa-2 .error")).to_have_count(0)

    # Table 3.
    row = page.locator("#mesa-3")
    row.locator("input[name=tantos_a]").fill("23")
    row.locator("input[name=tantos_b]").fill("100")
    row.get_by_role("button", name="Guardar mesa 3").click()
    expect(page.locator("#mesa-3 .saved-mark")).to_contain_text("guardada")
    assert Result.objects.filter(table__round__tournament=t).count() == 3

    # A castigo, in the Castigos panel.
    panel = page.locator("#castigos")
    panel.locator("select[name=player]").select_option(label="Esther Naranjo")
    panel.locator("input[name=tantos]").fill("10")
    panel.locator("input[name=reason]").fill("Hablar durante la mano")
    panel.get_by_role("button", name="Registrar castigo").click()
    expect(page.locator("#castigos .castigo-list")).to_contain_text("Esther Naranjo")
    expect(page.locator("#castigos .castigo-list")).to_contain_text("Hablar durante la mano")
    assert Castigo.objects.filter(
        tournament=t, player__full_name="Esther Naranjo", tantos=10
    ).exists()

    # The same page on a laptop, with the same login.
    wide = browser.new_context(
        viewport=DESKTOP, locale="es-ES", storage_state=page.context.storage_state()
    )
    try:
        laptop = wide.new_page()
        laptop.goto(page.url)
        expect(laptop.locator("#castigos .castigo-list")).to_contain_text("Esther Naranjo")
        screenshot(laptop, "round-entry-1280")
    finally:
        wide.close()

    # Close the round.
    page.get_by_role("button", name="Cerrar ronda 1").click()
    expect(page.locator("h1 .badge")).to_have_text("cerrada")
    # A closed round reads as read-only: a banner, and the rows' values as text, no boxes.
    expect(page.locator(".closed-banner")).to_contain_text("Ronda cerrada: solo lectura.")
    expect(page.locator("#mesa-1 input")).to_have_count(0)
    expect(page.locator("#mesa-1 dd").first).to_have_text("100")
    no_sideways_scroll(page)
    assert t.rounds.get(number=1).closed


def test_a_save_that_gets_no_answer_says_so_and_keeps_what_was_typed(
    live_server, club, phone, login, expect
):
    """A server error or a lost connection: the row says it was not saved, keeps the typed
    values and drops its "saved" look; the next try that gets through saves."""
    page = phone
    t = club["t"]
    login(page)
    page.goto(f"{live_server.url}/gestion/torneos/{t.slug}/ronda/1/")
    row = page.locator("#mesa-1")
    row.locator("input[name=tantos_a]").fill("100")
    row.locator("input[name=tantos_b]").fill("30")
    row.get_by_role("button", name="Guardar mesa 1").click()
    expect(page.locator("#mesa-1 .saved-mark")).to_contain_text("guardada")

    page.route("**/resultado/", lambda route: route.fulfill(status=500, body="boom"))
    row.locator("input[name=tantos_b]").fill("45")
    row.get_by_role("button", name="Guardar mesa 1").click()
    note = page.locator("#mesa-1 .send-failed")
    expect(note).to_have_text(
        "No se guardó: el servidor no respondió bien (error 500). Lo escrito sigue aquí: "
        "vuelve a intentarlo."
    )
    expect(page.locator("#mesa-1")).not_to_have_class("result-row saved")
    expect(page.locator("#mesa-1 .saved-mark")).to_be_hidden()
    expect(page.locator("#mesa-1 input[name=tantos_b]")).to_have_value("45")

    page.unroute("**/resultado/")
    page.route("**/resultado/", lambda route: route.abort())
    row.get_by_role("button", name="Guardar mesa 1").click()
    expect(note).to_contain_text("no hay conexión con el servidor")

    page.unroute("**/resultado/")
    row.get_by_role("button", name="Guardar mesa 1").click()
    expect(page.locator("#mesa-1 .saved-mark")).to_be_visible()
    expect(page.locator("#mesa-1 .send-failed")).to_have_count(0)
    assert Result.objects.get(table__number=1, table__round__tournament=t).tantos_b == 45


def test_a_save_after_the_session_ended_keeps_what_was_typed(
    live_server, club, phone, login, expect
):
    page = phone
    t = club["t"]
    login(page)
    page.goto(f"{live_server.url}/gestion/torneos/{t.slug}/ronda/1/")
    page.context.clear_cookies(name="sessionid")
    row = page.locator("#mesa-1")
    row.locator("input[name=tantos_a]").fill("100")
    row.locator("input[name=tantos_b]").fill("33")
    row.get_by_role("button", name="Guardar mesa 1").click()
    expect(page.locator("#mesa-1 .send-failed")).to_have_text(
        "No se guardó: tu sesión terminó. Entra de nuevo en otra pestaña y vuelve a guardar; "
        "lo escrito sigue aquí."
    )
    expect(page.locator("#mesa-1 input[name=tantos_b]")).to_have_value("33")
    expect(page.locator("form[action='/entrar/']")).to_have_count(0)
    assert not Result.objects.filter(table__round__tournament=t, table__number=1).exists()
