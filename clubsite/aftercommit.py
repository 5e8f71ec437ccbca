"""Work a transaction leaves for after its commit, gathered once per transaction.

A writer that changes many rows in one transaction (a result and its four seats, an import of
a thousand tables) should leave ONE piece of work for after the commit, not one per row: the
page cache draws each changed scope's new generation once (``clubsite.pagecache``), the
ranking writes one replay request per transaction level and enqueues one replay
(``rankings.signals``). Both ask this module for the transaction's ``Collector`` of their
kind, add to it, and let it run when the transaction commits (``transaction.on_commit``,
robust: a failing collector is logged, the commit stands); it never runs when the transaction
rolls back, and a collector registered inside a savepoint that rolls back is dropped with it.

How a collector is found again without reading Django's private list of commit hooks: the only
strong reference to it is the hook Django holds, and this module keeps a weak one. When Django
drops the hook (the commit ran it, a rollback discarded it), the collector is gone and the next
write of the thread starts a new one.
"""

from __future__ import annotations

import threading
import weakref

from django.db import transaction


class Collector:
    """What one transaction gathered for after its commit. Subclasses gather in their own
    attributes and act in ``run``; ``fired``: ``run`` was called (a test may run commit hooks
    without committing, and a collector that ran is never reused)."""

    fired = False

    def __call__(self) -> None:
        self.fired = True
        self.run()

    def run(self) -> None:
        raise NotImplementedError


_threads = threading.local()  # a connection is per thread: so are its collectors


def collector[C: Collector](
    kind: type[C], *, using: str | None = None, per_savepoint: bool = False
) -> C | None:
    """The ``kind`` collecting for the transaction running on the database ``using``, made and
    registered with ``on_commit`` the first time; None outside a transaction (the caller then
    acts at once).

    ``per_savepoint``: one collector per savepoint level (what a level gathered never outlives
    what it wrote: the ranking's replay requests are rows of that level); otherwise one for the
    whole transaction (the page cache's scopes: drawing one too many is harmless)."""
    connection = transaction.get_connection(using)
    if not connection.in_atomic_block:
        return None
    live = getattr(_threads, "live", None)
    if live is None:
        live = _threads.live = weakref.WeakValueDictionary()
    level = tuple(connection.savepoint_ids) if per_savepoint else ()
    key = (connection.alias, kind, level)
    found = live.get(key)
    if found is None or found.fired:
        found = kind()
        transaction.on_commit(found, using=connection.alias, robust=True)
        live[key] = found
    return found
