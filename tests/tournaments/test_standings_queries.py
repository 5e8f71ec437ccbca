"""Tournament.standings() and the public pages read in a fixed number of SQL queries, whatever
the number of entries (DESIGN.md: "a model method gathers what it needs in a fixed, small
number of queries")."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests import builders
from tournaments import services
from tournaments.models import Bye, Castigo, Result, Sorteo, Tournament

pytestmark = pytest.mark.django_db

ROUNDS = 3
STANDINGS_QUERIES = 6  # entries, seats, results, byes, castigos, sorteos
PLACES_QUERIES = STANDINGS_QUERIES + 1  # Tournament.final_places: and who played


def build_tournament(user, n_entries: int, name: str):
    """A pairs tournament of ``n_entries`` with ``ROUNDS`` rounds of results: each round one
    table fewer than possible (two byes), normal, by-time and forfeit results, two castigos and
    a sorteo (the rounds planned all played: the order is final)."""
    t, entries = builders.field(
        acting_user=user,
        name=name,
        date=dt.date(2026, 5, 9),
        mode="pairs",
        target=100,
        time_limit=30,
        rounds_planned=ROUNDS,
        names=[f"{name} jugador {i:03d}" for i in range(2 * n_entries)],
    )
    for number in range(1, ROUNDS + 1):
        order = entries[number:] + entries[:number]  # rotate, so different entries rest
        seated = order[2:]
        tables = [(seated[i], seated[i + 1]) for i in range(0, len(seated), 2)]
        rnd = builders.pair(t, number, tables, acting_user=user)
        for i, table in enumerate(builders.tables_of(rnd)):
            if i % 7 == 3:
                values = builders.tantos("", "", forfeiting_side="A")
            elif i % 5 == 1:
                values = builders.tantos(80, 60, ended_by_time=True)
            else:
                values = builders.tantos(100 + i % 3, (17 * i + number) % 100)
            builders.record(table, acting_user=user, version=0, **values)
        builders.close(rnd, acting_user=user)
    services.add_castigo(
        acting_user=user,
        tournament=t,
        player=entries[0].player1,
        tantos=10,
        reason="Hablar durante la mano",
    )
    services.add_castigo(
        acting_user=user, tournament=t, player=entries[-1].player2, tantos=5, reason="Llegó tarde"
    )
    services.record_sorteo(
        acting_user=user, tournament=t, entries_in_order=[entries[3], entries[2]]
    )
    assert Bye.objects.filter(round__tournament=t).count() == 2 * ROUNDS
    assert Result.objects.filter(table__round__tournament=t).count() == ROUNDS * (
        n_entries // 2 - 1
    )
    assert Castigo.objects.filter(tournament=t).count() == 2
    assert Sorteo.objects.filter(tournament=t).count() == 2
    return t


@pytest.fixture(scope="module")
def built(module_data):
    """Both tournaments, built once for this module's tests, which only read them
    (tests/conftest.py ``module_data``), by a director as in the ``director`` fixture."""

    def build():
        user = builders.director()
        return build_tournament(user, 8, "Chico").pk, build_tournament(user, 64, "Grande").pk

    yield from module_data(build)


@pytest.fixture
def small_and_large(built):
    """Fresh instances in each test, so no test counts queries against another's cache."""
    return tuple(Tournament.objects.get(pk=pk) for pk in built)


def test_standings_runs_the_same_six_queries_for_8_and_64_entries(
    small_and_large, django_assert_num_queries
):
    small, large = small_and_large
    with django_assert_num_queries(STANDINGS_QUERIES):
        small_lines = small.standings()
    with django_assert_num_queries(STANDINGS_QUERIES):
        large_lines = large.standings()
    assert len(small_lines) == 8 and len(large_lines) == 64
    # Reading the names of the lines needs no further query (players come with the entries).
    with django_assert_num_queries(0):
        assert all(line.entry.name for line in large_lines)
    assert sum(line.f["byes"] for line in large_lines) == 2 * ROUNDS
    assert sum(line.f["castigos"] for line in large_lines) == 15


def _count_queries(client, url):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200
    return len(ctx.captured_queries)


def test_public_pages_run_the_same_number_of_queries_for_8_and_64_entries(small_and_large, client):
    small, large = small_and_large
    for page in ("public:standings", "public:tournament", "public:round"):
        args = (lambda t: [t.slug, 2]) if page == "public:round" else (lambda t: [t.slug])
        n_small = _count_queries(client, reverse(page, args=args(small)))
        n_large = _count_queries(client, reverse(page, args=args(large)))
        assert n_small == n_large, page

    # The HTMX partial of the standings: the tournament, then its final places (the six
    # standings queries and who played).
    url = lambda t: reverse("public:standings", args=[t.slug])  # noqa: E731
    with CaptureQueriesContext(connection) as ctx_small:
        assert client.get(url(small), HTTP_HX_REQUEST="true").status_code == 200
    with CaptureQueriesContext(connection) as ctx_large:
        assert client.get(url(large), HTTP_HX_REQUEST="true").status_code == 200
    assert len(ctx_small.captured_queries) == len(ctx_large.captured_queries) == 1 + PLACES_QUERIES
