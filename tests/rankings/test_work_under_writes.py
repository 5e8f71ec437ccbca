"""The background work a save asks for stays proportional to what it changed and is paced
(issue "federation scale for every page", point 3; docs/performance.md, "The ranking under
writes"): a result asks for the stories of its table's players only, not of every player of
its tournament; the replay and the stories' refresh wait ``REPLAY_DELAY`` and ``STORY_DELAY``
seconds in the queue, so the saves of those seconds make one replay and one refresh."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from rankings import tasks
from rankings.models import StoryRequest
from tests import builders
from tournaments.models import Entry, Result

pytestmark = pytest.mark.django_db


def _event(django_capture_on_commit_callbacks):
    """A rated dominó pairs tournament: 8 players, 4 pairs, round 1 at two tables (pairs 0 v 1
    at the first, 2 v 3 at the second); no request waiting."""
    with django_capture_on_commit_callbacks(execute=True):  # what a commit leaves, done
        players = builders.players(f"Mesa {i}" for i in range(8))
        t = builders.tournament(
            builders.RATED, name="Abierto de Mesas", date=dt.date(timezone.localdate().year, 2, 1)
        )
        e = builders.entries(t, players)
        tables = builders.tables_of(builders.pair(t, 1, [(0, 1), (2, 3)], entries=e))
    StoryRequest.objects.all().delete()
    return players, t, tables


def _asked() -> list[int]:
    return sorted(StoryRequest.objects.values_list("player_id", flat=True))


def test_a_result_asks_for_its_tables_players_only(django_capture_on_commit_callbacks):
    players, t, tables = _event(django_capture_on_commit_callbacks)
    ids = [p.pk for p in players]
    with django_capture_on_commit_callbacks(execute=False):
        builders.record(tables[1], tantos_a=100, tantos_b=61)
        # the second table's two pairs (players 4 to 7), once for the save (its result's row
        # and its table's)
        assert _asked() == ids[4:]
    StoryRequest.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=False):
        # an entry's change may move players anywhere in the tournament: all of them
        with transaction.atomic():
            entry = Entry.objects.filter(tournament=t).order_by("pk").first()
            entry.save()
            assert _asked() == ids
            Result.objects.filter(table=tables[1]).get().save()
            assert _asked() == ids  # announced whole already in this transaction


def test_the_replay_and_the_stories_wait_in_the_queue_and_one_task_takes_many_saves(
    django_capture_on_commit_callbacks, database_tasks
):
    players, t, tables = _event(django_capture_on_commit_callbacks)
    DBTaskResult.objects.all().delete()
    before = timezone.now()
    for n, table in enumerate(tables):
        with django_capture_on_commit_callbacks(execute=True):
            builders.record(table, tantos_a=100, tantos_b=50 + n)
    waiting = {
        r.task_path.rsplit(".", 1)[1]: r for r in DBTaskResult.objects.filter(status="READY")
    }
    assert sorted(waiting) == ["refresh_stories", "replay_ledger"]  # two saves, one of each
    assert DBTaskResult.objects.count() == 2
    for name, delay in (
        ("replay_ledger", tasks.REPLAY_DELAY),
        ("refresh_stories", tasks.STORY_DELAY),
    ):
        wait = (waiting[name].run_after - before).total_seconds()
        assert delay <= wait < delay + 5, (name, wait)
    # not due yet: a worker does not take them now
    assert not DBTaskResult.objects.ready().exists()
    assert _asked() == [p.pk for p in players]  # both tables' players wait for the one refresh


def test_a_refresh_that_leaves_players_waiting_goes_on_at_once(
    django_capture_on_commit_callbacks, database_tasks, monkeypatch
):
    players, t, tables = _event(django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(tables[0], tantos_a=100, tantos_b=50)
    DBTaskResult.objects.all().delete()
    monkeypatch.setattr(tasks, "STORIES_PER_RUN", 3)
    assert tasks.refresh_stories.call() == {"players": 3, "more": True}
    assert StoryRequest.objects.values("player_id").distinct().count() == 1
    again = DBTaskResult.objects.get(status="READY")
    assert again.task_path == "rankings.tasks.refresh_stories"
    assert DBTaskResult.objects.ready().filter(pk=again.pk).exists()  # due now, not deferred
