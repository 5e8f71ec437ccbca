"""Directors' pages: the round page, its results (HTMX rows, the table-game branch included),
castigos, and closing / reopening the round."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe
from django_htmx.http import HttpResponseClientRefresh

from tournaments import services, systems
from tournaments.errors import DomainError
from tournaments.forms import CastigoForm, result_row_form
from tournaments.models import Castigo, Round, Table, Tournament
from tournaments.views.manage.access import (
    director_required,
    managed_tournament,
    status_for,
    submitted_once,
)
from tournaments.views.manage.clock import clock_panel
from tournaments.views.manage.confirm import (
    ask_first,
    confirmation,
    confirmed,
    place_error,
    refusal,
)
from tournaments.views.public import standings_context


def _row_context(
    table: Table,
    t: Tournament,
    *,
    typed: dict | None = None,
    error: str | None = None,
    notice: str | None = None,
) -> dict:
    """Context of one table's result row: its boxes (``Presentation.row_fields``) with what
    was typed (``typed``, the posted row) or the stored result, the words of the stored
    result and the version the director saw.

    A row with an ``error`` (a refused save or deletion) is never shown as saved: no "saved"
    mark or look, no points of the stored result (they would be the old ones), and its first
    box takes the focus (``autofocus_id``). ``notice``: what was just done, in words."""
    system = systems.of(t)
    version = table.version
    if typed is not None and str(typed.get("version", "")).isdigit():
        version = typed["version"]
    problem = system.problem_of(table, t)
    fields = system.presentation.row_fields(table, t, typed)
    return {
        "table": table,
        "t": t,
        "fields": fields,
        "error": error,
        "notice": notice,
        "needs_correction": problem,
        "summary": "" if error or problem else system.presentation.row_summary(table, t),
        "result": system.result_of(table),
        "saved": system.result_of(table) is not None and not error,
        "version": version,
        "autofocus_id": next((f.dom_id for f in fields if f.dom_id), "") if error else "",
    }


def _result_words(table: Table, t: Tournament) -> str:
    """A table and its stored result in one sentence, for the question before deleting it:
    "Mesa 3: Ana & Beto contra Celia & Dani, 100–20." or, without sides, each seat with its
    score ("Mesa 2: Ana 45 VP, Beto 30 VP, Celia 12 VP.")."""
    card = systems.of(t).presentation.card(table)
    if card.seats:
        seats = ", ".join(f"{name} {score}".strip() for name, score, _points in card.seats)
        return _("Mesa {table}: {seats}.").format(table=table.number, seats=seats)
    return _("Mesa {table}: {side_a} contra {side_b}, {score}.").format(
        table=table.number,
        side_a=" & ".join(card.side_a),
        side_b=" & ".join(card.side_b),
        score=card.score,
    )


def _round_page_context(
    request, t: Tournament, rnd: Round, *, row: dict | None = None, castigo_form=None
) -> dict:
    """The round page's context; ``row``: the context of one row shown as given (a refused
    save, with what was typed and why) instead of as stored; ``castigo_form``: the castigo
    form as refused (typed values and errors)."""
    system = systems.of(t)
    tables = rnd.tables_with_results()
    rows = [_row_context(table, t) for table in tables]
    if row is not None:
        rows = [row if r["table"].pk == row["table"].pk else r for r in rows]
    return {
        "t": t,
        "round": rnd,
        "rows": rows,
        "byes": rnd.bye_entries(),
        "sheet_note": system.presentation.sheet_note(t),
        "castigos_apply": systems.CASTIGOS in system.actions(t),
        "castigo_form": castigo_form or CastigoForm(tournament=t),
        "castigos": list(
            rnd.castigos.select_related("player", "entered_by").order_by("created_at", "id")
        ),
        "missing": sum(1 for table in tables if table.any_result is None),
        "clock": clock_panel(t, rnd, missing=sum(1 for tb in tables if tb.any_result is None)),
        **standings_context(t),
    }


@director_required
@require_safe
def round_manage(request, slug, number):
    t = managed_tournament(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    return render(request, "tournaments/manage/round.html", _round_page_context(request, t, rnd))


def _table_of(t: Tournament, table_id: int) -> Table:
    table = (
        Table.with_results()
        .filter(pk=table_id, round__tournament=t)
        .select_related("round")
        .first()
    )
    if table is None:
        raise Http404(_("No existe esa mesa en este torneo."))
    return table


def _changed_since(table: Table, version) -> bool:
    """Whether ``table`` was written after the page that sent ``version`` was made."""
    now = Table.objects.filter(pk=table.pk).values_list("version", flat=True).first()
    return version is not None and now is not None and int(version) != now


@director_required
@require_POST
def result_save(request, slug, table_id):
    """Save (``action=save``) or delete (``action=delete``) one table's result, whatever the
    scoring system: the row's form (``forms.result_row_form``) checks the boxes, then
    ``services.record_result`` / ``delete_result``.

    HTMX gets the row (with the points the result gives) plus the standings and the round's
    actions out of band. A refusal (400, or 409 when the table or round changed meanwhile)
    answers the row with what was typed and the message in words inside it, never marked
    saved; a table changed meanwhile shows what is stored now and quotes what was typed.
    Without JavaScript a refusal is the whole round page with that row the same way and the
    same status, the row's first box focused (``autofocus``: the page opens there; an address
    fragment would stop the browser from focusing it); a save or a deletion goes back to the
    row (``#mesa-N``) with a message saying what was done.

    A deletion asks first (``confirm.py``): without ``confirm=1`` a deletion that would go
    through gets the confirmation page and stores nothing; one that would be refused is
    answered with the refusal at once.

    No one-time form token here: the hidden ``version`` already lets a row save once (a second
    copy of the same post finds the version grown and is refused as "stale_version", storing
    nothing), so a repeated post never records a result twice."""
    t = managed_tournament(request, slug)
    table = _table_of(t, table_id)
    system = systems.of(t)
    deleting = request.POST.get("action") == "delete"
    form = result_row_form(system, table, t, request.POST)
    status, error, already_gone = 200, None, False
    if not form.is_valid():
        error = _("Revisa los datos de la mesa: {errors}").format(
            errors="; ".join(str(e) for errs in form.errors.values() for e in errs)
        )
        status = 400
    else:
        data = form.cleaned_data
        if deleting:

            def write():
                services.delete_result(
                    acting_user=request.user, table=table, version=data["version"]
                )

        else:

            def write():
                services.record_result(
                    acting_user=request.user,
                    table=table,
                    version=data["version"],
                    **system.presentation.values_from_post({**request.POST.dict(), **data}, table),
                )

        try:
            if not deleting:
                if page := _ask_about_slips(request, t, table, system, write):
                    return page
                write()
            elif page := ask_first(
                request,
                write,
                lambda: _confirm_result_delete(request, t, table, data["version"]),
            ):
                return page
        except DomainError as exc:
            if deleting and exc.code == "no_result" and _changed_since(table, data["version"]):
                already_gone = True  # deleted meanwhile (another page): what was asked holds
            else:
                error, status = exc.message, status_for(exc)
    if error and status == 409:
        # Stale: the row shows what is stored now; what this director typed is only quoted in
        # the message, so saving again means typing it again on purpose.
        if deleting:
            error = _("No se borró: {error}").format(error=error)
        else:
            error = "{error} {typed}".format(
                error=error,
                typed=_("Lo que escribiste: {values}.").format(
                    values=system.presentation.typed_summary(request.POST)[:60]
                ),
            )
    done = None
    if not error:
        if already_gone:
            done = _("El resultado de la mesa {table} ya estaba borrado.")
        elif deleting:
            done = _("Resultado de la mesa {table} borrado.")
        else:
            done = _("Mesa {table} guardada.")
        done = done.format(table=table.number)
    row_url = reverse("manage:round", args=[t.slug, table.round.number]) + f"#mesa-{table.number}"
    fresh = Table.with_results().filter(pk=table_id).select_related("round").first()
    if fresh is None:
        # The round was paired again meanwhile: the whole page is out of date.
        messages.error(request, error or done)
        if not request.htmx:
            return HttpResponseRedirect(row_url)
        response = HttpResponseClientRefresh()
        response.status_code = status
        return response
    if error and status == 409:
        context = _row_context(fresh, t, error=error)  # what is stored now, the typed quoted
    elif error:
        context = _row_context(fresh, t, typed=request.POST, error=error)
    else:
        context = _row_context(fresh, t, notice=done if deleting else None)
    if not request.htmx:
        if not error:
            messages.success(request, done)
            return HttpResponseRedirect(row_url)
        page = _round_page_context(request, t, fresh.round, row=context)
        return render(request, "tournaments/manage/round.html", page, status=status)
    context.update(standings_context(t))
    context.update(oob=True, round=fresh.round, missing=fresh.round.missing_results())
    response = render(request, "tournaments/manage/round.html#result_row_response", context)
    response.status_code = status
    return response


def _ask_about_slips(request, t: Tournament, table: Table, system, write):
    """The question before saving a result whose figures the rules allow but that look like a
    typing slip (``Presentation.slips``: "9999 tantos con meta 100: ¿seguro?"), asked once:
    None when there is none, when the director already said yes (``confirm=1``), or when the
    service would refuse the result anyway (a dry run: the refusal is what they see then).
    Otherwise the confirmation page (``confirm.confirmation``, for HTMX and plain forms
    alike), whose "Sí, guardar" posts the same row again with ``confirm=1``."""
    if confirmed(request) or request.POST.get("forfeit"):
        return None
    questions = system.presentation.slips(
        system.presentation.values_from_post(request.POST, table), t
    )
    if not questions or refusal(write) is not None:
        return None
    return confirmation(
        request,
        question=" ".join(questions),
        details=[
            _("Mesa {table}: {typed}.").format(
                table=table.number, typed=system.presentation.typed_summary(request.POST)[:60]
            ),
            _("Las reglas lo permiten, pero suele ser un error al teclear: revisa la hoja."),
        ],
        action=request.path,
        fields=[
            (name, value)
            for name, values in request.POST.lists()
            if name not in ("csrfmiddlewaretoken", "confirm")
            for value in values
        ],
        cancel_url=reverse("manage:round", args=[t.slug, table.round.number])
        + f"#mesa-{table.number}",
        button=_("Sí, guardar"),
    )


def _confirm_result_delete(request, t: Tournament, table: Table, version: int):
    """The question before deleting ``table``'s result (``confirm.confirmation``)."""
    return confirmation(
        request,
        question=_("¿Borrar el resultado de la mesa {table}?").format(table=table.number),
        details=[
            _result_words(table, t),
            _("Sus puntos dejan de contar en la clasificación; la mesa queda pendiente."),
        ],
        action=reverse("manage:result_save", args=[t.slug, table.pk]),
        fields=[("action", "delete"), ("version", version)],
        cancel_url=reverse("manage:round", args=[t.slug, table.round.number])
        + f"#mesa-{table.number}",
    )


def _castigos_response(request, t, rnd, *, form=None, error=None, notice=None, status=200):
    context = {
        "t": t,
        "round": rnd,
        "castigo_form": form or CastigoForm(tournament=t),
        "castigo_error": error,
        "castigo_notice": notice,
        "castigos": list(
            rnd.castigos.select_related("player", "entered_by").order_by("created_at", "id")
        ),
        "oob": True,
        **standings_context(t),
    }
    response = render(
        request, "tournaments/manage/round.html#castigos_response", context, status=status
    )
    return response


#: The castigo form's field each refusal of ``services.add_castigo`` is about.
CASTIGO_ERROR_FIELDS = {
    "castigo_tantos": "tantos",
    "player_not_entered": "player",
    "castigo_after_withdrawal": "player",
}


@director_required
@require_POST
@submitted_once
def castigo_add(request, slug, number):
    """Charge a castigo (``services.add_castigo``). A refusal shows what was typed with each
    message beside its field (the first one focused): HTMX gets the castigos panel; without
    JavaScript, the round page (400, or 409 for a round closed meanwhile), the panel's first
    refused field (or its message) focused, so the page opens there. A second copy of the form (its one-time token,
    ``access.one_submission``) charges nothing: HTMX gets the castigos panel with "Ya se había
    guardado", a plain post the round page with that message."""
    t = managed_tournament(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    if request.submission.repeated:
        if request.htmx:
            return _castigos_response(request, t, rnd, notice=request.submission.message)
        return request.submission.answer(request, reverse("manage:round", args=[t.slug, number]))
    form = CastigoForm(request.POST, tournament=t)
    error, status = None, 200
    if not form.is_valid():
        status = 400
    else:
        try:
            services.add_castigo(
                acting_user=request.user, tournament=t, round=rnd, **form.cleaned_data
            )
            request.submission.saved(reverse("manage:round", args=[t.slug, number]))
        except DomainError as exc:
            status = status_for(exc)
            if exc.code in CASTIGO_ERROR_FIELDS or exc.code.startswith("name_"):
                place_error(form, exc, CASTIGO_ERROR_FIELDS, by_name={"motivo": "reason"})
            else:
                error = exc.message  # about the round, not a field: above the button
        else:
            if not request.htmx:
                messages.success(request, _("Castigo registrado."))
                return redirect("manage:round", slug=t.slug, number=number)
            return _castigos_response(request, t, rnd)
    if not request.htmx:
        context = _round_page_context(request, t, rnd, castigo_form=form)
        context["castigo_error"] = error
        return render(request, "tournaments/manage/round.html", context, status=status)
    return _castigos_response(request, t, rnd, form=form, error=error, status=status)


@director_required
@require_POST
def castigo_remove(request, slug, number, castigo_id):
    """Take a castigo back (``services.remove_castigo``), once the director said yes
    (``confirm.py``: without ``confirm=1``, the confirmation page; a removal the service
    would refuse is answered with the refusal at once). Then "Castigo a Ana Pérez quitado.":
    HTMX in the castigos panel, without JavaScript at the top of the round page."""
    t = managed_tournament(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    castigo = get_object_or_404(
        Castigo.objects.select_related("player"), pk=castigo_id, tournament=t
    )
    name = castigo.player.full_name

    def write():
        services.remove_castigo(acting_user=request.user, castigo=castigo)

    error, status, done = None, 200, None

    def question():
        return confirmation(
            request,
            question=_("¿Quitar el castigo a {name}?").format(name=name),
            details=[
                _("{name}: −{tantos} tantos en la ronda {round}, «{reason}».").format(
                    name=name, tantos=castigo.tantos, round=number, reason=castigo.reason
                ),
                _("Sus tantos vuelven a contar en la efectividad."),
            ],
            action=reverse("manage:castigo_remove", args=[t.slug, number, castigo.pk]),
            cancel_url=reverse("manage:round", args=[t.slug, number]) + "#castigos",
            button=_("Sí, quitar"),
        )

    try:
        if page := ask_first(request, write, question):
            return page
        done = _("Castigo a {name} quitado.").format(name=name)
    except DomainError as exc:
        error, status = exc.message, status_for(exc)
    if not request.htmx:
        (messages.error if error else messages.success)(request, error or done)
        return redirect("manage:round", slug=t.slug, number=number)
    return _castigos_response(request, t, rnd, error=error, notice=done, status=status)


@director_required
@require_POST
def round_close(request, slug, number):
    t = managed_tournament(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    try:
        if request.POST.get("reopen") == "1":
            services.reopen_round(acting_user=request.user, round=rnd)
            messages.success(request, _("Ronda {number} reabierta.").format(number=number))
        else:
            services.close_round(acting_user=request.user, round=rnd)
            messages.success(request, _("Ronda {number} cerrada.").format(number=number))
    except DomainError as exc:
        messages.error(request, exc.message)
    return redirect("manage:round", slug=t.slug, number=number)
