"""The page cache of the public pages (docs/performance.md, "Page cache").

Anonymous readers (the players' phones, at the venue and at home) get the public pages from a
cache shared by every app server: the site's cache (``settings.CACHES["default"]``: the
database table ``django_cache`` by default, Redis with ``DJANGO_CACHE_URL``), so a page that
took a second to compute (the standings of 512 entries, the ranking of 5,000 players) is
computed once per change of the data, not once per phone.

Freshness (correctness first: a cached page never shows a stale result after a save):

* Every key contains the **generations of the scopes** the page's data comes from: random
  tokens kept in the shared cache (``generation_key``), read in ONE round trip
  (``generations``: one query on the database cache, so a hit still costs one query). The
  scopes: ``ALL`` (in every key: players' names, the club's restore, the data generator),
  ``tournament_scope(slug)`` (one tournament's pages: detail, standings and their CSV, rounds,
  printable sheets, "find my table"), ``CLUB`` (the lists: home and tournament list, which
  show each tournament's name, dates, venue, system, status, entry count and current round)
  and ``RANKING`` (the ranking and its CSV, the player pages and their CSV, the home page's
  top ten). Each view names its scopes (``public_page(scopes=...)``).
* Any committed change draws a new token for the scopes whose pages show it (``changed``):
  saves and deletions seen through the models' signals (``connect_signals``, one ``Rule`` per
  model: services, CSV imports, the Django admin, the shell alike), and the bulk writes that
  send no signal call ``changed(...)`` themselves (ledger replays, when they commit:
  ``RANKING``; restore and the data generator: ``ALL``). A save that only queues a replay
  changes no ``RANKING`` page: it changes their notice (below). The tokens are drawn when the transaction commits (one per
  scope per transaction, one ``set_many``), before the view that saved returns its answer,
  so every request that starts after a save is answered from the new data. A row whose
  tournament cannot be told (moved to another one, gone) changes ``ALL``.
* A tournament's scope is keyed by its slug, what its views receive: a hit needs no query to
  find the tournament. The signals find the slug from the related rows the saved row carries
  (no query on the services' paths), else with one query per round or tournament per
  transaction (``_Slugs``); a tournament whose slug changes renews the old slug's scope too.
* A scope without a token yet (first request, cache emptied or evicted) gets one only when a
  page of it is stored, after the page was computed, and only if no save drew one meanwhile:
  an address typed at random adds nothing to the cache.
* A key also contains the deployed code's mark (``deploy_mark``), the path with its
  query as the view reads it (below), HTMX partial or whole page, the language, the host and the local date, so pages that
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

**Notices** (``register_notice``): what a page of a scope says about work under way is decided
when the page is served, not when it is computed. The ranking's pages say "updating since …"
while a ledger replay waits: a save that queues a replay draws no new generation (their figures
do not change until the replay commits, which draws ``RANKING`` once); it keeps the notice's
state in the shared cache instead (``set_notice``, after its commit), under ``notice_key``, read
in the same ``get_many`` as the generations (a hit still costs one query). A page computed to be
stored holds a marker where the notice goes (``notice_marker``, asked by its template), replaced
by the notice, or by nothing, whenever the page is served; the ETag then carries a digest of
the state shown (a browser's copy without the notice is not "not modified"). The state is never
trusted beyond what the database says: it lives ``NOTICE_TIMEOUT`` seconds; a new generation of
its scope (after the new tokens are set), and the end of the work (``renew_notice``), forget it
and ask ``Notice.state()`` (the database) again, as does a reader that finds none; the answer
is kept with ``add``, which never overwrites the state a save kept meanwhile. So every request that starts after a save shows the notice,
and the ranking's figures are new once the replay commits.

Herd protection: when a page's generation changes, every reader of that page misses at once.
On a miss, the first request takes the page key's compute lock in the shared cache
(``cache.add`` of ``LOCK_KEY_PREFIX + key``, ``LOCK_TIMEOUT`` seconds) and computes the page,
renewing the lock every ``LOCK_RENEW`` seconds meanwhile (``_Heartbeat``, for
``LOCK_MAX_HOLD`` at most): the lock outlives any computation of a living holder and expires
``LOCK_TIMEOUT`` seconds after its holder died. The others poll the page and the lock together
(one ``get_many``, every ``POLL_INTERVAL`` seconds, then half as long again each time up to
``POLL_MAX``) for as long as the lock is held, and serve the page once it is stored: it is
computed once per server farm, whatever it takes, not once per concurrent reader. A page that
shows a notice is also noted, when stored, as the latest page of its address
(``LATEST_KEY_PREFIX`` and the key without generations: its tokens, key and time); a waiter for such a page
is served that earlier page at once, the notice forced on it (``Stale``), when only the scopes
the notice covers are older (the ranking's figures while its replay or recomputation is under
way), without an ETag. The lock is deleted once the page is stored or the computing failed; an
answer that may not be stored (a 404, a cookie, too large) leaves the ``NOT_STORABLE`` marker
in its place for ``LOCK_TIMEOUT``. A waiter that finds that marker, or neither page nor lock
(the computing failed, or the lock of a dead process expired), computes the page itself at
once. The key holds the generations, so a waiter is only ever served a page of the generations
it read itself, or an earlier one under the notice: a request that starts after a save reads
the new generations, hence another key and another lock. A hit costs what it did (one query);
any cache error falls back to computing.

The key also makes the page's ETag: a phone that refreshes a page that has not changed gets a
304 without the page being read at all.

**One entry per real variant** (query strings). A page names the query parameters it reads
(``params``; free-text ones, whose pages are computed every time and never stored, in
``computed``). Every other parameter is removed from the request before the view runs (its
``GET`` and ``QUERY_STRING``), for every reader: ``?utm_source=...`` or ``?x=<random>`` is the
same page and the same key, and a view cannot read a parameter that is not in its key. Of the
declared ones, the view says which value it used (``settle``: a page number clamped to the
last page, a year that has no tournaments replaced by the default); a page is stored only when
every declared parameter present was settled to exactly what the query says. One settled to
another value is answered with a redirect (302, not stored) to the address of the page it is
(``?page=99999`` → the last page; ``?year=1999`` → no year), one left unsettled is computed
and not stored. So an address typed at random never adds an entry to the cache.

**Heavy outputs** (``heavy=True``: the PDFs and the workbooks, seconds of CPU each for a large
tournament) are made once per generation and served from the cache like any page, and at most
``HEAVY_AT_ONCE`` of them are made at once on the whole farm (slots in the shared cache, held
``HEAVY_HOLD`` seconds at most). A request that finds its output being made by another, or
every slot taken, does not wait: it gets at once a short page "Preparando el archivo" (503,
``Retry-After``, reloading itself after ``HEAVY_RETRY`` seconds), so heavy outputs never hold
more than ``HEAVY_AT_ONCE`` app-server workers, whatever the number of visitors. Logged-in
readers (never served from the cache) go through the same slots.
"""

from __future__ import annotations

import datetime
import hashlib
import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, partial, wraps
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import connections, transaction
from django.db.models.signals import m2m_changed, post_delete, post_init, post_save
from django.http import HttpResponse, HttpResponseNotModified, HttpResponseRedirect, QueryDict
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import parse_etags
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from clubsite import once
from clubsite.aftercommit import Collector, collector
from clubsite.http import is_private_path
from clubsite.routers import use_replica

log = logging.getLogger(__name__)

PAGE_KEY_PREFIX = "clubsite:page:"
PAGE_TIMEOUT = 600  # seconds
MAX_BODY = 8 * 1024 * 1024  # bytes: a larger page is served but not stored
LOCAL_ENTRIES = 32
#: The compute lock of a page key (herd protection): its cache key is this prefix and the key.
LOCK_KEY_PREFIX = "clubsite:pagelock:"
#: Seconds a compute lock lives unless its holder renews it: a process killed while computing
#: holds it no longer than this after its last renewal.
LOCK_TIMEOUT = 5
#: Seconds between two renewals of a compute lock by its living holder (``_Heartbeat``).
LOCK_RENEW = 1.5
#: Seconds a holder renews its lock at most: a computation stuck longer than this lets another
#: request try (the app server's own timeout has usually ended it long before).
LOCK_MAX_HOLD = 120
#: Seconds a request waits at most for the page another request computes: the lock ends every
#: wait first (it lives as long as its holder computes, ``LOCK_MAX_HOLD`` at most).
WAIT_LIMIT = LOCK_MAX_HOLD + LOCK_TIMEOUT
#: Seconds between the first two looks at the shared cache while waiting; each next wait is
#: half as long again, up to ``POLL_MAX`` (a long computation is not slowed by its waiters).
POLL_INTERVAL = 0.015
POLL_MAX = 0.1
#: The latest stored page of an address that shows a notice (``register_notice``): its cache
#: key is this prefix and the address's variant key (``page_key`` without generations).
LATEST_KEY_PREFIX = "clubsite:pagelatest:"
#: Seconds a notice's state is kept in the shared cache; then the next reader asks again.
NOTICE_TIMEOUT = 30
#: What the computing request leaves under the lock key (for ``LOCK_TIMEOUT``) when its answer
#: may not be stored (a 404, a cookie, too large): the others compute it at once, unwaited.
NOT_STORABLE = "not storable"
#: Response headers kept with a page (the middleware adds the others on every answer).
KEPT_HEADERS = ("Content-Type", "Content-Disposition")
#: A page larger than this (bytes) is kept in the shared cache only, not in each process's
#: memory too (a PDF of several MB): the memory a process gives the cache stays bounded.
LOCAL_MAX_BODY = 2 * 1024 * 1024
#: Seconds a heavy output's compute lock and slot live at most (a killed process frees them).
HEAVY_HOLD = 120
#: Seconds after which the "Preparando el archivo" page reloads itself (and its Retry-After).
HEAVY_RETRY = 5
#: The cache key prefix of the heavy outputs' slots ("<prefix><n>", n < ``heavy_at_once()``).
HEAVY_SLOT_PREFIX = "clubsite:heavy:"

_local: OrderedDict[str, tuple[bytes, dict]] = OrderedDict()
_local_lock = threading.Lock()


def enabled() -> bool:
    """Whether pages are cached (``settings.PAGE_CACHE``, default True; the test suite turns it
    off except in the tests of this module and the browser tests)."""
    return getattr(settings, "PAGE_CACHE", True)


def heavy_at_once() -> int:
    """How many heavy outputs (``heavy=True``) the whole farm makes at once:
    ``settings.HEAVY_AT_ONCE`` (``DJANGO_HEAVY_AT_ONCE``), default 1."""
    return max(1, int(getattr(settings, "HEAVY_AT_ONCE", 1)))


def _cache():
    return caches["default"]


# --- scopes and generations ---------------------------------------------------------------------

#: Every page: players' names, the club's restore, the data generator.
ALL = "all"
#: The lists of tournaments: the home page and the tournament list.
CLUB = "club"
#: The ranking, its CSV, the player pages and their CSV, and the home page's top ten.
RANKING = "ranking"
#: The cache key of ``ALL``'s generation; another scope's is this key, ":" and the scope.
GENERATION_KEY = "clubsite:pages:generation"
#: A scope longer than this is hashed in its cache key (a slug typed in a URL can be long).
_LONG_SCOPE = 100


def tournament_scope(slug: str) -> str:
    """The scope of one tournament's pages: ``"tournament:<slug>"``. Keyed by the slug, which
    is what the views receive: a hit needs no query to find the tournament's id."""
    return f"tournament:{slug}"


def tournament_pages(request, slug, *args, **kwargs) -> list[str]:
    """``scopes`` of a tournament's page (views whose first argument is the tournament's
    slug): ``[tournament_scope(slug)]``."""
    return [tournament_scope(slug)]


def generation_key(scope: str) -> str:
    """The shared cache's key of ``scope``'s generation (``ALL``: ``GENERATION_KEY``)."""
    if scope == ALL:
        return GENERATION_KEY
    if len(scope) > _LONG_SCOPE:
        scope = "sha256:" + hashlib.sha256(scope.encode()).hexdigest()
    return f"{GENERATION_KEY}:{scope}"


def generations(scopes) -> dict[str, str | None]:
    """The current generation of each of ``scopes`` (32 hex digits; None where the shared
    cache holds none: never drawn, emptied or evicted), in ONE cache round trip
    (``get_many``: one query on the database cache). Draws nothing."""
    keys = {scope: generation_key(scope) for scope in scopes}
    found = _cache().get_many(list(keys.values()))
    return {scope: found.get(key) for scope, key in keys.items()}


def generation(scope: str = ALL) -> str:
    """The current generation of ``scope`` (default ``ALL``): a 32-character hex token from
    the shared cache, drawn anew when missing."""
    key = generation_key(scope)
    token = _cache().get(key)
    if token is None:
        _cache().add(key, uuid.uuid4().hex, None)
        token = _cache().get(key) or uuid.uuid4().hex
    return token


#: The functions that name the scopes drawn with others (``derive``).
_derivers: list[Callable[[frozenset[str]], Any]] = []


def derive(fn: Callable[[frozenset[str]], Any]) -> Callable[[frozenset[str]], Any]:
    """Register ``fn(scopes) -> more scopes``: whenever ``scopes`` are drawn, the scopes ``fn``
    names are drawn with them, in the same ``set_many`` (a league's scope with any of its
    tournaments': ``tournaments.leagues``). So a page made of many others' data names ONE
    scope, and a hit reads one key for it, not one per part. ``fn`` runs once per drawing
    transaction, after its commit (it sees the committed rows; one query at most is its
    budget); an error is logged and the derived scopes are not drawn (their pages expire,
    ``PAGE_TIMEOUT``). Registering one again changes nothing (an app's ``ready()`` may run
    twice in tests). Usable as a decorator."""
    if fn not in _derivers:
        _derivers.append(fn)
    return fn


def _derived(scopes: frozenset[str]) -> set[str]:
    """The scopes the registered ``derive`` functions name for ``scopes``."""
    more: set[str] = set()
    for fn in _derivers:
        try:
            more.update(fn(scopes))
        except Exception:
            log.exception("page cache: could not derive the scopes drawn with %s", sorted(scopes))
    return more


def _draw(scopes) -> None:
    """A new token for each of ``scopes`` (``ALL`` alone when among them: it changes every
    key) and for the scopes derived from them (``derive``), in one ``set_many``. A cache
    server that is down is logged: the save stands, and the entries expire
    (``PAGE_TIMEOUT``)."""
    scopes = {ALL} if ALL in scopes else set(scopes) | _derived(frozenset(scopes))
    try:
        _cache().set_many({generation_key(s): uuid.uuid4().hex for s in scopes}, None)
    except Exception:
        log.exception("page cache: could not draw new generations for %s", sorted(scopes))
    # after the new tokens: the notice kept for the old data is asked again
    renew_notice(*(s for s in _notices if ALL in scopes or s in scopes))


class _Draw(Collector):
    """What one transaction changed (``clubsite.aftercommit``): the scopes drawn anew when it
    commits, and the tournament slugs its signals looked up (``_Slugs``)."""

    def __init__(self):
        self.scopes: set[str] = set()
        self.known: dict[tuple[str, int], tuple[object, tuple]] = {}

    def run(self) -> None:
        _draw(self.scopes)


def changed(*scopes: str, using: str | None = None) -> None:
    """Record that data shown by the pages of ``scopes`` changed (none: ``ALL``, every page):
    a new generation of each once the transaction running on ``using`` commits (at most one
    per scope per transaction, however many rows it wrote; none if it rolls back), or at once
    outside a transaction.

    Until the commit, other readers see the old rows and the old generations, which agree; the
    commit hook runs before the saving view answers (``transaction.on_commit``, robust)."""
    scopes = scopes or (ALL,)
    draw = collector(_Draw, using=using)
    if draw is None:  # outside a transaction: now
        transaction.on_commit(partial(_draw, frozenset(scopes)), using=using, robust=True)
        return
    draw.scopes.update(scopes)


# --- notices: what the pages of a scope say at serve time ---------------------------------------


@dataclass(frozen=True)
class Notice:
    """A notice that the pages of ``scope`` show while something is under way (the ranking's
    "updating since …" while a replay waits), decided when a page is served, not when it is
    computed: a change that only starts such work draws no new generation.

    ``state()``: the state from the database (None: nothing under way; a hashable value
    otherwise); ``render(state)``: the notice's HTML in the active language ("" for None;
    ``Stale`` for an earlier page served while the current one is computed)."""

    scope: str
    state: Callable[[], Any]
    render: Callable[[Any], str]


@dataclass(frozen=True)
class Stale:
    """The notice state of an earlier page served while the current one is being computed:
    ``state`` as kept for the scope (None: only the recomputation is under way), and
    ``stored_at`` when that earlier page was computed (the time of its figures)."""

    state: Any
    stored_at: datetime.datetime


_notices: dict[str, Notice] = {}
_fragments: OrderedDict[tuple, str] = OrderedDict()  # (scope, language, state) → rendered notice
_FRAGMENTS = 16
_COMPUTING = "_pagecache_notices"  # request attribute: notice scopes of a page being stored


def register_notice(scope: str, *, state, render) -> None:
    """Give the pages of ``scope`` a notice (``Notice``; an app's ``ready()``). Its templates
    ask ``notice_marker`` where it goes."""
    _notices[scope] = Notice(scope, state, render)


def notice_key(scope: str) -> str:
    """The shared cache's key of ``scope``'s notice state: ``(state,)``, read in the same
    ``get_many`` as the generations."""
    return generation_key(scope) + ":notice"


def _marker(scope: str) -> str:
    return f"<!--pagecache:notice:{scope}-->"


def notice_marker(request, scope: str) -> str | None:
    """Where ``scope``'s notice goes in the page ``request`` is computing: a marker (an HTML
    comment, safe) while the page is computed to be stored in the shared cache, replaced by
    the notice whenever the page is served; None otherwise (a logged-in reader, the cache
    off: the template shows the state the view read)."""
    if scope in getattr(request, _COMPUTING, ()):
        return mark_safe(_marker(scope))  # noqa: S308 - a constant comment
    return None


def set_notice(scope: str, state) -> None:
    """Keep ``state`` (not None) as ``scope``'s notice state for ``NOTICE_TIMEOUT`` seconds:
    every page of the scope served from now on shows it, without a new generation. Call it
    after the change that started the work committed (a reader that asked the database
    before it must not keep "nothing"). Cache errors are logged."""
    if state is None:
        return
    try:
        _cache().set(notice_key(scope), (state,), NOTICE_TIMEOUT)
    except Exception:
        log.exception("page cache: could not keep the notice of %s", scope)


def renew_notice(*scopes: str) -> None:
    """Forget the notice state kept for ``scopes`` and ask ``Notice.state()`` (the database)
    again, once here rather than by every reader that would find none: after the work it
    tells of ended or its data changed. Safe in any order with a save's ``set_notice``: the
    answer is kept with ``add``, never over a state kept meanwhile. Errors are logged."""
    if not scopes:
        return
    try:
        _cache().delete_many([notice_key(scope) for scope in scopes])
        for scope in scopes:
            _cache().add(notice_key(scope), (_notices[scope].state(),), NOTICE_TIMEOUT)
    except Exception:
        log.exception("page cache: could not renew the notice of %s", sorted(scopes))


def _read(scopes) -> tuple[dict[str, str | None], dict[str, Any]]:
    """The generations of ``scopes`` and the notice states of those with a notice, in ONE
    ``get_many``. A notice state missing from the cache (expired, forgotten after a new
    generation) is asked of ``Notice.state()`` and kept with ``add`` (never over a state a
    save kept meanwhile)."""
    keys = {scope: generation_key(scope) for scope in scopes}
    noticed = {scope: notice_key(scope) for scope in scopes if scope in _notices}
    found = _cache().get_many([*keys.values(), *noticed.values()])
    states = {}
    for scope, key in noticed.items():
        kept = found.get(key)
        if kept is None:
            kept = (_notices[scope].state(),)
            _cache().add(key, kept, NOTICE_TIMEOUT)
        states[scope] = kept[0]
    return {scope: found.get(key) for scope, key in keys.items()}, states


def _fragment(scope: str, state) -> str:
    """``scope``'s notice for ``state`` (a ``Stale`` too) in the active language ("" for None),
    rendered once per state and language in this process."""
    if state is None:
        return ""
    cache_key = (scope, get_language(), state)
    with _local_lock:
        html = _fragments.get(cache_key)
    if html is None:
        html = _notices[scope].render(state)
        with _local_lock:
            _fragments[cache_key] = html
            while len(_fragments) > _FRAGMENTS:
                _fragments.popitem(last=False)
    return html


def _noticed(content: bytes, states: dict[str, Any], stored_at=None) -> bytes:
    """``content`` with each notice marker replaced by its notice for ``states``; a stale page
    (``stored_at``: when it was computed) always shows it (``Stale``)."""
    for scope, state in states.items():
        marker = _marker(scope).encode()
        if marker in content:
            shown = state if stored_at is None else Stale(state, stored_at)
            content = content.replace(marker, _fragment(scope, shown).encode(), 1)
    return content


def _etag(key: str, states: dict[str, Any]) -> str:
    """The ETag of the page of ``key`` served with the notice ``states``: the key's first 40
    digits, and a digest of the states shown when any is not None (a browser's copy without
    the notice is not "not modified" once the notice shows)."""
    shown = {scope: state for scope, state in states.items() if state is not None}
    if not shown:
        return f'"{key[:40]}"'
    digest = hashlib.sha256(repr(sorted(shown.items())).encode()).hexdigest()[:8]
    return f'"{key[:40]}.{digest}"'


# --- which scopes a saved row changes -----------------------------------------------------------

#: ``Rule.tournament`` of the Tournament model itself.
SELF = "self"
#: ``Rule.club``: only when a row is added or removed (a count or a completeness changes).
ADDED_OR_REMOVED = "added or removed"


class _Unset:
    """A watched field that was deferred when its row was loaded: unknown, so "changed"."""

    __slots__ = ()

    def __reduce__(self):  # copies and pickles are this same object
        return "_UNSET"


_UNSET = _Unset()
_SEEN = "_pagecache_seen"  # instance attribute: the watched values as loaded or last saved


@dataclass(frozen=True)
class Rule:
    """The scopes a saved, deleted or linked row of a model changes (``connect_signals``).

    ``tournament``: the field that leads to its tournament, whose scope it changes ("table",
    "round", "tournament"; ``SELF`` for the Tournament model); None: every page (``ALL``).
    ``club``: True: also ``CLUB`` on every write; ``ADDED_OR_REMOVED``: on additions and
    deletions only. ``ranking``: True: also ``RANKING`` on every write; a tuple of field names:
    on deletions and on saves that change one of them. A row moved to another tournament
    (``tournament``'s field changed since it was loaded) changes ``ALL``; a tournament whose
    slug changed changes its old slug's scope too."""

    tournament: str | None = None
    club: bool | str = False
    ranking: bool | tuple[str, ...] = False

    @cached_property
    def watched(self) -> tuple[str, ...]:
        """The attributes remembered when a row is loaded or saved, to tell what a save changed."""
        names = []
        if self.tournament == SELF:
            names.append("slug")
        elif self.tournament is not None:
            names.append(f"{self.tournament}_id")
        if isinstance(self.ranking, tuple):
            names += [n for n in self.ranking if n not in names]
        return tuple(names)


_rules: dict[type, Rule] = {}
#: From a field that leads toward a tournament, the field of the row it leads to.
_NEXT_HOP = {"table": "round", "round": "tournament", "tournament": SELF}


class _Slugs:
    """Finds the slug of the tournament a row belongs to: from the related rows the instance
    carries (no query), else from what this transaction already looked up, else with one
    query that also notes every table (or round) of the same round (or tournament), so a
    cascade over a round's tables costs one query, not one per table.

    What is noted lives with the transaction's ``_Draw`` and is trusted only inside the
    savepoint where it was read (or a savepoint within it): a row read in a savepoint that
    rolled back may have been replaced by another with the same id."""

    def __init__(self, using):
        self.using = using
        draw = collector(_Draw, using=using)
        self.known = draw.known if draw is not None else {}
        self.sids = tuple(transaction.get_connection(using).savepoint_ids)

    def get(self, kind: str, pk):
        hit = self.known.get((kind, pk))
        if hit is not None and hit[1] == self.sids[: len(hit[1])]:
            return hit[0]
        return None

    def note(self, kind: str, pk, value) -> None:
        self.known[(kind, pk)] = (value, self.sids)

    def of(self, instance, hop: str) -> str | None:
        """The slug of ``instance``'s tournament, reached through its field ``hop``."""
        if hop == SELF:
            return self.get("tournament", instance.pk) or instance.slug
        field = instance._meta.get_field(hop)
        target = getattr(instance, field.attname)
        if target is None:
            return None
        if field.is_cached(instance):
            related = field.get_cached_value(instance)
            if related is not None:
                return self.of(related, _NEXT_HOP[hop])
        return self.by_id(field.related_model, hop, target)

    def by_id(self, model, hop: str, pk) -> str | None:
        """The slug of the tournament of row ``pk`` of ``model``, the model field ``hop``
        leads to (a Table for "table", a Round for "round", a Tournament for "tournament")."""
        tournament_id = pk if hop == "tournament" else self.get(hop, pk)
        if tournament_id is None:
            tournament_id = self._look_up(model, hop, pk)
            if tournament_id is None:
                return None
        slug = self.get("tournament", tournament_id)
        if slug is None:
            while hop != "tournament":  # to the Tournament model
                model = model._meta.get_field(_NEXT_HOP[hop]).related_model
                hop = _NEXT_HOP[hop]
            if self._look_up(model, "tournament", tournament_id) is not None:
                slug = self.get("tournament", tournament_id)
        return slug

    def _look_up(self, model, hop: str, pk):
        """One query for row ``pk`` of ``model`` (the model ``hop`` leads to), noting what it
        finds: a tournament's slug; or the tournament (id and slug) of a table or round and of
        every row with the same parent (the tables of its round, and that round; the rounds
        of its tournament). Returns the tournament's id; None when the row is gone."""
        rows = model._base_manager.using(self.using)
        if hop == "tournament":
            slug = rows.filter(pk=pk).values_list("slug", flat=True).first()
            if slug is None:
                return None
            self.note("tournament", pk, slug)
            return pk
        parent = _NEXT_HOP[hop]
        parent_field = model._meta.get_field(parent)
        siblings = f"{parent}__{parent_field.related_query_name()}"
        path, step = parent, parent
        while step != "tournament":
            step = _NEXT_HOP[step]
            path += f"__{step}"
        found = None
        for row_pk, parent_pk, tournament_id, slug in rows.filter(**{siblings: pk}).values_list(
            "pk", parent_field.attname, f"{path}__pk", f"{path}__slug"
        ):
            self.note(hop, row_pk, tournament_id)
            if parent != "tournament":  # the round of these tables
                self.note(parent, parent_pk, tournament_id)
            self.note("tournament", tournament_id, slug)
            if row_pk == pk:
                found = tournament_id
        return found


def _watched_values(instance, rule: Rule) -> tuple:
    values = instance.__dict__
    return tuple(values.get(name, _UNSET) for name in rule.watched)


def _remember_loaded(sender, instance, **kwargs) -> None:
    """post_init: remember the watched values a row was loaded (or built) with."""
    instance.__dict__[_SEEN] = _watched_values(instance, _rules[sender])


def scopes_of(rule: Rule, instance, event: str, using=None) -> list[str]:
    """The scopes that ``event`` ("created", "updated", "deleted" or "linked": a
    many-to-many change) of ``instance`` changes under ``rule``. ``ALL`` when its tournament
    cannot be told (no rule, moved to another tournament, row gone)."""
    if rule.tournament is None:
        return [ALL]
    now = _watched_values(instance, rule)
    differ: set[str] = set()
    before = dict.fromkeys(rule.watched, _UNSET)
    if event in ("updated", "deleted"):
        before.update(zip(rule.watched, instance.__dict__.get(_SEEN, ()), strict=False))
        differ = {
            name
            for name, after in zip(rule.watched, now, strict=True)
            if before[name] is _UNSET or before[name] != after
        }
    if event in ("created", "updated"):
        instance.__dict__[_SEEN] = now
    slugs = _Slugs(using)
    scopes = []
    if rule.tournament == SELF:
        if "slug" in differ:  # its pages under the old address change too
            if before["slug"] is _UNSET:
                return [ALL]
            scopes.append(tournament_scope(before["slug"]))
        if instance.slug is None:
            return [ALL]
        slugs.note("tournament", instance.pk, instance.slug)
        slug = instance.slug
    else:
        if f"{rule.tournament}_id" in differ:  # moved: from which tournament is not known
            return [ALL]
        slug = slugs.of(instance, rule.tournament)
        if slug is None:
            return [ALL]
    scopes.append(tournament_scope(slug))
    if rule.club is True or (rule.club == ADDED_OR_REMOVED and event in ("created", "deleted")):
        scopes.append(CLUB)
    if rule.ranking is True or (
        isinstance(rule.ranking, tuple)
        and (event == "deleted" or (differ and differ & set(rule.ranking)))
    ):
        scopes.append(RANKING)
    return scopes


def _saved(sender, instance, created=False, using=None, **kwargs) -> None:
    event = "created" if created else "updated"
    changed(*scopes_of(_rules[sender], instance, event, using), using=using)


def _deleted(sender, instance, using=None, **kwargs) -> None:
    changed(*scopes_of(_rules[sender], instance, "deleted", using), using=using)


def _linked(sender, instance, action=None, using=None, **kwargs) -> None:
    if not action.startswith("post_"):
        return
    rule = _rules.get(type(instance))
    if rule is None:  # the other side of the link (a user's tournaments): which ones is not told
        changed(ALL, using=using)
        return
    changed(*scopes_of(rule, instance, "linked", using), using=using)


def connect_signals(models) -> None:
    """Draw new generations whenever a row of ``models`` is saved or deleted, or one of their
    many-to-many links changes. ``models``: a mapping model → ``Rule`` (the scopes its rows
    change), or an iterable of models, each changing ``ALL``. Called by the apps' ``ready()``
    with the models the public pages show; bulk writes (no signals) call ``changed`` themselves.

    The models whose ``Rule`` watches fields also get a post_init receiver (it remembers the
    watched values each row is loaded with: a save tells a move or a renamed slug from them
    without a query)."""
    if not isinstance(models, dict):
        models = dict.fromkeys(models, Rule())
    for model, rule in models.items():
        _rules[model] = rule
        uid = f"clubsite.pagecache:{model._meta.label}"
        post_save.connect(_saved, sender=model, dispatch_uid=uid + ":save")
        post_delete.connect(_deleted, sender=model, dispatch_uid=uid + ":delete")
        if rule.watched:
            post_init.connect(_remember_loaded, sender=model, dispatch_uid=uid + ":init")
        else:
            post_init.disconnect(sender=model, dispatch_uid=uid + ":init")
        for field in model._meta.local_many_to_many:
            m2m_changed.connect(
                _linked,
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
    """Whether the answer to ``request`` is the same for every anonymous reader: GET or HEAD,
    nobody logged in, and no flash message waiting to be shown (read from the messages'
    storage, which checks the cookie's signature: a forged ``messages`` cookie holds none,
    so it cannot switch the cache off; the messages are only counted, not used up)."""
    return (
        request.method in ("GET", "HEAD")
        and not request.user.is_authenticated
        and not _messages_waiting(request)
    )


def _messages_waiting(request) -> bool:
    if not request.COOKIES.get(getattr(settings, "MESSAGE_COOKIE_NAME", "messages")) and not (
        hasattr(request, "session") and request.session.get("_messages")
    ):
        return False
    storage = getattr(request, "_messages", None)
    return storage is not None and len(storage) > 0


def page_key(request, tokens: dict[str, str], *, heavy: bool = False, reader: str = "") -> str:
    """The cache key (64 hex digits) of the page ``request`` asks for, with ``tokens`` (scope
    → its current generation, ``ALL`` first), as explained above. A heavy output is the same
    file for an HTMX request (``heavy``: no "partial"); ``reader``: the logged-in reader a
    heavy output is kept for ("" for anonymous readers)."""
    partial_page = request.headers.get("HX-Request") == "true" and not heavy
    parts = (
        deploy_mark(),
        request.get_host(),
        request.get_full_path(),
        "partial" if partial_page else "page",
        f"reader={reader}",
        get_language(),
        timezone.localdate().isoformat(),
        *(f"{scope}={token}" for scope, token in tokens.items()),
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


def _get(key: str, shared: bool = True) -> tuple[bytes, dict] | None:
    """The page of ``key`` from this process's memory, else (``shared``) from the shared
    cache."""
    with _local_lock:
        entry = _local.get(key)
        if entry is not None:
            _local.move_to_end(key)
            return entry
    if not shared:
        return None
    entry = _cache().get(PAGE_KEY_PREFIX + key)
    if entry is not None:
        _remember(key, entry)
    return entry


def _remember(key: str, entry: tuple[bytes, dict]) -> None:
    if len(entry[0]) > LOCAL_MAX_BODY:
        return
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


def _response(entry: tuple[bytes, dict], states=None, stored_at=None) -> HttpResponse:
    """The answer made of a stored ``entry``, its notice markers replaced (``_noticed``)."""
    content, headers = entry
    response = HttpResponse(_noticed(content, states, stored_at) if states else content)
    for name, value in headers.items():
        response[name] = value
    return response


def _stale_from(latest, key: str, tokens: dict) -> tuple[tuple[bytes, dict], Any] | None:
    """The earlier page an address's ``latest`` note names, when it may stand in for page
    ``key`` while that is computed: every scope but those with a notice at the generation the
    reader read (only what the notice covers is older), and still stored. ``(entry,
    stored_at)`` or None."""
    if latest is None:
        return None
    old_tokens, old_key, stored_at = latest
    if old_key == key or any(
        old_tokens.get(scope) != token for scope, token in tokens.items() if scope not in _notices
    ):
        return None
    entry = _get(old_key)
    return None if entry is None else (entry, stored_at)


def _claim(
    key: str,
    *,
    hold: float = LOCK_TIMEOUT,
    wait: float = WAIT_LIMIT,
    latest: str | None = None,
    tokens: dict | None = None,
) -> tuple[str | None, tuple[bytes, dict] | None, Any]:
    """On a miss of page ``key`` (herd protection): take its compute lock, or wait for the
    request that holds it. Returns ``(token, None, None)`` when this request took the lock (it
    computes the page, renewing the lock meanwhile, then ``_release``s it), ``(None, entry,
    None)`` when the page appeared while waiting, ``(None, entry, stored_at)`` for an earlier
    page of the same address served meanwhile (``latest``: its variant key, given for pages
    that show a notice; ``_stale_from``), ``(None, None, None)`` when this request must
    compute the page itself, without lock: the computing request left ``NOT_STORABLE``, the
    wait passed its bound, or the cache failed (logged). A lock released without a page (the
    computing request failed) or expired (its process died) is taken again by one waiter.

    The lock is ``clubsite.once.claim_or_wait`` on ``LOCK_KEY_PREFIX + key`` for ``hold``
    seconds (``LOCK_TIMEOUT``, renewed while computing: ``_Heartbeat``); a waiter waits as
    long as it is held (``wait``: ``WAIT_LIMIT``; a heavy output: 0, and ``BUSY`` instead of
    ``(None, None, None)`` when another request holds it), reading the page, the lock and the
    latest note in one ``get_many`` every ``POLL_INTERVAL`` to ``POLL_MAX`` seconds. The key
    holds the generations, so the page waited for is of the generations this request read:
    never older; an earlier page only where the notice says so."""
    lock_key = LOCK_KEY_PREFIX + key
    page = PAGE_KEY_PREFIX + key
    keys = [page, lock_key] + ([LATEST_KEY_PREFIX + latest] if latest else [])
    token = uuid.uuid4().hex
    pause = [POLL_INTERVAL]

    def look():
        found = _cache().get_many(keys)
        if found.get(page) is not None:
            return once.DONE, (found[page], None)
        lock = found.get(lock_key)
        if lock == NOT_STORABLE:
            return once.DONE, (None, None)
        if lock is None:
            return once.FREE, None
        if latest:
            stale = _stale_from(found.get(keys[2]), key, tokens)
            if stale is not None:
                return once.DONE, stale
        return once.HELD, None

    def sleep(seconds):
        time.sleep(pause[0])  # this module's clock (tests count waits)
        pause[0] = min(POLL_MAX, pause[0] * 1.5)

    try:
        first = look() if latest else None  # a hit, or the earlier page, without a write
        if first is not None and first[0] == once.DONE:
            claim = once.Claim(taken=False, outcome=first[1])
        else:
            claim = once.claim_or_wait(
                _cache(),
                lock_key,
                token,
                hold=hold,
                wait=wait,
                poll=POLL_INTERVAL,
                look=look,
                sleep=sleep,
            )
    except Exception:
        log.exception("page cache: could not lock or wait for a page")
        return None, None, None
    if claim.taken:
        return token, None, None
    if claim.timed_out and not wait:
        return BUSY, None, None
    if claim.outcome is None:
        return None, None, None
    entry, stored_at = claim.outcome
    if entry is not None and stored_at is None:
        _remember(key, entry)
    return None, entry, stored_at


#: What ``_claim`` returns as its token when it may not wait and another request holds the lock.
BUSY = "busy"


class _Heartbeat:
    """Keeps a compute lock alive while its holder computes: a thread that renews it
    (``cache.touch`` for ``LOCK_TIMEOUT``) every ``LOCK_RENEW`` seconds, for ``LOCK_MAX_HOLD``
    seconds at most, until ``stop``. So the lock outlives any computation of a living holder
    and expires ``LOCK_TIMEOUT`` seconds after its holder died. ``renewed``: the
    ``time.monotonic()`` of the last renewal (or of the taking). A computation shorter than
    ``LOCK_RENEW`` touches nothing; the thread closes the database connection it may have
    opened (the database cache)."""

    def __init__(self, lock_key: str):
        self.lock_key = lock_key
        self.renewed = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pagecache-lock", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        taken = self.renewed
        try:
            while not self._stop.wait(LOCK_RENEW):
                if time.monotonic() - taken >= LOCK_MAX_HOLD:
                    return
                try:
                    if not _cache().touch(self.lock_key, LOCK_TIMEOUT):
                        return  # gone (released, or expired): nothing to keep
                    self.renewed = time.monotonic()
                except Exception:
                    log.exception("page cache: could not renew a compute lock")
        finally:
            connections.close_all()

    def stop(self) -> float:
        """Stop renewing; returns the time of the last renewal (``renewed``)."""
        self._stop.set()
        return self.renewed


def _release(
    key: str, token: str, since: float, storable: bool, hold: float = LOCK_TIMEOUT
) -> None:
    """Release the compute lock ``token`` of page ``key`` last renewed (or taken) at ``since``
    (``time.monotonic()``): deleted (after the page was stored, or the computing failed), or
    replaced by ``NOT_STORABLE`` when the answer may not be stored. A lock that may have
    expired (not renewed for ``hold - 1`` seconds or more: backends round expiries to the
    second) is left alone: it may be another request's by now. Cache errors are logged."""
    lock_key = LOCK_KEY_PREFIX + key
    try:
        if not storable:
            _cache().set(lock_key, NOT_STORABLE, LOCK_TIMEOUT)
        elif time.monotonic() - since < hold - 1:
            _cache().delete(lock_key)
    except Exception:
        log.exception("page cache: could not release the lock of a page (token %s)", token)


def clear_local() -> None:
    """Forget the pages this process keeps in memory (tests)."""
    with _local_lock:
        _local.clear()


def _declared(scopes):
    """``scopes`` as given to the decorators → a callable giving the page's scopes, ``ALL``
    first, each once."""
    if callable(scopes):
        return lambda request, args, kwargs: list(
            dict.fromkeys((ALL, *scopes(request, *args, **kwargs)))
        )
    fixed = list(dict.fromkeys((ALL, *(scopes or ()))))
    return lambda request, args, kwargs: fixed


# --- the query a page reads ---------------------------------------------------------------------

_SETTLED = "_pagecache_settled"  # request attribute: parameter → the value the view used ("")


def settle(request, name: str, value, default=None) -> None:
    """Say which value of query parameter ``name`` the page shows: ``value`` (a page number,
    a year, a choice), or ``default`` when it is the one shown without the parameter (then the
    canonical address has no ``name``). A page whose query says otherwise is redirected to the
    canonical address; one whose declared parameter is present but unsettled is not stored
    (see "One entry per real variant" above). Harmless outside a cached page."""
    settled = getattr(request, _SETTLED, None)
    if settled is None:
        settled = {}
        setattr(request, _SETTLED, settled)
    settled[name] = "" if value is None or value == default else str(value)


def settle_page(request, page, name: str = "page") -> None:
    """``settle`` the page number of a paged list: ``page`` (a Django ``Page``; None when the
    list is not paged) → its number (the address without ``name`` is the first page too)."""
    settle(request, name, page.number if page is not None else None)


def _read_only(request, names: tuple[str, ...]) -> None:
    """Remove from ``request`` every query parameter that is not in ``names`` (its ``GET``
    and its ``QUERY_STRING``, hence ``get_full_path`` and the page key), keeping the order of
    ``names``."""
    given = request.GET
    if not given:
        return
    kept = QueryDict(mutable=True)
    for name in names:
        if name in given:
            kept.setlist(name, given.getlist(name))
    query = kept.urlencode()
    if query == request.META.get("QUERY_STRING", ""):
        return
    kept._mutable = False
    request.GET = kept
    request.META["QUERY_STRING"] = query


def _canonical(request, params: tuple[str, ...]) -> tuple[bool, str | None]:
    """After the view ran: ``(storable, location)``. ``location``: the canonical address when a
    declared parameter of the query was settled to another value (or to its default: then the
    address has no such parameter), else None; ``storable``: every declared parameter present
    was settled to exactly its value."""
    settled = getattr(request, _SETTLED, {})
    storable, moved = True, False
    query = QueryDict(mutable=True)
    for name in params:
        if name not in request.GET:
            continue
        given = request.GET.getlist(name)
        if name not in settled:
            storable = False
            query.setlist(name, given)
        elif not settled[name] or given != [settled[name]]:
            moved = True
            if settled[name]:
                query[name] = settled[name]
        else:
            query[name] = settled[name]
    if not moved:
        return storable, None
    return False, request.path + (f"?{query.urlencode()}" if query else "")


# --- heavy outputs ------------------------------------------------------------------------------


def _take_slot() -> str | None:
    """One of the ``heavy_at_once()`` slots of the heavy outputs (``cache.add``, for
    ``HEAVY_HOLD`` seconds): its cache key, or None when every slot is taken. A cache error
    counts as a free slot (logged): the site answers as without a cache."""
    token = uuid.uuid4().hex
    try:
        for n in range(heavy_at_once()):
            key = f"{HEAVY_SLOT_PREFIX}{n}"
            if _cache().add(key, token, HEAVY_HOLD):
                return key
    except Exception:
        log.exception("page cache: could not take a slot for a heavy output")
        return ""
    return None


def _free_slot(slot: str) -> None:
    if slot:
        try:
            _cache().delete(slot)
        except Exception:
            log.exception("page cache: could not free a slot of the heavy outputs")


def preparing(request) -> HttpResponse:
    """The answer to a heavy output that cannot be made now (``heavy=True``): 503, a short page
    "Preparando el archivo" that reloads itself after ``HEAVY_RETRY`` seconds (and
    ``Retry-After`` for programs), never stored."""
    response = HttpResponse(
        render_to_string("preparing.html", {"retry": HEAVY_RETRY}, request=request), status=503
    )
    response["Retry-After"] = str(HEAVY_RETRY)
    patch_cache_control(response, no_store=True, max_age=0)
    return response


def _kept_per_reader(request) -> bool:
    """A logged-in reader's GET or HEAD of a heavy output, with no flash message waiting: kept
    in the cache under a key of their own (what they may see differs: a draft's director),
    so that they too make it once per change, not once per click."""
    return (
        request.method in ("GET", "HEAD")
        and request.user.is_authenticated
        and not _messages_waiting(request)
    )


def _made_in_a_slot(view, request, args, kwargs):
    """A heavy output computed outside the cache (a logged-in reader): in a slot, or
    ``preparing``."""
    slot = _take_slot()
    if slot is None:
        return preparing(request)
    try:
        return view(request, *args, **kwargs)
    finally:
        _free_slot(slot)


def cached_page(view=None, *, scopes=None, params=(), computed=(), heavy=False):
    """Decorator for a public page: for anonymous readers, answer from the page cache when it
    holds this page of the current generations of its scopes, else render and store it;
    either way the answer carries the key as its ETag, and a conditional GET that names it gets
    a 304. Logged-in users (whose pages differ: director links, private drafts) always get a
    fresh render.

    ``scopes``: what the page shows besides ``ALL`` (always in the key): a list of scopes, or
    a callable ``(request, *args, **kwargs) -> list[str]`` called with the view's arguments
    (``tournament_pages``). ``@cached_page`` without arguments: ``ALL`` only, for a page that
    shows no club data (a page that shows any must name its scopes, or it would change only
    with ``ALL``). ``params``: the query parameters the view reads (names; it tells the
    values it used: ``settle``), ``computed``: those whose pages are never stored (free text);
    every other parameter is removed before the view runs. ``heavy``: a PDF or a workbook (made in one of the
    ``HEAVY_AT_ONCE`` slots, else ``preparing``). The wrapper's ``page_scopes`` is ``scopes``
    as given (None: not given), ``page_params`` the parameters it reads."""
    if view is None:
        return partial(cached_page, scopes=scopes, params=params, computed=computed, heavy=heavy)
    declared = _declared(scopes)
    params, computed = tuple(params), tuple(computed)
    reads = params + computed
    hold = HEAVY_HOLD if heavy else LOCK_TIMEOUT

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        _read_only(request, reads)
        reader = ""
        if enabled() and heavy and _kept_per_reader(request):
            reader = str(request.user.pk)  # a heavy output made once per change for them too
        elif not enabled() or not _shared_request(request):
            if heavy:
                return _made_in_a_slot(view, request, args, kwargs)
            return view(request, *args, **kwargs)
        try:
            tokens, states = _read(declared(request, args, kwargs))
            missing = [scope for scope, token in tokens.items() if token is None]
            key = etag = entry = None
            not_modified = False
            if not missing:
                key = page_key(request, tokens, heavy=heavy, reader=reader)
                etag = _etag(key, states)
                not_modified = etag in parse_etags(request.headers.get("If-None-Match", ""))
                # a page with a notice: from the shared cache with its lock and latest note
                entry = None if not_modified else _get(key, shared=not states)
        except Exception:  # the cache server is down: every page is computed, as without cache
            log.exception("page cache: unavailable")
            if heavy:
                return _made_in_a_slot(view, request, args, kwargs)
            return view(request, *args, **kwargs)
        if not_modified:
            response = HttpResponseNotModified()
            response["ETag"] = etag
            return response
        lock = slot = beat = stored_at = None
        # the address without its generations: an earlier page of it may stand in (notices)
        latest = None
        if entry is None and states:
            latest = page_key(request, {}, heavy=heavy, reader=reader)
        if entry is None and key is not None:
            # A miss: one request computes the page, the others wait for it (herd protection;
            # a heavy output: they are told to come back; a page with a notice: the earlier
            # page, with the notice, when only what the notice covers is older).
            lock, entry, stored_at = _claim(
                key, hold=hold, wait=0 if heavy else WAIT_LIMIT, latest=latest, tokens=tokens
            )
            if lock == BUSY:
                return preparing(request)
            if lock is not None and not heavy:
                beat = _Heartbeat(LOCK_KEY_PREFIX + key)
            since = time.monotonic()
        if entry is not None:
            response = _response(entry, states, stored_at)
            if stored_at is not None:  # an earlier page: no ETag, the next request asks again
                return response
        else:
            stored = None
            try:
                if heavy:
                    slot = _take_slot()
                    if slot is None:
                        return preparing(request)  # the lock is released below: no page
                setattr(request, _COMPUTING, set(states))  # notices: markers (notice_marker)
                response = _compute(view, request, args, kwargs)
                storable, location = _canonical(request, reads) if reads else (True, None)
                if location is not None:
                    response = HttpResponseRedirect(location)
                if computed and any(name in request.GET for name in computed):
                    storable = False
                if not storable or not _storable(request, response):
                    if lock is not None:
                        since = beat.stop() if beat is not None else since
                        _release(key, lock, since, storable=False, hold=hold)
                        lock = None
                    return _with_notices(response, states)
                stored = _store(request, response, key, tokens, missing, heavy, reader, latest)
            finally:
                if slot is not None:
                    _free_slot(slot)
                if lock is not None:  # stored, failed or raised: the waiters look again
                    since = beat.stop() if beat is not None else since
                    _release(key, lock, since, storable=True, hold=hold)
            response = _with_notices(response, states)
            if stored is None:
                return response
            etag = _etag(stored, states)
        response["ETag"] = etag
        return response

    wrapper.page_scopes = scopes
    wrapper.page_params = reads
    return wrapper


def _compute(view, request, args, kwargs):
    """The page, computed by ``view``. A page that may be stored is computed from the primary,
    never from a lagging read replica: stored under the current generations, a replica's older
    data would outlive the save that drew them (docs/scale-out.md)."""
    with use_replica(False):
        return view(request, *args, **kwargs)


def _with_notices(response, states):
    """A computed ``response`` with its notice markers replaced (``_noticed``)."""
    if states and not response.streaming:
        response.content = _noticed(response.content, states)
    return response


def _store(
    request, response, key, tokens, missing, heavy=False, reader="", latest=None
) -> str | None:
    """Store the storable ``response`` under ``key``, or, when ``missing`` names scopes of
    ``tokens`` without a generation (``key`` is then None), draw them and store it under the
    key they make; a page that shows a notice (its marker is in it) is also noted as the
    latest of its address ``latest`` (the variant key). Returns the key it was stored under;
    None when it was not stored (a save drew a missing generation meanwhile, or the cache
    failed: logged)."""
    try:
        if missing:
            # A scope without a generation (first request, cache emptied): one is drawn only
            # for a page that is stored (an address typed at random adds nothing to the
            # cache), and after the page was computed: stored only if no save drew one
            # meanwhile (``add`` then fails), else the page could be older than that save.
            for scope in missing:
                tokens[scope] = uuid.uuid4().hex
                if not _cache().add(generation_key(scope), tokens[scope], None):
                    return None
            key = page_key(request, tokens, heavy=heavy, reader=reader)
        marked = latest is not None and any(
            _marker(scope).encode() in response.content for scope in tokens if scope in _notices
        )
        _put(key, response)
        if marked:  # the latest page of its address (``_stale_from``)
            note = (dict(tokens), key, timezone.now())
            _cache().set(LATEST_KEY_PREFIX + latest, note, PAGE_TIMEOUT)
        return key
    except Exception:
        log.exception("page cache: could not store a page")
        return None


def _revalidate(response, request):
    """Cache-Control for public pages: a cache may keep the page but must ask every time
    (public for anonymous readers, private once logged in). Partials and pages share URLs, so
    caches keep them apart by the HX-Request header. An answer already marked ``no-store``
    (``preparing``) is left as it is."""
    if "no-store" in response.get("Cache-Control", ""):
        return response
    if request.user.is_authenticated:
        patch_cache_control(response, private=True, no_cache=True, max_age=0, must_revalidate=True)
    else:
        patch_cache_control(response, public=True, max_age=0, must_revalidate=True)
    patch_vary_headers(response, ("Cookie", "HX-Request"))
    return response


def public_page(view=None, *, scopes=None, params=(), computed=(), heavy=False):
    """Decorator for every public page (tournaments, ranking, glossary): ``cached_page`` with
    these ``scopes``, ``params``, ``computed`` and ``heavy``, and the Cache-Control of
    ``_revalidate``. ``@public_page(scopes=...)``; bare ``@public_page``: ``ALL`` only (see
    ``cached_page``)."""
    if view is None:
        return partial(public_page, scopes=scopes, params=params, computed=computed, heavy=heavy)
    cached = cached_page(view, scopes=scopes, params=params, computed=computed, heavy=heavy)

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        return _revalidate(cached(request, *args, **kwargs), request)

    wrapper.page_scopes = scopes
    wrapper.page_params = cached.page_params
    return wrapper
