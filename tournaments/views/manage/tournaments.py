"""Directors' pages: a tournament's settings and page, its entries (add, remove, drop), the
round-robin schedule, the CSV imports and the sorteos."""

from __future__ import annotations

import secrets

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tournaments import services, systems
from tournaments.errors import DomainError
from tournaments.forms import EntryForm, ImportForm, TournamentForm
from tournaments.models import Entry
from tournaments.permissions import is_director
from tournaments.views.manage.access import (
    director_required,
    first_submission,
    managed_tournament,
    release_submission,
)


@director_required
@require_http_methods(["GET", "POST"])
def tournament_edit(request, slug=None):
    """Create (slug None) or change a tournament's settings."""
    t = managed_tournament(request, slug) if slug else None
    if not t and not is_director(request.user):
        raise PermissionDenied
    if request.method == "GET":
        initial = {} if t else {"status": "registration"}
        if "system" in request.GET:  # the system was changed on the page: its fields
            initial = {k: v for k, v in request.GET.items() if k != "csrfmiddlewaretoken"}
        form = TournamentForm(instance=t, initial=initial) if t else TournamentForm(initial=initial)
        return render(
            request,
            "tournaments/manage/tournament_form.html",
            {"form": form, "t": t, "form_token": secrets.token_hex(16)},
        )
    form = TournamentForm(request.POST, instance=t) if t else TournamentForm(request.POST)
    context = {"form": form, "t": t, "form_token": request.POST.get("form_token", "")}
    if request.POST.get("refresh_system"):  # without JavaScript: show the chosen system's fields
        data = {k: v for k, v in request.POST.items() if k != "csrfmiddlewaretoken"}
        context["form"] = (
            TournamentForm(instance=t, initial=data) if t else TournamentForm(initial=data)
        )
        return render(request, "tournaments/manage/tournament_form.html", context)
    if not form.is_valid():
        return render(request, "tournaments/manage/tournament_form.html", context, status=400)
    if not t and not first_submission(request):
        messages.info(
            request, _("Ese formulario ya se había enviado: el torneo se creó una sola vez.")
        )
        return redirect("manage:home")
    fields = form.settings()
    try:
        if t:
            with transaction.atomic():  # the settings and the director list, or neither
                t = services.update_tournament(acting_user=request.user, tournament=t, **fields)
                t = services.set_tournament_directors(
                    acting_user=request.user,
                    tournament=t,
                    directors=form.cleaned_data["directors"],
                )
        else:
            t = services.create_tournament(acting_user=request.user, **fields)
    except DomainError as exc:
        if not t:
            release_submission(request)
        form.add_error(None, exc.message)
        return render(request, "tournaments/manage/tournament_form.html", context, status=400)
    messages.success(request, _("Torneo «{name}» guardado.").format(name=t.name))
    return redirect("manage:tournament", slug=t.slug)


def _tournament_page(
    request, t, *, entry_form=None, import_form=None, import_errors=None, status=200
):
    system = systems.of(t)
    lines = t.standings()
    rounds = list(t.rounds.order_by("number"))
    return render(
        request,
        "tournaments/manage/tournament.html",
        {
            "t": t,
            "entries": list(t.entries.select_related("player1", "player2")),
            "rounds": rounds,
            "next_round": (rounds[-1].number + 1) if rounds else 1,
            "entry_form": entry_form or EntryForm(tournament=t),
            "import_form": import_form
            or ImportForm(castigos=systems.CASTIGOS in system.actions(t)),
            "import_errors": import_errors or [],
            "tied_groups": _tied_groups(lines),
            "actions": system.actions(t),
            "show_mode": len(system.modes) > 1,
            "import_hint": system.import_hint,
        },
        status=status,
    )


def _tied_groups(lines) -> list[list]:
    """Groups of standings lines that share a position (candidates for a sorteo)."""
    groups: dict[int, list] = {}
    for line in lines:
        if line.row.shared:
            groups.setdefault(line.row.position, []).append(line)
    return [g for g in groups.values() if len(g) > 1]


@director_required
@require_GET
def tournament_manage(request, slug):
    return _tournament_page(request, managed_tournament(request, slug))


@director_required
@require_POST
def entry_add(request, slug):
    t = managed_tournament(request, slug)
    form = EntryForm(request.POST, tournament=t)
    if not form.is_valid():
        return _tournament_page(request, t, entry_form=form, status=400)
    players = [form.cleaned_data["player1"]]
    if form.cleaned_data.get("player2"):
        players.append(form.cleaned_data["player2"])
    try:
        entry = services.register_entry(acting_user=request.user, tournament=t, players=players)
    except DomainError as exc:
        form.add_error(None, exc.message)
        return _tournament_page(request, t, entry_form=form, status=400)
    messages.success(request, _("Inscrito: {name}.").format(name=entry.name))
    return redirect("manage:tournament", slug=t.slug)


@director_required
@require_POST
def entry_remove(request, slug, entry_id):
    t = managed_tournament(request, slug)
    entry = get_object_or_404(Entry, pk=entry_id, tournament=t)
    try:
        services.remove_entry(acting_user=request.user, entry=entry)
        messages.success(request, _("Inscripción de {name} quitada.").format(name=entry.name))
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("manage:tournament", slug=t.slug)


@director_required
@require_POST
def entry_drop(request, slug, entry_id):
    """Drop an entry after the last round so far (``undo=1`` takes the drop back)."""
    t = managed_tournament(request, slug)
    entry = get_object_or_404(Entry, pk=entry_id, tournament=t)
    if request.POST.get("undo") == "1":
        services.undrop_entry(acting_user=request.user, entry=entry)
        messages.success(request, _("{name} vuelve a emparejarse.").format(name=entry.name))
    else:
        last = t.rounds.order_by("-number").values_list("number", flat=True).first() or 0
        services.drop_entry(acting_user=request.user, entry=entry, after_round=last)
        messages.success(
            request,
            _("{name} se retira después de la ronda {round}.").format(name=entry.name, round=last),
        )
    return redirect("manage:tournament", slug=t.slug)


@director_required
@require_POST
def round_robin(request, slug):
    t = managed_tournament(request, slug)
    next_only = request.POST.get("next") == "1"
    try:
        created = services.generate_round_robin(
            acting_user=request.user, tournament=t, next_only=next_only
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("manage:tournament", slug=t.slug)
    numbers = ", ".join(str(r.number) for r in created)
    messages.success(request, _("Rondas creadas: {numbers}.").format(numbers=numbers))
    return redirect("manage:round", slug=t.slug, number=created[0].number)


@director_required
@require_POST
def import_file(request, slug):
    """Upload form of the CSV imports (results or castigos); all-or-nothing."""
    t = managed_tournament(request, slug)
    form = ImportForm(
        request.POST, request.FILES, castigos=systems.CASTIGOS in systems.of(t).actions(t)
    )
    if not form.is_valid():
        return _tournament_page(request, t, import_form=form, status=400)
    from tournaments import imports

    upload = form.cleaned_data["file"]
    if upload.size > 5 * 1024 * 1024:
        form.add_error("file", _("El archivo pasa de 5 MB."))
        return _tournament_page(request, t, import_form=form, status=400)
    data = upload.read()
    try:
        if form.cleaned_data["kind"] == "results":
            report = imports.import_results(acting_user=request.user, tournament=t, data=data)
            messages.success(
                request,
                _(
                    "Resultados importados: creados {created}, cambiados {changed}, sin cambios {unchanged}."
                ).format(
                    created=report.created, changed=report.changed, unchanged=report.unchanged
                ),
            )
            for warning in report.warnings:
                messages.warning(request, warning)
        else:
            n = imports.import_castigos(acting_user=request.user, tournament=t, data=data)
            messages.success(request, _("Castigos importados: {count}.").format(count=n))
    except DomainError as exc:
        errors = list(getattr(exc, "errors", []) or [])
        form.add_error(None, exc.summary if errors else exc.message)
        return _tournament_page(request, t, import_form=form, import_errors=errors, status=400)
    return redirect("manage:tournament", slug=t.slug)


@director_required
@require_POST
def sorteo(request, slug):
    """Record a draw of lots for a tied group: POST ``entry`` ids in the drawn order."""
    t = managed_tournament(request, slug)
    ids = request.POST.getlist("entry")
    try:
        entry_ids = [int(x) for x in ids]
    except ValueError:
        messages.error(request, _("Orden de sorteo no válido."))
        return redirect("manage:tournament", slug=t.slug)
    if len(set(entry_ids)) != len(entry_ids):
        messages.error(request, _("En el sorteo cada competidor debe aparecer una sola vez."))
        return redirect("manage:tournament", slug=t.slug)
    entries = {e.pk: e for e in Entry.objects.filter(tournament=t, pk__in=entry_ids)}
    if len(entries) != len(entry_ids):
        messages.error(request, _("El sorteo incluye competidores que no son de este torneo."))
        return redirect("manage:tournament", slug=t.slug)
    try:
        services.record_sorteo(
            acting_user=request.user, tournament=t, entries_in_order=[entries[i] for i in entry_ids]
        )
        messages.success(request, _("Sorteo registrado."))
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("manage:tournament", slug=t.slug)
