"""Tournament day on a 360 px phone: a player signs up; the director passes the list (one tap
per entry, search as you type, the counters); a player checks in with the day's code; the next
round's proposal pairs only the present."""

from tests import builders
from tests.browser.helpers import CONTROLS
from tournaments import services
from tournaments.models import Entry, SignUp


def small_controls(page) -> list[str]:
    """The controls of the page under 44 × 44 px (the phone layout test's measure)."""
    return page.evaluate(CONTROLS)["small"]


def test_a_player_signs_up_from_a_phone(live_server, director, phone, expect, screenshot):
    t = builders.signup_tournament(
        acting_user=director, mode="pairs", name="Copa de la Bahía", max_entries=8
    )
    partner = services.create_player(
        acting_user=director, full_name="Ignacio Jover", email="ignacio@example.org"
    )
    page = phone
    page.goto(f"{live_server.url}/torneos/{t.slug}/")
    page.get_by_role("link", name="Inscribirse").click()
    expect(page.locator("h1")).to_have_text("Inscribirse")
    expect(page.locator("#id_website")).to_be_hidden()
    assert small_controls(page) == []
    page.fill("#id_name", "Gregoria Hurtado")
    page.fill("#id_partner_name", "Ignacio Jover")
    page.locator("main form button[type=submit]").click()
    # No contact for someone new: the message beside the email, what was typed kept.
    expect(page.locator("#id_email_error")).to_contain_text("Deja un correo o un teléfono")
    expect(page.locator("#id_name")).to_have_value("Gregoria Hurtado")
    page.fill("#id_phone", "555 0199")
    page.locator("main form button[type=submit]").click()
    # The partner is a club player: asked first, nobody entered yet (issue 25, point 4).
    expect(page.locator(".msg.info")).to_have_text(
        "Solicitud recibida, Gregoria Hurtado: falta que Ignacio Jover confirme que juega "
        "contigo, y hasta entonces nadie queda inscrito. El club se lo pregunta por correo si "
        "tiene el suyo; también puede confirmarlo ante un director del torneo."
    )
    screenshot(page, "phone-signup-done")
    s = SignUp.objects.get()
    assert (s.status, s.partner_id, s.entry) == ("unconfirmed", partner.pk, None)


def test_the_director_passes_the_list_and_a_player_checks_in(
    live_server, club, director, phone, browser, login, expect, screenshot, no_sideways_scroll
):
    t, entries = club["t"], club["entries"]
    page = phone
    login(page)
    page.goto(f"{live_server.url}/gestion/torneos/{t.slug}/presentes/")
    expect(page.locator(".roll-counts")).to_have_text("0 presentes · faltan 7")
    first = page.locator(f"#entrada-{entries[0].pk}")
    first.get_by_role("button", name="Marcar presente").click()
    expect(page.locator(".roll-counts")).to_have_text("1 presente · faltan 6")
    expect(first.get_by_role("button")).to_have_attribute("aria-pressed", "true")
    box = first.get_by_role("button").bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44
    # Search as you type: the list narrows in place, the counters stay for everyone.
    wanted = entries[1].name.split(" & ")[0]
    page.locator("#q").press_sequentially(wanted[:6], delay=30)
    expect(page.locator(".roll-name")).to_have_count(1)
    page.locator(f"#entrada-{entries[1].pk}").get_by_role("button").click()
    expect(page.locator(".roll-counts")).to_have_text("2 presentes · faltan 5")
    no_sideways_scroll(page)
    assert small_controls(page) == []
    screenshot(page, "phone-check-in-director")

    # The day's code; a player checks in from their own phone.
    page.goto(f"{live_server.url}/gestion/torneos/{t.slug}/presentes/")
    page.get_by_role("button", name="Crear el código del día").click()
    code = page.locator(".day-code").inner_text()
    assert len(code) == 4
    player_ctx = browser.new_context(viewport={"width": 360, "height": 740}, locale="es-ES")
    try:
        other = player_ctx.new_page()
        other.goto(f"{live_server.url}/torneos/{t.slug}/mesa/")
        other.get_by_role("link", name="Estoy aquí").click()
        assert small_controls(other) == []
        name = entries[2].name.split(" & ")[1]
        other.fill("#id_name", name.lower())
        other.fill("#id_code", "XXXX")
        other.locator("main form button[type=submit]").click()
        expect(other.locator("#id_code_error")).to_contain_text("Ese no es el código del día")
        other.fill("#id_code", code.lower())
        other.locator("main form button[type=submit]").click()
        expect(other.locator(".msg.success")).to_contain_text("estás presente")
        screenshot(other, "phone-check-in-self")
    finally:
        player_ctx.close()
    assert sorted(e.pk for e in Entry.objects.filter(tournament=t, present=True)) == sorted(
        e.pk for e in entries[:3]
    )
    # Round 2's proposal pairs the three present only (one rests).
    pairing, _ = t.propose_pairings(2, seed=1)
    proposed = {x for table in pairing.tables for x in table} | {pairing.bye}
    assert proposed == {e.pk for e in entries[:3]}


def test_the_tournament_day_pages_speak_english_and_russian(live_server, director, phone, expect):
    t = builders.signup_tournament(acting_user=director, name="Copa Políglota")
    services.new_check_in_code(acting_user=director, tournament=t)
    page = phone
    for lang, signup_h, check_in_h in (
        ("en", "Sign up", "I'm here"),
        ("ru", "Зарегистрироваться", "Я на месте"),
    ):
        page.context.add_cookies(
            [{"name": "django_language", "value": lang, "url": live_server.url}]
        )
        page.goto(f"{live_server.url}/torneos/{t.slug}/inscribirse/")
        expect(page.locator("h1")).to_have_text(signup_h)
        page.locator("main form button[type=submit]").click()
        expect(page.locator("#id_name_error")).to_be_visible()
        expect(page.locator("html")).to_have_attribute("lang", lang)
        page.goto(f"{live_server.url}/torneos/{t.slug}/presente/")
        expect(page.locator("h1")).to_have_text(check_in_h)


def test_a_partner_answers_and_a_director_chooses_on_a_phone(
    live_server, director, phone, login, expect, screenshot, no_sideways_scroll
):
    """The partner's link and the director's requests (a partner to confirm, a name the club
    has twice, with its select) on a 360 px phone: nothing sideways, every control 44 px."""
    from tournaments import notices

    t = builders.signup_tournament(acting_user=director, mode="pairs", name="Copa de la Bahía")

    def player(name, **contact):
        return services.create_player(acting_user=director, full_name=name, **contact)

    partner = player("Ignacio Jover", email="ignacio@example.org")
    player("Gregoria Hurtado", phone="555 019 9000")
    player("Juan Pérez", member_number="S-1", email="juan.perez.de.la.fuente@example.org")
    second = player("Juan Pérez", member_number="S-2", phone="+52 55 1234 5678")
    player("Karla Luna", email="karla@example.org")
    asked = services.sign_up(
        tournament=t, name="Gregoria Hurtado", phone="555 019 9000", partner_name="Ignacio Jover"
    )
    twice = services.sign_up(
        tournament=t, name="Karla Luna", email="karla@example.org", partner_name="Juan Pérez"
    )
    page = phone
    page.goto(notices.partner_url(partner, t, live_server.url))
    expect(page.locator("h1")).to_have_text("Te nombraron como compañero")
    no_sideways_scroll(page)
    assert small_controls(page) == []
    screenshot(page, "phone-partner-link")
    page.get_by_role("button", name="Sí, juego").click()
    expect(page.locator(".msg.success")).to_have_text(
        "Listo: Gregoria Hurtado & Ignacio Jover, inscritos en «Copa de la Bahía»."
    )
    assert SignUp.objects.get(pk=asked.pk).status == "accepted"
    login(page)
    page.goto(f"{live_server.url}/gestion/torneos/{t.slug}/solicitudes/")
    row = page.locator(f"#solicitud-{twice.pk}")
    no_sideways_scroll(page)
    assert small_controls(page) == []
    screenshot(page, "phone-signup-requests-choice")
    row.locator("select[name=partner_choice]").select_option(str(second.pk))
    row.get_by_role("button", name="Aceptar").click()
    expect(page.locator(".msg.success")).to_have_text("Karla Luna: aceptada.")
    assert Entry.objects.get(pk=SignUp.objects.get(pk=twice.pk).entry_id).player2_id == second.pk
