"""Public ranking pages: a year's ranking, a player's history, the "¿Cuánto cambia?" calculator."""

from __future__ import annotations

import csv
import io

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from clubsite.pagecache import public_page
from rankings import elo, queries
from rankings.forms import CalculatorForm
from tournaments.models import Player

RANKING_PAGE_SIZE = 100


def _current_year() -> int:
    return timezone.localdate().year


@require_GET
@public_page
def ranking(request):
    """The ranking of a year (``?year=``, default the current one), searchable by name (``?q=``),
    ``RANKING_PAGE_SIZE`` players a page (``?page=``; a page out of range shows the last one)."""
    years = queries.ranking_years()
    try:
        year = int(request.GET.get("year") or _current_year())
    except ValueError:
        year = _current_year()
    if not 1900 <= year <= 2999:
        year = _current_year()
    lines = queries.year_ranking(year)
    q = request.GET.get("q", "").strip()[:100]
    if q:
        folded = q.casefold()
        lines = [ln for ln in lines if folded in ln.name.casefold()]
    page = Paginator(lines, RANKING_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "year": year,
        "years": sorted(set(years) | {year}, reverse=True),
        "lines": page.object_list,
        "page": page,
        "q": q,
    }
    if request.htmx:
        return render(request, "rankings/ranking.html#ranking_table", context)
    return render(request, "rankings/ranking.html", context)


def _csv_response(rows, header, filename):
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    response = HttpResponse(buf.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
@public_page
def ranking_csv(request, year):
    from rankings.exports import RANKING_HEADER, ranking_rows

    return _csv_response(ranking_rows(year), RANKING_HEADER, f"ranking-{year}.csv")


@require_GET
@public_page
def player(request, pk):
    """A player's rating now, position in this year's ranking, chart and ledger."""
    p = get_object_or_404(Player, pk=pk)
    history = queries.player_history(p)
    year = _current_year()
    position = queries.year_position(p.pk, year)
    rating = history[-1].row.rating_after if history else None
    return render(
        request,
        "rankings/player.html",
        {
            "player": p,
            "history": list(reversed(history)),
            "chart": queries.rating_chart(history),
            "rating": rating,
            "position": position,
            "year": year,
        },
    )


@require_GET
@public_page
def player_csv(request, pk):
    from rankings.exports import LEDGER_HEADER, ledger_rows

    p = get_object_or_404(Player, pk=pk)
    return _csv_response(ledger_rows(player=p), LEDGER_HEADER, f"ledger-{p.pk}.csv")


@require_http_methods(["GET", "POST"])
def calculator(request):
    """Expected score and rating change of each player for a hypothetical game (elo.py)."""
    form = CalculatorForm(request.POST or None)
    outcome = None
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        side_a = [p for p in (d["a1"], d["a2"]) if p]
        side_b = [p for p in (d["b1"], d["b2"]) if p]
        current = queries.current_ratings([p.pk for p in side_a + side_b], year=_current_year())
        before = {
            p.pk: elo.PlayerBefore(
                player_id=p.pk, rating=current[p.pk].rating, ng=current[p.pk].ng_this_year
            )
            for p in side_a + side_b
        }
        updates = elo.game_update(
            [before[p.pk] for p in side_a],
            [before[p.pk] for p in side_b],
            d["tantos_a"],
            d["tantos_b"],
        )
        names = {p.pk: p.full_name for p in side_a + side_b}
        outcome = [(names[u.player_id], u) for u in updates]
    context = {"form": form, "outcome": outcome}
    status = 400 if request.method == "POST" and not form.is_valid() else 200
    if request.htmx:
        return render(request, "rankings/calculator.html#calculator_result", context, status=status)
    return render(request, "rankings/calculator.html", context, status=status)
