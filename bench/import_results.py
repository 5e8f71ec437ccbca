"""Benchmark: a dominó results file imported through the services, then imported again.

    .venv/bin/python bench/import_results.py                      # PostgreSQL
    .venv/bin/python bench/import_results.py --db sqlite --pairs 128 --rounds 5

A pairs tournament to 100 with ``--pairs`` pairs (all new players) and a file of ``--rounds``
rounds of random games (seed 5): the first import creates every player, entry, round, table
and result (each table through ``services.seat_table`` and ``services.record_result``); the
second finds every table unchanged. Prints both times with the commit (and its ledger replay).
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import time

from _setup import django_on, drop_database

DB_NAME = "clubsite_bench_import"


def results_file(pairs: int, rounds: int) -> bytes:
    """The CSV text of ``rounds`` rounds of ``pairs`` pairs, random winners and tantos."""
    rng = random.Random(5)
    names = [f"Jugador {2 * i:04d} Pérez & Jugador {2 * i + 1:04d} Gómez" for i in range(pairs)]
    lines = ["round,table,side_a,side_b,tantos_a,tantos_b,ended_by_time,forfeit,played_at"]
    for number in range(1, rounds + 1):
        order = names[:]
        rng.shuffle(order)
        for table in range(pairs // 2):
            loser = rng.randint(0, 99)
            a, b = (100, loser) if rng.random() < 0.5 else (loser, 100)
            lines.append(
                f"{number},{table + 1},{order[2 * table]},{order[2 * table + 1]},{a},{b},no,no,"
            )
    return ("\n".join(lines) + "\n").encode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="postgres")
    parser.add_argument("--pairs", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    django_on(args.db, DB_NAME)
    from tournaments import imports, services

    t = services.create_tournament(
        acting_user=None,
        name="Importación",
        date=dt.date(2026, 11, 7),
        system="domino",
        mode="pairs",
        target=100,
        rounds_planned=args.rounds,
        status="running",
    )
    data = results_file(args.pairs, args.rounds)
    games = args.pairs // 2 * args.rounds
    for label in ("first import", "same file again"):
        start = time.perf_counter()
        report = imports.import_results(acting_user=None, tournament=t, data=data)
        took = time.perf_counter() - start
        print(
            f"{label}: {games} games, {took:.2f} s ({1000 * took / games:.1f} ms a game); "
            f"created {report.created}, unchanged {report.unchanged}"
        )
    if args.db == "postgres":
        drop_database(DB_NAME)


if __name__ == "__main__":
    main()
