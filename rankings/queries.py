"""Read side of the ranking: a year's table, a player's history, current ratings.

Each function runs a fixed number of queries whatever the number of players or games and
returns plain dataclasses for the templates and the CSV exports.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.core.paginator import Paginator
from django.db import connections, router
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Collate

from clubsite.numbers import DECIMALS, format_number, rounded
from rankings.models import LedgerRow, YearRating
from tournaments import names
from tournaments.models import Player, Tournament


@dataclass(frozen=True)
class RankingLine:
    """One player in a year's ranking: rating at the end of the year (or now), games that year,
    change over the year, date of the last game."""

    position: int
    player_id: int
    name: str
    rating: float
    games: int
    change: float
    last_played: dt.datetime


#: The year figures a ranking line is made of, in ``_ranked``'s order.
_LINE_FIELDS = (
    "player",
    "player__full_name",
    "games",
    "rating",
    "start_rating",
    "last_played",
    "player__name_key",
)


def shown_rating(rating: float):
    """``rating`` as the pages show it (``clubsite.numbers.rounded`` to ``DECIMALS["rating"]``
    places, a ``Decimal``: 1514.9). Positions in the ranking are by this figure: two players
    whose ratings show the same share a position (SCORING.md §2 ranks by rating; a reader
    compares what is shown)."""
    return rounded(rating, DECIMALS["rating"])


def _above(shown) -> float:
    """The lowest float rating whose shown figure is higher than ``shown`` (a ``Decimal`` of
    ``DECIMALS["rating"]`` places, ≥ 0): ``float(shown + half a unit)``. Exact: a float rounds
    (from its shortest repr, half away from zero) above ``shown`` exactly when it is at least
    the float nearest to that midpoint, since that float's repr is the midpoint itself."""
    return float(shown + Decimal(1) / (2 * 10 ** DECIMALS["rating"]))


def _ranked(data: list[tuple]) -> list[RankingLine]:
    """``_LINE_FIELDS`` tuples as ranking lines, in ranking order (``_ORDER``): best rating
    first, then by name (its comparison key, ``tournaments.names.key``: case, accents and
    spacing ignored; code-point order) and id; ratings that show the same (``shown_rating``)
    share the position."""
    data.sort(key=lambda d: (-d[3], d[6], d[0]))
    lines: list[RankingLine] = []
    previous = None
    for index, (pid, name, games, rating, start, last_played, _key) in enumerate(data, start=1):
        shown = shown_rating(rating)
        position = lines[-1].position if lines and shown == previous else index
        previous = shown
        lines.append(RankingLine(position, pid, name, rating, games, rating - start, last_played))
    return lines


def _name_order():
    """The name key in code-point order on every database (``_ranked`` sorts Python strings
    the same way): collation "C" on PostgreSQL, BINARY on SQLite."""

    vendor = connections[router.db_for_read(YearRating)].vendor
    return Collate("player__name_key", "C" if vendor == "postgresql" else "BINARY")


def ranking_page(year: int, page: str | int | None, size: int):
    """One page of ``year_ranking(year)`` (Django ``Page`` of ``RankingLine``, ``size`` lines;
    a page that is not a number shows the first, one out of range the last), ordered and
    sliced by the database, with the same positions (ratings that show the same share one):
    a count, one query of ``size`` rows, and one count for the first line's position when the
    page is not the first, whatever the number of players."""

    rows = (
        YearRating.objects.filter(year=year)
        .order_by("-rating", _name_order(), "player_id")
        .values_list(*_LINE_FIELDS)
    )
    shown = Paginator(rows, size).get_page(page)
    lines: list[RankingLine] = []
    previous = None
    for index, (pid, name, games, rating, start, last_played, _key) in enumerate(
        shown.object_list, start=shown.start_index()
    ):
        figure = shown_rating(rating)
        if lines and figure == previous:
            position = lines[-1].position
        elif not lines and index > 1:  # the first line of a later page: it may share a position
            position = year_position(pid, year, rating=rating)
        else:
            position = index
        previous = figure
        lines.append(RankingLine(position, pid, name, rating, games, rating - start, last_played))
    shown.object_list = lines
    return shown


def year_ranking(year: int) -> list[RankingLine]:
    """The ranking of ``year``: players with at least one rated game that year, best rating first
    (ties share the position; then by name). One query on the year figures the replay keeps
    (``YearRating``: each player's last rating of the year, games, the rating the year began
    from, last game), whatever the season's size (docs/performance.md)."""
    data = list(YearRating.objects.filter(year=year).order_by().values_list(*_LINE_FIELDS))
    return _ranked(data)


def top_of_year(year: int, size: int) -> list[RankingLine]:
    """The first ``size`` lines of ``year_ranking(year)`` (the home page's top ten), with the
    same positions and order, in two indexed queries on the (year, rating) index: the ``size``
    best ratings, then every player of the year rated at least the last of them (so a tie at
    the last place is ordered as in the whole ranking)."""
    best = list(
        YearRating.objects.filter(year=year)
        .order_by("-rating")
        .values_list("rating", flat=True)[:size]
    )
    if not best:
        return []
    data = list(
        YearRating.objects.filter(year=year, rating__gte=best[-1])
        .order_by()
        .values_list(*_LINE_FIELDS)
    )
    return _ranked(data)[:size]


def year_position(player_id: int, year: int, *, rating: float | None = None) -> int | None:
    """The player's position in ``year_ranking(year)`` (ratings that show the same share it),
    or None without a rated game that year. Two indexed queries on the year figures (one when
    the player's ``rating`` of the year is given, as read with the other figures of the page):
    1 + the players of the year whose rating shows higher (``_above``)."""
    if rating is None:
        rating = (
            YearRating.objects.filter(year=year, player_id=player_id)
            .values_list("rating", flat=True)
            .first()
        )
    if rating is None:
        return None
    higher = _above(shown_rating(rating))
    return YearRating.objects.filter(year=year, rating__gte=higher).count() + 1


def ranking_years() -> list[int]:
    """Years that have rated games, newest first. One query on the year figures (a few rows a
    player), not on the ledger."""
    return list(YearRating.objects.order_by("-year").values_list("year", flat=True).distinct())


@dataclass(frozen=True)
class CurrentRating:
    player_id: int
    rating: float
    ng_this_year: int
    year: int | None


def current_ratings(player_ids, *, year: int) -> dict[int, CurrentRating]:
    """Each player's latest rating (the initial rating if they never played) and the rated games
    they completed in ``year`` (NG for the next game): from their newest year figures. One
    query."""
    newest = YearRating.objects.filter(player=OuterRef("pk")).order_by("-year")
    initial = float(settings.ELO_INITIAL_RATING)
    out = {}
    for pk, rating, last_year, games in (
        Player.objects.filter(pk__in=list(player_ids))
        .annotate(
            r=Subquery(newest.values("rating")[:1]),
            y=Subquery(newest.values("year")[:1]),
            n=Subquery(newest.values("games")[:1]),
        )
        .values_list("pk", "r", "y", "n")
    ):
        ng = games if (last_year == year and games is not None) else 0
        out[pk] = CurrentRating(pk, rating if rating is not None else initial, ng, last_year)
    return out


@dataclass
class HistoryLine:
    """One game in a player's history, with partner and opponents by name."""

    row: LedgerRow
    tournament: str
    tournament_slug: str
    round_number: int
    table_number: int
    partners: list[str] = field(default_factory=list)
    opponents: list[str] = field(default_factory=list)
    #: The opponents as (player id, name): the links to head to head.
    rivals: list[tuple[int, str]] = field(default_factory=list)

    @property
    def change(self) -> float:
        return self.row.rating_after - self.row.rating_before


def player_history(player: Player, year: int | None = None) -> list[HistoryLine]:
    """Every ledger row of ``player`` in game order (only those of the calendar year ``year``
    when given: one season of the player page), with the names of partner and opponents.
    Two queries whatever the number of games. Rows of a draft tournament are never shown
    (there are none once the ledger is current: a draft's games are unrated)."""
    rows = list(season_rows(player, year).order_by("order_key"))
    return history_lines(player, rows)


def season_rows(player: Player, year: int | None = None):
    """The queryset of ``player``'s ledger rows (of ``year`` when given), with their tournament
    and round, drafts left out, unordered: the player page pages it newest first."""

    mine = LedgerRow.objects.filter(player=player)
    if year is not None:
        mine = mine.filter(year=year)  # the (year, player, order_key) index
    return mine.filter(Tournament.public_q("tournament__")).select_related(
        "tournament", "table__round"
    )


def history_lines(player: Player, rows: list[LedgerRow]) -> list[HistoryLine]:
    """``rows`` (the player's ledger rows, in the order given) as history lines with the names
    of partner and opponents: one query."""
    table_ids = [r.table_id for r in rows]
    others: dict[int, list[tuple[str, str, int]]] = {}
    for table_id, side, name, player_id in (
        LedgerRow.objects.filter(table_id__in=table_ids)
        .exclude(player=player)
        .order_by("table_id", "side", "player__full_name")
        .values_list("table_id", "side", "player__full_name", "player_id")
    ):
        others.setdefault(table_id, []).append((side, name, player_id))
    lines = []
    for r in rows:
        people = others.get(r.table_id, [])
        lines.append(
            HistoryLine(
                row=r,
                tournament=r.tournament.name,
                tournament_slug=r.tournament.slug,
                round_number=r.table.round.number,
                table_number=r.table.number,
                partners=[n for s, n, _ in people if s == r.side],
                opponents=[n for s, n, _ in people if s != r.side],
                rivals=[(pid, n) for s, n, pid in people if s != r.side],
            )
        )
    return lines


@dataclass(frozen=True)
class Season:
    """One calendar year of a player's rated games: how many (``games``), the rating the year
    ended on (so far, for the current year: ``rating``) and its change over the year
    (``change``: ``rating`` minus the rating before the year's first game)."""

    year: int
    games: int
    rating: float
    change: float


def player_seasons(player: Player) -> list[Season]:
    """The years ``player`` has rated games in, newest first, each with its games, final rating
    and change: the year figures the replay keeps (``YearRating``), one query whatever the
    number of games."""
    return [
        Season(year=year, games=games, rating=rating, change=rating - start)
        for year, games, rating, start in YearRating.objects.filter(player=player)
        .order_by("-year")
        .values_list("year", "games", "rating", "start_rating")
    ]


def season_points(player: Player, year: int) -> list[tuple[float, float, int]]:
    """``(rating_before, rating_after, year)`` of each of ``player``'s games of ``year``, in
    game order: what ``rating_chart`` draws, without the games' other columns. One query."""
    return list(
        season_rows(player, year)
        .select_related(None)
        .order_by("order_key")
        .values_list("rating_before", "rating_after", "year")
    )


@dataclass(frozen=True)
class Chart:
    """An SVG line chart of a rating history, laid out on the server (no JavaScript)."""

    width: int
    height: int
    points: str
    dots: list[tuple[str, str, str]]  # x and y already written ("12.3"), the rating's label
    year_marks: list[tuple[float, int]]
    y_ticks: list[tuple[float, int]]
    #: The x axis: (x, game number) at a round step, the start rating being game 0.
    x_ticks: list[tuple[float, int]] = field(default_factory=list)
    #: The labels' size in the drawing's units (``rating_chart``'s ``label_size``).
    label_size: int = 11
    #: Where the plot begins (the y labels end 4 units before it).
    pad_left: int = 44


#: Steps of the x axis's game numbers; the first that gives at most ``X_TICKS_MAX`` labels.
X_TICK_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)
X_TICKS_MAX = 8


#: The phone's drawing: as wide as a phone's screen in CSS pixels, so that labels of
#: ``PHONE_LABEL_SIZE`` units show at about that many pixels (12.8 px on a 360 px screen with
#: its margins), and without the per-game dots (a finger cannot point at them).
PHONE_CHART = {"width": 360, "height": 240, "label_size": 14, "dots": False}


def rating_chart(
    lines, *, width: int = 640, height: int = 220, label_size: int = 11, dots: bool = True
) -> Chart | None:
    """One point per game (rating after it), the start rating first; a vertical mark where a
    new calendar year begins. ``lines``: ``HistoryLine``s, or ``season_points`` tuples
    ``(rating_before, rating_after, year)``, in game order. None when there is no game. Each
    dot's label is the rating as the history table's cells show it
    (``clubsite.numbers.format_number``, 1 decimal, the active language): 1531.25 → "1531,3"
    on both. The x axis counts the games (``x_ticks``: every 1, 2, 5, 10, … games, at most
    ``X_TICKS_MAX`` labels; the start rating is game 0, unlabelled). The y axis runs from a
    tick below the lowest rating to a tick above the highest, so the peak is never above the
    top label; at most 8 y labels. ``width``/``height``: the drawing's units; ``label_size``:
    its labels' size in those units; ``dots``: False draws the line alone (the phone's chart,
    ``PHONE_CHART``)."""
    if not lines:
        return None
    lines = [
        (ln.row.rating_before, ln.row.rating_after, ln.row.year)
        if isinstance(ln, HistoryLine)
        else ln
        for ln in lines
    ]
    values = [lines[0][0]] + [ln[1] for ln in lines]
    low, high = min(values), max(values)
    if high - low < 20:
        mid = (high + low) / 2
        low, high = mid - 10, mid + 10
    span = high - low
    tick = next(t for t in (10, 25, 50, 100, 250, 500, 1000, 10**9) if (span / t) + 2 <= 8)
    low, high = math.floor(low / tick) * tick, math.ceil(high / tick) * tick
    pad_l, pad_r, pad_t, pad_b = 4 + label_size * 3.6, 16, 4 + label_size // 2, 8 + label_size
    inner_w, inner_h = width - pad_l - pad_r, height - pad_t - pad_b
    step = inner_w / max(1, len(values) - 1)

    def xy(i, v):
        return pad_l + i * step, pad_t + (high - v) / (high - low) * inner_h

    coords = [xy(i, v) for i, v in enumerate(values)]
    # The dot labels are read by people: the same text as the history table's rating cells
    # (clubsite.numbers: rounded half away from zero, 1 decimal, the page's language).
    # Coordinates written here, once ("%.1f": always a decimal point), not by a template
    # filter per dot: a season has hundreds of games.
    drawn = [
        (f"{x:.1f}", f"{y:.1f}", format_number(values[i], DECIMALS["rating"]))
        for i, (x, y) in enumerate(coords)
    ]
    marks = []
    for i in range(1, len(lines)):
        if lines[i][2] != lines[i - 1][2]:
            marks.append((coords[i][0] + step / 2, lines[i][2]))
    ticks = [(xy(0, v)[1], int(v)) for v in range(int(low), int(high) + 1, tick)]
    games = len(values) - 1
    x_step = next((s for s in X_TICK_STEPS if games // s <= X_TICKS_MAX), X_TICK_STEPS[-1])
    x_ticks = [(xy(n, low)[0], n) for n in range(x_step, games + 1, x_step)]
    return Chart(
        width,
        height,
        " ".join(f"{x:.1f},{y:.1f}" for x, y in coords),
        drawn if dots else [],
        marks,
        ticks,
        x_ticks,
        label_size=label_size,
        pad_left=round(pad_l),
    )


# --- the calculator's players ----------------------------------------------------------------------

#: The most players the calculator's search offers at once (``players_named``).
PLAYERS_FOUND = 10


def calculator_players():
    """The players the calculator offers: active, and visible to everyone (not only in a
    draft tournament: ``Player.objects.public``). A queryset."""
    return Player.objects.public().filter(active=True)


def players_named(text: str, limit: int = PLAYERS_FOUND) -> list[Player]:
    """The players of ``calculator_players`` whose name contains ``text`` as the site matches
    names (``names.key``: ignoring case, accents, spacing and invisible characters): those whose
    whole name is ``text`` first, then by name key and id; at most ``limit``. A text whose key
    is empty finds nobody (no query). Two queries, each stopping at ``limit`` rows: the whole
    names (the name key's index), then the others in the index's order, so a common fragment
    of a federation's 5,000 names is answered after reading the first matches, not all."""
    wanted = names.key(text)
    if not wanted:
        return []
    players = calculator_players().only("full_name", "name_key")
    found = list(players.filter(name_key=wanted).order_by("pk")[:limit])
    if len(found) < limit:
        found += (
            players.filter(name_key__contains=wanted)
            .exclude(name_key=wanted)
            .order_by("name_key", "pk")[: limit - len(found)]
        )
    return found
