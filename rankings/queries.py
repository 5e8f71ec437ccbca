"""Read side of the ranking: a year's table, a player's history, current ratings.

Each function runs a fixed number of queries whatever the number of players or games and
returns plain dataclasses for the templates and the CSV exports.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import Exists, OuterRef, Q, Subquery

from clubsite.numbers import DECIMALS, format_number
from rankings.models import LedgerRow
from tournaments.models import Player


def public_players():
    """The players any visitor may see (the calculator's list, the player pages): everyone
    but those whose every entry is in a draft tournament (a draft is private until it is
    published). A player with no entry at all is a club member and is listed. A queryset."""
    from tournaments.models import Entry, Tournament

    entries = Entry.objects.filter(Q(player1=OuterRef("pk")) | Q(player2=OuterRef("pk")))
    draft = Tournament.Status.DRAFT
    return Player.objects.filter(
        Exists(entries.exclude(tournament__status=draft))
        | ~Exists(entries.filter(tournament__status=draft))
    )


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


def year_ranking(year: int) -> list[RankingLine]:
    """The ranking of ``year``: players with at least one rated game that year, best rating first
    (ties share the position; then by name). One query whatever the season's size.

    Each player's last row of the year gives the rating, the date of the last game and the number
    of games (its ``ng_before`` + 1: NG counts the rated games earlier that same year, §2); the
    first row gives the rating the year started from. Both are found by a descent of the
    (year, player, order_key) index per player, never by reading the season's rows
    (docs/performance.md)."""
    in_year = LedgerRow.objects.filter(year=year, player=OuterRef("pk"))
    # NULL for players without a game that year: "id IN (..., NULL)" ignores it, and a filter
    # on it would run the subquery twice.
    last_ids = Player.objects.annotate(
        last_id=Subquery(in_year.order_by("-order_key").values("pk")[:1])
    ).values("last_id")
    first = LedgerRow.objects.filter(year=year, player=OuterRef("player")).order_by("order_key")
    data = list(
        LedgerRow.objects.filter(pk__in=last_ids)
        .annotate(start=Subquery(first.values("rating_before")[:1]))
        .order_by()
        .values_list(
            "player", "player__full_name", "ng_before", "rating_after", "start", "played_at"
        )
    )
    data.sort(key=lambda d: (-d[3], d[1].casefold(), d[0]))
    lines: list[RankingLine] = []
    for index, (pid, name, ng_before, rating, start, last_played) in enumerate(data, start=1):
        position = lines[-1].position if lines and lines[-1].rating == rating else index
        lines.append(
            RankingLine(position, pid, name, rating, ng_before + 1, rating - start, last_played)
        )
    return lines


def year_position(player_id: int, year: int) -> int | None:
    """The player's position in ``year_ranking(year)`` (ties share it), or None without a rated
    game that year. Two queries, without building the ranking: 1 + the players whose last
    rating of the year is higher."""
    last = LedgerRow.objects.filter(year=year).order_by("-order_key")
    rating = last.filter(player_id=player_id).values_list("rating_after", flat=True).first()
    if rating is None:
        return None
    better = (
        Player.objects.annotate(
            r=Subquery(last.filter(player=OuterRef("pk")).values("rating_after")[:1])
        )
        .filter(r__gt=rating)
        .count()
    )
    return better + 1


def ranking_years() -> list[int]:
    """Years that have rated games, newest first. One query: a recursive walk of the
    (year, ...) index, one step per year, instead of reading every ledger row."""
    from django.db import connections, router

    table = LedgerRow._meta.db_table
    connection = connections[router.db_for_read(LedgerRow)]
    q = connection.ops.quote_name(table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH RECURSIVE y(year) AS ("
            f" SELECT MIN(year) FROM {q}"
            f" UNION ALL"
            f" SELECT (SELECT MIN(l.year) FROM {q} l WHERE l.year > y.year) FROM y WHERE y.year IS NOT NULL"
            f") SELECT year FROM y WHERE year IS NOT NULL"
        )
        return sorted((row[0] for row in cursor.fetchall()), reverse=True)


@dataclass(frozen=True)
class CurrentRating:
    player_id: int
    rating: float
    ng_this_year: int
    year: int | None


def current_ratings(player_ids, *, year: int) -> dict[int, CurrentRating]:
    """Each player's latest rating (the initial rating if they never played) and the rated games
    they completed in ``year`` (NG for the next game). One query."""
    last = LedgerRow.objects.filter(player=OuterRef("pk")).order_by("-order_key")
    initial = float(settings.ELO_INITIAL_RATING)
    out = {}
    for pk, rating, last_year, last_ng in (
        Player.objects.filter(pk__in=list(player_ids))
        .annotate(
            r=Subquery(last.values("rating_after")[:1]),
            y=Subquery(last.values("year")[:1]),
            n=Subquery(last.values("ng_before")[:1]),
        )
        .values_list("pk", "r", "y", "n")
    ):
        ng = (last_ng + 1) if (last_year == year and last_ng is not None) else 0
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

    @property
    def change(self) -> float:
        return self.row.rating_after - self.row.rating_before


def player_history(player: Player) -> list[HistoryLine]:
    """Every ledger row of ``player`` in game order, with the names of partner and opponents.
    Two queries whatever the number of games. Rows of a draft tournament are never shown
    (there are none once the ledger is current: a draft's games are unrated)."""
    from tournaments.models import Tournament

    rows = list(
        LedgerRow.objects.filter(player=player)
        .exclude(tournament__status=Tournament.Status.DRAFT)
        .select_related("tournament", "table__round")
        .order_by("order_key")
    )
    table_ids = [r.table_id for r in rows]
    others: dict[int, list[tuple[str, str]]] = {}
    for table_id, side, name in (
        LedgerRow.objects.filter(table_id__in=table_ids)
        .exclude(player=player)
        .order_by("table_id", "side", "player__full_name")
        .values_list("table_id", "side", "player__full_name")
    ):
        others.setdefault(table_id, []).append((side, name))
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
                partners=[n for s, n in people if s == r.side],
                opponents=[n for s, n in people if s != r.side],
            )
        )
    return lines


@dataclass(frozen=True)
class Chart:
    """An SVG line chart of a rating history, laid out on the server (no JavaScript)."""

    width: int
    height: int
    points: str
    dots: list[tuple[float, float, str]]
    year_marks: list[tuple[float, int]]
    y_ticks: list[tuple[float, int]]


def rating_chart(lines: list[HistoryLine], *, width: int = 640, height: int = 220) -> Chart | None:
    """One point per game (rating after it), the start rating first; a vertical mark where a
    new calendar year begins. None when there is no game. Each dot's label is the rating as
    the history table's cells show it (``clubsite.numbers.format_number``, 1 decimal, the
    active language): 1531.25 → "1531,3" on both."""
    if not lines:
        return None
    values = [lines[0].row.rating_before] + [ln.row.rating_after for ln in lines]
    low, high = min(values), max(values)
    if high - low < 20:
        mid = (high + low) / 2
        low, high = mid - 10, mid + 10
    pad_l, pad_r, pad_t, pad_b = 44, 10, 10, 22
    inner_w, inner_h = width - pad_l - pad_r, height - pad_t - pad_b
    step = inner_w / max(1, len(values) - 1)

    def xy(i, v):
        return pad_l + i * step, pad_t + (high - v) / (high - low) * inner_h

    coords = [xy(i, v) for i, v in enumerate(values)]
    # The dot labels are read by people: the same text as the history table's rating cells
    # (clubsite.numbers: rounded half away from zero, 1 decimal, the page's language).
    dots = [(x, y, format_number(values[i], DECIMALS["rating"])) for i, (x, y) in enumerate(coords)]
    marks = []
    for i in range(1, len(lines)):
        if lines[i].row.year != lines[i - 1].row.year:
            marks.append((coords[i][0] + step / 2, lines[i].row.year))
    span = high - low
    tick = 10 if span <= 60 else 25 if span <= 150 else 50 if span <= 400 else 100
    tick_lo, tick_hi = int(low // tick + 1) * tick, int(high // tick) * tick
    ticks = [(xy(0, v)[1], v) for v in range(tick_lo, tick_hi + 1, tick)][:8]
    return Chart(width, height, " ".join(f"{x:.1f},{y:.1f}" for x, y in coords), dots, marks, ticks)
