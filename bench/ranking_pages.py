"""Benchmark: the ranking page of a year with 5,000 players and the page of a player with about
500 games in it.

    /tmp/v/bin/python bench/ranking_pages.py [--db sqlite|postgres] [--requests 25]

The club is ``manage.py generate_club --players 5000 --tournaments 1000 --days 330 --end
2026-11-30`` (every game in 2026, about 100,000 of them; the ledger rebuilt once), then
ANALYZE. Django runs as in production (DEBUG off); each page is requested through
``django.test.Client``: the median server time of ``--requests`` requests after a warm-up and
the SQL queries of one. The player is the one whose game count is nearest 500.
"""

from __future__ import annotations

import argparse
import datetime as dt
import time

from _setup import collect_static, django_on, drop_database, production_like, report

DB_NAME = "clubsite_bench_ranking_pages"
YEAR = 2026


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="postgres")
    parser.add_argument("--requests", type=int, default=25)
    parser.add_argument("--players", type=int, default=5000)
    parser.add_argument("--tournaments", type=int, default=1000)
    parser.add_argument("--show-queries", action="store_true")
    parser.add_argument(
        "--keep", action="store_true", help="keep the PostgreSQL database afterwards"
    )
    args = parser.parse_args()
    production_like()
    os_tz_year_end = dt.date(YEAR, 11, 30)
    django_on(args.db, DB_NAME)
    collect_static()
    from django.core.management import call_command
    from django.db import connection
    from django.db.models import Count
    from django.urls import reverse

    from rankings.models import LedgerRow

    t0 = time.perf_counter()
    call_command(
        "generate_club",
        players=args.players,
        tournaments=args.tournaments,
        seed=5,
        end=os_tz_year_end,
        days=330,
        verbosity=0,
    )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    counts = dict(LedgerRow.objects.filter(year=YEAR).values_list("player").annotate(n=Count("id")))
    print(
        f"generated in {time.perf_counter() - t0:.1f} s ({args.db}): "
        f"{LedgerRow.objects.values('table_id').distinct().count()} rated games, "
        f"{LedgerRow.objects.count()} ledger rows, {len(counts)} players ranked in {YEAR}"
    )
    pk, games = min(counts.items(), key=lambda kv: (abs(kv[1] - 500), kv[0]))
    pages = [
        (f"ranking {YEAR} ({len(counts)} players)", reverse("rankings:ranking") + f"?year={YEAR}"),
        (f"player page ({games} games)", reverse("rankings:player", args=[pk])),
    ]
    for label, path in pages:
        report(label, path, args.requests, show_queries=args.show_queries)
    if args.db == "postgres" and not args.keep:
        drop_database(DB_NAME)


if __name__ == "__main__":
    main()
