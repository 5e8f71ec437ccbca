"""Replay and rebuild of the yearly Elo ledger (seed 002, SCORING.md §2).

The ledger is a pure function of the rated games: ``replay_from(key)`` deletes every row from
game ``key`` on and recomputes those games in order, starting from each player's state just
before ``key`` (rating after their last earlier game, and NG: their rated games earlier in
the same calendar year). ``rebuild()`` is ``replay_from(None)``. A replay from any key gives
exactly the rows a full rebuild gives.

Rated games: results of dominó tournaments marked rated; forfeits only where the tournament
rates them; byes never (they have no table).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.db.models import OuterRef, Q, Subquery

from clubsite import pagecache
from rankings import elo
from rankings.models import LedgerRow
from tournaments.timing import default_played_at  # the games' time when none was given

#: Key used to serialise replays on PostgreSQL (pg_advisory_xact_lock).
ADVISORY_LOCK_ID = 0x7E1D6E5

BATCH = 5000


def local_zone() -> dt.tzinfo:
    """The club's time zone (the ``TIME_ZONE`` setting): ranking years follow it (§2)."""
    return zoneinfo.ZoneInfo(settings.TIME_ZONE)


def order_key(played_at: dt.datetime, round_number: int, table_number: int, table_id: int) -> str:
    """The sort key of a game (§2 "Order"): instant played (UTC, microseconds), round, table,
    then the table's id. Fixed-width text, so string order is game order."""
    utc = played_at.astimezone(dt.UTC)
    return f"{utc:%Y%m%d%H%M%S%f}-{round_number:04d}-{table_number:05d}-{table_id:012d}"


@dataclass(frozen=True)
class RatedGame:
    """A rated game in the shape the replay needs (plain data, no model instances)."""

    table_id: int
    tournament_id: int
    key: str
    played_at: dt.datetime
    year: int
    side_a: tuple[int, ...]
    side_b: tuple[int, ...]
    tantos_a: int
    tantos_b: int


def _rated_results_filter(prefix: str = "") -> Q:
    """Results of rated tournaments whose scoring system is rated (``ScoringSystem.rated``,
    SCORING.md §2), forfeits only where the tournament rates them."""
    from tournaments import systems

    p = prefix
    rated_systems = [s.key for s in systems.all_systems() if s.rated]
    return Q(
        **{
            f"{p}table__round__tournament__system__in": rated_systems,
            f"{p}table__round__tournament__rated": True,
        }
    ) & (Q(**{f"{p}forfeit": False}) | Q(**{f"{p}table__round__tournament__forfeits_rated": True}))


def rated_games(from_key: str | None = None) -> list[RatedGame]:
    """Every rated game with ``key >= from_key`` (all when None), in ledger order. Two queries."""
    from tournaments.models import Result, Seat

    results = Result.objects.filter(_rated_results_filter())
    if from_key is not None:
        since = dt.datetime.strptime(from_key[:20], "%Y%m%d%H%M%S%f").replace(tzinfo=dt.UTC)
        # Results without a stored time take a default one: keep them in the candidate set.
        results = results.filter(Q(played_at__gte=since) | Q(played_at__isnull=True))
    rows = list(
        results.values_list(
            "table_id",
            "table__round__tournament_id",
            "tantos_a",
            "tantos_b",
            "played_at",
            "table__round__tournament__date",
            "table__round__number",
            "table__number",
        )
    )
    seats = Seat.objects.all()
    if from_key is not None:
        seats = seats.filter(table_id__in=[r[0] for r in rows])
    elif rows:
        seats = seats.filter(_rated_results_filter("table__result__"))
    else:
        seats = seats.none()
    players: dict[int, dict[str, list[int]]] = {}
    for table_id, side, p1, p2 in seats.order_by("table_id", "side", "position").values_list(
        "table_id", "side", "entry__player1_id", "entry__player2_id"
    ):
        sides = players.setdefault(table_id, {"A": [], "B": []})
        sides[side].append(p1)
        if p2:
            sides[side].append(p2)
    zone = local_zone()
    games = []
    # Games of one round share their instant: its key prefix and local year are worked out once.
    instants: dict[dt.datetime, tuple[str, int]] = {}
    for table_id, tournament_id, a, b, played_at, date, round_number, table_number in rows:
        sides = players.get(table_id)
        if not sides or not sides["A"] or len(sides["A"]) != len(sides["B"]) or len(sides["A"]) > 2:
            continue
        when = played_at or default_played_at(date, round_number)
        instant = instants.get(when)
        if instant is None:
            instant = instants[when] = (
                f"{when.astimezone(dt.UTC):%Y%m%d%H%M%S%f}",
                when.astimezone(zone).year,
            )
        key = f"{instant[0]}-{round_number:04d}-{table_number:05d}-{table_id:012d}"  # == order_key(...)
        if from_key is not None and key < from_key:
            continue
        games.append(
            RatedGame(
                table_id=table_id,
                tournament_id=tournament_id,
                key=key,
                played_at=when,
                year=instant[1],
                side_a=tuple(sides["A"]),
                side_b=tuple(sides["B"]),
                tantos_a=a,
                tantos_b=b,
            )
        )
    games.sort(key=lambda g: g.key)
    return games


@dataclass
class PlayerState:
    rating: float
    year: int | None
    ng: int  # rated games completed in ``year``


def states_before(player_ids: Iterable[int], key: str) -> dict[int, PlayerState]:
    """Each player's state just before game ``key``: one query (correlated subqueries on the
    (player, order_key) index), whatever the length of the season."""
    from tournaments.models import Player

    ids = list(set(player_ids))
    if not ids:
        return {}
    last = LedgerRow.objects.filter(player=OuterRef("pk"), order_key__lt=key).order_by("-order_key")
    states = {}
    for pk, rating, year, ng_before in (
        Player.objects.filter(pk__in=ids)
        .annotate(
            last_rating=Subquery(last.values("rating_after")[:1]),
            last_year=Subquery(last.values("year")[:1]),
            last_ng=Subquery(last.values("ng_before")[:1]),
        )
        .values_list("pk", "last_rating", "last_year", "last_ng")
    ):
        if rating is not None:
            states[pk] = PlayerState(rating=rating, year=year, ng=ng_before + 1)
    return states


#: Columns written by a replay, in the order ``compute_rows`` yields them.
COLUMNS = (
    "table_id",
    "player_id",
    "tournament_id",
    "order_key",
    "played_at",
    "year",
    "side",
    "ng_before",
    "rating_before",
    "team_rating",
    "opponent_rating",
    "expected_score",
    "score",
    "k_factor",
    "rating_after",
    "tantos_own",
    "tantos_other",
)


def compute_rows(games: list[RatedGame], states: dict[int, PlayerState]) -> Iterator[tuple]:
    """Apply ``games`` in order to ``states`` (mutated) and yield one tuple per ledger row,
    with the values of ``COLUMNS``."""
    initial = float(getattr(settings, "ELO_INITIAL_RATING", elo.INITIAL_RATING))
    for g in games:
        before = {}
        for pid in g.side_a + g.side_b:
            st = states.get(pid)
            if st is None:
                st = states[pid] = PlayerState(rating=initial, year=g.year, ng=0)
            elif st.year != g.year:
                st.year, st.ng = g.year, 0
            before[pid] = elo.PlayerBefore(player_id=pid, rating=st.rating, ng=st.ng)
        updates = elo.game_update(
            [before[p] for p in g.side_a], [before[p] for p in g.side_b], g.tantos_a, g.tantos_b
        )
        n_a = len(g.side_a)
        for i, u in enumerate(updates):
            on_a = i < n_a
            st = states[u.player_id]
            st.rating, st.ng = u.rating_after, st.ng + 1
            yield (
                g.table_id,
                u.player_id,
                g.tournament_id,
                g.key,
                g.played_at,
                g.year,
                "A" if on_a else "B",
                u.ng_before,
                u.rating_before,
                u.team_rating,
                u.opponent_rating,
                u.expected_score,
                u.score,
                u.k_factor,
                u.rating_after,
                g.tantos_a if on_a else g.tantos_b,
                g.tantos_b if on_a else g.tantos_a,
            )


def _write(rows: list[tuple]) -> None:
    """Insert ledger rows in bulk: COPY on PostgreSQL, one multi-row executemany elsewhere."""
    if not rows:
        return
    table = connection.ops.quote_name(LedgerRow._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(c) for c in COLUMNS)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * len(COLUMNS))
            adapt = connection.ops.adapt_datetimefield_value
            cursor.executemany(
                f"INSERT INTO {table} ({columns}) VALUES ({marks})",
                [row[:4] + (adapt(row[4]),) + row[5:] for row in rows],
            )


def _lock() -> None:
    """Serialise replays: on PostgreSQL a transaction-level advisory lock; SQLite writes are
    serialised by the database itself."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [ADVISORY_LOCK_ID])


@dataclass
class ReplayReport:
    """What a replay did: the key it started from, rows deleted and written."""

    from_key: str | None
    deleted: int
    written: int


def replay_from(key: str | None, *, progress=None) -> ReplayReport:
    """Recompute the ledger from game ``key`` on (None: everything) in one transaction.

    ``progress``: optional callable(rows_written, rows_total). Returns a ``ReplayReport``.
    """
    with transaction.atomic():
        _lock()
        pagecache.changed()  # the ranking pages show the ledger (bulk writes send no signal)
        games = rated_games(key)
        if key is None:
            states: dict[int, PlayerState] = {}
            deleted, _ = LedgerRow.objects.all().delete()
        else:
            states = states_before({p for g in games for p in g.side_a + g.side_b}, key)
            deleted, _ = LedgerRow.objects.filter(order_key__gte=key).delete()
        total = sum(len(g.side_a) + len(g.side_b) for g in games)
        if connection.vendor == "postgresql":
            written = _copy_all(compute_rows(games, states), progress, total)
        else:
            written = 0
            batch: list[tuple] = []
            for row in compute_rows(games, states):
                batch.append(row)
                if len(batch) >= BATCH:
                    _write(batch)
                    written += len(batch)
                    batch = []
                    if progress:
                        progress(written, total)
            _write(batch)
            written += len(batch)
        if progress:
            progress(written, total)
    return ReplayReport(from_key=key, deleted=deleted, written=written)


def _copy_all(rows: Iterator[tuple], progress, total: int) -> int:
    """PostgreSQL: stream every row through ONE ``COPY`` while they are computed, so the server
    indexes rows already sent while Python computes the next Elo steps (two cores overlap;
    docs/performance.md). Returns the number of rows written."""
    table = connection.ops.quote_name(LedgerRow._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(c) for c in COLUMNS)
    written = 0
    with connection.cursor() as cursor:
        with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
                written += 1
                if progress and written % BATCH == 0:
                    progress(written, total)
    return written


def rebuild(*, progress=None) -> ReplayReport:
    """Rebuild the whole ledger from nothing."""
    return replay_from(None, progress=progress)


def earliest_key_for_tables(table_ids: Iterable[int]) -> str | None:
    """The smallest key among the tables' current ledger rows and their current rated results
    (where a replay must start after those tables changed); None if neither exists."""
    from tournaments.models import Result

    ids = list(set(table_ids))
    if not ids:
        return None
    # No ORDER BY/LIMIT here: the planner would walk the whole order_key index.
    keys = list(LedgerRow.objects.filter(table_id__in=ids).values_list("order_key", flat=True))
    for table_id, played_at, date, round_number, table_number in Result.objects.filter(
        _rated_results_filter(), table_id__in=ids
    ).values_list(
        "table_id",
        "played_at",
        "table__round__tournament__date",
        "table__round__number",
        "table__number",
    ):
        when = played_at or default_played_at(date, round_number)
        keys.append(order_key(when, round_number, table_number, table_id))
    return min(keys) if keys else None
