"""How far a background import has got, readable by the import page while the import runs.

An import is all or nothing: it runs in ONE transaction (``tournaments.imports.apply.run``),
and a count written through that transaction's connection would stay invisible to every other
connection (the page's) until the commit, that is, until the end. So the count travels outside
that transaction:

- **PostgreSQL**: through a second connection of the worker, in autocommit, opened once per
  thread with the default database's own parameters (``connection.get_connection_params()``)
  and kept until ``close()``. It updates the job's ``done``, ``total`` and ``progress_at``
  (``tournaments.models.ImportJob``); the import never touches the job's row, so the update
  never waits for the import's locks, and the page reads the row as usual.
- **SQLite** (and any other database): the import holds the whole database's write lock
  (every transaction begins IMMEDIATE, ``clubsite/settings.py``), so a second writer would wait
  for the import to end. The count goes to a small JSON file per job in
  ``settings.TASK_PROGRESS_DIR`` instead (written whole and renamed into place, so a reader
  never sees half a file), which the page reads; ``discard()`` removes it when the job ends.

Progress is best effort: a write that fails (the second connection refused, a full disk) is
logged and the import goes on without it. Writes are throttled (``throttled``): the first,
then at most one every ``MIN_INTERVAL`` seconds, and always the last (``done == total``).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg
from django.conf import settings
from django.db import connection
from django.utils import timezone

from tournaments.models import ImportJob

log = logging.getLogger(__name__)

#: Seconds between two progress writes of one import (the last one is always written).
MIN_INTERVAL = 0.5

_local = threading.local()  # this thread's second PostgreSQL connection (``_side_connection``)
_FAILED = object()  # the second connection could not be opened: no progress for this thread


@dataclass(frozen=True)
class Progress:
    """One job's last reported progress: ``done`` of ``total`` tables written, reported at
    ``at`` (an aware datetime)."""

    done: int
    total: int
    at: dt.datetime


def in_database() -> bool:
    """True when progress goes to the job's row through a second connection (PostgreSQL),
    False when it goes to a file (SQLite and the rest)."""
    return connection.vendor == "postgresql"


def report(job_id: int, done: int, total: int) -> None:
    """Record now that import job ``job_id`` has written ``done`` of ``total`` tables, where
    other connections see it at once although the import's transaction is still open. Never
    raises: a failure is logged."""
    if in_database():
        _report_row(job_id, done, total)
    else:
        _report_file(job_id, done, total)


def read(job_id: int) -> Progress | None:
    """The last progress reported for job ``job_id`` (by any process), or None if none was
    (or its file is gone or unreadable)."""
    if in_database():
        row = ImportJob.objects.filter(pk=job_id).values_list("done", "total", "progress_at")
        found = row.first()
        if found is None or found[2] is None:
            return None
        return Progress(done=found[0], total=found[1], at=found[2])
    return _read_file(job_id)


class Throttled:
    """The ``progress(done, total)`` callable of one import (``imports.import_results``):
    reports the first call, then at most one every ``MIN_INTERVAL`` seconds, and always the
    last (``done == total``). ``done``/``total``: the last values it was given (0, 0 before
    any), reported or not."""

    def __init__(self, job_id: int, *, min_interval: float = MIN_INTERVAL):
        self.job_id = job_id
        self.min_interval = min_interval
        self.done = 0
        self.total = 0
        self._last: float | None = None

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        now = time.monotonic()
        if self._last is not None and done < total and now - self._last < self.min_interval:
            return
        self._last = now
        report(self.job_id, done, total)


def throttled(job_id: int, *, min_interval: float = MIN_INTERVAL) -> Throttled:
    """A throttled ``progress(done, total)`` callable for job ``job_id`` (``Throttled``)."""
    return Throttled(job_id, min_interval=min_interval)


def discard(job_id: int) -> None:
    """Forget job ``job_id``'s progress file (SQLite; nothing to do on PostgreSQL, where the
    count stays in the job's row). Never raises."""
    if in_database():
        return
    try:
        _path(job_id).unlink(missing_ok=True)
    except OSError:
        log.warning("import progress: could not remove %s", _path(job_id), exc_info=True)


def close() -> None:
    """Close this thread's second connection, if ``report`` opened one (PostgreSQL). The task
    calls it when its import ends; the next ``report`` opens a new one."""
    conn = getattr(_local, "conn", None)
    _local.conn = None
    if conn is not None and conn is not _FAILED:
        try:
            conn.close()
        except Exception:  # already broken: nothing left to close
            log.debug("import progress: closing the second connection failed", exc_info=True)


# --- PostgreSQL: the job's row, through a second connection -------------------------------------


def _side_connection():
    """This thread's autocommit psycopg connection to the default database (opened on first
    use), or None if it cannot be opened (logged once)."""
    conn = getattr(_local, "conn", None)
    if conn is _FAILED:
        return None
    if conn is not None and not conn.closed:
        return conn

    try:
        conn = psycopg.connect(**connection.get_connection_params(), autocommit=True)
    except Exception:
        log.warning("import progress: no second database connection", exc_info=True)
        _local.conn = _FAILED
        return None
    _local.conn = conn
    return conn


def _report_row(job_id: int, done: int, total: int) -> None:

    conn = _side_connection()
    if conn is None:
        return
    table = connection.ops.quote_name(ImportJob._meta.db_table)
    try:
        conn.execute(
            f"UPDATE {table} SET done = %s, total = %s, progress_at = %s WHERE id = %s",
            (done, total, timezone.now(), job_id),
        )
    except Exception:
        log.warning("import progress: could not update job %s", job_id, exc_info=True)
        close()


# --- SQLite and the rest: one small JSON file per job --------------------------------------------


def _path(job_id: int) -> Path:
    return Path(settings.TASK_PROGRESS_DIR) / f"import-{int(job_id)}.json"


def _report_file(job_id: int, done: int, total: int) -> None:
    path = _path(job_id)
    record = {"done": done, "total": total, "at": timezone.now().isoformat()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(record, out)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        log.warning("import progress: could not write %s", path, exc_info=True)


def _read_file(job_id: int) -> Progress | None:
    try:
        record = json.loads(_path(job_id).read_text(encoding="utf-8"))
        return Progress(
            done=int(record["done"]),
            total=int(record["total"]),
            at=dt.datetime.fromisoformat(record["at"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


__all__ = [
    "MIN_INTERVAL",
    "Progress",
    "Throttled",
    "close",
    "discard",
    "in_database",
    "read",
    "report",
    "throttled",
]
