"""Who may enter the directors' pages, and the shared helpers of their views.

``director_required`` guards every view; ``managed_tournament`` checks one tournament;
``status_for`` turns a DomainError into its HTTP status; ``one_submission`` (and the view
decorator ``submitted_once``) lets a create form (a double click, a reload, two taps on a slow
phone, two copies at once) create only once: the one-time form tokens, also used by the admin's
forms (``tournaments.admin.base.SubmittedOnceAdmin``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from functools import wraps
from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from clubsite import once
from tournaments.errors import DomainError
from tournaments.models import Tournament
from tournaments.permissions import can_enter_manage_area, can_manage


def director_required(view):
    """Login required; then the user must be a director (group "Directores"), a superuser, or a
    director of at least one tournament. Each view then checks the object: ``managed_tournament``
    (a tournament's own directors and superusers) or ``is_director`` (players, new tournaments).

    Logged out meanwhile (the session expired while a form was open): a page (GET) goes to the
    login page and back; a form sent with HTMX gets 401 and no page, so the row keeps what was
    typed and says why (static/js/forms.js); a plain form goes to the login page and then back
    to the page it was sent from (the form's own address takes no GET)."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            if request.method in ("GET", "HEAD"):
                return redirect_to_login(request.get_full_path())
            if request.htmx:
                return HttpResponse(status=401)
            back = request.headers.get("referer", "")
            if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
                back = reverse("manage:home")
            return redirect_to_login(urlsplit(back)._replace(scheme="", netloc="").geturl())
        if not can_enter_manage_area(request.user):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper


def managed_tournament(request, slug) -> Tournament:
    """The tournament ``slug`` if the user may manage it; otherwise 403, or 404 for a draft
    (as for a slug that does not exist: who may not see a draft is not told it exists)."""
    t = get_object_or_404(Tournament, slug=slug)
    if not can_manage(request.user, t):
        if not t.is_public:
            raise Http404
        raise PermissionDenied
    return t


def posted_object(request, model, field: str, **lookup):
    """The ``model`` row whose id the form posted as ``field``, among ``lookup`` (e.g. its
    tournament); 404 for a missing, non-numeric or out-of-range id (never a 500)."""
    text = request.POST.get(field, "")
    if not (text.isascii() and text.isdigit() and len(text) <= 18):
        raise Http404
    return get_object_or_404(model, pk=int(text), **lookup)


def status_for(exc: DomainError) -> int:
    return 409 if exc.code in {"stale_version", "round_closed", "table_removed"} else 400


# --- one-time form tokens: a create form creates once --------------------------------------------

FORM_TOKEN_SECONDS = 24 * 60 * 60  # a used token is remembered for a day
FORM_TOKEN_CLAIM_SECONDS = 10 * 60  # a claim whose request never ended (a killed worker) lapses
FORM_TOKEN_WAIT_SECONDS = 10.0  # how long a copy waits for the first copy's outcome
FORM_TOKEN_POLL_SECONDS = 0.1
_FORM_TOKEN = re.compile(r"[0-9a-f]{32}")
_NOT_DATA = frozenset({"csrfmiddlewaretoken", "form_token"})

log = logging.getLogger(__name__)


def form_token_for(data=None) -> str:
    """The one-time token (32 hex digits) a create form carries in its hidden ``form_token``:
    the one in ``data`` (the posted data of a refused form shown again, so that its corrected
    copy is the same submission) when it is well formed, else a new random one. The template
    tag ``{% form_token %}`` (``templatetags/form_tokens.py``) renders it."""
    get = getattr(data, "get", None)
    token = str(get("form_token", "")) if get else ""
    return token if _FORM_TOKEN.fullmatch(token) else secrets.token_hex(16)


def _fingerprint(request) -> str:
    """What this POST says, without its tokens and the admin's button names (``_save``,
    ``_continue`` ...): two copies of one form send the same; an old form page used again for
    other data (the browser's back button) does not. Files count by name and size."""
    fields = sorted(
        (key, request.POST.getlist(key))
        for key in request.POST
        if key not in _NOT_DATA and not key.startswith("_")
    )
    files = sorted(
        (key, [(f.name, f.size) for f in request.FILES.getlist(key)]) for key in request.FILES
    )
    return hashlib.sha256(json.dumps([fields, files]).encode()).hexdigest()


class Submission:
    """One POST of a create form, as ``one_submission`` found it.

    ``repeated``: an earlier copy of this form (same ``form_token``) already saved, or is still
    saving after ``FORM_TOKEN_WAIT_SECONDS``: this copy must create nothing. ``url`` then says
    where the first copy's outcome is shown (None if unknown). A first copy calls
    ``saved(url)`` once it has created; a POST without a token (a script, a test client) is
    always a first copy."""

    def __init__(self, request):
        token = request.POST.get("form_token", "")
        self.key = f"clubsite:form:{token}" if _FORM_TOKEN.fullmatch(token) else None
        self.fingerprint = _fingerprint(request) if self.key else ""
        self.repeated = False
        self.url: str | None = None
        self.same_data = True
        self.pending = False
        self._claimed = False
        self._saved_url: str | None = None

    def saved(self, url: str) -> None:
        """This (first) copy created what its form asks; ``url`` shows it. Later copies of the
        form are sent there. Call it right after the service returned, before anything that
        could still fail: the token stays used even if the request then fails."""
        self._saved_url = str(url)

    @property
    def message(self) -> str:
        """What a repeated copy tells the user (the first copy's own message is not repeated)."""
        if self.pending:
            return _(
                "Ese formulario todavía se está guardando: comprueba en unos segundos que aparece."
            )
        if not self.same_data:
            return _(
                "Ese formulario ya se había enviado y no se ha vuelto a guardar. Si quieres "
                "añadir otro, rellena el formulario de nuevo."
            )
        return _("Ya se había guardado: el formulario llegó dos veces y se guardó una sola vez.")

    def answer(self, request, fallback_url: str):
        """The answer of a repeated copy: the message, and a redirect to where the first copy's
        outcome is shown (``fallback_url`` when that is not known)."""
        messages.info(request, self.message)
        return redirect(self.url or fallback_url)

    def _claim(self) -> None:
        """Claim the token in the shared cache (``clubsite.once.claim_or_wait``: two copies
        arriving at once on two app servers still create once); if an earlier copy holds it,
        wait for its outcome: saved (this copy is a repeat), or refused (the claim is free
        again: take it)."""

        def look():
            state = cache.get(self.key)
            if state is None:  # released (refused) meanwhile: try to take it
                return once.FREE, None
            if not isinstance(state, dict):  # a token used before this format: it saved
                return once.DONE, None
            self.same_data = state.get("fp") == self.fingerprint
            if "url" in state:
                return once.DONE, state["url"]
            return once.HELD, None

        claim = once.claim_or_wait(
            cache,
            self.key,
            {"fp": self.fingerprint},
            hold=FORM_TOKEN_CLAIM_SECONDS,
            wait=FORM_TOKEN_WAIT_SECONDS,
            poll=FORM_TOKEN_POLL_SECONDS,
            look=look,
        )
        self._claimed = claim.taken
        if not claim.taken:
            self.repeated, self.url, self.pending = True, claim.outcome, claim.timed_out

    def _finish(self) -> None:
        """Keep the token as used, with the outcome's URL, if this copy created; else release
        it (refused, or failed with an exception), so the corrected form can be sent."""
        if not self._claimed:
            return
        if self._saved_url is not None:
            cache.set(
                self.key, {"fp": self.fingerprint, "url": self._saved_url}, FORM_TOKEN_SECONDS
            )
        else:
            cache.delete(self.key)


@contextmanager
def one_submission(request) -> Iterator[Submission]:
    """The one-time form token of a create form (a double tap, a resend of the answer, a slow
    phone's second try, the same page posted twice at once): only the first copy may create.

    Usage::

        with one_submission(request) as sub:
            if sub.repeated:
                return sub.answer(request, fallback_url)
            ... check the form; a refusal simply returns its page (the token is released) ...
            obj = services.create_...(...)
            sub.saved(url_of(obj))
            return redirect(url_of(obj))

    On leaving the block the token stays used if ``saved`` was called, and is released
    otherwise (the form was refused, or the request failed with an exception), so the same
    form, corrected, can be sent again. If the shared cache is unreachable, the POST goes
    through as a first copy (and the error is logged): the form keeps working."""
    sub = Submission(request)
    if sub.key is not None:
        try:
            sub._claim()
        except Exception:  # the cache server is down: save as without a token
            log.exception("form token: the shared cache is unavailable")
    try:
        yield sub
    finally:
        try:
            sub._finish()
        except Exception:
            log.exception("form token: could not record the outcome")


# Which posts carry a token: every form that creates rows (new player, new tournament, entry,
# castigo, sorteo, CSV import, todos-con-todos, pairings; the admin's add and change forms).
# Without one, because a second copy cannot create: a table's result row (its ``version``: the
# copy is refused as "stale_version"), closing / reopening a round, (un)dropping an entry,
# (de)activating a player and the edit forms (they set the same values again), and removals
# (the copy finds nothing left to remove).


def submitted_once(view):
    """Decorator of a view whose POST creates: the POST runs inside ``one_submission`` and the
    view finds it in ``request.submission`` (check ``repeated`` first, call ``saved(url)`` after
    creating). Other methods pass through."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.method != "POST":
            return view(request, *args, **kwargs)
        with one_submission(request) as sub:
            request.submission = sub
            return view(request, *args, **kwargs)

    return wrapper


def say_if_published(request, t: Tournament) -> None:
    """Tell the director when the write just made (pairing a round, the round robin, an
    import) took ``t`` out of draft: a tournament starts running with its first round and from
    then on the public pages show it. ``t`` is the tournament as read before the write."""
    if t.status == Tournament.Status.DRAFT and (
        Tournament.objects.filter(pk=t.pk).exclude(status=Tournament.Status.DRAFT).exists()
    ):
        messages.info(
            request,
            _(
                "«{name}» estaba en borrador y ahora está en curso: ya se ve en las páginas "
                "públicas."
            ).format(name=t.name),
        )
