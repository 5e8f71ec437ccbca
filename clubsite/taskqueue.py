"""The background tasks' queue (django-tasks-db's ``DBTaskResult`` rows, run by ``manage.py
db_worker``): what the site does to it besides enqueuing.

- ``scrub(text)``: erase a piece of personal data (an anonymised player's email) from the
  queue: the arguments of the tasks still waiting, and the arguments, return values and error
  texts of those that ran (kept until ``prune_db_task_results``).
- ``recover_abandoned(older_than=…)``: a task row a killed worker left "running" forever
  (the worker marks a row RUNNING in one transaction, then runs it: killed in between, nothing
  ever finishes it). Run at the worker's start (``manage.py recover_tasks``; README,
  "Production"): the first time a row is found abandoned it waits in the queue again
  (READY); a row already run by two workers that both stopped is marked FAILED
  (``WorkerLost``), so a task that kills its worker cannot kill every worker after it.

Rows of another backend (the immediate backend keeps none) are not touched.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

#: A row claimed this many times by workers that all stopped mid-run fails instead of waiting
#: again.
MAX_CLAIMS = 2

WORKER_LOST = "clubsite.taskqueue.WorkerLost"


class WorkerLost(Exception):
    """The worker running a task stopped before the task ended (killed, out of memory, the
    machine restarted). Named in the FAILED row's ``exception_class_path``."""


def _scrubbed(value: Any, pattern: re.Pattern) -> Any:
    """``value`` (JSON: dicts, lists, strings, numbers) with every match of ``pattern`` in its
    strings replaced by ""."""
    if isinstance(value, str):
        return pattern.sub("", value)
    if isinstance(value, list):
        return [_scrubbed(item, pattern) for item in value]
    if isinstance(value, dict):
        return {key: _scrubbed(item, pattern) for key, item in value.items()}
    return value


@transaction.atomic
def scrub(text: str) -> int:
    """Erase ``text`` (case ignored; e.g. an email address) from every task row: in the
    arguments (a string argument that was the address becomes "", and every task that sends
    to an address does nothing for ""), the return value and the error text. Returns how many
    rows changed. Rows are locked while changed; a row a worker has already picked up runs
    with the arguments it read (the worker read them before this ran). Nothing for ""."""
    text = (text or "").strip()
    if not text:
        return 0
    pattern = re.compile(re.escape(text), re.IGNORECASE)
    rows = DBTaskResult.objects.select_for_update()
    if text.isascii():  # JSON keeps ASCII as it is: the database finds the rows
        rows = rows.filter(
            Q(args_kwargs__icontains=text)
            | Q(traceback__icontains=text)
            | Q(return_value__icontains=text)
        )
    changed = 0
    for row in rows.order_by("pk"):
        args = _scrubbed(row.args_kwargs, pattern)
        returned = _scrubbed(row.return_value, pattern)
        traceback = pattern.sub("", row.traceback)
        if (args, returned, traceback) != (row.args_kwargs, row.return_value, row.traceback):
            row.args_kwargs, row.return_value, row.traceback = args, returned, traceback
            row.save(update_fields=["args_kwargs", "return_value", "traceback"])
            changed += 1
    return changed


def recover_abandoned(
    *, older_than: dt.timedelta, now: dt.datetime | None = None
) -> tuple[list[str], list[str]]:
    """Recover the RUNNING rows started more than ``older_than`` ago (``older_than`` 0: all of
    them; right for the start of the only worker, whose predecessor is gone). A row claimed
    fewer than ``MAX_CLAIMS`` times goes back to the queue (READY, ``started_at`` cleared: the
    next free worker runs it again; the site's tasks may run twice: each notice is recorded
    before it is sent, a replay or an import finds its work done); one claimed ``MAX_CLAIMS``
    times is FAILED (``WorkerLost``), with a sentence naming its workers. Returns the ids
    ``(requeued, failed)``, as strings."""
    now = now or timezone.now()
    requeued: list[str] = []
    failed: list[str] = []
    with transaction.atomic():
        rows = DBTaskResult.objects.select_for_update(skip_locked=True).filter(
            status=TaskResultStatus.RUNNING, started_at__lte=now - older_than
        )
        for row in rows.order_by("started_at", "pk"):
            if len(row.worker_ids) >= MAX_CLAIMS:
                row.status = TaskResultStatus.FAILED
                row.finished_at = now
                row.exception_class_path = WORKER_LOST
                row.traceback = (
                    f"WorkerLost: the workers {', '.join(row.worker_ids)} each stopped while "
                    f"running this task; it is not run again (manage.py recover_tasks)."
                )
                row.return_value = None
                row.save(
                    update_fields=[
                        "status",
                        "finished_at",
                        "exception_class_path",
                        "traceback",
                        "return_value",
                    ]
                )
                failed.append(str(row.pk))
            else:
                row.status = TaskResultStatus.READY
                row.started_at = None
                row.save(update_fields=["status", "started_at"])
                requeued.append(str(row.pk))
    return requeued, failed
