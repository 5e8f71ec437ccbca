"""The round clock's public page, for a projector, a TV or a phone (``/torneos/<slug>/reloj/``),
and the state it follows (``/torneos/<slug>/reloj/estado.json``).

Neither goes through the page cache, and both answer ``Cache-Control: no-store``: what they
show depends on the moment, not only on the data (a cached page would show the time left when
it was computed). Both read the primary database, never a lagging replica: a pause must show at
once. The page shows the round and the time left as the server computes it (without
JavaScript it reloads itself every 30 s); ``static/js/clock.js`` then asks for the state every
few seconds and counts down by itself to the server's ``ends_at``, corrected by the difference
between the server's clock and the screen's, so every screen shows the same second and keeps
counting when the network drops.
"""

from __future__ import annotations

import datetime as dt

from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from clubsite.routers import use_replica
from tournaments.models import Round, Tournament
from tournaments.services.clock import clock_state, mm_ss, shown_seconds
from tournaments.views import sharing
from tournaments.views.visibility import tournament_or_404

#: Seconds between two looks at the state (static/js/clock.js reads it from the page).
POLL_SECONDS = 5


def clock_round(t: Tournament, ronda: str | None) -> Round | None:
    """The round the clock shows: ``?ronda=N`` when given as a number (404 when the tournament
    has no such round), else the current round (``Tournament.current_round``); None before
    round 1. The round's ``tournament`` is ``t`` (no further query)."""
    text = (ronda or "").strip()
    if text.isascii() and text.isdigit() and len(text) <= 2:
        rnd = Round.objects.filter(tournament=t, number=int(text)).first()
        if rnd is None:
            raise Http404(_("No existe esa ronda en este torneo."))
    else:
        rnd = t.current_round()
    if rnd is not None:
        rnd.tournament = t
    return rnd


def state_of(t: Tournament, rnd: Round | None, now) -> dict:
    """The JSON state: ``clock_state`` of ``rnd`` at ``now`` (status "no_round" before round
    1; "closed" for a closed round or a finished tournament whose clock did not run out), with ``now`` (the server's time, ISO 8601 with milliseconds) and ``shown`` (the whole
    seconds the screen shows)."""
    if rnd is None:
        state = {
            "status": "no_round",
            "round": None,
            "closed": False,
            "total": None,
            "added": 0,
            "elapsed": 0.0,
            "remaining": None,
            "ends_at": None,
        }
    else:
        state = clock_state(rnd, now)
        if (rnd.closed or t.status == Tournament.Status.FINISHED) and state["status"] in (
            "idle",
            "running",
            "paused",
        ):
            # A closed round (or a finished tournament) is not waiting for its clock.
            state["status"] = "closed"
            state["ends_at"] = None
    state["shown"] = shown_seconds(state["remaining"])
    state["now"] = now.isoformat(timespec="milliseconds")
    state["time_limit"] = t.time_limit
    return state


@require_safe
@never_cache
def clock(request, slug):
    """The full-screen clock of the current round (or ``?ronda=N``): its number, the time left
    in big digits, and what the clock is doing (not started, running, paused, time up), with
    the time it ends. Without a time limit it says the clock cannot run. Four queries."""
    with use_replica(False):
        t = tournament_or_404(request, slug)
        rnd = clock_round(t, request.GET.get("ronda"))
        now = timezone.now()
        state = state_of(t, rnd, now)
    ronda = request.GET.get("ronda", "")
    query = f"?ronda={rnd.number}" if rnd is not None and ronda.strip() else ""
    ends_at = None
    if state["ends_at"] and state["status"] == "running":
        ends_at = timezone.localtime(dt.datetime.fromisoformat(state["ends_at"]))
    return render(
        request,
        "tournaments/clock.html",
        {
            "t": t,
            "og": sharing.clock_card(t, rnd),
            "round": rnd,
            "state": state,
            "shown": mm_ss(state["remaining"]),
            "ends_at": ends_at,
            "state_query": query,
            "poll_seconds": POLL_SECONDS,
        },
    )


@require_safe
@never_cache
def clock_state_json(request, slug):
    """The clock's state as JSON (``state_of``): what ``static/js/clock.js`` follows. Never
    stored by the page cache nor a browser. Two to four queries."""
    with use_replica(False):
        t = tournament_or_404(request, slug)
        rnd = clock_round(t, request.GET.get("ronda"))
        state = state_of(t, rnd, timezone.now())
    return JsonResponse(state)
