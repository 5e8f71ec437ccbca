"""Who may manage what: directors (the "Directores" group or a tournament's director list) and superusers."""
from __future__ import annotations

from django.contrib.auth.models import AnonymousUser

DIRECTORS_GROUP = "Directores"


def is_director(user) -> bool:
    """True for a superuser, or an active staff user in the "Directores" group."""
    if user is None or isinstance(user, AnonymousUser) or not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser:
        return True
    return user.is_staff and user.groups.filter(name=DIRECTORS_GROUP).exists()


def can_manage(user, tournament) -> bool:
    """True when ``user`` may change ``tournament``: superuser, a director in the group, or one of
    the tournament's own directors (``Tournament.directors``)."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    if user.is_superuser:
        return True
    if tournament is not None and tournament.directors.filter(pk=user.pk).exists():
        return True
    return is_director(user)
