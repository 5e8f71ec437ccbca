"""The round clock's buttons on the director's round page: start, pause, resume, add or take
away time, and reset (``services.start_clock`` ...; the public clock page is
``tournaments.views.clock``).

One address takes every button (``action`` = start | pause | resume | add | reset, with
``seconds`` for add). Without JavaScript a press goes back to the round page (``#reloj``)
with a message; with HTMX it answers the clock panel alone (``round.html#clock_panel``), the
message inside it. Each button is a form with a one-time token, so a double tap adds time
once. Resetting asks first (``confirm.ask_first``)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from tournaments import services, systems
from tournaments.errors import DomainError
from tournaments.models import Round, Tournament
from tournaments.services.clock import clock_state, mm_ss
from tournaments.views.clock import POLL_SECONDS
from tournaments.views.manage.access import (
    director_required,
    managed_tournament,
    status_for,
    submitted_once,
)
from tournaments.views.manage.confirm import ask_first, confirmation

#: The buttons that add or take away time, in seconds (+1 min, +5 min, −1 min).
STEPS = (60, 300, -60)


def clock_panel(
    t: Tournament,
    rnd: Round,
    *,
    missing: int,
    notice: str | None = None,
    error: str | None = None,
) -> dict:
    """Context of the round page's clock panel (``round.html#clock_panel``), as ``clock``:
    the state now (``clock_state``), the time shown, whether it runs or ever ran, the
    tables still ``missing`` a result (the "time is up" notice), whether the system's
    results have an "ended by time" mark (``time_box``), the steps of the time buttons, and
    what was just done (``notice``) or refused (``error``). No query."""
    rnd.tournament = t
    now = timezone.now()
    state = clock_state(rnd, now)
    state["now"] = now.isoformat(timespec="milliseconds")
    running = rnd.clock_running_since is not None
    steps = [
        (
            seconds,
            ("+" if seconds > 0 else "−") + _("{minutes} min").format(minutes=abs(seconds) // 60),
        )
        for seconds in STEPS
    ]
    return {
        "state": state,
        "shown": mm_ss(state["remaining"]),
        "running": running,
        "started": running or rnd.clock_elapsed > 0 or rnd.clock_added != 0,
        "missing": missing,
        "time_box": systems.of(t).presentation.sheet_time_box(t),
        "steps": steps,
        "state_query": f"?ronda={rnd.number}",
        "poll_seconds": POLL_SECONDS,
        "notice": notice,
        "error": error,
    }


def _change(seconds: int) -> str:
    """``seconds`` added or taken away, as the clock writes them: "+1:00", "−5:00"."""
    sign = "+" if seconds > 0 else "−"
    return f"{sign}{abs(seconds) // 60}:{abs(seconds) % 60:02d}"


def _seconds(text) -> int | str:
    """The posted ``seconds``: a whole number, or the text as typed (at most 20 characters)
    for the service to refuse ("clock_bad_seconds")."""
    text = str(text or "").strip()
    digits = text[1:] if text[:1] in "-−" else text
    if digits.isascii() and digits.isdigit() and len(digits) <= 6:
        return -int(digits) if text[:1] in "-−" else int(digits)
    return text[:20]


@director_required
@require_POST
@submitted_once
def round_clock(request, slug, number):
    """A press of one of the clock's buttons on the round page (see the module docstring).
    A refusal (a round closed meanwhile: 409; the clock not in the state the button expects,
    no time limit: 400) is said in words: at the top of the round page without JavaScript,
    inside the clock panel with HTMX."""
    t = managed_tournament(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    back = reverse("manage:round", args=[t.slug, number]) + "#reloj"
    if request.submission.repeated:
        if request.htmx:
            return _panel(request, t, rnd, notice=request.submission.message)
        return request.submission.answer(request, back)
    action = request.POST.get("action", "")
    user = request.user
    error, done, status = None, None, 200
    try:
        if action == "start":
            rnd = services.start_clock(acting_user=user, round=rnd)
            done = _("Reloj de la ronda {number} en marcha.").format(number=number)
        elif action == "pause":
            rnd = services.pause_clock(acting_user=user, round=rnd)
            done = _("Reloj de la ronda {number} en pausa.").format(number=number)
        elif action == "resume":
            rnd = services.resume_clock(acting_user=user, round=rnd)
            done = _("Reloj de la ronda {number} en marcha de nuevo.").format(number=number)
        elif action == "add":
            seconds = _seconds(request.POST.get("seconds"))
            rnd = services.add_clock_time(acting_user=user, round=rnd, seconds=seconds)
            done = _("Reloj de la ronda {number}: {change}.").format(
                number=number, change=_change(seconds)
            )
        elif action == "reset":

            def write():
                services.reset_clock(acting_user=user, round=rnd)

            if page := ask_first(request, write, lambda: _confirm_reset(request, t, rnd)):
                return page
            done = _("Reloj de la ronda {number} reiniciado.").format(number=number)
        else:
            error, status = _("Ese botón del reloj no existe."), 400
    except DomainError as exc:
        error, status = exc.message, status_for(exc)
    if done:
        request.submission.saved(back)
    rnd.refresh_from_db()
    if not request.htmx:
        (messages.error if error else messages.success)(request, error or done)
        return HttpResponseRedirect(back)
    return _panel(request, t, rnd, notice=done, error=error, status=status)


def _panel(request, t, rnd, *, notice=None, error=None, status=200):
    """The clock panel alone (HTMX), with ``notice`` or ``error`` inside it."""
    context = {
        "t": t,
        "round": rnd,
        "clock": clock_panel(t, rnd, missing=rnd.missing_results(), notice=notice, error=error),
    }
    return render(request, "tournaments/manage/round.html#clock_panel", context, status=status)


def _confirm_reset(request, t: Tournament, rnd: Round):
    """The question before resetting the clock (``confirm.confirmation``)."""
    rnd.tournament = t
    return confirmation(
        request,
        question=_("¿Reiniciar el reloj de la ronda {number}?").format(number=rnd.number),
        details=[
            _(
                "El reloj vuelve a {time}, parado: se pierde el tiempo corrido y el tiempo añadido."
            ).format(time=mm_ss((t.time_limit or 0) * 60)),
        ],
        action=reverse("manage:clock", args=[t.slug, rnd.number]),
        fields=[("action", "reset")],
        cancel_url=reverse("manage:round", args=[t.slug, rnd.number]) + "#reloj",
        button=_("Sí, reiniciar"),
    )
