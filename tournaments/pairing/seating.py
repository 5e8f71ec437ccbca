"""Seating of a round at tables of 3–4 (pure Python, no Django).

Two systems use it (SCORING.md §4 "Seating" and §1):

* **Table games** (system "table", ``seat_table_game``): three or four players at a table,
  everyone against everyone. Tables of 4, and as many tables of 3 as the count needs (never a
  table of 2: 6 → 3 + 3, 9 → 3 + 3 + 3). Only 5 players cannot be seated so: one table of 4
  and a bye, which goes to a different player each round.
* **Individual dominó with rotating partners** (``seat_rotating_partners``): tables of exactly
  4; seats 1 & 3 play against seats 2 & 4, so in a ``Seating`` table tuple the positions 0 and
  2 are partners against positions 1 and 3. The ``n mod 4`` players left over rest (bye).

One round at a time: the caller passes the players still playing, each with their current
standings ``rank``, the players they have ``met`` at a table (any role), their former
``partners`` and their ``byes``; the engine returns the tables (table 1 first, seat order) and
the players who rest. In both systems every competitor is an entry of one player (a tournament
``Entry``), so every id taken and returned here (``SeatingPlayer.entry_id``, ``met``,
``partners``, ``Seating.tables``, ``Seating.byes``) is an entry id, never a ``Player`` id.

Rules, in strict priority order (a lower rule never spoils a higher one):

1. **Byes** (the "Byes" rule of SCORING.md §1, a hard rule): a bye never goes to a player
   with more byes than a player who plays; among those, the lowest placed rests (highest rank
   number, ties: highest entry id). With 5 players at table games that rotates the bye to a
   different player each round.
2. Rotating partners only: **no partner twice while avoidable.** The number of partnerships
   that repeat is the minimum possible (exact: a maximum matching of the "never partners"
   graph, see below).
3. **Repeat meetings as few as possible.** Table games: the number of pairs at one table who
   have already met. Rotating partners, in this order: the pairs seated *against* each other
   who have surely been opponents before (met, never partners); then the pairs seated against
   a former partner (``SeatingPlayer`` carries ``met`` and ``partners`` only, so a pair that
   was once partners and once opponents can only be seen here; ``count_repeats`` counts the
   real roles from the seatings); then the partners who have met before (as opponents), so
   that players meet as many different players as they can.
4. **Standings**: the top players together, table 1 first. With the players in standings
   order chunked into the tables in order (the "ideal" table of each player), the cost is the
   sum over players of (table number − ideal table number)²; 0 when the ideal seating has no
   repeat. Equal costs are settled in favour of the better placed (the one who stays at the
   lower table): 1 and 2 met → 1 stays at table 1 with 3, 4, 5 and 2 moves to table 2.
5. Ties: a deterministic pseudo-random choice from the round's seed.

Round 1 (``first_round=True``, or nobody in the field has met anybody): the players (taken in
entry id order) are shuffled with ``random.Random(seed)`` and chunked into the tables in
order; with a bye, the last players of the shuffle among those with the fewest byes rest. If
the caller forces ``first_round`` on players with history, the shuffle stands in for the
standings and the rules above apply, so the round stays random but repeat-free where possible.

Algorithm. Every rule is one integer per table (weights so that each rule's unit exceeds the
largest possible total of all the rules below it), so a seating has one integer cost and the
lexicographic optimum is its minimum.

* Start: the ideal seating (table games); for rotating partners, partnerships are first made
  greedily down the standings (each player with the next one who was never a partner); if that
  leaves a repeated partnership, a maximum matching of the "never partners" graph
  (``networkx.max_weight_matching``) gives the fewest possible repeats.
  The partnerships, in standings order, are then chunked two by two into tables.
* Local search: steepest descent over swaps of two players (any two seats at different
  tables; for rotating partners also two seats at one table, which changes the partnerships)
  and swaps of two whole tables of equal size (standings only), restricted to the moves that
  can improve (one of the players is at a table with a repeat or away from their ideal table).
  While a repeat is left, a tabu search (swaps of a player in a repeat with anyone, chosen by
  the change in repeats alone, ties drawn; a player may not go back to the table it just left
  for a few iterations, unless that gives a new best) runs until ``STALL`` iterations bring no
  fewer repeats, a lower bound is reached, or ``MAX_EVALS`` swaps have been priced (which
  bounds a round's time: in the worst cases measured, 60 players who have all met each other,
  about 0.5 s of CPU for table games and 1 s for rotating partners; in 7-round events of 60
  players a round takes under 0.2 s and 0.5 s); then the best seating found is polished by the descent
  again. The search never returns a seating worse than its start, so rule 2 stays exact.
* Table games, exactness of rule 3: when more repeats are left than a simple lower bound
  allows, an exhaustive branch-and-bound over the partitions of the field into the tables'
  sizes looks for a seating with fewer repeats. Up to ``EXACT_ALWAYS`` (12) players it runs to
  the end (at most 5775 partitions, under 0.2 s), so there the number of repeats is proven
  minimal. Above that a full search is too costly (200 200 partitions at 13 players, a million
  at 14), so it gets ``EXACT_NODES`` search nodes and, where it runs out, the better of the
  local search's seating and the best partition found stands: not proven minimal, but
  swap-optimal (no swap of two players lowers the repeats). In simulated 7-round events of
  13–28 players (three events each, 288 rounds), tabu searches ten times longer from three
  seeds found one repeat fewer in 1 round of the 288, and never more than that.

Presentation: tables in order, table 1 first. Table games: the seat order inside each table is
shuffled with ``random.Random(seed)``. Rotating partners: which partnership takes seats 1 & 3,
and the order inside each partnership, are drawn with ``random.Random(seed)``. Everything is
deterministic for the same seed and the same players (in any input order).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import networkx as nx

from tournaments.errors import DomainError, gettext_noop

TABLE = "table"
PARTNERS = "partners"
MODES = (TABLE, PARTNERS)

STALL = 300  # tabu iterations without fewer repeats before the search stops
MAX_TABU = 3000  # tabu iterations at most, whatever happens
MAX_EVALS = 250_000  # swaps priced by one tabu search at most (bounds the time of a round)
TENURE = (2, 8)  # iterations a swapped player may not go back to the table it left (drawn)
EXACT_ALWAYS = 12  # up to this many players the exhaustive repeat search always completes
EXACT_NODES = 20_000  # its node budget above that (table games)


@dataclass(frozen=True)
class SeatingPlayer:
    """One player still playing: ``entry_id`` (their entry's id), ``rank`` (1 = best in the
    current standings), ``met`` (entry ids of the players already met at a table, any role),
    ``partners`` (entry ids of former partners, rotating-partner dominó), ``byes`` received.
    Ids in ``met``/``partners`` of players not in the field are ignored, and a meeting counts
    when either player lists the other."""

    entry_id: int
    rank: int
    met: frozenset[int] = frozenset()
    partners: frozenset[int] = frozenset()
    byes: int = 0


@dataclass(frozen=True)
class Seating:
    """``tables``: entry ids in seat order, table 1 first (rotating partners: positions 0 & 2
    are partners against 1 & 3); ``byes``: the entry ids of the players who rest this round."""

    tables: list[tuple[int, ...]]
    byes: list[int] = field(default_factory=list)


# --- table sizes -----------------------------------------------------------------------


def seating_plan(n: int, mode: str = TABLE) -> tuple[list[int], int]:
    """Table sizes (largest first) and the number of byes for ``n`` players.

    Table games: tables of 4 and as many tables of 3 as needed (never 2):
    6 → ([3, 3], 0), 7 → ([4, 3], 0), 9 → ([3, 3, 3], 0), 10 → ([4, 3, 3], 0); the one
    exception is 5 → ([4], 1). Rotating partners: ``n // 4`` tables of 4 and ``n % 4`` byes.
    Raises ``DomainError`` ``too_few_players`` (fewer than 3, or than 4 with partners) or
    ``invalid_seating_mode``.
    """
    _check_mode(mode)
    minimum = 4 if mode == PARTNERS else 3
    if isinstance(n, bool) or not isinstance(n, int) or n < minimum:
        raise DomainError("too_few_players", count=n, minimum=minimum)
    if mode == PARTNERS:
        return [4] * (n // 4), n % 4
    if n == 5:
        return [4], 1
    threes = -n % 4
    return [4] * ((n - 3 * threes) // 4) + [3] * threes, 0


def table_sizes(n: int) -> list[int]:
    """Table sizes for ``n`` players at table games (see ``seating_plan``; 5 → [4] + a bye)."""
    return seating_plan(n)[0]


# --- the two engines -------------------------------------------------------------------


def seat_table_game(
    players: Sequence[SeatingPlayer], *, seed: int, first_round: bool = False
) -> Seating:
    """Seat a round of a table game (3–4 players a table; see the module docstring).

    Deterministic: the same players (in any order) and seed give the same seating.
    Raises ``DomainError``: ``too_few_players`` (fewer than 3), ``duplicate_player``,
    ``invalid_rank`` or ``invalid_count`` (byes).
    """
    pool = _validated(players)
    sizes, n_byes = seating_plan(len(pool))
    draw = random.Random(seed)
    order, fresh = _order(pool, first_round, draw)
    resting = _byes(order, n_byes)
    playing = [p for p in order if p.entry_id not in resting]
    if fresh:
        tables = _chunks(playing, sizes)
    else:
        tables = _optimise_table_game(playing, sizes, seed)
    seated = []
    for table in tables:
        ids = [p.entry_id for p in table]
        draw.shuffle(ids)
        seated.append(tuple(ids))
    return Seating(tables=seated, byes=sorted(resting))


def seat_rotating_partners(
    players: Sequence[SeatingPlayer], *, seed: int, first_round: bool = False
) -> Seating:
    """Seat a round of individual dominó with rotating partners (tables of exactly 4,
    positions 0 & 2 partners against 1 & 3; ``n % 4`` players rest; see the module docstring).

    Deterministic: the same players (in any order) and seed give the same seating.
    Raises ``DomainError``: ``too_few_players`` (fewer than 4), ``duplicate_player``,
    ``invalid_rank`` or ``invalid_count`` (byes).
    """
    pool = _validated(players)
    sizes, n_byes = seating_plan(len(pool), PARTNERS)
    draw = random.Random(seed)
    order, fresh = _order(pool, first_round, draw)
    resting = _byes(order, n_byes)
    playing = [p for p in order if p.entry_id not in resting]
    if fresh:
        tables = _chunks(playing, sizes)
    else:
        tables = _optimise_partners(playing, seed)
    seated = []
    for a, b, c, d in tables:
        pairs = [[a.entry_id, c.entry_id], [b.entry_id, d.entry_id]]
        draw.shuffle(pairs)
        for pair in pairs:
            draw.shuffle(pair)
        seated.append((pairs[0][0], pairs[1][0], pairs[0][1], pairs[1][1]))
    return Seating(tables=seated, byes=sorted(resting))


# --- helpers for callers, tests and the benchmark --------------------------------------


def count_repeats(rounds: Sequence[Seating], mode: str = TABLE) -> dict[str, int]:
    """Repeats over ``rounds`` (round 1 first), each pair counted once per round it repeats.

    ``meetings``: pairs at one table who had already sat at a table together (any role).
    ``partners``: partnerships (positions 0 & 2, 1 & 3) that had been partners before
    (``mode="partners"``; always 0 for table games). ``opponents``: pairs on opposite sides who
    had been opponents before (table games: everyone at a table is an opponent, so this equals
    ``meetings``). Raises ``DomainError`` ``invalid_seating_mode``.
    """
    _check_mode(mode)
    met: set[frozenset[int]] = set()
    partnered: set[frozenset[int]] = set()
    opposed: set[frozenset[int]] = set()
    counts = {"meetings": 0, "partners": 0, "opponents": 0}
    for seating in rounds:
        round_met, round_partnered, round_opposed = set(), set(), set()
        for table in seating.tables:
            for i, a in enumerate(table):
                for j in range(i + 1, len(table)):
                    pair = frozenset((a, table[j]))
                    round_met.add(pair)
                    if mode == PARTNERS and (j - i) % 2 == 0:
                        round_partnered.add(pair)
                    else:
                        round_opposed.add(pair)
        counts["meetings"] += len(round_met & met)
        counts["partners"] += len(round_partnered & partnered)
        counts["opponents"] += len(round_opposed & opposed)
        met |= round_met
        partnered |= round_partnered
        opposed |= round_opposed
    return counts


def players_from_history(
    standings: Sequence[int], rounds: Sequence[Seating], mode: str = TABLE
) -> list[SeatingPlayer]:
    """The ``SeatingPlayer`` list for the next round: ``standings`` are the entry ids still
    playing, best first (rank 1, 2, ...); ``met``, ``partners`` (partners mode) and ``byes`` are
    read from the earlier ``rounds``. Raises ``DomainError`` ``invalid_seating_mode``."""
    _check_mode(mode)
    met: dict[int, set[int]] = {entry_id: set() for entry_id in standings}
    partners: dict[int, set[int]] = {entry_id: set() for entry_id in standings}
    byes: dict[int, int] = dict.fromkeys(standings, 0)
    for seating in rounds:
        for entry_id in seating.byes:
            if entry_id in byes:
                byes[entry_id] += 1
        for table in seating.tables:
            for i, a in enumerate(table):
                for j, b in enumerate(table):
                    if i != j and a in met:
                        met[a].add(b)
                        if mode == PARTNERS and (i - j) % 2 == 0:
                            partners[a].add(b)
    return [
        SeatingPlayer(
            entry_id=entry_id,
            rank=position,
            met=frozenset(met[entry_id]),
            partners=frozenset(partners[entry_id]),
            byes=byes[entry_id],
        )
        for position, entry_id in enumerate(standings, start=1)
    ]


# --- internals: input, order, byes ------------------------------------------------------


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise DomainError("invalid_seating_mode", mode=mode)


def _placement(player: SeatingPlayer) -> tuple[int, int]:
    """Standings placement, best first: rank, then entry id."""
    return (player.rank, player.entry_id)


def _validated(players: Sequence[SeatingPlayer]) -> list[SeatingPlayer]:
    """Check the input; return it sorted by placement (best first)."""
    pool = list(players)
    seen: set[int] = set()
    for player in pool:
        if player.entry_id in seen:
            # The message template of "duplicate_player" names its parameter ``player_id``.
            raise DomainError("duplicate_player", player_id=player.entry_id)
        seen.add(player.entry_id)
        rank = player.rank
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
            raise DomainError("invalid_rank", entry_id=player.entry_id, value=rank)
        byes = player.byes
        if isinstance(byes, bool) or not isinstance(byes, int) or byes < 0:
            raise DomainError(
                "invalid_count",
                field=gettext_noop("Descansos"),
                entry_id=player.entry_id,
                value=byes,
            )
    return sorted(pool, key=_placement)


def _order(pool: list[SeatingPlayer], first_round: bool, draw: random.Random):
    """The order that stands for the standings, and whether the round is a plain draw.

    Round 1 (flag, or no meeting inside the field): the players in entry id order shuffled by
    ``draw``; a plain draw unless someone has met someone. Otherwise: the placement."""
    ids = {p.entry_id for p in pool}
    history = any((p.met | p.partners) & ids for p in pool)
    if first_round or not history:
        shuffled = sorted(pool, key=lambda p: p.entry_id)
        draw.shuffle(shuffled)
        return shuffled, not history
    return pool, False


def _byes(order: list[SeatingPlayer], count: int) -> set[int]:
    """Rule 1: the ``count`` players with the fewest byes, the last in ``order`` first."""
    if not count:
        return set()
    ranked = sorted(enumerate(order), key=lambda item: (item[1].byes, -item[0]))
    return {player.entry_id for _, player in ranked[:count]}


def _chunks(order: list, sizes: list[int]) -> list[list]:
    tables, start = [], 0
    for size in sizes:
        tables.append(order[start : start + size])
        start += size
    return tables


def _ideal_tables(sizes: list[int]) -> list[int]:
    """Table number (0-based) of each standings position in the ideal seating."""
    return [t for t, size in enumerate(sizes) for _ in range(size)]


def _standings_cost(sizes: list[int]):
    """Rule 4: ``(ideal, cost, bound)``. ``cost[i][t]`` of standings position ``i`` at table
    ``t`` is ``scale·(t − ideal[i])² + t·(n − 1 − i)``: the second term, smaller than any step
    of the first, settles equal displacements in favour of the better placed (1 stays at
    table 1 and 2 moves down, rather than the other way round). Every standings total is below
    ``bound``."""
    n, k = sum(sizes), len(sizes)
    ideal = _ideal_tables(sizes)
    tie_max = (k - 1) * n * (n - 1) // 2
    scale = tie_max + 1
    cost = [[scale * (t - ideal[i]) ** 2 + t * (n - 1 - i) for t in range(k)] for i in range(n)]
    return ideal, cost, scale * n * (k - 1) ** 2 + tie_max + 1


def _relation(order: list[SeatingPlayer], attribute: str) -> list[list[bool]]:
    """Symmetric matrix over positions in ``order``: either player lists the other."""
    index = {p.entry_id: i for i, p in enumerate(order)}
    n = len(order)
    matrix = [[False] * n for _ in range(n)]
    for i, player in enumerate(order):
        for other in getattr(player, attribute):
            j = index.get(other)
            if j is not None and j != i:
                matrix[i][j] = matrix[j][i] = True
    return matrix


# --- table games ------------------------------------------------------------------------


def _optimise_table_game(playing: list[SeatingPlayer], sizes: list[int], seed: int):
    n, k = len(playing), len(sizes)
    if k == 1:
        return [playing]
    met = _relation(playing, "met")
    ideal, square, unit = _standings_cost(sizes)  # one repeat outweighs every standings total
    weight = [[unit * m for m in row] for row in met]
    search = _TableGameSearch(
        _chunks(list(range(n)), sizes),
        square,
        ideal,
        unit,
        random.Random(f"seating-search:{seed}"),
        weight,
    )
    floor = unit * _repeat_floor(met, sizes)
    search.improve(floor)
    repeats = search.total // unit
    if search.total >= floor + unit:  # more repeats than the lower bound: prove or improve
        masks = [sum(1 << j for j in range(n) if row[j]) for row in met]
        budget = None if n <= EXACT_ALWAYS else EXACT_NODES
        better = _fewer_repeats(masks, sizes, repeats, budget)
        if better is not None:
            search.restart(_label(better, ideal, k, sizes))
            search.descend()
    return [[playing[i] for i in members] for members in search.tables]


def _repeat_floor(met: list[list[bool]], sizes: list[int]) -> int:
    """A lower bound on the repeats of any seating. A player at a table of ``s`` has ``s − 1``
    mates, and any beyond the players they have not met yet are repeats; the seats at tables of
    3 go to the players who would be shortest (the least total), each repeat covers two
    players at most, and a single player's shortfall is a bound by itself."""
    n = len(met)
    unmet = sorted(n - 1 - sum(row) for row in met)  # fewest unmet players (shortest) first
    small_seats = 3 * sizes.count(3)
    short = [max(0, (2 if i < small_seats else 3) - u) for i, u in enumerate(unmet)]
    return max((sum(short) + 1) // 2, max(max(0, min(sizes) - 1 - u) for u in unmet))


def _fewer_repeats(masks: list[int], sizes: list[int], bound: int, budget: int | None):
    """Exhaustive branch and bound: a partition of the players into tables of ``sizes`` with
    fewer than ``bound`` repeats, the fewest possible; ``None`` if there is none. If the
    ``budget`` of search nodes (None: no limit) runs out first, the best partition found so far
    (or ``None``), not proven optimal. ``masks[i]``: bit j set when players i and j have met."""
    counts: dict[int, int] = {}
    for size in sizes:
        counts[size] = counts.get(size, 0) + 1
    best: list = [bound, None]
    nodes = [0]

    class _OutOfBudget(Exception):
        pass

    def place(remaining: int, tables: list[list[int]], repeats: int) -> None:
        if not remaining:
            best[0], best[1] = repeats, [list(t) for t in tables]
            return
        first = (remaining & -remaining).bit_length() - 1
        rest = remaining & ~(1 << first)
        candidates = [i for i in range(first + 1, len(masks)) if rest >> i & 1]
        for size in sorted(counts, reverse=True):
            if counts[size]:
                counts[size] -= 1
                grow([first], 1 << first, candidates, 0, size - 1, remaining, tables, repeats)
                counts[size] += 1
                if best[0] == 0:
                    return

    def grow(group, mask, candidates, start, need, remaining, tables, repeats) -> None:
        nodes[0] += 1
        if budget is not None and nodes[0] > budget:
            raise _OutOfBudget
        if not need:
            tables.append(group)
            place(remaining & ~mask, tables, repeats)
            tables.pop()
            return
        for pos in range(start, len(candidates) - need + 1):
            x = candidates[pos]
            extra = (masks[x] & mask).bit_count()
            if repeats + extra >= best[0]:
                continue
            grow(
                group + [x],
                mask | 1 << x,
                candidates,
                pos + 1,
                need - 1,
                remaining,
                tables,
                repeats + extra,
            )
            if best[0] == 0:
                return

    try:
        place((1 << len(masks)) - 1, [], 0)
    except _OutOfBudget:
        pass
    return best[1]


def _label(tables: list[list[int]], ideal: list[int], k: int, sizes: list[int]):
    """Put unlabelled tables into the slots of their size, the best-placed tables first."""
    slots: list[list[int] | None] = [None] * k
    for size in set(sizes):
        group = sorted(
            (t for t in tables if len(t) == size), key=lambda t: sum(ideal[i] for i in t)
        )
        free = [s for s in range(k) if sizes[s] == size]
        for slot, table in zip(free, group, strict=True):
            slots[slot] = table
    return slots


# --- rotating partners -----------------------------------------------------------------


def _optimise_partners(playing: list[SeatingPlayer], seed: int):
    n = len(playing)
    k = n // 4
    partnered = _relation(playing, "partners")
    met = _relation(playing, "met")
    # Units, each above every total of the ones before (n/2 partner pairs, n opposing pairs):
    # standings < a former opponent as partner < a former partner as opponent < surely a
    # former opponent as opponent < a former partner as partner.
    ideal, square, partner_met = _standings_cost([4] * k)
    against_partner = partner_met * (n // 2 + 1)
    against_opponent = against_partner * (n + 1)
    partner_again = against_opponent * (n + 1)
    partner_cost = [
        [partner_again if partnered[i][j] else partner_met if met[i][j] else 0 for j in range(n)]
        for i in range(n)
    ]
    opponent_cost = [
        [
            against_partner if partnered[i][j] else against_opponent if met[i][j] else 0
            for j in range(n)
        ]
        for i in range(n)
    ]

    pairs = _partnerships(partnered)
    pairs.sort(key=lambda pair: min(pair))
    tables = [[p[0], q[0], p[1], q[1]] for p, q in zip(pairs[::2], pairs[1::2], strict=True)]
    search = _PartnersSearch(
        tables,
        square,
        ideal,
        partner_met,
        random.Random(f"seating-search:{seed}"),
        partner_cost,
        opponent_cost,
    )
    search.improve(0)
    return [[playing[i] for i in seats] for seats in search.tables]


def _partnerships(partnered: list[list[bool]]) -> list[tuple[int, int]]:
    """Partnerships with the fewest possible former partners together (rule 2), each pair in
    standings order: greedily down the standings (each player with the next one who was never
    their partner), then each repeated pair (a, b) is mended by trading with a fresh pair
    (c, d) into (a, c) + (b, d) or (a, d) + (b, c) when both are fresh. If a repeat is still
    left, a maximum matching of the "never partners" graph gives the fewest possible."""
    n = len(partnered)
    free = list(range(n))
    pairs: list[tuple[int, int]] = []
    while free:
        a = free.pop(0)
        mate = next((b for b in free if not partnered[a][b]), free[0])
        free.remove(mate)
        pairs.append((a, mate))
    for i, (a, b) in enumerate(pairs):
        if not partnered[a][b]:
            continue
        for j, (c, d) in enumerate(pairs):
            if partnered[c][d]:
                continue
            for x, y in ((c, d), (d, c)):
                if not partnered[a][x] and not partnered[b][y]:
                    pairs[i], pairs[j] = tuple(sorted((a, x))), tuple(sorted((b, y)))
                    break
            else:
                continue
            break
    if not any(partnered[a][b] for a, b in pairs):
        return pairs

    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    # Prefer standings neighbours among the maximum matchings.
    top = n * n + 1
    graph.add_weighted_edges_from(
        (a, b, top - (b - a) ** 2) for a in range(n) for b in range(a + 1, n) if not partnered[a][b]
    )
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = [(min(a, b), max(a, b)) for a, b in matching]
    left = sorted(set(range(n)) - {x for pair in pairs for x in pair})
    pairs += list(zip(left[::2], left[1::2], strict=True))  # all former partners
    return pairs


# --- local search ----------------------------------------------------------------------


class _Search:
    """Swap-based local search over a seating of positions ``0..n-1`` into fixed tables.

    A table costs ``unit`` or more exactly when it has a repeat (the standings part of a
    table's cost stays below ``unit``). ``square[i][t]`` is the standings cost of position ``i``
    at table ``t`` and ``ideal[i]`` its table in the standings order. Subclasses give the cost
    of a table and of a swap."""

    split_matters = False  # whether swapping two seats of one table changes anything

    def __init__(
        self, tables: list[list[int]], square: list[list[int]], ideal: list[int], unit: int, rng
    ):
        self.square = square
        self.ideal = ideal
        self.unit = unit
        self.rng = rng
        self.restart(tables)

    def restart(self, tables: list[list[int]]) -> None:
        self.tables = [list(t) for t in tables]
        self.where: dict[int, tuple[int, int]] = {}
        for t, seats in enumerate(self.tables):
            for s, x in enumerate(seats):
                self.where[x] = (t, s)
        self.everyone = sorted(self.where)
        self._recount()
        self.total = sum(self.costs)

    def _recount(self) -> None:
        """Set ``self.costs`` (and any cache) from ``self.tables``."""
        raise NotImplementedError

    def _swap_delta(self, p: int, q: int):
        """(change of the total, token for ``_apply``) of swapping ``p`` and ``q``, or None if
        the swap changes nothing."""
        raise NotImplementedError

    def _apply(self, p: int, q: int, token) -> None:
        raise NotImplementedError

    def _move(self, p: int, q: int) -> None:
        t1, s1 = self.where[p]
        t2, s2 = self.where[q]
        self.tables[t1][s1], self.tables[t2][s2] = q, p
        self.where[p], self.where[q] = (t2, s2), (t1, s1)

    def _in_conflict(self, t: int) -> list[int]:
        """The players of table ``t`` (which has a repeat) whose move can lower the repeats."""
        return self.tables[t]

    def _active(self, conflicts_only: bool) -> list[int]:
        """Players whose move can lower the cost: in a repeat, or (unless ``conflicts_only``)
        away from their ideal table. Any improving swap moves one of them."""
        active = []
        for t, seats in enumerate(self.tables):
            conflicted = self._in_conflict(t) if self.costs[t] >= self.unit else []
            active.extend(conflicted)
            if not conflicts_only:
                active.extend(x for x in seats if self.ideal[x] != t and x not in conflicted)
        return sorted(active)

    def _best_table_swap(self):
        """Best swap of two whole tables of equal size (standings only; repeats unchanged)."""
        best = None
        square, tables = self.square, self.tables
        for t1 in range(len(tables)):
            for t2 in range(t1 + 1, len(tables)):
                if len(tables[t1]) != len(tables[t2]):
                    continue
                delta = sum(square[x][t2] - square[x][t1] for x in tables[t1]) + sum(
                    square[x][t1] - square[x][t2] for x in tables[t2]
                )
                if delta < 0 and (best is None or delta < best[0]):
                    best = (delta, t1, t2)
        return best

    def descend(self) -> None:
        """Steepest descent until no swap improves (ties: the first found)."""
        while True:
            best = None
            for p in self._active(conflicts_only=False):
                for q in self.everyone:
                    if q != p:
                        found = self._swap_delta(p, q)
                        if (
                            found is not None
                            and found[0] < 0
                            and (best is None or found[0] < best[0])
                        ):
                            best = (found[0], p, q, found[1])
            whole = self._best_table_swap()
            if whole is not None and (best is None or whole[0] < best[0]):
                _, t1, t2 = whole
                self.tables[t1], self.tables[t2] = self.tables[t2], self.tables[t1]
                self.restart(self.tables)
            elif best is None:
                return
            else:
                self._apply(best[1], best[2], best[3])

    def _soft_delta(self, p: int, q: int) -> int:
        """Change of the standings part of the total when ``p`` and ``q`` swap."""
        t1, t2 = self.where[p][0], self.where[q][0]
        sp, sq = self.square[p], self.square[q]
        return sp[t2] - sp[t1] + sq[t1] - sq[t2]

    def improve(self, floor: int) -> None:
        """Descent, then tabu search while the total is a repeat (``unit``) or more above
        ``floor`` (a lower bound), then descent from the best seating found.

        The tabu search looks at the repeats only (the standings part would steer every
        sideways move back to the same few seatings); ties are drawn with ``self.rng``. It keeps
        the best seating by the whole cost."""
        self.descend()
        if self.total < floor + self.unit:  # no repeat above the lower bound
            return
        best_total, best_tables = self.total, [t[:] for t in self.tables]
        tabu_until: dict[tuple[int, int], int] = {}  # (player, table) → last tabu iteration
        stall = evals = 0
        for iteration in range(MAX_TABU):
            if stall >= STALL or evals >= MAX_EVALS:
                break
            chosen, ties = None, 0
            where = self.where
            active = self._active(conflicts_only=True)
            evals += len(active) * len(self.everyone)
            for p in active:
                t1 = where[p][0]
                for q in self.everyone:
                    if q == p:
                        continue
                    found = self._swap_delta(p, q)
                    if found is None:
                        continue
                    delta = found[0]
                    t2 = where[q][0]
                    if (
                        tabu_until.get((p, t2), -1) >= iteration
                        or tabu_until.get((q, t1), -1) >= iteration
                    ) and self.total + delta >= best_total:
                        continue  # tabu, and no new best (aspiration)
                    hard = delta - self._soft_delta(p, q)
                    if chosen is None or hard < chosen[0]:
                        chosen, ties = (hard, p, q, found[1]), 1
                    elif hard == chosen[0]:
                        ties += 1
                        if self.rng.randrange(ties) == 0:
                            chosen = (hard, p, q, found[1])
            if chosen is None:
                stall += 1
                continue
            _, p, q, token = chosen
            t1, t2 = where[p][0], where[q][0]
            self._apply(p, q, token)
            tabu_until[(p, t1)] = iteration + self.rng.randint(*TENURE)
            tabu_until[(q, t2)] = iteration + self.rng.randint(*TENURE)
            if self.total < best_total:
                if self.total // self.unit < best_total // self.unit:
                    stall = 0
                best_total, best_tables = self.total, [t[:] for t in self.tables]
                if best_total < floor + self.unit:
                    break
            else:
                stall += 1
        self.restart(best_tables)
        self.descend()


class _TableGameSearch(_Search):
    """Table games: a table costs ``weight`` (``unit`` per pair that met) plus standings.
    ``mates[x][t]``: the repeat weight ``x`` has with the players at table ``t``, kept up to
    date so a swap is priced in constant time."""

    def __init__(self, tables, square, ideal, unit, rng, weight: list[list[int]]):
        self.weight = weight
        super().__init__(tables, square, ideal, unit, rng)

    def _recount(self) -> None:
        weight, k = self.weight, len(self.tables)
        self.mates = [[0] * k for _ in weight]
        for t, seats in enumerate(self.tables):
            for x, row in enumerate(weight):
                self.mates[x][t] = sum(row[y] for y in seats)
        self.costs = [self._table_cost(t) for t in range(k)]

    def _in_conflict(self, t: int) -> list[int]:
        return [x for x in self.tables[t] if self.mates[x][t]]

    def _table_cost(self, t: int) -> int:
        seats = self.tables[t]
        return sum(self.mates[x][t] for x in seats) // 2 + sum(self.square[x][t] for x in seats)

    def _swap_delta(self, p: int, q: int):
        t1, t2 = self.where[p][0], self.where[q][0]
        if t1 == t2:
            return None
        mp, mq, sp, sq = self.mates[p], self.mates[q], self.square[p], self.square[q]
        w = self.weight[p][q]
        delta = mp[t2] - mp[t1] + mq[t1] - mq[t2] - 2 * w + sp[t2] - sp[t1] + sq[t1] - sq[t2]
        return delta, None

    def _apply(self, p: int, q: int, token) -> None:
        t1, t2 = self.where[p][0], self.where[q][0]
        self._move(p, q)
        wp, wq = self.weight[p], self.weight[q]
        for x, row in enumerate(self.mates):
            change = wq[x] - wp[x]
            if change:
                row[t1] += change
                row[t2] -= change
        for t in (t1, t2):
            new = self._table_cost(t)
            self.total += new - self.costs[t]
            self.costs[t] = new


class _PartnersSearch(_Search):
    """Rotating partners: positions 0 & 2 of a table are partners against 1 & 3.
    ``partner_cost[x][y]`` / ``opponent_cost[x][y]``: the repeat weight of seating x and y as
    partners / as opponents. Swaps inside a table change the partnerships."""

    split_matters = True

    def __init__(self, tables, square, ideal, unit, rng, partner_cost, opponent_cost):
        self.partner_cost = partner_cost
        self.opponent_cost = opponent_cost
        super().__init__(tables, square, ideal, unit, rng)

    def _table_cost(self, t: int) -> int:
        a, b, c, d = self.tables[t]
        pc, sq = self.partner_cost, self.square
        oa, oc = self.opponent_cost[a], self.opponent_cost[c]
        return (
            pc[a][c]
            + pc[b][d]
            + oa[b]
            + oa[d]
            + oc[b]
            + oc[d]
            + sq[a][t]
            + sq[b][t]
            + sq[c][t]
            + sq[d][t]
        )

    def _recount(self) -> None:
        self.costs = [self._table_cost(t) for t in range(len(self.tables))]

    def _in_conflict(self, t: int) -> list[int]:
        seats = self.tables[t]
        pc, oc = self.partner_cost, self.opponent_cost
        return [
            x
            for s, x in enumerate(seats)
            if pc[x][seats[(s + 2) % 4]] or oc[x][seats[(s + 1) % 4]] or oc[x][seats[(s + 3) % 4]]
        ]

    def _swap_delta(self, p: int, q: int):
        t1, s1 = self.where[p]
        t2, s2 = self.where[q]
        pc, oc = self.partner_cost, self.opponent_cost
        if t1 == t2:
            if (s1 - s2) % 2 == 0:
                return None  # partners trade seats: same partnerships, same opponents
            seats = self.tables[t1]
            r, u = seats[(s1 + 2) % 4], seats[(s2 + 2) % 4]  # the partners of p and of q
            # p & r v q & u becomes q & r v p & u (p–q and r–u stay opponents).
            delta = (
                pc[q][r]
                + pc[p][u]
                - pc[p][r]
                - pc[q][u]
                + oc[q][u]
                + oc[r][p]
                - oc[p][u]
                - oc[r][q]
            )
            return delta, None
        delta = self._soft_delta(p, q)
        cp, cq = pc[p], pc[q]
        op, oq = oc[p], oc[q]
        for s, y in enumerate(self.tables[t1]):
            if s != s1:
                delta += cq[y] - cp[y] if (s - s1) % 2 == 0 else oq[y] - op[y]
        for s, y in enumerate(self.tables[t2]):
            if s != s2:
                delta += cp[y] - cq[y] if (s - s2) % 2 == 0 else op[y] - oq[y]
        return delta, None

    def _apply(self, p: int, q: int, token) -> None:
        t1, t2 = self.where[p][0], self.where[q][0]
        self._move(p, q)
        for t in {t1, t2}:
            new = self._table_cost(t)
            self.total += new - self.costs[t]
            self.costs[t] = new
