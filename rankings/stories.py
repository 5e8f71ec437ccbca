"""Players' stories: head to head between two players, and on a player's page the best
partners, the most frequent rivals, zapatos given and received, podiums and tournaments won,
and the rating peak. All from the stored results (every system, through each system's
``outcomes``) and the ledger, in a fixed number of queries whatever the number of games.

Which games count: tables with a result of a published tournament (drafts never) that is a
game played: not a no-show (a forfeit), not a result that no longer holds under its
tournament's settings (``ScoringSystem.outcomes``). Between two players of one table:

- at a table with sides (dominó pairs, individual with rotating partners, mano a mano; Swiss
  matches), they **met** when they sat on opposite sides and were **partners** on the same
  side; the side whose figure is higher won (dominó: tantos a favor as the standings count
  them; Swiss: games won, equal is a drawn match);
- at a table game (3–4 players, no sides), two players at the same table **met**; the one with
  more VP won, equal VP drew; nobody is a partner.

A player's partners, rivals and zapatos read every game of the player, so they are stored
(``PlayerStory``, kept by the background worker: ``rankings.tasks.refresh_stories``, asked
for by ``rankings.signals`` whenever one of the player's tournaments changes); the page reads
the stored row and says "updating" while a request waits. Podiums and the peak are one query
each and stay computed when read.

"For" and "against" are the figures of each: tantos (dominó), games (Swiss) or VP (table
games), so head to head keeps one line per system. The rating exchanged is the sum of the
first player's rating changes in the games they met (the ledger: rated dominó only).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db.models import FilteredRelation, Q
from django.utils import timezone

from clubsite import pagecache
from clubsite.routers import use_replica
from rankings.models import LedgerRow, PlayerStory, StoryRequest
from tournaments import systems
from tournaments.models import Entry, FinalPlace, Player, Seat, Table, Tournament

#: Lines of the player page's lists (partners, rivals) and of head to head's last meetings.
BEST_PARTNERS = 5
FREQUENT_RIVALS = 5
LAST_MEETINGS = 10
#: The podiums a player page names (newest first); the counts are of all of them.
PODIUMS_SHOWN = 10

WIN, DRAW, LOSS = "win", "draw", "loss"


# --- the page cache ------------------------------------------------------------------------------


def story_scope(player_id: int) -> str:
    """The page-cache scope of a player's stored story (``"player:<id>"``): drawn when the
    worker stores it anew (``rankings.tasks.refresh_stories``), named by the player page."""
    return f"player:{player_id}"


def meeting_pages(request, pk, other, *args, **kwargs) -> list[str]:
    """``scopes`` of the head to head of ``pk`` and ``other``: ``RANKING`` (the rating
    exchanged, who plays where) and the two players' story scopes (``story_scope``): a change
    of a tournament either entered asks for their stories again, and the worker renews both
    scopes once they are stored. No query; the same keys however many tournaments they share."""
    return [pagecache.RANKING, story_scope(pk), story_scope(other)]


# --- the games of a player -----------------------------------------------------------------------


@dataclass
class Game:
    """One table with a result that counts (see the module), as the stories read it."""

    table_id: int
    table_number: int
    round_number: int
    tournament_id: int
    tournament: str
    tournament_slug: str
    system: str
    date: dt.date
    has_sides: bool
    outcome: systems.Outcome
    #: player id → (side, entry id, name)
    seats: dict[int, tuple[str, int, str]] = field(default_factory=dict)

    def figure(self, player_id: int) -> int | None:
        side, entry_id, _name = self.seats[player_id]
        return self.outcome.figure(side, entry_id)

    def together(self, a: int, b: int) -> bool:
        """Whether ``a`` and ``b`` were partners (same side of a table with sides)."""
        return self.has_sides and self.seats[a][0] == self.seats[b][0]

    def result(self, a: int, b: int) -> str:
        """``a``'s result against ``b`` (opponents): WIN, DRAW or LOSS."""
        own, other = self.figure(a), self.figure(b)
        return WIN if own > other else LOSS if own < other else DRAW

    def side_result(self, a: int) -> str:
        """The result of ``a``'s side (tables with sides): WIN, DRAW or LOSS."""
        side = self.seats[a][0]
        own = self.outcome.sides.get(side)
        other = self.outcome.sides.get("B" if side == "A" else "A")
        return WIN if own > other else LOSS if own < other else DRAW


def _games(table_ids: list[int]) -> list[Game]:
    """The games (tables with a result that counts) of published tournaments among the
    tables ``table_ids``, with every seated player, in play order (date, round, table).
    Queries, each reading those tables' rows only (by primary key or the seats' index on the
    table, never a join over the whole seat or entry table): the tables with their round
    and tournament (1), their seats (1), the seats' entries with their players' names (1),
    and one per system among them for the outcomes; none without tables."""
    if not table_ids:
        return []
    tables: dict[int, dict] = {}
    for (
        table_id,
        table_number,
        round_number,
        played_at,
        tournament_id,
        tournament,
        slug,
        system,
        date,
    ) in (
        Table.objects.filter(pk__in=table_ids)
        .filter(Tournament.public_q("round__tournament__"))
        .order_by()
        .values_list(
            "pk",
            "number",
            "round__number",
            "round__played_at",
            "round__tournament_id",
            "round__tournament__name",
            "round__tournament__slug",
            "round__tournament__system",
            "round__tournament__date",
        )
    ):
        tables[table_id] = {
            "table_number": table_number,
            "round_number": round_number,
            "tournament_id": tournament_id,
            "tournament": tournament,
            "slug": slug,
            "system": system,
            "date": timezone.localdate(played_at) if played_at else date,
            "seats": {},
        }
    if not tables:
        return []
    seats = list(
        Seat.objects.filter(table_id__in=list(tables))
        .order_by()
        .values_list("table_id", "side", "entry_id")
    )
    players = {
        pk: ((p1, name1), (p2, name2))
        for pk, p1, name1, p2, name2 in Entry.objects.filter(
            pk__in={entry_id for _t, _s, entry_id in seats}
        )
        .order_by()
        .values_list("pk", "player1_id", "player1__full_name", "player2_id", "player2__full_name")
    }
    for table_id, side, entry_id in seats:
        for pid, name in players.get(entry_id, ()):
            if pid is not None:
                tables[table_id]["seats"][pid] = (side, entry_id, name)
    by_system: dict[str, list[int]] = {}
    for table_id, t in tables.items():
        by_system.setdefault(t["system"], []).append(table_id)
    games = []
    for key, ids in by_system.items():
        try:
            system = systems.get(key)
        except systems.UnknownSystem:
            continue
        for table_id, outcome in system.outcomes(ids).items():
            t = tables[table_id]
            games.append(
                Game(
                    table_id=table_id,
                    table_number=t["table_number"],
                    round_number=t["round_number"],
                    tournament_id=t["tournament_id"],
                    tournament=t["tournament"],
                    tournament_slug=t["slug"],
                    system=key,
                    date=t["date"],
                    has_sides=system.has_sides,
                    outcome=outcome,
                    seats=t["seats"],
                )
            )
    games.sort(key=lambda g: (g.date, g.tournament_id, g.round_number, g.table_number))
    return games


def _entries_of(*player_ids: int) -> dict[int, list[int]]:
    """Each of ``player_ids`` → the ids of their entries (player 1 or 2, any tournament). One
    query, through the entries' indexes on either player."""
    out: dict[int, list[int]] = {pid: [] for pid in player_ids}
    rows = Entry.objects.filter(
        Q(player1_id__in=player_ids) | Q(player2_id__in=player_ids)
    ).values_list("pk", "player1_id", "player2_id")
    for pk, p1, p2 in rows:
        for pid in (p1, p2):
            if pid in out:
                out[pid].append(pk)
    return out


def _tables_of(entry_ids: list[int], *, also: list[int] | None = None) -> list[int]:
    """The ids of the tables the entries ``entry_ids`` sat at (``also``: and, among them, only
    those one of the entries ``also`` sat at too). One query over those entries' seats only
    (the seats' index on the entry)."""
    seats = Seat.objects.filter(entry_id__in=entry_ids)
    if also is not None:
        seats = seats.filter(table_id__in=Seat.objects.filter(entry_id__in=also).values("table_id"))
    return list(seats.order_by().values_list("table_id", flat=True).distinct())


# --- head to head --------------------------------------------------------------------------------


@dataclass
class Tally:
    """Games, wins, draws and losses, and the figures for and against, of one kind of game."""

    system: str = ""
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    figures_for: int = 0
    figures_against: int = 0

    def add(self, result: str, own: int | None = None, other: int | None = None) -> None:
        self.games += 1
        self.wins += result == WIN
        self.draws += result == DRAW
        self.losses += result == LOSS
        self.figures_for += own or 0
        self.figures_against += other or 0

    @property
    def label(self) -> str:
        """The system's name for people."""
        return str(systems.get(self.system).label) if self.system else ""

    @property
    def quantity(self) -> str:
        """What the figures count, in words ("tantos", "partidas", "VP")."""
        return str(systems.get(self.system).presentation.score_quantity) if self.system else ""

    @property
    def win_rate(self) -> float | None:
        """Share of the games won, 0–1 (a draw counts half); None without games."""
        return (self.wins + self.draws / 2) / self.games if self.games else None

    @property
    def win_pct(self) -> float | None:
        """``win_rate`` as a percentage (0–100), for the pages."""
        rate = self.win_rate
        return None if rate is None else rate * 100


@dataclass
class Meeting:
    """One game the two players met in, told from the first player's side."""

    date: dt.date
    tournament: str
    tournament_slug: str
    round_number: int
    table_number: int
    system: str
    result: str  # WIN, DRAW, LOSS
    own: int
    other: int
    change: float | None  # the first player's rating change (rated games)

    @property
    def system_label(self) -> str:
        return str(systems.get(self.system).label)


@dataclass
class HeadToHead:
    """Head to head of ``a`` against ``b``: ``total`` (every system), ``by_system`` (one
    ``Tally`` per system, in the registry's order), ``last`` (the latest ``LAST_MEETINGS``
    meetings, newest first), ``exchanged`` (the sum of ``a``'s rating changes in those
    games, None when none was rated), ``partners`` (their games on the same side: ``a``'s
    side's results)."""

    total: Tally
    by_system: list[Tally]
    last: list[Meeting]
    exchanged: float | None
    rated_games: int
    partners: Tally


def head_to_head(a_id: int, b_id: int) -> HeadToHead:
    """Head to head of player ``a_id`` against player ``b_id`` (see the module for what
    counts). A fixed number of queries whatever the number of games, each reading only the
    two players' rows: their entries (1), the tables both sat at (1: their own seats, by the
    seats' index on the entry), those tables' games (``_games``: 3, and the outcomes, one
    per system among them), and ``a``'s ledger rows of the games they met in (1)."""
    entries = _entries_of(a_id, b_id)
    games = _games(_tables_of(entries[a_id], also=entries[b_id]))
    total, partners = Tally(), Tally()
    tallies: dict[str, Tally] = {}
    met = []
    for g in games:
        if a_id not in g.seats or b_id not in g.seats:
            continue
        if g.together(a_id, b_id):
            partners.add(g.side_result(a_id))
            continue
        result, own, other = g.result(a_id, b_id), g.figure(a_id), g.figure(b_id)
        total.add(result)
        tallies.setdefault(g.system, Tally(system=g.system)).add(result, own, other)
        met.append((g, result, own, other))
    changes = {}
    if met:
        changes = {
            table_id: after - before
            for table_id, before, after in LedgerRow.objects.filter(
                player_id=a_id, table_id__in=[g.table_id for g, *_ in met]
            ).values_list("table_id", "rating_before", "rating_after")
        }
    last = [
        Meeting(
            date=g.date,
            tournament=g.tournament,
            tournament_slug=g.tournament_slug,
            round_number=g.round_number,
            table_number=g.table_number,
            system=g.system,
            result=result,
            own=own,
            other=other,
            change=changes.get(g.table_id),
        )
        for g, result, own, other in reversed(met[-LAST_MEETINGS:])
    ]
    order = {key: i for i, key in enumerate(systems.keys())}
    return HeadToHead(
        total=total,
        by_system=sorted(tallies.values(), key=lambda t: order.get(t.system, len(order))),
        last=last,
        exchanged=sum(changes.values()) if changes else None,
        rated_games=len(changes),
        partners=partners,
    )


# --- a player's stories --------------------------------------------------------------------------


@dataclass
class Companion:
    """Another player and ``tally``: the games with them (as partner, or against them)."""

    player_id: int
    name: str
    tally: Tally


@dataclass
class Podium:
    """A final place of 1st–3rd in a finished tournament (``Tournament.final_places``;
    ``shared``: tied, shown "=")."""

    tournament: str
    tournament_slug: str
    date: dt.date
    position: int
    shared: bool


@dataclass
class Peak:
    """The player's highest rating after a game, and when (the first time it was reached)."""

    rating: float
    played_at: dt.datetime
    tournament: str
    tournament_slug: str


@dataclass
class Stories:
    """A player's stories (see the module): ``partners`` (the most games together, then the
    best share won: at most ``BEST_PARTNERS``), ``rivals`` (the most games against: at most
    ``FREQUENT_RIVALS``), ``zapatos_given``/``zapatos_received``, ``podiums`` (newest first,
    at most ``PODIUMS_SHOWN``), ``podium_count``, ``wins`` (tournaments won, 1st place
    shared or not), ``peak`` (None without rated games), ``updating`` (a change of the
    player's games waits for the worker: partners, rivals and zapatos are the stored ones,
    from before it)."""

    partners: list[Companion]
    rivals: list[Companion]
    zapatos_given: int
    zapatos_received: int
    podiums: list[Podium]
    podium_count: int
    wins: int
    peak: Peak | None
    updating: bool = False

    @property
    def any(self) -> bool:
        return bool(
            self.partners
            or self.rivals
            or self.zapatos_given
            or self.zapatos_received
            or self.podium_count
            or self.peak
        )


def _ranked(companions: dict[int, Companion], size: int, *, by_share_won: bool) -> list[Companion]:
    """The first ``size`` of ``companions``: the most games first; among equals, the best
    share won first when ``by_share_won`` (best partners), else none (most frequent rivals:
    games played against them, won and lost alike); then by name and id."""
    return sorted(
        companions.values(),
        key=lambda c: (
            -c.tally.games,
            -(c.tally.win_rate or 0) if by_share_won else 0,
            c.name,
            c.player_id,
        ),
    )[:size]


def podiums(player_id: int) -> list[Podium]:
    """The player's final places 1–3 in finished, published tournaments, newest first: the
    stored final places (``FinalPlace``, kept equal to ``Tournament.final_places``,
    SCORING.md §9), so an entry that played no game there (a withdrawn one with only a bye)
    has no podium. One query, from the player's entries (an index): each entry of a finished
    tournament with the player's stored row; a finished tournament without rows yet has them
    stored first (``FinalPlace.objects.store``), then the query is read again."""
    mine = Q(player1_id=player_id) | Q(player2_id=player_id)

    def read():
        return list(
            Entry.objects.filter(mine, tournament__status=Tournament.Status.FINISHED)
            .annotate(
                stored=FilteredRelation(
                    "stored_places", condition=Q(stored_places__player_id=player_id)
                )
            )
            .order_by("-tournament__date", "-tournament_id")
            .values_list(
                "tournament_id",
                "tournament__name",
                "tournament__slug",
                "tournament__date",
                "stored__id",
                "stored__place",
                "stored__shared",
            )
        )

    rows = read()
    missing = {row[0] for row in rows if row[4] is None}
    if missing and FinalPlace.objects.store(missing):
        with use_replica(False):  # what was just written, not a lagging replica
            rows = read()
    return [
        Podium(name, slug, date, place, shared)
        for _pk, name, slug, date, _stored, place, shared in rows
        if place is not None and place <= 3
    ]


def peak(player_id: int) -> Peak | None:
    """The player's highest rating after a rated game of a published tournament, the first
    time it was reached; None without rated games. One query."""
    row = (
        LedgerRow.objects.filter(player_id=player_id)
        .filter(Tournament.public_q("tournament__"))
        .order_by("-rating_after", "order_key")
        .values_list("rating_after", "played_at", "tournament__name", "tournament__slug")
        .first()
    )
    return Peak(*row) if row else None


def story_figures(player_id: int) -> dict:
    """The stored part of player ``player_id``'s stories, computed from all their games (see
    the module): ``{"partners": [[player_id, name, games, wins, draws, losses, figures_for,
    figures_against], ...]`` (at most ``BEST_PARTNERS``, ``_ranked``'s order), ``"rivals":
    [...]`` (at most ``FREQUENT_RIVALS``, same shape), ``"zapatos_given": n,
    "zapatos_received": n}`` (JSON, what ``PlayerStory.figures`` holds). Queries, whatever the
    number of games, each reading that player's rows only: the player's entries (1), the
    tables they sat at (1, their own seats by the seats' index on the entry), those tables'
    games (``_games``: 3, and the outcomes, one per system among them)."""
    partners: dict[int, Companion] = {}
    rivals: dict[int, Companion] = {}
    given = received = 0
    for g in _games(_tables_of(_entries_of(player_id)[player_id])):
        if player_id not in g.seats:
            continue
        side = g.seats[player_id][0]
        for other, (_side, _entry, name) in g.seats.items():
            if other == player_id:
                continue
            if g.together(player_id, other):
                partners.setdefault(other, Companion(other, name, Tally())).tally.add(
                    g.side_result(player_id)
                )
            else:
                rivals.setdefault(other, Companion(other, name, Tally())).tally.add(
                    g.result(player_id, other), g.figure(player_id), g.figure(other)
                )
        if g.outcome.zapato:
            if g.outcome.zapato == side:
                given += 1
            else:
                received += 1

    def rows(companions: dict[int, Companion], size: int, by_share_won: bool) -> list[list]:
        return [
            [c.player_id, c.name]
            + [c.tally.games, c.tally.wins, c.tally.draws, c.tally.losses]
            + [c.tally.figures_for, c.tally.figures_against]
            for c in _ranked(companions, size, by_share_won=by_share_won)
        ]

    return {
        "partners": rows(partners, BEST_PARTNERS, by_share_won=True),
        "rivals": rows(rivals, FREQUENT_RIVALS, by_share_won=False),
        "zapatos_given": given,
        "zapatos_received": received,
    }


def player_stories(player_id: int) -> Stories:
    """The stories of player ``player_id`` (see ``Stories``). Queries, whatever the number of
    games and tournaments: whether a ``StoryRequest`` of the player waits (1, read first: a
    refresh that commits in between shows its figures under the notice, never older ones
    without it), the stored ``PlayerStory`` (1), the partners' and rivals' names now (1, when
    there are any: the stored ones only order them), the podiums (1: the stored final places,
    ``podiums``), the peak (1). A player without a stored story has it computed here
    (``story_figures``) and inserted unless a row appeared meanwhile (``as_of`` 0: the
    worker's next refresh replaces it; a reader never overwrites a row)."""
    updating = StoryRequest.objects.filter(player_id=player_id).exists()
    figures = PlayerStory.objects.filter(player_id=player_id).values_list("figures", flat=True)
    figures = figures.first()
    if figures is None:
        figures = story_figures(player_id)
        PlayerStory.objects.bulk_create(
            [PlayerStory(player_id=player_id, figures=figures, as_of=0)], ignore_conflicts=True
        )
    ids = {row[0] for row in figures["partners"] + figures["rivals"]}
    names = dict(Player.objects.filter(pk__in=ids).values_list("pk", "full_name")) if ids else {}

    def companions(rows: list[list]) -> list[Companion]:
        return [Companion(pk, names.get(pk, name), Tally("", *tally)) for pk, name, *tally in rows]

    found = podiums(player_id)
    return Stories(
        partners=companions(figures["partners"]),
        rivals=companions(figures["rivals"]),
        zapatos_given=figures["zapatos_given"],
        zapatos_received=figures["zapatos_received"],
        podiums=found[:PODIUMS_SHOWN],
        podium_count=len(found),
        wins=sum(1 for p in found if p.position == 1),
        peak=peak(player_id),
        updating=updating,
    )
