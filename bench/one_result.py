"""Benchmark: entering one result at the end of a long season against one in an empty season.

    /tmp/v/bin/python bench/one_result.py                   # PostgreSQL, 100,000 games
    /tmp/v/bin/python bench/one_result.py --db sqlite --games 20000

Each measurement is ``ledger_rebuild.one_more_result``: a new mano a mano tournament after every
other game, one table, and ``services.record_result`` timed with its commit hook (the ledger
replay from that game) and its SQL queries counted. Median of ``--repeat`` results in the empty
database, then the season (``ledger_rebuild.make_season``: pairs games, 4 ledger rows each),
its ledger rebuilt and ANALYZEd, then the median of ``--repeat`` more. Target: ratio ≤ 2×.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import time

from _setup import django_on, drop_database

DB_NAME = "clubsite_bench_one_result"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="postgres")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--keep", action="store_true", help="keep the PostgreSQL database afterwards"
    )
    args = parser.parse_args()
    django_on(args.db, DB_NAME)
    from django.db import connection
    from django.db.models import Max
    from ledger_rebuild import make_season, one_more_result

    from rankings import ledger
    from rankings.models import LedgerRow
    from tournaments.models import Tournament

    warm_day = dt.date(2025, 12, 1)  # before the season: warms caches, never at the end
    one_more_result(date=warm_day)
    empty = [one_more_result(date=warm_day + dt.timedelta(days=1)) for _ in range(args.repeat)]

    t0 = time.perf_counter()
    n = make_season(args.games)
    print(f"season: {n} games made in {time.perf_counter() - t0:.1f} s ({args.db})")
    t0 = time.perf_counter()
    report = ledger.rebuild()
    print(f"ledger rebuilt: {report.written} rows in {time.perf_counter() - t0:.1f} s")
    if connection.vendor == "postgresql":  # what autovacuum does after a bulk load
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    last = Tournament.objects.aggregate(d=Max("date"))["d"]
    full = [one_more_result(date=last + dt.timedelta(days=1)) for _ in range(args.repeat)]

    def show(label, runs):
        ms = statistics.median(s for s, _ in runs) * 1000
        queries = statistics.median(q for _, q in runs)
        spread = ", ".join(f"{s * 1000:.0f}" for s, _ in runs)
        print(f"one result, {label}: median {ms:.1f} ms, {queries:.0f} queries (runs ms: {spread})")
        return ms

    e = show("empty season", empty)
    f = show(f"after {n} games ({LedgerRow.objects.count()} ledger rows)", full)
    ratio = f / e
    print(
        f"ratio end-of-season / empty: {ratio:.2f}x (target <= 2x: {'met' if ratio <= 2 else 'MISSED'})"
    )
    if args.db == "postgres" and not args.keep:
        drop_database(DB_NAME)


if __name__ == "__main__":
    main()
