"""Round robin ("todos con todos") pairings by the circle method (SCORING.md §1, "Byes"),
and the same schedule once entries withdraw (SCORING.md §5, "Withdrawals")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tournaments.errors import DomainError


def round_robin(entry_ids: list[int]) -> list[list[tuple[int, int | None]]]:
    """All rounds of a round robin where every pair of entries meets exactly once.

    Input: entry ids (at least 2, no repeats); the result depends only on their order.
    Output: a list of rounds; each round is a list of ``(side_a, side_b)`` pairs of entry ids.
    With an even count: n − 1 rounds of n/2 games. With an odd count: n rounds, each with
    (n − 1)/2 games plus one ``(entry, None)`` pair for the entry that rests, last in the
    round; every entry rests exactly once (the "rest" bye rule of SCORING.md §1 then keeps
    everyone level).

    Circle method: the first slot stays fixed (the first entry, or the empty seat when the
    count is odd) and the rest rotate one step per round. Side balance: the fixed entry
    alternates sides round by round; every other pair puts the upper row on side A, and as
    each rotating entry visits each slot once, every entry is side A in half its games
    (|A − B| ≤ 1; exactly half when the count is odd).

    Raises ``DomainError`` ``too_few_entries`` (fewer than 2) or ``duplicate_entry``.
    """
    entries = list(entry_ids)
    if len(entries) < 2:
        raise DomainError("too_few_entries", count=len(entries))
    seen: set[int] = set()
    for entry_id in entries:
        if entry_id in seen:
            raise DomainError("duplicate_entry", entry_id=entry_id)
        seen.add(entry_id)

    slots: list[int | None] = [None, *entries] if len(entries) % 2 else entries
    fixed, rotating = slots[0], slots[1:]
    n = len(slots)
    rounds: list[list[tuple[int, int | None]]] = []
    for number in range(n - 1):
        row = rotating[number:] + rotating[:number]
        games: list[tuple[int, int | None]] = []
        opponent = row[-1]
        if fixed is None:
            rest = (opponent, None)
        else:
            rest = None
            games.append((fixed, opponent) if number % 2 == 0 else (opponent, fixed))
        for i in range(n // 2 - 1):
            games.append((row[i], row[n - 3 - i]))
        if rest:
            games.append(rest)
        rounds.append(games)
    return rounds


@dataclass(frozen=True)
class ScheduledRound:
    """One round of a round robin with the withdrawals applied (``schedule``).

    ``number``: the round, from 1. ``games``: the scheduled tables whose two entries are both
    still in, as ``(side A, side B)`` entry ids, in the schedule's order. ``resting``: the
    entries still in without a game this round, in the schedule's order: the odd count's rest
    and the scheduled opponent of a withdrawn entry. ``out``: the withdrawn entries (withdrawn
    after an earlier round), in the order given."""

    number: int
    games: tuple[tuple[int, int], ...]
    resting: tuple[int, ...]
    out: tuple[int, ...]


def schedule(
    entry_ids: list[int], *, withdrawn_after: Mapping[int, int] | None = None
) -> list[ScheduledRound]:
    """Every round of the round robin of ``entry_ids`` with the withdrawals applied.

    The schedule is ``round_robin(entry_ids)`` over every entry given, withdrawn ones included,
    so a withdrawal never moves anybody else's games. ``withdrawn_after`` maps an entry id to
    the last round it plays (``Entry.dropped_after_round``; 0: none); from the round after,
    it is ``out``: it has no game and no rest, and its scheduled opponent rests that round
    (SCORING.md §5: a rest scored by the tournament's bye rule). When both entries of a
    scheduled game are out, nobody rests for it. A round may have no games at all (every
    entry still in rests).

    Raises ``DomainError`` ``too_few_entries``, ``duplicate_entry`` (as ``round_robin``).

    Example: entries 1–6, entry 6 withdrawn after round 2: round 3 of ``round_robin`` is
    (1, 3), (4, 2), (5, 6); here it is games ((1, 3), (4, 2)), resting (5,), out (6,).
    """
    gone = dict(withdrawn_after or {})
    rounds = []
    for number, pairs in enumerate(round_robin(entry_ids), start=1):
        out = {e for e, last in gone.items() if last < number}
        games: list[tuple[int, int]] = []
        resting: list[int] = []
        for a, b in pairs:
            if b is None:
                if a not in out:
                    resting.append(a)
            elif a in out and b not in out:
                resting.append(b)
            elif b in out and a not in out:
                resting.append(a)
            elif a not in out and b not in out:
                games.append((a, b))
        rounds.append(
            ScheduledRound(
                number=number,
                games=tuple(games),
                resting=tuple(resting),
                out=tuple(e for e in entry_ids if e in out),
            )
        )
    return rounds


@dataclass(frozen=True)
class Slot:
    """Where the schedule puts one entry in one round (``slot_of``): ``opponent`` (None: the
    odd count's rest), ``side`` ("A" or "B"; "A" on a rest) and ``table``, the game's place
    among the round's games when every entry plays (1-based; None on a rest)."""

    opponent: int | None
    side: str
    table: int | None


def slot_of(entry_ids: list[int], number: int, entry_id: int) -> Slot:
    """The slot of ``entry_id`` in round ``number`` of the round robin of ``entry_ids``
    (``round_robin``, no withdrawals applied). Raises ``DomainError`` ``too_few_entries``,
    ``duplicate_entry``, ``invalid_round_number`` (not a round of the schedule) and
    ``foreign_entry`` (an entry not in ``entry_ids``)."""
    rounds = round_robin(entry_ids)
    if not 1 <= number <= len(rounds):
        raise DomainError("invalid_round_number")
    table = 0
    for a, b in rounds[number - 1]:
        if b is not None:
            table += 1
        if entry_id == a:
            return Slot(opponent=b, side="A", table=table if b is not None else None)
        if entry_id == b:
            return Slot(opponent=a, side="B", table=table)
    raise DomainError("foreign_entry", name=entry_id)


def first_conflict(
    entry_ids: list[int], seated: Mapping[int, Iterable[Iterable[int]]]
) -> int | None:
    """The first round of ``seated`` that does not follow the round robin of ``entry_ids``,
    or None when every one does.

    ``seated`` maps a round number to the entry ids at each of its tables. A round follows
    the schedule when it is one of its rounds and each of its tables is a game the schedule
    gives that round (``round_robin``, withdrawn entries included). A scheduled game missing
    from a round is no conflict: the games of a withdrawn entry are taken out (SCORING.md §5),
    and a round of rests only has no tables."""
    planned = [
        {frozenset(pair) for pair in pairs if None not in pair} for pairs in round_robin(entry_ids)
    ]
    for number in sorted(seated):
        if not 1 <= number <= len(planned):
            return number
        if any(frozenset(table) not in planned[number - 1] for table in seated[number]):
            return number
    return None
