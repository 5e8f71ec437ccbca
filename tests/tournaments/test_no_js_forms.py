"""The directors' forms without JavaScript behave as with it (issue "forms", parts 2 and 6):
a refused form comes back with what was typed and the message beside its field, focused; a
refused save never looks saved; every deletion asks first (a confirmation page without
JavaScript) and then says what it did; finishing a tournament with open rounds asks first; a
closed round reads as read-only."""

import datetime as dt
import html
import re

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from tournaments import services
from tournaments.errors import DomainError
from tournaments.models import Castigo, Entry, Player, Result, Sorteo, Table, Tournament

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def text(response) -> str:
    return html.unescape(response.content.decode())


def said(response) -> list[str]:
    """The messages this request added."""
    return [str(m) for m in get_messages(response.wsgi_request)._queued_messages]


def row_html(body: str, number: int) -> str:
    """The result row of table ``number`` (a form, or the read-only block of a closed round)."""
    found = re.search(
        rf'<(form|div) class="result-row[^"]*" id="mesa-{number}".*?</\1>', body, re.S
    )
    assert found, body[-3000:]
    return found.group(0)


def input_value(body: str, name: str) -> str:
    found = re.search(rf'<input[^>]*name="{name}"[^>]*>', body)
    assert found, name
    value = re.search(r'value="([^"]*)"', found.group(0))
    return html.unescape(value.group(1)) if value else ""


def input_tag(body: str, input_id: str) -> str:
    found = re.search(rf'<(input|select)[^>]*id="{input_id}"[^>]*>', body)
    assert found, input_id
    return found.group(0)


def selected(body: str, select_id: str) -> list[str]:
    block = re.search(rf'<select[^>]*id="{select_id}"[^>]*>(.*?)</select>', body, re.S)
    assert block, select_id
    return re.findall(r'<option value="([^"]*)" selected>', block.group(1))


def field_errors(body: str, field_id: str) -> list[str]:
    """The messages shown beside a field (``_form_fields.html``)."""
    block = re.search(rf'<div class="field-errors" id="{field_id}_error">(.*?)</div>', body, re.S)
    return re.findall(r"<p[^>]*>([^<]*)</p>", block.group(1)) if block else []


@pytest.fixture
def club(director):
    """ "Copa Sin Script", pairs to 100 with a time limit, four pairs: round 1 on two tables,
    table 1 saved 100–20 (version 1), table 2 empty; a castigo to the first player."""
    t = services.create_tournament(
        acting_user=director,
        name="Copa Sin Script",
        date=dt.date(2026, 9, 19),
        mode="pairs",
        target=100,
        time_limit=30,
        status="running",
    )
    names = [
        "Ana Pérez",
        "Benito Ríos",
        "Carla Soto",
        "Dario Tena",
        "Elena Uribe",
        "Fabio Vera",
        "Gala Yáñez",
        "Hugo Zamora",
    ]
    players = [services.create_player(acting_user=director, full_name=n) for n in names]
    entries = [
        services.register_entry(acting_user=director, tournament=t, players=players[i : i + 2])
        for i in range(0, 8, 2)
    ]
    rnd = services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=1,
        tables=[([entries[0]], [entries[1]]), ([entries[2]], [entries[3]])],
    )
    first, second = rnd.tables.order_by("number")
    services.record_result(acting_user=director, table=first, tantos_a=100, tantos_b=20, version=0)
    castigo = services.add_castigo(
        acting_user=director,
        tournament=t,
        player=players[0],
        tantos=5,
        reason="Llegó tarde",
        round=rnd,
    )
    spare = services.create_player(acting_user=director, full_name="Tadeo Tovar")
    return {
        "t": t,
        "round": rnd,
        "entries": entries,
        "players": players,
        "tables": (first, second),
        "castigo": castigo,
        "spare": spare,
    }


def settings_data(t, **changes) -> dict:
    data = {
        "name": t.name,
        "date": t.date.isoformat(),
        "venue": "",
        "system": "domino",
        "mode": t.mode,
        "target": str(t.target),
        "time_limit": str(t.time_limit or ""),
        "bye_rule": "rest",
        "forfeit_winner_tantos": "",
        "forfeit_loser_tantos": "0",
        "rounds_planned": "5",
        "rated": "on",
        "status": t.status,
        "best_of": "3",
    }
    data.update(changes)
    return data


# --- result rows ---------------------------------------------------------------------------------


def test_a_refused_save_of_a_saved_row_without_javascript_shows_the_row_as_typed(
    director_client, club
):
    t, (first, _second) = club["t"], club["tables"]
    response = director_client.post(
        reverse("manage:result_save", args=[t.slug, first.pk]),
        {"tantos_a": "80", "tantos_b": "61", "version": "1", "action": "save"},
    )
    assert response.status_code == 400
    body = text(response)
    assert "<h1>Ronda 1" in body  # the round page itself, not a redirect
    row = row_html(body, 1)
    assert row.startswith('<form class="result-row has-error" id="mesa-1"')
    assert f'action="/gestion/torneos/{t.slug}/mesa/{first.pk}/resultado/"' in row
    assert input_value(row, "tantos_a") == "80"
    assert input_value(row, "tantos_b") == "61"
    error = re.search(r'<p class="error" role="alert" id="mesa-1-error">([^<]*)</p>', row)
    assert error.group(1) == (
        "Ningún lado llegó a 100 tantos (80–61); si la partida terminó por tiempo, márcalo."
    )
    assert "autofocus" in input_tag(row, f"a-{first.pk}")
    assert 'aria-describedby="mesa-1-error"' in input_tag(row, f"a-{first.pk}")
    assert body.count("autofocus") == 1
    assert '<span class="unsaved-mark">cambio sin guardar</span>' in row
    assert 'class="saved-mark"' not in row and "guardada" not in row
    assert 'class="figures"' not in row and "Puntos:" not in row  # no old points
    assert said(response) == []
    result = Result.objects.get(table=first)
    assert (result.tantos_a, result.tantos_b) == (100, 20)
    assert Table.objects.get(pk=first.pk).version == 1
    # the other row is as stored
    assert 'class="result-row" id="mesa-2"' in body


def test_a_refused_save_of_a_saved_row_through_htmx_is_not_marked_saved(director_client, club):
    t, (first, _second) = club["t"], club["tables"]
    response = director_client.post(
        reverse("manage:result_save", args=[t.slug, first.pk]),
        {"tantos_a": "80", "tantos_b": "61", "version": "1"},
        **HTMX,
    )
    assert response.status_code == 400
    row = row_html(text(response), 1)
    assert row.startswith('<form class="result-row has-error" id="mesa-1"')
    assert (input_value(row, "tantos_a"), input_value(row, "tantos_b")) == ("80", "61")
    assert "Ningún lado llegó a 100 tantos (80–61)" in row
    assert 'class="saved-mark"' not in row and "Puntos:" not in row
    assert '<span class="unsaved-mark">cambio sin guardar</span>' in row


def test_a_stale_save_without_javascript_answers_409_with_the_stored_row_and_the_typed_quoted(
    director_client, club
):
    t, (first, _second) = club["t"], club["tables"]
    response = director_client.post(
        reverse("manage:result_save", args=[t.slug, first.pk]),
        {"tantos_a": "100", "tantos_b": "55", "version": "0"},
    )
    assert response.status_code == 409
    row = row_html(text(response), 1)
    assert (input_value(row, "tantos_a"), input_value(row, "tantos_b")) == ("100", "20")
    assert input_value(row, "version") == "1"
    assert (
        "Esta mesa cambió mientras la editabas (mesa 1): recarga y vuelve a capturar. "
        "Lo que escribiste: 100–55."
    ) in row
    assert 'class="saved-mark"' not in row
    assert Result.objects.get(table=first).tantos_b == 20


def test_a_good_save_without_javascript_goes_back_to_the_row_and_says_so(director_client, club):
    t, (_first, second) = club["t"], club["tables"]
    response = director_client.post(
        reverse("manage:result_save", args=[t.slug, second.pk]),
        {"tantos_a": "100", "tantos_b": "31", "version": "0", "action": "save"},
    )
    assert response.status_code == 302
    assert response["Location"] == f"/gestion/torneos/{t.slug}/ronda/1/#mesa-2"
    assert said(response) == ["Mesa 2 guardada."]
    assert Result.objects.get(table=second).tantos_b == 31


def test_deleting_a_result_without_javascript_asks_first_then_deletes_and_says_so(
    director_client, club
):
    t, (first, _second) = club["t"], club["tables"]
    url = reverse("manage:result_save", args=[t.slug, first.pk])
    asked = director_client.post(url, {"action": "delete", "version": "1"})
    assert asked.status_code == 200
    body = text(asked)
    assert '<h1 id="confirm-h">¿Borrar el resultado de la mesa 1?</h1>' in body
    assert "<li>Mesa 1: Ana Pérez & Benito Ríos contra Carla Soto & Dario Tena, 100 – 20.</li>" in (
        body
    )
    form = re.search(
        r'<form method="post" action="([^"]*)" class="confirm-actions">(.*?)</form>', body, re.S
    )
    assert form.group(1) == url
    hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form.group(2)))
    hidden.pop("csrfmiddlewaretoken")
    assert hidden == {"action": "delete", "version": "1", "confirm": "1"}
    assert '<button type="submit" class="danger">Sí, borrar</button>' in body
    assert (
        f'<a class="button secondary" href="/gestion/torneos/{t.slug}/ronda/1/#mesa-1">Cancelar</a>'
        in body
    )
    assert Result.objects.filter(table=first).exists()
    assert said(asked) == []

    done = director_client.post(url, hidden)
    assert done.status_code == 302
    assert done["Location"] == f"/gestion/torneos/{t.slug}/ronda/1/#mesa-1"
    assert said(done) == ["Resultado de la mesa 1 borrado."]
    assert not Result.objects.filter(table=first).exists()


def test_deleting_a_result_already_deleted_from_another_page_says_it_is_gone(director_client, club):
    t, (first, _second) = club["t"], club["tables"]
    url = reverse("manage:result_save", args=[t.slug, first.pk])
    yes = {"action": "delete", "version": "1", "confirm": "1"}
    assert director_client.post(url, yes, follow=True).status_code == 200  # the first page
    again = director_client.post(url, yes, follow=True)  # the second, with the old version
    messages = [str(m) for m in again.context["messages"]]
    assert messages == ["El resultado de la mesa 1 ya estaba borrado."], messages
    assert again.redirect_chain == [(f"/gestion/torneos/{t.slug}/ronda/1/#mesa-1", 302)]
    assert not Result.objects.filter(table=first).exists()


def test_deleting_a_result_through_htmx_with_the_yes_deletes_and_says_so_in_the_row(
    director_client, club
):
    t, (first, _second) = club["t"], club["tables"]
    url = reverse("manage:result_save", args=[t.slug, first.pk])
    response = director_client.post(
        url, {"action": "delete", "version": "1", "confirm": "1"}, **HTMX
    )
    assert response.status_code == 200
    row = row_html(text(response), 1)
    assert row.startswith('<form class="result-row" id="mesa-1"')
    assert '<p class="msg success" role="status">Resultado de la mesa 1 borrado.</p>' in row
    assert '<span class="pending-mark">pendiente</span>' in row
    assert not Result.objects.filter(table=first).exists()


def test_an_htmx_delete_without_the_yes_gets_the_question_in_place_of_the_page(
    director_client, club
):
    t, (first, _second) = club["t"], club["tables"]
    url = reverse("manage:result_save", args=[t.slug, first.pk])
    response = director_client.post(url, {"action": "delete", "version": "1"}, **HTMX)
    assert response.status_code == 200
    assert (response["HX-Retarget"], response["HX-Reswap"]) == ("body", "innerHTML")
    assert "¿Borrar el resultado de la mesa 1?" in text(response)
    assert Result.objects.filter(table=first).exists()


def test_the_delete_button_asks_with_javascript_and_sends_the_yes(director_client, club):
    t, (first, _second) = club["t"], club["tables"]
    body = text(director_client.get(reverse("manage:round", args=[t.slug, 1])))
    button = re.search(r'<button[^>]*value="delete"[^>]*>Borrar</button>', row_html(body, 1))
    assert button, row_html(body, 1)
    tag = button.group(0)
    assert f'hx-post="/gestion/torneos/{t.slug}/mesa/{first.pk}/resultado/"' in tag
    assert """hx-vals='{"confirm": "1"}'""" in tag
    assert 'hx-confirm="¿Borrar el resultado de la mesa 1?"' in tag


def test_a_delete_that_would_be_refused_is_not_asked_about(director_client, club):
    t, (_first, second) = club["t"], club["tables"]
    response = director_client.post(
        reverse("manage:result_save", args=[t.slug, second.pk]),
        {"action": "delete", "version": "0"},
    )
    assert response.status_code == 400
    row = row_html(text(response), 2)
    assert "La mesa 2 no tiene resultado que borrar." in row
    assert "confirm-h" not in text(response)


# --- castigos ------------------------------------------------------------------------------------


def test_a_refused_castigo_without_javascript_comes_back_typed_with_the_error_beside_tantos(
    director_client, club
):
    t, player = club["t"], club["players"][2]
    response = director_client.post(
        reverse("manage:castigo_add", args=[t.slug, 1]),
        {"player": player.pk, "tantos": "-3", "reason": "Hablar durante la mano"},
    )
    assert response.status_code == 400
    body = text(response)
    assert "<h1>Ronda 1" in body
    assert input_value(body, "tantos") == "-3"
    assert input_value(body, "reason") == "Hablar durante la mano"
    assert selected(body, "id_player") == [str(player.pk)]
    assert field_errors(body, "id_tantos") == [
        "El castigo debe ser un número entero de tantos mayor que 0 (como mucho 99999)."
    ]
    tantos = input_tag(body, "id_tantos")
    assert "autofocus" in tantos and 'aria-invalid="true"' in tantos
    assert 'aria-describedby="id_tantos_error"' in tantos
    assert body.count("autofocus") == 1
    assert list(Castigo.objects.values_list("pk", flat=True)) == [club["castigo"].pk]


def test_a_castigo_the_service_refuses_shows_its_message_beside_the_player(
    director_client, director, club
):
    t, entry = club["t"], club["entries"][2]
    # withdrawn before playing round 1 (its table has no result): it no longer plays it
    services.drop_entry(acting_user=director, entry=entry)
    response = director_client.post(
        reverse("manage:castigo_add", args=[t.slug, 1]),
        {"player": entry.player1_id, "tantos": "5", "reason": "Hablar"},
    )
    assert response.status_code == 400
    errors = field_errors(text(response), "id_player")
    assert len(errors) == 1 and errors[0].startswith(f"{entry.player1.full_name} se retiró"), errors
    assert "autofocus" in input_tag(text(response), "id_player")


def test_removing_a_castigo_without_javascript_asks_first_then_says_what_it_did(
    director_client, club
):
    t, castigo = club["t"], club["castigo"]
    url = reverse("manage:castigo_remove", args=[t.slug, 1, castigo.pk])
    asked = director_client.post(url)
    assert asked.status_code == 200
    body = text(asked)
    assert '<h1 id="confirm-h">¿Quitar el castigo a Ana Pérez?</h1>' in body
    assert "<li>Ana Pérez: −5 tantos en la ronda 1, «Llegó tarde».</li>" in body
    assert '<button type="submit" class="danger">Sí, quitar</button>' in body
    assert Castigo.objects.filter(pk=castigo.pk).exists()

    done = director_client.post(url, {"confirm": "1"})
    assert done.status_code == 302
    assert done["Location"] == reverse("manage:round", args=[t.slug, 1])
    assert said(done) == ["Castigo a Ana Pérez quitado."]
    assert not Castigo.objects.exists()


def test_removing_a_castigo_through_htmx_with_the_yes_says_so_in_the_panel(director_client, club):
    t, castigo = club["t"], club["castigo"]
    page = text(director_client.get(reverse("manage:round", args=[t.slug, 1])))
    form = re.search(r'<form[^>]*class="inline castigo-remove"[^>]*>', page).group(0)
    assert """hx-vals='{"confirm": "1"}'""" in form
    assert 'hx-confirm="¿Quitar el castigo a Ana Pérez?"' in form
    response = director_client.post(
        reverse("manage:castigo_remove", args=[t.slug, 1, castigo.pk]), {"confirm": "1"}, **HTMX
    )
    assert response.status_code == 200
    assert '<p class="msg info" role="status">Castigo a Ana Pérez quitado.</p>' in text(response)
    assert not Castigo.objects.exists()


# --- entries -------------------------------------------------------------------------------------


def test_a_refused_entry_comes_back_with_the_players_chosen_and_the_error_beside_the_partner(
    director_client, club
):
    t, spare = club["t"], club["spare"]
    response = director_client.post(
        reverse("manage:entry_add", args=[t.slug]), {"player1": spare.pk, "player2": spare.pk}
    )
    assert response.status_code == 400
    body = text(response)
    assert selected(body, "id_player1") == [str(spare.pk)]
    assert selected(body, "id_player2") == [str(spare.pk)]
    assert field_errors(body, "id_player2") == [
        "Cada inscripción de este torneo lleva 2 jugador(es) distintos."
    ]
    assert "autofocus" in input_tag(body, "id_player2")
    assert Entry.objects.filter(tournament=t).count() == 4


def test_removing_an_entry_asks_first_then_says_what_it_did(director_client, director, club):
    t = club["t"]
    other = services.create_player(acting_user=director, full_name="Irene Abad")
    entry = services.register_entry(
        acting_user=director, tournament=t, players=[club["spare"], other]
    )
    url = reverse("manage:entry_remove", args=[t.slug, entry.pk])
    asked = director_client.post(url)
    assert asked.status_code == 200
    body = text(asked)
    assert '<h1 id="confirm-h">¿Quitar la inscripción de Tadeo Tovar & Irene Abad?</h1>' in body
    assert "<li>Tadeo Tovar & Irene Abad deja de estar inscrito en «Copa Sin Script».</li>" in body
    assert Entry.objects.filter(pk=entry.pk).exists()

    done = director_client.post(url, {"confirm": "1"})
    assert (done.status_code, done["Location"]) == (
        302,
        reverse("manage:tournament", args=[t.slug]),
    )
    assert said(done) == ["Inscripción de Tadeo Tovar & Irene Abad quitada."]
    assert not Entry.objects.filter(pk=entry.pk).exists()


def test_removing_an_entry_that_played_is_refused_at_once(director_client, club):
    t, entry = club["t"], club["entries"][0]
    response = director_client.post(reverse("manage:entry_remove", args=[t.slug, entry.pk]))
    assert response.status_code == 302
    assert said(response) == [
        "Ana Pérez & Benito Ríos ya jugó o descansó en una ronda: no se puede quitar."
    ]
    assert Entry.objects.filter(pk=entry.pk).exists()


def test_withdraw_and_remove_are_separate_forms(director_client, club):
    t, entry = club["t"], club["entries"][0]
    body = text(director_client.get(reverse("manage:tournament", args=[t.slug])))
    actions = re.search(
        rf'<span class="entry-actions">\s*<form method="post" action="{reverse("manage:entry_drop", args=[t.slug, entry.pk])}" class="inline entry-drop">.*?</form>\s*'
        rf'<form method="post" action="{reverse("manage:entry_remove", args=[t.slug, entry.pk])}" class="inline entry-remove" data-confirm="¿Quitar la inscripción de Ana Pérez & Benito Ríos\?">',
        body,
        re.S,
    )
    assert actions, body


# --- players -------------------------------------------------------------------------------------


def test_a_refused_player_comes_back_typed_with_the_error_beside_the_member_number(
    director_client, director, club
):
    services.update_player(
        acting_user=director,
        player=club["spare"],
        full_name="Tadeo Tovar",
        nickname="",
        member_number="S-12",
        email="",
        phone="",
        active=True,
    )
    response = director_client.post(
        reverse("manage:player_add"),
        {"full_name": "Julia Quiroga", "nickname": "Juli", "member_number": "S-12", "active": "on"},
    )
    assert response.status_code == 400
    body = text(response)
    assert input_value(body, "full_name") == "Julia Quiroga"
    assert input_value(body, "nickname") == "Juli"
    assert input_value(body, "member_number") == "S-12"
    assert field_errors(body, "id_member_number") == [
        "El número de socio S-12 ya es de otro jugador."
    ]
    assert "autofocus" in input_tag(body, "id_member_number")
    assert not Player.objects.filter(full_name="Julia Quiroga").exists()


def test_deleting_a_player_asks_first_then_says_what_it_did(director_client, club):
    spare = club["spare"]
    url = reverse("manage:player_delete", args=[spare.pk])
    asked = director_client.post(url)
    assert asked.status_code == 200
    body = text(asked)
    assert '<h1 id="confirm-h">¿Borrar a Tadeo Tovar?</h1>' in body
    assert '<a class="button secondary" href="/gestion/jugadores/">Cancelar</a>' in body
    assert Player.objects.filter(pk=spare.pk).exists()
    done = director_client.post(url, {"confirm": "1"})
    assert (done.status_code, done["Location"]) == (302, reverse("manage:players"))
    assert said(done) == ["«Tadeo Tovar» borrado."]
    assert not Player.objects.filter(pk=spare.pk).exists()


def test_the_players_delete_form_asks_with_javascript(director_client, club):
    body = text(director_client.get(reverse("manage:players")))
    url = reverse("manage:player_delete", args=[club["spare"].pk])
    assert (
        f'<form method="post" action="{url}" class="inline player-delete" '
        'data-confirm="¿Borrar a Tadeo Tovar de la lista de jugadores?">'
    ) in body


# --- tournament settings -------------------------------------------------------------------------


def test_the_new_tournament_form_shows_every_problem_in_one_pass(director_client):
    data = settings_data(
        Tournament(
            name="",
            date=dt.date(2026, 10, 3),
            mode="pairs",
            target=100,
            time_limit=None,
            status="registration",
        ),
        name="",
        forfeit_winner_tantos="50",
        rounds_planned="0",
        time_limit="601",
        end_date="2026-10-01",
    )
    response = director_client.post(reverse("manage:tournament_add"), data)
    assert response.status_code == 400
    body = text(response)
    assert field_errors(body, "id_name") == ["Este campo es obligatorio."]
    assert field_errors(body, "id_end_date") == [
        "El último día del torneo no puede ser anterior a su primer día (2026-10-03)."
    ]
    assert field_errors(body, "id_rounds_planned") == [
        "El número de rondas debe estar entre 1 y 99."
    ]
    assert field_errors(body, "id_time_limit") == [
        "El tiempo límite debe estar entre 1 y 600 minutos."
    ]
    assert field_errors(body, "id_forfeit_winner_tantos") == [
        "El resultado por no presentación 50-0 no es un resultado válido para la meta del torneo."
    ]
    assert input_value(body, "time_limit") == "601"
    assert input_value(body, "rounds_planned") == "0"
    assert input_value(body, "forfeit_winner_tantos") == "50"
    assert "autofocus" in input_tag(body, "id_name")
    assert body.count("autofocus") == 1
    assert not Tournament.objects.exists()


def test_settings_refused_by_the_stored_results_show_beside_their_field(director_client, club):
    t = club["t"]
    response = director_client.post(
        reverse("manage:tournament_edit", args=[t.slug]),
        settings_data(t, target="200", rounds_planned="0", directors=[]),
    )
    assert response.status_code == 400
    body = text(response)
    assert field_errors(body, "id_target") == [
        "El torneo ya tiene resultados: no se puede cambiar su meta."
    ]
    assert field_errors(body, "id_rounds_planned") == [
        "El número de rondas debe estar entre 1 y 99."
    ]
    t.refresh_from_db()
    assert (t.target, t.rounds_planned) == (100, 5)


def test_finishing_with_open_rounds_asks_first_and_lists_them(director_client, director, club):
    t = club["t"]
    services.record_result(
        acting_user=director, table=club["tables"][1], tantos_a=100, tantos_b=40, version=0
    )
    services.close_round(acting_user=director, round=club["round"])
    e = club["entries"]
    services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=2,
        tables=[([e[0]], [e[2]]), ([e[1]], [e[3]])],
        anyway=True,
    )
    services.set_pairings(
        acting_user=director, tournament=t, round_number=3, tables=[([e[0]], [e[3]])], anyway=True
    )
    services.record_result(
        acting_user=director,
        table=t.rounds.get(number=3).tables.get(),
        tantos_a=100,
        tantos_b=10,
        version=0,
    )
    url = reverse("manage:tournament_edit", args=[t.slug])
    data = settings_data(t, status="finished", directors=[str(director.pk)])

    asked = director_client.post(url, data)
    assert asked.status_code == 200
    body = text(asked)
    box = re.search(r'<div class="warning confirm-finish"[^>]*>(.*?)</div>', body, re.S).group(1)
    assert re.findall(r"<li>([^<]*)</li>", box) == [
        "La ronda 2 sigue abierta (faltan 2 mesas)",
        "La ronda 3 sigue abierta (todas sus mesas tienen resultado)",
    ]
    assert (
        '<button type="submit" name="open_rounds_ok" value="1" class="danger">Terminar igualmente</button>'
        in box
    )
    assert f'<a class="button secondary" href="/gestion/torneos/{t.slug}/">Volver</a>' in box
    assert selected(body, "id_status") == ["finished"]
    t.refresh_from_db()
    assert t.status == "running"

    done = director_client.post(url, {**data, "open_rounds_ok": "1"})
    assert (done.status_code, done["Location"]) == (
        302,
        reverse("manage:tournament", args=[t.slug]),
    )
    t.refresh_from_db()
    assert t.status == "finished"
    assert list(t.rounds.order_by("number").values_list("closed", flat=True)) == [
        True,
        False,
        False,
    ]


def test_the_service_refuses_to_finish_with_open_rounds_unless_told(director, club):
    t = club["t"]
    with pytest.raises(DomainError) as refused:
        services.update_tournament(acting_user=director, tournament=t, status="finished")
    assert refused.value.code == "open_rounds"
    assert refused.value.message == (
        "El torneo tiene rondas abiertas (1): ciérralas antes de darlo por terminado."
    )
    assert refused.value.params["open_rounds"] == [(1, 2, 1)]
    assert Tournament.objects.get(pk=t.pk).status == "running"
    services.update_tournament(
        acting_user=director, tournament=t, status="finished", open_rounds_ok=True
    )
    assert Tournament.objects.get(pk=t.pk).status == "finished"


def test_the_admin_refuses_to_finish_with_open_rounds_beside_the_status(admin_client, club):
    t = club["t"]
    page = admin_client.get(reverse("admin:tournaments_tournament_change", args=[t.pk]))
    form = page.context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None}
    data.update(
        {
            "date": t.date.isoformat(),
            "status": "finished",
            "directors": [u.pk for u in t.directors.all()],
            "rated": "on",
            "rounds-TOTAL_FORMS": "0",
            "rounds-INITIAL_FORMS": "0",
        }
    )
    data.pop("end_date", None)
    response = admin_client.post(reverse("admin:tournaments_tournament_change", args=[t.pk]), data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors["status"] == [
        "El torneo tiene rondas abiertas (1): ciérralas antes de darlo por terminado."
    ]
    assert Tournament.objects.get(pk=t.pk).status == "running"


# --- sorteos and pairings ------------------------------------------------------------------------


def test_a_refused_sorteo_comes_back_with_the_order_posted_and_the_error_in_its_group(
    director_client, director, club
):
    t, e = club["t"], club["entries"]
    services.remove_castigo(acting_user=director, castigo=club["castigo"])
    services.record_result(
        acting_user=director, table=club["tables"][1], tantos_a=100, tantos_b=20, version=0
    )  # both tables 100–20: the winners tie first, the losers third
    services.update_tournament(
        acting_user=director, tournament=t, status="finished", open_rounds_ok=True
    )  # the order is final: the sorteos are offered (SCORING.md §9)
    body = text(director_client.get(reverse("manage:tournament", args=[t.slug])))
    assert 'id="sorteo-1"' in body and 'id="sorteo-3"' in body
    response = director_client.post(
        reverse("manage:sorteo", args=[t.slug]),
        {"position": "1", "entry": [str(e[2].pk), str(e[2].pk)]},
    )
    assert response.status_code == 400
    body = text(response)
    group = re.search(r'<form[^>]*id="sorteo-1">(.*?)</form>', body, re.S).group(1)
    assert selected(group, "s-1-1") == [str(e[2].pk)]
    assert selected(group, "s-1-2") == [str(e[2].pk)]
    assert (
        '<p class="error" role="alert" id="sorteo-1-error">'
        "En el sorteo cada competidor debe aparecer una sola vez.</p>"
    ) in group
    assert "autofocus" in input_tag(group, "s-1-2")
    other = re.search(r'<form[^>]*id="sorteo-3">(.*?)</form>', body, re.S).group(1)
    assert 'class="error"' not in other
    assert not Sorteo.objects.exists()


def test_a_refused_pairing_shows_its_message_inside_the_table_it_is_about(director_client, club):
    t, e = club["t"], club["entries"]
    response = director_client.post(
        reverse("manage:pairings", args=[t.slug, 2]),
        {"t0_a1": e[0].pk, "t0_b1": e[2].pk, "t1_a1": e[1].pk},
    )
    assert response.status_code == 400
    body = text(response)
    fieldsets = re.findall(r'<fieldset class="pairing-row[^"]*">(.*?)</fieldset>', body, re.S)
    assert "La mesa 2 está incompleta: elige todos sus asientos." in fieldsets[1]
    assert 'class="error"' not in fieldsets[0]
    assert "autofocus" in input_tag(fieldsets[1], "t1_a1")
    assert selected(body, "t0_b1") == [str(e[2].pk)]
    assert not t.rounds.filter(number=2).exists()


# --- closed rounds -------------------------------------------------------------------------------


def test_a_closed_round_reads_as_read_only(director_client, director, club):
    t = club["t"]
    services.record_result(
        acting_user=director, table=club["tables"][1], tantos_a=100, tantos_b=0, version=0
    )
    services.close_round(acting_user=director, round=club["round"])
    body = text(director_client.get(reverse("manage:round", args=[t.slug, 1])))
    assert (
        '<p class="closed-banner" role="status"><strong>Ronda cerrada: solo lectura.</strong> '
        "Reábrela para corregir."
    ) in body
    row = body[body.index('<div class="result-row read-only saved" id="mesa-2">') :]
    row = row[: row.index("</dl>")]
    assert "<input" not in row and "<select" not in row and "<button" not in row
    assert re.findall(r"<dd>([^<]*)", row) == ["100", "0"]
    assert "Guardar mesa" not in body and "Borrar" not in body
    public = text(director_client.get(reverse("public:round", args=[t.slug, 1])))
    assert '<span class="badge">cerrada</span>' in public


# --- the answer to a form, visited again ---------------------------------------------------------


def test_the_language_switch_on_a_refused_form_goes_back_to_the_page_the_form_came_from(
    director_client, club
):
    t, (first, _second) = club["t"], club["tables"]
    round_page = reverse("manage:round", args=[t.slug, 1])
    response = director_client.post(
        reverse("manage:result_save", args=[t.slug, first.pk]),
        {"tantos_a": "abc", "tantos_b": "61", "version": "1", "action": "save"},
        HTTP_REFERER=f"http://testserver{round_page}?vista=1",
    )
    assert response.status_code == 400
    body = text(response)
    assert '<form method="get" action="/idioma/" class="lang-switch" data-fixed-next>' in body
    assert input_value(body, "next") == f"{round_page}?vista=1"
    switched = director_client.get("/idioma/", {"language": "en", "next": f"{round_page}?vista=1"})
    assert (switched.status_code, switched["Location"]) == (302, f"{round_page}?vista=1")


def test_the_language_switch_on_a_refused_form_without_referer_goes_to_the_page_above(
    director_client, club
):
    t = club["t"]
    response = director_client.post(
        reverse("manage:castigo_add", args=[t.slug, 1]),
        {"player": str(club["players"][1].pk), "tantos": "-3", "reason": "x"},
        HTTP_REFERER="https://elsewhere.example/trap/",
    )
    assert response.status_code == 400
    assert input_value(text(response), "next") == reverse("manage:round", args=[t.slug, 1])


@pytest.mark.parametrize(
    "name, args, above",
    [
        ("manage:result_save", lambda c: [c["t"].slug, c["tables"][0].pk], "manage:tournament"),
        ("manage:castigo_add", lambda c: [c["t"].slug, 1], "manage:round"),
        ("manage:round_close", lambda c: [c["t"].slug, 1], "manage:round"),
        (
            "manage:castigo_remove",
            lambda c: [c["t"].slug, 1, c["castigo"].pk],
            "manage:round",
        ),
        ("manage:player_delete", lambda c: [c["spare"].pk], "manage:player_edit"),
        ("manage:sorteo", lambda c: [c["t"].slug], "manage:tournament"),
    ],
)
def test_a_plain_visit_to_a_form_only_address_goes_to_the_page_above(
    director_client, club, name, args, above
):
    url = reverse(name, args=args(club))
    response = director_client.get(url)
    assert response.status_code == 303
    followed = director_client.get(url, follow=True)
    assert followed.status_code == 200
    assert all(status == 303 for _hop, status in followed.redirect_chain)
    target = followed.redirect_chain[-1][0]
    expected = {
        "manage:tournament": reverse("manage:tournament", args=[club["t"].slug]),
        "manage:round": reverse("manage:round", args=[club["t"].slug, 1]),
        "manage:player_edit": reverse("manage:player_edit", args=[club["spare"].pk]),
    }[above]
    assert target == expected
    assert Castigo.objects.filter(pk=club["castigo"].pk).exists()  # nothing written on the way
    assert Player.objects.filter(pk=club["spare"].pk).exists()
