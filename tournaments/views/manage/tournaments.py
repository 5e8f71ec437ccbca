"""Directors' pages: a tournament's settings and page, its entries (add, remove, drop), the
round-robin schedule, the CSV imports (results in the background, with their progress page)
and the sorteos."""

from __future__ import annotations

import datetime as dt

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.formats import date_format
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from tournaments import services, systems, tasks
from tournaments.errors import DomainError
from tournaments.forms import EntryForm, ImportForm, TournamentForm
from tournaments.models import Entry, ImportJob
from tournaments.permissions import is_director
from tournaments.views.manage.access import (
    director_required,
    managed_tournament,
    say_if_published,
    submitted_once,
)


@director_required
@require_http_methods(["GET", "POST"])
@submitted_once
def tournament_edit(request, slug=None):
    """Create (slug None) or change a tournament's settings. The new-tournament form carries a
    one-time token (``access.one_submission``): a second copy creates nothing and goes to the
    tournament the first created; changing settings is idempotent (no token)."""
    t = managed_tournament(request, slug) if slug else None
    if not t and not is_director(request.user):
        raise PermissionDenied
    old_date = t.date if t else None  # before the form writes the typed values on ``t``
    if request.method == "GET":
        initial = {} if t else {"status": "registration"}
        if "system" in request.GET:  # the system was changed on the page: its fields
            initial = {k: v for k, v in request.GET.items() if k != "csrfmiddlewaretoken"}
        form = TournamentForm(instance=t, initial=initial) if t else TournamentForm(initial=initial)
        return render(
            request,
            "tournaments/manage/tournament_form.html",
            {"form": form, "t": t},
        )
    if request.submission.repeated:
        return request.submission.answer(request, reverse("manage:home"))
    form = TournamentForm(request.POST, instance=t) if t else TournamentForm(request.POST)
    context = {"form": form, "t": t}
    if request.POST.get("refresh_system"):  # without JavaScript: show the chosen system's fields
        data = {k: v for k, v in request.POST.items() if k != "csrfmiddlewaretoken"}
        context["form"] = (
            TournamentForm(instance=t, initial=data) if t else TournamentForm(initial=data)
        )
        return render(request, "tournaments/manage/tournament_form.html", context)
    if not form.is_valid():
        return render(request, "tournaments/manage/tournament_form.html", context, status=400)
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
            request.submission.saved(reverse("manage:tournament", args=[t.slug]))
    except DomainError as exc:
        form.add_error(None, exc.message)
        return render(request, "tournaments/manage/tournament_form.html", context, status=400)
    messages.success(request, _("Torneo «{name}» guardado.").format(name=t.name))
    if old_date is not None and old_date != t.date and systems.of(t).game_times(t)[:1]:
        messages.info(
            request,
            _(
                "Las partidas guardadas se movieron con la fecha, del {old} al {new}: cuentan "
                "para el ranking de ese día."
            ).format(old=date_format(old_date), new=date_format(t.date)),
        )
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
            "import_jobs": _unfinished_jobs(t),
        },
        status=status,
    )


def _unfinished_jobs(t) -> list[ImportJob]:
    """The imports of ``t`` sent in the last day and not finished (queued, running or stalled),
    newest first: the tournament page links to their progress."""
    since = timezone.now() - dt.timedelta(days=1)
    return list(
        t.import_jobs.filter(
            status__in=[ImportJob.Status.QUEUED, ImportJob.Status.RUNNING], created_at__gte=since
        ).only("pk", "file_name", "status", "created_at")
    )


def _tied_groups(lines) -> list[list]:
    """Groups of standings lines that share a position (candidates for a sorteo)."""
    groups: dict[int, list] = {}
    for line in lines:
        if line.row.shared:
            groups.setdefault(line.row.position, []).append(line)
    return [g for g in groups.values() if len(g) > 1]


@director_required
@require_safe
def tournament_manage(request, slug):
    return _tournament_page(request, managed_tournament(request, slug))


@director_required
@require_POST
@submitted_once
def entry_add(request, slug):
    """Register an entry (``services.register_entry``); a second copy of the form (its one-time
    token, ``access.one_submission``) registers nothing and shows the tournament's page."""
    t = managed_tournament(request, slug)
    if request.submission.repeated:
        return request.submission.answer(request, reverse("manage:tournament", args=[t.slug]))
    form = EntryForm(request.POST, tournament=t)
    if not form.is_valid():
        return _tournament_page(request, t, entry_form=form, status=400)
    players = [form.cleaned_data["player1"]]
    if form.cleaned_data.get("player2"):
        players.append(form.cleaned_data["player2"])
    try:
        entry = services.register_entry(acting_user=request.user, tournament=t, players=players)
        request.submission.saved(reverse("manage:tournament", args=[t.slug]))
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
    """Withdraw an entry (``undo=1`` takes the withdrawal back), SCORING.md §5: it takes
    effect after the last round the entry has played, and the rounds already made after that
    lose it (``services.drop_entry``); the messages say what became of each table it left,
    or got back (``services.undrop_entry``)."""
    t = managed_tournament(request, slug)
    entry = get_object_or_404(Entry, pk=entry_id, tournament=t)
    try:
        if request.POST.get("undo") == "1":
            entry = services.undrop_entry(acting_user=request.user, entry=entry)
            messages.success(request, _("{name} vuelve a emparejarse.").format(name=entry.name))
        else:
            entry = services.drop_entry(acting_user=request.user, entry=entry)
            if entry.already_withdrawn:
                text = _("{name} ya se había retirado, después de la ronda {round}.")
            elif entry.dropped_after_round:
                text = _("{name} se retira después de la ronda {round}.")
            else:
                text = _("{name} se retira sin haber jugado ninguna ronda.")
            messages.success(request, text.format(name=entry.name, round=entry.dropped_after_round))
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("manage:tournament", slug=t.slug)
    for change in entry.seat_changes:
        messages.info(request, seat_change_text(change, entry.name))
    return redirect("manage:tournament", slug=t.slug)


def seat_change_text(change, name: str) -> str:
    """The director's message for one ``services.rounds.SeatChange`` of entry ``name``."""
    others = ", ".join(change.others)
    count = len(change.others)
    params = {"round": change.round, "table": change.table, "name": name, "others": others}
    if change.kind == "bye_removed":
        text = _("Ronda {round}: se quitó el descanso de {name}.")
    elif change.kind == "rest":
        text = ngettext(
            "Ronda {round}: se quitó la mesa {table}; {others} descansa en esa ronda "
            "(descanso según la regla del torneo). Si prefiere emparejarlo, vuelva a "
            "emparejar la ronda {round} mientras no tenga resultados.",
            "Ronda {round}: se quitó la mesa {table}; {others} descansan en esa ronda "
            "(descanso según la regla del torneo). Si prefiere emparejarlos, vuelva a "
            "emparejar la ronda {round} mientras no tenga resultados.",
            count,
        )
    elif change.kind == "reseat":
        text = ngettext(
            "Ronda {round}: se quitó la mesa {table}; {others} queda sin mesa ni descanso. "
            "Vuelva a emparejar la ronda {round} para sentarlo.",
            "Ronda {round}: se quitó la mesa {table}; {others} quedan sin mesa ni descanso. "
            "Vuelva a emparejar la ronda {round} para sentarlos.",
            count,
        )
    elif change.kind == "play_on":
        text = _("Ronda {round}: en la mesa {table} siguen jugando {others}, sin {name}.")
    elif change.kind == "restored":
        text = _(
            "Ronda {round}: {name} vuelve a la mesa {table} contra {others}, como en el "
            "calendario del todos con todos."
        )
    elif change.kind == "rests":
        text = _("Ronda {round}: {name} descansa, como en el calendario del todos con todos.")
    elif change.kind == "unseated":
        text = _(
            "Ronda {round}: ya está emparejada y {name} no tiene mesa. Vuelva a emparejar "
            "la ronda {round} para sentarlo."
        )
    else:  # "missed"
        text = _("Ronda {round}: ya empezó sin {name}, que no la juega.")
    return text.format(**params)


@director_required
@require_POST
@submitted_once
def round_robin(request, slug):
    """Create the todos-con-todos rounds (all, or ``next=1``: the next one). A second copy of
    the button's form (its one-time token) creates no further round and shows the first
    copy's round."""
    t = managed_tournament(request, slug)
    if request.submission.repeated:
        return request.submission.answer(request, reverse("manage:tournament", args=[t.slug]))
    next_only = request.POST.get("next") == "1"
    try:
        created = services.generate_round_robin(
            acting_user=request.user, tournament=t, next_only=next_only
        )
    except DomainError as exc:
        messages.error(request, exc.message)
        return redirect("manage:tournament", slug=t.slug)
    request.submission.saved(reverse("manage:round", args=[t.slug, created[0].number]))
    numbers = ", ".join(str(r.number) for r in created)
    messages.success(request, _("Rondas creadas: {numbers}.").format(numbers=numbers))
    say_if_published(request, t)
    return redirect("manage:round", slug=t.slug, number=created[0].number)


@director_required
@require_POST
@submitted_once
def import_file(request, slug):
    """Upload form of the CSV imports (results or castigos); all-or-nothing. The imports are
    idempotent by themselves (a file imported again finds its results and castigos recorded
    and stores nothing new); the form's one-time token (``access.one_submission``) also spares
    a second copy the whole run and answers it as any repeated form: "Ya se había guardado".

    A results file is imported in the background (``tasks.start_import``): what can be checked
    at once is (the form, the size, the encoding, the header and the CSV syntax: a refusal
    answers 400 with the tournament's page, as before, and nothing is queued); then the job is
    created and the answer goes to its progress page (``import_job``). A castigos file (a few
    lines, no tables to write) is still imported in the request."""
    t = managed_tournament(request, slug)
    if request.submission.repeated:
        return request.submission.answer(request, reverse("manage:tournament", args=[t.slug]))
    form = ImportForm(
        request.POST, request.FILES, castigos=systems.CASTIGOS in systems.of(t).actions(t)
    )
    if not form.is_valid():
        return _tournament_page(request, t, import_form=form, status=400)
    from tournaments import imports
    from tournaments.imports import reading

    upload = form.cleaned_data["file"]
    if upload.size > 5 * 1024 * 1024:
        form.add_error("file", _("El archivo pasa de 5 MB."))
        return _tournament_page(request, t, import_form=form, status=400)
    data = upload.read()
    try:
        if form.cleaned_data["kind"] == "results":
            text = reading.decode(data)
            header = tuple(systems.of(t).import_header)
            if header:  # the file-level refusals at once: encoding, header, size, CSV syntax
                reading.read_rows(text, header)
        else:
            warnings: list[str] = []
            n = imports.import_castigos(
                acting_user=request.user, tournament=t, data=data, warnings=warnings
            )
            request.submission.saved(reverse("manage:tournament", args=[t.slug]))
            messages.success(request, _("Castigos importados: {count}.").format(count=n))
            for warning in warnings:
                messages.warning(request, warning)
            return redirect("manage:tournament", slug=t.slug)
    except DomainError as exc:
        errors = list(getattr(exc, "errors", []) or [])
        form.add_error(None, exc.summary if errors else exc.message)
        return _tournament_page(request, t, import_form=form, import_errors=errors, status=400)
    job = tasks.start_import(
        acting_user=request.user,
        tournament=t,
        file_name=upload.name or "",
        text=text,
        language=get_language(),
    )
    url = reverse("manage:import_job", args=[t.slug, job.pk])
    request.submission.saved(url)
    return redirect(url)


@director_required
@require_safe
def import_job(request, slug, job_id):
    """The progress page of a results import sent through ``import_file`` (who may import into
    the tournament may see it: ``managed_tournament``; a job of another tournament is a 404).

    While the job is queued or running: a progress bar ("123 de 2560 mesas"), which HTMX
    refreshes every second (an HTMX request gets the part alone, ``_import_job.html``; it
    stops asking once the job ended, and tells the end to the page's status region); without
    JavaScript, a link reloads the page. Then the outcome as the tournament page showed it
    when the import ran in the request: the counts, the warnings and "now public" when it was
    imported; the refusal with every refused line, and the form to send the corrected file,
    when it was refused. A job with no sign of life for ``tasks.STALL_SECONDS`` says it seems
    stopped (nothing was saved) and offers to run it again (``import_retry``)."""
    t = managed_tournament(request, slug)
    job = get_object_or_404(
        ImportJob.objects.select_related("requested_by"), pk=job_id, tournament=t
    )
    context = _job_context(request, t, job)
    if request.htmx:
        response = render(request, "tournaments/manage/_import_job.html", context)
    else:
        response = render(request, "tournaments/manage/import_job.html", context)
    patch_vary_headers(response, ["HX-Request"])
    return response


def _job_context(request, t, job: ImportJob) -> dict:
    state, seen = tasks.job_state(job)
    done, total = (seen.done, seen.total) if seen is not None else (job.done, job.total)
    context = {
        "t": t,
        "job": job,
        "state": state,
        "polling": state in (tasks.QUEUED, tasks.RUNNING),
        "done": done,
        "total": total,
        "percent": done * 100 // total if total else 0,
        "stall_minutes": tasks.STALL_SECONDS // 60,
        "oob": bool(request.htmx),
    }
    if state == tasks.DONE:
        context["report_messages"] = _report_messages(t, job.report or {})
    elif state == tasks.FAILED:
        system = systems.of(t)
        refusal = job.refusal or {}
        context.update(
            refusal=refusal,
            import_errors=[tuple(e) for e in refusal.get("errors", [])],
            import_form=ImportForm(castigos=systems.CASTIGOS in system.actions(t)),
            import_hint=system.import_hint,
            actions=system.actions(t),
        )
    return context


def _report_messages(t, report: dict) -> list[tuple[str, str]]:
    """(level, sentence) of a finished import, as the tournament page said them when the
    import ran in the request: the counts, each warning, and "now public" for a draft the
    import started."""
    said = [
        (
            "success",
            _(
                "Resultados importados: creados {created}, cambiados {changed}, sin cambios {unchanged}."
            ).format(
                created=report.get("created", 0),
                changed=report.get("changed", 0),
                unchanged=report.get("unchanged", 0),
            ),
        )
    ]
    said += [("warning", str(w)) for w in report.get("warnings", [])]
    if report.get("published"):
        said.append(
            (
                "info",
                _(
                    "«{name}» estaba en borrador y ahora está en curso: ya se ve en las páginas "
                    "públicas."
                ).format(name=t.name),
            )
        )
    return said


@director_required
@require_POST
@submitted_once
def import_retry(request, slug, job_id):
    """Run a stalled import's file again (``tasks.retry_import``: the job is marked stopped and
    a new job starts) and go to the new job's page; a job that is not stalled (it moved
    meanwhile, ended, or was retried already) is left alone, with a message. The button's form
    carries a one-time token: a second copy starts nothing more."""
    t = managed_tournament(request, slug)
    job = get_object_or_404(ImportJob, pk=job_id, tournament=t)
    here = reverse("manage:import_job", args=[t.slug, job.pk])
    if request.submission.repeated:
        return request.submission.answer(request, here)
    new = tasks.retry_import(job, acting_user=request.user)
    if new is None:
        messages.info(request, _("Esa importación no está detenida: no se volvió a empezar."))
        return redirect(here)
    url = reverse("manage:import_job", args=[t.slug, new.pk])
    request.submission.saved(url)
    return redirect(url)


@director_required
@require_POST
@submitted_once
def sorteo(request, slug):
    """Record a draw of lots for a tied group: POST ``entry`` ids in the drawn order. A second
    copy of the form (its one-time token) records nothing: the lots stand as drawn, with one
    entry in their history."""
    t = managed_tournament(request, slug)
    if request.submission.repeated:
        return request.submission.answer(request, reverse("manage:tournament", args=[t.slug]))
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
        request.submission.saved(reverse("manage:tournament", args=[t.slug]))
        messages.success(request, _("Sorteo registrado."))
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("manage:tournament", slug=t.slug)
