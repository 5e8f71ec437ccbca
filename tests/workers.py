"""The real background worker in tests: ``manage.py db_worker`` (django-tasks-db) in a process
of its own, on the test database (tests/rankings/test_worker.py, tests/test_mail_and_lockout.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django_tasks_db.models import DBTaskResult

from rankings import ledger, tasks
from rankings.models import ReplayRequest
from tests.helpers import ledger_snapshot
from tournaments import services

ROOT = Path(__file__).resolve().parents[1]


def _database_url() -> str:
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def start_worker() -> subprocess.Popen:
    """``manage.py db_worker`` on the test database, polling every 0.1 s."""
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "DJANGO_TASKS_BACKEND": "database",
        "DJANGO_LOG_LEVEL": "ERROR",
        "TIME_ZONE": settings.TIME_ZONE,
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--interval", "0.1", "--no-reload"]
        + ["--no-startup-delay", "--verbosity", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def stop(worker: subprocess.Popen, sig=signal.SIGTERM) -> None:
    if worker.poll() is None:
        worker.send_signal(sig)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def wait_until(condition, timeout=30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def drain() -> None:
    """Start a worker, wait until no replay request is left, stop it."""
    worker = start_worker()
    try:
        wait_until(lambda: not ReplayRequest.objects.exists())
    finally:
        stop(worker)


def rebuilt():
    """The rows a full rebuild gives, computed without writing (a rebuild rolled back)."""

    with transaction.atomic():
        ledger.rebuild()
        rows = ledger_snapshot()
        transaction.set_rollback(True)
    return rows


def replay_tasks():
    return DBTaskResult.objects.filter(task_path=tasks.replay_ledger.module_path)


def correct_first_game(t):
    """A correction of the tournament's first game (round 1, table 1, stored 100–0): 37–100."""
    table = t.rounds.get(number=1).tables.get(number=1)
    return services.record_result(
        acting_user=None, table=table, tantos_a=37, tantos_b=100, version=None
    )


def someone_waits_for_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
        return cursor.fetchone()[0] > 0
