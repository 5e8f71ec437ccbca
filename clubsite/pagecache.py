"""The page cache of the public pages (docs/performance.md, "Page cache").

Anonymous readers (the players' phones, at the venue and at home) get the public pages from a
cache shared by every app server: the site's cache (``settings.CACHES["default"]``: the
database table ``django_cache`` by default, Redis with ``DJANGO_CACHE_URL``), so a page that
took a second to compute (the standings of 512 entries, the ranking of 5,000 players) is
computed once per change of the data, not once per phone.

Freshness (correctness first: a cached page never shows a stale result after a save):

* Every key contains the **data generation**, a random token kept in the shared cache under
  ``GENERATION_KEY``. Any committed change of what a public page can show draws a new token
  (``changed``): saves of the tournaments' and players' models through their signals
  (``connect_signals``: services, CSV imports, the Django admin, the shell alike), and the few
  bulk writes that send no signal call ``changed()`` themselves (ledger replays, restore,
  the data generator). The new token is drawn when the transaction commits (once per
  transaction), before the view that saved returns its answer, so every request that starts
  after a save is answered from the new data.
* A key also contains the deployed code's mark (``deploy_mark``), the full path with its
  query, HTMX partial or whole page, the language, the host and the local date, so pages that
  differ in any of them never share an entry.
* Only what is the same for every anonymous reader is stored: GET/HEAD, no logged-in user, no
  flash message waiting, a 200 answer that sets no cookie and did not use the CSRF token.
  Never a directors' or admin page (``clubsite.http.is_private_path``) nor an answer marked
  ``private`` or ``no-store``, whatever decorates the view.
* Entries also expire after ``PAGE_TIMEOUT`` seconds: a bound on the one failure the above
  cannot see (a process killed between its commit and its new token).

Each process also keeps the last few pages it served (``LOCAL_ENTRIES``) in memory, by the
same key: an entry is immutable (a new generation is a new key), so this holds no state that
another server could contradict.

The key also makes the page's ETag: a phone that refreshes a page that has not changed gets a
304 without the page being read at all.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import uuid
from collections import OrderedDict
from functools import wraps
from pathlib import Path

from django.conf import settings
from django.core.cache import caches
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.http import HttpResponse, HttpResponseNotModified
from django.utils import timezone
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import parse_etags
from django.utils.translation import get_language

from clubsite.http import is_private_path
from clubsite.routers import use_replica

log = logging.getLogger(__name__)

GENERATION_KEY = "clubsite:pages:generation"
PAGE_KEY_PREFIX = "clubsite:page:"
PAGE_TIMEOUT = 600  # seconds
MAX_BODY = 8 * 1024 * 1024  # bytes: a larger page is served but not stored
LOCAL_ENTRIES = 32
#: Response headers kept with a page (the middleware adds the others on every answer).
KEPT_HEADERS = ("Content-Type", "Content-Disposition")

_local: OrderedDict[str, tuple[bytes, dict]] = OrderedDict()
_local_lock = threading.Lock()


def enabled() -> bool:
    """Whether pages are cached (``settings.PAGE_CACHE``, default True; the test suite turns it
    off except in the tests of this module and the browser tests)."""
    return getattr(settings, "PAGE_CACHE", True)


def _cache():
    return caches["default"]


# --- generation ---------------------------------------------------------------------------------


def generation() -> str:
    """The current data generation: a 32-character hex token from the shared cache, drawn
    anew when missing (first request, cache emptied or expired)."""
    token = _cache().get(GENERATION_KEY)
    if token is None:
        _cache().add(GENERATION_KEY, uuid.uuid4().hex, None)
        token = _cache().get(GENERATION_KEY) or uuid.uuid4().hex
    return token


def _new_generation() -> None:
    try:
        _cache().set(GENERATION_KEY, uuid.uuid4().hex, None)
    except Exception:  # the cache server is down: the save stands; entries expire (PAGE_TIMEOUT)
        log.exception("page cache: could not draw a new data generation")


def changed(using: str | None = None) -> None:
    """Record that data shown by public pages changed: a new generation once the transaction
    running on ``using`` commits (at most one per transaction, however many rows it wrote;
    none if it rolls back), or at once outside a transaction.

    Until the commit, other readers see the old rows and the old generation, which agree; the
    commit hook runs before the saving view answers (``transaction.on_commit``)."""
    connection = transaction.get_connection(using)
    if connection.in_atomic_block and any(
        hook[1] is _new_generation for hook in connection.run_on_commit
    ):
        return
    transaction.on_commit(_new_generation, using=using, robust=True)


def _model_changed(sender, instance=None, using=None, **kwargs) -> None:
    changed(using)


def connect_signals(models) -> None:
    """Draw a new generation whenever a row of ``models`` is saved or deleted, or one of their
    many-to-many links changes. Called by the apps' ``ready()`` with the models the public
    pages show; the ledger (bulk writes, no signals) calls ``changed()`` itself."""
    for model in models:
        uid = f"clubsite.pagecache:{model._meta.label}"
        post_save.connect(_model_changed, sender=model, dispatch_uid=uid + ":save")
        post_delete.connect(_model_changed, sender=model, dispatch_uid=uid + ":delete")
        for field in model._meta.local_many_to_many:
            m2m_changed.connect(
                _model_changed,
                sender=field.remote_field.through,
                dispatch_uid=f"{uid}:{field.name}",
            )


# --- deploy mark --------------------------------------------------------------------------------

_CODE_DIRS = ("templates", "static", "locale", "tournaments", "rankings", "clubsite")
_CODE_SUFFIXES = {".py", ".html", ".css", ".js", ".mo", ".svg"}
_deploy: str | None = None


def deploy_mark() -> str:
    """The newest modification time of the code, templates, static files and translations: a
    deploy changes the pages without changing the data, so it changes the keys (and ETags) too.
    Computed once per process (on every call in debug mode, where templates change live)."""
    global _deploy
    if _deploy is None or settings.DEBUG:
        newest = 0.0
        for name in _CODE_DIRS:
            for path in Path(settings.BASE_DIR, name).rglob("*"):
                if path.suffix in _CODE_SUFFIXES:
                    try:
                        newest = max(newest, path.stat().st_mtime)
                    except OSError:
                        pass
        _deploy = f"{newest:.6f}"
    return _deploy


# --- pages --------------------------------------------------------------------------------------


def _shared_request(request) -> bool:
    """Whether the answer to ``request`` is the same for every anonymous reader."""
    return (
        request.method in ("GET", "HEAD")
        and not request.user.is_authenticated
        and not request.COOKIES.get("messages")
    )


def page_key(request) -> str:
    """The cache key (64 hex digits) of the page ``request`` asks for, as explained above."""
    parts = (
        generation(),
        deploy_mark(),
        request.get_host(),
        request.get_full_path(),
        "partial" if request.headers.get("HX-Request") == "true" else "page",
        get_language(),
        timezone.localdate().isoformat(),
    )
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _storable(request, response) -> bool:
    cache_control = response.get("Cache-Control", "").lower()
    return (
        response.status_code == 200
        and not is_private_path(request.path_info)
        and "private" not in cache_control
        and "no-store" not in cache_control
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and len(response.content) <= MAX_BODY
    )


def _get(key: str) -> tuple[bytes, dict] | None:
    with _local_lock:
        entry = _local.get(key)
        if entry is not None:
            _local.move_to_end(key)
            return entry
    entry = _cache().get(PAGE_KEY_PREFIX + key)
    if entry is not None:
        _remember(key, entry)
    return entry


def _remember(key: str, entry: tuple[bytes, dict]) -> None:
    with _local_lock:
        _local[key] = entry
        _local.move_to_end(key)
        while len(_local) > LOCAL_ENTRIES:
            _local.popitem(last=False)


def _put(key: str, response) -> None:
    entry = (
        bytes(response.content),
        {h: response[h] for h in KEPT_HEADERS if response.has_header(h)},
    )
    _cache().set(PAGE_KEY_PREFIX + key, entry, PAGE_TIMEOUT)
    _remember(key, entry)


def clear_local() -> None:
    """Forget the pages this process keeps in memory (tests)."""
    with _local_lock:
        _local.clear()


def cached_page(view):
    """Decorator for a public page: for anonymous readers, answer from the page cache when it
    holds this page of the current generation, else render and store it; either way the answer
    carries the key as its ETag, and a conditional GET that names it gets a 304. Logged-in
    users (whose pages differ: director links, private drafts) always get a fresh render."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not enabled() or not _shared_request(request):
            return view(request, *args, **kwargs)
        try:
            key = page_key(request)
            etag = f'"{key[:40]}"'
            not_modified = etag in parse_etags(request.headers.get("If-None-Match", ""))
            entry = None if not_modified else _get(key)
        except Exception:  # the cache server is down: every page is computed, as without cache
            log.exception("page cache: unavailable")
            return view(request, *args, **kwargs)
        if not_modified:
            response = HttpResponseNotModified()
            response["ETag"] = etag
            return response
        if entry is not None:
            content, headers = entry
            response = HttpResponse(content)
            for name, value in headers.items():
                response[name] = value
        else:
            # A page that may be stored is computed from the primary, never from a lagging
            # read replica: stored under the current generation, a replica's older data would
            # outlive the save that drew it (docs/scale-out.md).
            with use_replica(False):
                response = view(request, *args, **kwargs)
            if not _storable(request, response):
                return response
            try:
                _put(key, response)
            except Exception:
                log.exception("page cache: could not store a page")
                return response
        response["ETag"] = etag
        return response

    return wrapper


def _revalidate(response, request):
    """Cache-Control for public pages: a cache may keep the page but must ask every time
    (public for anonymous readers, private once logged in). Partials and pages share URLs, so
    caches keep them apart by the HX-Request header."""
    if request.user.is_authenticated:
        patch_cache_control(response, private=True, no_cache=True, max_age=0, must_revalidate=True)
    else:
        patch_cache_control(response, public=True, max_age=0, must_revalidate=True)
    patch_vary_headers(response, ("Cookie", "HX-Request"))
    return response


def public_page(view):
    """Decorator for every public page (tournaments, ranking, glossary): ``cached_page`` and
    the Cache-Control of ``_revalidate``."""
    cached = cached_page(view)

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        return _revalidate(cached(request, *args, **kwargs), request)

    return wrapper
