"""Swiss pairings by minimum-cost perfect matching (pure Python: networkx, no Django).

One round at a time: ``pair_round`` takes the entries still playing (dropped entries are
simply not passed in), their current score, standings rank, past opponents and byes, and
returns the tables of the next round plus, with an odd count, the entry that gets the bye.

Rules, in strict priority order (a lower rule never spoils a higher one):

1. **No second bye while someone lacks one.** The bye only ever goes to an entry with the
   fewest byes among the entries passed in (a hard rule: it holds even if it forces a
   rematch or extra score difference).
2. **No rematch while avoidable.** Two entries that already met are paired again only when
   every pairing allowed by rule 1 has a rematch; then as few rematches as possible.
3. **The bye goes to the lowest-placed eligible entry** (highest rank number, ties: highest
   entry id) — unless that would force a rematch (rule 2); then the next one up, and so on.
4. **Minimal score differences**: the sum over tables of (score A − score B)² is minimal.
   Squares make an entry meet one of equal score whenever possible and otherwise the
   nearest score, and spread unavoidable differences (6 v 3 and 3 v 0 rather than
   3 v 3 and 6 v 0 — the usual Swiss "float" of one entry per score group).
5. Tie-break (deterministic): the sum over tables of (standings position difference)² is
   minimal, so inside a score group 1 meets 2, 3 meets 4 (Monrad style). Remaining exact
   ties are settled by the matching algorithm itself, which is deterministic because the
   graph is always built in standings order (score, then rank, then entry id), whatever
   the order of the input.

The rules are one integer cost per edge of a graph whose nodes are the entries (plus a
"bye" node with an odd count, joined only to the entries allowed by rule 1); each rule's
weight exceeds the largest possible total of all the rules below it, so the minimum-cost
perfect matching (``networkx.max_weight_matching`` with ``maxcardinality=True`` on
``max cost + 1 − cost``, exact integer arithmetic) is the lexicographic optimum.

Round 1 (``first_round=True``, or every score equal and nobody has played yet): the
entries are shuffled with ``random.Random(seed)`` and neighbours in the shuffled order are
paired; with an odd count the bye goes to the last entry of the shuffle among those with the
fewest byes (so a random one, reproducible for the same seed and entries). If the caller
forces ``first_round`` on entries with history and the shuffle would repeat a game, the
round is paired by the rules above with the shuffle standing in for the standings (and
every score counted equal), so it stays random but rematch-free where possible.

Presentation: inside a table side A is the better-placed entry (lower rank, ties: lower
entry id); the engine has no colour/side history, so it does not alternate. Tables are
ordered by the higher score at the table (highest first), then by the better rank at it.

Size: up to ``DENSE_LIMIT`` entries use the complete graph (exact optimum). Larger events
use a sparse graph: each entry is joined to its nearest ``WINDOW`` not-yet-met entries above
and below it in the standings (and the opponents met in between). If the sparse optimum has
a rematch, or with an odd count the bye does not go to the lowest-placed eligible entry,
the window is widened (×4) until it holds or the graph is complete, so rules 1–3 are always
exact; rule 4 is exact in practice (the optimum pairs standings neighbours) but only
guaranteed on the complete graph.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

import networkx as nx

from tournaments.errors import MESSAGES, DomainError, gettext_noop

DENSE_LIMIT = 48
WINDOW = 8


@dataclass(frozen=True)
class PairingEntry:
    """One entry still playing: ``score`` (match points, or dominó puntos), ``rank``
    (1 = best in the current standings), ``opponents`` met so far, ``byes`` received."""

    entry_id: int
    score: int | Fraction
    rank: int
    opponents: frozenset[int] = frozenset()
    byes: int = 0


@dataclass(frozen=True)
class Pairing:
    """``tables``: ``(side_a, side_b)`` entry ids, table 1 first; ``bye``: entry id or None."""

    tables: list[tuple[int, int]]
    bye: int | None


def pair_round(entries: Sequence[PairingEntry], *, seed: int, first_round: bool = False) -> Pairing:
    """Pair the next Swiss round (see the module docstring for the rules and their order).

    Deterministic: the same entries (in any order) and seed give the same pairing.
    Raises ``DomainError``: ``too_few_entries`` (fewer than 2), ``duplicate_entry``,
    ``invalid_score``, ``invalid_rank`` or ``invalid_count`` (byes).
    """
    pool = _validated(entries)
    if first_round or _untouched(pool):
        shuffled = list(pool)
        random.Random(seed).shuffle(shuffled)
        pairs, bye = _neighbours(shuffled)
        if any(_met(a, b) for a, b in pairs):
            pairs, bye = _solve(shuffled, {e.entry_id: 0 for e in pool})
    else:
        pairs, bye = _solve(pool, _integer_scores(pool))
    return _present(pairs, bye)


def rematch_count(pairing: Pairing, entries: Iterable[PairingEntry]) -> int:
    """How many tables of ``pairing`` seat two entries that had already met."""
    by_id = {e.entry_id: e for e in entries}
    return sum(1 for a, b in pairing.tables if _met(by_id[a], by_id[b]))


def score_cost(pairing: Pairing, entries: Iterable[PairingEntry]) -> int | Fraction:
    """Sum over the tables of ``pairing`` of (score difference)² (rule 4's measure)."""
    by_id = {e.entry_id: e for e in entries}
    return sum(((by_id[a].score - by_id[b].score) ** 2 for a, b in pairing.tables), 0)


# --- internals -------------------------------------------------------------------------


def _placement(entry: PairingEntry) -> tuple[int, int]:
    """Standings placement, best first: rank, then entry id."""
    return (entry.rank, entry.entry_id)


def _met(a: PairingEntry, b: PairingEntry) -> bool:
    return b.entry_id in a.opponents or a.entry_id in b.opponents


def _validated(entries: Sequence[PairingEntry]) -> list[PairingEntry]:
    """Check the input; return it sorted by placement (best first)."""
    pool = list(entries)
    if len(pool) < 2:
        # Same code as the round robin's; its message speaks of a round robin, so Swiss wording.
        raise DomainError(
            "too_few_entries", message=MESSAGES["too_few_entries_swiss"], count=len(pool)
        )
    seen: set[int] = set()
    for entry in pool:
        if entry.entry_id in seen:
            raise DomainError("duplicate_entry", entry_id=entry.entry_id)
        seen.add(entry.entry_id)
        if isinstance(entry.score, bool) or not isinstance(entry.score, int | Fraction):
            raise DomainError("invalid_score", entry_id=entry.entry_id, value=entry.score)
        if isinstance(entry.rank, bool) or not isinstance(entry.rank, int) or entry.rank < 1:
            raise DomainError("invalid_rank", entry_id=entry.entry_id, value=entry.rank)
        if isinstance(entry.byes, bool) or not isinstance(entry.byes, int) or entry.byes < 0:
            raise DomainError(
                "invalid_count",
                field=gettext_noop("Descansos"),
                entry_id=entry.entry_id,
                value=entry.byes,
            )
    return sorted(pool, key=_placement)


def _untouched(pool: list[PairingEntry]) -> bool:
    """Every score equal and nobody has met anybody: pair as round 1."""
    return len({e.score for e in pool}) == 1 and not any(e.opponents for e in pool)


def _integer_scores(pool: list[PairingEntry]) -> dict[int, int]:
    """Scores scaled by the common denominator, so costs are exact integers."""
    scale = lcm(*(Fraction(e.score).denominator for e in pool))
    return {e.entry_id: int(e.score * scale) for e in pool}


def _bye_candidates(order: list[PairingEntry]) -> list[PairingEntry]:
    """Entries allowed the bye (rule 1), in ``order``: best placed first."""
    fewest = min(e.byes for e in order)
    return [e for e in order if e.byes == fewest]


def _neighbours(order: list[PairingEntry]):
    """Round 1: bye to the last eligible entry of ``order``; pair the rest in order."""
    bye = _bye_candidates(order)[-1] if len(order) % 2 else None
    rest = [e for e in order if e is not bye]
    return [(rest[i], rest[i + 1]) for i in range(0, len(rest), 2)], bye


def _solve(order: list[PairingEntry], scores: dict[int, int]):
    """Lexicographic minimum-cost pairing; ``order`` is the placement, best first."""
    n = len(order)
    position = {e.entry_id: i for i, e in enumerate(order)}
    # Standings order for the sparse windows: score, then placement.
    standings = sorted(order, key=lambda e: (-scores[e.entry_id], position[e.entry_id]))
    odd = n % 2 == 1
    eligible = _bye_candidates(order) if odd else []
    # Rule 3: 0 for the lowest-placed eligible entry, 1 for the next one up, ...
    bye_step = {e.entry_id: k for k, e in enumerate(reversed(eligible))}

    half = n // 2 + 1
    span = max(scores.values()) - min(scores.values())
    tie_unit = 1  # rule 5
    score_unit = tie_unit * (half * (n - 1) ** 2 + 1)  # rule 4 > every rule-5 total
    bye_unit = score_unit * (half * span**2 + 1)  # rule 3 > every rule-4/5 total
    rematch_unit = bye_unit * (n + 1)  # rule 2 > every rule-3/4/5 total

    def cost(a: PairingEntry, b: PairingEntry) -> int:
        diff = scores[a.entry_id] - scores[b.entry_id]
        place = position[a.entry_id] - position[b.entry_id]
        total = score_unit * diff * diff + tie_unit * place * place
        return total + rematch_unit if _met(a, b) else total

    windows: list[int | None] = []
    if n > DENSE_LIMIT:
        window = WINDOW
        while 2 * window < n:
            windows.append(window)
            window *= 4
    windows.append(None)

    for window in windows:
        edges = _edges(standings, window)
        graph = nx.Graph()
        graph.add_nodes_from(range(n + odd))
        index = {e.entry_id: i for i, e in enumerate(standings)}
        weighted = [(index[a.entry_id], index[b.entry_id], cost(a, b)) for a, b in edges]
        weighted += [(index[e.entry_id], n, bye_unit * bye_step[e.entry_id]) for e in eligible]
        top = max(c for _, _, c in weighted) + 1
        graph.add_weighted_edges_from((u, v, top - c) for u, v, c in weighted)
        matching = nx.max_weight_matching(graph, maxcardinality=True)
        if len(matching) * 2 != n + odd:  # only with a window below 2: widen it
            continue
        bye = None
        pairs = []
        for u, v in matching:
            u, v = min(u, v), max(u, v)
            if v == n:
                bye = standings[u]
            else:
                pairs.append((standings[u], standings[v]))
        if window is None:
            return pairs, bye
        if not any(_met(a, b) for a, b in pairs) and (not odd or bye is eligible[-1]):
            return pairs, bye
    raise AssertionError("the complete graph always has a perfect matching")


def _edges(standings: list[PairingEntry], window: int | None):
    """Candidate tables: all pairs, or each entry with its nearest ``window`` entries not yet
    met above and below it in the standings (plus the opponents met in between)."""
    n = len(standings)
    if window is None:
        return [(standings[i], standings[j]) for i in range(n) for j in range(i + 1, n)]
    chosen: dict[tuple[int, int], None] = {}
    for i, entry in enumerate(standings):
        for step in (1, -1):
            fresh = 0
            j = i + step
            while 0 <= j < n and fresh < window:
                chosen[(min(i, j), max(i, j))] = None
                if not _met(entry, standings[j]):
                    fresh += 1
                j += step
    return [(standings[i], standings[j]) for i, j in sorted(chosen)]


def _present(pairs, bye: PairingEntry | None) -> Pairing:
    """Side A = better placed; tables by the higher score at the table, then better rank."""
    tables = []
    for a, b in pairs:
        a, b = sorted((a, b), key=_placement)
        tables.append((a, b))
    tables.sort(key=lambda t: (-max(t[0].score, t[1].score), _placement(t[0])))
    return Pairing(
        tables=[(a.entry_id, b.entry_id) for a, b in tables],
        bye=bye.entry_id if bye is not None else None,
    )
