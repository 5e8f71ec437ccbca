"""Replay and rebuild of the yearly Elo ledger (seed 002, SCORING.md §2).

The ledger is a pure function of the rated games: ``replay_from(key)`` deletes every row from
game ``key`` on and recomputes those games in order, starting from each player's state just
before ``key`` (rating after their last earlier game, and NG: their rated games earlier in
the same calendar year). ``rebuild()`` is ``replay_from(None)``. A replay from any key gives
exactly the rows a full rebuild gives.

Rated games: results of published (not draft) dominó tournaments marked rated; forfeits only
where the tournament rates them; byes never (they have no table). A draft's games count from
the moment it is published (the status change replays, ``rankings.signals``).

Bad rows: a rated result the replay cannot place or rate (a time whose year, in UTC or in the
club's zone, lies outside ``FIRST_YEAR``–``LAST_YEAR``, or that cannot be converted at all;
sides that are not 1 or 2 players each, equal in number; a player on both sides) is skipped:
the replay writes every other game, lists the skipped ones (tournament, round, table, why) in
its report, and ``rankings.health`` marks the ranking "needs attention" until a replay finds
none (SCORING.md §2, "Health"). A replay that fails outright rolls back and is marked the same
way (``ReplayFailed``).
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter
from typing import NamedTuple

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Min, OuterRef, Q, Subquery

from rankings import elo, health
from rankings.models import LedgerRow, ReplayRequest, YearRating
from tournaments import systems
from tournaments.models import Player, Result, Table, Tournament
from tournaments.timing import default_played_at  # the games' time when none was given

#: Key used to serialise replays on PostgreSQL (pg_advisory_xact_lock).
ADVISORY_LOCK_ID = 0x7E1D6E5

BATCH = 5000

#: The years a game may have, in UTC and in the club's zone (the ranking page's years): the
#: sort key is fixed-width (four-digit years), and a year outside is a typing error, not a game.
FIRST_YEAR = 1900
LAST_YEAR = 2999
#: Results stored before this instant are out of range: every replay looks at them (and
#: reports them), whatever game it starts from.
_FIRST_INSTANT = dt.datetime(FIRST_YEAR, 1, 2, tzinfo=dt.UTC)
_KEY = re.compile(r"\d{20}-\d{4}-\d{5}-\d{12}")


def local_zone() -> dt.tzinfo:
    """The club's time zone (the ``TIME_ZONE`` setting): ranking years follow it (§2)."""
    return zoneinfo.ZoneInfo(settings.TIME_ZONE)


def order_key(played_at: dt.datetime, round_number: int, table_number: int, table_id: int) -> str:
    """The sort key of a game (§2 "Order"): instant played (UTC, microseconds), round, table,
    then the table's id. Fixed-width text, so string order is game order."""
    utc = played_at.astimezone(dt.UTC)
    return f"{utc:%Y%m%d%H%M%S%f}-{round_number:04d}-{table_number:05d}-{table_id:012d}"


def _instant(when: dt.datetime, zone: dt.tzinfo) -> tuple[str, int] | None:
    """(key prefix, local year) of a game played at ``when``; None when the time is out of
    range (``FIRST_YEAR``–``LAST_YEAR`` in UTC and locally) or cannot be converted."""
    try:
        utc = when.astimezone(dt.UTC)
        year = when.astimezone(zone).year
    except (OverflowError, ValueError):
        return None
    if not (FIRST_YEAR <= utc.year <= LAST_YEAR and FIRST_YEAR <= year <= LAST_YEAR):
        return None
    return f"{utc:%Y%m%d%H%M%S%f}", year


def valid_key(key: str | None) -> bool:
    """Whether ``key`` has the shape of ``order_key`` (a malformed one cannot start a replay)."""
    return key is not None and _KEY.fullmatch(key) is not None


@dataclass(frozen=True)
class BadGame:
    """A rated result a replay skipped: its table, a ``tournaments.errors`` code saying why
    ("ledger_bad_date", "ledger_bad_sides", "ledger_player_twice", "ledger_bad_game") and the
    code's own parameters (the table's tournament, round and number are added by
    ``describe``)."""

    table_id: int
    code: str
    params: dict


class BadGameError(ValueError):
    """A bad row met by ``rated_games``/``compute_rows`` called without a ``problems`` list."""

    def __init__(self, bad: BadGame):
        super().__init__(f"{bad.code}: table {bad.table_id} {bad.params}")
        self.bad = bad


class ReplayFailed(Exception):
    """A replay failed and rolled back; ``rankings.health`` has recorded it ("needs attention").
    Raised from the original error (``__cause__``)."""


def _moment_text(value) -> str:
    """A stored time or date for a message, "YYYY-MM-DD HH:MM" (UTC when it cannot be moved to
    the club's zone), never failing."""
    try:
        if isinstance(value, dt.datetime):
            try:
                value = value.astimezone(local_zone())
            except (OverflowError, ValueError):
                pass
            return f"{value.year:04d}-{value.month:02d}-{value.day:02d} {value:%H:%M}"
        return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    except Exception:  # a value no format accepts: show it as stored
        return str(value)[:40]


class RatedGame(NamedTuple):
    """A rated game in the shape the replay needs (plain data, no model instances; a named
    tuple: a season's 100,000 games are made in a tenth of a frozen dataclass's time)."""

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
    """Results of published (not draft), rated tournaments whose scoring system is rated
    (``ScoringSystem.rated``, SCORING.md §2), forfeits only where the tournament rates them."""

    p = prefix
    rated_systems = [s.key for s in systems.all_systems() if s.rated]
    return (
        Q(
            **{
                f"{p}table__round__tournament__system__in": rated_systems,
                f"{p}table__round__tournament__rated": True,
            }
        )
        & Tournament.public_q(f"{p}table__round__tournament__")
        & (
            Q(**{f"{p}forfeit": False})
            | Q(**{f"{p}table__round__tournament__forfeits_rated": True})
        )
    )


#: Rows fetched at a time from the read's server-side cursor (PostgreSQL; ``QuerySet.iterator``).
READ_CHUNK = 20_000


def rated_games(
    from_key: str | None = None, *, problems: list[BadGame] | None = None
) -> list[RatedGame]:
    """Every rated game with ``key >= from_key`` (all when None), in ledger order. One query,
    read in one pass: each rated result joined to its table's seats (a result with no seat
    still comes, once), ordered by table, side and seat, streamed through a server-side cursor
    on PostgreSQL (``READ_CHUNK`` rows a fetch); the games are then sorted by their keys.

    A bad row (module docstring) is skipped and appended to ``problems`` as a ``BadGame``;
    without a ``problems`` list it raises ``BadGameError``. Whatever ``from_key``, results
    stored before ``FIRST_YEAR`` are looked at too, so every replay reports them.
    """

    results = Result.objects.filter(_rated_results_filter())
    if from_key is not None:
        since = dt.datetime.strptime(from_key[:20], "%Y%m%d%H%M%S%f").replace(tzinfo=dt.UTC)
        # Results without a stored time take a default one: keep them in the candidate set.
        results = results.filter(
            Q(played_at__gte=since) | Q(played_at__isnull=True) | Q(played_at__lt=_FIRST_INSTANT)
        )
    rows = (
        results.order_by("table_id", "table__seats__side", "table__seats__position")
        .values_list(
            "table_id",
            "table__round__tournament_id",
            "tantos_a",
            "tantos_b",
            "played_at",
            "table__round__tournament__date",
            "table__round__number",
            "table__number",
            "table__seats__side",
            "table__seats__entry__player1_id",
            "table__seats__entry__player2_id",
        )
        .iterator(chunk_size=READ_CHUNK)
    )

    def bad(table_id: int, code: str, **params) -> None:
        game = BadGame(table_id=table_id, code=code, params=params)
        if problems is None:
            raise BadGameError(game)
        problems.append(game)

    zone = local_zone()
    games = []
    # Games of one round share their instant: its key prefix and local year are worked out once.
    instants: dict[dt.datetime, tuple[str, int] | None] = {}

    def game(head: tuple, sides: dict[str, list[int]]) -> None:
        table_id, tournament_id, a, b, played_at, date, round_number, table_number = head
        try:
            when = played_at or default_played_at(date, round_number)
        except (OverflowError, ValueError):
            when = None
        instant = None
        if when is not None:
            if when in instants:
                instant = instants[when]
            else:
                instant = instants[when] = _instant(when, zone)
        if instant is None:
            bad(
                table_id,
                "ledger_bad_date",
                played_at=_moment_text(played_at or date),
                first=FIRST_YEAR,
                last=LAST_YEAR,
            )
            return
        key = f"{instant[0]}-{round_number:04d}-{table_number:05d}-{table_id:012d}"  # == order_key(...)
        if from_key is not None and key < from_key:
            return
        side_a, side_b = sides.get("A", []), sides.get("B", [])
        if not 1 <= len(side_a) <= 2 or len(side_a) != len(side_b) or set(sides) != {"A", "B"}:
            bad(table_id, "ledger_bad_sides", side_a=len(side_a), side_b=len(side_b))
            return
        if len(set(side_a + side_b)) != len(side_a) + len(side_b):
            bad(table_id, "ledger_player_twice")
            return
        games.append(
            RatedGame(
                table_id=table_id,
                tournament_id=tournament_id,
                key=key,
                played_at=when,
                year=instant[1],
                side_a=tuple(side_a),
                side_b=tuple(side_b),
                tantos_a=a,
                tantos_b=b,
            )
        )

    # The rows of one table come together (ordered by table), one per seat (side, seat order).
    for _, seats in groupby(rows, itemgetter(0)):
        seats = list(seats)
        sides: dict[str, list[int]] = {"A": [], "B": []}
        for *_, side, p1, p2 in seats:
            if side is None:  # a result whose table has no seat
                continue
            players = sides.setdefault(side, [])
            players.append(p1)
            if p2:
                players.append(p2)
        game(seats[0][:8], sides)
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


def compute_rows(
    games: list[RatedGame],
    states: dict[int, PlayerState],
    problems: list[BadGame] | None = None,
) -> Iterator[tuple]:
    """Apply ``games`` in order to ``states`` (mutated) and yield one tuple per ledger row,
    with the values of ``COLUMNS``. A game the rules refuse (``elo.game_update`` raises
    ``ValueError``) changes nobody: it is appended to ``problems`` as a ``BadGame``
    ("ledger_bad_game"), or raises ``BadGameError`` without a ``problems`` list."""
    initial = float(getattr(settings, "ELO_INITIAL_RATING", elo.INITIAL_RATING))
    for g in games:
        before = {}
        for pid in g.side_a + g.side_b:
            st = states.get(pid)
            if st is None:
                before[pid] = elo.PlayerBefore(player_id=pid, rating=initial, ng=0)
            else:
                ng = st.ng if st.year == g.year else 0
                before[pid] = elo.PlayerBefore(player_id=pid, rating=st.rating, ng=ng)
        try:
            updates = elo.game_update(
                [before[p] for p in g.side_a],
                [before[p] for p in g.side_b],
                g.tantos_a,
                g.tantos_b,
            )
        except ValueError as exc:
            game = BadGame(table_id=g.table_id, code="ledger_bad_game", params={"detail": str(exc)})
            if problems is None:
                raise BadGameError(game) from exc
            problems.append(game)
            continue
        n_a = len(g.side_a)
        for i, u in enumerate(updates):
            on_a = i < n_a
            st = states.get(u.player_id)
            if st is None:
                states[u.player_id] = PlayerState(
                    rating=u.rating_after, year=g.year, ng=u.ng_before + 1
                )
            else:
                st.rating, st.year, st.ng = u.rating_after, g.year, u.ng_before + 1
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


def describe(problems: list[BadGame]) -> list[dict]:
    """The skipped games as ``LedgerStatus.problems`` entries (``{"code", "params"}``), each
    with its tournament's name, round and table number (one query), in the order found."""

    if not problems:
        return []
    where = {
        pk: (name, round_number, number)
        for pk, name, round_number, number in Table.objects.filter(
            pk__in={p.table_id for p in problems}
        ).values_list("pk", "round__tournament__name", "round__number", "number")
    }
    out = []
    for p in problems:
        name, round_number, number = where.get(p.table_id, ("?", "?", "?"))
        out.append(
            {
                "code": p.code,
                "params": {"tournament": name, "round": round_number, "table": number, **p.params},
                "table_id": p.table_id,
            }
        )
    return out


def _lock() -> None:
    """Serialise replays: on PostgreSQL a transaction-level advisory lock; SQLite writes are
    serialised by the database itself."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [ADVISORY_LOCK_ID])


@dataclass
class ReplayReport:
    """What a replay did: the key it started from (None: the first game), rows deleted and
    written, and the games it skipped (``describe``: tournament, round, table, why)."""

    from_key: str | None
    deleted: int
    written: int
    skipped: list[dict] = field(default_factory=list)


def replay_from(key: str | None, *, progress=None, requests: bool = False) -> ReplayReport | None:
    """Recompute the ledger from game ``key`` on (None: everything) in one transaction.

    The replay starts earlier when the ranking needs attention from an earlier game
    (``health.replay_start``), and at the first game when ``key`` is malformed. Bad rows are
    skipped and listed in the report's ``skipped``; the status is recorded in the same
    transaction (``health.record_replay``: current when nothing was skipped), with the time
    the replay committed (``LedgerStatus.replayed_at``). The year figures of every player
    whose rows changed are kept in step (``refresh_year_ratings``). If the replay fails, its
    transaction rolls back, the failure is recorded in a transaction of its own
    (``health.record_failure``) and ``ReplayFailed`` is raised from the error.

    ``requests``: the background replay (``rankings.tasks``): the pending ``ReplayRequest``
    rows, read under the replay's lock, say where to start (the earliest game any of them
    names, before ``key`` if that is earlier) and are deleted in the same transaction; None is
    returned when there are none (another replay took them). After a failure they are deleted
    too: the ranking's status carries the range, so the next replay covers it.

    ``progress``: optional callable(rows_written, rows_total). Returns a ``ReplayReport``.
    """

    if key is not None and not valid_key(key):
        key = None
    start = key
    request_ids: list[int] = []
    try:
        with transaction.atomic():
            _lock()
            if requests:
                request_ids, wanted = _requested_start()
                if not request_ids:
                    return None
                if wanted is _NOTHING:
                    ReplayRequest.objects.filter(pk__in=request_ids).delete()
                    health.mark_replayed()
                    return ReplayReport(from_key=None, deleted=0, written=0)
                key = wanted if key is None or wanted is None else min(key, wanted)
            status = health.get()
            start = health.replay_start(key, status)
            health.pages_changed()  # the ranking pages show the ledger (bulk writes send no signal)
            problems: list[BadGame] = []
            games = rated_games(start, problems=problems)
            if start is not None and problems:
                # A game that went bad without a signal (a bulk update) may still have rows
                # before ``start``: a rebuild has none, so replay from the first of them.
                earlier = (
                    LedgerRow.objects.filter(
                        table_id__in={p.table_id for p in problems}, order_key__lt=start
                    )
                    .order_by("order_key")
                    .values_list("order_key", flat=True)
                    .first()
                )
                if earlier is not None:
                    start = earlier if valid_key(earlier) else None
                    problems = []
                    games = rated_games(start, problems=problems)
            touched = _Touched()
            if start is None:
                states: dict[int, PlayerState] = {}
                deleted, _ = LedgerRow.objects.all().delete()
            else:
                states = states_before({p for g in games for p in g.side_a + g.side_b}, start)
                old = LedgerRow.objects.filter(order_key__gte=start)
                touched.add_query(old)
                deleted, _ = old.delete()
            total = sum(len(g.side_a) + len(g.side_b) for g in games)
            rows = compute_rows(games, states, problems)
            figures = _YearFigures() if start is None else None
            rows = figures.watch(rows) if figures is not None else touched.watch(rows)
            written = _write_rows(LedgerRow, COLUMNS, rows, progress, total)
            if progress:
                progress(written, total)
            if figures is not None:
                figures.write()
            else:
                refresh_year_ratings(touched.players, from_year=touched.first_year)
            skipped = describe(problems)
            if skipped or (status is not None and not status.is_current):
                health.record_replay(start, skipped)
            if request_ids:
                ReplayRequest.objects.filter(pk__in=request_ids).delete()
            health.mark_replayed()
    except Exception as exc:
        health.record_failure(start, exc, request_ids=request_ids)
        raise ReplayFailed(f"{type(exc).__name__}: {exc}") from exc
    return ReplayReport(from_key=start, deleted=deleted, written=written, skipped=skipped)


_NOTHING = object()


def _requested_start() -> tuple[list[int], object]:
    """The pending ``ReplayRequest`` rows (read under the replay's lock): their ids and the
    key to replay from: the earliest game they name (None: from the first game), or
    ``_NOTHING`` when they touch no rated game and no ledger row (a change in an unrated
    tournament)."""

    ids, keys, tables = [], [], set()
    for pk, from_key, table_ids in ReplayRequest.objects.order_by("pk").values_list(
        "pk", "from_key", "table_ids"
    ):
        ids.append(pk)
        if from_key is not None:
            keys.append(from_key)
        tables.update(table_ids or ())
    earliest = earliest_key_for_tables(tables)
    if earliest is not None:
        keys.append(earliest)
    if not keys:
        return ids, _NOTHING
    start = min(keys)
    return ids, (start if valid_key(start) else None)


class _Touched:
    """The players whose ledger rows a replay deletes or writes, and the first year among
    those rows: the year figures to refresh (``refresh_year_ratings``)."""

    def __init__(self):
        self.players: set[int] = set()
        self.first_year: int | None = None

    def _year(self, year) -> None:
        if year is not None and (self.first_year is None or year < self.first_year):
            self.first_year = year

    def add_query(self, rows) -> None:

        self.players.update(rows.order_by().values_list("player_id", flat=True).distinct())
        self._year(rows.order_by().aggregate(first=Min("year"))["first"])

    def watch(self, rows: Iterator[tuple]) -> Iterator[tuple]:
        player_at, year_at = COLUMNS.index("player_id"), COLUMNS.index("year")
        for row in rows:
            self.players.add(row[player_at])
            self._year(row[year_at])
            yield row


#: Players per statement when the year figures are refreshed (well under SQLite's limit of
#: bound parameters).
YEAR_RATING_CHUNK = 500


def refresh_year_ratings(player_ids: Iterable[int] | None = None, *, from_year=None) -> None:
    """Recompute ``YearRating`` rows from the ledger: of ``player_ids`` (None: everyone), in
    ``from_year`` and later (None: every year). Each (player, year) gets the last row's rating
    and NG + 1, the first row's rating before and the last row's time; a player with no row
    left in a year loses that year's figures. Runs inside the replay's transaction. Two
    statements per ``YEAR_RATING_CHUNK`` players (window functions: SQLite ≥ 3.25 and
    PostgreSQL)."""

    ledger = connection.ops.quote_name(LedgerRow._meta.db_table)
    figures = connection.ops.quote_name(YearRating._meta.db_table)
    if player_ids is None:
        chunks: list[list[int] | None] = [None]
    else:
        ids = sorted(set(player_ids))
        if not ids:
            return
        chunks = [ids[i : i + YEAR_RATING_CHUNK] for i in range(0, len(ids), YEAR_RATING_CHUNK)]
    with connection.cursor() as cursor:
        if player_ids is not None:  # a replay's few players: index descents, not the year's rows
            _refresh_pairs(cursor, ledger, figures, chunks, from_year)
            return
        for chunk in chunks:
            where, params = ["1 = 1"], []
            if from_year is not None:
                where.append("year >= %s")
                params.append(from_year)
            if chunk is not None:
                where.append(f"player_id IN ({', '.join(['%s'] * len(chunk))})")
                params.extend(chunk)
            condition = " AND ".join(where)
            cursor.execute(f"DELETE FROM {figures} WHERE {condition}", params)
            cursor.execute(
                f"INSERT INTO {figures}"
                " (player_id, year, rating, games, start_rating, last_played, last_key)"
                " SELECT player_id, year, rating_after, ng_before + 1, start_rating, played_at,"
                " order_key FROM ("
                "  SELECT player_id, year, rating_after, ng_before, played_at, order_key,"
                "   ROW_NUMBER() OVER (PARTITION BY player_id, year ORDER BY order_key DESC) AS n,"
                "   FIRST_VALUE(rating_before) OVER"
                "    (PARTITION BY player_id, year ORDER BY order_key) AS start_rating"
                f"  FROM {ledger} WHERE {condition}"
                ") AS last_rows WHERE n = 1",
                params,
            )


def _refresh_pairs(cursor, ledger: str, figures: str, chunks, from_year) -> None:
    """``refresh_year_ratings`` for listed players: for each year that has ledger rows, from
    ``from_year`` on, and each player of a chunk, the last and the first row of the
    player-year are found by descents of the (year, player, order_key) index, so the cost does
    not grow with the games the players have played that year. One statement per chunk and
    year (no compound SELECT: SQLite allows few terms in one). Same figures as the
    window-function statement of a full refresh (the replay tests compare the two)."""

    years = _years_from(cursor, ledger, from_year)
    players = connection.ops.quote_name(Player._meta.db_table)

    def pick(column: str, direction: str, alias: str = "c") -> str:
        return (
            f"(SELECT l.{column} FROM {ledger} l WHERE l.year = {alias}.year"
            f" AND l.player_id = {alias}.player_id ORDER BY l.order_key {direction} LIMIT 1)"
        )

    for chunk in chunks:
        marks = ", ".join(["%s"] * len(chunk))
        year_condition, year_params = ("", [])
        if from_year is not None:
            year_condition, year_params = (" AND year >= %s", [from_year])
        cursor.execute(
            f"DELETE FROM {figures} WHERE player_id IN ({marks}){year_condition}",
            [*chunk, *year_params],
        )
        for year in years:
            cursor.execute(
                f"INSERT INTO {figures}"
                " (player_id, year, rating, games, start_rating, last_played, last_key)"
                " SELECT player_id, year,"
                f" {pick('rating_after', 'DESC')}, {pick('ng_before', 'DESC')} + 1,"
                f" {pick('rating_before', 'ASC')}, {pick('played_at', 'DESC')}, last_key"
                " FROM ("
                "  SELECT p.player_id, p.year,"
                f"   {pick('order_key', 'DESC', 'p')} AS last_key"
                f"  FROM (SELECT id AS player_id, %s AS year FROM {players}"
                f"   WHERE id IN ({marks})) p"
                " ) c WHERE last_key IS NOT NULL",
                [year, *chunk],
            )


def _years_from(cursor, ledger: str, from_year) -> list[int]:
    """The years that have ledger rows, ``from_year`` and later (all when None), oldest first:
    a walk of the (year, …) index, one step per year."""
    cursor.execute(
        f"WITH RECURSIVE y(year) AS ("
        f" SELECT MIN(year) FROM {ledger} WHERE year >= %s"
        f" UNION ALL"
        f" SELECT (SELECT MIN(l.year) FROM {ledger} l WHERE l.year > y.year)"
        f" FROM y WHERE y.year IS NOT NULL"
        f") SELECT year FROM y WHERE year IS NOT NULL",
        [from_year if from_year is not None else FIRST_YEAR],
    )
    return [row[0] for row in cursor.fetchall()]


def copy_types(model, columns: Iterable[str]) -> list[str]:
    """The PostgreSQL type of each of ``columns`` (field names or attnames) of ``model``'s
    table, as a binary ``COPY`` needs them (psycopg ``Copy.set_types``): the field's column
    type without its modifier ("varchar(64)" → "varchar", "bigint", "double precision",
    "timestamp with time zone", …)."""
    return [
        re.sub(r"\(.*\)", "", model._meta.get_field(c).db_type(connection)).strip() for c in columns
    ]


def _write_rows(model, columns: tuple[str, ...], rows: Iterable[tuple], progress=None, total=0):
    """Write ``rows`` (tuples of ``columns``' values) into ``model``'s table; returns how many.

    PostgreSQL: every row through ONE binary ``COPY`` (``FORMAT BINARY``, the columns' types
    from ``copy_types``), streamed while the rows are computed, so the server indexes rows
    already sent while Python computes the next Elo steps (two cores overlap), and no value is
    formatted as text: integers, floats (IEEE doubles, bit for bit), times (microseconds since
    2000-01-01 UTC) and strings go as the server stores them. Elsewhere (SQLite): one
    ``executemany`` INSERT per ``BATCH`` rows, times adapted as Django stores them.
    ``progress(written, total)`` after every ``BATCH`` rows (docs/performance.md)."""
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    written = 0
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.copy(f"COPY {table} ({names}) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(copy_types(model, columns))
                for row in rows:
                    copy.write_row(row)
                    written += 1
                    if progress and written % BATCH == 0:
                        progress(written, total)
            return written
        marks = ", ".join(["%s"] * len(columns))
        adapt = connection.ops.adapt_datetimefield_value
        times = [
            i
            for i, c in enumerate(columns)
            if model._meta.get_field(c).get_internal_type() == "DateTimeField"
        ]
        sql = f"INSERT INTO {table} ({names}) VALUES ({marks})"
        batch: list = []
        for row in rows:
            if times:
                row = list(row)
                for i in times:
                    row[i] = adapt(row[i])
            batch.append(row)
            if len(batch) >= BATCH:
                cursor.executemany(sql, batch)
                written += len(batch)
                batch = []
                if progress:
                    progress(written, total)
        if batch:
            cursor.executemany(sql, batch)
            written += len(batch)
    return written


class _YearFigures:
    """The year figures (``YearRating``) of a replay from the first game, read off its rows as
    they are written (they come in game order, so a (player, year)'s last row is the last one
    seen): the same figures as ``refresh_year_ratings()`` reads back from the ledger, without
    reading the ledger again."""

    COLUMNS = ("player_id", "year", "rating", "games", "start_rating", "last_played", "last_key")

    def __init__(self):
        self.figures: dict[tuple[int, int], list] = {}

    def watch(self, rows: Iterator[tuple]) -> Iterator[tuple]:
        """Yield ``rows`` (``COLUMNS`` of the ledger) unchanged, noting each one's figures."""
        figures = self.figures
        player, year, ng, before, after, when, key = (
            COLUMNS.index(c)
            for c in (
                "player_id",
                "year",
                "ng_before",
                "rating_before",
                "rating_after",
                "played_at",
                "order_key",
            )
        )
        for row in rows:
            seen = figures.get((row[player], row[year]))
            if seen is None:  # the year's first game: the rating it began from
                figures[row[player], row[year]] = [
                    row[player],
                    row[year],
                    row[after],
                    row[ng] + 1,
                    row[before],
                    row[when],
                    row[key],
                ]
            else:
                seen[2], seen[3], seen[5], seen[6] = row[after], row[ng] + 1, row[when], row[key]
            yield row

    def write(self) -> None:
        """Replace every ``YearRating`` row with the figures seen."""
        YearRating.objects.all().delete()
        _write_rows(YearRating, self.COLUMNS, list(self.figures.values()))


def rebuild(*, progress=None) -> ReplayReport:
    """Rebuild the whole ledger from nothing."""
    return replay_from(None, progress=progress)


def earliest_key_for_tables(table_ids: Iterable[int]) -> str | None:
    """The smallest key among the tables' current ledger rows and their current rated results
    (where a replay must start after those tables changed); None if neither exists. A result
    whose time is out of range has no key: it is left out here (every replay reports it), and
    a malformed stored key gives "" (replay from the first game)."""

    ids = list(set(table_ids))
    if not ids:
        return None
    # No ORDER BY/LIMIT here: the planner would walk the whole order_key index.
    keys = list(LedgerRow.objects.filter(table_id__in=ids).values_list("order_key", flat=True))
    if any(not valid_key(k) for k in keys):
        return ""
    zone = local_zone()
    for table_id, played_at, date, round_number, table_number in Result.objects.filter(
        _rated_results_filter(), table_id__in=ids
    ).values_list(
        "table_id",
        "played_at",
        "table__round__tournament__date",
        "table__round__number",
        "table__number",
    ):
        try:
            when = played_at or default_played_at(date, round_number)
        except (OverflowError, ValueError):
            continue
        instant = _instant(when, zone)
        if instant is not None:
            keys.append(f"{instant[0]}-{round_number:04d}-{table_number:05d}-{table_id:012d}")
    return min(keys) if keys else None
