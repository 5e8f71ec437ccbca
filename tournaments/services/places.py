"""Keep the stored final places (``FinalPlace``) equal to the computed ones
(``Tournament.final_places``, SCORING.md §9), whatever the path of a change: the services,
the Django admin, an import, the shell. The model signals of everything a tournament's final
places depend on (its results of every system, seats, tables, rounds, byes, entries,
castigos, sorteos, and the tournament's own settings and status) land here; ``connect_signals``
is called by the app's ``ready()``.

- A change in a **finished** tournament deletes its rows inside the changing transaction (so
  no reader, nor a page cached under the generation that commit draws, ever sees places older
  than the data) and stores them again once it commits (``FinalPlace.objects.store``); a
  reader that comes in between finds none and stores them itself (``models.stored_places``,
  ``rankings.stories.podiums``).
- A tournament that **finishes** (the lifecycle's ``finish`` and ``publish_finished``, the
  settings form, the admin) has its rows stored once the step commits.
- A tournament **reopened or taken back to draft** has its rows removed once that commits
  (the readers only read finished tournaments' rows meanwhile).

Each transaction gathers its tournaments (``clubsite.aftercommit``): an import of a thousand
tables in a finished tournament deletes its rows once and stores them once.

The same signals tell whoever listens that a tournament's games may have changed, in any
status (``events.games_changed``, sent at once inside the transaction, once per tournament
and transaction level; a result of any system once per table, naming its table: only that
table's players' games changed): the players' stories (``rankings.signals``) ask for their
refresh. Which tournament
a row belongs to is read from the relations the services already loaded (``lock_table``,
``lock_round``), else by one query per table, round or tournament and transaction.
"""

from __future__ import annotations

from django.db.models.signals import post_delete, post_save

from clubsite.aftercommit import Collector, collector
from tournaments import events, systems
from tournaments.models import (
    Bye,
    Castigo,
    Entry,
    FinalPlace,
    Round,
    Seat,
    Sorteo,
    Table,
    Tournament,
)

FINISHED = Tournament.Status.FINISHED
#: The result models of the registered systems (``connect_signals``): a change of one is
#: announced for its table alone (``_announce``), as is a table's own row.
_PER_TABLE: set[type] = set()


class _Touched(Collector):
    """The tournaments one transaction changed (``clubsite.aftercommit``): ``refresh``, the
    finished ones to store again after the commit; ``drop``, those saved in a status other
    than finished (reopened, back to draft: their rows are removed); ``cleared``, the
    finished ones whose rows this transaction deleted already; ``known``, the tournament
    (id, status) of each table, round or tournament looked up."""

    def __init__(self):
        self.refresh: set[int] = set()
        self.drop: set[int] = set()
        self.cleared: set[int] = set()
        self.known: dict[tuple[str, int], tuple[int, str] | None] = {}

    def run(self) -> None:
        _after_commit(self.refresh, self.drop)


def _after_commit(refresh: set[int], drop: set[int]) -> None:
    """Remove the rows of the tournaments of ``refresh`` and ``drop`` that are not finished
    now, and store those of ``refresh`` that are."""
    if refresh | drop:
        FinalPlace.objects.filter(tournament_id__in=refresh | drop).exclude(
            tournament__status=FINISHED
        ).delete()
    if refresh:
        FinalPlace.objects.store(refresh)


class _Announced(Collector):
    """What one transaction level announced (``events.games_changed``) already: ``sent``, the
    tournaments announced whole; ``tables``, the tables announced alone (a result saved). One
    per savepoint level: what the listeners wrote is rows of that level, so a savepoint that
    rolls back forgets its announcements with them."""

    def __init__(self):
        self.sent: set[int] = set()
        self.tables: set[int] = set()

    def run(self) -> None:
        pass


def _announce(pk: int, table_id: int | None = None) -> None:
    """Send ``events.games_changed`` for tournament ``pk`` (for its table ``table_id`` alone
    when given: only that table's games changed) unless this transaction level announced the
    tournament, or that table, already (at once outside a transaction)."""
    level = collector(_Announced, per_savepoint=True)
    if level is not None:
        if pk in level.sent or (table_id is not None and table_id in level.tables):
            return
        if table_id is None:
            level.sent.add(pk)
        else:
            level.tables.add(table_id)
    events.games_changed.send(
        sender=Tournament,
        tournament_ids=[pk],
        table_ids=None if table_id is None else [table_id],
    )


def _cached(instance, name):
    return instance._state.fields_cache.get(name) if instance is not None else None


def _lookup(touched: _Touched | None, kind: str, pk: int | None) -> tuple[int, str] | None:
    """The (id, status) of the tournament of table, round or tournament ``pk`` (``kind``):
    one query, once per transaction."""
    if pk is None:
        return None
    key = (kind, pk)
    if touched is not None and key in touched.known:
        return touched.known[key]
    lookup = {"table": "rounds__tables", "round": "rounds", "tournament": "pk"}[kind]
    found = Tournament.objects.filter(**{lookup: pk}).values_list("pk", "status").first()
    if touched is not None:
        touched.known[key] = found
    return found


def _tournament_of(instance, touched: _Touched | None) -> tuple[int, str] | None:
    """The (id, status) of ``instance``'s tournament, from its loaded relations when they are
    there, else ``_lookup``."""
    if isinstance(instance, Tournament):
        return instance.pk, instance.status
    t = _cached(instance, "tournament")
    if t is not None:
        return t.pk, t.status
    if hasattr(instance, "tournament_id"):
        return _lookup(touched, "tournament", instance.tournament_id)
    rnd = _cached(instance, "round")
    if rnd is None:
        table = _cached(instance, "table")
        rnd = _cached(table, "round")
        if rnd is None:
            if hasattr(instance, "round_id"):
                return _lookup(touched, "round", instance.round_id)
            return _lookup(touched, "table", instance.table_id)
    t = _cached(rnd, "tournament")
    if t is not None:
        return t.pk, t.status
    return _lookup(touched, "tournament", rnd.tournament_id)


def _changed(sender, instance, **kwargs) -> None:
    """A row a tournament's final places depend on was saved or deleted (its tournament's
    games announced, ``_announce``, in any status)."""
    if kwargs.get("raw"):  # loaddata: no relation may be read yet
        return
    touched = collector(_Touched)
    found = _tournament_of(instance, touched)
    if found is None:
        return
    pk, status = found
    # a result (of any system), or a table's own row (its version, its number: the seats say
    # who plays there), is that table's games alone; anything else may move players
    if isinstance(instance, Table):
        _announce(pk, instance.pk)
    else:
        _announce(pk, instance.table_id if sender in _PER_TABLE else None)
    if status != FINISHED:
        return
    if touched is None:  # outside a transaction: at once
        FinalPlace.objects.store([pk])
        return
    if pk not in touched.cleared:
        FinalPlace.objects.filter(tournament_id=pk).delete()
        touched.cleared.add(pk)
    touched.refresh.add(pk)


def _tournament_saved(sender, instance, created, raw=False, **kwargs) -> None:
    """A tournament saved (announced, ``_announce``, in any status): finished, its rows are deleted and stored again after the commit
    (it has just finished, or a setting the standings read may have changed); reopened or
    back to draft, they are removed after the commit."""
    if raw or created:
        return
    if instance.status == FINISHED:
        _changed(sender, instance)
        return
    _announce(instance.pk)
    if instance.status not in (Tournament.Status.RUNNING, Tournament.Status.DRAFT):
        return  # only reopen (→ running) and back to draft leave "finished"
    touched = collector(_Touched)
    if touched is None:
        _after_commit(set(), {instance.pk})
    else:
        touched.drop.add(instance.pk)


def connect_signals() -> None:
    """Connect the listeners above to every model a tournament's final places depend on (the
    result model of each registered system, seats, tables, rounds, byes, entries, castigos,
    sorteos) and to the tournament's own saves. Called by the app's ``ready()`` after the
    systems are registered."""
    uid = "tournaments.places"
    models = {Seat, Table, Round, Bye, Entry, Castigo, Sorteo}
    results = {s.result_model for s in systems.all_systems() if s.result_model is not None}
    _PER_TABLE.update(results)
    models |= results
    for model in sorted(models, key=lambda m: m._meta.label):
        label = model._meta.label
        post_save.connect(_changed, sender=model, dispatch_uid=f"{uid}:save:{label}")
        post_delete.connect(_changed, sender=model, dispatch_uid=f"{uid}:delete:{label}")
    post_save.connect(_tournament_saved, sender=Tournament, dispatch_uid=f"{uid}:tournament")
