"""A tournament's life (tournaments/services/lifecycle.py): every step from every state through
the services, the refused ones with their codes; the next round waits for the current one
(pages, imports, the admin); what the director's page says and offers."""

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse

from tests import builders
from tournaments import imports, services
from tournaments.errors import DomainError
from tournaments.models import Round, Tournament
from tournaments.services import lifecycle

pytestmark = pytest.mark.django_db

STATES = ["draft", "registration", "ready", "running", "finished"]

#: Where each step leads from each state, written out by hand (the table the issue asks for):
#: a state missing from a step's row refuses it with "step_not_allowed".
EXPECTED = {
    "open_signup": {"draft": "registration"},
    "publish_ready": {"draft": "ready"},
    "close_signup": {"registration": "ready"},
    "reopen_signup": {"ready": "registration"},
    "finish": {"running": "finished"},
    "reopen": {"finished": "running"},
    "republish": {"draft": "running"},
    "publish_finished": {"draft": "finished"},
    "back_to_draft": {
        "registration": "draft",
        "ready": "draft",
        "running": "draft",
        "finished": "draft",
    },
}
#: The steps whose guard refuses them in a state they leave (a draft never played), by code.
GUARDED = {("republish", "draft"): "no_rounds_yet", ("publish_finished", "draft"): "no_rounds_yet"}


def four_pairs(status: str, *, director=None):
    """A pairs tournament to 100 in ``status``, with four entries (a finished one: finished
    through its step, without rounds)."""
    t, entries = builders.field(
        names=builders.NAMES[:8],
        name=f"Copa Ciclo {status}",
        date=dt.date(2026, 5, 9),
        system="domino",
        mode="pairs",
        target=100,
        rounds_planned=3,
        status="running" if status == "finished" else status,
        acting_user=director,
    )
    if status == "finished":
        t = services.take_step(acting_user=director, tournament=t, step="finish")
    return t, entries


def test_the_steps_are_the_table_above():
    assert {s.name for s in lifecycle.STEPS} == {*EXPECTED, "start"}
    start = lifecycle.step_named("start")
    assert (start.sources, start.target, start.by_pairing) == (
        ("draft", "registration", "ready"),
        "running",
        True,
    )


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("step", sorted(EXPECTED))
def test_every_step_from_every_state(state, step, director):
    t, _ = four_pairs(state, director=director)
    target = EXPECTED[step].get(state)
    reason = "Error al anotar la fecha" if lifecycle.step_named(step).reason else ""
    if (step, state) in GUARDED:
        with pytest.raises(DomainError) as refused:
            services.take_step(acting_user=director, tournament=t, step=step, reason=reason)
        assert refused.value.code == GUARDED[(step, state)]
        return
    if target is None:
        with pytest.raises(DomainError) as refused:
            services.take_step(acting_user=director, tournament=t, step=step, reason=reason)
        assert refused.value.code == "step_not_allowed"
        t.refresh_from_db()
        assert t.status == state
        return
    services.take_step(acting_user=director, tournament=t, step=step, reason=reason)
    t.refresh_from_db()
    assert t.status == target
    last = t.history.order_by("-history_id").first()
    assert last.history_user == director
    assert last.history_change_reason == (reason or None)


@pytest.mark.parametrize("state", STATES)
def test_pairing_round_one_is_the_step_start(state, director):
    t, entries = four_pairs(state, director=director)
    if state == "finished":
        with pytest.raises(DomainError) as refused:
            builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
        assert refused.value.code == "tournament_finished_no_pairing"
        return
    builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    t.refresh_from_db()
    assert t.status == "running"


def test_the_guards_say_why_in_words(director):
    t, entries = four_pairs("running", director=director)
    rnd = builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    builders.record(builders.tables_of(rnd)[0], acting_user=director, tantos_a=100, tantos_b=40)
    # finishing with a table missing: refused, listing the round; confirmed: finished
    with pytest.raises(DomainError) as refused:
        services.take_step(acting_user=director, tournament=t, step="finish")
    assert refused.value.code == "open_rounds"
    assert refused.value.params["open_rounds"] == [(1, 2, 1)]
    services.take_step(acting_user=director, tournament=t, step="finish", confirmed=True)
    t.refresh_from_db()
    assert t.status == "finished"
    # reopening needs a reason
    with pytest.raises(DomainError) as refused:
        services.take_step(acting_user=director, tournament=t, step="reopen", reason="  ")
    assert refused.value.code == "step_needs_reason"
    assert refused.value.message == (
        "Para «Reabrir el torneo» escribe el motivo: queda en el historial del torneo."
    )
    services.take_step(
        acting_user=director, tournament=t, step="reopen", reason="Faltaba la mesa 2"
    )
    t.refresh_from_db()
    assert t.status == "running"
    # pairing is not a button
    with pytest.raises(DomainError) as refused:
        services.take_step(acting_user=director, tournament=t, step="start")
    assert refused.value.code == "step_not_allowed"
    with pytest.raises(DomainError) as refused:
        services.take_step(acting_user=director, tournament=t, step="volar")
    assert refused.value.code == "unknown_step"


def test_no_step_skips_the_table(director):
    t, entries = four_pairs("registration", director=director)
    builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    t.refresh_from_db()
    # running → registration is no step: the settings form and the admin say which are
    with pytest.raises(DomainError) as refused:
        services.update_tournament(acting_user=director, tournament=t, status="registration")
    assert refused.value.code == "step_not_allowed"
    assert refused.value.message == (
        "Un torneo «En curso» no pasa a «Inscripción». Desde aquí se puede: «Terminar el "
        "torneo», «Volver a borrador»."
    )
    # back to draft (hidden again) needs its reason
    with pytest.raises(DomainError) as refused:
        services.update_tournament(acting_user=director, tournament=t, status="draft")
    assert refused.value.code == "step_needs_reason"


def test_a_played_draft_is_published_again_running_or_finished(director):
    t, entries = four_pairs("running", director=director)
    rnd = builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    builders.record(builders.tables_of(rnd)[0], acting_user=director, tantos_a=100, tantos_b=9)
    services.take_step(acting_user=director, tournament=t, step="back_to_draft", reason="Oculto")
    t.refresh_from_db()
    assert [o.step.name for o in lifecycle.offers(t)] == ["republish", "publish_finished"]
    with pytest.raises(DomainError) as refused:  # a played tournament takes no sign-ups
        services.take_step(acting_user=director, tournament=t, step="open_signup")
    assert refused.value.code == "rounds_already_played"
    with pytest.raises(DomainError) as refused:
        services.take_step(acting_user=director, tournament=t, step="publish_finished")
    assert refused.value.code == "open_rounds"
    services.take_step(acting_user=director, tournament=t, step="publish_finished", confirmed=True)
    t.refresh_from_db()
    assert t.status == "finished"


def test_starting_needs_a_full_table(director):
    t, entries = builders.field(
        names=builders.NAMES[:3],
        name="Copa Corta",
        date=dt.date(2026, 5, 9),
        system="domino",
        mode="individual",
        target=100,
        status="ready",
        acting_user=director,
    )
    with pytest.raises(DomainError) as refused:
        services.update_tournament(acting_user=director, tournament=t, status="running")
    assert refused.value.code == "too_few_entries_to_start"
    assert refused.value.params == {"minimum": 4, "count": 3}


def test_a_status_change_through_the_settings_is_a_step_with_its_reason(director):
    t, _ = four_pairs("finished", director=director)
    with pytest.raises(DomainError) as refused:
        services.update_tournament(acting_user=director, tournament=t, status="running")
    assert refused.value.code == "step_needs_reason"
    services.update_tournament(
        acting_user=director, tournament=t, status="running", reason="Corrección de la mesa 3"
    )
    assert t.history.order_by("-history_id").first().history_change_reason == (
        "Corrección de la mesa 3"
    )
    assert lifecycle.status_choices(t) == ["draft", "running", "finished"]
    assert lifecycle.status_choices(None) == ["draft", "registration", "ready"]
    fresh, _ = four_pairs("draft", director=director)
    assert lifecycle.status_choices(fresh) == ["draft", "registration", "ready"]


# --- rounds ------------------------------------------------------------------------------------


def test_a_round_goes_paired_playing_complete_closed(director):
    t, entries = four_pairs("running", director=director)
    rnd = builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    assert lifecycle.round_state(rnd) == "paired"
    first, second = builders.tables_of(rnd)
    builders.record(first, acting_user=director, tantos_a=100, tantos_b=40)
    assert lifecycle.round_state(rnd) == "playing"
    assert lifecycle.missing_tables(rnd) == [2]
    builders.record(second, acting_user=director, tantos_a=71, tantos_b=100)
    assert lifecycle.round_state(rnd) == "complete"
    builders.close(rnd, acting_user=director)
    rnd.refresh_from_db()
    assert lifecycle.round_state(rnd) == "closed"


def test_the_next_round_waits_for_the_current_one(director):
    t, entries = four_pairs("running", director=director)
    rnd = builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    with pytest.raises(DomainError) as refused:
        builders.pair(t, 2, [(0, 2), (1, 3)], entries=entries, acting_user=director)
    assert refused.value.code == "previous_round_incomplete"
    assert refused.value.params == {"number": 1, "count": 2, "tables": "1, 2", "next": 2}
    assert not Round.objects.filter(tournament=t, number=2).exists()
    builders.record(builders.tables_of(rnd)[0], acting_user=director, tantos_a=100, tantos_b=0)
    with pytest.raises(DomainError) as refused:
        builders.pair(t, 2, [(0, 2), (1, 3)], entries=entries, acting_user=director)
    assert refused.value.message == (
        "La ronda 1 aún no está completa: faltan los resultados de 1 mesa(s) (2). Anótalos "
        "antes de emparejar la ronda 2, o empareja igualmente."
    )
    # "pair anyway"
    second = builders.pair(
        t, 2, [(0, 2), (1, 3)], entries=entries, acting_user=director, anyway=True
    )
    assert second.number == 2
    # re-pairing round 2 waits again (the same rule), round 3 waits for round 2
    builders.record(builders.tables_of(rnd)[1], acting_user=director, tantos_a=100, tantos_b=3)
    builders.pair(t, 2, [(0, 3), (1, 2)], entries=entries, acting_user=director)
    with pytest.raises(DomainError) as refused:
        builders.pair(t, 3, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    assert refused.value.params["number"] == 2


def test_a_finished_tournament_pairs_no_round(director):
    t, entries = four_pairs("running", director=director)
    builders.play(
        t,
        1,
        [(0, 1), (2, 3)],
        [builders.tantos(100, 1)] * 2,
        entries=entries,
        acting_user=director,
        close=True,
    )
    builders.finish(t, acting_user=director)
    with pytest.raises(DomainError) as refused:
        builders.pair(t, 2, [(0, 2), (1, 3)], entries=entries, acting_user=director, anyway=True)
    assert refused.value.code == "tournament_finished_no_pairing"


def test_an_import_follows_the_order_of_play(director):
    t, entries = four_pairs("running", director=director)
    rnd = builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    builders.record(builders.tables_of(rnd)[0], acting_user=director, tantos_a=100, tantos_b=40)
    names = [e.name for e in entries]
    head = "round,table,side_a,side_b,tantos_a,tantos_b,ended_by_time,forfeit,played_at\n"
    early = head + (
        f"2,1,{names[0]},{names[2]},100,12,no,no,\n2,2,{names[1]},{names[3]},55,100,no,no,\n"
    )
    with pytest.raises(DomainError) as refused:
        imports.import_results(acting_user=director, tournament=t, data=early)
    message = (
        "El archivo trae la ronda 2, pero la ronda 1 queda sin los resultados de 1 mesa(s) "
        "(2). Completa la ronda 1 (en el archivo o en la página de la ronda) y vuelve a "
        "importarlo."
    )
    assert list(refused.value.listed) == [(2, message), (3, message)]
    assert list(t.rounds.values_list("number", flat=True)) == [1]
    # the missing table in the same file: imported in one go
    complete = head + f"1,2,{names[2]},{names[3]},100,7,no,no,\n" + early.removeprefix(head)
    imports.import_results(acting_user=director, tournament=t, data=complete)
    assert list(t.rounds.values_list("number", flat=True)) == [1, 2]
    assert lifecycle.round_state(t.rounds.get(number=2)) == "complete"


def test_the_admin_adds_no_round_before_the_last_is_complete(director, admin_client):
    t, entries = four_pairs("running", director=director)
    builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    answer = admin_client.post(
        reverse("admin:tournaments_round_add"),
        {
            "tournament": t.pk,
            "number": 2,
            "closed": "",
            "tables-TOTAL_FORMS": 0,
            "tables-INITIAL_FORMS": 0,
            "byes-TOTAL_FORMS": 0,
            "byes-INITIAL_FORMS": 0,
        },
    )
    assert answer.status_code == 200
    assert "La ronda 1 aún no está completa" in answer.content.decode()
    assert not Round.objects.filter(tournament=t, number=2).exists()


# --- what the director's page says and offers --------------------------------------------------


def test_what_next_in_words(director):
    t, entries = four_pairs("registration", director=director)
    assert lifecycle.what_next(t).text == (
        "Inscripción abierta: 4 inscripciones. Ciérrala para pasar lista."
    )
    services.take_step(acting_user=director, tournament=t, step="close_signup")
    t.refresh_from_db()
    assert lifecycle.what_next(t) == lifecycle.Next(
        "Listo para empezar: 4 inscripciones. Pasa lista y empareja la ronda 1.", pair=1
    )
    rnd = builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    t.refresh_from_db()
    assert lifecycle.what_next(t) == lifecycle.Next(
        "Faltan 2 mesas de la ronda 1: 1, 2.", round=1, missing=(1, 2)
    )
    builders.record_round(t, 1, acting_user=director, tantos_a=100, tantos_b=50)
    assert lifecycle.what_next(t) == lifecycle.Next(
        "La ronda 1 está completa: empareja la ronda 2.", round=1, pair=2
    )
    assert [o.step.name for o in lifecycle.offers(t)] == ["finish", "back_to_draft"]
    assert lifecycle.offers(t)[0].refusal.startswith("El torneo tiene rondas abiertas (1)")
    builders.close(rnd, acting_user=director)
    assert lifecycle.offers(t)[0] == lifecycle.Offer(lifecycle.step_named("finish"))


def test_the_draw_of_lots_waits_for_the_final_order(director):
    t, entries = four_pairs("running", director=director)
    builders.play(
        t, 1, [(0, 1), (2, 3)], [builders.tantos(100, 1)] * 2, entries=entries, acting_user=director
    )
    assert not t.order_is_final()  # round 1 of 3
    for number, tables in ((2, [(0, 2), (1, 3)]), (3, [(0, 3), (1, 2)])):
        builders.play(
            t, number, tables, [builders.tantos(100, 1)] * 2, entries=entries, acting_user=director
        )
    assert t.order_is_final()


def _page(client, t):
    return client.get(reverse("manage:tournament", args=[t.slug])).content.decode()


def test_the_directors_page_offers_only_the_allowed_steps(director):
    client = Client()
    client.force_login(director)
    t, entries = four_pairs("draft", director=director)
    page = _page(client, t)
    assert 'name="step" value="open_signup"' in page and 'value="publish_ready"' in page
    assert 'value="finish"' not in page and 'value="reopen"' not in page
    answer = client.post(reverse("manage:tournament_step", args=[t.slug]), {"step": "open_signup"})
    assert answer.status_code == 302
    t.refresh_from_db()
    assert t.status == "registration"
    page = _page(client, t)
    assert 'value="close_signup"' in page and 'value="back_to_draft"' in page
    assert 'value="open_signup"' not in page
    # a step with a reason, refused without it: the message beside its button
    answer = client.post(
        reverse("manage:tournament_step", args=[t.slug]), {"step": "back_to_draft", "reason": ""}
    )
    assert answer.status_code == 400
    assert 'id="paso-back_to_draft-error">Para «Volver a borrador» escribe el motivo' in (
        answer.content.decode()
    )
    rnd = builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    page = _page(client, t)
    assert "Faltan 2 mesas de la ronda 1: 1, 2." in page
    assert "Terminar el torneo igualmente" in page
    assert reverse("manage:pairings", args=[t.slug, 2]) + '"' in page  # "emparejar igualmente…"
    assert "La ronda 2 se empareja cuando la ronda 1 tenga todos sus resultados" in page
    builders.record_round(t, 1, acting_user=director, tantos_a=100, tantos_b=20)
    builders.close(rnd, acting_user=director)
    page = _page(client, t)
    assert "La ronda 1 está completa: empareja la ronda 2." in page
    answer = client.post(reverse("manage:tournament_step", args=[t.slug]), {"step": "finish"})
    t.refresh_from_db()
    assert t.status == "finished"
    page = _page(client, t)
    assert 'value="reopen"' in page and "No se emparejan más rondas" not in page
    assert "El torneo está terminado: no se emparejan más rondas." in page


def test_the_pairings_page_names_the_missing_tables_and_asks_before_pairing_anyway(director):
    client = Client()
    client.force_login(director)
    t, entries = four_pairs("running", director=director)
    rnd = builders.pair(t, 1, [(0, 1), (2, 3)], entries=entries, acting_user=director)
    builders.record(builders.tables_of(rnd)[0], acting_user=director, tantos_a=100, tantos_b=40)
    url = reverse("manage:pairings", args=[t.slug, 2])
    wait = client.get(url).content.decode()
    assert "La ronda 1 aún no está completa: falta el resultado de 1 mesa." in wait
    assert 'class="pairings"' not in wait  # no form
    assert 'href="?igualmente=1"' in wait
    anyway = client.get(url + "?igualmente=1").content.decode()
    assert "Emparejas sin esperar a la ronda 1" in anyway
    assert '<input type="hidden" name="anyway" value="1">' in anyway
    ids = [e.pk for e in entries]
    chosen = {"t0_a1": ids[0], "t0_b1": ids[2], "t1_a1": ids[1], "t1_b1": ids[3]}
    refused = client.post(url, {**chosen, "seen": "new"})  # without "anyway": refused
    assert refused.status_code == 400
    assert "La ronda 1 aún no está completa: faltan los resultados de 1 mesa(s) (2)." in (
        refused.content.decode()
    )
    answer = client.post(url, {**chosen, "seen": "new", "anyway": "1"})
    assert answer.status_code == 302
    assert Round.objects.filter(tournament=t, number=2).exists()
    assert Tournament.objects.get(pk=t.pk).status == "running"


def test_without_a_full_table_the_next_step_is_to_enter_more(director):
    t = builders.tournament(
        acting_user=director, name="Copa Vacía", date=dt.date(2026, 5, 9), status="ready"
    )
    assert lifecycle.what_next(t) == lifecycle.Next(
        "Para empezar hacen falta al menos 2 inscripciones; hay 0."
    )


def test_a_late_pair_entered_during_check_in_is_present(director):
    client = Client()
    client.force_login(director)
    t, entries = four_pairs("ready", director=director)
    services.set_present(acting_user=director, entry=entries[0], present=True)
    late = builders.players(["Tomasa Gil", "Ulises León"], acting_user=director)
    answer = client.post(
        reverse("manage:entry_add", args=[t.slug]),
        {"player1": late[0].pk, "player2": late[1].pk},
        follow=True,
    )
    assert "Inscrito y presente: Tomasa Gil &amp; Ulises León." in answer.content.decode()
    entry = t.entries.get(player1=late[0])
    assert entry.present
    assert set(t.entries_to_pair(1)) == {entries[0], entry}


def test_a_ready_tournament_says_its_sign_up_is_closed_and_a_finished_one_takes_no_entry(
    director,
):
    t, entries = four_pairs("registration", director=director)
    services.update_signup_settings(
        acting_user=director,
        tournament=t,
        signup_open=True,
        max_entries=None,
        signup_closes_at=None,
        signup_needs_approval=False,
    )
    services.take_step(acting_user=director, tournament=t, step="close_signup")
    page = Client().get(reverse("public:signup", args=[t.slug])).content.decode()
    assert "La inscripción está cerrada: el torneo está a punto de empezar." in page
    client = Client()
    client.force_login(director)
    entry_form = f'action="{reverse("manage:entry_add", args=[t.slug])}"'
    assert entry_form in client.get(reverse("manage:tournament", args=[t.slug])).content.decode()
    builders.play(
        t,
        1,
        [(0, 1), (2, 3)],
        [builders.tantos(100, 1)] * 2,
        entries=entries,
        acting_user=director,
        close=True,
    )
    services.take_step(acting_user=director, tournament=t, step="finish")
    page = client.get(reverse("manage:tournament", args=[t.slug])).content.decode()
    assert entry_form not in page
