"""Round robin ("todos con todos") pairings by the circle method (SCORING.md §1, "Byes")."""

from __future__ import annotations

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
