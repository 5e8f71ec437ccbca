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
from tournaments.views.public import standings_context


def _row_context(
    table: Table, t: Tournament, *, typed: dict | None = None, error: str | None = None
) -> dict:
    """Context of one table's result row: its boxes (``ScoringSystem.row_fields``) with what
    was typed (``typed``, the posted row) or the stored result, the words of the stored
    result (hidden while an error is shown: they would be the old ones) and the version the
    director saw."""
    system = systems.of(t)
    version = table.version
    if typed is not None and str(typed.get("version", "")).isdigit():
        version = typed["version"]
    problem = system.problem_of(table, t)
    return {
        "table": table,
        "t": t,
        "fields": system.row_fields(table, t, typed),
        "error": error,
        "needs_correction": problem,
        "summary": "" if error or problem else system.row_summary(table, t),
        "result": system.result_of(table),
        "version": version,
    }


def _round_page_context(request, t: Tournament, rnd: Round) -> dict:
    system = systems.of(t)
    tables = rnd.tables_with_results()
    return {
        "t": t,
        "round": rnd,
        "rows": [_row_context(table, t) for table in tables],
        "byes": rnd.bye_entries(),
        "sheet_note": system.sheet_note(t),
        "castigos_apply": systems.CASTIGOS in system.actions(t),
        "castigo_form": CastigoForm(tournament=t),
        "castigos": list(
            rnd.castigos.select_related("player", "entered_by").order_by("created_at", "id")
        ),
        "missing": sum(1 for table in tables if table.any_result is None),
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


@director_required
@require_POST
def result_save(request, slug, table_id):
    """Save (``action=save``) or delete (``action=delete``) one table's result, whatever the
    scoring system: the row's form (``forms.result_row_form``) checks the boxes, then
    ``services.record_result`` / ``delete_result``. HTMX gets the row (with the points the
    result gives) plus the standings and the round's actions out of band; on error the row
    again with what was typed and a message in words (a table changed meanwhile shows what
    is stored now and quotes what was typed). Without JavaScript: a redirect to the row with
    the message at the top.

    No one-time form token here: the hidden ``version`` already lets a row save once (a second
    copy of the same post finds the version grown and is refused as "stale_version", storing
    nothing), so a repeated post never records a result twice."""
    t = managed_tournament(request, slug)
    table = _table_of(t, table_id)
    system = systems.of(t)
    form = result_row_form(system, table, t, request.POST)
    status, error = 200, None
    if not form.is_valid():
        error = _("Revisa los datos de la mesa: {errors}").format(
            errors="; ".join(str(e) for errs in form.errors.values() for e in errs)
        )
        status = 400
    else:
        data = form.cleaned_data
        try:
            if request.POST.get("action") == "delete":
                services.delete_result(
                    acting_user=request.user, table=table, version=data["version"]
                )
            else:
                services.record_result(
                    acting_user=request.user,
                    table=table,
                    version=data["version"],
                    **system.values_from_post({**request.POST.dict(), **data}, table),
                )
        except DomainError as exc:
            error, status = exc.message, status_for(exc)
    deleting = request.POST.get("action") == "delete"
    if error and status == 409:
        # Stale: the row shows what is stored now; what this director typed is only quoted in
        # the message, so saving again means typing it again on purpose.
        if deleting:
            error = _("No se borró: {error}").format(error=error)
        else:
            error = "{error} {typed}".format(
                error=error,
                typed=_("Lo que escribiste: {values}.").format(
                    values=system.typed_summary(request.POST)[:60]
                ),
            )
    if not request.htmx:
        if error:
            messages.error(
                request, _("Mesa {table}: {error}").format(table=table.number, error=error)
            )
        else:
            messages.success(request, _("Mesa {table} guardada.").format(table=table.number))
        return HttpResponseRedirect(
            reverse("manage:round", args=[t.slug, table.round.number]) + f"#mesa-{table.number}"
        )
    fresh = Table.with_results().filter(pk=table_id).select_related("round").first()
    if fresh is None:
        # The round was paired again meanwhile: the whole page is out of date.
        messages.error(request, error)
        response = HttpResponseClientRefresh()
        response.status_code = status
        return response
    if error and status == 409:
        context = _row_context(fresh, t, error=error)  # what is stored now, the typed quoted
    elif error:
        context = _row_context(fresh, t, typed=request.POST, error=error)
    else:
        context = _row_context(fresh, t)
    context.update(standings_context(t))
    context.update(oob=True, round=fresh.round, missing=fresh.round.missing_results())
    response = render(request, "tournaments/manage/round.html#result_row_response", context)
    response.status_code = status
    return response


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


@director_required
@require_POST
@submitted_once
def castigo_add(request, slug, number):
    """Charge a castigo (``services.add_castigo``). A second copy of the form (its one-time
    token, ``access.one_submission``) charges nothing: HTMX gets the castigos panel with
    "Ya se había guardado", a plain post the round page with that message."""
    t = managed_tournament(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    if request.submission.repeated:
        if request.htmx:
            return _castigos_response(request, t, rnd, notice=request.submission.message)
        return request.submission.answer(request, reverse("manage:round", args=[t.slug, number]))
    form = CastigoForm(request.POST, tournament=t)
    error, status = None, 200
    if not form.is_valid():
        error = "; ".join(str(e) for errs in form.errors.values() for e in errs)
        status = 400
    else:
        try:
            services.add_castigo(
                acting_user=request.user, tournament=t, round=rnd, **form.cleaned_data
            )
            request.submission.saved(reverse("manage:round", args=[t.slug, number]))
            form = None
        except DomainError as exc:
            error, status = exc.message, status_for(exc)
    if not request.htmx:
        (messages.error if error else messages.success)(request, error or _("Castigo registrado."))
        return redirect("manage:round", slug=t.slug, number=number)
    return _castigos_response(request, t, rnd, form=form, error=error, status=status)


@director_required
@require_POST
def castigo_remove(request, slug, number, castigo_id):
    t = managed_tournament(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    castigo = get_object_or_404(Castigo, pk=castigo_id, tournament=t)
    error, status = None, 200
    try:
        services.remove_castigo(acting_user=request.user, castigo=castigo)
    except DomainError as exc:
        error, status = exc.message, status_for(exc)
    if not request.htmx:
        (messages.error if error else messages.success)(request, error or _("Castigo quitado."))
        return redirect("manage:round", slug=t.slug, number=number)
    return _castigos_response(request, t, rnd, error=error, status=status)


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
