"""Check-in on the day (tournament day, part 2): the director's list
(``/gestion/torneos/<slug>/presentes/``) and the players' own check-in with the day's code
(``/torneos/<slug>/presente/``). The writes are ``services.checkin``'s."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache

from clubsite.http import form_page
from clubsite.limits import limited, release
from tournaments import names, services
from tournaments.errors import DomainError
from tournaments.models import Entry, Tournament
from tournaments.views import sharing
from tournaments.views.manage.access import (
    director_required,
    managed_tournament,
    posted_object,
)
from tournaments.views.visibility import tournament_or_404


def roll_call(t: Tournament, q: str = "") -> dict:
    """The check-in list of ``t``: ``entries`` (not withdrawn, by name; only those whose name
    contains ``q`` up to case and accents, when given), ``present`` and ``missing`` (counted
    over all the entries still in, whatever ``q``), ``counts`` (the sentence). Two queries."""
    everyone = sorted(
        t.entries.filter(dropped_after_round__isnull=True).select_related("player1", "player2"),
        key=lambda e: names.key(e.name),
    )
    present = sum(1 for e in everyone if e.present)
    missing = len(everyone) - present
    wanted = names.key(q)
    shown = [e for e in everyone if wanted in names.key(e.name)] if wanted else everyone
    counts = "{present} · {missing}".format(
        present=ngettext("{n} presente", "{n} presentes", present).format(n=present),
        missing=ngettext("falta {n}", "faltan {n}", missing).format(n=missing),
    )
    return {"entries": shown, "present": present, "missing": missing, "counts": counts}


@director_required
@form_page
def check_in(request, slug):
    """The director's check-in page: every entry still in, one tap to mark it present or not
    (``action=present|absent``, ``entry``), a search as you type (``?q=``, HTMX swaps the
    list; a plain form without JavaScript), the counters, and the players' own check-in
    (``action=code``: a new code of the day, ``action=stop``). Without JavaScript a POST goes
    back to the page (at the entry's row); with HTMX the list comes back in place."""
    t = managed_tournament(request, slug)
    q = request.GET.get("q", request.POST.get("q", "")).strip()[:60]
    anchor = ""
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action in ("present", "absent"):
                entry = posted_object(request, Entry, "entry", tournament=t)
                entry = services.set_present(
                    acting_user=request.user, entry=entry, present=action == "present"
                )
                anchor = f"#entrada-{entry.pk}"
                if not request.htmx:
                    text = _("{name}: presente.") if entry.present else _("{name}: no presente.")
                    messages.success(request, text.format(name=entry.name))
            elif action == "code":
                t = services.new_check_in_code(acting_user=request.user, tournament=t)
                messages.success(request, _("Código del día: {code}.").format(code=t.check_in_code))
            elif action == "stop":
                t = services.stop_self_check_in(acting_user=request.user, tournament=t)
                messages.success(request, _("Los jugadores ya no pueden marcarse presentes."))
        except DomainError as exc:
            messages.error(request, exc.message)
        if not request.htmx:
            url = reverse("manage:check_in", args=[t.slug])
            return redirect(url + (f"?q={q}" if q else "") + anchor)
    context = {"t": t, "q": q, **roll_call(t, q)}
    if request.htmx:
        return render(request, "tournaments/manage/check_in.html#roll", context)
    return render(request, "tournaments/manage/check_in.html", context)


def _matching_entries(t: Tournament, typed: str) -> list[Entry]:
    """The entries still in of ``t`` with a player named ``typed`` up to case, accents and
    spacing (``names.key``)."""
    wanted = names.key(typed)
    if not wanted:
        return []
    found = []
    for e in t.entries.filter(dropped_after_round__isnull=True).select_related(
        "player1", "player2"
    ):
        if any(names.key(p.full_name) == wanted for p in (e.player1, e.player2) if p):
            found.append(e)
    return found


@never_cache
@form_page
@limited("check-in", per="slug")
def self_check_in(request, slug):
    """A player's own check-in: their name and the day's code (shown at the venue). Answers
    the page with the error beside its field (400) or the confirmation. Every try counts
    against the connection and the tournament before it is looked at (``clubsite.limits``,
    "check-in": a wrong name, a wrong code; at most that many are evaluated, however many
    arrive at once); a player who checks in gives their try back, so the players at the
    venue's shared connection do not use it up. A draft's page is its directors' only
    (``visibility.tournament_or_404``)."""
    t = tournament_or_404(request, slug)
    data = {"name": request.GET.get("nombre", "")[:120], "code": ""}
    errors: dict[str, str] = {}
    done = None
    status = 200
    if request.method == "POST":
        data = {
            "name": request.POST.get("name", "")[:120],
            "code": request.POST.get("code", "")[:20],
        }
        found = _matching_entries(t, data["name"])
        if not data["name"].strip():
            errors["name"] = _("Escribe tu nombre como está en la lista del torneo.")
        elif not found:
            errors["name"] = _("Ningún jugador del torneo se llama «{name}».").format(
                name=data["name"].strip()
            )
        elif len(found) > 1:
            errors["name"] = _(
                "Hay más de un jugador con ese nombre: pide al director que te marque."
            )
        else:
            try:
                done = services.check_in_self(entry=found[0], code=data["code"])
            except DomainError as exc:
                errors["code"] = exc.message
            else:
                release(request)
        status = 400 if errors else 200
    context = {
        "t": t,
        "og": sharing.check_in_card(t),
        "data": data,
        "errors": errors,
        "done": done,
    }
    return render(request, "tournaments/check_in.html", context, status=status)
