"""While a change waits for the background replay (rankings.tasks), the ranking pages say so;
the stored year figures give the same ranking and top ten as the ledger (issue "a correction
never makes anyone wait, and no page grows with the club")."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from rankings import health, ledger, queries, tasks
from rankings.models import LedgerStatus, ReplayRequest
from tests import builders
from tests.helpers import year_figures

pytestmark = pytest.mark.django_db


def _season(django_capture_on_commit_callbacks):
    players = builders.players(f"Pendiente {i:02d}" for i in range(8))
    t = builders.tournament(
        builders.RATED, name="Liga de invierno", date=dt.date(timezone.localdate().year, 1, 10)
    )
    e = builders.entries(t, players)
    tables = builders.tables_of(builders.pair(t, 1, [(0, 1), (2, 3)], entries=e))
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(tables[0], tantos_a=100, tantos_b=40)
        builders.record(tables[1], tantos_a=73, tantos_b=100)
    return players, tables


def test_a_waiting_change_is_shown_on_the_ranking_and_player_pages(
    client, django_capture_on_commit_callbacks, database_tasks
):
    players, tables = _season(django_capture_on_commit_callbacks)
    # One request per table and transaction: the pairing's two tables, then the two results.
    assert ReplayRequest.objects.count() == 4
    assert DBTaskResult.objects.filter(status="READY").count() == 1  # three commits, one task
    ledger.replay_from(None, requests=True)  # the worker's part
    assert health.pending() is None
    replayed = LedgerStatus.objects.get(pk=1).replayed_at
    assert replayed is not None
    for url in (reverse("rankings:ranking"), reverse("rankings:player", args=[players[0].pk])):
        assert "ledger-pending" not in client.get(url).content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        builders.record(
            tables[0], tantos_a=100, tantos_b=90
        )  # a correction: saved, the replay waits
    pending = health.pending()
    assert pending is not None and pending.count == 1 and pending.current_at == replayed
    since = timezone.localtime(pending.since).strftime("%H:%M")
    for url in (
        reverse("rankings:ranking"),
        reverse("rankings:player", args=[players[0].pk]),
        reverse("public:home"),
    ):
        body = client.get(url).content.decode()
        assert 'id="ledger-pending"' in body, url
        assert f"Actualizando el ranking desde las {since}." in body, url
    ledger.replay_from(None, requests=True)
    assert health.pending() is None
    assert 'id="ledger-pending"' not in client.get(reverse("rankings:ranking")).content.decode()


def test_a_stale_request_is_enqueued_again_once(django_capture_on_commit_callbacks, database_tasks):
    _season(django_capture_on_commit_callbacks)
    DBTaskResult.objects.all().delete()  # the worker took the task and died
    tasks.ensure_replay(health.pending())  # recent: nothing yet
    assert DBTaskResult.objects.count() == 0
    ReplayRequest.objects.update(created_at=timezone.now() - dt.timedelta(minutes=5))
    from django.core.cache import cache

    cache.delete(tasks._RETRY_KEY)
    tasks.ensure_replay(health.pending())
    tasks.ensure_replay(health.pending())
    assert DBTaskResult.objects.filter(status="READY").count() == 1


def test_a_change_in_an_unrated_tournament_takes_no_replay(django_capture_on_commit_callbacks):
    players = builders.players(f"Amistad {i:02d}" for i in range(4))
    t = builders.tournament(builders.RATED, name="Amistoso", date=dt.date(2026, 3, 3), rated=False)
    e = builders.entries(t, players)
    (table,) = builders.tables_of(builders.pair(t, 1, [(0, 1)], entries=e))
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(table, tantos_a=100, tantos_b=12)
    assert ReplayRequest.objects.count() == 0  # taken at once by the immediate backend
    assert health.pending() is None


def test_the_top_ten_is_the_head_of_the_ranking_ties_included(django_capture_on_commit_callbacks):
    players = builders.players(f"Top {i:02d}" for i in range(24))
    t = builders.tournament(
        builders.RATED, name="Copa del año", date=dt.date(timezone.localdate().year, 2, 7)
    )
    # Six tables: the six winning pairs gain the same points (equal ratings before, same score).
    e = builders.entries(t, players)
    tables = builders.tables_of(
        builders.pair(t, 1, [(i, i + 1) for i in range(0, 12, 2)], entries=e)
    )
    with django_capture_on_commit_callbacks(execute=True):
        for table in tables:
            builders.record(table, tantos_a=100, tantos_b=50)
    year = timezone.localdate().year
    whole = queries.year_ranking(year)
    assert len(whole) == 24
    assert [line.position for line in whole[:13]] == [1] * 12 + [13]
    for size in (1, 10, 12, 13, 30):
        top = queries.top_of_year(year, size)
        assert top == whole[:size]
    assert queries.year_position(whole[12].player_id, year) == 13
    # The ranking page's database paging gives the same lines, positions and order.
    paged = []
    for number in range(1, 6):
        page = queries.ranking_page(year, number, 5)
        assert page.number == number and page.paginator.num_pages == 5
        paged += page.object_list
    assert paged == whole
    assert queries.ranking_page(year, "abc", 5).object_list == whole[:5]
    assert queries.ranking_page(year, 99, 5).object_list == whole[20:]
    assert queries.ranking_years() == [year]


def test_the_year_figures_of_many_players_over_several_years_refresh_in_one_go(
    django_capture_on_commit_callbacks,
):
    """A replay's players can be thousands over several years (a correction early in the
    season): the figures are refreshed without one compound statement per chunk (SQLite
    refuses more than 500 terms in one), and equal those of a full refresh."""
    players = builders.players(f"Muchos {i:02d}" for i in range(8))
    for year in (2024, 2025, 2026):
        t = builders.tournament(builders.RATED, name=f"Liga {year}", date=dt.date(year, 5, 4))
        e = builders.entries(t, players)
        tables = builders.tables_of(builders.pair(t, 1, [(0, 1), (2, 3)], entries=e))
        with django_capture_on_commit_callbacks(execute=True):
            builders.record(tables[0], tantos_a=100, tantos_b=year % 100)
            builders.record(tables[1], tantos_a=31, tantos_b=100)
    full = year_figures()
    assert len(full) == 3 * 8
    ids = [p.pk for p in players] + list(range(10**6, 10**6 + 1500))  # 1,508 players, 3 years
    ledger.refresh_year_ratings(ids, from_year=2024)
    assert year_figures() == full
    ledger.refresh_year_ratings(ids[:3], from_year=2025)
    assert year_figures() == full


@pytest.mark.page_cache
def test_a_cached_ranking_page_still_looks_for_a_stale_replay(
    client, django_capture_on_commit_callbacks, database_tasks, monkeypatch
):
    """A page served from the cache runs no view code: the ranking pages still look, now and
    then, for a replay whose worker died, and enqueue it again."""
    _season(django_capture_on_commit_callbacks)
    url = reverse("rankings:ranking")
    client.get(url)  # computed and cached
    DBTaskResult.objects.all().delete()  # the worker took the task and died
    ReplayRequest.objects.update(created_at=timezone.now() - dt.timedelta(minutes=5))
    from django.core.cache import cache

    cache.delete(tasks._RETRY_KEY)
    monkeypatch.setattr(tasks, "_checked_at", 0.0)
    first = client.get(url)
    assert first.status_code == 200
    assert DBTaskResult.objects.filter(status="READY").count() == 1
    # Within CHECK_EVERY seconds the same process does not look again.
    DBTaskResult.objects.all().delete()
    cache.delete(tasks._RETRY_KEY)
    client.get(url)
    assert DBTaskResult.objects.count() == 0
