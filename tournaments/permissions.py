"""Who may do what (issue "reliability and security", point 1).

- anonymous visitors and logged-in players (no staff flag, no group): the public pages only;
- directors: active staff users in the "Directores" group. They manage players, create
  tournaments, and manage the tournaments they direct (``Tournament.directors``; the creator is
  added by ``services.create_tournament``);
- a user listed in ``Tournament.directors`` (even outside the group) manages that tournament only;
- superusers: everything.
"""

from __future__ import annotations

DIRECTORS_GROUP = "Directores"


def _active(user) -> bool:
    return user is not None and getattr(user, "is_authenticated", False) and user.is_active


def is_director(user) -> bool:
    """True for an active superuser, or an active staff user in the "Directores" group: may
    manage players and create tournaments (not manage other directors' tournaments)."""
    if not _active(user):
        return False
    if user.is_superuser:
        return True
    return user.is_staff and user.groups.filter(name=DIRECTORS_GROUP).exists()


def can_manage(user, tournament) -> bool:
    """True when ``user`` may change ``tournament``: an active superuser, or an active user
    listed in ``tournament.directors``. Being in the "Directores" group is not enough."""
    if not _active(user):
        return False
    if user.is_superuser:
        return True
    return (
        tournament is not None
        and tournament.pk is not None
        and (tournament.directors.filter(pk=user.pk).exists())
    )


def can_enter_manage_area(user) -> bool:
    """True when ``user`` may open the directors' pages at all: a director (group or
    superuser) or a director of at least one tournament."""
    return is_director(user) or (_active(user) and user.directed_tournaments.exists())
