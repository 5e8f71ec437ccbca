"""Leagues: points by final position over the tournaments of a season, the best N results,
the league's order and its tiebreaks (docs/SCORING.md, "Leagues").

Pure Python (no Django), whole numbers throughout. The inputs are plain: each tournament of
the league, oldest first, with the final place of every player who took part
(``TournamentPlaces``); the output is one ``LeagueLine`` per player, best first.

The rule, as SCORING.md "Leagues" states it:

- **Points of a result** = the scale's value for the place (``scale[place - 1]``; 0 past the
  scale's end) + the participation points. A place shared in a tournament's standings (shown
  "=") gives each player who shares it the points of that place: two players =2 both take the
  points of 2nd, and the next player is 4th.
- **Pairs** credit both partners: each player of an entry takes the entry's place (the query
  layer turns entries into players; a player with two places in one tournament keeps the best).
- **Which results count:** only tournaments marked ``finished``. A running tournament's points
  are shown as provisional and count for nothing (not in the total, the discards nor the
  tiebreaks).
- **Best N:** with ``best`` set, a player's ``best`` highest results count and the others are
  discarded (shown struck through); among results of equal points the earlier tournament's is
  kept (which one is struck changes no total). ``best`` None: every result counts.
- **Order:** the total, high to low; players level on it are ordered by, each step only among
  those still level:

  1. more tournament wins (places 1, shared or not, in finished tournaments, discarded results
     included);
  2. the better best single placing (the lowest place in any finished tournament);
  3. the last tournament: among the finished tournaments every one of them took part in, from
     the most recent back, the first in which their places differ orders them by their place
     there; a smaller group it leaves level is ordered by the same rule among its own members;
  4. still level: they share the position (shown "=").

Units: places are 1-based positions (1, 2, 2, 4 when 2nd is shared); points are whole numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tournaments.errors import DomainError
from tournaments.scoring.ordering import Tiebreak, rank

#: The most values a points scale may have (SCORING.md "Leagues").
MAX_SCALE_VALUES = 50
#: The most points one place (or taking part) may give: anything above is a typing error.
MAX_POINTS = 9999
#: ``LeagueLine.decided_by`` of each tiebreak, in order (SCORING.md "Leagues").
WINS = "wins"
BEST_PLACE = "best_place"
LAST_TOURNAMENT = "last_tournament"
TIEBREAKS = (WINS, BEST_PLACE, LAST_TOURNAMENT)


def parse_scale(text) -> tuple[int, ...]:
    """The points for 1st, 2nd, 3rd… from ``text`` as a director types it ("25, 18, 15"):
    whole numbers from 0 to ``MAX_POINTS`` separated by commas (spaces around them ignored, a
    comma at the end too), never rising from one place to the next, at most
    ``MAX_SCALE_VALUES`` of them.

    Raises DomainError "league_scale_empty" (nothing typed), "league_scale_value" (a value
    that is not such a number: ``value`` quotes it, ``place`` is its place),
    "league_scale_too_long" (more than ``MAX_SCALE_VALUES``), "league_scale_order" (a place
    worth more than the one before it: ``place``)."""
    raw = "" if text is None else str(text).strip()
    if not raw:
        raise DomainError("league_scale_empty")
    items = [item.strip() for item in raw.split(",")]
    if len(items) > 1 and items[-1] == "":
        items.pop()  # "25,18,15," — a comma left at the end
    if len(items) > MAX_SCALE_VALUES:
        raise DomainError("league_scale_too_long", count=len(items), max=MAX_SCALE_VALUES)
    values: list[int] = []
    for place, item in enumerate(items, start=1):
        if not (item.isascii() and item.isdigit()) or int(item) > MAX_POINTS:
            shown = item if len(item) <= 20 else item[:20] + "…"
            raise DomainError("league_scale_value", value=shown, place=place, max=MAX_POINTS)
        values.append(int(item))
    for place in range(1, len(values)):
        if values[place] > values[place - 1]:
            raise DomainError("league_scale_order", place=place + 1, before=place)
    return tuple(values)


def scale_text(scale: Sequence[int]) -> str:
    """A scale as it is stored: "25,18,15" (no spaces)."""
    return ",".join(str(v) for v in scale)


def place_points(place: int, scale: Sequence[int], participation: int = 0) -> int:
    """The points of finishing at ``place`` (1-based): the scale's value for that place (0 past
    its end) plus ``participation``."""
    return (scale[place - 1] if 1 <= place <= len(scale) else 0) + participation


def tournaments_left(planned: int | None, finished: int) -> int | None:
    """How many of the season's tournaments are still to be played: ``planned`` − the
    ``finished`` ones, never below 0; None when the number planned is not known."""
    if planned is None:
        return None
    return max(0, planned - finished)


@dataclass(frozen=True)
class Placing:
    """A player's final place in one tournament: ``position`` (1-based), ``shared`` when the
    tournament's standings show it "=" (level with someone else)."""

    player_id: int
    position: int
    shared: bool = False


@dataclass(frozen=True)
class TournamentPlaces:
    """One tournament of the league: the places of the players who took part, and whether it
    is ``finished`` (its points count) or still running (provisional)."""

    tournament_id: int
    placings: tuple[Placing, ...]
    finished: bool = True


@dataclass(frozen=True)
class LeagueResult:
    """A player's result in one tournament of the league. ``status``: "counted" (in the
    total), "discarded" (outside the best N) or "provisional" (a running tournament)."""

    tournament_id: int
    position: int
    shared: bool
    points: int
    status: str

    @property
    def counted(self) -> bool:
        return self.status == COUNTED

    @property
    def discarded(self) -> bool:
        return self.status == DISCARDED

    @property
    def provisional(self) -> bool:
        return self.status == PROVISIONAL


COUNTED = "counted"
DISCARDED = "discarded"
PROVISIONAL = "provisional"


@dataclass(frozen=True)
class LeagueLine:
    """One player's line of the league table: ``position`` (1-based; level players share it,
    ``shared`` True, the next skipping: 1, 2, 2, 4), ``total`` (the counted points), ``wins``
    and ``best_place`` (None without a finished result), ``played`` (finished tournaments
    taken part in), ``results`` by tournament id, ``decided_by`` (None or one of
    ``TIEBREAKS``: the tiebreak that separated the player from someone level on total)."""

    player_id: int
    position: int
    shared: bool
    total: int
    wins: int
    best_place: int | None
    played: int
    decided_by: str | None
    results: dict[int, LeagueResult] = field(default_factory=dict)


def _places(tournaments: Sequence[TournamentPlaces]) -> dict[int, dict[int, Placing]]:
    """player → tournament → placing; a player listed twice in one tournament keeps the best.
    Raises ValueError for a tournament listed twice or a place that is not a whole number ≥ 1
    (the query layer never passes them)."""
    if len({t.tournament_id for t in tournaments}) != len(tournaments):
        raise ValueError("a tournament is listed twice")
    out: dict[int, dict[int, Placing]] = {}
    for t in tournaments:
        for p in t.placings:
            if isinstance(p.position, bool) or not isinstance(p.position, int) or p.position < 1:
                raise ValueError(f"place {p.position!r} of player {p.player_id}: not 1 or more")
            mine = out.setdefault(p.player_id, {})
            old = mine.get(t.tournament_id)
            if old is None or p.position < old.position:
                mine[t.tournament_id] = p
    return out


def standings(
    tournaments: Sequence[TournamentPlaces],
    *,
    scale: Sequence[int],
    participation: int = 0,
    best: int | None = None,
) -> list[LeagueLine]:
    """The league table (SCORING.md "Leagues"), best first.

    ``tournaments``: the league's tournaments, oldest first (the order the "last tournament"
    tiebreak reads back from). ``scale``: points for 1st, 2nd… (``parse_scale``);
    ``participation``: points every result adds; ``best``: how many results of each player
    count (None: all). Every player with a place in any of the tournaments has a line; one
    with provisional results only has a total of 0. Level players sharing a position are
    listed by player id (the caller sorts them by name)."""
    order = {t.tournament_id: i for i, t in enumerate(tournaments)}
    finished = {t.tournament_id for t in tournaments if t.finished}
    places = _places(tournaments)

    figures: dict[int, dict] = {}
    results: dict[int, dict[int, LeagueResult]] = {}
    for player_id, mine in places.items():
        scored = {tid: place_points(p.position, scale, participation) for tid, p in mine.items()}
        done = sorted(
            (tid for tid in mine if tid in finished),
            key=lambda tid: (-scored[tid], order[tid]),  # equal points: the earlier kept
        )
        kept = set(done if best is None else done[:best])
        results[player_id] = {
            tid: LeagueResult(
                tournament_id=tid,
                position=p.position,
                shared=p.shared,
                points=scored[tid],
                status=(
                    PROVISIONAL if tid not in finished else COUNTED if tid in kept else DISCARDED
                ),
            )
            for tid, p in sorted(mine.items(), key=lambda item: order[item[0]])
        }
        positions = [mine[tid].position for tid in done]
        figures[player_id] = {
            "total": sum(scored[tid] for tid in kept),
            WINS: sum(1 for pos in positions if pos == 1),
            BEST_PLACE: min(positions) if positions else None,
            "played": len(done),
        }

    def last_tournament(group: list[int]):
        """Places in the most recent finished tournament every member of ``group`` took part
        in where they are not all level (a constant key when there is none)."""
        common = set.intersection(*({t for t in places[p] if t in finished} for p in group))
        for tid in sorted(common, key=lambda t: order[t], reverse=True):
            spots = {p: places[p][tid].position for p in group}
            if len(set(spots.values())) > 1:
                return lambda p: -spots[p]
        return lambda p: 0

    def best_place_key(group: list[int]):
        # lower place ranks higher; no finished result ranks last
        return lambda p: -(figures[p][BEST_PLACE] or 10**9)

    tiebreaks = (
        Tiebreak(WINS, lambda group: lambda p: figures[p][WINS]),
        Tiebreak(BEST_PLACE, best_place_key),
        Tiebreak(LAST_TOURNAMENT, last_tournament, repeat=True),
    )
    rows = rank(list(places), figures, first="total", tiebreaks=tiebreaks, sorteo={})
    return [
        LeagueLine(
            player_id=row.entry_id,
            position=row.position,
            shared=row.shared,
            total=figures[row.entry_id]["total"],
            wins=figures[row.entry_id][WINS],
            best_place=figures[row.entry_id][BEST_PLACE],
            played=figures[row.entry_id]["played"],
            decided_by=row.decided_by,
            results=results[row.entry_id],
        )
        for row in rows
    ]
