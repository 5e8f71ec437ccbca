"""Public pages: no login needed (DESIGN.md: players read pairings and standings from their phones).

Every page here runs a fixed number of SQL queries whatever the size of the data. The pages of
public page goes through the shared page cache (``clubsite.pagecache.public_page``):
anonymous readers get a page computed once per change of the data, with an ETag and
"revalidate every time" caching, so a phone that reloads or refreshes live
(``static/js/live.js``) gets a 304 until something changes.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from django.core.paginator import Paginator
from django.db.models import Case, Count, IntegerField, Value, When
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_safe

from clubsite.pagecache import (
    CLUB,
    RANKING,
    public_page,
    settle,
    settle_page,
    tournament_pages,
)
from rankings import health, tasks
from rankings.queries import top_of_year
from rankings.tasks import watches_replay
from tournaments import exports, systems
from tournaments.models import Bye, Round, Table, Tournament, pick_current_round
from tournaments.permissions import can_manage
from tournaments.services.signups import signup_closed_reason
from tournaments.views import downloads, sharing
from tournaments.views.visibility import round_back_url, tournament_or_404

HOME_RANKING_SIZE = 10
HOME_FINISHED = 6
#: Tournaments a page of the yearly list (``tournament_list``).
TOURNAMENTS_PAGE_SIZE = 50
#: At most this many running or upcoming tournaments head the list's default year.
LIST_CURRENT_MAX = 20
#: Lines a page of the public standings; a last page of ``STANDINGS_ORPHANS`` lines or fewer
#: joins the one before, so a field of up to 110 renders whole.
STANDINGS_PAGE_SIZE = 100
STANDINGS_ORPHANS = 10


def standings_context(tournament: Tournament, page: str | int | None = None) -> dict:
    """Context of the standings partial, shared by public and manage pages: the lines, each
    with ``cells`` (its figures, formatted, in the order of ``columns``: tuples ``(value,
    css classes, key, column)``) and the ``tiebreaks`` whose labels say what placed it, from
    the tournament's scoring system (``systems.of``).

    A column's ``key`` says what a phone always shows (``heads``: ``(column, key)`` pairs for
    the table's head): "points" for the column that ranks first (the system's ``strong``
    one), "tiebreak" for the figure of the first tiebreak, "" for the rest, which are hidden
    on a narrow screen (css "minor") and shown in the line's detail under the name instead.

    Without ``page`` (the tournament page, the manage pages) ``standings`` holds every line.
    With it (the public standings' ``?page=``, as typed) a field of more than
    ``STANDINGS_PAGE_SIZE`` + ``STANDINGS_ORPHANS`` lines is paged: ``standings`` holds that
    page's lines and ``standings_page`` is the Django ``Page`` (None when everything fits on
    one); text that is not a number shows the first page, a number out of range the last.
    Paging only slices what is shown: positions, columns and ties are those of the whole field.

    The positions shown are the final places (``Tournament.final_places``, SCORING.md §9):
    ``started`` false before the first result (the entries by name, no position, no tie, no
    note about a sorteo), ``legend`` the column heads' shorthand in words (a line under the
    table), ``any_unplaced`` when an entry that played no game is listed last,
    unnumbered.
    """
    system = systems.of(tournament)
    lines = tournament.final_places()
    columns = system.presentation.columns(lines)
    first_tiebreak = system.tiebreaks[0].key if system.tiebreaks else None
    keys = [
        "points" if column.strong else "tiebreak" if column.key == first_tiebreak else ""
        for column in columns
    ]
    css = [
        ("num strong" if column.strong else "num small" if column.small else "num")
        + ("" if key else " minor")
        for column, key in zip(columns, keys, strict=True)
    ]
    shown, standings_page = lines, None
    if page is not None:
        paged = Paginator(lines, STANDINGS_PAGE_SIZE, orphans=STANDINGS_ORPHANS).get_page(page)
        if paged.has_other_pages():
            shown, standings_page = paged.object_list, paged
    for line in shown:
        line.cells = [
            (column.value(line), c, key, column)
            for column, c, key in zip(columns, css, keys, strict=True)
        ]
    needs_correction = []
    if lines.needs_correction:  # rare: one more query, only then
        for pk, round_number, number in (
            Table.objects.filter(pk__in=lines.needs_correction)
            .order_by("round__number", "number")
            .values_list("pk", "round__number", "number")
        ):
            needs_correction.append((round_number, number, lines.needs_correction[pk]))
    return {
        "standings": shown,
        "standings_page": standings_page,
        "needs_correction": needs_correction,
        "columns": columns,
        "heads": list(zip(columns, keys, strict=True)),
        "legend": system.presentation.legend(columns),
        "tiebreaks": system.tiebreaks,
        "order_hint": system.presentation.order_hint,
        "entrant_label": system.presentation.entrant_label(),
        "started": lines.started,
        "any_shared": any(line.place_shared for line in shown),
        "any_unplaced": any(line.place is None for line in shown),
        # who heads the whole field (the link cards: views/sharing.py)
        "standings_leader": sharing.leader(system, lines, columns),
    }


def _is_live(t: Tournament) -> bool:
    """Whether the public pages refresh by themselves: while the tournament is running, also
    between rounds (a closed round's tables no longer change, but the next round's pairings
    are about to appear on "find my table" and the standings). A finished tournament stops."""
    return t.status == Tournament.Status.RUNNING


def _live_context(t: Tournament) -> dict:
    return {"live": _is_live(t), "rendered_at": timezone.localtime()}


# --- home --------------------------------------------------------------------------------------


@require_safe
@watches_replay
@public_page(scopes=[CLUB, RANKING])
def home(request):
    """Home: running tournaments (with their current round's tables and "find my table"),
    upcoming and recently finished ones, the top of this year's ranking and a player search.
    Seven queries (one is the ranking's health) whatever the number of tournaments, rounds
    or players."""

    pending = tasks.pending()  # before the ranking's figures: never old figures without it
    visible = Tournament.objects.public()
    running = list(visible.filter(status=Tournament.Status.RUNNING).order_by("-date", "name"))
    upcoming = list(visible.filter(status__in=Tournament.UPCOMING).order_by("date", "name"))
    finished = list(
        visible.filter(status=Tournament.Status.FINISHED).order_by("-date", "name")[:HOME_FINISHED]
    )
    rounds_of: dict[int, list[Round]] = {}
    for rnd in (
        Round.objects.filter(tournament__status=Tournament.Status.RUNNING)
        .annotate(**Round.completion_counts())
        .order_by("tournament_id", "number")
    ):
        rounds_of.setdefault(rnd.tournament_id, []).append(rnd)
    for t in running:
        rounds = rounds_of.get(t.pk, [])
        t.current = pick_current_round(
            rounds, {r.pk for r in rounds if r.n_tables and r.n_tables == r.n_results}
        )
    year = timezone.localdate().year
    return render(
        request,
        "tournaments/home.html",
        {
            "running": running,
            "upcoming": upcoming,
            "finished": finished,
            "ranking_year": year,
            # While the ranking needs attention, a notice instead of its figures.
            "ledger_notice": (notice := health.attention()),
            "top": [] if notice else top_of_year(year, HOME_RANKING_SIZE),
            "ledger_pending": pending,
        },
    )


@require_safe
@public_page(scopes=[CLUB], params=("system", "year", "page"))
def tournament_list(request):
    """The archive: the published tournaments of one year (``?year=``), newest first, of one
    scoring system (``?system=``, a registered key; anything else: every system),
    ``TOURNAMENTS_PAGE_SIZE`` a page (``?page=``: text that is not a number shows the first
    page, a number out of range the last), with links to every year that has tournaments,
    newest first (keeping the system), and to each system the club has played (keeping the
    year). The default year, also for a ``year`` that is not a number or has no
    tournament, is the current one when it has tournaments, else the newest that has. The first
    page of the default year starts with the tournaments running or open for registration
    that belong to another year (next year's, one begun last year; at most
    ``LIST_CURRENT_MAX``): those of the year shown already head its list, newest first.
    Drafts are never listed. Six queries at most (years, systems, count, page, its entries,
    running and upcoming) whatever the number of tournaments."""
    visible = Tournament.objects.public()
    played = set(visible.order_by().values_list("system", flat=True).distinct())
    system_links = [(key, label) for key, label in systems.choices() if key in played]
    system = request.GET.get("system", "")
    if system not in played or system not in systems.keys():
        system = ""
    kind = systems.get(system).presentation.label_plural if system else ""
    if system:
        visible = visible.filter(system=system)
    years = [d.year for d in visible.dates("date", "year", order="DESC")]
    this_year = timezone.localdate().year
    default = this_year if this_year in years or not years else years[0]
    try:
        year = int(request.GET.get("year") or default)
    except ValueError:
        year = default
    if year not in years:
        year = default
    of_year = visible.filter(date__year=year).order_by("-date", "name", "pk")
    page = Paginator(of_year, TOURNAMENTS_PAGE_SIZE).get_page(request.GET.get("page"))
    settle(request, "system", system, default="")
    settle(request, "year", year)
    settle_page(request, page)
    # The entries of the page's tournaments only (counting them in the paged query would put
    # a join and a GROUP BY into the paginator's count too).
    page.object_list = list(page.object_list)
    entries = dict(
        Tournament.objects.filter(pk__in=[t.pk for t in page.object_list])
        .annotate(n=Count("entries"))
        .values_list("pk", "n")
    )
    for t in page.object_list:
        t.n_entries = entries.get(t.pk, 0)
    running, upcoming = [], []
    if year == default and page.number == 1:
        running_first = Case(
            When(status=Tournament.Status.RUNNING, then=Value(0)),
            default=Value(1),
            output_field=IntegerField(),
        )
        for t in (
            visible.filter(status__in=[Tournament.Status.RUNNING, *Tournament.UPCOMING])
            .exclude(date__year=year)
            .order_by(running_first, "date", "name", "pk")[:LIST_CURRENT_MAX]
        ):
            (running if t.status == Tournament.Status.RUNNING else upcoming).append(t)
    return render(
        request,
        "tournaments/tournament_list.html",
        {
            "year": year,
            "years": years,
            "page": page,
            "tournaments": page.object_list,
            "running": running,
            "upcoming": upcoming,
            "chosen_system": system,
            "system_links": system_links if len(system_links) > 1 else [],
            "kind": kind,
        },
    )


# --- one tournament ----------------------------------------------------------------------------


@require_safe
@public_page(scopes=tournament_pages, params=("page",))
def tournament_detail(request, slug):
    """Settings, entries, each round's tables with results, and the standings.

    A field larger than ``STANDINGS_PAGE_SIZE`` + ``STANDINGS_ORPHANS`` entries keeps the page
    bounded: the standings in pages (``?page=``, as on the standings page), each round as a
    link with its count of results instead of its table cards, and the entries' count instead
    of their list (the standings name everyone)."""
    t = tournament_or_404(request, slug)
    n_entries = t.entries.count()
    large = n_entries > STANDINGS_PAGE_SIZE + STANDINGS_ORPHANS
    byes_by_round: dict[int, list] = {}
    if large:
        rounds = list(t.rounds.annotate(**Round.completion_counts()).order_by("number"))
        tables_by_round: dict[int, list] = {}
        complete = {r.pk for r in rounds if r.n_tables and r.n_tables == r.n_results}
    else:
        rounds = list(t.rounds.order_by("number"))
        tables_by_round = {}
        for table in systems.with_cards(t, Table.with_results().filter(round__tournament=t)):
            tables_by_round.setdefault(table.round_id, []).append(table)
        for bye in Bye.objects.filter(round__tournament=t).select_related(
            "entry__player1", "entry__player2"
        ):
            byes_by_round.setdefault(bye.round_id, []).append(bye.entry)
        complete = {
            r.pk
            for r in rounds
            if tables_by_round.get(r.pk)
            and all(tb.any_result is not None for tb in tables_by_round[r.pk])
        }
    current = pick_current_round(rounds, complete)
    live = _is_live(t)
    round_blocks = [
        {
            "round": r,
            "tables": tables_by_round.get(r.pk, []),
            "byes": byes_by_round.get(r.pk, []),
            "live": live and current is not None and r.pk == current.pk and not r.closed,
        }
        for r in rounds
    ]
    system = systems.of(t)
    context = {
        "t": t,
        "large": large,
        "n_entries": n_entries,
        "entries": [] if large else list(t.entries.select_related("player1", "player2")),
        "rules": system.presentation.rules(t),
        "show_mode": len(system.modes) > 1,
        "round_blocks": round_blocks,
        "current_round": current,
        "can_manage": can_manage(request.user, t),
        "takes_signups": signup_closed_reason(t) is None,
        **_live_context(t),
        **standings_context(t, page=(request.GET.get("page") or 1) if large else None),
    }
    settle_page(request, context["standings_page"])
    context["og"] = sharing.tournament_card(
        t, head=context["standings_leader"], current_round=current
    )
    return render(request, "tournaments/tournament_detail.html", context)


@require_safe
@public_page(scopes=tournament_pages, params=("page",))
def standings(request, slug):
    """The standings, and the current round's tables (both refresh live while the tournament
    runs). The HTMX refresh gets the standings partial alone.

    A field larger than ``STANDINGS_PAGE_SIZE`` (+ ``STANDINGS_ORPHANS``) is paged
    (``?page=``, the first page by default; ``standings_context``) and its round is a link to
    the round's page instead of its tables, so the page stays bounded. The tournament page's
    live refresh asks for the partial without a page and gets every line, as that page shows."""
    t = tournament_or_404(request, slug)
    page = request.GET.get("page", None if request.htmx else 1)
    context = {"t": t, **_live_context(t), **standings_context(t, page=page)}
    settle_page(request, context["standings_page"])
    if request.htmx:
        return render(request, "tournaments/standings.html#standings_table", context)
    current = t.current_round()
    tables_shown = current is not None and context["standings_page"] is None
    context.update(
        current_round=current,
        current_tables=systems.with_cards(t, current.tables_with_results()) if tables_shown else [],
        current_byes=current.bye_entries() if tables_shown else [],
        og=sharing.standings_card(t, head=context["standings_leader"], current_round=current),
    )
    return render(request, "tournaments/standings.html", context)


@require_safe
@public_page(scopes=tournament_pages, params=downloads.CSV_PARAMS)
def standings_csv(request, slug):
    """The standings as CSV (``exports.standings_csv``, with its byte-order mark): for people,
    figures as the page shows them; ``?precision=full``, the exact form."""
    t = tournament_or_404(request, slug)

    exact = downloads.full_precision(request)
    return downloads.csv_response(
        exports.standings_csv(t, full_precision=exact), f"{t.slug}-clasificacion.csv", exact=exact
    )


@require_safe
@public_page(scopes=tournament_pages, heavy=True)
def standings_xlsx(request, slug):
    """The standings for people as an .xlsx workbook (``exports.standings_xlsx``)."""
    t = tournament_or_404(request, slug)

    return downloads.xlsx_response(exports.standings_xlsx(t), f"{t.slug}-clasificacion.xlsx")


@require_safe
@public_page(scopes=tournament_pages)
def round_detail(request, slug, number):
    """A round's tables with results and byes; the HTMX refresh gets the tables partial alone."""
    t = tournament_or_404(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    context = {
        "t": t,
        "round": rnd,
        "tables": systems.with_cards(t, rnd.tables_with_results()),
        "byes": rnd.bye_entries(),
        **_live_context(t),
    }
    if request.htmx:
        return render(request, "tournaments/round_detail.html#round_results", context)
    context["can_manage"] = can_manage(request.user, t)
    context["og"] = sharing.round_card(t, rnd, context["tables"], context["byes"])
    return render(request, "tournaments/round_detail.html", context)


@require_safe
@public_page(scopes=tournament_pages)
def round_print(request, slug, number):
    """Printable score sheets of a round: one per table, for A4 and Letter (print stylesheet)."""
    t = tournament_or_404(request, slug)
    rnd = get_object_or_404(Round, tournament=t, number=number)
    system = systems.of(t)
    return render(
        request,
        "tournaments/round_print.html",
        {
            "t": t,
            "round": rnd,
            "tables": systems.with_cards(t, rnd.tables_with_results()),
            "byes": rnd.bye_entries(),
            "lines": range(system.presentation.sheet_line_count(t)),
            "time_box": system.presentation.sheet_time_box(t),
            "system": system,
            "sheet_note": system.presentation.sheet_note(t),
            "back_url": round_back_url(request, t, rnd.number),
        },
    )


# --- find my table -----------------------------------------------------------------------------


def fold(text: str) -> str:
    """Search key of a name: case-folded, accents removed, spaces collapsed ("José  PÉREZ" →
    "jose perez"), so a player finds themself however they type."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())


@dataclass
class TableFinding:
    """Where one player sits in a round: table, side and seat, who plays with and against them,
    the result told from their side (``Presentation.finding_score``; "" while pending), or
    ``rests`` (a bye). ``position``: the seat's number around the table where it tells where to
    sit (a table game's seats 1–4; individual dominó's 1 & 3 against 2 & 4), else None."""

    name: str
    table_number: int | None = None
    side: str = ""
    position: int | None = None
    partners: list[str] = field(default_factory=list)
    opponents: list[str] = field(default_factory=list)
    rests: bool = False
    score: str = ""


def seat_number(seat, seats, table_game: bool) -> int | None:
    """The number of ``seat`` around its table, as the pairings page numbers them: a table
    game's seat (1–4); with two players a side (individual dominó), side A's seats are 1 and 3,
    side B's 2 and 4 (partners face each other); None with one entry a side (nothing to
    choose)."""
    if table_game:
        return seat.position
    if sum(1 for other in seats if other.side == seat.side) < 2:
        return None
    return 2 * seat.position - (1 if seat.side == "A" else 0)


def find_players(t: Tournament, tables, byes, query: str) -> list[TableFinding]:
    """The players of the round whose name (or nickname) holds every word of ``query``, each
    with their table, side ("A"/"B"), seat, partners and opponents; or resting. Table games
    (3–4 players) have no sides or partners: everyone else at the table is an opponent.
    Pure: reads the prefetched seats only."""
    words = fold(query).split()
    if not words:
        return []

    def hit(player) -> bool:
        key = fold(f"{player.full_name} {player.nickname}")
        return all(w in key for w in words)

    system = systems.of(t)
    table_game = not system.has_sides
    found: list[TableFinding] = []
    for table in tables:
        seats = list(table.seats.all())
        for seat in seats:
            for player in (seat.entry.player1, seat.entry.player2):
                if player is None or not hit(player):
                    continue
                partners, opponents = [], []
                for other in seats:
                    for p in (other.entry.player1, other.entry.player2):
                        if p is None or p.pk == player.pk:
                            continue
                        if not table_game and other.side == seat.side:
                            partners.append(p.full_name)
                        else:
                            opponents.append(p.full_name)
                found.append(
                    TableFinding(
                        name=player.full_name,
                        table_number=table.number,
                        side="" if table_game else seat.side,
                        score=system.presentation.finding_score(table, seat),
                        position=seat_number(seat, seats, table_game),
                        partners=partners,
                        opponents=opponents,
                    )
                )
    for entry in byes:
        for player in (entry.player1, entry.player2):
            if player is not None and hit(player):
                found.append(TableFinding(name=player.full_name, rests=True))
    found.sort(key=lambda f: (fold(f.name), f.table_number or 0))
    return found


@require_safe
@public_page(scopes=tournament_pages, computed=("q",))
def find_table(request, slug):
    """ "Find my table": with ``?q=`` the current round's table, side, seat, partners and
    opponents of every player whose name matches (or "descansa"); without it, every table of
    the current round. As you type, HTMX swaps the results partial; while the tournament runs
    the results refresh by themselves (static/js/live.js). Eight queries at most."""
    t = tournament_or_404(request, slug)
    q = request.GET.get("q", "").strip()[:60]
    rnd = t.current_round()
    tables = systems.with_cards(t, rnd.tables_with_results()) if rnd else []
    byes = rnd.bye_entries() if rnd else []
    context = {
        "t": t,
        "round": rnd,
        "q": q,
        "tables": tables,
        "byes": byes,
        "findings": find_players(t, tables, byes, q) if q else None,
        **_live_context(t),
    }
    if request.htmx:
        return render(request, "tournaments/find_table.html#find_results", context)
    context["og"] = sharing.find_table_card(t, rnd)
    return render(request, "tournaments/find_table.html", context)
