"""Template context for every page: the ranking's health for directors and whether a change
waits for its replay (``rankings.health``)."""

from __future__ import annotations

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

    return {"ledger_attention": attention, "ledger_pending": _pending}


def _pending():
    """``ledger_pending``: the change waiting for the background replay (``health.Pending``:
    since when, and when the ranking was last current), or None; a replay that waits too long
    (its worker stopped) is enqueued again (``tasks.ensure_replay``). Shown to everyone on the
    ranking pages (``rankings/_ledger_pending.html``)."""

    return tasks.pending()
