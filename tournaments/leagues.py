"""Read side of the leagues (docs/SCORING.md, "Leagues"): a league's table and a player's
league positions, from the database to the pure rules (``tournaments.scoring.league``) and
back as plain dataclasses for the pages and the downloads.

Which tournaments a public table shows: the league's published ones (not drafts), oldest
first (by date, then as they were created): finished ones count; running ones show
provisional points; those open for registration have no places yet (an empty column).

A tournament's places are its final places (``Tournament.final_places``, SCORING.md §9: the
standings' order among the entries that played at least one game there, sat at a table with a
result; shared places stay shared): an entry registered but never seated, or withdrawn with
only a bye, takes no place and moves nobody down (a place is 1 + the entries that played and
stand strictly above). Every player of an entry takes its place (pairs credit both partners).

Queries: the league (or the player's leagues) and its tournaments in two, the players' names
in one, and the tournaments' places: the finished ones' stored final places in one
(``models.stored_places``, ``FinalPlace``), the running ones' ``Tournament.final_places_of``'s
fixed number (who played, for all of them at once; per scoring system, its standings'). On the site (the page cache on) a tournament's places
are kept in the shared cache under the generations of its pages (``clubsite.pagecache``): a
change of its data draws a new one, so what is kept is never older than what its own pages
show, and a league table or a player page whose tournaments have not changed reads every
place in two queries (the generations, the places).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.core.cache import caches
from django.core.paginator import Page, Paginator
from django.db.models import Q
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete
from django.utils.translation import gettext

from clubsite import pagecache
from clubsite.routers import use_replica
from tournaments.errors import DomainError
from tournaments.exports import csv_text, xlsx_bytes
from tournaments.models import Entry, League, Player, Tournament, stored_places
from tournaments.scoring import league as rules

log = logging.getLogger(__name__)

#: The page-cache scope of what a league's own row says (name, scale, its tournaments): the
#: league pages and the player pages name it; saving or deleting a league, or changing its
#: tournaments, draws it anew (``connect_signals``).
LEAGUES = "leagues"
#: The most leagues a player page shows (the newest seasons first).
PLAYER_LEAGUES_SHOWN = 6
#: The fewest lines a page of a league table holds, however many tournaments it has
#: (``league_table(max_cells=...)``).
MIN_PAGE_LINES = 12
#: Where a tournament's places are kept in the shared cache (``tournament_places``).
PLACES_KEY_PREFIX = "clubsite:league-places:"

_SCORED = (Tournament.Status.RUNNING, Tournament.Status.FINISHED)


# --- the page cache -------------------------------------------------------------------------------


def _league_changed(sender, using=None, action="post_", **kwargs) -> None:
    if action.startswith("post_"):
        pagecache.changed(LEAGUES, using=using)


def league_scope(slug: str) -> str:
    """The page-cache scope of league ``slug``'s table: ``"league:<slug>"``, drawn with the
    scope of any of its tournaments (``_with_tournaments``)."""
    return f"league:{slug}"


_TOURNAMENT_SCOPE = pagecache.tournament_scope("")


def _with_tournaments(scopes: frozenset[str]) -> list[str]:
    """``pagecache.derive``: the scopes of the leagues of the tournaments among ``scopes``
    (whatever changed in a tournament, its standings, name, date or status, changes the
    tables of its leagues). One query, only when a tournament's scope is drawn."""
    slugs = [s[len(_TOURNAMENT_SCOPE) :] for s in scopes if s.startswith(_TOURNAMENT_SCOPE)]
    if not slugs:
        return []
    found = (
        League.objects.filter(tournaments__slug__in=slugs).values_list("slug", flat=True).distinct()
    )
    return [league_scope(s) for s in found]


def _tournament_deleting(sender, instance, using=None, **kwargs) -> None:
    """A tournament about to be deleted: its leagues' scopes are drawn when the deletion
    commits (its links to them are gone by then, so ``_with_tournaments`` cannot find them)."""
    slugs = list(instance.leagues.values_list("slug", flat=True))
    if slugs:
        pagecache.changed(*(league_scope(s) for s in slugs), using=using)


def connect_signals() -> None:
    """Draw a new generation of ``LEAGUES`` whenever a league is saved or deleted or its
    tournaments change, whatever the path (services, admin, shell), and of a league's own
    scope (``league_scope``) with any of its tournaments' (``pagecache.derive``) and when one
    of them is deleted. Called by the app's ``ready()``."""
    uid = "tournaments.leagues"
    post_save.connect(_league_changed, sender=League, dispatch_uid=uid + ":save")
    post_delete.connect(_league_changed, sender=League, dispatch_uid=uid + ":delete")
    m2m_changed.connect(
        _league_changed, sender=League.tournaments.through, dispatch_uid=uid + ":tournaments"
    )
    pre_delete.connect(_tournament_deleting, sender=Tournament, dispatch_uid=uid + ":deleting")
    pagecache.derive(_with_tournaments)


def league_scopes(slug: str) -> list[str]:
    """The page-cache scopes of league ``slug``'s pages: ``LEAGUES`` (a league saved, its
    tournaments added or removed) and ``league_scope(slug)`` (drawn with any of its
    tournaments' scopes: their standings, names, dates and statuses). Not ``CLUB``, which
    every first result of a table in any tournament draws. No query: a hit reads three keys
    (with ``ALL``) however many tournaments the league has."""
    return [LEAGUES, league_scope(slug)]


class _Kept:
    """The last ``limit`` values computed in this process, by key (least recently used out
    first), safe across threads: ``_scored_table``'s league tables, ``player_scopes``' lists.
    Keys carry the version of what the value is made of, so nothing kept is ever stale."""

    def __init__(self, limit: int):
        self.limit = limit
        self._values: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            found = self._values.get(key)
            if found is not None:
                self._values.move_to_end(key)
            return found

    def put(self, key, value) -> None:
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self.limit:
                self._values.popitem(last=False)


#: Player pages' league scopes kept in this process (``player_scopes``).
_player_scopes = _Kept(4096)


def player_scopes(player_id: int) -> list[str]:
    """The page-cache scopes of the league positions on player ``player_id``'s page:
    ``LEAGUES`` and the scope of every league the player has an entry in (``league_scope``):
    a player who joins or leaves a league gets another list, hence another key.

    Which leagues those are changes only with writes that draw ``CLUB`` (an entry of any
    tournament, a tournament's status) or ``LEAGUES`` (a league, its tournaments), so the list
    is kept in this process under those two generations (read in one cache round trip: a hit
    on the player page makes no query for it); a query (``_leagues_of``) when either changed,
    or always when the page cache is off. Tokens read before the query: a change that commits
    in between stores newer data under the older tokens, never read again."""
    tokens: dict[str, str | None] = {}
    if pagecache.enabled():
        try:
            tokens = pagecache.generations([pagecache.CLUB, LEAGUES])
        except Exception:  # the cache is down: the query, as without cache
            log.exception("page cache: could not read the generations of a player's leagues")
    key = (player_id, tokens.get(pagecache.CLUB), tokens.get(LEAGUES))
    kept = None not in key
    found = _player_scopes.get(key) if kept else None
    if found is not None:
        return list(found)
    slugs = _leagues_of(player_id).order_by("slug").values_list("slug", flat=True)
    scopes = (LEAGUES, *(league_scope(s) for s in slugs))
    if kept:
        _player_scopes.put(key, scopes)
    return list(scopes)


# --- a tournament's places ------------------------------------------------------------------------


def _compute_places(tournaments: Sequence[Tournament]) -> dict[int, rules.TournamentPlaces]:
    """The places of ``tournaments`` (running or finished), each player of a placed entry
    holding its place: a finished one's stored final places (``models.stored_places``: one
    query for all of them), a running one's provisional places computed
    (``Tournament.final_places_of``)."""
    finished = [t for t in tournaments if t.status == Tournament.Status.FINISHED]
    running = [t for t in tournaments if t.status != Tournament.Status.FINISHED]
    out = {}
    for pk, rows in stored_places(finished).items():
        out[pk] = rules.TournamentPlaces(
            tournament_id=pk,
            placings=tuple(
                rules.Placing(row.player_id, row.place, row.shared)
                for row in rows
                if row.place is not None
            ),
            finished=True,
        )
    for pk, lines in Tournament.final_places_of(running).items():
        placings = [
            rules.Placing(player_id, line.place, line.place_shared)
            for line in lines
            if line.place is not None
            for player_id in line.entry.player_ids()
        ]
        out[pk] = rules.TournamentPlaces(tournament_id=pk, placings=tuple(placings), finished=False)
    return out


def _places_key(t: Tournament, tokens: dict) -> str | None:
    scope = pagecache.tournament_scope(t.slug)
    if tokens.get(pagecache.ALL) is None or tokens.get(scope) is None:
        return None
    parts = (
        pagecache.deploy_mark(),
        str(t.pk),
        t.slug,
        t.status,
        tokens[pagecache.ALL],
        tokens[scope],
    )
    return PLACES_KEY_PREFIX + hashlib.sha256("\n".join(parts).encode()).hexdigest()


def tournament_places(tournaments: Iterable[Tournament]) -> dict[int, rules.TournamentPlaces]:
    """The places of each of ``tournaments`` that is running or finished, by tournament id
    (the others have none). With the page cache on, kept in the shared cache under the
    generations of the tournament's pages, read before the places are computed (from the
    primary): a change that commits meanwhile draws a new generation, so nothing older than
    the pages is ever kept under the new one (the page cache's own rule)."""
    scored = [t for t in tournaments if t.status in _SCORED]
    if not scored or not pagecache.enabled():
        return _compute_places(scored)
    cache = caches["default"]
    try:
        tokens = pagecache.generations(
            [pagecache.ALL, *(pagecache.tournament_scope(t.slug) for t in scored)]
        )
        keys = {t.pk: _places_key(t, tokens) for t in scored}
        found = cache.get_many([k for k in keys.values() if k])
    except Exception:  # the cache server is down: computed, as without it
        log.exception("league places: the shared cache is unavailable")
        return _compute_places(scored)
    out = {pk: found[k] for pk, k in keys.items() if k in found}
    missing = [t for t in scored if t.pk not in out]
    with use_replica(False):  # what is kept is read from the primary, never a lagging replica
        computed = _compute_places(missing)
    out.update(computed)
    to_keep = {keys[pk]: places for pk, places in computed.items() if keys[pk]}
    if to_keep:
        try:
            cache.set_many(to_keep, pagecache.PAGE_TIMEOUT)
        except Exception:
            log.exception("league places: could not keep them in the shared cache")
    return out


# --- a league's table ----------------------------------------------------------------------------


@dataclass
class TournamentColumn:
    """One tournament of a league table: its number in the league (1 = the oldest), and
    whether its points count (``finished``) or are provisional (``running``)."""

    number: int
    tournament: Tournament

    @property
    def finished(self) -> bool:
        return self.tournament.status == Tournament.Status.FINISHED

    @property
    def running(self) -> bool:
        return self.tournament.status == Tournament.Status.RUNNING


@dataclass
class LeagueCell:
    """A player's cell under one column: the result (None: did not play it)."""

    column: TournamentColumn
    result: rules.LeagueResult | None


@dataclass
class TableLine:
    """One player's line: the pure ``LeagueLine``, the player, a cell per column."""

    line: rules.LeagueLine
    player: Player
    cells: list[LeagueCell] = field(default_factory=list)


@dataclass
class LeagueTable:
    """A league's table: its ``columns`` (tournaments, oldest first), its ``lines`` (best
    first; players sharing a position by name; one page of them when ``page`` is set), the
    scale, how many tournaments are finished and how many are left (None: the number planned
    is not known). ``any_shared``, ``any_discarded`` and ``line_of`` look at ``lines``."""

    league: League
    columns: list[TournamentColumn]
    lines: list[TableLine]
    scale: tuple[int, ...]
    finished: int
    left: int | None
    #: The Django ``Page`` of ``lines`` when the table is paged (``league_table(page=...)``).
    page: Page | None = None
    #: How many lines the whole table has (``lines`` may be one page of them).
    players: int = 0

    @property
    def any_shared(self) -> bool:
        return any(t.line.shared for t in self.lines)

    @property
    def any_discarded(self) -> bool:
        return any(c.result and c.result.discarded for t in self.lines for c in t.cells)

    @property
    def any_provisional(self) -> bool:
        return any(c.running for c in self.columns)

    def line_of(self, player_id: int) -> TableLine | None:
        return next((t for t in self.lines if t.player.pk == player_id), None)

    @property
    def unannounced(self) -> int:
        """How many of the tournaments ``left`` are not among ``columns`` yet (planned, not
        announced): "quedan 3 torneos, 1 sin anunciar" next to two listed still to play. 0
        when the number planned is not known."""
        if self.left is None:
            return 0
        return max(0, self.left - (len(self.columns) - self.finished))


def league_scale(league: League) -> tuple[int, ...]:
    """The league's points scale (``rules.parse_scale`` of the stored text; a stored value the
    rules refuse, typed by hand, gives no points)."""
    try:
        return rules.parse_scale(league.points_scale)
    except DomainError:
        return ()


def _scored(
    league: League, tournaments: list[Tournament], places: dict[int, rules.TournamentPlaces]
) -> list[rules.LeagueLine]:
    """The pure league table of ``tournaments`` (oldest first) from their ``places``."""
    return rules.standings(
        [places[t.pk] for t in tournaments if t.pk in places],
        scale=league_scale(league),
        participation=league.participation_points,
        best=league.best_results,
    )


#: How many leagues' tables each process keeps (``_scored_table``).
KEPT_TABLES = 16
_kept = _Kept(KEPT_TABLES)


def _scored_table(
    league: League, tournaments: list[Tournament]
) -> tuple[dict[int, rules.TournamentPlaces], list[rules.LeagueLine]]:
    """``(places, lines)`` of ``league`` over ``tournaments``: ``tournament_places`` and
    ``_scored``, kept in this process (the last ``KEPT_TABLES`` leagues) under the version of
    what they are made of, so that a league's table is scored once per change of its data and
    a player page or a page of the table only reads that version: the league's scale and its
    settings, its tournaments (ids and statuses) and, when every one is finished, their stored
    final places (how many rows and the largest id: a finished tournament's rows are deleted
    and stored again, with new ids, whenever it changes). One query for the version; with a
    running tournament nothing is kept (its provisional places change with every result)."""
    from django.db.models import Count, Max

    from tournaments.models import FinalPlace

    finished = [t.pk for t in tournaments if t.status == Tournament.Status.FINISHED]
    if len(finished) != len(tournaments) or not tournaments:
        places = tournament_places(tournaments)
        return places, _scored(league, tournaments, places)
    version = FinalPlace.objects.filter(tournament_id__in=finished).aggregate(
        n=Count("id"), last=Max("id")
    )
    key = (
        league.pk,
        league.points_scale,
        league.participation_points,
        league.best_results,
        tuple(finished),
        version["n"],
        version["last"],
    )
    found = _kept.get(key)
    if found is not None:
        return found
    places = tournament_places(tournaments)
    found = (places, _scored(league, tournaments, places))
    _kept.put(key, found)
    return found


def _finished(tournaments: Iterable[Tournament]) -> int:
    return sum(1 for t in tournaments if t.status == Tournament.Status.FINISHED)


def _published(qs):
    """The tournaments of ``qs`` a public table shows (``Tournament.objects.public``), oldest
    first."""
    return qs.public().order_by("date", "pk")


_NAME_FIELDS = ("id", "full_name", "name_key")


def _names(places: Iterable[rules.TournamentPlaces]) -> dict[int, tuple]:
    """The ``_NAME_FIELDS`` of every player placed in ``places``, by id (one query, no model
    instance: a page builds a ``Player`` for each of its own lines only)."""
    ids = {p.player_id for t in places for p in t.placings}
    return {row[0]: row for row in Player.objects.filter(pk__in=ids).values_list(*_NAME_FIELDS)}


def league_table(
    league: League,
    page: str | int | None = None,
    *,
    per_page: int = 100,
    orphans: int = 0,
    max_cells: int | None = None,
) -> LeagueTable:
    """The public table of ``league`` (SCORING.md "Leagues"): its published tournaments as
    columns, every player who played one as a line, best first (players sharing a position by
    name key, then id).

    Without ``page`` (the downloads, the tests) ``lines`` holds every line. With it (the
    league page's ``?page=``, as typed) a table of more than ``per_page`` + ``orphans`` lines
    is paged like the tournament standings: ``lines`` holds that page's lines and ``page`` is
    the Django ``Page`` (None when everything fits on one); text that is not a number shows the
    first page, a number out of range the last. ``max_cells`` bounds a page of a wide table:
    at most that many cells (lines × tournaments), but never fewer than ``MIN_PAGE_LINES`` lines
    (a league of 50 tournaments: 12 lines a page for 600 cells). Paging only slices what is built: positions
    and ties are those of the whole table (the pure rules score every player), but the
    ``Player`` rows and the cells are made for the lines shown only.

    Queries: the tournaments (1), their places (``tournament_places``), the players' names
    (1)."""
    tournaments = list(_published(league.tournaments.all()))
    places, scored = _scored_table(league, tournaments)
    names = _names(places.values())
    columns = [TournamentColumn(n, t) for n, t in enumerate(tournaments, start=1)]
    scored = sorted(scored, key=lambda ln: (ln.position, names[ln.player_id][2], ln.player_id))
    shown, table_page = scored, None
    if page is not None:
        if max_cells:
            per_page = min(per_page, max(MIN_PAGE_LINES, max_cells // max(1, len(columns))))
            orphans = min(orphans, per_page // 10)
        paged = Paginator(scored, per_page, orphans=orphans).get_page(page)
        if paged.has_other_pages():
            shown, table_page = paged.object_list, paged
    lines = [
        TableLine(
            line=line,
            player=Player.from_db(Player.objects.db, _NAME_FIELDS, names[line.player_id]),
            cells=[LeagueCell(c, line.results.get(c.tournament.pk)) for c in columns],
        )
        for line in shown
    ]
    finished = _finished(tournaments)
    return LeagueTable(
        league=league,
        columns=columns,
        lines=lines,
        scale=league_scale(league),
        finished=finished,
        left=rules.tournaments_left(league.planned_tournaments, finished),
        page=table_page,
        players=len(scored),
    )


# --- a player's leagues --------------------------------------------------------------------------


def _leagues_of(player_id: int):
    """The leagues with a running or finished tournament the player has an entry in. One
    query that reads the player's entries by the indexes on player 1 and player 2 (two
    subqueries: a join on either player would scan every entry of the club)."""
    entered = Q(tournaments__in=Entry.objects.filter(player1_id=player_id).values("tournament_id"))
    entered |= Q(tournaments__in=Entry.objects.filter(player2_id=player_id).values("tournament_id"))
    return League.objects.filter(entered, tournaments__status__in=_SCORED).distinct()


@dataclass
class PlayerLeague:
    """A player's position in one league: ``line`` (None while they have no place in it yet),
    how many players the table has, how many tournaments are finished and left."""

    league: League
    line: rules.LeagueLine | None
    players: int
    finished: int
    left: int | None


def player_leagues(player: Player, *, limit: int = PLAYER_LEAGUES_SHOWN) -> list[PlayerLeague]:
    """The player's leagues, newest season first (at most ``limit``), with their position in
    each. Queries: the leagues (1), which tournaments each has (1), those tournaments (1), and
    per league its table's (``_scored_table``: the version, and the places when they changed)."""
    leagues = list(_leagues_of(player.pk).order_by("-season", "name", "pk")[:limit])
    if not leagues:
        return []
    links = list(
        League.tournaments.through.objects.filter(
            league_id__in=[lg.pk for lg in leagues]
        ).values_list("league_id", "tournament_id")
    )
    tournaments = {
        t.pk: t for t in _published(Tournament.objects.filter(pk__in={t for _, t in links}))
    }
    out = []
    for lg in leagues:
        mine = sorted(
            (tournaments[t] for league_id, t in links if league_id == lg.pk and t in tournaments),
            key=lambda t: (t.date, t.pk),
        )
        _places, lines = _scored_table(lg, mine)
        finished = _finished(mine)
        out.append(
            PlayerLeague(
                league=lg,
                line=next((ln for ln in lines if ln.player_id == player.pk), None),
                players=len(lines),
                finished=finished,
                left=rules.tournaments_left(lg.planned_tournaments, finished),
            )
        )
    return out


# --- downloads (tournaments.exports' conventions) -------------------------------------------------


def league_header(table: LeagueTable) -> tuple[str, ...]:
    """The league CSV's columns: ``position``, ``player``, ``total``, ``wins``, ``best_place``,
    ``played`` (finished tournaments taken part in), then three per tournament, oldest first,
    named by its slug: ``<slug>_place``, ``<slug>_points`` and ``<slug>_status``
    ("counted", "discarded" or "provisional"; all three empty when the player did not play
    it)."""
    per = [
        f"{c.tournament.slug}_{what}"
        for c in table.columns
        for what in ("place", "points", "status")
    ]
    return ("position", "player", "total", "wins", "best_place", "played", *per)


def league_rows(table: LeagueTable) -> list[list]:
    """The league table as typed rows under ``league_header``, best first: whole numbers,
    the player's name as text (``exports.safe_text`` in a CSV), a position shared by level
    players (1, 2, 2, 4)."""
    rows = []
    for t in table.lines:
        row = [
            t.line.position,
            t.player.full_name,
            t.line.total,
            t.line.wins,
            t.line.best_place,
            t.line.played,
        ]
        for cell in t.cells:
            r = cell.result
            row += [None, None, None] if r is None else [r.position, r.points, r.status]
        rows.append(row)
    return rows


def league_csv(table: LeagueTable) -> str:
    """The league table as CSV text (``league_header``, ``league_rows``), without the BOM
    (the download writes it first). Every figure is a whole number: the exact form
    (``?precision=full``) is the same."""

    return csv_text(league_header(table), league_rows(table))


def league_xlsx(table: LeagueTable) -> bytes:
    """The league table as an .xlsx workbook, one worksheet named "Liga" (translated)."""

    return xlsx_bytes(league_header(table), league_rows(table), title=gettext("Liga"))


__all__ = [
    "LEAGUES",
    "LeagueTable",
    "PlayerLeague",
    "connect_signals",
    "league_scopes",
    "league_csv",
    "league_header",
    "league_rows",
    "league_table",
    "league_xlsx",
    "player_leagues",
    "player_scopes",
    "tournament_places",
]
