"""A director runs round 1 of a pairs round robin through the real pages (issue: how it is checked)."""

import html
import re

import pytest
from django.urls import reverse

from tournaments.models import Castigo, Result, Round, Table, Tournament

pytestmark = pytest.mark.django_db

PLAYERS = [
    "Aurelio Baeza",
    "Benigno Cantú",
    "Celia Durán",
    "Dámaso Elizondo",
    "Eloísa Fajardo",
    "Fermín Galván",
    "Gudelia Herrera",
    "Homero Ibarra",
    "Inés Jaramillo",
    "Jacinto Kuri",
    "Leonor Madero",
    "Macario Núñez",
]


def htmx(client, url, data):
    return client.post(url, data, HTTP_HX_REQUEST="true")


def test_director_runs_round_one_of_a_pairs_round_robin(client, director):
    assert client.login(username="directora", password="clave-de-prueba-1")

    for name in PLAYERS:
        r = client.post(reverse("manage:player_add"), {"full_name": name, "active": "on"})
        assert r.status_code == 302, r.content.decode()[:500]

    r = client.post(
        reverse("manage:tournament_add"),
        {
            "name": "Copa de Prueba",
            "date": "2026-11-28",
            "venue": "Salón Azul",
            "system": "domino",
            "mode": "pairs",
            "target": "100",
            "time_limit": "30",
            "bye_rule": "rest",
            "forfeit_winner_tantos": "",
            "forfeit_loser_tantos": "0",
            "rounds_planned": "5",
            "rated": "on",
            "status": "registration",
        },
    )
    assert r.status_code == 302, r.content.decode()[:2000]
    t = Tournament.objects.get(name="Copa de Prueba")

    from tournaments.models import Player

    ids = {p.full_name: p.pk for p in Player.objects.all()}
    for i in range(0, 12, 2):
        r = client.post(
            reverse("manage:entry_add", args=[t.slug]),
            {"player1": ids[PLAYERS[i]], "player2": ids[PLAYERS[i + 1]]},
        )
        assert r.status_code == 302
    assert t.entries.count() == 6

    r = client.post(reverse("manage:round_robin", args=[t.slug]))
    assert r.status_code == 302
    assert Round.objects.filter(tournament=t).count() == 5

    page = client.get(reverse("manage:round", args=[t.slug, 1]))
    assert page.status_code == 200
    tables = list(Table.objects.filter(round__tournament=t, round__number=1).order_by("number"))
    assert len(tables) == 3
    url = lambda table: reverse("manage:result_save", args=[t.slug, table.pk])  # noqa: E731

    # Refused: 100–120 (both over the target); the typed values come back, nothing stored.
    r = htmx(client, url(tables[0]), {"tantos_a": "100", "tantos_b": "120", "version": "0"})
    assert r.status_code == 400
    body = r.content.decode()
    assert "Los dos lados llegaron a la meta de 100 tantos (100–120)" in body
    assert 'value="120"' in body
    assert Result.objects.count() == 0

    # Corrected: 100–0 is a zapato, 3 puntos, shown at once.
    r = htmx(client, url(tables[0]), {"tantos_a": "100", "tantos_b": "0", "version": "0"})
    assert r.status_code == 200
    body = r.content.decode()
    assert "Puntos: A 3 · B 0" in body and "zapato" in body
    assert 'hx-swap-oob="true"' in body  # the standings come along, out of band

    r = htmx(client, url(tables[1]), {"tantos_a": "40", "tantos_b": "104", "version": "0"})
    assert r.status_code == 200 and "Puntos: A 0 · B 2" in r.content.decode()
    r = htmx(
        client,
        url(tables[2]),
        {"tantos_a": "85", "tantos_b": "62", "ended_by_time": "on", "version": "0"},
    )
    assert r.status_code == 200 and "Puntos: A 1 · B 0" in r.content.decode()

    # A stale save of table 1 (version 0 again) is refused, never overwrites.
    r = htmx(client, url(tables[0]), {"tantos_a": "100", "tantos_b": "99", "version": "0"})
    assert r.status_code == 409
    assert "Esta mesa cambió" in r.content.decode()
    assert Result.objects.get(table=tables[0]).tantos_b == 0

    # A castigo of 25 tantos on a player of table 1's winning pair.
    winner_a = tables[0].seats.get(side="A").entry
    r = client.post(
        reverse("manage:castigo_add", args=[t.slug, 1]),
        {"player": winner_a.player1_id, "tantos": "25", "reason": "Hablar durante la mano"},
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 200
    assert "Hablar durante la mano" in r.content.decode()
    assert Castigo.objects.filter(tournament=t).count() == 1

    r = client.post(reverse("manage:round_close", args=[t.slug, 1]))
    assert r.status_code == 302
    assert Round.objects.get(tournament=t, number=1).closed

    # Public standings (anonymous): the expected order.
    client.logout()
    r = client.get(reverse("public:standings", args=[t.slug]))
    assert r.status_code == 200
    names = [
        html.unescape(n)
        for n in re.findall(
            r"<th scope=\"row\" class=\"name\">([^<]+?)(?: <span|</th>)", r.content.decode()
        )
    ]
    winner_b = tables[1].seats.get(side="B").entry
    winner_c = tables[2].seats.get(side="A").entry
    loser_c = tables[2].seats.get(side="B").entry
    loser_b = tables[1].seats.get(side="A").entry
    loser_a = tables[0].seats.get(side="B").entry
    # 3 puntos (zapato, efectividad 100-0-25=75) > 2 puntos (104-40: +60) > 1 punto (by time 85-62: +23);
    # losers: 0 puntos, efectividad 62-85=-23 > 40-100=-60 > 0-100=-100.
    assert names == [
        winner_a.name,
        winner_b.name,
        winner_c.name,
        loser_c.name,
        loser_b.name,
        loser_a.name,
    ]
