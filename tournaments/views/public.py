"""Public pages: no login needed (DESIGN.md: players read pairings and standings from their phones)."""
from __future__ import annotations

from django.db.models import Count
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET


from tournaments.models import Bye, Round, Table, Tournament
from tournaments.permissions import can_manage

DECIDED_BY_LABELS = {
    "juegos_ganados": "por juegos ganados",
    "efectividad": "por efectividad",
    "tantos_a_favor": "por tantos a favor",
    "diferencial": "por diferencial",
    "sorteo": "por sorteo",
}


def standings_context(tournament: Tournament) -> dict:
    """Context of the standings partial: lines plus labels; shared by public and manage pages."""
    lines = tournament.standings()
    round_numbers: list[int] = []
    if tournament.system == Tournament.System.TABLE:
        round_numbers = sorted({n for line in lines for n in line.row.figures.get("per_round", {})})
        for line in lines:
            per_round = line.row.figures.get("per_round", {})
            line.round_points = [(n, per_round.get(n)) for n in round_numbers]
    return {"standings": lines, "decided_by_labels": DECIDED_BY_LABELS, "round_numbers": round_numbers,
            "any_shared": any(line.row.shared for line in lines)}


@require_GET
def home(request):
    """Home: running, upcoming and recent tournaments."""
    tournaments = list(Tournament.objects.exclude(status=Tournament.Status.DRAFT).order_by("-date", "name")[:50])
    return render(request, "tournaments/home.html", {
        "running": [t for t in tournaments if t.status == Tournament.Status.RUNNING],
        "upcoming": [t for t in tournaments if t.status == Tournament.Status.REGISTRATION],
        "finished": [t for t in tournaments if t.status == Tournament.Status.FINISHED][:10],
    })


@require_GET
def tournament_list(request):
    tournaments = (
        Tournament.objects.exclude(status=Tournament.Status.DRAFT)
        .annotate(n_entries=Count("entries", distinct=True))
        .order_by("-date", "name")
    )
    return render(request, "tournaments/tournament_list.html", {"tournaments": tournaments})


def _tournament(slug: str, request=None) -> Tournament:
    """The published tournament ``slug``; a draft is visible only to those who manage it."""
    t = get_object_or_404(Tournament, slug=slug)
    if t.status == Tournament.Status.DRAFT and not (request and can_manage(request.user, t)):
        raise Http404("Ese torneo todavía no está publicado.")
    return t


@require_GET
def tournament_detail(request, slug):
    """Settings, entries, each round's tables with results, and the standings."""
    t = _tournament(slug, request)
    rounds = list(t.rounds.order_by("number"))
    tables_by_round: dict[int, list] = {}
    for table in Table.with_results().filter(round__tournament=t):
        tables_by_round.setdefault(table.round_id, []).append(table)
    byes_by_round: dict[int, list] = {}
    for bye in Bye.objects.filter(round__tournament=t).select_related("entry__player1", "entry__player2"):
        byes_by_round.setdefault(bye.round_id, []).append(bye.entry)
    round_blocks = [
        {"round": r, "tables": tables_by_round.get(r.pk, []), "byes": byes_by_round.get(r.pk, [])}
        for r in rounds
    ]
    context = {
        "t": t,
        "entries": list(t.entries.select_related("player1", "player2")),
        "round_blocks": round_blocks,
        "can_manage": can_manage(request.user, t),
        **standings_context(t),
    }
    return render(request, "tournaments/tournament_detail.html", context)


@require_GET
def standings(request, slug):
    t = _tournament(slug, request)
    context = {"t": t, **standings_context(t)}
    if request.htmx:
        return render(request, "tournaments/standings.html#standings_table", context)
    return render(request, "tournaments/standings.html", context)


@require_GET
def standings_csv(request, slug):
    t = _tournament(slug, request)
    from tournaments import exports

    response = HttpResponse(exports.standings_csv(t), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{t.slug}-clasificacion.csv"'
    return response


@require_GET
def round_detail(request, slug, number):
    t = _tournament(slug, request)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    return render(request, "tournaments/round_detail.html", {
        "t": t, "round": rnd, "tables": rnd.tables_with_results(), "byes": rnd.bye_entries(),
        "can_manage": can_manage(request.user, t),
    })


@require_GET
def round_print(request, slug, number):
    """Printable score sheets of a round: one per table, for A4 and Letter (print stylesheet)."""
    t = _tournament(slug, request)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    return render(request, "tournaments/round_print.html", {
        "t": t, "round": rnd, "tables": rnd.tables_with_results(), "byes": rnd.bye_entries(),
        "lines": range(12 if t.system == Tournament.System.DOMINO else 6),
    })
