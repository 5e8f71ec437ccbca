"""The ledger replay as a background task (Django's tasks framework, ``django.tasks``).

A change of the rated games writes a ``ReplayRequest`` in its own transaction
(``rankings.signals``) and, once that commits, ``enqueue_replay`` puts ``replay_ledger`` on
the queue: the director's request answers as soon as the result is saved, and the worker
(``manage.py db_worker``, django-tasks-db: the queue is a table of this same database)
replays the ledger a moment later. The task takes every waiting request at once, so many
saves make one replay from the earliest game they changed (SCORING.md §2).

Crash safety: the requests are deleted in the replay's own transaction. A worker killed
mid-replay rolls that transaction back: the ledger keeps its previous, consistent state and
the requests stay, so the replay runs again, on the next save or, when nothing else comes,
once the oldest request is older than ``STALE_AFTER`` and a ranking page is read
(``ensure_replay``). docs/scale-out.md tells how to run the same task on Celery or RQ.

The players' stories (``refresh_stories``) follow the same pattern: a change of a tournament's
games writes a ``StoryRequest`` per player concerned (``rankings.signals``) and enqueues the
task on commit; it stores each player's figures (``PlayerStory``).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from functools import wraps

from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Min
from django.tasks import TaskResultStatus, task
from django.utils import timezone

from clubsite import pagecache
from rankings import health, ledger, stories
from rankings.models import PlayerStory, ReplayRequest, StoryRequest

log = logging.getLogger(__name__)

#: Seconds the replay waits in the queue after the change that enqueued it (a queue that can
#: defer: django-tasks-db's), so that the saves of those seconds make one replay and the ranking
#: pages are renewed once for all of them, not once per save (docs/performance.md, "The
#: ranking under writes"); the pages say "updating since …" meanwhile. 0: at once.
REPLAY_DELAY = 5.0
#: The same for the players' stories (``refresh_stories``): a player whose results come in one
#: after another has their story computed once per ``STORY_DELAY`` seconds at most.
STORY_DELAY = 10.0

#: A replay waiting longer than this is taken for lost (its worker died): the next ranking
#: page read enqueues it again (at most once per ``STALE_AFTER``).
STALE_AFTER = dt.timedelta(seconds=60)
_RETRY_KEY = "rankings:replay:retry"


@task()
def replay_ledger() -> dict | None:
    """Replay the ledger for every waiting ``ReplayRequest`` (``ledger.replay_from`` with
    ``requests=True``). Returns a summary (``from_key``, ``deleted``, ``written``,
    ``skipped``: the number of games left out), or None when another replay had already taken
    the requests. A failed replay is recorded (the ranking "needs attention") and raises
    ``ledger.ReplayFailed``, which marks the task failed."""
    try:
        report = ledger.replay_from(None, requests=True) if _has_requests() else None
    finally:
        health.replay_ended()
    if report is None:
        return None
    return {
        "from_key": report.from_key,
        "deleted": report.deleted,
        "written": report.written,
        "skipped": len(report.skipped),
    }


def _has_requests() -> bool:

    return ReplayRequest.objects.exists()


def _waiting_in_database(waiting=None) -> bool:
    """Whether a ``waiting`` task (default ``replay_ledger``) already waits in
    django-tasks-db's queue (not yet claimed by a worker, due now or deferred: ``_deferred``):
    it will take every request committed before it starts, so another one is not needed.
    False on any other backend (each save enqueues; the extra tasks find nothing to do)."""
    waiting = waiting or replay_ledger
    try:
        from django_tasks_db.backend import DatabaseBackend
        from django_tasks_db.models import DBTaskResult
    except ImportError:  # another backend is installed instead
        return False
    backend = waiting.get_backend()
    if not isinstance(backend, DatabaseBackend):
        return False
    return DBTaskResult.objects.filter(
        status=TaskResultStatus.READY, task_path=waiting.module_path, backend_name=backend.alias
    ).exists()


def _deferred(waiting, seconds: float):
    """``waiting`` (a task) to run ``seconds`` from now when its backend can defer (the
    database queue: ``run_after``), else as it is (the immediate backend runs it at once)."""
    if seconds > 0 and waiting.get_backend().supports_defer:
        return waiting.using(run_after=timezone.now() + dt.timedelta(seconds=seconds))
    return waiting


def enqueue_replay() -> None:
    """Put ``replay_ledger`` on the queue unless one already waits there. Called on commit of
    a transaction that wrote a ``ReplayRequest``. Never raises: a queue that cannot be
    reached is logged and the request stays for the next save or ``ensure_replay``."""
    try:
        if _waiting_in_database():
            return
        _deferred(replay_ledger, REPLAY_DELAY).enqueue()
    except ledger.ReplayFailed:  # the immediate backend ran it and it failed: recorded
        log.exception("ledger replay failed")
    except Exception:
        log.exception("could not enqueue the ledger replay")


#: The players whose stories one run of ``refresh_stories`` computes at most.
STORIES_PER_RUN = 200


@task()
def refresh_stories() -> dict:
    """Compute again the stories of the players with a waiting ``StoryRequest`` (the oldest
    requests first, at most ``STORIES_PER_RUN`` players; enqueued again when more wait).
    For each player, in a transaction of its own that first takes the player's lock
    (``_lock_story``: two runs never refresh one player at once): ``r``, the largest id of
    their requests, read under the lock; the figures computed then (``stories.story_figures``:
    every change whose request is visible is in them) and stored over whatever row there is
    (a reader's lazy fill, an older run's: the runs of one player follow one another, so the
    last one stored read the newest games); the requests up to ``r`` deleted (one committed
    meanwhile, whatever its id, stays for the next run); the page-cache scopes
    (``stories.story_scope``) of the players stored drawn at the end, at once (also when a
    later player fails). Returns ``{"players": n, "more": bool}``."""
    waiting = list(
        StoryRequest.objects.values("player_id")
        .annotate(first=Min("id"))
        .order_by("first")
        .values_list("player_id", flat=True)[: STORIES_PER_RUN + 1]
    )
    stored = []
    try:
        for player_id in waiting[:STORIES_PER_RUN]:
            with transaction.atomic():
                _lock_story(player_id)
                last = (
                    StoryRequest.objects.filter(player_id=player_id)
                    .order_by("-id")
                    .values_list("id", flat=True)
                    .first()
                )
                if last is None:  # another run did it meanwhile
                    continue
                figures = stories.story_figures(player_id)
                PlayerStory.objects.bulk_create(
                    [PlayerStory(player_id=player_id, figures=figures, as_of=last)],
                    ignore_conflicts=True,
                )
                PlayerStory.objects.filter(player_id=player_id).update(
                    figures=figures, as_of=last, computed_at=timezone.now()
                )
                StoryRequest.objects.filter(player_id=player_id, id__lte=last).delete()
            stored.append(stories.story_scope(player_id))
    finally:  # the committed players' pages, in one draw
        if stored:
            pagecache.changed(*stored)
    more = len(waiting) > STORIES_PER_RUN
    if more:
        enqueue_stories(delay=0)
    return {"players": len(waiting[:STORIES_PER_RUN]), "more": more}


#: The first key of the stories' advisory locks (PostgreSQL), the player's id the second.
STORY_LOCK = 7301


def _lock_story(player_id: int) -> None:
    """Hold player ``player_id``'s story lock until the transaction ends: a transaction-level
    advisory lock on PostgreSQL (``STORY_LOCK``, the id folded into 31 bits: two players that
    share a key only wait for each other); SQLite writes one transaction at a time already."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(%s, %s)", [STORY_LOCK, player_id % 2147483647]
            )


def enqueue_stories(delay: float | None = None) -> None:
    """Put ``refresh_stories`` on the queue, to run ``delay`` seconds from now (default
    ``STORY_DELAY``), unless one already waits there. Called on commit of a transaction that
    wrote a ``StoryRequest``. Never raises: a queue that cannot be reached is logged and the
    requests stay for the next change (meanwhile the page shows the stored story,
    "updating")."""
    try:
        if _waiting_in_database(refresh_stories):
            return
        _deferred(refresh_stories, STORY_DELAY if delay is None else delay).enqueue()
    except Exception:
        log.exception("could not enqueue the stories' refresh")


def ensure_replay(pending) -> None:
    """Enqueue the replay again when the oldest waiting change (``health.pending()``) is older
    than ``STALE_AFTER``: its worker was stopped or killed. At most once per ``STALE_AFTER``
    across every app server (an ``add`` in the shared cache)."""
    if pending is None or timezone.now() - pending.since < STALE_AFTER:
        return
    try:
        if not cache.add(_RETRY_KEY, 1, int(STALE_AFTER.total_seconds())):
            return
    except Exception:
        log.exception("cache unavailable: the stale replay is enqueued anyway")
    enqueue_replay()


def pending():
    """``health.pending()`` (the change waiting for its replay, or None), re-enqueuing a replay
    that waits too long (``ensure_replay``): what the ranking pages show."""

    waiting = health.pending()
    ensure_replay(waiting)
    return waiting


#: Seconds between two looks for a stale replay by one process (``watches_replay``).
CHECK_EVERY = 30.0
_checked_at = 0.0
_check_lock = threading.Lock()


def watches_replay(view):
    """Decorator for the ranking pages (ranking, player pages, home), outside the page cache:
    at most once per ``CHECK_EVERY`` seconds in each process, look for a replay that waits too
    long and enqueue it again (``pending``), even when the page itself comes from the cache
    (a cached page runs no view code). The only state is this process's time of its last look;
    the decision is the shared database's and cache's (``ensure_replay``)."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        global _checked_at
        now = time.monotonic()
        with _check_lock:
            due = now - _checked_at >= CHECK_EVERY
            if due:
                _checked_at = now
        if due:
            try:
                pending()
            except Exception:  # never in the reader's way
                log.exception("could not look for a stale ledger replay")
        return view(request, *args, **kwargs)

    return wrapper
