"""The calculator in a browser: typing part of a name offers the matching players (the search
as one types, into the boxes' shared <datalist>), and the game is computed from the names; with
JavaScript off, a name that matches several players comes back with them listed in words."""

import re

import pytest
from django.urls import reverse

from tests.browser.conftest import PHONE


@pytest.fixture
def no_js_page(browser, transactional_db):
    context = browser.new_context(java_script_enabled=False, viewport=PHONE, locale="es-ES")
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def test_typing_offers_the_players_and_the_names_compute_the_game(live_server, club, desktop):
    page = desktop
    page.goto(live_server.url + reverse("rankings:calculator"))
    page.locator("#id_a1").press_sequentially("amp")
    options = page.locator("#calculator-players option")
    options.first.wait_for(state="attached")
    assert options.evaluate_all("(os) => os.map((o) => o.value)") == ["Amparo Rivas"]
    page.locator("#id_b1").press_sequentially("bruno sal")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#calculator-players option')]"
        ".map((o) => o.value).join() === 'Bruno Salcedo'"
    )
    page.fill("#id_a1", "Amparo Rivas")
    page.fill("#id_b1", "Bruno Salcedo")
    page.fill("#id_tantos_a", "100")
    page.fill("#id_tantos_b", "60")
    page.get_by_role("button", name="Calcular").click()
    result = page.locator("#calculator-result table")
    result.wait_for()
    names = result.locator("tbody th").all_inner_texts()
    assert names == ["Amparo Rivas", "Bruno Salcedo"]


def test_without_javascript_several_matches_are_listed(live_server, club, no_js_page):
    page = no_js_page
    page.goto(live_server.url + reverse("rankings:calculator"))
    page.fill("#id_a1", "o")  # in nearly every name
    page.fill("#id_b1", "Celia")
    page.fill("#id_tantos_a", "100")
    page.fill("#id_tantos_b", "60")
    page.get_by_role("button", name="Calcular").click()
    page.wait_for_load_state()
    assert page.locator("#id_a1").input_value() == "o"
    assert page.locator("#id_b1").input_value() == "Celia"
    text = page.locator("#id_a1_error").inner_text()
    assert re.match(
        r"«o» es el nombre de más de 10 jugadores; escribe más letras\. Algunos: ", text
    )
