"""Directors' pages: a tournament's settings and page, its entries (add, remove, drop), the
round-robin schedule, the imports (results, and castigos workbooks, in the background, with
their progress page; a workbook is never parsed in the request) and the sorteos."""

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
from django.views.decorators.http import require_POST, require_safe

from clubsite.http import form_page
from tournaments import imports, services, systems
from tournaments.errors import DomainError
from tournaments.forms import EntryForm, ImportForm, TournamentForm
from tournaments.imports import jobs, reading
from tournaments.imports.reading import quoted_list
from tournaments.models import Entry, ImportJob
from tournaments.permissions import is_director
from tournaments.services import lifecycle
from tournaments.views.manage.access import (
    director_required,
    managed_tournament,
    say_if_published,
    submitted_once,
)
from tournaments.views.manage.confirm import ask_first, confirmation, place_error


@director_required
@form_page
@submitted_once
def tournament_edit(request, slug=None):
    """Create (slug None) or change a tournament's settings. The new-tournament form carries a
    one-time token (``access.one_submission``): a second copy creates nothing and goes to the
    tournament the first created; changing settings is idempotent (no token).

    A refusal (400) shows the form again with what was typed and every problem at once, each
    beside its field (``TournamentForm.clean`` asks the services' rules; a refusal of the save
    itself goes to its field too, ``services.ERROR_FIELDS``). Finishing a tournament whose
    rounds are not all closed asks first: the form comes back (200, nothing stored) listing
    the open rounds ("La ronda 4 sigue abierta (faltan 2 mesas)"), with "Terminar igualmente"
    (the same form with ``open_rounds_ok=1``) and "Volver"."""
    t = managed_tournament(request, slug) if slug else None
    if not t and not is_director(request.user):
        raise PermissionDenied
    old_date = t.date if t else None  # before the form writes the typed values on ``t``
    if request.method != "POST":
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
                t = services.update_tournament(
                    acting_user=request.user,
                    tournament=t,
                    open_rounds_ok=request.POST.get("open_rounds_ok") == "1",
                    reason=form.cleaned_data.get("reason", ""),
                    **fields,
                )
                t = services.set_tournament_directors(
                    acting_user=request.user,
                    tournament=t,
                    directors=form.cleaned_data["directors"],
                )
        else:
            t = services.create_tournament(acting_user=request.user, **fields)
            request.submission.saved(reverse("manage:tournament", args=[t.slug]))
    except DomainError as exc:
        if exc.code == "open_rounds":
            context["open_rounds"] = open_round_lines(exc.params["open_rounds"])
            return render(request, "tournaments/manage/tournament_form.html", context)
        form.add_domain_error(exc)
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


def open_round_lines(open_rounds) -> list[str]:
    """The open rounds of a tournament being finished, one sentence each ("La ronda 4 sigue
    abierta (faltan 2 mesas)"), from ``(number, tables, missing)`` (the params of DomainError
    "open_rounds", ``services.open_rounds_refusal``)."""
    lines = []
    for number, tables, missing in open_rounds:
        if not tables:
            text = _("La ronda {number} sigue abierta (sin mesas)")
        elif missing:
            text = ngettext(
                "La ronda {number} sigue abierta (falta {count} mesa)",
                "La ronda {number} sigue abierta (faltan {count} mesas)",
                missing,
            )
        else:
            text = _("La ronda {number} sigue abierta (todas sus mesas tienen resultado)")
        lines.append(text.format(number=number, count=missing))
    return lines


def _tournament_page(
    request,
    t,
    *,
    entry_form=None,
    import_form=None,
    import_errors=None,
    import_notes=None,
    sorteo=None,
    step_error=None,
    status=200,
):
    """The tournament's page; a refused form comes back in it with what was typed and its
    errors: ``entry_form``, ``import_form`` (+ ``import_errors``, the refused lines, and
    ``import_notes``, how the file was read), or
    ``sorteo`` (``position``, the posted ``order`` of entry ids and the ``error``, with the
    ``slot`` index to focus), or ``step_error`` (a refused step of the tournament's life:
    ``step``, ``message``, ``reason`` as typed). A sorteo is offered for each shared final
    place once the order is final (``Tournament.order_is_final``); before, a shared place
    only gets a note.

    The page opens with what comes next (``lifecycle.what_next``) and the steps allowed now
    (``lifecycle.offers``): a button each, a reason box where the step needs one, the
    refusal to confirm where it can be passed ("Terminar igualmente"). The next round's
    pairing is offered only once the round before is complete (else its missing tables and
    "emparejar igualmente")."""
    system = systems.of(t)
    rounds = list(t.rounds.order_by("number"))
    tied = _tied_groups(t.final_places())
    order_is_final = t.order_is_final()
    tied_groups = _sorteo_groups(tied if order_is_final else [], sorteo)
    offers = lifecycle.offers(t)
    if step_error is not None:  # beside its button, or above them when none is offered
        step_error["offered"] = any(o.step.name == step_error["step"] for o in offers)
    if sorteo is not None and not any(g["error"] for g in tied_groups):
        messages.error(request, sorteo["error"])  # no such tied group (any more): at the top
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
            "import_notes": import_notes or [],
            "tied_groups": tied_groups,
            "next_step": lifecycle.what_next(t),
            "step_offers": offers,
            "step_error": step_error,
            "pairing_gap": lifecycle.incomplete_before(t, (rounds[-1].number + 1) if rounds else 1),
            # ties the order may still break: no sorteo yet (SCORING.md §9)
            "ties_pending": bool(tied) and not order_is_final,
            "actions": system.actions(t),
            "show_mode": len(system.modes) > 1,
            "import_hint": imports.formats.of(t).hint,
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
    """Groups of the final places ``lines`` (``Tournament.final_places``) that share a place:
    the candidates for a sorteo, offered once the order is final
    (``Tournament.order_is_final``, SCORING.md §9)."""
    groups: dict[int, list] = {}
    for line in lines:
        if line.place_shared:
            groups.setdefault(line.place, []).append(line)
    return [g for g in groups.values() if len(g) > 1]


def _sorteo_groups(groups: list[list], refused: dict | None) -> list[dict]:
    """The sorteo forms of the tied ``groups``: ``position`` (the shared place), ``lines``
    (the tied standings lines), and ``slots``, one per place (``index``, the entry pk
    ``chosen`` for it, and ``focus``): the standings order, or, for the group of a refused
    sorteo (``refused``, see ``_tournament_page``), the order posted with its ``error``."""
    out = []
    for group in groups:
        position = group[0].place
        chosen = [str(line.entry.pk) for line in group]
        error, focus = None, None
        if refused is not None and refused["position"] == str(position):
            posted = refused["order"][: len(group)]
            chosen = posted + chosen[len(posted) :]
            error, focus = refused["error"], refused["slot"]
        out.append(
            {
                "position": position,
                "lines": group,
                "error": error,
                "slots": [
                    {"index": i, "chosen": pk, "focus": i == focus}
                    for i, pk in enumerate(chosen, start=1)
                ],
            }
        )
    return out


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
        field = None
        if exc.code == "entry_size":
            field = "player2" if "player2" in form.fields else "player1"
        elif "name" in exc.params:  # about one of the players: beside the one it names
            field = next(
                (
                    key
                    for key, player in form.cleaned_data.items()
                    if getattr(player, "full_name", None) == exc.params["name"]
                ),
                None,
            )
        place_error(form, exc, {exc.code: field} if field else {})
        return _tournament_page(request, t, entry_form=form, status=400)
    if t.checking_in():  # a late arrival entered at the venue is there: paired from now on
        services.set_present(acting_user=request.user, entry=entry, present=True)
        messages.success(request, _("Inscrito y presente: {name}.").format(name=entry.name))
    else:
        messages.success(request, _("Inscrito: {name}.").format(name=entry.name))
    return redirect("manage:tournament", slug=t.slug)


@director_required
@require_POST
def entry_remove(request, slug, entry_id):
    """Remove an entry that has not played (``services.remove_entry``), once the director said
    yes (``confirm.py``: without ``confirm=1``, the confirmation page; an entry that already
    played is refused at once, with a message). Then "Inscripción de … quitada." on the
    tournament's page. Withdrawing an entry that played is ``entry_drop``."""
    t = managed_tournament(request, slug)
    entry = get_object_or_404(
        Entry.objects.select_related("player1", "player2"), pk=entry_id, tournament=t
    )

    def write():
        services.remove_entry(acting_user=request.user, entry=entry)

    def question():
        return confirmation(
            request,
            question=_("¿Quitar la inscripción de {name}?").format(name=entry.name),
            details=[
                _("{name} deja de estar inscrito en «{tournament}».").format(
                    name=entry.name, tournament=t.name
                ),
                _("Para volver a inscribirlo, inscríbelo de nuevo."),
            ],
            action=reverse("manage:entry_remove", args=[t.slug, entry.pk]),
            cancel_url=reverse("manage:tournament", args=[t.slug]),
            button=_("Sí, quitar"),
        )

    try:
        if page := ask_first(request, write, question):
            return page
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
            "(descanso según la regla del torneo). Si prefieres emparejarlo, vuelve a "
            "emparejar la ronda {round} mientras no tenga resultados.",
            "Ronda {round}: se quitó la mesa {table}; {others} descansan en esa ronda "
            "(descanso según la regla del torneo). Si prefieres emparejarlos, vuelve a "
            "emparejar la ronda {round} mientras no tenga resultados.",
            count,
        )
    elif change.kind == "reseat":
        text = ngettext(
            "Ronda {round}: se quitó la mesa {table}; {others} queda sin mesa ni descanso. "
            "Vuelve a emparejar la ronda {round} para sentarlo.",
            "Ronda {round}: se quitó la mesa {table}; {others} quedan sin mesa ni descanso. "
            "Vuelve a emparejar la ronda {round} para sentarlos.",
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
            "Ronda {round}: ya está emparejada y {name} no tiene mesa. Vuelve a emparejar "
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
    copy's round. The order of play as on the pairings page: the next round waits for the
    current one ("previous_round_incomplete", said at the top) unless ``anyway=1``."""
    t = managed_tournament(request, slug)
    if request.submission.repeated:
        return request.submission.answer(request, reverse("manage:tournament", args=[t.slug]))
    next_only = request.POST.get("next") == "1"
    try:
        created = services.generate_round_robin(
            acting_user=request.user,
            tournament=t,
            next_only=next_only,
            anyway=request.POST.get("anyway") == "1",
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
    """Upload form of the imports (results or castigos): CSV separated by commas, semicolons or
    tabs, in UTF-8, UTF-16 or Windows-1252, or an .xlsx workbook (``imports.reading
    .open_file``; how it was read, when not UTF-8, is said with the outcome); all-or-nothing.
    The imports are idempotent by themselves (a file imported again finds its results and
    castigos recorded and stores nothing new); the form's one-time token
    (``access.one_submission``) also spares a second copy the whole run and answers it as any
    repeated form: "Ya se había guardado".

    A results file is imported in the background (``jobs.start_import``): what can be checked
    at once, cheaply, is (the form, the size, at most ``reading.MAX_FILE_BYTES``; for CSV text
    the encoding, the header, a file with no rows and the CSV syntax, linear in the text; for
    a workbook the zip's directory alone, ``reading.check_workbook``: a workbook is never
    parsed in a request, its job parses it). A refusal of the whole file is said in one
    sentence; a refusal answers 400 with the tournament's page, as before, and nothing is
    queued; else the job is created and the answer goes to its progress page
    (``import_job``). A castigos workbook goes the same way (a job of kind "castigos"); a
    castigos CSV file (a few lines, no tables to write) is still imported in the request."""
    t = managed_tournament(request, slug)
    if request.submission.repeated:
        return request.submission.answer(request, reverse("manage:tournament", args=[t.slug]))
    form = ImportForm(
        request.POST, request.FILES, castigos=systems.CASTIGOS in systems.of(t).actions(t)
    )
    if not form.is_valid():
        return _tournament_page(request, t, import_form=form, status=400)
    upload = form.cleaned_data["file"]
    if upload.size > reading.MAX_FILE_BYTES:
        form.add_error("file", _("El archivo pasa de 5 MB."))
        return _tournament_page(request, t, import_form=form, status=400)
    data = upload.read()
    kind = form.cleaned_data["kind"]
    text, workbook = "", b""
    notes: list[str] = []  # how the file was read, when it was not UTF-8 text
    try:
        if reading.is_workbook(data):
            reading.check_workbook(data)  # the zip's directory only: the job parses it
            workbook = data
        elif kind == "results":
            source = reading.open_file(data)  # CSV (, ; or tab; UTF-8, UTF-16, cp1252)
            text, notes = source.text, source.notes
            header = tuple(imports.formats.of(t).header)
            if header:  # the file-level refusals at once: encoding, header, rows, CSV syntax
                reading.read_rows(text, header)
        else:
            warnings: list[str] = []
            n = imports.import_castigos(
                acting_user=request.user, tournament=t, data=data, warnings=warnings, notes=notes
            )
            request.submission.saved(reverse("manage:tournament", args=[t.slug]))
            messages.success(request, _("Castigos importados: {count}.").format(count=n))
            for note in notes:
                messages.info(request, note)
            for warning in warnings:
                messages.warning(request, warning)
            return redirect("manage:tournament", slug=t.slug)
    except DomainError as exc:
        errors = list(getattr(exc, "listed", []) or [])  # a whole-file refusal: its sentence
        form.add_error(None, exc.summary if errors else exc.message)
        return _tournament_page(
            request, t, import_form=form, import_errors=errors, import_notes=notes, status=400
        )
    job = jobs.start_import(
        acting_user=request.user,
        tournament=t,
        kind=kind,
        file_name=upload.name or "",
        text=text,
        workbook=workbook,
        language=get_language(),
        notes=notes,
    )
    url = reverse("manage:import_job", args=[t.slug, job.pk])
    request.submission.saved(url)
    return redirect(url)


@director_required
@require_safe
def import_job(request, slug, job_id):
    """The progress page of an import sent through ``import_file`` (who may import into the
    tournament may see it: ``managed_tournament``; a job of another tournament is a 404): a
    results file, or a castigos workbook.

    While the job is queued or running: a progress bar ("123 de 2560 mesas"), which HTMX
    refreshes every second (an HTMX request gets the part alone, ``_import_job.html``; it
    stops asking once the job ended, and tells the end to the page's status region); without
    JavaScript, a link reloads the page. Then the outcome as the tournament page showed it
    when the import ran in the request: the counts, the warnings and "now public" when it was
    imported (for castigos: how many, how the file was read, the warnings); the refusal with
    every refused line (or a workbook's bounds, in one sentence), and the form to send the
    corrected file, when it was refused. A job with no sign of life for ``tasks.STALL_SECONDS`` says it seems
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
    state, seen = jobs.job_state(job)
    done, total = (seen.done, seen.total) if seen is not None else (job.done, job.total)
    context = {
        "t": t,
        "job": job,
        "state": state,
        "polling": state in (jobs.QUEUED, jobs.RUNNING),
        "done": done,
        "total": total,
        "percent": done * 100 // total if total else 0,
        "stall_minutes": jobs.STALL_SECONDS // 60,
        "oob": bool(request.htmx),
    }
    if state == jobs.DONE:
        if job.kind == ImportJob.Kind.CASTIGOS:
            context["report_messages"] = _castigos_messages(job.report or {})
        else:
            context["report_messages"] = _report_messages(t, job.report or {})
    elif state == jobs.FAILED:
        system = systems.of(t)
        refusal = job.refusal or {}
        context.update(
            refusal=refusal,
            import_errors=[tuple(e) for e in refusal.get("errors", [])],
            import_notes=refusal.get("notes", []),
            import_form=ImportForm(castigos=systems.CASTIGOS in system.actions(t)),
            import_hint=imports.formats.of(t).hint,
            actions=system.actions(t),
        )
    return context


def _report_messages(t, report: dict) -> list[tuple[str, str]]:
    """(level, sentence) of a finished import, as the tournament page said them when the
    import ran in the request: the counts, how the file was read (when not UTF-8), the players
    it created (``new_players_text``), each warning, and "now public" for a draft the import
    started."""
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
    said += [("info", str(note)) for note in report.get("notes", [])]
    if report.get("new_players"):
        said.append(("info", new_players_text(report["new_players"])))
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


def _castigos_messages(report: dict) -> list[tuple[str, str]]:
    """(level, sentence) of a finished castigos job, as the tournament page says them after a
    castigos file imported in the request: the count, how the file was read, each warning."""
    said = [("success", _("Castigos importados: {count}.").format(count=report.get("created", 0)))]
    said += [("info", str(note)) for note in report.get("notes", [])]
    said += [("warning", str(w)) for w in report.get("warnings", [])]
    return said


#: The most names ``new_players_text`` lists; the rest are counted.
NEW_PLAYERS_LISTED = 50


def new_players_text(full_names: list[str]) -> str:
    """The players an import created, in one sentence: "Jugadores nuevos (2): «Ana Ruiz» y
    «Beto Gil»." (at most ``NEW_PLAYERS_LISTED`` names, then "y 12 más")."""

    count = len(full_names)
    if count > NEW_PLAYERS_LISTED:
        shown = ", ".join(f"«{name}»" for name in full_names[:NEW_PLAYERS_LISTED])
        rest = count - NEW_PLAYERS_LISTED
        listed = shown + " " + ngettext("y {count} más", "y {count} más", rest).format(count=rest)
    else:
        listed = quoted_list(full_names)
    return ngettext(
        "Jugador nuevo: {names}.", "Jugadores nuevos ({count}): {names}.", count
    ).format(count=count, names=listed)


@director_required
@require_POST
@submitted_once
def import_retry(request, slug, job_id):
    """Run a stalled import's file again (``jobs.retry_import``: the job is marked stopped and
    a new job starts) and go to the new job's page; a job that is not stalled (it moved
    meanwhile, ended, or was retried already) is left alone, with a message. The button's form
    carries a one-time token: a second copy starts nothing more."""
    t = managed_tournament(request, slug)
    job = get_object_or_404(ImportJob, pk=job_id, tournament=t)
    here = reverse("manage:import_job", args=[t.slug, job.pk])
    if request.submission.repeated:
        return request.submission.answer(request, here)
    new = jobs.retry_import(job, acting_user=request.user)
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
    """Record a draw of lots for a tied group: POST ``entry`` ids in the drawn order (and the
    group's ``position``). A refusal (400) shows the tournament's page with that group's
    choices as posted and the message inside its form, the place to correct focused. A second
    copy of the form (its one-time token) records nothing: the lots stand as drawn, with one
    entry in their history."""
    t = managed_tournament(request, slug)
    if request.submission.repeated:
        return request.submission.answer(request, reverse("manage:tournament", args=[t.slug]))
    ids = request.POST.getlist("entry")

    def refused(error: str, slot: int = 1):
        return _tournament_page(
            request,
            t,
            sorteo={
                "position": request.POST.get("position", ""),
                "order": [str(x) for x in ids],
                "error": error,
                "slot": slot,
            },
            status=400,
        )

    try:
        entry_ids = [int(x) for x in ids]
    except ValueError:
        return refused(_("Orden de sorteo no válido."))
    if len(set(entry_ids)) != len(entry_ids):
        twice = next(i for i, pk in enumerate(entry_ids) if pk in entry_ids[:i])
        return refused(
            _("En el sorteo cada competidor debe aparecer una sola vez."), slot=twice + 1
        )
    entries = {e.pk: e for e in Entry.objects.filter(tournament=t, pk__in=entry_ids)}
    if len(entries) != len(entry_ids):
        return refused(_("El sorteo incluye competidores que no son de este torneo."))
    try:
        services.record_sorteo(
            acting_user=request.user, tournament=t, entries_in_order=[entries[i] for i in entry_ids]
        )
    except DomainError as exc:
        return refused(exc.message)
    request.submission.saved(reverse("manage:tournament", args=[t.slug]))
    messages.success(request, _("Sorteo registrado."))
    return redirect("manage:tournament", slug=t.slug)


@director_required
@require_POST
@submitted_once
def tournament_step(request, slug):
    """Take a step of the tournament's life (``services.take_step``): POST ``step`` (its name,
    ``lifecycle.STEPS``), ``reason`` where the step needs one, ``confirm=1`` to pass a
    refusal the step allows to confirm (finishing with rounds open). A refusal (400) shows
    the tournament's page with the message beside that step's button and the reason as
    typed. A second copy of the form (its one-time token) takes no second step."""
    t = managed_tournament(request, slug)
    if request.submission.repeated:
        return request.submission.answer(request, reverse("manage:tournament", args=[t.slug]))
    name = request.POST.get("step", "")
    reason = request.POST.get("reason", "")[:100]
    try:
        step = lifecycle.step_named(name)
        t = services.take_step(
            acting_user=request.user,
            tournament=t,
            step=name,
            reason=reason,
            confirmed=request.POST.get("confirm") == "1",
        )
    except DomainError as exc:
        t.refresh_from_db()
        return _tournament_page(
            request,
            t,
            step_error={"step": name, "message": exc.message, "reason": reason},
            status=400,
        )
    url = reverse("manage:tournament", args=[t.slug])
    request.submission.saved(url)
    messages.success(
        request,
        _("Hecho: «{step}». El torneo está ahora «{status}».").format(
            step=step.label, status=t.get_status_display()
        ),
    )
    return redirect(url)
