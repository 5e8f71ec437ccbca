"""Benchmark: repeats and time of the seating engine (tournaments/pairing/seating.py).

    .venv/bin/python bench/seating_repeats.py            # the figures below, seed 1
    .venv/bin/python bench/seating_repeats.py --seed 7

Simulates whole events with random results (standings = cumulative random points, then
entry id) and prints, per field size, the repeats that ``count_repeats`` finds:
- individual dominó with rotating partners, 16 and 24 players over 7 rounds: partner repeats
  (ideal 0), opponent repeats and repeat meetings;
- table games, 3 to 60 players over 7 rounds: repeat meetings;
and the slowest round (CPU seconds). The module is pure Python, so no Django and no database
are needed.
Exits 0.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.pairing.seating import (  # noqa: E402
    PARTNERS,
    TABLE,
    count_repeats,
    players_from_history,
    seat_rotating_partners,
    seat_table_game,
)


def simulate(n: int, rounds: int, mode: str, seed: int):
    """Seat ``rounds`` rounds of ``n`` players; return (seatings, slowest round in seconds of
    CPU time of this process: the wall clock also counts whatever else the machine runs)."""
    rng = random.Random(seed)
    engine = seat_rotating_partners if mode == PARTNERS else seat_table_game
    ids = list(range(101, 101 + n))
    points = dict.fromkeys(ids, 0)
    seatings, slowest = [], 0.0
    for number in range(1, rounds + 1):
        standings = sorted(ids, key=lambda eid: (-points[eid], eid))
        players = players_from_history(standings, seatings, mode)
        start = time.process_time()
        seating = engine(players, seed=seed * 1000 + number, first_round=number == 1)
        slowest = max(slowest, time.process_time() - start)
        seatings.append(seating)
        for table in seating.tables:
            if mode == PARTNERS:
                winners = table[0::2] if rng.random() < 0.5 else table[1::2]
                for eid in winners:
                    points[eid] += rng.randint(1, 3)
            else:
                for place, eid in enumerate(rng.sample(table, len(table))):
                    points[eid] += 5 - place
    return seatings, slowest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    print(f"Rotating partners (dominó individual), {args.rounds} rounds, seed {args.seed}")
    print(
        f"{'players':>7} {'partners':>8} {'opponents':>9} {'meetings':>8} {'slowest s':>9}  (CPU)"
    )
    for n in (16, 24):
        seatings, slowest = simulate(n, args.rounds, PARTNERS, args.seed)
        r = count_repeats(seatings, PARTNERS)
        print(f"{n:>7} {r['partners']:>8} {r['opponents']:>9} {r['meetings']:>8} {slowest:>9.3f}")

    print(f"\nTable games, {args.rounds} rounds, seed {args.seed}")
    print(f"{'players':>7} {'meetings':>8} {'slowest s':>9}  (CPU)")
    total_start = time.process_time()
    worst = 0.0
    for n in range(3, 61):
        seatings, slowest = simulate(n, args.rounds, TABLE, args.seed)
        worst = max(worst, slowest)
        r = count_repeats(seatings, TABLE)
        print(f"{n:>7} {r['meetings']:>8} {slowest:>9.3f}")
    print(
        f"\nslowest table-game round {worst:.3f} s; "
        f"all table-game events {time.process_time() - total_start:.1f} s (CPU)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
