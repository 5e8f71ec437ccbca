"""Who may do what (issue "reliability and security", point 1).

- anonymous visitors and logged-in players (no staff flag, no group): the public pages only;
- directors: active staff users in the "Directores" group. They manage players, create
  tournaments, and manage the tournaments they direct (``Tournament.directors``; the creator is
  added by ``services.create_tournament``);
- a user listed in ``Tournament.directors`` (even outside the group) manages that tournament only;
- superusers: everything.

Who may *see* what: a tournament any visitor, except a draft, which only those who may manage
it see (``can_see``; the list side is ``Tournament.objects.public``); a player any visitor,
except one whose every entry is in a draft, whom club directors and the directors of such a
draft see (``can_see_player``; the list side is ``Player.objects.public``).
"""

from __future__ import annotations

from django.db.models import Q

from tournaments.models import Entry, Player

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


def can_see(user, tournament) -> bool:
    """True when ``user`` may see ``tournament``'s pages (every public page that names it: the
    tournament, its rounds, standings, paper, sign-up, check-in, clock, downloads): anyone
    when it is published (``Tournament.is_public``), only those who may manage it
    (``can_manage``) while it is a draft. One query for a draft, none otherwise."""
    return tournament.is_public or can_manage(user, tournament)


def can_see_player(user, player: Player) -> bool:
    """True when ``user`` may see ``player``'s public pages (the ranking's player page, its
    history, head to head): anyone when the player is public (``Player.objects.public``: not
    only in drafts); otherwise a club director (``is_director``, who manages every player) or
    a director of a draft the player is entered in. One or two queries."""
    if Player.objects.public().filter(pk=player.pk).exists() or is_director(user):
        return True
    if not _active(user):
        return False
    return Entry.objects.filter(
        Q(player1=player) | Q(player2=player), tournament__directors=user
    ).exists()
