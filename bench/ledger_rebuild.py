"""Benchmark: rebuild_ledger over N rated pairs games (4 ledger rows each).

    .venv/bin/python bench/ledger_rebuild.py --db sqlite --games 20000
    .venv/bin/python bench/ledger_rebuild.py --db postgres --games 20000

Prints the seconds and rows per second of a full rebuild, and the cost of one more result at
the end of the season (time and SQL queries) against one in an empty season.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import time

from _setup import django_on


def make_season(n_games: int, seed: int = 7):
    from tournaments.models import Entry, Player, Result, Round, Seat, Table, Tournament

    rng = random.Random(seed)
    players = Player.objects.bulk_create(
        Player(full_name=f"Bench {i:04d}", name_key=f"bench {i:04d}") for i in range(400)
    )
    per_tournament = 20 * 10  # 20 tables, 10 rounds
    n_tournaments = max(1, n_games // per_tournament)
    start = dt.datetime(2026, 1, 3, 10, tzinfo=dt.UTC)
    for ti in range(n_tournaments):
        t = Tournament.objects.create(
            name=f"Bench {ti}",
            slug=f"bench-{ti}",
            date=(start + dt.timedelta(days=ti)).date(),
            mode="pairs",
            status="finished",
        )
        chosen = rng.sample(players, 80)
        entries = Entry.objects.bulk_create(
            Entry(tournament=t, player1=chosen[2 * i], player2=chosen[2 * i + 1]) for i in range(40)
        )
        rounds = Round.objects.bulk_create(
            Round(tournament=t, number=n + 1, closed=True) for n in range(10)
        )
        tables = Table.objects.bulk_create(
            Table(round=r, number=k + 1) for r in rounds for k in range(20)
        )
        seats, results = [], []
        order = entries[:]
        for idx, table in enumerate(tables):
            r = rounds[idx // 20]
            if idx % 20 == 0:
                rng.shuffle(order)
            a, b = order[2 * (idx % 20)], order[2 * (idx % 20) + 1]
            seats += [
                Seat(table=table, round=r, entry=a, side="A"),
                Seat(table=table, round=r, entry=b, side="B"),
            ]
            loser = rng.randint(0, 99)
            ta, tb = (
                (100 + rng.randint(0, 20), loser)
                if rng.random() < 0.5
                else (loser, 100 + rng.randint(0, 20))
            )
            when = start + dt.timedelta(days=ti, hours=idx // 20)
            results.append(Result(table=table, tantos_a=ta, tantos_b=tb, played_at=when))
        Seat.objects.bulk_create(seats)
        Result.objects.bulk_create(results)
    return n_tournaments * per_tournament


def one_more_result(date: dt.date = dt.date(2026, 12, 30)):
    """Seat and record one game on ``date`` (after everything else); returns (seconds, queries)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournaments import services

    t = services.create_tournament(
        acting_user=None,
        name="Final",
        date=date,
        system="domino",
        mode="single",
        target=100,
        status="running",
    )
    tag = time.perf_counter_ns()
    players = [
        services.create_player(acting_user=None, full_name=f"Final {tag} {i}") for i in range(2)
    ]
    entries = [
        services.register_entry(acting_user=None, tournament=t, players=[p]) for p in players
    ]
    rnd = services.set_pairings(
        acting_user=None, tournament=t, round_number=1, tables=[([entries[0]], [entries[1]])]
    )
    table = rnd.tables.get()
    started = time.perf_counter()
    with CaptureQueriesContext(connection) as ctx:
        services.record_result(
            acting_user=None, table=table, tantos_a=100, tantos_b=42, version=None
        )
    import os

    if os.environ.get("BENCH_SHOW_QUERIES"):
        for q in sorted(ctx.captured_queries, key=lambda q: -float(q["time"]))[:5]:
            print(f"  {float(q['time']) * 1000:7.1f} ms  {q['sql'][:300]}")
    return time.perf_counter() - started, len(ctx.captured_queries)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--games", type=int, default=20000)
    args = parser.parse_args()
    django_on(args.db)
    from rankings import ledger
    from rankings.models import LedgerRow

    empty_seconds, empty_queries = one_more_result()
    t0 = time.perf_counter()
    n = make_season(args.games)
    print(f"season: {n} games made in {time.perf_counter() - t0:.1f} s ({args.db})")
    t0 = time.perf_counter()
    report = ledger.rebuild()
    seconds = time.perf_counter() - t0
    rows = LedgerRow.objects.count()
    from django.db import connection

    if connection.vendor == "postgresql":  # what autovacuum does after a bulk load
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    print(
        f"rebuild_ledger: {report.written} rows in {seconds:.2f} s = {report.written / seconds:,.0f} rows/s (table holds {rows})"
    )
    full_seconds, full_queries = one_more_result()
    print(f"one result, empty season: {empty_seconds * 1000:.1f} ms, {empty_queries} queries")
    print(
        f"one result, after {n} games: {full_seconds * 1000:.1f} ms, {full_queries} queries "
        f"(ratio {full_seconds / empty_seconds:.2f})"
    )


if __name__ == "__main__":
    main()
