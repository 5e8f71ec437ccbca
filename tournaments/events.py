"""What happened in the tournaments app, told to whoever listens (docs/ARCHITECTURE.md,
"Layers"): the writers send, the listening modules connect in their app's ``ready``, so a
writer never imports what reacts to it.

- ``round_paired``: a round's pairings were saved (``services.rounds``; ``round_id``). Sent once
  the transaction commits: the notices (``tournaments.notices``) mail each player their table.
- ``email_changed``: an account's email changed (``services.accounts.update_contact``;
  ``old``: the addresses it had, ``new``, ``username``). Sent once the transaction commits: the
  notices warn each old address.
- ``partner_named``: a sign-up request names a club player as partner and waits for their
  consent (``services.signups``; ``signup_id``). Sent once the transaction commits: the
  notices (``tournaments.notices``) mail the partner the link that confirms it.
- ``place_freed``: an entry gave its place back by withdrawing (``services.drop_entry``;
  ``tournament``: the tournament, locked, ``acting_user``). Sent at once, inside the writer's
  transaction: the sign-ups (``services.signups.promote_waiting``) move the waiting list up
  while the tournament has not started, under the same lock.
- ``games_changed``: a tournament's games may have changed (a result of any system, a seat, a
  table, a round, an entry, a bye, a castigo, a sorteo, the tournament's own save;
  ``tournament_ids``; ``table_ids``: when only a result changed, its table, else None). Sent
  at once, inside the writer's transaction, once per tournament (or table) and transaction
  level (``services.places``, which sees every path): the players' stories
  (``rankings.signals``) write their refresh requests in that transaction, for the table's
  players only when ``table_ids`` is given.
- ``batched()``: a long write (a results file: thousands of rows) asks the listeners that
  gather per change to gather for the whole block and act once at its end: the ranking writes
  one replay request for every table the file touched (``rankings.signals``). Listeners connect
  to ``batch_started`` and ``batch_finished`` (``ok``: the block ended without an error).

Changes of rows themselves travel by Django's model signals (``post_save`` ...), which the page
cache (``clubsite.pagecache``) and the ranking (``rankings.signals``) connect.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from functools import partial

from django.db import transaction
from django.dispatch import Signal

#: A round's pairings were saved (kwargs: ``round_id``), sent after the commit.
round_paired = Signal()
#: An account's email changed (kwargs: ``old`` list of addresses, ``new``, ``username``), sent
#: after the commit.
email_changed = Signal()
#: A sign-up request waits for the consent of the partner it names (kwargs: ``signup_id``),
#: sent after the commit.
partner_named = Signal()
#: An entry gave its place back (kwargs: ``tournament`` locked, ``acting_user``), sent inside
#: the transaction.
place_freed = Signal()
#: A tournament's games may have changed (kwargs: ``tournament_ids``, a list; ``table_ids``,
#: the tables when only their results changed, else None), sent inside the transaction once
#: per tournament (or table) and transaction level.
games_changed = Signal()
#: The outermost ``batched()`` block began / ended (kwargs of the end: ``ok``).
batch_started = Signal()
batch_finished = Signal()

_depth = threading.local()


def send_after_commit(signal: Signal, **kwargs) -> None:
    """Send ``signal`` (sender None, ``kwargs``) once the running transaction commits; never
    if it rolls back; at once outside a transaction."""
    transaction.on_commit(partial(signal.send, sender=None, **kwargs))


@contextmanager
def batched():
    """One block of many writes: ``batch_started`` on entering the outermost block,
    ``batch_finished`` (``ok`` True, or False when it raises) on leaving it. Nested blocks are
    part of the outer one. Use inside the block's transaction, so what the listeners write at
    the end commits with it."""
    depth = getattr(_depth, "value", 0)
    _depth.value = depth + 1
    if depth == 0:
        batch_started.send(sender=None)
    ok = False
    try:
        yield
        ok = True
    finally:
        _depth.value = depth
        if depth == 0:
            batch_finished.send(sender=None, ok=ok)
