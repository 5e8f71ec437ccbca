"""Benchmark: ``rebuild_ledger`` over N rated pairs games (4 ledger rows each) against a plain
COPY of the same precomputed rows.

    nice -n 5 .venv/bin/python bench/ledger_copy.py          # PostgreSQL, 100,000 games
    .venv/bin/python bench/ledger_copy.py --games 20000       # a check

The season is ``ledger_rebuild.make_season`` (pairs games, 400 players). Timed, twice each,
alternated (the load of a shared machine drifts), the best of each kept:

1. ``rankings.ledger.rebuild()`` into the empty ledger (what ``manage.py rebuild_ledger`` times:
   read the rated games, compute every Elo step, write the rows and the year figures); before
   the second, the ledger and the year figures are emptied with TRUNCATE, so both runs write
   into an empty table as the floor does;
2. the floor: the same rows (``rated_games`` + ``compute_rows``, computed beforehand, as tuples
   in ``ledger.COLUMNS`` order), written by one ``COPY`` into a fresh scratch table
   ``CREATE TABLE … (LIKE rankings_ledgerrow INCLUDING ALL)`` (same columns, defaults,
   indexes and unique constraint; the ledger has no foreign-key constraint either), in one
   transaction, row by row with psycopg's ``Copy.write_row``, both in text format and in binary
   format with the columns' types set (``ledger.copy_types``); the faster of the two is the
   floor.

Then one more rebuild over the full ledger (delete + write), for information. Prints seconds and
rows/s of each, the ratio rebuild / COPY (target ≤ 1.3×) and, last,
``rebuild_s=… copy_s=… ratio=…``. PostgreSQL only (``--db sqlite`` runs the rebuild alone:
SQLite has no COPY).
"""

from __future__ import annotations

import argparse
import time

from _setup import django_on, drop_database

DB_NAME = "clubsite_bench_ledger_copy"
TARGET = 1.3


def copy_floor(rows: list[tuple], binary: bool) -> float:
    """Seconds to COPY ``rows`` (``ledger.COLUMNS`` order) into a fresh scratch copy of the
    ledger table (``LIKE … INCLUDING ALL``: the same columns, defaults, indexes and unique
    constraint) in one transaction, each row by psycopg's ``Copy.write_row``: in binary format
    with the columns' types set (``binary``, what the replay does), or as text."""
    from django.db import connection, transaction

    from rankings import ledger
    from rankings.models import LedgerRow

    table = connection.ops.quote_name(LedgerRow._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(c) for c in ledger.COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_ledger_scratch")
        cursor.execute(f"CREATE TABLE bench_ledger_scratch (LIKE {table} INCLUDING ALL)")
    statement = f"COPY bench_ledger_scratch ({columns}) FROM STDIN"
    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        with cursor.copy(statement + (" (FORMAT BINARY)" if binary else "")) as copy:
            if binary:
                copy.set_types(ledger.copy_types(LedgerRow, ledger.COLUMNS))
            for row in rows:
                copy.write_row(row)
    seconds = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM bench_ledger_scratch")
        assert cursor.fetchone()[0] == len(rows)
        cursor.execute("DROP TABLE bench_ledger_scratch")
    return seconds


def empty_ledger() -> None:
    """TRUNCATE the ledger and the year figures (the benchmark's own database: a table as
    empty as the floor's fresh one, no dead rows)."""
    from django.db import connection

    from rankings.models import LedgerRow, YearRating

    with connection.cursor() as cursor:
        for model in (LedgerRow, YearRating):
            cursor.execute(f"TRUNCATE {connection.ops.quote_name(model._meta.db_table)}")


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

    if connection.vendor != "postgresql":
        t0 = time.perf_counter()
        report = ledger.rebuild()
        print(f"rebuild_ledger: {report.written} rows in {time.perf_counter() - t0:.2f} s")
        print("COPY floor: PostgreSQL only; skipped.")
        return

    t0 = time.perf_counter()
    games = ledger.rated_games()
    read_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = list(ledger.compute_rows(games, {}))
    compute_s = time.perf_counter() - t0
    print(
        f"alone: read {len(games)} rated games {read_s:.2f} s; Elo for {len(rows)} rows "
        f"{compute_s:.2f} s"
    )
    rebuilds, floors = [], {"text": [], "binary": []}
    for attempt in (1, 2):
        if attempt == 2:
            empty_ledger()
        t0 = time.perf_counter()
        report = ledger.rebuild()
        rebuilds.append(time.perf_counter() - t0)
        print(
            f"rebuild_ledger (empty ledger) #{attempt}: {report.written} rows in "
            f"{rebuilds[-1]:.2f} s = {report.written / rebuilds[-1]:,.0f} rows/s"
        )
        for how in ("text", "binary"):
            floors[how].append(copy_floor(rows, how == "binary"))
            print(
                f"plain COPY ({how}) #{attempt} of {len(rows)} precomputed rows into a scratch "
                f"table: {floors[how][-1]:.2f} s = {len(rows) / floors[how][-1]:,.0f} rows/s"
            )
    t0 = time.perf_counter()
    again = ledger.rebuild()
    again_s = time.perf_counter() - t0
    print(
        f"rebuild_ledger (over a full ledger: delete {again.deleted} + write): {again.written} rows "
        f"in {again_s:.2f} s = {again.written / again_s:,.0f} rows/s"
    )
    rebuild_s = min(rebuilds)
    how = min(floors, key=lambda k: min(floors[k]))
    copy_s = min(floors[how])
    ratio = rebuild_s / copy_s
    print(
        f"best of 2: rebuild {rebuild_s:.2f} s; the floor is the faster plain COPY ({how}) "
        f"{copy_s:.2f} s (text {min(floors['text']):.2f} s, binary {min(floors['binary']):.2f} s)"
    )
    print(
        f"ratio rebuild / COPY: {ratio:.2f}x (target <= {TARGET}x: "
        f"{'met' if ratio <= TARGET else 'MISSED'}); over a full ledger / COPY: "
        f"{again_s / copy_s:.2f}x"
    )
    print(f"rebuild_s={rebuild_s:.2f} copy_s={copy_s:.2f} ratio={ratio:.2f}")
    if not args.keep:
        drop_database(DB_NAME)


if __name__ == "__main__":
    main()
