"""The one lookup of the public pages: a tournament or a player by its address, 404 for what the
visitor may not see (issue 25, point 6: drafts are private on every page of the tournament).

Every public view that takes a tournament's slug (its page, rounds, standings, downloads, paper,
sign-up, check-in, clock) calls ``tournament_or_404``; every one that takes a player's id (the
ranking's player pages, head to head) calls ``player_or_404``. The rule itself is
``tournaments.permissions.can_see`` / ``can_see_player`` (lists: ``Tournament.objects.public``,
``Player.objects.public``); ``tests/test_every_address.py`` walks every URL pattern of the site
with a draft and fails for a page that shows it to a visitor.
"""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy as _

from tournaments.models import Player, Tournament
from tournaments.permissions import can_see, can_see_player


def tournament_or_404(request, slug: str) -> Tournament:
    """The tournament ``slug`` if ``request.user`` may see it (``permissions.can_see``: a
    published one, or a draft they may manage). Raises ``Http404`` ("No existe ese torneo.")
    for a slug nobody uses and ("Ese torneo todavía no está publicado.") for a draft: both
    answer the same 404 page (the message is only shown with ``DEBUG``). One query (two for a
    draft)."""
    t = Tournament.objects.filter(slug=slug).first()
    if t is None:
        raise Http404(_("No existe ese torneo."))
    if not can_see(request.user, t):
        raise Http404(_("Ese torneo todavía no está publicado."))
    return t


def player_or_404(request, pk: int) -> Player:
    """The player ``pk`` if ``request.user`` may see them (``permissions.can_see_player``:
    not only in drafts, or a director who may see such a draft). Raises ``Http404`` ("No
    existe ese jugador.") otherwise, as for an id nobody has. Two or three queries."""
    p = get_object_or_404(Player, pk=pk)
    if not can_see_player(request.user, p):
        raise Http404(_("No existe ese jugador."))
    return p


def round_back_url(request, t: Tournament, number: int) -> str:
    """Where "Volver a la ronda" of a round's printable pages (score sheets, players by name)
    leads: the directors' round page for someone who manages ``t`` (``permissions.can_manage``:
    they came from there to print), the public round page for everyone else. A cached public
    page is only ever the anonymous reader's, so the director's link never reaches the cache."""
    from django.urls import reverse

    from tournaments.permissions import can_manage

    if request.user.is_authenticated and can_manage(request.user, t):
        return reverse("manage:round", args=[t.slug, number])
    return reverse("public:round", args=[t.slug, number])
