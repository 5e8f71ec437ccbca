"""A tournament's life on a director's phone (360 px): in each state the director's page offers
only the steps allowed then (tournaments/services/lifecycle.py), says what comes next, and the
next round waits for the current one unless the director pairs anyway."""

import datetime as dt

from tests import builders
from tournaments.models import Round, Tournament

#: The step buttons (their ``value``) the page offers in each state, as the issue's table says.
OFFERED = {
    "draft": ["open_signup", "publish_ready"],
    "registration": ["close_signup", "back_to_draft"],
    "ready": ["reopen_signup", "back_to_draft"],
    "running": ["finish", "back_to_draft"],
    "finished": ["reopen", "back_to_draft"],
}


def offered(page) -> list[str]:
    return page.locator("#siguiente-paso input[name=step]").evaluate_all(
        "(inputs) => inputs.map((i) => i.value)"
    )


def test_the_directors_phone_offers_only_the_allowed_steps(
    live_server, phone, director, login, expect, screenshot, no_sideways_scroll
):
    t, entries = builders.field(
        names=builders.NAMES[:8],
        name="Copa del Ciclo",
        date=dt.date.today() + dt.timedelta(days=1),
        mode="pairs",
        target=100,
        rounds_planned=2,
        status="draft",
        acting_user=director,
    )
    page = phone
    login(page)
    url = f"{live_server.url}/gestion/torneos/{t.slug}/"

    def step(name, reason=None):
        form = page.locator(f"#paso-{name}")
        if reason is not None:
            form.locator("input[name=reason]").fill(reason)
        form.locator("button[type=submit]").click()
        page.wait_for_load_state()

    page.goto(url)
    expect(page.locator("#siguiente-paso [role=status]")).to_contain_text("Borrador")
    assert offered(page) == OFFERED["draft"]
    no_sideways_scroll(page)
    screenshot(page, "lifecycle-draft-360")

    step("open_signup")
    expect(page.locator(".messages")).to_contain_text("Abrir la inscripción")
    assert offered(page) == OFFERED["registration"]
    expect(page.locator("#siguiente-paso [role=status]")).to_have_text(
        "Inscripción abierta: 4 inscripciones. Ciérrala para pasar lista."
    )

    # a step that needs a reason, sent without it: refused beside its button, nothing changed
    step("back_to_draft", reason="")
    expect(page.locator("#paso-back_to_draft-error")).to_contain_text("escribe el motivo")
    assert Tournament.objects.get(pk=t.pk).status == "registration"

    page.goto(url)
    step("close_signup")
    assert offered(page) == OFFERED["ready"]
    no_sideways_scroll(page)
    screenshot(page, "lifecycle-ready-360")

    # round 1 paired (the step "start"): running; "finish" (to confirm) and "back to draft"
    builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    page.goto(url)
    assert offered(page) == OFFERED["running"]
    expect(page.locator("#siguiente-paso [role=status]")).to_have_text(
        "Faltan 2 mesas de la ronda 1: 1, 2."
    )
    expect(page.locator("#paso-finish button")).to_have_text("Terminar el torneo igualmente")
    no_sideways_scroll(page)
    screenshot(page, "lifecycle-running-360")

    # the next round waits: the pairings page names the missing tables, no form
    page.goto(f"{live_server.url}/gestion/torneos/{t.slug}/ronda/2/emparejamientos/")
    expect(page.locator(".next-step")).to_contain_text("La ronda 1 aún no está completa")
    expect(page.locator("form.pairings")).to_have_count(0)
    page.locator("summary").click()
    page.get_by_role("link", name="Sí, emparejar la ronda 2 igualmente").click()
    expect(page.locator(".warning").first).to_contain_text("Emparejas sin esperar a la ronda 1")
    no_sideways_scroll(page)
    screenshot(page, "lifecycle-pair-anyway-360")
    assert not Round.objects.filter(tournament=t, number=2).exists()

    builders.record_round(t, 1, acting_user=director, tantos_a=100, tantos_b=31)
    builders.close(t.rounds.get(number=1), acting_user=director)
    page.goto(url)
    expect(page.locator("#siguiente-paso [role=status]")).to_have_text(
        "La ronda 1 está completa: empareja la ronda 2."
    )
    expect(page.locator("#paso-finish button")).to_have_text("Terminar el torneo")
    step("finish")
    assert offered(page) == OFFERED["finished"]
    step("reopen", reason="Faltaba corregir la mesa 2")
    assert Tournament.objects.get(pk=t.pk).status == "running"
    assert offered(page) == OFFERED["running"]
