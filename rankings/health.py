"""Ranking health: whether the ledger is current, and why not (SCORING.md §2, "Health").

One ``LedgerStatus`` row says it. ``rankings.ledger.replay_from`` is the only writer:

- a replay that applied every rated game from its start on makes the ledger current
  (``record_replay`` with no problems);
- a replay that had to skip a game it cannot rate (a bad row: an impossible date, a table
  whose sides cannot be rated) writes the rest and marks "needs attention", listing the
  games (``record_replay`` with problems), in the replay's own transaction;
- a replay that failed (its transaction rolled back: the ledger still shows the ratings from
  before the change) marks "needs attention" with the error, in a transaction of its own
  (``record_failure``), so the mark stays although the replay's work did not.

While the ledger needs attention, every replay starts at the earliest game it may be wrong
from (``replay_start``), so the next one that succeeds covers the failed range and makes the
ledger current again; a full rebuild always does. The public ranking pages ask
``attention()`` and show a notice instead of figures; directors see the causes in a banner
(``rankings.context_processors``).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Min
from django.utils import timezone

from clubsite import pagecache
from rankings.models import LedgerStatus, ReplayRequest

log = logging.getLogger(__name__)

#: At most this many causes are kept; the rest are counted ("ledger_more_problems").
MAX_PROBLEMS = 20


def pages_changed() -> None:
    """The ranking pages (ranking, player pages, the home page's top ten) show something new
    once the current transaction commits: their page-cache scope gets a new generation
    (``clubsite.pagecache``); tournaments' pages keep theirs."""
    pagecache.changed(pagecache.RANKING)


def pending_published() -> None:
    """Call once a ``ReplayRequest`` committed: the ranking pages served from the page cache say
    "updating since …" from now on (``pending()`` kept as the ``RANKING`` notice's state,
    ``rankings.apps``), without a new generation: their figures change when the replay
    commits (``pages_changed`` in its transaction), not before. Two queries."""
    pagecache.set_notice(pagecache.RANKING, notice_state())


def notice_state() -> Pending | None:
    """``pending()`` as the ranking pages' notice shows it (``since``, ``current_at``; ``count``
    0, not shown): the ``RANKING`` notice's state (``rankings.apps``), so another save that
    waits too changes neither the notice nor the pages' ETags. Two queries at most."""
    waiting = pending()
    return None if waiting is None else Pending(waiting.since, waiting.current_at, 0)


def replay_ended() -> None:
    """Call after a background replay returned (committed, found nothing, or failed): the page
    cache asks ``notice_state()`` again for the ranking pages' notice (a replay that wrote
    nothing draws no new generation, which would have made it ask). Two queries."""
    pagecache.renew_notice(pagecache.RANKING)


def mark_replayed() -> None:
    """Record, in the replay's transaction, that the ledger was replayed now
    (``LedgerStatus.replayed_at``: the ranking was current at that moment)."""
    now = timezone.now()
    if not LedgerStatus.objects.filter(pk=1).update(replayed_at=now):
        LedgerStatus.objects.create(pk=1, replayed_at=now)


@dataclass(frozen=True)
class Pending:
    """A change waiting for its replay: ``since`` the oldest waiting change; ``current_at``
    when the ranking was last current (the last replay), None if never."""

    since: dt.datetime
    current_at: dt.datetime | None
    count: int


def pending() -> Pending | None:
    """The changes waiting for the background replay (``ReplayRequest`` rows), or None when
    the ranking is up to date with every saved game. Two queries at most (one when nothing
    waits)."""

    waiting = ReplayRequest.objects.aggregate(since=Min("created_at"), count=Count("pk"))
    if not waiting["count"]:
        return None
    current_at = LedgerStatus.objects.filter(pk=1).values_list("replayed_at", flat=True).first()
    return Pending(since=waiting["since"], current_at=current_at, count=waiting["count"])


def get() -> LedgerStatus | None:
    """The stored status, or None when there is none (the ledger has always been current).
    One query."""
    return LedgerStatus.objects.filter(pk=1).first()


def attention() -> LedgerStatus | None:
    """The status when the ledger needs attention, else None. One query (the public pages and
    the directors' banner ask it)."""
    status = get()
    return status if status is not None and not status.is_current else None


def is_current() -> bool:
    """Whether the ledger is current (no status row, or its state "current"). One query."""
    return attention() is None


def replay_start(key: str | None, status: LedgerStatus | None) -> str | None:
    """Where a replay asked to start at ``key`` (None: the first game) must start, given the
    ``status`` read with the replay's lock held (``get()``): at the status's ``from_key`` when
    the ledger needs attention from an earlier game (None for "from the first game"), else
    ``key``."""
    if status is None or status.is_current:
        return key
    if not status.from_key or key is None:
        return None
    return min(key, status.from_key)


def _merge(old: list[dict], new: list[dict]) -> list[dict]:
    """``old`` then ``new`` without repeats, at most ``MAX_PROBLEMS`` (the rest counted)."""
    merged: list[dict] = []
    more = 0
    for problem in [*old, *new]:
        if problem.get("code") == "ledger_more_problems":
            more += int((problem.get("params") or {}).get("count", 0))
        elif problem not in merged:
            merged.append(problem)
    return _capped(merged, more)


def _capped(problems: list[dict], more: int = 0) -> list[dict]:
    extra = max(0, len(problems) - MAX_PROBLEMS) + more
    kept = problems[:MAX_PROBLEMS]
    if extra:
        kept.append({"code": "ledger_more_problems", "params": {"count": extra}})
    return kept


def _locked() -> LedgerStatus | None:
    return LedgerStatus.objects.select_for_update().filter(pk=1).first()


def record_replay(start: str | None, problems: list[dict]) -> None:
    """Record a replay that ran from ``start`` (None: the first game) to the end, skipping
    the games in ``problems`` (``[{"code", "params"}]``, as ``LedgerStatus.problems``).

    Call it inside the replay's transaction (``replay_from`` skips it for a clean replay of a
    ledger that was current when it began: nothing would change). No problems: the ledger is
    current, unless it needs attention from a game before ``start`` (the replay did not cover
    it; then it keeps its causes). Problems: "needs attention" from ``start``, with these
    causes. Writes only when something changes."""
    start_key = start or ""
    status = _locked()
    if status is not None and not status.is_current and start_key > status.from_key:
        if problems:  # the earlier range is still uncovered: keep it and add these causes
            status.problems = _merge(status.problems, problems)
            status.save()
            pages_changed()
        return
    if not problems:
        if status is None or status.is_current:
            return
        status.state = LedgerStatus.State.CURRENT
        status.since = None
        status.from_key = ""
        status.problems = []
    else:
        if status is None:
            status = LedgerStatus(pk=1)
        if status.is_current:
            status.since = timezone.now()
        status.state = LedgerStatus.State.ATTENTION
        status.from_key = start_key
        status.problems = _capped(list(problems))
    status.save()
    pages_changed()


def record_failure(start: str | None, error: BaseException, *, request_ids=()) -> None:
    """Record that a replay from ``start`` (None: the first game) failed with ``error``: "needs
    attention" from ``start`` (or from the earlier game it already needed attention from),
    the error added to the causes. Runs in a transaction of its own (call it once the replay's
    transaction has rolled back). ``request_ids``: the ``ReplayRequest`` rows that replay took
    up, deleted in the same transaction (the status now carries their range). Never raises: a
    status that cannot be written is logged."""
    cause = {
        "code": "ledger_replay_failed",
        "params": {"error": f"{type(error).__name__}: {error}"[:300]},
    }
    try:
        with transaction.atomic():
            status = _locked()
            if status is None:
                status = LedgerStatus(pk=1)
            start_key = start or ""
            if status.is_current:
                status.since = timezone.now()
                status.from_key = start_key
                status.problems = [cause]
            else:
                status.from_key = min(status.from_key, start_key)
                status.problems = _merge(status.problems, [cause])
            status.state = LedgerStatus.State.ATTENTION
            status.save()
            if request_ids:
                ReplayRequest.objects.filter(pk__in=list(request_ids)).delete()
            pages_changed()
    except Exception:
        log.exception("could not record the ledger's status after a failed replay")
