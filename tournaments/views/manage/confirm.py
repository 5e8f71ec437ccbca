"""What the directors' forms share so that they behave the same with and without JavaScript:
asking before a deletion, and a refusal shown beside the field it is about.

Deletions (a table's result, a castigo, an entry, a player) ask first. With JavaScript the
button asks (``hx-confirm``, or ``data-confirm`` on a plain form: static/js/forms.js) and
sends ``confirm=1``; without it, a post without ``confirm=1`` gets a confirmation page
(``confirmation``, templates/tournaments/manage/confirm.html) whose "Sí, borrar" posts the
same form again with ``confirm=1``. A deletion the service would refuse anyway is not asked
about: the view answers with the refusal at once (``refusal``, a dry run).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from django.db import transaction
from django.shortcuts import render
from django.utils.translation import gettext as _
from django_htmx.http import reswap, retarget

from tournaments.errors import DomainError


def confirmed(request) -> bool:
    """Whether the post carries the director's "yes" (``confirm=1``)."""
    return request.POST.get("confirm") == "1"


def refusal(call: Callable[[], object]) -> DomainError | None:
    """Run ``call`` (a service call that deletes) in a savepoint that is always rolled back:
    the ``DomainError`` it raised, or None if it would go through. Nothing it wrote stays,
    nor its commit hooks (ledger replay, page cache)."""
    try:
        with transaction.atomic():
            call()
            transaction.set_rollback(True)
    except DomainError as exc:
        return exc
    return None


def confirmation(
    request,
    *,
    question: str,
    details: Iterable[str],
    action: str,
    fields: Iterable[tuple[str, object]] = (),
    cancel_url: str,
    button: str | None = None,
):
    """The confirmation page of a deletion: ``question`` ("¿Borrar el resultado de la mesa
    3?") as its heading, ``details`` (sentences saying what goes), and a form posting
    ``fields`` (name, value pairs) plus ``confirm=1`` to ``action`` with the button
    ``button`` ("Sí, borrar" by default), next to a "Cancelar" link to ``cancel_url``.
    Status 200: nothing was stored. An HTMX request (a button that did not send
    ``confirm=1``) gets the page in place of the current one."""
    if request.htmx:
        cancel_url = reloading(cancel_url)
    response = render(
        request,
        "tournaments/manage/confirm.html",
        {
            "question": question,
            "details": list(details),
            "action": action,
            "fields": [(name, "" if value is None else str(value)) for name, value in fields],
            "cancel_url": cancel_url,
            "button": button or _("Sí, borrar"),
        },
    )
    if request.htmx:
        retarget(response, "body")
        reswap(response, "innerHTML")
    return response


def reloading(url: str) -> str:
    """``url`` written so that following it loads the page again: an HTMX answer that took
    the whole page (the question) left the address bar at the page it came from, where a link
    to that same address with a fragment (``…/ronda/2/#mesa-3``) would only move to the
    fragment; an empty query (``…/ronda/2/?#mesa-3``) makes it another address, so "Cancelar"
    loads the page as it is."""
    path, hash_, fragment = url.partition("#")
    if "?" not in path:
        path += "?"
    return path + hash_ + fragment


def ask_first(request, write: Callable[[], object], question: Callable[[], object]):
    """The one way a deletion runs: ``write`` (the service call) once the director said yes.

    Without ``confirm=1``: a deletion that would go through answers ``question()`` (the
    confirmation page, usually ``confirmation``) and stores nothing; one the service would
    refuse raises its ``DomainError`` at once (nothing to ask about). With ``confirm=1``:
    ``write()`` runs, raising whatever it raises. Returns the page to answer, or None once
    ``write`` ran."""
    if not confirmed(request):
        exc = refusal(write)
        if exc is not None:
            raise exc
        return question()
    write()
    return None


def place_error(
    form,
    exc: DomainError,
    by_code: Mapping[str, str],
    *,
    by_name: Mapping[str, str] | None = None,
) -> None:
    """Show a service's refusal ``exc`` on ``form``, beside the field it is about:
    ``by_code`` maps an error code to a field; a name's refusal ("name_required",
    "name_too_long", "name_control_chars") goes to the field ``by_name`` gives for the
    name's word in the message (its ``field`` parameter: "nombre", "apodo", "motivo"). A
    refusal about no field of the form goes to its top (a non-field error)."""
    field = by_code.get(exc.code)
    if field is None and by_name and exc.code.startswith("name_"):
        field = by_name.get(str(exc.params.get("field", "")))
    form.add_error(field if field in form.fields else None, exc.message)
