"""The site's words (issue "words", point 4): find-my-table tells the result from the player's
side, a table of two against two reads "Ana & Beto vs Carla & Dani" wherever its sides are
text, a table, result or castigo names its tournament and round, a refused director learns who
can let them in, logging out says so, typed input is quoted with «», and dates in running text
have their month in lower case."""

import datetime as dt
import html

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import translation

from tests import builders
from tournaments import services
from tournaments.errors import DomainError
from tournaments.models import Castigo, MatchResult, Result, Round, Seat, Table, TableResult
from tournaments.systems.base import versus
from tournaments.views.manage.pairings import _scores_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def rotating(director):
    """An individual dominó of two against two: Ana & Beto (side A) lost 30–100 to Carla &
    Dani (side B) at table 1 of round 1; a castigo of Ana in that round."""
    t = services.create_tournament(
        acting_user=director,
        name="Copa Otoño",
        date=dt.date(2026, 12, 5),
        mode="individual",
        status="registration",
    )
    e = [
        builders.new_entry(t, [name], acting_user=director)
        for name in ["Ana Ruiz", "Beto Sanz", "Carla Vela", "Dani Yuste"]
    ]
    services.update_tournament(acting_user=director, tournament=t, status="running")
    rnd = services.set_pairings(
        acting_user=director, tournament=t, round_number=1, tables=[([e[0], e[1]], [e[2], e[3]])]
    )
    table = rnd.tables.get()
    services.record_result(acting_user=director, table=table, version=0, tantos_a=30, tantos_b=100)
    services.add_castigo(
        acting_user=director,
        tournament=t,
        player=e[0].player1,
        tantos=20,
        reason="Hablar durante la partida",
        round=rnd,
    )
    return t, e, table


def _find(client, t, q) -> str:
    response = client.get(reverse("public:find_table", args=[t.slug]), {"q": q})
    assert response.status_code == 200
    return html.unescape(response.content.decode())


# --- find my table, from the player's side -----------------------------------------------------


def test_find_my_table_tells_a_side_b_winner_they_won(client, rotating):
    t, _, _ = rotating
    assert "<dt>Resultado</dt><dd>Ganaste 100–30</dd>" in _find(client, t, "Carla")
    assert "<dt>Resultado</dt><dd>Perdiste 30–100</dd>" in _find(client, t, "Ana")


def test_find_my_table_names_the_seat_the_partner_and_the_other_pair(client, rotating):
    t, _, _ = rotating
    found = _find(client, t, "Dani")
    assert "<dt>Lado</dt><dd>B · asiento 4</dd>" in found
    assert "<dt>Con</dt><dd>Carla Vela</dd>" in found
    assert "<dt>Contra</dt><dd>Ana Ruiz & Beto Sanz</dd>" in found


def test_find_my_table_says_pending_before_the_result(client, director):
    t = services.create_tournament(
        acting_user=director, name="Liga", date=dt.date(2026, 12, 6), mode="single"
    )
    e = [
        builders.new_entry(t, [name], acting_user=director) for name in ["Eva Ortiz", "Fede Pinto"]
    ]
    services.update_tournament(acting_user=director, tournament=t, status="running")
    services.set_pairings(
        acting_user=director, tournament=t, round_number=1, tables=[([e[0]], [e[1]])]
    )
    found = _find(client, t, "Fede")
    assert "<dt>Lado</dt><dd>B</dd>" in found
    assert "<dt>Resultado</dt><dd>pendiente</dd>" in found


def test_find_my_table_tells_a_drawn_match_and_a_table_games_place(client, director):
    swiss = services.create_tournament(
        acting_user=director, name="Suizo", date=dt.date(2026, 12, 6), system="swiss"
    )
    s = [
        builders.new_entry(swiss, [name], acting_user=director)
        for name in ["Gala Ríos", "Hugo Sáez"]
    ]
    services.update_tournament(acting_user=director, tournament=swiss, status="running")
    rnd = services.set_pairings(
        acting_user=director, tournament=swiss, round_number=1, tables=[([s[0]], [s[1]])]
    )
    services.record_result(
        acting_user=director, table=rnd.tables.get(), version=0, games_a=1, games_b=1, games_drawn=1
    )
    assert "<dd>Empate 1–1 · 1 partida empatada</dd>" in _find(client, swiss, "Hugo")
    game = services.create_tournament(
        acting_user=director, name="Mesa", date=dt.date(2026, 12, 6), system="table"
    )
    g = [
        builders.new_entry(game, [name], acting_user=director)
        for name in ["Inés Lago", "Juan Mora", "Kira Nieto"]
    ]
    services.update_tournament(acting_user=director, tournament=game, status="running")
    rnd = services.set_seating(acting_user=director, tournament=game, round_number=1, tables=[g])
    services.record_result(
        acting_user=director,
        table=rnd.tables.get(),
        version=0,
        scores={g[0].pk: 30, g[1].pk: 45, g[2].pk: 30},
    )
    found = _find(client, game, "Kira")
    assert "<dt>Asiento</dt><dd>3</dd>" in found
    assert "<dd>Puesto 2 compartido en la mesa · 30 VP · 2 puntos</dd>" in found
    assert "<dd>Puesto 1 en la mesa · 45 VP · 5 puntos</dd>" in _find(client, game, "Juan")


# --- two against two: "Ana & Beto vs Carla & Dani" -------------------------------------------


def test_versus_joins_a_sides_names_with_an_ampersand():
    with translation.override("es"):
        assert versus(["Ana", "Beto"], ["Carla", "Dani"]) == "Ana & Beto vs Carla & Dani"
        assert versus(["Ana"], ["Carla"]) == "Ana vs Carla"


def test_a_proposals_scores_read_side_against_side():
    scores = {"a1": 2, "b1": 4, "a2": 2, "b2": 3}  # seats 1 & 3 against 2 & 4
    assert _scores_text(scores, has_sides=True) == "2 & 2 vs 4 & 3"
    assert _scores_text({"a1": 5, "b1": 4}, has_sides=True) == "5 vs 4"
    assert _scores_text({"s1": 5, "s2": 4, "s3": 3}, has_sides=False) == "5 vs 4 vs 3"
    assert _scores_text({}, has_sides=True) == ""


def test_the_public_card_and_the_admin_list_show_each_pair_joined(client, admin_client, rotating):
    t, _, _ = rotating
    page = html.unescape(client.get(reverse("public:round", args=[t.slug, 1])).content.decode())
    assert (
        '<span class="side side-a"><span class="who">Ana Ruiz & </span>'
        '<span class="who">Beto Sanz</span></span>'
    ) in page
    tables = admin_client.get(reverse("admin:tournaments_table_changelist")).content.decode()
    assert (
        '<td class="field-sides">Ana Ruiz &amp; Beto Sanz vs Carla Vela &amp; Dani Yuste</td>'
        in tables
    )


# --- titles: tournament, round, table -----------------------------------------------------------


def test_tables_results_seats_and_castigos_name_their_tournament_and_round(rotating):
    _, _, table = rotating
    with translation.override("es"):
        assert str(Table.objects.get(pk=table.pk)) == "Copa Otoño · ronda 1 · mesa 1"
        assert str(Result.objects.get()) == (
            "Copa Otoño · ronda 1 · mesa 1: Ana Ruiz & Beto Sanz 30–100 Carla Vela & Dani Yuste"
        )
        assert str(Seat.objects.get(table=table, side="B", position=2)) == (
            "Copa Otoño · ronda 1 · mesa 1 · B2: Dani Yuste"
        )
        assert str(Castigo.objects.get()) == (
            "Copa Otoño · ronda 1 · Ana Ruiz: −20 (Hablar durante la partida)"
        )
        assert str(Round.objects.get(tournament__name="Copa Otoño")) == "Copa Otoño · ronda 1"


def test_match_and_table_results_name_their_table_too(director):
    swiss = services.create_tournament(
        acting_user=director, name="Suizo", date=dt.date(2026, 12, 6), system="swiss"
    )
    s = [
        builders.new_entry(swiss, [name], acting_user=director)
        for name in ["Gala Ríos", "Hugo Sáez"]
    ]
    rnd = services.set_pairings(
        acting_user=director, tournament=swiss, round_number=1, tables=[([s[0]], [s[1]])]
    )
    services.record_result(
        acting_user=director, table=rnd.tables.get(), version=0, games_a=2, games_b=0, games_drawn=1
    )
    game = services.create_tournament(
        acting_user=director, name="Mesa", date=dt.date(2026, 12, 6), system="table"
    )
    g = [
        builders.new_entry(game, [name], acting_user=director)
        for name in ["Inés Lago", "Juan Mora", "Kira Nieto"]
    ]
    grnd = services.set_seating(acting_user=director, tournament=game, round_number=1, tables=[g])
    services.record_result(
        acting_user=director,
        table=grnd.tables.get(),
        version=0,
        scores={g[0].pk: 30, g[1].pk: 45, g[2].pk: 20},
        ended_by_time=True,
    )
    with translation.override("es"):
        assert str(MatchResult.objects.get()) == (
            "Suizo · ronda 1 · mesa 1: Gala Ríos 2–0 Hugo Sáez (1 emp.)"
        )
        assert str(TableResult.objects.get()) == (
            "Mesa · ronda 1 · mesa 1: Inés Lago 30 · Juan Mora 45 · Kira Nieto 20 (tiempo)"
        )


def test_the_admin_titles_a_result_with_its_tournament_round_and_sides(admin_client, rotating):
    page = admin_client.get(
        reverse("admin:tournaments_result_change", args=[Result.objects.get().pk])
    ).content.decode()
    assert (
        "<title>Copa Otoño · ronda 1 · mesa 1: Ana Ruiz &amp; Beto Sanz 30–100 Carla Vela &amp; "
        "Dani Yuste | Modificar resultado | Club de dominó</title>"
    ) in page


# --- who may, and leaving -----------------------------------------------------------------------


def test_a_refused_director_is_told_who_can_let_them_in(client, director, rotating):
    t, _, _ = rotating
    other = User.objects.create_user("otra", password="x", is_staff=True)
    client.force_login(other)
    response = client.get(reverse("manage:tournament", args=[t.slug]))
    assert response.status_code == 403
    page = html.unescape(response.content.decode())
    assert (
        "Entraste como «otra», y ese usuario no puede abrir esta página. Cada torneo lo "
        "gestionan sus directores; los administradores del club gestionan todo."
    ) in page
    assert (
        "Si tienes que gestionar este torneo, pide a uno de sus directores que te añada; para lo "
        "demás, pide acceso a un administrador del club."
    ) in page
    assert "entra con tu usuario" not in page


def test_an_anonymous_visitor_refused_is_asked_to_log_in(rf):
    from django.contrib.auth.models import AnonymousUser
    from django.core.exceptions import PermissionDenied
    from django.views.defaults import permission_denied

    request = rf.get("/gestion/")
    request.user = AnonymousUser()
    response = permission_denied(request, PermissionDenied())
    page = response.content.decode()
    assert response.status_code == 403
    assert (
        "Esta parte del sitio es para los directores del torneo. Si lo eres, entra con tu usuario."
    ) in page
    assert "Entraste como" not in page


def test_logging_out_says_so_on_the_page_it_lands_on(director_client):
    response = director_client.post(reverse("logout"), follow=True)
    assert response.redirect_chain == [(reverse("public:home"), 302)]
    assert [str(m) for m in response.context["messages"]] == ["Has salido."]


# --- quotes, dates ------------------------------------------------------------------------------


def test_typed_input_is_quoted_with_angle_quotes(rotating):
    _, _, table = rotating
    with pytest.raises(DomainError) as refused:
        services.record_result(
            acting_user=None, table=table, version=None, tantos_a="abc", tantos_b="100"
        )
    assert refused.value.message == (
        "Los tantos deben ser un número entero de 0 o más; se recibió «abc»."
    )


def test_a_castigos_date_has_its_month_in_lower_case(director_client, rotating):
    t, _, _ = rotating
    Castigo.objects.update(created_at=dt.datetime(2026, 12, 5, 18, 0, tzinfo=dt.UTC))
    page = html.unescape(
        director_client.get(reverse("manage:round", args=[t.slug, 1])).content.decode()
    )
    assert "editado por directora a las " in page and " · 5 de diciembre</span>" in page
    assert "Dic" not in page


def test_djangos_own_messages_on_the_sites_forms_say_tu(director_client, client):
    """Django's validation messages come from its Spanish catalogue, which says "usted": the
    site's overrides (clubsite/locale_django) say "tú" and "archivo"."""
    refused = director_client.post(
        reverse("manage:player_add"), {"full_name": "x" * 200, "email": "no-es-correo"}
    )
    body = html.unescape(refused.content.decode())
    assert "Introduce una dirección de correo electrónico válida." in body
    assert "Asegúrate de que este valor tenga como máximo 120 caracteres (tiene 200)." in body
    assert "Introduzca" not in body and "Asegúrese" not in body
    calculator = client.get(reverse("rankings:calculator"), {"tantos_a": "-5", "tantos_b": "3"})
    text = html.unescape(calculator.content.decode())
    assert "Asegúrate de que este valor sea mayor o igual que 0." in text
    with translation.override("es"):
        from django.forms import FileField

        assert str(FileField.default_error_messages["empty"]) == "El archivo enviado está vacío."
