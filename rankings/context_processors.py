"""Template context for every page: the ranking's health for directors and whether a change
waits for its replay (``rankings.health``)."""

from __future__ import annotations

from functools import partial

from django.template.loader import render_to_string

from clubsite import pagecache
from rankings import health, tasks
from tournaments.permissions import can_enter_manage_area


def ledger_health(request) -> dict:
    """``ledger_attention``: a callable giving the ranking's ``LedgerStatus`` while it needs
    attention, for staff users and directors (the banner of ``rankings/_ledger_banner.html``
    on the directors' pages and the admin); None for everyone else or when the ranking is
    current. A callable, so the query runs only where a template asks (one query; none for
    anonymous readers)."""
    user = getattr(request, "user", None)

    def attention():
        if user is None or not user.is_authenticated or not user.is_active:
            return None
        if not (user.is_staff or user.is_superuser or can_enter_manage_area(user)):
            return None

        return health.attention()

    return {
        "ledger_attention": attention,
        "ledger_pending": _pending,
        "ledger_pending_marker": partial(pagecache.notice_marker, request, pagecache.RANKING),
    }


def _pending():
    """``ledger_pending``: the change waiting for the background replay (``health.Pending``:
    since when, and when the ranking was last current), or None; a replay that waits too long
    (its worker stopped) is enqueued again (``tasks.ensure_replay``). Shown to everyone on the
    ranking pages (``rankings/_ledger_pending.html``)."""

    return tasks.pending()


def pending_notice(state) -> str:
    """The "updating since …" notice of the ranking pages for ``state``, as the page cache puts
    it into a stored page when it serves it (``pagecache.register_notice``, ``rankings.apps``):
    ``state`` a ``health.Pending``, or ``pagecache.Stale`` for an earlier page served while the
    current one is computed (updating since the waiting change, else since that page was
    computed; its figures of that time); "" for None."""
    if isinstance(state, pagecache.Stale):
        since = state.state.since if state.state is not None else state.stored_at
        state = health.Pending(since=since, current_at=state.stored_at, count=0)
    if state is None:
        return ""
    return render_to_string("rankings/_ledger_pending.html", {"ledger_pending": state})
