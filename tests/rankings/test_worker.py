"""The ledger replay in the background (rankings.tasks; issue "a correction never makes anyone
wait"), with the real worker: ``manage.py db_worker`` (django-tasks-db) in a process of its own,
on the test database.

- A save answers before the replay: right after it, the ledger is unchanged and one
  ``ReplayRequest`` waits; the worker then replays, and the ledger equals a full rebuild.
- Many saves made while no worker runs leave ONE task on the queue and make one replay.
- A worker killed in the middle of a replay (PostgreSQL: it is held on the status row after
  deleting and rewriting ledger rows) leaves the ledger as it was and the requests in place; a
  stale request is enqueued again and the next worker replays it.
"""

from __future__ import annotations

import datetime as dt
import os
import signal

import pytest
from django.db import connections

from rankings import health, tasks
from rankings.models import LedgerRow, LedgerStatus, ReplayRequest
from tests import builders
from tests.helpers import ledger_snapshot
from tests.workers import (
    correct_first_game,
    drain,
    rebuilt,
    replay_tasks,
    someone_waits_for_a_lock,
    start_worker,
    stop,
    wait_until,
)
from tournaments import services
from tournaments.models import Result

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_save_answers_before_the_replay_and_the_worker_catches_up(database_tasks):
    t = builders.club_tournament(n_entries=4, rounds=2)
    # Built with the queue and no worker: nothing rated yet, one request per saving transaction.
    assert LedgerRow.objects.count() == 0
    assert ReplayRequest.objects.count() > 0
    assert replay_tasks().filter(status="READY").count() == 1  # many saves, one task waiting
    pending = health.pending()
    assert pending is not None and pending.current_at is None
    worker = start_worker()
    try:
        wait_until(lambda: not ReplayRequest.objects.exists())
        wait_until(lambda: replay_tasks().filter(status="SUCCESSFUL").count() == 1)
        assert LedgerRow.objects.count() == 4 * 2 * 2  # 2 rounds × 2 tables × 4 players
        assert ledger_snapshot() == rebuilt()
        assert health.pending() is None
        assert LedgerStatus.objects.get(pk=1).replayed_at is not None
        # A correction of the first game: the save returns with the ledger unchanged …
        before = ledger_snapshot()
        correct_first_game(t)
        assert ReplayRequest.objects.count() == 1
        # … and the worker replays it from that game on.
        wait_until(lambda: not ReplayRequest.objects.exists())
        after = ledger_snapshot()
        assert after != before
        assert after == rebuilt()
    finally:
        stop(worker)
    assert replay_tasks().filter(status="FAILED").count() == 0


@pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").split(":")[0] not in ("postgres", "postgresql", "pgsql"),
    reason="holds a row lock from another connection while the worker replays (PostgreSQL)",
)
def test_a_worker_killed_mid_replay_leaves_the_ledger_and_the_replay_runs_again(database_tasks):
    t = builders.club_tournament(n_entries=4, rounds=2)
    drain()
    before = ledger_snapshot()
    assert len(before) == 16
    # Another connection holds the status row: the next replay deletes and rewrites the rows,
    # then waits there (``health.mark_replayed``), inside its transaction.
    holder = connections.create_connection("default")
    holder.set_autocommit(False)
    with holder.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {LedgerStatus._meta.db_table} WHERE id = 1 FOR UPDATE")
    correct_first_game(t)
    worker = start_worker()
    try:
        # The replay has deleted and rewritten rows and now waits for the held row.
        wait_until(someone_waits_for_a_lock)
        stop(worker, signal.SIGKILL)
    finally:
        holder.rollback()
        holder.close()
    # Killed: its transaction rolled back. The ledger is as before, the request still waits,
    # and the task it had claimed stays "running" for ever.
    assert ledger_snapshot() == before
    assert ReplayRequest.objects.count() == 1
    assert replay_tasks().filter(status="RUNNING").count() == 1
    # Once the request is older than STALE_AFTER, reading a ranking page enqueues it again.
    ReplayRequest.objects.update(created_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    from django.core.cache import cache

    cache.delete(tasks._RETRY_KEY)
    tasks.ensure_replay(health.pending())
    assert replay_tasks().filter(status="READY").count() == 1
    drain()
    assert ledger_snapshot() != before
    assert ledger_snapshot() == rebuilt()


def test_results_saved_while_no_worker_runs_make_one_replay(database_tasks):
    t = builders.club_tournament(n_entries=4, rounds=1)
    drain()
    done_before = replay_tasks().filter(status="SUCCESSFUL").count()
    for table in t.rounds.get(number=1).tables.order_by("number"):
        result = Result.objects.get(table=table)
        services.record_result(
            acting_user=None,
            table=table,
            tantos_a=result.tantos_b,
            tantos_b=result.tantos_a,
            version=None,
        )
    assert ReplayRequest.objects.count() == 2
    assert replay_tasks().filter(status="READY").count() == 1
    drain()
    assert replay_tasks().filter(status="SUCCESSFUL").count() == done_before + 1
    assert ledger_snapshot() == rebuilt()
