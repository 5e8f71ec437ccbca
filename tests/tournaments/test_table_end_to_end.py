"""A director runs a 3–4 player table game through the real pages (issue: table games)."""

import datetime as dt
import html
import re

import pytest
from django.urls import reverse

from tournaments import services
from tournaments.models import Seat, Table, TableResult, Tournament

pytestmark = pytest.mark.django_db

NAMES = [
    "Ana Ruiz",
    "Beto Soto",
    "Caro Tapia",
    "Dani Urbina",
    "Eva Valle",
    "Fede Wong",
    "Gala Xolo",
]


def test_director_seats_seven_players_and_enters_vp_with_a_refusal(director_client):
    client = director_client
    r = client.post(
        reverse("manage:tournament_add"),
        {
            "name": "Mesa de Prueba",
            "date": "2026-11-14",
            "venue": "",
            "system": "table",
            "mode": "single",
            "target": "100",
            "time_limit": "",
            "bye_rule": "rest",
            "forfeit_winner_tantos": "",
            "forfeit_loser_tantos": "0",
            "rounds_planned": "3",
            "status": "registration",
            "best_of": "",
        },
    )
    assert r.status_code == 302, r.content.decode()[:1500]
    t = Tournament.objects.get(name="Mesa de Prueba")
    for name in NAMES:
        p = services.create_player(acting_user=None, full_name=name)
        assert (
            client.post(reverse("manage:entry_add", args=[t.slug]), {"player1": p.pk}).status_code
            == 302
        )

    # Proposed seating for 7: one table of 4 and one of 3, nobody resting.
    page = client.get(reverse("manage:pairings", args=[t.slug, 1]) + "?proponer=1").content.decode()
    seed = re.search(r'name="seed" value="(\d+)"', page).group(1)
    chosen = dict(
        re.findall(r'<select id="(t\d_s\d)"[^>]*>.*?<option value="(\d+)" selected', page, re.S)
    )
    assert len(chosen) == 7
    r = client.post(reverse("manage:pairings", args=[t.slug, 1]), {"seed": seed, **chosen})
    assert r.status_code == 302
    tables = list(Table.objects.filter(round__tournament=t).order_by("number"))
    sizes = sorted(t_.seats.count() for t_ in tables)
    assert sizes == [3, 4]

    four = next(tb for tb in tables if tb.seats.count() == 4)
    three = next(tb for tb in tables if tb.seats.count() == 3)
    seats4 = list(Seat.objects.filter(table=four).order_by("position"))
    seats3 = list(Seat.objects.filter(table=three).order_by("position"))
    url = lambda table: reverse("manage:result_save", args=[t.slug, table.pk])  # noqa: E731

    # Refused: a seat without a score; nothing stored, typed values kept.
    data = {f"vp_{s.entry_id}": v for s, v in zip(seats4, ["10", "8", "", "5"], strict=False)} | {
        "version": "0"
    }
    r = client.post(url(four), data, HTTP_HX_REQUEST="true")
    assert r.status_code == 400
    assert TableResult.objects.count() == 0 and 'value="10"' in r.content.decode()

    data = {f"vp_{s.entry_id}": v for s, v in zip(seats4, ["10", "8", "7", "5"], strict=False)} | {
        "version": "0"
    }
    r = client.post(url(four), data, HTTP_HX_REQUEST="true")
    assert r.status_code == 200
    body = r.content.decode()
    # §4: 10, 8, 7, 5 → 5, 3, 2, 1 tournament points, shown as soon as it is saved.
    assert re.findall(r"<strong>(\d) punto", body) == ["5", "3", "2", "1"]

    data = {f"vp_{s.entry_id}": v for s, v in zip(seats3, ["10", "7", "6"], strict=False)} | {
        "version": "0",
        "ended_by_time": "on",
    }
    r = client.post(url(three), data, HTTP_HX_REQUEST="true")
    assert r.status_code == 200
    assert re.findall(r"<strong>(\d) punto", r.content.decode()) == [
        "4",
        "3",
        "2",
    ]  # 1st by time: 4

    client.logout()
    page = client.get(reverse("public:standings", args=[t.slug])).content.decode()
    names = [
        html.unescape(n)
        for n in re.findall(r'<th scope="row" class="name">([^<]+?)(?: <span|</th>)', page)
    ]
    top = [seats4[0].entry.name, seats3[0].entry.name]
    # 5 points (10 VP of 30 → 33.33 %) first, then 4 points (10 VP; 10+7+6+neutral 8 = 31 → 32.26 %).
    assert names[:2] == top
    assert "R1" in page


def test_print_view_has_one_sheet_per_table(client, director):
    t = services.create_tournament(
        acting_user=director,
        name="Plantillas",
        date=dt.date(2026, 11, 1),
        system="domino",
        mode="pairs",
        target=100,
        status="running",
    )
    players = [services.create_player(acting_user=None, full_name=f"Hoja {i}") for i in range(8)]
    entries = [
        services.register_entry(acting_user=None, tournament=t, players=players[i : i + 2])
        for i in range(0, 8, 2)
    ]
    services.set_pairings(
        acting_user=None,
        tournament=t,
        round_number=1,
        tables=[([entries[0]], [entries[1]]), ([entries[2]], [entries[3]])],
    )
    r = client.get(reverse("public:round_print", args=[t.slug, 1]))
    assert r.status_code == 200
    body = r.content.decode()
    assert body.count('<section class="sheet">') == 2
    assert (
        "Mesa <strong>2</strong>" in body and "Hoja 0 &amp; Hoja 1" in body and "Director" in body
    )
    assert "sheets.css" in body
