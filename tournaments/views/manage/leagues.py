"""Directors' pages: the leagues (list, new, edit with their tournaments), for club directors
(the "Directores" group and superusers: ``permissions.is_director``). A league only groups
tournaments, so any club director may define one with any tournaments
(``services.create_league`` / ``update_league``; docs/SCORING.md, "Leagues")."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from clubsite.http import form_page
from tournaments import services
from tournaments.errors import DomainError
from tournaments.forms import LeagueForm
from tournaments.models import League
from tournaments.permissions import is_director
from tournaments.views.manage.access import director_required, submitted_once


def _club_director(request) -> None:
    if not is_director(request.user):
        raise PermissionDenied


@director_required
@require_safe
def league_list(request):
    """Every league, newest season first, with how many tournaments each has."""
    _club_director(request)
    items = League.objects.annotate(n_tournaments=Count("tournaments")).order_by(
        "-season", "name", "pk"
    )
    return render(request, "tournaments/manage/league_list.html", {"leagues": items})


def _form_page(request, form, league, status=200):
    return render(
        request,
        "tournaments/manage/league_form.html",
        {"form": form, "league": league},
        status=status,
    )


@director_required
@form_page
@submitted_once
def league_edit(request, league=None):
    """Create (``league`` None) or change a league and choose its tournaments. A refusal (400)
    shows the form again with what was typed and every problem beside its field
    (``LeagueForm.clean`` asks ``services.league_problems``). The new-league form carries a
    one-time token: a second copy creates nothing and goes to the league the first created."""
    _club_director(request)
    found = get_object_or_404(League, slug=league) if league else None
    if request.method != "POST":
        if found:
            initial = {
                **{k: getattr(found, k) for k in services.LEAGUE_FIELDS},
                "tournaments": list(found.tournaments.values_list("pk", flat=True)),
            }
        else:
            initial = {
                "season": timezone.localdate().year,
                "points_scale": League._meta.get_field("points_scale").default,
                "participation_points": 0,
            }
        return _form_page(request, LeagueForm(initial=initial, league=found), found)
    if request.submission.repeated:
        return request.submission.answer(request, reverse("manage:leagues"))
    form = LeagueForm(request.POST, league=found)
    if not form.is_valid():
        return _form_page(request, form, found, status=400)
    try:
        if found:
            found = services.update_league(
                acting_user=request.user,
                league=found,
                tournaments=form.cleaned_data["tournaments"],
                **form.values(),
            )
            messages.success(request, _("Liga «{name}» guardada.").format(name=found.name))
        else:
            found = services.create_league(
                acting_user=request.user,
                tournaments=form.cleaned_data["tournaments"],
                **form.values(),
            )
            request.submission.saved(reverse("manage:league_edit", args=[found.slug]))
            messages.success(request, _("Liga «{name}» creada.").format(name=found.name))
    except DomainError as exc:  # a change that came in meanwhile (another director)
        field = services.LEAGUE_ERROR_FIELDS.get(exc.code)
        form.add_error(field if field in form.fields else None, exc.message)
        return _form_page(request, form, found, status=400)
    return redirect("manage:leagues")
