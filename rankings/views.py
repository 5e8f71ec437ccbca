"""Public ranking pages: a year's ranking, a player's history, the "¿Cuánto cambia?" calculator.

While the ranking needs attention (``rankings.health``: a replay failed or skipped a game),
no page shows its figures as current: the ranking, the player page and the calculator show a
notice in their place (``rankings/_ledger_notice.html``), and the downloads (CSV, .xlsx) answer
503 with that notice as plain text (and ``Retry-After``). Players whose every entry is in a
draft tournament have no public page (404; club directors and that draft's directors may look:
``tournaments.views.visibility.player_or_404``), and a draft's games are
never rated (``rankings.ledger``).
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_safe

from clubsite.limits import LIMITS, request_network, take, too_many
from clubsite.pagecache import RANKING, public_page, settle, settle_page
from rankings import elo, health, ledger, queries, stories, tasks
from rankings.exports import LEDGER_HEADER, RANKING_HEADER, ledger_rows, ranking_rows
from rankings.forms import NAME_MAX, CalculatorForm, player_labels
from tournaments import names
from tournaments.exports import csv_text, xlsx_bytes
from tournaments.leagues import player_leagues, player_scopes
from tournaments.views import downloads, sharing
from tournaments.views.visibility import player_or_404

RANKING_PAGE_SIZE = 100
#: Games a page of one season on the player page, newest first (the chart keeps the season).
PLAYER_GAMES_PAGE_SIZE = 25
#: Seconds a client is asked to wait before asking again for a CSV of a ranking that is not
#: current (the 503's ``Retry-After``).
RETRY_AFTER = 300


def _not_current_csv() -> HttpResponse:
    """The answer of a CSV download while the ranking needs attention: 503, plain text."""
    response = HttpResponse(
        gettext(
            "El ranking se está recalculando y necesita atención: sus cifras no están al día. "
            "Vuelve a intentarlo más tarde."
        )
        + "\n",
        status=503,
        content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(RETRY_AFTER)
    return response


#: The calculator's player boxes (``forms.PlayerNameField``).
CALCULATOR_PLAYERS = ("a1", "a2", "b1", "b2")
#: The calculator's fields: its query parameters (``calculator``).
CALCULATOR_FIELDS = (*CALCULATOR_PLAYERS, "tantos_a", "tantos_b")


def _current_year() -> int:
    return timezone.localdate().year


@require_safe
@tasks.watches_replay
@public_page(scopes=[RANKING], params=("year", "page"), computed=("q",))
def ranking(request):
    """The ranking of a year (``?year=``, default the current one), searchable by name (``?q=``),
    ``RANKING_PAGE_SIZE`` players a page (``?page=``; a page out of range shows the last one)."""
    pending = tasks.pending()  # before the figures (see ``player``)
    years = queries.ranking_years()
    try:
        year = int(request.GET.get("year") or _current_year())
    except ValueError:
        year = _current_year()
    if not ledger.FIRST_YEAR <= year <= ledger.LAST_YEAR:
        year = _current_year()
    attention = health.attention()
    q = request.GET.get("q", "").strip()[:100]
    if attention:
        page = Paginator([], RANKING_PAGE_SIZE).get_page(1)
    elif q:  # ignoring case, accents, spacing and invisible characters (tournaments.names)
        wanted = names.key(q)
        lines = [ln for ln in queries.year_ranking(year) if wanted in names.key(ln.name)]
        page = Paginator(lines, RANKING_PAGE_SIZE).get_page(request.GET.get("page"))
    else:  # one page from the database (queries.ranking_page)
        page = queries.ranking_page(year, request.GET.get("page"), RANKING_PAGE_SIZE)
    settle(request, "year", year)
    settle_page(request, page)
    context = {
        "year": year,
        "years": sorted(set(years) | {year}, reverse=True),
        "lines": page.object_list,
        "page": page,
        "q": q,
        "ledger_notice": attention,
        "ledger_pending": pending,
    }
    if request.htmx:
        return render(request, "rankings/ranking.html#ranking_table", context)
    top = not q and page.number == 1 and page.object_list  # the leader is on this page
    context["og"] = sharing.ranking_card(year, page.object_list[0] if top else None)
    return render(request, "rankings/ranking.html", context)


def _csv_response(request, header, rows_of, filename):
    """A CSV download (``tournaments.views.downloads``): ``rows_of(full_precision)`` under
    ``header``, for people or, with ``?precision=full``, exact."""
    exact = downloads.full_precision(request)
    return downloads.csv_response(csv_text(header, rows_of(exact)), filename, exact=exact)


@require_safe
@public_page(scopes=[RANKING], params=downloads.CSV_PARAMS, heavy=True)
def ranking_csv(request, year):
    """The ranking of ``year`` as CSV (``exports.ranking_rows``): for people, rating and change
    to 1 decimal as the page shows them; ``?precision=full``, at full precision. 503 while the
    ranking needs attention. A heavy output (every player of the year: its size is the
    club's): made once per change, in one of the page cache's slots."""

    if health.attention():
        return _not_current_csv()
    return _csv_response(
        request,
        RANKING_HEADER,
        lambda exact: ranking_rows(year, full_precision=exact),
        f"ranking-{year}.csv",
    )


@require_safe
@public_page(scopes=[RANKING], heavy=True)
def ranking_xlsx(request, year):
    """The ranking of ``year`` for people as an .xlsx workbook; 503 while the ranking needs
    attention."""

    if health.attention():
        return _not_current_csv()
    data = xlsx_bytes(
        RANKING_HEADER,
        ranking_rows(year),
        title=gettext("Ranking {year}").format(year=year),
    )
    return downloads.xlsx_response(data, f"ranking-{year}.xlsx")


@require_safe
@public_page(scopes=[RANKING], params=downloads.CSV_PARAMS, heavy=True)
def ledger_csv(request, year):
    """Every rated game of ``year``, one row per player (the ledger, ``exports.ledger_rows``,
    published tournaments only), as CSV: for people, figures rounded as the pages show them;
    ``?precision=full``, at full precision. 503 while the ranking needs attention."""

    if health.attention():
        return _not_current_csv()
    return _csv_response(
        request,
        LEDGER_HEADER,
        lambda exact: ledger_rows(year=year, published_only=True, full_precision=exact),
        f"partidas-{year}.csv",
    )


@require_safe
@public_page(scopes=[RANKING], heavy=True)
def ledger_xlsx(request, year):
    """The ledger of ``year`` for people (as ``ledger_csv``) as an .xlsx workbook."""

    if health.attention():
        return _not_current_csv()
    data = xlsx_bytes(
        LEDGER_HEADER,
        ledger_rows(year=year, published_only=True),
        title=gettext("Partidas {year}").format(year=year),
    )
    return downloads.xlsx_response(data, f"partidas-{year}.xlsx")


def player_pages(request, pk, *args, **kwargs) -> list[str]:
    """``scopes`` of a player's page: ``RANKING`` (the games, the seasons, tournaments'
    names), those of the player's league positions (``tournaments.leagues.player_scopes``: one
    query, also on a hit) and the scope of their stored story (``stories.story_scope``): any
    change of a tournament they entered asks for their story again and the worker renews that
    scope once it is stored (partners, rivals, zapatos, and the podiums of the final places),
    so a hit reads a fixed number of keys however many tournaments the player entered."""
    return [RANKING, *player_scopes(pk), stories.story_scope(pk)]


@require_safe
@tasks.watches_replay
@public_page(scopes=player_pages, params=("year", "page"))
def player(request, pk):
    """A player's summary (rating now, position and games in this year's ranking, career
    games, every season with its games, final rating and change) and one season's chart and
    games (``?year=``; by default, and for a year that is not a number or not one of the
    player's seasons, the newest season), the games newest first, ``PLAYER_GAMES_PAGE_SIZE``
    a page (``?page=``: text that is not a number shows the first page, a number out of range
    the last). A notice instead of the figures while the ranking needs attention. The figures
    take a fixed number of queries whatever the number of games (seasons: 1, the page of
    games: 3, the chart's ratings: 1, position: 1 when the player has games this year); the
    league positions are ``tournaments.leagues.player_leagues``'s (at most
    ``PLAYER_LEAGUES_SHOWN`` leagues); the stories (partners, rivals, zapatos, podiums, peak)
    ``rankings.stories.player_stories``'s, also a fixed number."""
    p = player_or_404(request, pk)
    year = _current_year()
    # Whether a replay waits is read before the figures: a replay that commits in between
    # shows its new figures under the notice, never old figures without it.
    pending = tasks.pending()
    attention = health.attention()
    seasons = [] if attention else queries.player_seasons(p)
    by_year = {s.year: s for s in seasons}
    try:
        season = int(request.GET.get("year") or 0)
    except ValueError:
        season = 0
    if season not in by_year:
        season = seasons[0].year if seasons else None
    if season is None:
        games = Paginator([], PLAYER_GAMES_PAGE_SIZE).get_page(1)
        points = []
    else:  # one page of the season's games from the database, the chart from its ratings
        games = Paginator(
            queries.season_rows(p, season).order_by("-order_key"), PLAYER_GAMES_PAGE_SIZE
        ).get_page(request.GET.get("page"))
        games.object_list = queries.history_lines(p, list(games.object_list))
        points = queries.season_points(p, season)
    settle(request, "year", season)
    settle_page(request, games)
    this_year = by_year.get(year)
    position = queries.year_position(p.pk, year, rating=this_year.rating) if this_year else None
    return render(
        request,
        "rankings/player.html",
        {
            "ledger_notice": attention,
            "player": p,
            "seasons": seasons,
            "season": season,
            "history": games.object_list,
            "games_page": games,
            "chart": queries.rating_chart(points),
            "chart_phone": queries.rating_chart(points, **queries.PHONE_CHART),
            "ledger_pending": pending,
            "rating": seasons[0].rating if seasons else None,
            "position": position,
            "games_this_year": this_year.games if this_year else 0,
            "career_games": sum(s.games for s in seasons),
            "year": year,
            # the player's league positions (tournaments.leagues; not the ledger's figures)
            "leagues": player_leagues(p),
            # best partners, rivals, zapatos, podiums, rating peak (rankings.stories)
            "stories": None if attention else stories.player_stories(p.pk),
            "og": sharing.player_card(
                p,
                rating=seasons[0].rating if seasons else None,
                position=position,
                year=year,
                games_this_year=this_year.games if this_year else 0,
                notice=bool(attention),
            ),
        },
    )


@require_safe
@tasks.watches_replay
@public_page(scopes=stories.meeting_pages)
def head_to_head(request, pk, other):
    """Head to head of player ``pk`` against player ``other`` (``rankings.stories``): the
    games they met in (opposite sides; the same table at a table game), won, drawn and lost
    by ``pk``, the figures for and against by system, the last meetings, the rating
    ``pk`` took from them (the ledger; a notice instead while the ranking needs attention),
    and the games they played as partners. 404 for a player nobody may see, or the same
    player twice. A fixed number of queries for the figures (``stories.head_to_head``),
    whatever the number of games, each reading only the two players' rows."""
    a = player_or_404(request, pk)
    b = player_or_404(request, other)
    if a.pk == b.pk:
        raise Http404(_("Un jugador no juega contra sí mismo."))
    pending = tasks.pending()
    attention = health.attention()
    return render(
        request,
        "rankings/head_to_head.html",
        {
            "a": a,
            "b": b,
            "h2h": stories.head_to_head(a.pk, b.pk),
            "ledger_notice": attention,
            "ledger_pending": pending,
        },
    )


@require_safe
@public_page(scopes=[RANKING], params=downloads.CSV_PARAMS, heavy=True)
def player_csv(request, pk):
    """A player's rated games (the ledger's rows of the player, every season) as CSV: for
    people, figures rounded as the pages show them; ``?precision=full``, at full precision.
    A heavy output (every game of a career): made once per change, in one of the page cache's
    slots."""

    p = player_or_404(request, pk)
    if health.attention():
        return _not_current_csv()
    return _csv_response(
        request,
        LEDGER_HEADER,
        lambda exact: ledger_rows(player=p, published_only=True, full_precision=exact),
        f"ledger-{p.pk}.csv",
    )


@require_safe
@public_page(scopes=[RANKING], computed=CALCULATOR_FIELDS)
def calculator(request):
    """Expected score and rating change of each player for a hypothetical game (elo.py), from
    their current ratings; while the ranking needs attention, a notice instead of figures.

    A form sent by GET (it computes, it stores nothing): the empty form is a cached page like
    the others; with the game's fields (``CALCULATOR_FIELDS``) the answer is computed every
    time and never stored (``public_page(computed=...)``); a field out of range or a game that
    cannot be answers 400 with the reason. Each answer takes a slot of ``LIMITS["calculator"]``
    for the visitor's network (``too_many`` beyond)."""
    form = CalculatorForm(request.GET or None)
    if form.is_bound and take(LIMITS["calculator"], request_network(request)) is None:
        return too_many(request, LIMITS["calculator"])  # each answer is computed: bounded
    outcome = None
    attention = health.attention()
    if form.is_bound and form.is_valid() and not attention:
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
    context = {"form": form, "outcome": outcome, "ledger_notice": attention}
    status = 400 if form.is_bound and not form.is_valid() else 200
    if request.htmx:
        return render(request, "rankings/calculator.html#calculator_result", context, status=status)
    return render(request, "rankings/calculator.html", context, status=status)


@require_safe
@public_page(scopes=[RANKING], computed=(*CALCULATOR_PLAYERS, "q"))
def player_search(request):
    """The calculator's search as one types: the ``<datalist>`` of the players whose name
    contains the text (``queries.players_named``: at most ``PLAYERS_FOUND``, visible to
    everyone, active), as ``forms.player_labels`` writes them. The text is the value of the
    box that asks (``a1``, ``a2``, ``b1`` or ``b2``: htmx sends the box's own name) or ``q``;
    without one, an empty list (a cached page). Each search takes a slot of
    ``LIMITS["player-search"]`` for the visitor's network (``too_many`` beyond), as the
    calculator's answers do. Queries: the limiter's, then two (``queries.players_named``)."""
    text = next((request.GET[f] for f in (*CALCULATOR_PLAYERS, "q") if request.GET.get(f)), "")
    found = []
    if text:
        if take(LIMITS["player-search"], request_network(request)) is None:
            return too_many(request, LIMITS["player-search"])
        found = queries.players_named(text[:NAME_MAX])
    return render(request, "rankings/_player_options.html", {"options": player_labels(found)})
