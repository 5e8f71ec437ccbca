"""Public league pages (docs/SCORING.md, "Leagues"): the leagues of a season (/ligas/), one
league's table (/ligas/<slug>/) and its downloads (CSV, .xlsx).

A league page shows data of many tournaments, so its page-cache scopes are ``LEAGUES`` (the
league's own row and its list of tournaments) and the league's own scope, drawn with the
scope of any of its tournaments (``leagues.league_scopes``, ``leagues.league_scope``): a
change in any of them renews the page, and a hit reads the same keys however many
tournaments the league has.
"""

from __future__ import annotations

from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_safe

from clubsite.pagecache import CLUB, public_page, settle, settle_page
from tournaments import leagues
from tournaments.models import League, Tournament
from tournaments.scoring import league as rules
from tournaments.views import downloads
from tournaments.views.public import STANDINGS_ORPHANS, STANDINGS_PAGE_SIZE

#: The most result cells a page of a league's table renders (lines × tournaments; each cell is
#: drawn twice, in its column and in the phone's line): a league of many tournaments shows
#: fewer lines a page (``leagues.league_table(max_cells=...)``).
LEAGUE_PAGE_CELLS = 600

#: The words of each tiebreak's ``decided_by`` (SCORING.md "Leagues").
TIEBREAK_LABELS = {
    rules.WINS: _("por torneos ganados"),
    rules.BEST_PLACE: _("por mejor puesto"),
    rules.LAST_TOURNAMENT: _("por el último torneo"),
}


def league_pages(request, league, *args, **kwargs) -> list[str]:
    """``scopes`` of a league's pages (views whose first argument is the league's slug)."""
    return leagues.league_scopes(league)


def _league(slug: str) -> League:
    found = League.objects.filter(slug=slug).first()
    if found is None:
        raise Http404(_("No existe esa liga."))
    return found


@require_safe
@public_page(scopes=[leagues.LEAGUES, CLUB], params=("season",))
def league_list(request):
    """The leagues of one season (``?season=``; by default the current year when it has
    leagues, else the newest season that has), with links to every season, newest first.
    Each league with its published tournaments, how many are finished and how many are left.
    Two queries."""
    seasons = list(League.objects.order_by("-season").values_list("season", flat=True).distinct())
    this_year = timezone.localdate().year
    default = this_year if this_year in seasons or not seasons else seasons[0]
    try:
        season = int(request.GET.get("season") or default)
    except ValueError:
        season = default
    if season not in seasons:
        season = default
    settle(request, "season", season)
    items = list(
        League.objects.filter(season=season)
        .annotate(
            n_tournaments=Count("tournaments", filter=Tournament.public_q("tournaments__")),
            n_finished=Count(
                "tournaments", filter=Q(tournaments__status=Tournament.Status.FINISHED)
            ),
        )
        .order_by("name", "pk")
    )
    for item in items:
        item.left = rules.tournaments_left(item.planned_tournaments, item.n_finished)
        # "1 de 4 torneos terminados · quedan 3": of the season's planned tournaments when the
        # league says how many (some may not be announced yet), so the figures add up
        item.n_of = item.planned_tournaments or item.n_tournaments
    return render(
        request,
        "tournaments/league_list.html",
        {"season": season, "seasons": seasons, "leagues": items},
    )


def _table_context(league: League, page: str | int) -> dict:
    table = leagues.league_table(
        league,
        page,
        per_page=STANDINGS_PAGE_SIZE,
        orphans=STANDINGS_ORPHANS,
        max_cells=LEAGUE_PAGE_CELLS,
    )
    return {
        "league": league,
        "table": table,
        "tiebreak_labels": TIEBREAK_LABELS,
        "scale_shown": ", ".join(str(v) for v in table.scale),
    }


@require_safe
@public_page(scopes=league_pages, params=("page",))
def league_detail(request, league):
    """A league's table: a line per player (position, name, total), a column per published
    tournament (its points; discarded results struck through, a running tournament's in
    italics as provisional), the tiebreak that placed each line, and how many tournaments are
    left. A table of more than ``STANDINGS_PAGE_SIZE`` + ``STANDINGS_ORPHANS`` players (fewer
    in a league of more than ten tournaments: ``LEAGUE_PAGE_CELLS``) is paged like the
    tournament standings (``?page=``, the first page by default; a number out
    of range shows the last page, other text the first, each redirected to its address by the
    page cache); the downloads hold every line. Queries: ``leagues.league_table``'s and one
    for the league."""
    found = _league(league)
    context = _table_context(found, request.GET.get("page") or 1)
    settle_page(request, context["table"].page)
    return render(request, "tournaments/league_detail.html", context)


@require_safe
@public_page(scopes=league_pages, params=downloads.CSV_PARAMS, heavy=True)
def league_csv(request, league):
    """The league table as CSV (``leagues.league_csv``), with its byte-order mark. Its figures
    are whole numbers: ``?precision=full`` gives the same figures (saved as "-exacto"). A
    heavy output (every player of every tournament of the league): made once per change, in
    one of the page cache's slots."""
    found = _league(league)
    exact = downloads.full_precision(request)
    return downloads.csv_response(
        leagues.league_csv(leagues.league_table(found)), f"{found.slug}.csv", exact=exact
    )


@require_safe
@public_page(scopes=league_pages, heavy=True)
def league_xlsx(request, league):
    """The league table as an .xlsx workbook (``leagues.league_xlsx``)."""
    found = _league(league)
    return downloads.xlsx_response(
        leagues.league_xlsx(leagues.league_table(found)), f"{found.slug}.xlsx"
    )
