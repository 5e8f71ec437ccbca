"""The imports sent through the import page, as background tasks (Django's tasks framework,
``settings.TASKS``): beside the imports they run.

A page import is an ``ImportJob`` row: ``start_import`` creates it and enqueues
``import_results_task`` once the row is committed; the task (in ``manage.py db_worker``, or
inline on the immediate backend) runs the usual import, all or nothing
(``tournaments.imports.import_results``: one transaction), reporting its progress outside that
transaction (``tournaments.progress``), and records the outcome on the job: the report, or the
refusal with every refused line, exactly as the import page showed them when it imported in
the request. The web server's timeout no longer bounds an import.

A job's file is CSV text the page decoded, or an .xlsx workbook as uploaded: a workbook is
parsed here, never in a request (``reading.open_file``, bounded: docs/performance.md), and a
workbook the bounds refuse is the job's refusal. A castigos workbook is a job too (``kind``
"castigos", ``imports.import_castigos``).

If the worker dies mid-import its transaction rolls back (nothing is stored) and the job stays
"running": ``job_state`` calls it stalled once nothing has moved for ``STALL_SECONDS``, and
``retry_import`` runs its file again as a new job (an import is idempotent: a file imported
again finds its results recorded and stores nothing twice).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from contextlib import contextmanager

from django.conf import settings
from django.db import connection, transaction
from django.tasks import task
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_noop

from tournaments import imports, progress
from tournaments.errors import DomainError
from tournaments.imports import reading
from tournaments.models import ImportJob, Tournament
from tournaments.permissions import can_manage

log = logging.getLogger(__name__)

#: A queued or running job without any sign of life (its creation, its start, its last
#: progress report) for this long is stalled: its worker stopped, or none is running.
STALL_SECONDS = 5 * 60

# Job states as the page shows them: ImportJob.Status plus "stalled".
QUEUED, RUNNING, STALLED, DONE, FAILED = "queued", "running", "stalled", "done", "failed"

# The sentences a job records, translated when recorded (the job's language).
NOT_ALLOWED = gettext_noop("Ya no puedes gestionar este torneo: no se importó nada.")
SERVER_ERROR = gettext_noop(
    "La importación falló por un error del servidor y no se guardó nada. Vuelve a intentarlo; "
    "si vuelve a fallar, avisa a quien administra el sitio."
)
STOPPED = gettext_noop(
    "La importación se detuvo sin terminar y no se guardó nada: se volvió a intentar."
)


def start_import(
    *,
    acting_user,
    tournament: Tournament,
    file_name: str,
    language: str,
    text: str = "",
    workbook: bytes = b"",
    kind: str = ImportJob.Kind.RESULTS,
    notes: list[str] | tuple[str, ...] = (),
):
    """Create the ``ImportJob`` of a file for ``tournament``, asked by ``acting_user`` on a
    page in ``language``, and enqueue ``import_results_task`` once it is committed. The file is
    ``text`` (CSV, decoded by the page) or ``workbook`` (an .xlsx as uploaded, which only
    ``reading.check_workbook`` has seen: the job parses it); ``kind``: "results" (any file) or
    "castigos" (a workbook). ``notes``: how the page read the file (``reading.FileText.notes``,
    sentences in ``language``), kept as the job's ``report`` ``{"notes": [...]}`` until the job
    ends, then in its outcome (the report's ``notes``, or the refusal's). Returns the job
    (status "queued"; on the immediate backend, outside a transaction, the task has already
    run when this returns)."""
    with transaction.atomic():
        job = ImportJob.objects.create(
            tournament=tournament,
            requested_by=acting_user,
            kind=kind,
            file_name=file_name[:255],
            data=text,
            workbook=bytes(workbook),
            language=language or "",
            report={"notes": list(notes)} if notes else None,
        )
        job_id = job.pk
        transaction.on_commit(lambda: import_results_task.enqueue(job_id))
    return job


@task
def import_results_task(job_id: int) -> str:
    """Run import job ``job_id`` once: claim it (queued → running; a job already claimed, or
    gone with its tournament, is left alone), read its file (a workbook is parsed here,
    ``reading.open_file``, whose notes join the page's), import it as its requester (results,
    or castigos), in the language of the page that sent it, and record the outcome. Returns
    the job's final status ("done", "failed"), or "skipped".

    A refusal (``DomainError``: ``ImportRefused`` with its lines, a workbook's bounds, or any
    other) is a "failed" job with the refusal stored; an unexpected error too, with a sentence
    saying nothing was saved, and is raised again for the worker's log."""
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).update(
        status=ImportJob.Status.RUNNING, started_at=timezone.now()
    )
    if not claimed:
        return "skipped"
    job = ImportJob.objects.select_related("tournament", "requested_by").get(pk=job_id)
    with translation.override(job.language or settings.LANGUAGE_CODE):
        return _run(job)


def _run(job: ImportJob) -> str:
    t, user = job.tournament, job.requested_by
    notes = list((job.report or {}).get("notes", []))  # how the page read the file
    if user is None or not can_manage(user, t):
        _finish(job.pk, FAILED, refusal=_refusal(gettext(NOT_ALLOWED)), report=None)
        return FAILED
    was_draft = t.status == Tournament.Status.DRAFT
    tracker = progress.throttled(job.pk)
    try:
        data = job.data
        if job.workbook:  # parsed here, never in the request (bounded: reading._xlsx)
            source = reading.open_file(bytes(job.workbook))
            data, notes = source.text, notes + source.notes
        if job.kind == ImportJob.Kind.CASTIGOS:
            return _castigos(job, data, notes)
        with _readers_never_locked_out():
            report = imports.import_results(
                acting_user=user, tournament=t, data=data, progress=tracker
            )
    except DomainError as exc:
        errors = [[line, message] for line, message in (getattr(exc, "listed", None) or [])]
        summary = exc.summary if errors else exc.message
        extra = {"notes": notes} if notes else {}
        refusal = _refusal(summary, errors, **extra)
        _finish(job.pk, FAILED, refusal=refusal, report=None, counts=tracker)
        return FAILED
    except Exception:
        log.exception("import job %s failed", job.pk)
        refusal = _refusal(gettext(SERVER_ERROR))
        _finish(job.pk, FAILED, refusal=refusal, report=None, counts=tracker)
        raise
    else:
        published = (
            was_draft
            and Tournament.objects.filter(pk=t.pk).exclude(status=Tournament.Status.DRAFT).exists()
        )
        outcome = {**dataclasses.asdict(report), "published": published}
        outcome["notes"] = notes + outcome.get("notes", [])
        _finish(job.pk, DONE, report=outcome, counts=tracker)
        return DONE
    finally:  # after the outcome is recorded: the page never sees a running job lose its count
        progress.close()
        progress.discard(job.pk)


def _castigos(job: ImportJob, text: str, notes: list[str]) -> str:
    """Import castigos file ``text`` (read from the job's workbook) as ``job``'s requester and
    record the outcome: ``report`` ``{"created": n, "notes": [...], "warnings": [...]}`` (what
    the tournament page says after a castigos file imported in the request). A refusal is
    raised for ``_run`` to record."""
    warnings: list[str] = []
    created = imports.import_castigos(
        acting_user=job.requested_by,
        tournament=job.tournament,
        data=text,
        warnings=warnings,
        notes=notes,
    )
    _finish(job.pk, DONE, report={"created": created, "notes": notes, "warnings": warnings})
    return DONE


@contextmanager
def _readers_never_locked_out():
    """On SQLite, keep the import's changes in this connection's memory until its commit
    (``PRAGMA cache_spill = OFF``, restored after). By default SQLite writes a long
    transaction's pages to the file once its page cache is full, and to do so takes the
    database's EXCLUSIVE lock, after which no other connection may even read: the import page's
    polls (its session, its user, the job) would then wait for the end of the import — 40 s
    with the bar frozen, measured with 2560 games. The write lock (RESERVED) alone lets them
    read. Nothing to do on other databases."""
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_spill = OFF")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA cache_spill = ON")


def _refusal(summary: str, errors=(), **extra) -> dict:
    return {"summary": str(summary), "errors": [list(e) for e in errors], **extra}


def _finish(job_id: int, status: str, *, counts=None, **fields) -> None:
    """Record a job's end: its status, the outcome ``fields`` (report / refusal), the last
    counts of ``counts`` (a ``progress.Throttled``), the time; the file is dropped. Recorded
    whatever the job's status now (a job marked stopped whose worker did finish after all is
    done after all)."""
    if counts is not None:
        fields.update(done=counts.done, total=counts.total)
    ImportJob.objects.filter(pk=job_id).update(
        status=status, finished_at=timezone.now(), data="", workbook=b"", **fields
    )


def job_state(job: ImportJob, *, now: dt.datetime | None = None):
    """``(state, progress)`` of ``job`` as the page shows it: state "queued", "running",
    "stalled" (queued or running with no sign of life for ``STALL_SECONDS``), "done" or
    "failed"; ``progress`` the last ``progress.Progress`` reported while it runs (None before
    the first, and once it ended: the job's own ``done``/``total`` then)."""
    if job.finished:
        return job.status, None
    now = now or timezone.now()
    seen = progress.read(job.pk) if job.status == ImportJob.Status.RUNNING else None
    last = max(t for t in (job.created_at, job.started_at, seen and seen.at) if t is not None)
    if (now - last).total_seconds() > STALL_SECONDS:
        return STALLED, seen
    return job.status, seen


def retry_import(job: ImportJob, *, acting_user) -> ImportJob | None:
    """Run a stalled job's file again: the job is marked failed ("stopped, nothing saved, tried
    again", with the new job's id as ``refusal["retried_as"]``) and a new job with the same
    file is started for ``acting_user``. Returns the new job, or None when ``job`` is not
    stalled (it moved meanwhile, ended, or was retried already)."""
    if job_state(job)[0] != STALLED:
        return None
    with transaction.atomic():
        if not (job.data or job.workbook):
            return None
        retried = ImportJob.objects.filter(
            pk=job.pk, status__in=[ImportJob.Status.QUEUED, ImportJob.Status.RUNNING]
        ).update(status=ImportJob.Status.FAILED, finished_at=timezone.now(), data="", workbook=b"")
        if not retried:
            return None
        new = start_import(
            acting_user=acting_user,
            tournament=job.tournament,
            file_name=job.file_name,
            text=job.data,
            workbook=bytes(job.workbook),
            kind=job.kind,
            language=job.language,
            notes=(job.report or {}).get("notes", []),
        )
        ImportJob.objects.filter(pk=job.pk).update(
            refusal=_refusal(gettext(STOPPED), retried_as=new.pk), report=None
        )
    progress.discard(job.pk)
    return new


__all__ = [
    "DONE",
    "FAILED",
    "QUEUED",
    "RUNNING",
    "STALLED",
    "STALL_SECONDS",
    "import_results_task",
    "job_state",
    "retry_import",
    "start_import",
]
