"""Benchmark: ``rebuild_ledger`` over N rated pairs games (4 ledger rows each) against a plain
COPY of the same number of precomputed rows.

    /tmp/v/bin/python bench/ledger_copy.py                  # PostgreSQL, 100,000 games
    /tmp/v/bin/python bench/ledger_copy.py --games 20000

The season is ``ledger_rebuild.make_season`` (pairs games, 400 players). Timed:

1. ``rankings.ledger.rebuild()`` into the empty ledger (what ``manage.py rebuild_ledger`` times:
   read the rated games, compute every Elo step, write the rows), then once more over the full
   ledger (delete + write);
2. the floor: the same rows, computed beforehand, written by one ``COPY`` (psycopg
   ``cursor.copy``) into a scratch table ``CREATE TABLE … (LIKE rankings_ledgerrow INCLUDING
   ALL)`` (same columns, indexes and unique constraint, no foreign keys), in one transaction.

Prints seconds and rows/s of each and the ratio rebuild / COPY (target ≤ 3×). PostgreSQL only
(``--db sqlite`` runs the rebuild alone: SQLite has no COPY).
"""

from __future__ import annotations

import argparse
import time

from _setup import django_on, drop_database

DB_NAME = "clubsite_bench_ledger_copy"


def copy_floor(rows: list[tuple]) -> float:
    """Seconds to COPY ``rows`` (``ledger.COLUMNS`` order) into a scratch copy of the ledger table."""
    from django.db import connection, transaction

    from rankings import ledger
    from rankings.models import LedgerRow

    table = connection.ops.quote_name(LedgerRow._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(c) for c in ledger.COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_ledger_scratch")
        cursor.execute(f"CREATE TABLE bench_ledger_scratch (LIKE {table} INCLUDING ALL)")
    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        with cursor.copy(f"COPY bench_ledger_scratch ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    seconds = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM bench_ledger_scratch")
        assert cursor.fetchone()[0] == len(rows)
        cursor.execute("DROP TABLE bench_ledger_scratch")
    return seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="postgres")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument(
        "--keep", action="store_true", help="keep the PostgreSQL database afterwards"
    )
    args = parser.parse_args()
    django_on(args.db, DB_NAME)
    from django.db import connection
    from ledger_rebuild import make_season

    from rankings import ledger

    t0 = time.perf_counter()
    n = make_season(args.games)
    print(f"season: {n} games made in {time.perf_counter() - t0:.1f} s ({args.db})")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")

    t0 = time.perf_counter()
    report = ledger.rebuild()
    rebuild_s = time.perf_counter() - t0
    print(
        f"rebuild_ledger (empty ledger): {report.written} rows in {rebuild_s:.2f} s "
        f"= {report.written / rebuild_s:,.0f} rows/s"
    )
    t0 = time.perf_counter()
    again = ledger.rebuild()
    again_s = time.perf_counter() - t0
    print(
        f"rebuild_ledger (over a full ledger: delete {again.deleted} + write): {again.written} rows "
        f"in {again_s:.2f} s = {again.written / again_s:,.0f} rows/s"
    )

    t0 = time.perf_counter()
    games = ledger.rated_games()
    read_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = list(ledger.compute_rows(games, {}))
    compute_s = time.perf_counter() - t0
    print(
        f"  of which: read {len(games)} rated games {read_s:.2f} s; Elo for {len(rows)} rows {compute_s:.2f} s"
    )
    if connection.vendor != "postgresql":
        print("COPY floor: PostgreSQL only; skipped.")
        return
    copy_s = copy_floor(rows)
    print(
        f"plain COPY of {len(rows)} precomputed rows into a scratch table: {copy_s:.2f} s "
        f"= {len(rows) / copy_s:,.0f} rows/s"
    )
    ratio = rebuild_s / copy_s
    print(
        f"ratio rebuild / COPY: {ratio:.2f}x (target <= 3x: {'met' if ratio <= 3 else 'MISSED'}); "
        f"second rebuild / COPY: {again_s / copy_s:.2f}x"
    )
    if not args.keep:
        drop_database(DB_NAME)


if __name__ == "__main__":
    main()
