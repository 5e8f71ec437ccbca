"""HTTP edges shared by every URL: bounded number converters and the directors' pages' caching.

**Numbers in URLs.** Every number in a path of the site goes through one of the converters
registered here (importing this module registers them; every URL module imports it):

========== ==================================== ==========================================
converter  accepts                              used for
========== ==================================== ==========================================
``year``   1 … 9999                             a ranking year (``/ranking/2026.csv``)
``id``     1 … 9223372036854775807 (2**63 − 1)  primary keys: players, tables, entries,
                                                castigos (``BigAutoField``, bigint)
``number`` 1 … 32767                            round and table numbers
                                                (``PositiveSmallIntegerField``, smallint)
========== ==================================== ==========================================

Digits only, no sign, no leading zero. A number outside its range (0, 32768 for a round,
99999999999999999999 for an id, 10000 for a year) does not match the pattern, so the answer is
a 404 before any view or query runs: never a database overflow (a 500) or a page for a
number that cannot exist. ``reverse()`` refuses such numbers too (``NoReverseMatch``).

**HEAD answers wherever GET does.** A page that takes no form is ``require_safe`` (GET and
HEAD); a page that shows a form and takes it back is ``form_page`` (GET, HEAD and POST; the view
tells a read from a post by ``request.method == "POST"``, never by ``== "GET"``); an address
that only takes a form is ``require_POST``. Django's ``require_GET``, and
``require_http_methods`` anywhere but here, are refused by ruff (``banned-api`` in
pyproject.toml): they answer 405 to a HEAD that GET would answer (a link checker, a monitor, a
chat app's preview). ``tests/test_every_address.py`` walks every URL pattern and compares
HEAD with GET. A HEAD's answer leaves without its body whatever the server
(``HeadWithoutBodyMiddleware``: gunicorn sends what the application gives it).

**Directors' pages are never cached.** ``PrivatePagesMiddleware`` gives every response under
the directors' pages (``/gestion/``) and the Django admin (``/admin/``), errors and redirects
included, ``Cache-Control: private, no-store``: they show players' email and phone, so no
browser, proxy or CDN may keep a copy. ``clubsite.pagecache`` never stores them either
(``is_private_path``).
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponseRedirect
from django.urls import (
    NoReverseMatch,
    Resolver404,
    get_script_prefix,
    get_urlconf,
    register_converter,
    resolve,
    reverse,
)
from django.views.decorators.http import require_http_methods

#: Decorator of a page with a form: GET and HEAD show it, POST sends it; anything else is a
#: 405 (``FormOnlyAddressMiddleware`` never sends such a page elsewhere: it takes GET).
form_page = require_http_methods(["GET", "HEAD", "POST"])

#: Largest primary key: PostgreSQL's bigint (``BigAutoField``) and SQLite's INTEGER.
MAX_ID = 2**63 - 1
#: Largest round or table number: PostgreSQL's smallint (``PositiveSmallIntegerField``).
MAX_NUMBER = 32767
#: Ranking years accepted in URLs.
MIN_YEAR, MAX_YEAR = 1, 9999

PRIVATE_CACHE_CONTROL = "private, no-store"


class BoundedIntConverter:
    """A positive whole number in ``minimum..maximum``, written in plain digits (no sign, no
    leading zero). ``to_python`` raises ``ValueError`` (the pattern does not match: 404) and
    ``to_url`` raises ``ValueError`` (``NoReverseMatch``) outside the range."""

    minimum = 1
    maximum = MAX_ID
    regex = "[1-9][0-9]{0,18}"

    def _checked(self, value: int) -> int:
        if not self.minimum <= value <= self.maximum:
            raise ValueError(f"{value} is outside {self.minimum}..{self.maximum}")
        return value

    def to_python(self, value: str) -> int:
        return self._checked(int(value))

    def to_url(self, value) -> str:
        if isinstance(value, bool):
            raise ValueError("a boolean is not a number of a URL")
        return str(self._checked(int(value)))


class IdConverter(BoundedIntConverter):
    """A primary key: 1 … 2**63 − 1."""

    maximum = MAX_ID
    regex = "[1-9][0-9]{0,18}"


class NumberConverter(BoundedIntConverter):
    """A round or table number: 1 … 32767."""

    maximum = MAX_NUMBER
    regex = "[1-9][0-9]{0,4}"


class YearConverter(BoundedIntConverter):
    """A calendar year: 1 … 9999."""

    minimum, maximum = MIN_YEAR, MAX_YEAR
    regex = "[1-9][0-9]{0,3}"


CONVERTERS = {"id": IdConverter, "number": NumberConverter, "year": YearConverter}

for _name, _converter in CONVERTERS.items():
    register_converter(_converter, _name)  # once per process: this module is imported once


# --- private pages -------------------------------------------------------------------------------


_prefixes: dict[tuple, tuple[str, ...]] = {}


def private_prefixes() -> tuple[str, ...]:
    """The path prefixes of the pages that must never be cached: the directors' pages and the
    Django admin (``("/gestion/", "/admin/")``), read from the URLconf (a URLconf without
    one of them, in a test, simply has fewer). Read once per URLconf and script prefix in
    each process (every request asks, twice: two ``reverse`` calls each time were a tenth
    of a page-cache hit)."""
    key = (settings.ROOT_URLCONF, get_urlconf(), get_script_prefix())
    found = _prefixes.get(key)
    if found is None:
        prefixes = []
        for name in ("manage:home", "admin:index"):
            try:
                prefixes.append(reverse(name))
            except NoReverseMatch:
                pass
        found = _prefixes[key] = tuple(prefixes)
    return found


def is_private_path(path: str) -> bool:
    """Whether ``path`` (``request.path_info``) is a directors' page or an admin page."""
    return path.startswith(private_prefixes())


class HeadWithoutBodyMiddleware:
    """A HEAD answer carries GET's headers (``Content-Length`` included) and no body, whatever
    the server: gunicorn sends what the application gives it. Outermost in ``MIDDLEWARE``, so
    every other middleware sees the answer GET would have."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.method == "HEAD":
            if response.streaming:
                response.streaming_content = []
            else:
                length = len(response.content)
                response.content = b""
                if not response.has_header("Content-Length") or length:
                    response["Content-Length"] = str(length)
        return response


class PrivatePagesMiddleware:
    """``Cache-Control: private, no-store`` on every response of a private path (see the
    module's docstring), replacing whatever the view set (the admin's ``never_cache``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if is_private_path(request.path_info):
            response["Cache-Control"] = PRIVATE_CACHE_CONTROL
        return response


class FormOnlyAddressMiddleware:
    """A plain visit (GET or HEAD) to an address that only takes a form (a ``require_POST``
    view's 405, such as ``…/mesa/<id>/resultado/`` reloaded from the address bar, or the
    language switcher sending a reader back to the page a refused form was answered on) goes to
    the nearest page above it instead of a blank "405 Method Not Allowed": the path loses its
    last segments until it names a page (``…/ronda/2/castigos/`` → ``…/ronda/2/``), answered
    with a 303. Nothing is read or written on the way."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            response.status_code == 405
            and request.method in ("GET", "HEAD")
            and "GET" not in response.get("Allow", "")
        ):
            return HttpResponseSeeOther(page_above(request.path_info))
        return response


def page_above(path: str) -> str:
    """The nearest address above ``path`` that the URL configuration knows (``"/"`` at worst):
    ``"/gestion/torneos/copa/mesa/47/resultado/"`` → ``"/gestion/torneos/copa/"``."""
    parts = [p for p in path.split("/") if p]
    while parts:
        parts.pop()
        candidate = "/" + "".join(f"{p}/" for p in parts)
        try:
            resolve(candidate)
        except Resolver404:
            continue
        return candidate
    return "/"


class HttpResponseSeeOther(HttpResponseRedirect):
    status_code = 303


class RefusedFormMiddleware:
    """A refused form sent by a browser without JavaScript is answered at the page's own
    address, so that a reload shows the page again instead of sending the form again.

    A plain (not HTMX) POST whose answer is a refusal page (400, 409 or 422, HTML) from a
    browser (it asked for ``text/html``: a navigation) is kept in the shared cache for
    ``KEEP_SECONDS`` under a random token, and the browser is sent (303) to the page the form
    came from (its same-origin ``Referer``; the form's own address without one), with a cookie
    naming the token for that path. The GET that follows is answered with the kept page,
    once: its status, its text with the values typed and the messages in words, its focus.
    The cookie is deleted with that answer, so a reload (or the language switcher) shows the
    page as it is now, and nothing is ever sent twice. The page is shown only to the browser
    that holds the cookie (HttpOnly, SameSite=Lax; Secure over HTTPS) and only at that path;
    anything else (an HTMX request, a save that worked, a client that did not ask for HTML
    such as a script or the test client) is left as it is."""

    STATUSES = frozenset({400, 409, 422})
    COOKIE = "clubsite_refused"
    KEY_PREFIX = "clubsite:refused:"
    KEEP_SECONDS = 120

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = request.COOKIES.get(self.COOKIE)
        if token and request.method == "GET" and not request.headers.get("HX-Request"):
            kept = self._take(token, request.get_full_path())
            if kept is not None:
                return kept
        response = self.get_response(request)
        if self._refusal_to_move(request, response):
            return self._moved(request, response)
        return response

    def _refusal_to_move(self, request, response) -> bool:
        return (
            request.method == "POST"
            and not request.headers.get("HX-Request")
            and response.status_code in self.STATUSES
            and not response.streaming
            and response.get("Content-Type", "").startswith("text/html")
            and "text/html" in request.headers.get("Accept", "")
        )

    def _moved(self, request, response):
        import secrets

        from django.core.cache import cache

        target = _own_page(request)
        token = secrets.token_urlsafe(18)
        entry = (target, response.status_code, response["Content-Type"], response.content)
        try:
            cache.set(self.KEY_PREFIX + token, entry, self.KEEP_SECONDS)
        except Exception:  # no shared cache: answer in place, as before
            return response
        moved = HttpResponseSeeOther(target)
        for cookie in response.cookies.values():  # e.g. the messages or CSRF cookie
            moved.cookies[cookie.key] = cookie
        moved.set_cookie(
            self.COOKIE,
            token,
            max_age=self.KEEP_SECONDS,
            path=target.split("?", 1)[0],
            httponly=True,
            samesite="Lax",
            secure=request.is_secure(),
        )
        return moved

    def _take(self, token: str, full_path: str):
        from django.core.cache import cache
        from django.http import HttpResponse

        key = self.KEY_PREFIX + token
        try:
            entry = cache.get(key)
        except Exception:
            return None
        if entry is None or entry[0] != full_path:
            return None
        cache.delete(key)
        _target, status, content_type, body = entry
        response = HttpResponse(body, status=status, content_type=content_type)
        response["Cache-Control"] = "private, no-store"
        response.delete_cookie(self.COOKIE, path=full_path.split("?", 1)[0], samesite="Lax")
        return response


def _own_page(request) -> str:
    """The address of the page a form was sent from: its ``Referer`` when it is this site's
    (path and query), else the form's own address."""
    from urllib.parse import urlsplit

    referer = urlsplit(request.headers.get("Referer", ""))
    if referer.netloc and referer.netloc == request.get_host() and referer.path.startswith("/"):
        return referer.path + (f"?{referer.query}" if referer.query else "")
    return request.get_full_path()
