"""Compute once, the others wait: one claim in the shared cache for work that two requests
(on two app servers, maybe) must not do twice at once.

The page cache computes a missed page in one request while the others wait for it
(``clubsite.pagecache``); a form's one-time token lets one copy of a POST save while a second
copy waits for its outcome (``tournaments.views.manage.access``). Both are this: the first
caller takes the key with the cache's atomic ``add``; the others poll until the holder's
outcome shows (``DONE``), the claim is free again (``FREE``: the holder failed; they try to
take it), or their wait runs out.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: What ``look`` says of a claim held by someone else.
HELD, FREE, DONE = "held", "free", "done"


@dataclass(frozen=True)
class Claim:
    """The outcome of ``claim_or_wait``: ``taken`` (this caller holds the key and does the
    work), else ``outcome`` (what ``look`` found when it said ``DONE``) or ``timed_out``."""

    taken: bool
    outcome: Any = None
    timed_out: bool = False


def claim_or_wait(
    cache,
    key: str,
    value,
    *,
    hold: float,
    wait: float,
    poll: float,
    look: Callable[[], tuple[str, Any]],
    sleep: Callable[[float], None] = time.sleep,
) -> Claim:
    """Take ``key`` (``cache.add(key, value, hold)``: it lives ``hold`` seconds, so a killed
    holder holds it no longer), or wait for the caller that has it, asking ``look()`` every
    ``poll`` seconds for ``(state, outcome)``: ``HELD`` (wait on), ``FREE`` (try to take it
    again) or ``DONE`` (stop with ``outcome``), for ``wait`` seconds at most; ``sleep`` waits
    between two looks. Cache errors propagate (each caller decides what a missing cache
    means)."""
    deadline = time.monotonic() + wait
    if cache.add(key, value, hold):
        return Claim(taken=True)
    while True:
        state, outcome = look()
        if state == DONE:
            return Claim(taken=False, outcome=outcome)
        # ``add`` again only once the claim is free: an ``add`` is a write (on the database
        # cache, a write transaction) that would slow the holder down
        if state == FREE and cache.add(key, value, hold):
            return Claim(taken=True)
        if time.monotonic() >= deadline:
            return Claim(taken=False, timed_out=True)
        if state == HELD:
            sleep(poll)
