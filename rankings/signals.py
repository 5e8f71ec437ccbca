"""Keep the ledger consistent: any change to results, seats, tables, rounds or a tournament's
rating settings asks for a replay (SCORING.md §2: "a correction or deletion of a game replays
the ledger from that game on").

Whatever the path of the change (result page, CSV import, Django admin, shell), the model
signals below see it and write a ``ReplayRequest`` in the same transaction; once it commits,
the replay task is enqueued (``rankings.tasks``) and the background worker replays the
ledger from the earliest game any waiting request names: many saves, one replay. The
request that changed the games never waits for the replay. Publishing a draft or taking a
tournament back to draft is such a change: a draft's games are unrated
(``ledger._rated_results_filter``).

A replay that fails is never silent: ``ledger.replay_from`` records it (the ranking "needs
attention", ``rankings.health``) before it raises, and the next replay starts early enough
to cover it.
"""

from __future__ import annotations

import logging
import threading

from django.db import connection
from django.db.models.signals import post_delete, post_save, pre_delete, pre_save
from django.dispatch import receiver
from django.utils import timezone

from clubsite.aftercommit import Collector, collector
from rankings import health, tasks
from rankings.models import LedgerRow, PlayerStory, ReplayRequest, StoryRequest
from tournaments import events, systems
from tournaments.models import Entry, Player, Result, Round, Seat, Table, Tournament

log = logging.getLogger(__name__)
# Scale-out (docs/scale-out.md): the only module-level mutable state here is a thread-local
# flag and set used while a batch (``tournaments.events.batched``, the CSV imports) runs in
# this thread; it never outlives the ``with`` block. The requests themselves are rows (``ReplayRequest``) written in
# the changing transaction; the replay runs in the background worker (``rankings.tasks``).
_batch = threading.local()

#: The tournament fields a replay depends on; of ``status`` only whether it is a draft counts.
RATING_FIELDS = ("system", "rated", "forfeits_rated", "date", "status")


def _rating_values(values) -> tuple:
    """The values of ``RATING_FIELDS`` as the ledger sees them (a dict or a Tournament)."""
    get = values.get if isinstance(values, dict) else lambda f: getattr(values, f)
    return tuple(
        get(f) == Tournament.Status.DRAFT if f == "status" else get(f) for f in RATING_FIELDS
    )


def schedule(*, table_ids=(), key: str | None = None) -> None:
    """Ask for a replay covering ``table_ids`` (and/or from game ``key``): a ``ReplayRequest``
    written in the current transaction (it commits with the change, or not at all), and the
    replay task enqueued once the transaction commits (``rankings.tasks.enqueue_replay``).
    Inside ``tournaments.events.batched()`` the request is gathered and written once when the
    batch ends."""
    table_ids = list(table_ids)
    if not table_ids and key is None:
        return
    data = getattr(_batch, "data", None)
    if data is not None:
        data["tables"].update(table_ids)
        if key is not None:
            data["keys"].add(key)
        return
    _request(table_ids, {key} if key is not None else set())


class _Requested(Collector):
    """What one transaction level requested (``clubsite.aftercommit``, one per savepoint
    level): the tables and keys already written as requests, so a transaction that saves a
    table's result and its four seats writes one request, not five; once it commits, the
    replay is enqueued. A savepoint that rolls back drops its collector with its rows, so what
    is remembered never outlives what was written."""

    def __init__(self):
        self.tables: set[int] = set()
        self.keys: set[str] = set()

    def run(self) -> None:
        _requested()


def _requested() -> None:
    """A ``ReplayRequest`` committed: the ranking pages say "updating since …" from now on
    (``health.pending_published``: their stored pages are kept, the replay's commit renews
    them), and the replay is enqueued."""
    health.pending_published()
    tasks.enqueue_replay()


def _request(table_ids, keys: set) -> None:
    """Write one ``ReplayRequest`` for what this transaction level has not requested yet, and
    enqueue the replay on commit (at once outside a transaction)."""
    level = collector(_Requested, per_savepoint=True)
    tables = set(table_ids) - (level.tables if level else set())
    keys = set(keys) - (level.keys if level else set())
    if not tables and not keys:
        return
    ReplayRequest.objects.create(from_key=min(keys) if keys else None, table_ids=sorted(tables))
    if level is None:  # outside a transaction: the request is committed already
        _requested()
        return
    level.tables |= tables
    level.keys |= keys


@receiver(events.batch_started)
def _batch_started(sender, **kwargs):
    """A long write (a CSV import) began: gather its replay requests (``schedule``)."""
    _batch.data = {"tables": set(), "keys": set()}


@receiver(events.batch_finished)
def _batch_finished(sender, ok, **kwargs):
    """The long write ended: write ONE request for all it touched, inside its transaction;
    nothing when it failed."""
    data = getattr(_batch, "data", None)
    _batch.data = None
    if ok and data is not None and (data["tables"] or data["keys"]):
        _request(data["tables"], data["keys"])


def _min_key(qs) -> str | None:
    return qs.order_by("order_key").values_list("order_key", flat=True).first()


@receiver(post_save, sender=Result)
@receiver(post_delete, sender=Result)
@receiver(post_save, sender=Seat)
@receiver(post_delete, sender=Seat)
def _result_or_seat_changed(sender, instance, **kwargs):
    if _never_rated(instance):
        return
    schedule(table_ids=[instance.table_id])


def _never_rated(instance) -> bool:
    """Whether the result's or seat's tournament cannot have rated games now: a draft, not
    rated, or a system that is never rated (``ScoringSystem.rated``). Its tables have no ledger
    rows (a change of those settings asked for its own replay of every table), so no replay is
    needed, and the ranking pages keep their cache. The tournament is read from the relations
    the services already loaded, else by one query."""
    tournament = None
    table = instance._state.fields_cache.get("table")
    if table is not None:
        rnd = table._state.fields_cache.get("round")
        if rnd is not None:
            tournament = rnd._state.fields_cache.get("tournament")
    if tournament is not None:
        values = (tournament.system, tournament.rated, tournament.status)
    else:
        values = (
            Tournament.objects.filter(rounds__tables=instance.table_id)
            .values_list("system", "rated", "status")
            .first()
        )
        if values is None:
            return False
    system, rated, status = values
    rated_systems = {s.key for s in systems.all_systems() if s.rated}
    return system not in rated_systems or not rated or status == Tournament.Status.DRAFT


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


# --- the players' stories (rankings.stories, rankings.tasks.refresh_stories) ------------------


class _StoriesRequested(Collector):
    """A transaction wrote ``StoryRequest`` rows: once it commits, the refresh is enqueued
    (once per transaction)."""

    def run(self) -> None:
        tasks.enqueue_stories()


def request_stories(player_ids=(), *, tournament_ids=(), table_ids=()) -> None:
    """Ask for the stories of ``player_ids``, of every player with an entry in
    ``tournament_ids`` and of every player seated at ``table_ids`` to be computed again:
    ``StoryRequest`` rows written in the current transaction (one ``INSERT … SELECT`` per
    tournament, from its entries' player 1 and player 2; one for the tables, from their
    seats' entries; one insert for ``player_ids``), and ``tasks.refresh_stories`` enqueued
    once it commits (at once outside a transaction)."""
    players = sorted({pk for pk in player_ids if pk is not None})
    if players:
        StoryRequest.objects.bulk_create([StoryRequest(player_id=pk) for pk in players])
    table, entries, seats = (
        connection.ops.quote_name(m._meta.db_table) for m in (StoryRequest, Entry, Seat)
    )
    now = timezone.now()
    with connection.cursor() as cursor:
        for pk in tournament_ids:
            cursor.execute(
                f"INSERT INTO {table} (player_id, created_at) "
                f"SELECT player1_id, %s FROM {entries} WHERE tournament_id = %s "
                f"UNION SELECT player2_id, %s FROM {entries} "
                f"WHERE tournament_id = %s AND player2_id IS NOT NULL",
                [now, pk, now, pk],
            )
        tables = sorted(set(table_ids))
        if tables:
            marks = ", ".join(["%s"] * len(tables))
            cursor.execute(
                f"INSERT INTO {table} (player_id, created_at) "
                f"SELECT e.player1_id, %s FROM {seats} s JOIN {entries} e ON e.id = s.entry_id "
                f"WHERE s.table_id IN ({marks}) "
                f"UNION SELECT e.player2_id, %s FROM {seats} s JOIN {entries} e "
                f"ON e.id = s.entry_id WHERE s.table_id IN ({marks}) "
                f"AND e.player2_id IS NOT NULL",
                [now, *tables, now, *tables],
            )
    if not players and not tournament_ids and not table_ids:
        return
    if collector(_StoriesRequested) is None:
        tasks.enqueue_stories()


@receiver(events.games_changed)
def _games_changed(sender, tournament_ids, table_ids=None, **kwargs):
    """A tournament's games may have changed (``tournaments.services.places``, once per
    tournament, or table, and transaction level): the stories of its players are asked for,
    of the table's players only when only a result changed (``table_ids``)."""
    if table_ids:
        request_stories(table_ids=table_ids)
    else:
        request_stories(tournament_ids=tournament_ids)


@receiver(pre_delete, sender=Tournament, dispatch_uid="rankings.stories:tournament_deleted")
def _tournament_deleted_stories(sender, instance, **kwargs):
    """A tournament about to be deleted: its players' stories are asked for while its entries
    still exist."""
    request_stories(tournament_ids=[instance.pk])


@receiver(pre_save, sender=Entry)
def _entry_players_before(sender, instance, raw=False, **kwargs):
    """An entry whose players change: the old players' stories are asked for too (the new
    ones are its tournament's players, ``_games_changed``). One query, only for an entry
    already stored."""
    if raw or instance.pk is None:
        return
    old = Entry.objects.filter(pk=instance.pk).values_list("player1_id", "player2_id").first()
    if old is None:
        return
    gone = set(old) - {instance.player1_id, instance.player2_id}
    request_stories(gone)


@receiver(pre_save, sender=Player)
def _player_renamed(sender, instance, raw=False, **kwargs):
    """A player renamed: every stored story is deleted (the stored names order the partners
    and rivals, ``stories._ranked``; the names shown are read when the page is), and the
    readers store them again. Rare. One query, only for a player already stored."""
    if raw or instance.pk is None:
        return
    old = Player.objects.filter(pk=instance.pk).values_list("full_name", flat=True).first()
    if old is not None and old != instance.full_name:
        PlayerStory.objects.all().delete()
