"""Compression of the large dynamic answers (HTML, CSV, iCalendar, JSON): gzip, or brotli when
the ``brotli`` library is installed (it comes with WeasyPrint's fonttools) and the client
prefers nothing else, for answers of ``MIN_SIZE`` bytes or more to a client that accepts it.
Static files are WhiteNoise's (compressed ahead, streamed: left alone here).

**Why only answers without secrets (BREACH).** An attacker who can make a victim's browser
ask a page many times, with a text of their choosing reflected in it, can read a secret of the
same page from the compressed sizes. So only answers that hold no secret are compressed:

- to an anonymous reader (no session user: nothing of theirs on the page),
- that did not use the CSRF token (``CSRF_COOKIE_NEEDS_UPDATE``: the page has no form token)
  and set no cookie,
- outside the directors' and the admin's paths (``http.is_private_path``).

These are exactly the pages the page cache serves to everyone (``clubsite.pagecache``), the
large ones (standings, lists, feeds, downloads). Logged-in pages, forms with a CSRF token and
everything under /gestion/ and /admin/ go uncompressed: they are small, and Django's
``GZipMiddleware`` would compress them with only random padding against BREACH (a mitigation
that costs more requests, not a guarantee).

**ETags.** A compressed body is another representation: its ETag is made weak (``W/"…"``, as
Django's ``GZipMiddleware`` does; RFC 9110 §8.8.1). ``If-None-Match`` compares weakly (RFC 9110
§13.1.2), so before the view runs the request's ``W/`` tags are read as their strong selves:
the page cache's own check (a strong ``"key"``) then answers 304 to a client that holds the
compressed page, and the 304 carries the weak tag that client holds. 304s and HEAD answers stay
without a body (``http.HeadWithoutBodyMiddleware``, outside this one, empties HEAD's after the
``Content-Length`` of the compressed body is set).

**Compressed once per page.** A cached page is served many times with the same bytes under the
same strong ETag; its compressed body is kept in this process's memory, keyed by the ETag and
the encoding (the last ``LRU_ENTRIES``, each at most ``LRU_MAX_BODY`` bytes), so a hit does not
compress again.
"""

from __future__ import annotations

import gzip
import threading
from collections import OrderedDict

from django.utils.cache import patch_vary_headers

from clubsite.http import is_private_path

try:  # optional: installed with WeasyPrint (fonttools[woff]); gzip alone without it
    import brotli
except ImportError:  # pragma: no cover - depends on the environment
    brotli = None

#: Answers shorter than this (bytes) are sent as they are.
MIN_SIZE = 1024
#: The media types compressed (``Content-Type`` without its parameters).
COMPRESSED_TYPES = frozenset({"text/html", "text/csv", "text/calendar", "application/json"})
#: Compressed bodies kept in memory per process, and the largest kept (compressed bytes).
LRU_ENTRIES = 64
LRU_MAX_BODY = 512 * 1024
#: gzip's level (Django's ``GZipMiddleware`` uses 6 too) and brotli's quality (5: about
#: gzip's speed, smaller bodies).
GZIP_LEVEL = 6
BROTLI_QUALITY = 5

_kept: OrderedDict[tuple[str, str], bytes] = OrderedDict()
_kept_lock = threading.Lock()


def accepted(header: str) -> set[str]:
    """The content codings an ``Accept-Encoding`` header accepts (lower case; ``q=0`` is a
    refusal; ``*`` accepts every coding not named): ``"gzip, br;q=0"`` → ``{"gzip"}``."""
    ok, refused, star = set(), set(), False
    for part in header.split(","):
        name, *params = (p.strip() for p in part.split(";"))
        if not name:
            continue
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        name = name.lower()
        if name == "*":
            star = q > 0
        elif q > 0:
            ok.add(name)
        else:
            refused.add(name)
    if star:
        ok |= {"gzip", "br"} - refused
    return ok


def choose(header: str) -> str | None:
    """The coding to send for ``Accept-Encoding`` ``header``: "br" when accepted and brotli is
    installed, else "gzip" when accepted, else None."""
    codings = accepted(header)
    if brotli is not None and "br" in codings:
        return "br"
    return "gzip" if "gzip" in codings else None


def compress(body: bytes, coding: str) -> bytes:
    """``body`` compressed with ``coding`` ("gzip": no timestamp, so equal bodies compress
    to equal bytes; "br")."""
    if coding == "br":
        return brotli.compress(body, quality=BROTLI_QUALITY)
    return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)


def _compressed(body: bytes, coding: str, etag: str | None) -> bytes:
    """``compress(body, coding)``, taken from memory when a strong ``etag`` (the same bytes)
    was compressed before."""
    if etag is None or not etag.startswith('"'):
        return compress(body, coding)
    key = (etag, coding)
    with _kept_lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    out = compress(body, coding)
    if len(out) <= LRU_MAX_BODY:
        with _kept_lock:
            _kept[key] = out
            while len(_kept) > LRU_ENTRIES:
                _kept.popitem(last=False)
    return out


def forget() -> None:
    """Forget the compressed bodies kept in memory (tests)."""
    with _kept_lock:
        _kept.clear()


def _secret_free(request, response) -> bool:
    """Whether ``response`` holds no secret of the reader (see the module's docstring)."""
    user = getattr(request, "user", None)
    return (
        user is not None
        and not user.is_authenticated
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and not response.cookies
        and not is_private_path(request.path_info)
    )


def _compressible(response) -> bool:
    media = response.get("Content-Type", "").split(";", 1)[0].strip().lower()
    return (
        response.status_code == 200
        and not response.streaming
        and not response.has_header("Content-Encoding")
        and media in COMPRESSED_TYPES
        and len(response.content) >= MIN_SIZE
    )


class CompressionMiddleware:
    """Compress the large answers without secrets (see the module's docstring); ``Vary:
    Accept-Encoding`` on every answer that would be compressed for a client that accepts it.
    In ``MIDDLEWARE`` inside ``HeadWithoutBodyMiddleware`` and the security ones, outside the
    sessions and authentication (it reads ``request.user`` on the way out)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        weak = self._strong_tags(request)
        response = self.get_response(request)
        if response.status_code == 304:
            etag = response.get("ETag", "")
            if etag.startswith('"') and etag in weak:
                response["ETag"] = "W/" + etag  # the representation the client holds
            return response
        if not _compressible(response) or not _secret_free(request, response):
            return response
        patch_vary_headers(response, ("Accept-Encoding",))
        coding = choose(request.META.get("HTTP_ACCEPT_ENCODING", ""))
        if coding is None:
            return response
        etag = response.get("ETag")
        body = _compressed(response.content, coding, etag)
        if len(body) >= len(response.content):
            return response
        response.content = body
        response["Content-Length"] = str(len(body))
        response["Content-Encoding"] = coding
        if etag and etag.startswith('"'):
            response["ETag"] = "W/" + etag
        return response

    @staticmethod
    def _strong_tags(request) -> set[str]:
        """Rewrite ``If-None-Match`` so that its weak tags (``W/"x"``) read as strong ones
        (``"x"``: the comparison is weak, RFC 9110 §13.1.2) for the checks inside; returns
        the strong tags the client held as weak ones."""
        header = request.META.get("HTTP_IF_NONE_MATCH")
        if not header or "W/" not in header:
            return set()
        tags = [t.strip() for t in header.split(",")]
        weak = {t[2:] for t in tags if t.startswith("W/")}
        request.META["HTTP_IF_NONE_MATCH"] = ", ".join(
            t[2:] if t.startswith("W/") else t for t in tags
        )
        request.__dict__.pop("headers", None)  # ``request.headers`` is read from META again
        return weak
