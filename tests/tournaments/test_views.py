"""The directors' pages under /gestion/ and the public pages: access, messages in words, values
kept on refusal, HTMX partials (DESIGN.md "How a result travels", "Errors")."""

import datetime as dt
import html
import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from tests import builders
from tournaments import services
from tournaments.models import Castigo, Player, Result, Round, Table

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
#: A pairs dominó to 100 with a 30-minute limit on 19 September 2026.
BARRIO = {"date": dt.date(2026, 9, 19), "mode": "pairs", "target": 100, "time_limit": 30}


@pytest.fixture
def running(director):
    """A pairs tournament with 4 entries, round 1 set (two tables), one castigo."""
    t, e = builders.field(
        BARRIO,
        acting_user=director,
        name="Copa del Barrio",
        names=[f"Copa del Barrio {chr(65 + i)}. Solís" for i in range(8)],
    )
    rnd = services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=1,
        tables=[([e[0]], [e[1]]), ([e[2]], [e[3]])],
    )
    tables = list(rnd.tables.order_by("number"))
    castigo = services.add_castigo(
        acting_user=director,
        tournament=t,
        player=e[0].player1,
        tantos=5,
        reason="Llegó tarde",
        round=rnd,
    )
    spare = services.create_player(acting_user=director, full_name="Tadeo Tovar")
    return {
        "t": t,
        "entries": e,
        "round": rnd,
        "tables": tables,
        "castigo": castigo,
        "player": spare,
    }


def manage_urls(data):
    """(method, url) of every page under /gestion/."""
    t, e, table, castigo, player = (
        data["t"],
        data["entries"],
        data["tables"][0],
        data["castigo"],
        data["player"],
    )
    s = t.slug
    return [
        ("get", reverse("manage:home")),
        ("get", reverse("manage:players")),
        ("get", reverse("manage:player_add")),
        ("get", reverse("manage:player_edit", args=[player.pk])),
        ("post", reverse("manage:player_set_active", args=[player.pk])),
        ("post", reverse("manage:player_delete", args=[player.pk])),
        ("get", reverse("manage:tournament_add")),
        ("get", reverse("manage:tournament", args=[s])),
        ("get", reverse("manage:tournament_edit", args=[s])),
        ("post", reverse("manage:entry_add", args=[s])),
        ("post", reverse("manage:entry_remove", args=[s, e[0].pk])),
        ("post", reverse("manage:round_robin", args=[s])),
        ("post", reverse("manage:import", args=[s])),
        ("post", reverse("manage:sorteo", args=[s])),
        ("get", reverse("manage:round", args=[s, 1])),
        ("get", reverse("manage:pairings", args=[s, 1])),
        ("post", reverse("manage:round_close", args=[s, 1])),
        ("post", reverse("manage:castigo_add", args=[s, 1])),
        ("post", reverse("manage:castigo_remove", args=[s, 1, castigo.pk])),
        ("post", reverse("manage:result_save", args=[s, table.pk])),
    ]


def public_urls(t):
    urls = [
        reverse("public:home"),
        reverse("public:tournaments"),
        reverse("public:tournament", args=[t.slug]),
        reverse("public:standings", args=[t.slug]),
        reverse("public:round", args=[t.slug, 1]),
    ]
    try:
        import tournaments.exports  # noqa: F401
    except ImportError:
        pass
    else:
        urls.append(reverse("public:standings_csv", args=[t.slug]))
    return urls


def test_anonymous_user_is_sent_to_login_from_every_manage_page(client, running):
    urls = manage_urls(running)
    assert len(urls) == 20
    login = reverse("login")
    for method, url in urls:
        response = getattr(client, method)(url)
        assert response.status_code == 302, (method, url, response.status_code)
        assert response["Location"].startswith(f"{login}?next="), (url, response["Location"])
    assert Castigo.objects.count() == 1
    assert Player.objects.filter(pk=running["player"].pk, active=True).exists()


def test_anonymous_user_reads_every_public_page(client, running):
    for url in public_urls(running["t"]):
        response = client.get(url)
        assert response.status_code == 200, url


def test_logged_in_user_who_is_not_a_director_gets_403_on_every_manage_page(client, running):
    User.objects.create_user("mirona", password="clave-de-prueba-2")
    client.login(username="mirona", password="clave-de-prueba-2")
    for method, url in manage_urls(running):
        response = getattr(client, method)(url)
        assert response.status_code == 403, (method, url, response.status_code)
    assert Castigo.objects.count() == 1
    assert Player.objects.filter(pk=running["player"].pk, active=True).exists()
    for url in public_urls(running["t"]):
        assert client.get(url).status_code == 200, url


def test_player_add_warns_about_a_duplicate_and_stores_only_on_the_confirming_post(
    director_client, director
):
    first = services.create_player(acting_user=director, full_name="Aurelio Baeza")
    url = reverse("manage:player_add")
    response = director_client.post(url, {"full_name": "aurelio baeza", "active": "on"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "¿Duplicado?" in body
    assert reverse("manage:player_edit", args=[first.pk]) in body and "Aurelio Baeza" in body
    assert Player.objects.count() == 1

    # The page carries the confirmation; sending the same form again stores the player.
    confirm = re.search(r'<input type="hidden" name="confirm_duplicate" value="([^"]*)"', body)
    assert confirm, body
    response = director_client.post(
        url,
        {
            "full_name": "aurelio baeza",
            "active": "on",
            "confirm_duplicate": html.unescape(confirm.group(1)),
        },
    )
    assert response.status_code == 302
    assert Player.objects.count() == 2
    assert Player.objects.exclude(pk=first.pk).get().full_name == "aurelio baeza"


def test_player_add_without_a_similar_name_stores_at_once(director_client):
    response = director_client.post(
        reverse("manage:player_add"), {"full_name": " Zoë  O'Brien ", "active": "on"}
    )
    assert response.status_code == 302
    assert Player.objects.get().full_name == "Zoë O'Brien"


def test_deleting_a_player_with_results_is_refused_with_a_message(
    director_client, director, running
):
    table = running["tables"][0]
    services.record_result(acting_user=director, table=table, tantos_a=100, tantos_b=20, version=0)
    player = running["entries"][0].player2
    response = director_client.post(reverse("manage:player_delete", args=[player.pk]), follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == reverse("manage:players")
    assert (
        f"{player.full_name} ya jugó en algún torneo: no se puede borrar, solo desactivar."
        in html.unescape(response.content.decode())
    )
    assert Player.objects.filter(pk=player.pk).exists()


def _selected(body, select_id):
    block = re.search(rf'<select id="{select_id}"[^>]*>(.*?)</select>', body, re.S)
    assert block, select_id
    return re.findall(r'<option value="([^"]*)" selected>', block.group(1))


def test_pairings_with_an_entry_twice_returns_400_with_the_message_and_keeps_the_choices(
    director_client, director
):
    t, e = builders.field(
        BARRIO,
        acting_user=director,
        name="Copa del Barrio",
        names=[f"Copa del Barrio {chr(65 + i)}. Solís" for i in range(8)],
    )
    chosen = {"t0_a1": e[0].pk, "t0_b1": e[1].pk, "t1_a1": e[0].pk, "t1_b1": e[2].pk}
    response = director_client.post(reverse("manage:pairings", args=[t.slug, 1]), chosen)
    assert response.status_code == 400
    body = response.content.decode()
    assert f"{e[0].name} está sentado dos veces en la misma ronda." in html.unescape(body)
    for select_id, entry_pk in chosen.items():
        assert _selected(body, select_id) == [str(entry_pk)], select_id
    assert not Round.objects.filter(tournament=t).exists()
    assert not Table.objects.exists()


def test_pairings_with_an_incomplete_table_names_it_and_keeps_every_tables_choices(
    director_client, director
):
    t, e = builders.field(
        BARRIO,
        acting_user=director,
        name="Copa del Barrio",
        names=[f"Copa del Barrio {chr(65 + i)}. Solís" for i in range(12)],
    )
    chosen = {
        "t0_a1": "",
        "t0_b1": "",
        "t1_a1": e[0].pk,
        "t1_b1": "",
        "t2_a1": e[2].pk,
        "t2_b1": e[3].pk,
    }
    response = director_client.post(reverse("manage:pairings", args=[t.slug, 1]), chosen)
    assert response.status_code == 400
    body = response.content.decode()
    assert "La mesa 2 está incompleta: elige todos sus asientos." in html.unescape(body)
    for select_id, entry_pk in chosen.items():
        assert _selected(body, select_id) == ([str(entry_pk)] if entry_pk else []), select_id
    assert not Table.objects.exists()


def test_pairings_page_saves_tables_and_rests_the_unseated(director_client, director):
    t, e = builders.field(
        BARRIO,
        acting_user=director,
        name="Copa del Barrio",
        names=[f"Copa del Barrio {chr(65 + i)}. Solís" for i in range(10)],
    )
    response = director_client.post(
        reverse("manage:pairings", args=[t.slug, 1]),
        {"t0_a1": e[4].pk, "t0_b1": e[1].pk, "t1_a1": e[2].pk, "t1_b1": e[3].pk},
    )
    assert response.status_code == 302
    rnd = Round.objects.get(tournament=t, number=1)
    tables = rnd.tables_with_results()
    assert [(tbl.side("A"), tbl.side("B")) for tbl in tables] == [
        ([e[4]], [e[1]]),
        ([e[2]], [e[3]]),
    ]
    assert rnd.bye_entries() == [e[0]]


def test_standings_csv_is_text_csv_with_the_documented_header(client, director, running):
    pytest.importorskip("tournaments.exports")
    services.record_result(
        acting_user=director, table=running["tables"][0], tantos_a=100, tantos_b=0, version=0
    )
    response = client.get(reverse("public:standings_csv", args=[running["t"].slug]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    lines = response.content.decode("utf-8").lstrip("\ufeff").splitlines()
    assert (
        lines[0]
        == "position,entry,played,won,puntos,tantos_a_favor,tantos_en_contra,castigos,efectividad,byes"
    )
    assert len(lines) == 5


def test_htmx_castigo_with_negative_tantos_shows_a_message_in_words_and_stores_nothing(
    director_client, running
):
    t, e = running["t"], running["entries"]
    response = director_client.post(
        reverse("manage:castigo_add", args=[t.slug, 1]),
        {"player": e[1].player1_id, "tantos": "-3", "reason": "Hablar durante la mano"},
        **HTMX,
    )
    assert response.status_code == 400
    body = html.unescape(response.content.decode())
    error = re.search(r'<p class="error" role="alert">([^<]+)</p>', body)
    assert error, body
    assert "castigo" in error.group(1).lower() and "mayor que 0" in error.group(1)
    assert "<html" not in body  # a partial, not a page
    assert 'value="-3"' in body  # what was typed comes back
    assert Castigo.objects.count() == 1  # only the fixture's castigo
    assert not Castigo.objects.filter(player=e[1].player1).exists()


def test_public_tournament_page_shows_equals_for_a_shared_position(client, director):
    t, e = builders.field(
        BARRIO,
        acting_user=director,
        name="Copa del Barrio",
        names=[f"Copa del Barrio {chr(65 + i)}. Solís" for i in range(8)],
    )
    rnd = services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=1,
        tables=[([e[0]], [e[1]]), ([e[2]], [e[3]])],
    )
    for table in rnd.tables.all():
        services.record_result(
            acting_user=director, table=table, tantos_a=100, tantos_b=50, version=0
        )
    response = client.get(reverse("public:tournament", args=[t.slug]))
    assert response.status_code == 200
    positions = re.findall(r'<td class="pos">([^<]*)</td>', response.content.decode())
    assert positions == ["=1", "=1", "=3", "=3"]


def test_htmx_result_save_updates_the_count_of_tables_left_to_close_the_round(
    director_client, running
):
    t, tables = running["t"], running["tables"]
    page = director_client.get(reverse("manage:round", args=[t.slug, 1])).content.decode()
    assert "faltan 2 mesas" in page
    url = reverse("manage:result_save", args=[t.slug, tables[0].pk])
    saved = director_client.post(url, {"tantos_a": "100", "tantos_b": "20", "version": "0"}, **HTMX)
    body = saved.content.decode()
    actions = re.search(
        r'<section id="round-actions"[^>]*hx-swap-oob="true".*?</section>', body, re.S
    )
    assert saved.status_code == 200 and actions, body[-1500:]
    assert "falta 1 mesa" in actions.group(0)
    url = reverse("manage:result_save", args=[t.slug, tables[1].pk])
    body = director_client.post(
        url, {"tantos_a": "100", "tantos_b": "30", "version": "0"}, **HTMX
    ).content.decode()
    actions = re.search(r'<section id="round-actions".*?</section>', body, re.S).group(0)
    assert "falta" not in actions and "Cerrar ronda 1" in actions


def test_htmx_result_save_to_another_tournaments_table_is_404(director_client, director, running):
    other, oe = builders.field(
        BARRIO,
        acting_user=director,
        name="Copa Rival",
        names=[f"Copa Rival {chr(65 + i)}. Solís" for i in range(4)],
    )
    rnd = services.set_pairings(
        acting_user=director, tournament=other, round_number=1, tables=[([oe[0]], [oe[1]])]
    )
    foreign_table = rnd.tables.get()
    response = director_client.post(
        reverse("manage:result_save", args=[running["t"].slug, foreign_table.pk]),
        {"tantos_a": "100", "tantos_b": "20", "version": "0"},
        **HTMX,
    )
    assert response.status_code == 404
    assert not Result.objects.exists()
    assert Table.objects.get(pk=foreign_table.pk).version == 0


@pytest.mark.parametrize("status", ["draft", "registration"])
def test_the_first_round_of_a_draft_publishes_it_and_says_so(director_client, director, status):
    t = services.create_tournament(
        acting_user=director,
        name="Copa Borrador",
        date=dt.date(2026, 5, 9),
        mode="single",
        status=status,
    )
    for name in ("Ana Borrador", "Beto Borrador"):
        player = services.create_player(acting_user=director, full_name=name)
        services.register_entry(acting_user=director, tournament=t, players=[player])
    response = director_client.post(
        reverse("manage:round_robin", args=[t.slug]), {"next": "1"}, follow=True
    )
    shown = [m.message for m in response.context["messages"]]
    told = "«Copa Borrador» estaba en borrador y ahora está en curso: ya se ve en las páginas públicas."
    assert (told in shown) == (status == "draft"), shown
    t.refresh_from_db()
    assert t.status == "running"


@pytest.mark.parametrize(("number", "fragment"), [(5, "la próxima ronda es la 1"), (99, "la 1")])
def test_the_pairings_page_of_a_round_that_cannot_be_made_says_so(
    director_client, director, number, fragment
):
    t = services.create_tournament(
        acting_user=director, name="Copa Orden", date=dt.date(2026, 5, 9), rounds_planned=5
    )
    response = director_client.get(reverse("manage:pairings", args=[t.slug, number]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("manage:tournament", args=[t.slug])
    shown = [m.message for m in response.context["messages"]]
    assert len(shown) == 1 and fragment in shown[0], shown


def test_a_form_sent_after_the_session_ended_goes_back_to_its_page_after_login(client, director):
    t = services.create_tournament(
        acting_user=director, name="Copa Sesión", date=dt.date(2026, 5, 9)
    )
    page = reverse("manage:tournament", args=[t.slug])
    action = reverse("manage:entry_add", args=[t.slug])
    plain = client.post(action, {}, HTTP_REFERER=f"http://testserver{page}")
    assert (plain.status_code, plain["Location"]) == (302, f"/entrar/?next={page}")
    foreign = client.post(action, {}, HTTP_REFERER="https://evil.example/x/")
    assert foreign["Location"] == "/entrar/?next=/gestion/"
    htmx = client.post(action, {}, HTTP_HX_REQUEST="true")
    assert (htmx.status_code, htmx.content) == (401, b"")
    assert client.get(page)["Location"] == f"/entrar/?next={page}"


def test_pairings_saved_from_a_form_opened_before_someone_else_paired_are_refused(
    director_client, director
):
    t = services.create_tournament(
        acting_user=director, name="Copa Pareo", date=dt.date(2026, 5, 9), mode="single"
    )
    e = [
        services.register_entry(
            acting_user=director,
            tournament=t,
            players=[services.create_player(acting_user=director, full_name=f"Pareo {k}")],
        )
        for k in range(4)
    ]
    url = reverse("manage:pairings", args=[t.slug, 1])
    seen = director_client.get(url).context["seen"]
    assert seen == "new"
    # meanwhile another director pairs the round
    services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=1,
        tables=[([e[0]], [e[1]]), ([e[2]], [e[3]])],
    )
    mine = {"seen": seen, "t0_a1": e[0].pk, "t0_b1": e[2].pk, "t1_a1": e[1].pk, "t1_b1": e[3].pk}
    response = director_client.post(url, mine, follow=True)
    assert response.redirect_chain[-1][0] == url
    shown = [m.message for m in response.context["messages"]]
    assert shown == [
        "Otro director cambió los emparejamientos de la ronda 1 mientras los editabas: no "
        "se guardó nada. Vuelve a abrir la ronda, revisa sus mesas y guarda de nuevo."
    ]
    table1 = Table.with_results().get(round__tournament=t, number=1)
    assert table1.side_name("B") == e[1].name  # the other director's tables stand
    # with the fingerprint of the round as it is now, the save goes through
    mine["seen"] = response.context["seen"]
    director_client.post(url, mine)
    table1 = Table.with_results().get(round__tournament=t, number=1)
    assert table1.side_name("B") == e[2].name
