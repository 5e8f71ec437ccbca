"""The public pages for phones (home, "find my table", tournament, standings) run the same number
of SQL queries for a small club and a large one (DESIGN.md: a fixed, small number of queries)."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from rankings import ledger
from rankings.models import LedgerRow
from tests import builders
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def build_running(user, n_entries: int, name: str) -> Tournament:
    """A running pairs tournament of this year: rounds 1 and 2 closed with every result, round 3
    open with half the results; two entries rest each round; a castigo."""
    t = builders.tournament(
        acting_user=user,
        name=name,
        date=timezone.localdate(),
        mode="pairs",
        target=100,
        time_limit=30,
    )
    players = builders.players(
        [f"{name} Socia {i:03d}" for i in range(2 * n_entries)], acting_user=user
    )
    entries = builders.entries(t, players, acting_user=user)
    for number in (1, 2, 3):
        order = entries[number:] + entries[:number]
        seated = order[2:]
        tables = [(seated[i], seated[i + 1]) for i in range(0, len(seated), 2)]
        rnd = builders.pair(t, number, tables, acting_user=user)
        for i, table in enumerate(builders.tables_of(rnd)):
            if number == 3 and i % 2:
                continue
            builders.record(
                table, acting_user=user, version=0, tantos_a=100, tantos_b=(13 * i + number) % 90
            )
        if number < 3:
            builders.close(rnd, acting_user=user)
    services.add_castigo(
        acting_user=user, tournament=t, player=players[0], tantos=5, reason="Llegó tarde"
    )
    return t


def other_tournaments(user, prefix: str, n_upcoming: int, n_finished: int) -> None:
    for i in range(n_upcoming):
        t = builders.tournament(
            acting_user=user,
            name=f"{prefix} próximo {i}",
            date=timezone.localdate() + dt.timedelta(days=7 + i),
        )
        Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.REGISTRATION)
    for i in range(n_finished):
        t = builders.tournament(
            acting_user=user,
            name=f"{prefix} pasado {i}",
            date=timezone.localdate() - dt.timedelta(days=7 + i),
        )
        Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.FINISHED)


@pytest.fixture
def small_club(director):
    t = build_running(director, 6, "Peña Chica")
    other_tournaments(director, "Chica", 1, 1)
    ledger.replay_from(None)
    return t


@pytest.fixture
def large_club(director):
    t = build_running(director, 36, "Liga Grande")
    build_running(director, 8, "Liga Segunda")
    other_tournaments(director, "Grande", 4, 12)
    ledger.replay_from(None)
    return t


def count_queries(client, url, **headers) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, **headers)
    assert response.status_code == 200, url
    return len(ctx.captured_queries)


def page_counts(client, t: Tournament) -> dict[str, int]:
    find = reverse("public:find_table", args=[t.slug])
    standings = reverse("public:standings", args=[t.slug])
    return {
        "home": count_queries(client, reverse("public:home")),
        "find_table": count_queries(client, find),
        "find_table?q": count_queries(client, f"{find}?q=socia 00"),
        "find_table?q (htmx)": count_queries(client, f"{find}?q=socia 00", HTTP_HX_REQUEST="true"),
        "tournament": count_queries(client, reverse("public:tournament", args=[t.slug])),
        "standings": count_queries(client, standings),
        "standings (live refresh)": count_queries(client, standings, HTTP_HX_REQUEST="true"),
        "round (live refresh)": count_queries(
            client, reverse("public:round", args=[t.slug, 3]), HTTP_HX_REQUEST="true"
        ),
    }


def test_public_pages_run_the_same_queries_for_a_small_and_a_large_club(
    client, director, small_club
):
    small = page_counts(client, small_club)
    large_t = build_running(director, 36, "Liga Grande")
    build_running(director, 8, "Liga Segunda")
    other_tournaments(director, "Grande", 4, 12)
    ledger.replay_from(None)
    assert LedgerRow.objects.filter(tournament=large_t).count() > 100
    large = page_counts(client, large_t)
    assert small == large, (small, large)


def test_the_large_club_pages_show_what_the_counts_were_taken_on(client, large_club):
    home = client.get(reverse("public:home")).content.decode()
    assert home.count('href="/ranking/jugador/') == 10
    assert "Liga Segunda" in home and "Grande próximo 3" in home
    find = client.get(
        reverse("public:find_table", args=[large_club.slug]), {"q": "Liga Grande Socia 020"}
    )
    assert "Mesa " in find.content.decode()
    standings = client.get(reverse("public:standings", args=[large_club.slug])).content.decode()
    assert standings.count('<th scope="row" class="name">') == 36
    assert "data-live" in standings
