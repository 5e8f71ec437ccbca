"""Read replica routing (docs/scale-out.md): the public read pages may read from a PostgreSQL
streaming replica; everything else uses the primary ("default").

The decision is made per request, not per query: ``ReplicaMiddleware`` marks a request
"replica-ok" (a context variable, so it is private to the thread or task serving that request)
when all of these hold:

- ``DATABASE_REPLICA_URL`` is set (settings define the ``"replica"`` alias);
- the method is GET or HEAD;
- the URL resolves to a public read page: namespace ``public`` (tournaments' public pages) or
  ``rankings``;
- the request carries no session cookie: whoever is logged in (directors, admins) has just
  written or may have, so they read their own writes from the primary, never a lagging replica.

``PrimaryReplicaRouter.db_for_read`` answers ``"replica"`` only for such a request, only for
models of the apps in ``REPLICA_APPS`` (sessions, users, the database cache... always read the
primary), and never inside a transaction on the primary. Writes always go to the primary.
Directors' pages, services, management commands, the ledger replay and the Django admin never
set the flag, so they read and write the primary only.
"""

from __future__ import annotations

from contextvars import ContextVar

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.urls import Resolver404, resolve

REPLICA = "replica"
#: URL namespaces whose GET/HEAD pages are read-only and may read a (slightly lagging) replica.
PUBLIC_NAMESPACES = frozenset({"public", "rankings"})
#: Apps whose models those pages read; anything else (auth, sessions, cache) stays on the primary.
REPLICA_APPS = frozenset({"tournaments", "rankings"})

_replica_ok: ContextVar[bool] = ContextVar("clubsite_replica_ok", default=False)


def replica_configured() -> bool:
    """True when the settings define the ``"replica"`` database alias."""
    return REPLICA in connections.settings


def replica_ok_for(request) -> bool:
    """May ``request`` read from the replica? (see the module docstring for the rule)."""
    if request.method not in ("GET", "HEAD") or not replica_configured():
        return False
    if settings.SESSION_COOKIE_NAME in request.COOKIES:
        return False
    try:
        match = resolve(request.path_info, getattr(request, "urlconf", None))
    except Resolver404:
        return False
    return bool(match.namespaces) and match.namespaces[0] in PUBLIC_NAMESPACES


class use_replica:
    """Context manager setting the "replica-ok" flag for the code inside it (the middleware
    uses it per request; tests and scripts may use it directly)."""

    def __init__(self, allowed: bool = True):
        self.allowed = allowed
        self._token = None

    def __enter__(self):
        self._token = _replica_ok.set(self.allowed)
        return self

    def __exit__(self, *exc):
        _replica_ok.reset(self._token)
        return False


class ReplicaMiddleware:
    """Set the "replica-ok" flag for the duration of a public read request (sync or async)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.async_mode:
            return self.__acall__(request)
        with use_replica(replica_ok_for(request)):
            return self.get_response(request)

    async def __acall__(self, request):
        with use_replica(replica_ok_for(request)):
            return await self.get_response(request)


class PrimaryReplicaRouter:
    """Reads of public pages → ``"replica"``; every other read and every write → ``"default"``."""

    def db_for_read(self, model, **hints):
        if (
            _replica_ok.get()
            and model._meta.app_label in REPLICA_APPS
            and replica_configured()
            and not connections[DEFAULT_DB_ALIAS].in_atomic_block
        ):
            return REPLICA
        return DEFAULT_DB_ALIAS

    def db_for_write(self, model, **hints):
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        # Both aliases hold the same data (the replica is a copy of the primary).
        return True

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        # Only the primary is migrated; the replica receives the schema through replication.
        return db == DEFAULT_DB_ALIAS
