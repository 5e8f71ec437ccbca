"""Keep the ledger consistent: any change to results, seats, tables, rounds or a tournament's
rating settings schedules one replay after the transaction commits (SCORING.md §2: "a
correction or deletion of a game replays the ledger from that game on").

Whatever the path of the change (result page, CSV import, Django admin, shell), the model
signals below see it; the replay itself runs once per committed transaction, from the
earliest game touched. Publishing a draft or taking a tournament back to draft is such a
change: a draft's games are unrated (``ledger._rated_results_filter``).

A replay that fails is never silent: ``ledger.replay_from`` records it (the ranking "needs
attention", ``rankings.health``) before it raises, and the next replay starts early enough
to cover it.
"""

from __future__ import annotations

import logging
import threading

from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_delete, pre_save
from django.dispatch import receiver

from rankings import health, ledger
from rankings.models import LedgerRow
from tournaments.models import Result, Round, Seat, Table, Tournament

log = logging.getLogger(__name__)
# Scale-out (docs/scale-out.md): with clubsite.routers' per-request flag, the only module-level
# mutable state in the site, and safe with any number of app servers: a thread-local set of
# the tables/keys touched by the transaction running in this thread, emptied by the on_commit
# hook of that same transaction. It is per thread (per request), never shared between requests
# running at once, threads or processes; what a rolled-back transaction left there only widens
# the next replay in the same thread, which is harmless (a replay from any key equals a rebuild).
# The replay itself is serialised across servers by the database (ledger.ADVISORY_LOCK_ID).
_pending = threading.local()

#: The tournament fields a replay depends on; of ``status`` only whether it is a draft counts.
RATING_FIELDS = ("system", "rated", "forfeits_rated", "date", "status")


def _rating_values(values) -> tuple:
    """The values of ``RATING_FIELDS`` as the ledger sees them (a dict or a Tournament)."""
    get = values.get if isinstance(values, dict) else lambda f: getattr(values, f)
    return tuple(
        get(f) == Tournament.Status.DRAFT if f == "status" else get(f) for f in RATING_FIELDS
    )


def _bucket() -> dict:
    if not hasattr(_pending, "data"):
        _pending.data = {"tables": set(), "keys": set()}
    return _pending.data


def schedule(*, table_ids=(), key: str | None = None) -> None:
    """Ask for a replay covering ``table_ids`` (and/or from ``key``) once the transaction commits."""
    data = _bucket()
    data["tables"].update(table_ids)
    if key:
        data["keys"].add(key)
    transaction.on_commit(run_pending)


def run_pending() -> None:
    """Run the one replay that the pending changes need (the first commit hook does it all)."""
    data = _bucket()
    if not data["tables"] and not data["keys"]:
        return
    tables, keys = set(data["tables"]), set(data["keys"])
    data["tables"].clear()
    data["keys"].clear()
    start = None
    try:
        candidates = list(keys)
        start = ledger.earliest_key_for_tables(tables)
        if start is not None:
            candidates.append(start)  # "" (a malformed stored key): from the first game
        if candidates:
            start = min(candidates)
            ledger.replay_from(start or None)
    except ledger.ReplayFailed:  # recorded by the replay: the ranking "needs attention"
        log.exception("ledger replay failed")
    except Exception as exc:  # failed before the replay began: record it the same way
        log.exception("ledger replay failed")
        health.record_failure(start or None, exc)


def _min_key(qs) -> str | None:
    return qs.order_by("order_key").values_list("order_key", flat=True).first()


@receiver(post_save, sender=Result)
@receiver(post_delete, sender=Result)
@receiver(post_save, sender=Seat)
@receiver(post_delete, sender=Seat)
def _result_or_seat_changed(sender, instance, **kwargs):
    schedule(table_ids=[instance.table_id])


@receiver(pre_delete, sender=Table)
def _table_deleted(sender, instance, **kwargs):
    schedule(key=_min_key(LedgerRow.objects.filter(table_id=instance.pk)))


@receiver(pre_delete, sender=Round)
def _round_deleted(sender, instance, **kwargs):
    schedule(key=_min_key(LedgerRow.objects.filter(table__round_id=instance.pk)))


@receiver(pre_delete, sender=Tournament)
def _tournament_deleted(sender, instance, **kwargs):
    schedule(key=_min_key(LedgerRow.objects.filter(tournament_id=instance.pk)))


@receiver(pre_save, sender=Tournament)
def _tournament_before(sender, instance, **kwargs):
    if instance.pk:
        old = Tournament.objects.filter(pk=instance.pk).values(*RATING_FIELDS).first()
        instance._rating_fields_before = old


@receiver(post_save, sender=Tournament)
def _tournament_saved(sender, instance, created, **kwargs):
    old = getattr(instance, "_rating_fields_before", None)
    if created or old is None:
        return
    if _rating_values(old) != _rating_values(instance):
        schedule(
            table_ids=Table.objects.filter(round__tournament=instance).values_list("pk", flat=True),
        )
