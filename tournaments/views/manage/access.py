"""Who may enter the directors' pages, and the shared helpers of their views.

``director_required`` guards every view; ``managed_tournament`` checks one tournament;
``status_for`` turns a DomainError into its HTTP status; the form-token helpers let a create
form (a double click, a reload, two taps on a slow phone) create only once.
"""

from __future__ import annotations

import re
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from tournaments.errors import DomainError
from tournaments.models import Tournament
from tournaments.permissions import can_enter_manage_area, can_manage


def director_required(view):
    """Login required; then the user must be a director (group "Directores"), a superuser, or a
    director of at least one tournament. Each view then checks the object: ``managed_tournament``
    (a tournament's own directors and superusers) or ``is_director`` (players, new tournaments)."""

    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not can_enter_manage_area(request.user):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return wrapper


def managed_tournament(request, slug) -> Tournament:
    """The tournament ``slug`` if the user may manage it; 404 / 403 otherwise."""
    t = get_object_or_404(Tournament, slug=slug)
    if not can_manage(request.user, t):
        raise PermissionDenied
    return t


def status_for(exc: DomainError) -> int:
    return 409 if exc.code in {"stale_version", "round_closed"} else 400


FORM_TOKEN_SECONDS = 24 * 60 * 60
_FORM_TOKEN = re.compile(r"[0-9a-f]{32}")


def _submission_key(request) -> str | None:
    token = request.POST.get("form_token", "")
    return f"clubsite:form:{token}" if _FORM_TOKEN.fullmatch(token) else None


def first_submission(request) -> bool:
    """Whether this POST is the first one of its form (the ``form_token`` the GET handed out):
    a double click, a reload of the answer or two taps on a slow phone send the same form
    twice, and only the first may create. The token is claimed in the shared cache with an
    atomic ``add``, so two copies arriving at once on two app servers still create once. A POST
    without a token (a script) is always a first."""
    key = _submission_key(request)
    return key is None or cache.add(key, True, FORM_TOKEN_SECONDS)


def release_submission(request) -> None:
    """The claimed submission created nothing (refused): the corrected form may be sent again."""
    key = _submission_key(request)
    if key:
        cache.delete(key)
