"""One limiter for every public form and identity proof (issue 25, point 3): sign-up, self
check-in, the claim of a player record, the login (the site's and the admin's) and the password
reset; the password typed to change an account's email.

**What is counted.** Every attempt, before it is evaluated: a right answer and a wrong one, a
valid form and an invalid one. An attempt first takes a slot of its limit; only an attempt that
got one is evaluated, the others are refused at once (HTTP 429, ``too_many``), so however many
arrive at the same moment, at most ``count`` are evaluated in a window. A door may give a slot
back after a success (``Slot.release``: the self check-in and the login do, so a venue's shared
connection is not used up by the players who got it right).

**Who is counted.** The client's network (``network``): an IPv4 address, or the /64 of an IPv6
address (one household or phone gets a whole /64, so counting single IPv6 addresses would
let one client change address at will); the address is ``clubsite.client_ip`` (behind the
proxy, the one our proxy appended). Some doors also count per target, whatever the network:
per name for the sign-up's identity proof, per mailbox for the mails a form sends, per account
for the password typed on "Mi página".

**How it is atomic.** A limit of ``count`` attempts in a window of ``window`` seconds is
``count`` slots in the shared cache (``limit:<scope>:<digest of the subject>:<window
number>:<slot>``), each taken with the cache's atomic ``add`` (Redis ``SET NX``; on the
database cache an ``INSERT`` on the key, its primary key: of two at once, one fails). So the
check and the count are one step on every backend; an ``incr`` would not be (the database
cache reads and writes it in two). Windows are fixed (the clock's ``window``-second blocks): a
slot's key names its window, lives until the window ends and is never taken again after, so
an expired slot is never raced for. At most ``2 × count`` attempts fit in ``window`` seconds
across the boundary of two windows.

**The limits** are ``LIMITS`` (one table, here): README "Limits on public forms" lists them.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from dataclasses import dataclass
from functools import wraps

from django.core.cache import cache
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from clubsite.client_ip import client_ip


@dataclass(frozen=True)
class Limit:
    """``count`` attempts per subject in each fixed window of ``window`` seconds; ``hint``: a
    sentence the refusal page adds (a way out for that door), or ""."""

    scope: str
    count: int
    window: int
    hint: str = ""


_SHARED = _(
    "Si compartes la conexión (la del local del club, por ejemplo), los intentos de otros "
    "cuentan también: desde los datos de tu teléfono puedes seguir."
)

#: Every limit of the site, by name (README, "Limits on public forms").
LIMITS: dict[str, Limit] = {
    limit.scope: limit
    for limit in (
        # per network: the public forms
        Limit("signup", 30, 60 * 60, _SHARED),
        Limit("check-in", 20, 10 * 60, _SHARED),  # a right code gives its slot back
        Limit("claim", 20, 60 * 60, _SHARED),
        Limit("login", 20, 15 * 60, _SHARED),  # a successful login gives its slot back
        Limit("reset", 10, 60 * 60, _SHARED),
        # per network: answers computed for each visitor (never from the page cache)
        Limit("calculator", 60, 10 * 60, _SHARED),
        Limit("player-search", 300, 10 * 60, _SHARED),  # the calculator's search as one types
        # per target, from any network
        Limit(
            "signup-name",
            10,
            24 * 60 * 60,
            _("Si el club ya te tiene, un director puede inscribirte en persona."),
        ),
        Limit("claim-mailbox", 3, 60 * 60),  # links sent to one mailbox (refused silently)
        Limit("reset-mailbox", 3, 60 * 60),  # reset mails to one mailbox (refused silently)
        Limit(
            "password-check",
            5,
            60 * 60,
            _("Si olvidaste la contraseña, restablécela por correo desde «Entrar»."),
        ),
    )
}


def network(address: str | None) -> str:
    """The network an attempt is counted against: an IPv4 address as it is ("203.0.113.7"),
    an IPv6 address's /64 ("2001:db8:1:2::/64"), an IPv4-mapped IPv6 address as the IPv4 one;
    "unknown" for a missing or malformed address (all of those share one count)."""
    try:
        ip = ipaddress.ip_address((address or "").strip())
    except ValueError:
        return "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


def request_network(request) -> str:
    """``network`` of the request's client address (``clubsite.client_ip``)."""
    return network(client_ip(request))


@dataclass(frozen=True)
class Slot:
    """One attempt's place in a limit (its cache key); ``release`` gives it back."""

    key: str

    def release(self) -> None:
        cache.delete(self.key)


def _keys(limit: Limit, subject: str, now: float) -> tuple[list[str], float]:
    """The slot keys of ``subject`` in the window holding ``now`` and the window's end (epoch
    seconds)."""
    number = int(now // limit.window)
    digest = hashlib.sha256(subject.encode()).hexdigest()[:32]
    base = f"limit:{limit.scope}:{digest}:{number}:"
    return [f"{base}{i}" for i in range(limit.count)], (number + 1) * limit.window


def take(limit: Limit, subject: str, *, now: float | None = None) -> Slot | None:
    """Take a slot of ``limit`` for ``subject`` (a network, "name:…", "user:12" …): the Slot,
    or None when all ``limit.count`` slots of the current window are taken (refuse the attempt
    without evaluating it). One read of the taken slots, then the atomic ``add`` of a free one
    (more only when others took the free ones at the same moment). Cache errors propagate."""
    now = time.time() if now is None else now
    keys, end = _keys(limit, subject, now)
    taken = cache.get_many(keys)
    # the key lives until its window is over (a second or two more: the database cache keeps
    # whole seconds), never into a later window, whose keys are other keys
    timeout = max(1, math.ceil(end - now) + 2)
    for key in keys:
        if key not in taken and cache.add(key, 1, timeout):
            return Slot(key)
    return None


def seconds_left(limit: Limit, *, now: float | None = None) -> int:
    """Seconds until ``limit``'s current window ends (a refused attempt may try again then)."""
    now = time.time() if now is None else now
    return max(1, math.ceil(_keys(limit, "", now)[1] - now))


def too_many(request, limit: Limit):
    """The refusal of an attempt over ``limit``: the same page and words for every door and
    whatever was typed (HTTP 429, ``Retry-After``), how long to wait, and the door's way out
    (``limit.hint``)."""
    seconds = seconds_left(limit)
    context = {"minutes": max(1, math.ceil(seconds / 60)), "hint": limit.hint}
    response = render(request, "too_many.html", context, status=429)
    response["Retry-After"] = str(seconds)
    return response


def limited(name: str, *, per: str | None = None):
    """Decorate a view that takes a public form or an identity proof: each POST takes a slot of
    ``LIMITS[name]`` for the client's network (and the URL's keyword ``per``, e.g. the
    tournament's ``slug``, when given) before the view runs; without one the view does not run
    and the answer is ``too_many``. The slot is ``request.limit_slot`` (the view may release it
    after a success). The decorated view carries ``limit`` (the name): tests/test_limits.py
    walks every URL and fails for a public form without it."""
    limit = LIMITS[name]

    def decorate(view):
        @wraps(view)
        def guarded(request, *args, **kwargs):
            if request.method == "POST":
                subject = request_network(request)
                if per is not None:
                    subject += f"|{kwargs.get(per, '')}"
                slot = take(limit, subject)
                if slot is None:
                    return too_many(request, limit)
                request.limit_slot = slot
            return view(request, *args, **kwargs)

        guarded.limit = name
        return guarded

    return decorate


def release(request) -> None:
    """Give back the slot ``limited`` took for ``request`` (after a success), if any."""
    slot = getattr(request, "limit_slot", None)
    if slot is not None:
        slot.release()
        request.limit_slot = None
