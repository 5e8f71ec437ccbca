"""Every scoring system on every page: what one system shows, offers and says never leaks into
another's (the registry, tournaments.systems). One test per drift, for each system."""

from __future__ import annotations

import datetime as dt
import html

import pytest
from django.urls import reverse

from tests import builders
from tournaments import services
from tournaments.errors import DomainError
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 21)


@pytest.fixture
def swiss(director):
    """A Swiss best of 3, round 1: Jugador 1 beat Jugador 2 by 2–1 with a drawn game."""
    t = builders.tournament(
        acting_user=director,
        name="Copa swiss",
        date=DAY,
        system="swiss",
        status="running",
        best_of=3,
    )
    e = [builders.new_entry(t, [f"swiss Jugador {i}"], acting_user=director) for i in range(1, 3)]
    services.set_pairings(
        acting_user=director, tournament=t, round_number=1, tables=[([e[0]], [e[1]])]
    )
    table = t.rounds.get().tables.get()
    services.record_result(
        acting_user=director, table=table, version=0, games_a=1, games_b=2, games_drawn=0
    )
    return t, e, table


@pytest.fixture
def table_game(director):
    """A 3-player table game, round 1: VP 45, 30, 30 (first alone 5 points, shared 2nd 2 each)."""
    t = builders.tournament(
        acting_user=director, name="Copa table", date=DAY, system="table", status="running"
    )
    e = [builders.new_entry(t, [f"table Jugador {i}"], acting_user=director) for i in range(1, 4)]
    services.set_seating(acting_user=director, tournament=t, round_number=1, tables=[e])
    table = t.rounds.get().tables.get()
    services.record_result(
        acting_user=director, table=table, version=0, scores={e[0].pk: 45, e[1].pk: 30, e[2].pk: 30}
    )
    return t, e, table


@pytest.fixture
def domino(director):
    t = builders.tournament(
        acting_user=director,
        name="Copa domino",
        date=DAY,
        system="domino",
        status="running",
        mode="single",
        target=100,
    )
    e = [builders.new_entry(t, [f"domino Jugador {i}"], acting_user=director) for i in range(1, 3)]
    services.set_pairings(
        acting_user=director, tournament=t, round_number=1, tables=[([e[0]], [e[1]])]
    )
    table = t.rounds.get().tables.get()
    services.record_result(acting_user=director, table=table, version=0, tantos_a=100, tantos_b=30)
    return t, e, table


def _text(response) -> str:
    assert response.status_code == 200
    return html.unescape(response.content.decode())


# --- results on the public pages ---------------------------------------------------------------


def test_a_swiss_match_shows_games_won_lost_drawn_on_every_public_page(swiss, client):
    t, _, _ = swiss
    for name in ("public:round", "public:tournament"):
        args = [t.slug, 1] if name == "public:round" else [t.slug]
        page = _text(client.get(reverse(name, args=args)))
        assert '<span class="score">1 – 2</span>' in page
        assert '<span class="score">vs</span>' not in page
    found = _text(client.get(reverse("public:find_table", args=[t.slug]), {"q": "Jugador 2"}))
    assert "<dd>Ganaste 2–1</dd>" in found  # its own games first: won–lost
    found = _text(client.get(reverse("public:find_table", args=[t.slug]), {"q": "Jugador 1"}))
    assert "<dd>Perdiste 1–2</dd>" in found


def test_a_table_game_shows_each_seats_vp_and_points_on_every_public_page(table_game, client):
    t, _, _ = table_game
    for name, args in (("public:round", [t.slug, 1]), ("public:tournament", [t.slug])):
        page = _text(client.get(reverse(name, args=args)))
        assert (
            'table Jugador 1</span> <span class="score">45 VP</span> <span class="points">· 5 puntos'
            in page
        )
        assert (
            'table Jugador 2</span> <span class="score">30 VP</span> <span class="points">· 2 puntos'
            in page
        )
        assert ">vs<" not in page
    found = _text(client.get(reverse("public:find_table", args=[t.slug]), {"q": "Jugador 3"}))
    assert "<dd>Puesto 2 compartido en la mesa · 30 VP · 2 puntos</dd>" in found
    found = _text(client.get(reverse("public:find_table", args=[t.slug]), {"q": "Jugador 1"}))
    assert "<dd>Puesto 1 en la mesa · 45 VP · 5 puntos</dd>" in found


def test_a_domino_score_reads_from_the_players_own_side(domino, client):
    t, _, _ = domino
    page = _text(client.get(reverse("public:round", args=[t.slug, 1])))
    assert '<span class="score">100 – 30</span>' in page
    found = _text(client.get(reverse("public:find_table", args=[t.slug]), {"q": "Jugador 2"}))
    assert "<dd>Perdiste 30–100</dd>" in found


# --- the rules box lists only the system's settings -------------------------------------------


def _rules(page: str) -> str:
    return page[page.index('<details class="settings">') : page.index("</details>")]


def test_rules_box_of_each_system_lists_only_its_settings(swiss, table_game, domino, client):
    swiss_rules = _rules(_text(client.get(reverse("public:tournament", args=[swiss[0].slug]))))
    assert "al mejor de 3 partidas" in swiss_rules
    assert "encuentro ganado 2–0 (3 puntos de encuentro)" in swiss_rules
    assert "<dt>Ranking</dt><dd>no cuenta</dd>" in swiss_rules
    for absent in ("Meta", "No presentación", "tantos", "Descanso sin puntos"):
        assert absent not in swiss_rules
    table_rules = _rules(_text(client.get(reverse("public:tournament", args=[table_game[0].slug]))))
    assert "de 3 o 4 jugadores; puntos 5/4/3/2/1 por puesto" in table_rules
    assert "<dt>Descanso</dt><dd>3 puntos, sin VP</dd>" in table_rules
    for absent in ("Meta", "No presentación", "tantos", "Modalidad", "Mano a mano"):
        assert absent not in table_rules
    domino_rules = _rules(_text(client.get(reverse("public:tournament", args=[domino[0].slug]))))
    assert "<dt>Meta</dt><dd>100 tantos</dd>" in domino_rules
    assert "<dt>No presentación</dt><dd>100–0</dd>" in domino_rules
    assert "<dt>Ranking</dt><dd>cuenta</dd>" in domino_rules


# --- the director's buttons appear only where they apply -------------------------------------


def test_castigos_only_where_the_system_has_them(swiss, table_game, domino, director_client):
    for t, expected in ((swiss[0], False), (table_game[0], False), (domino[0], True)):
        page = _text(director_client.get(reverse("manage:round", args=[t.slug, 1])))
        assert ("Registrar castigo" in page) is expected, t.system
    t, e, _ = swiss
    with pytest.raises(DomainError) as refused:
        services.add_castigo(
            acting_user=None, tournament=t, player=e[0].player1, tantos=5, reason="ruido"
        )
    assert refused.value.code == "castigos_not_applicable"
    assert refused.value.message == (
        "Los castigos son en tantos de dominó: el sistema «Suizo (match play)» no los tiene."
    )


def test_table_games_offer_seating_and_explain_why_not_round_robin(table_game, director_client):
    t, _, _ = table_game
    page = _text(director_client.get(reverse("manage:tournament", args=[t.slug])))
    assert "Proponer mesas de la ronda 2" in page
    assert "(suizo)" not in page and "todos con todos" not in page
    r = director_client.post(reverse("manage:round_robin", args=[t.slug]), follow=True)
    assert (
        "El todos con todos no se usa en «Mesa de 3–4 jugadores»: ahí las mesas "
        "se proponen por la clasificación (Proponer mesas)."
    ) in _text(r)
    with pytest.raises(DomainError) as refused:
        t.propose_pairings(2, seed=1)
    assert refused.value.code == "swiss_proposal_mode"
    pairings = _text(director_client.get(reverse("manage:pairings", args=[t.slug, 2])))
    assert "Proponer mesas" in pairings and "emparejamiento suizo" not in pairings


def test_swiss_offers_swiss_pairing_and_round_robin(swiss, director_client):
    t, _, _ = swiss
    page = _text(director_client.get(reverse("manage:tournament", args=[t.slug])))
    assert "Proponer ronda 2 (suizo)" in page and "Generar todos con todos" in page
    assert "Proponer mesas" not in page


# --- the new-tournament form shows the chosen system's fields ---------------------------------


def _field_names(page: str) -> set[str]:
    import re

    fields = page[page.index('id="tournament-fields"') : page.index('name="refresh_system"')]
    return set(re.findall(r'name="([a-z_]+)"', fields))


COMMON = {"name", "date", "end_date", "venue", "start_time", "system", "rounds_planned", "status"}


@pytest.mark.parametrize(
    "system, fields",
    [
        (
            "domino",
            COMMON
            | {
                "mode",
                "target",
                "time_limit",
                "bye_rule",
                "forfeit_winner_tantos",
                "forfeit_loser_tantos",
                "rated",
                "forfeits_rated",
            },
        ),
        ("swiss", COMMON | {"mode", "best_of"}),
        ("table", COMMON | {"mode", "time_limit"}),  # mode hidden: it has one
    ],
)
def test_new_tournament_form_shows_the_fields_of_the_chosen_system(director_client, system, fields):
    url = reverse("manage:tournament_add")
    page = _text(director_client.get(url, {"system": system}, HTTP_HX_REQUEST="true"))
    assert _field_names(page) == fields
    if system == "table":
        assert '<input type="hidden" name="mode" value="single"' in page


def test_without_javascript_the_form_switches_system_without_saving(director_client):
    url = reverse("manage:tournament_add")
    r = director_client.post(
        url, {"name": "Copa", "date": "2026-12-01", "system": "swiss", "refresh_system": "1"}
    )
    page = _text(r)
    assert 'name="best_of"' in page and 'name="target"' not in page
    assert 'value="Copa"' in page  # what was typed stays
    assert not Tournament.objects.exists()


def test_a_table_game_with_no_mode_given_takes_its_only_mode(director_client):
    r = director_client.post(
        reverse("manage:tournament_add"),
        {
            "name": "Mesa sin modo",
            "date": "2026-12-01",
            "system": "table",
            "rounds_planned": "3",
            "status": "registration",
        },
    )
    assert r.status_code == 302, r.content.decode()[:800]
    t = Tournament.objects.get(name="Mesa sin modo")
    assert t.mode == "single"
    assert (
        services.create_tournament(
            acting_user=None, name="Mesa 2", date=dt.date(2026, 12, 2), system="table"
        ).mode
        == "single"
    )


def test_a_mode_the_system_does_not_have_is_refused_in_words():
    with pytest.raises(DomainError) as refused:
        services.create_tournament(
            acting_user=None, name="Mesa", date=dt.date(2026, 12, 2), system="table", mode="pairs"
        )
    assert refused.value.code == "mode_not_for_system"
    assert refused.value.message == (
        "El sistema «Mesa de 3–4 jugadores» no admite esa modalidad; elige una de estas: "
        "Mano a mano."
    )


# --- every message names the right quantity and fills every placeholder -----------------------


def _refusal(table, **values) -> str:
    with pytest.raises(DomainError) as refused:
        services.record_result(acting_user=None, table=table, version=None, **values)
    return refused.value.message


def test_swiss_messages_speak_of_games(swiss):
    _, _, table = swiss
    assert _refusal(table, games_a="x", games_b="1") == (
        "Las partidas deben ser un número entero de 0 o más; se recibió «x»."
    )
    assert _refusal(table, games_a="", games_b="1") == "Faltan las partidas ganadas por A."
    assert _refusal(table, games_a="100000", games_b="0") == (
        "100000 es demasiado grande para una plantilla (máximo 99999); revisa lo que escribiste."
    )
    assert _refusal(table, tantos_a="100", tantos_b="3") == (
        "Ese tipo de resultado no corresponde al sistema de este torneo."
    )


def test_table_game_messages_name_the_seat_and_speak_of_vp(table_game):
    _, e, table = table_game
    assert _refusal(table, scores={e[0].pk: "", e[1].pk: "1", e[2].pk: "2"}) == (
        "Falta el resultado (puntos de victoria) del asiento 1 de la mesa."
    )
    assert _refusal(table, scores={e[0].pk: "1", e[1].pk: "1"}) == (
        "Falta el resultado (puntos de victoria) del asiento 3 de la mesa."
    )
    assert _refusal(table, scores={e[0].pk: "x", e[1].pk: "1", e[2].pk: "2"}) == (
        "Los puntos de victoria deben ser un número entero de 0 o más; se recibió «x»."
    )
    assert _refusal(table, scores={e[0].pk: "100000", e[1].pk: "1", e[2].pk: "2"}) == (
        "100000 es demasiado grande para una plantilla (máximo 99999); revisa lo que escribiste."
    )


def test_round_page_boxes_are_labelled_by_the_systems_quantity(swiss, table_game, director_client):
    page = _text(director_client.get(reverse("manage:round", args=[swiss[0].slug, 1])))
    assert "Partidas ganadas por A" in page and "Tantos" not in page
    page = _text(director_client.get(reverse("manage:round", args=[table_game[0].slug, 1])))
    assert '<span class="field-label">VP · <strong>5 puntos</strong></span>' in page
    assert "Tantos" not in page


# --- rules that belong to one system ------------------------------------------------------------


def test_table_games_rest_nobody_but_the_fifth_of_five(director):
    """SCORING.md §4, Seating: tables of 3 or 4 seat everyone; only 5 players leave a bye."""
    t = builders.tournament(
        acting_user=director, name="Copa table", date=DAY, system="table", status="running"
    )
    e = [builders.new_entry(t, [f"table Jugador {i}"], acting_user=director) for i in range(1, 8)]
    with pytest.raises(DomainError) as refused:
        services.set_seating(acting_user=director, tournament=t, round_number=1, tables=[e[:4]])
    assert refused.value.code == "table_byes"
    assert not t.rounds.exists()
    rnd = services.set_seating(
        acting_user=director, tournament=t, round_number=1, tables=[e[:4], e[4:]]
    )
    assert rnd.byes.count() == 0
    five = builders.tournament(
        acting_user=director, name="Copa table", date=DAY, system="table", status="running"
    )
    f = [
        builders.new_entry(five, [f"table Jugador {i}"], acting_user=director) for i in range(1, 6)
    ]
    rnd = services.set_seating(
        acting_user=director, tournament=five, round_number=1, tables=[f[:4]]
    )
    assert [b.entry_id for b in rnd.byes.all()] == [f[4].pk]


def test_a_swiss_best_of_cannot_change_once_a_match_is_recorded(swiss):
    t, _, _ = swiss
    with pytest.raises(DomainError) as refused:
        services.update_tournament(acting_user=None, tournament=t, best_of=1)
    assert refused.value.code == "best_of_locked"
    t.refresh_from_db()
    assert t.best_of == 3


def test_lists_and_cards_describe_each_system_in_its_own_words(swiss, table_game, domino, client):
    listing = _text(client.get(reverse("public:tournaments")))
    assert "Suizo (match play) · al mejor de 3 partidas" in listing
    assert "Mesa de 3–4 jugadores</td>" in listing
    assert "Mano a mano a 100" in listing  # the dominó one
    assert listing.count("Mano a mano") == 2  # its column, and its line's detail for phones
    home = _text(client.get(reverse("public:home")))
    assert "Suizo (match play) · al mejor de 3 partidas" in home
    assert home.count("a 100") == 1


def test_the_score_sheets_follow_the_system(swiss, table_game, domino, client):
    sheet = _text(client.get(reverse("public:round_print", args=[swiss[0].slug, 1])))
    assert "<th>Partida</th>" in sheet and "Total" not in sheet
    assert "Terminó por tiempo" not in sheet and "No presentación" not in sheet
    assert sheet.count("<tr><td>3</td><td></td><td></td></tr>") == 1  # best of 3: games 1–3
    sheet = _text(client.get(reverse("public:round_print", args=[domino[0].slug, 1])))
    assert "<th>Mano</th>" in sheet and "Total" in sheet and "No presentación de:" in sheet
    sheet = _text(client.get(reverse("public:round_print", args=[table_game[0].slug, 1])))
    assert "<th>VP</th>" in sheet and "Terminó por tiempo" in sheet
