"""A tally far above the target on a phone with JavaScript: the question takes the page, and
"Cancelar" brings the round page back with nothing saved; "Sí, guardar" saves it."""

from tournaments.models import Result


def test_the_slip_question_cancels_and_confirms_on_a_phone(live_server, club, phone, login, expect):
    t = club["t"]
    page = phone
    login(page)
    round_url = f"{live_server.url}/gestion/torneos/{t.slug}/ronda/1/"
    page.goto(round_url)
    row = page.locator("#mesa-1")
    row.locator("input[name=tantos_a]").fill("9999")
    row.locator("input[name=tantos_b]").fill("50")
    row.get_by_role("button", name="Guardar mesa 1").click()
    expect(page.locator("h1")).to_have_text("9999 tantos con meta 100: ¿seguro?")
    page.get_by_role("link", name="Cancelar").click()
    expect(page.locator("#mesa-1 input[name=tantos_a]")).to_have_value("")
    assert not Result.objects.filter(table__round__tournament=t, table__number=1).exists()

    row = page.locator("#mesa-1")
    row.locator("input[name=tantos_a]").fill("9999")
    row.locator("input[name=tantos_b]").fill("50")
    row.get_by_role("button", name="Guardar mesa 1").click()
    page.get_by_role("button", name="Sí, guardar").click()
    expect(page.locator(".messages")).to_contain_text("Mesa 1 guardada.")
    assert Result.objects.get(table__round__tournament=t, table__number=1).tantos_a == 9999
