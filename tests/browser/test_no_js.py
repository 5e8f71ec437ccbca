"""A director's phone with JavaScript off: a refused score comes back in its row, as typed,
with the message beside the boxes and the focus on them; deleting a result goes through a
confirmation page. With JavaScript the same deletion asks in the browser's own dialog."""

import pytest

from tests.browser.conftest import PHONE
from tournaments import services
from tournaments.models import Result


@pytest.fixture
def no_js_phone(browser, transactional_db):
    """A phone-sized page (360×780) with JavaScript disabled."""
    context = browser.new_context(
        java_script_enabled=False,
        viewport=PHONE,
        locale="es-ES",
        timezone_id="America/Mexico_City",
    )
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def _save_table_one(director, t):
    table = t.rounds.get(number=1).tables.get(number=1)
    services.record_result(acting_user=director, table=table, tantos_a=100, tantos_b=64, version=0)
    return table


def test_without_javascript_a_refused_score_stays_in_its_row_and_a_delete_asks_first(
    live_server, club, director, no_js_phone, login, expect, no_sideways_scroll, screenshot
):
    page = no_js_phone
    t = club["t"]
    table = _save_table_one(director, t)
    login(page)
    round_url = f"{live_server.url}/gestion/torneos/{t.slug}/ronda/1/"
    page.goto(round_url)
    expect(page.locator("#mesa-1 .saved-mark")).to_contain_text("guardada")

    # A bad score on the saved row: the whole page comes back at that row, as typed.
    row = page.locator("#mesa-1")
    row.locator("input[name=tantos_a]").fill("80")
    row.locator("input[name=tantos_b]").fill("61")
    row.get_by_role("button", name="Guardar mesa 1").click()
    page.wait_for_load_state()
    assert page.url == round_url, page.url  # the page's own address: a reload resends nothing
    row = page.locator("#mesa-1")
    expect(row.locator("input[name=tantos_a]")).to_have_value("80")
    expect(row.locator("input[name=tantos_b]")).to_have_value("61")
    expect(row.locator(".error")).to_have_text(
        "Ningún lado llegó a 100 tantos (80–61); si la partida terminó por tiempo, márcalo."
    )
    expect(row).to_have_class("result-row has-error")
    expect(row.locator(".saved-mark")).to_have_count(0)
    expect(row.locator(".figures")).to_have_count(0)
    expect(row.locator(".unsaved-mark")).to_have_text("cambio sin guardar")
    expect(row.locator("input[name=tantos_a]")).to_be_focused()
    no_sideways_scroll(page)
    screenshot(page, "no-js-refused-row-360")
    result = Result.objects.get(table=table)
    assert (result.tantos_a, result.tantos_b) == (100, 64)
    # A reload asks nothing and sends nothing: the page as it is now, the stored row.
    version = type(table).objects.get(pk=table.pk).version
    page.reload()
    assert page.url == round_url, page.url
    expect(page.locator("#mesa-1 input[name=tantos_a]")).to_have_value("100")
    expect(page.locator("#mesa-1 .error")).to_have_count(0)
    assert type(table).objects.get(pk=table.pk).version == version

    # Deleting it: a confirmation page first, then the row is pending and the page says so.
    page.goto(round_url)
    page.locator("#mesa-1").get_by_role("button", name="Borrar").click()
    expect(page.locator("h1")).to_have_text("¿Borrar el resultado de la mesa 1?")
    expect(page.locator(".confirm-details")).to_contain_text("100 – 64")
    assert Result.objects.filter(table=table).exists()
    no_sideways_scroll(page)
    screenshot(page, "no-js-confirm-delete-360")
    page.get_by_role("button", name="Sí, borrar").click()
    expect(page.locator(".messages")).to_contain_text("Resultado de la mesa 1 borrado.")
    expect(page.locator("#mesa-1 .pending-mark")).to_have_text("pendiente")
    assert not Result.objects.filter(table=table).exists()


def test_with_javascript_deleting_a_result_asks_in_a_dialog(
    live_server, club, director, phone, login, expect
):
    page = phone
    t = club["t"]
    table = _save_table_one(director, t)
    login(page)
    page.goto(f"{live_server.url}/gestion/torneos/{t.slug}/ronda/1/")
    questions = []

    # "No" first: nothing is sent.
    page.once("dialog", lambda d: (questions.append(d.message), d.dismiss()))
    page.locator("#mesa-1").get_by_role("button", name="Borrar").click()
    expect(page.locator("#mesa-1 .saved-mark")).to_be_visible()
    assert Result.objects.filter(table=table).exists()

    page.once("dialog", lambda d: (questions.append(d.message), d.accept()))
    page.locator("#mesa-1").get_by_role("button", name="Borrar").click()
    expect(page.locator("#mesa-1 .msg.success")).to_have_text("Resultado de la mesa 1 borrado.")
    expect(page.locator("#mesa-1 .pending-mark")).to_have_text("pendiente")
    assert questions == ["¿Borrar el resultado de la mesa 1?"] * 2
    assert not Result.objects.filter(table=table).exists()
