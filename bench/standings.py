"""Benchmark: the public standings page of a 512-entry, 9-round dominó tournament (fixed pairs)
and of a 512-entry, 9-round Swiss one.

    /tmp/v/bin/python bench/standings.py [--db sqlite|postgres] [--requests 25]

Both tournaments come from ``manage.py generate_club --single-tournament-size 512 --rounds 9``
(``--system domino`` / ``--system swiss``). Django runs as in production (DEBUG off); each page
is requested through ``django.test.Client`` (whole middleware stack, template rendering): the
median server time of ``--requests`` requests after a warm-up, and the SQL queries of one.
"""

from __future__ import annotations

import argparse
import time

from _setup import collect_static, django_on, drop_database, production_like, report

DB_NAME = "clubsite_bench_standings"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="postgres")
    parser.add_argument("--requests", type=int, default=25)
    parser.add_argument("--show-queries", action="store_true")
    args = parser.parse_args()
    production_like()
    django_on(args.db, DB_NAME)
    collect_static()
    from django.core.management import call_command
    from django.urls import reverse

    from tournaments.models import Result, Seat, Tournament

    t0 = time.perf_counter()
    for system, slug, players in (
        ("domino", "bench-domino-512", 1024),  # 512 fixed pairs
        ("swiss", "bench-swiss-512", 512),
    ):
        call_command(
            "generate_club",
            players=players,
            tournaments=0,
            seed=11,
            single_tournament_size=512,
            rounds=9,
            system=system,
            slug=slug,
            skip_ledger=True,
            verbosity=0,
        )
    print(
        f"generated in {time.perf_counter() - t0:.1f} s ({args.db}); "
        f"{Seat.objects.count()} seats, {Result.objects.count()} dominó results"
    )
    for slug in ("bench-domino-512", "bench-swiss-512"):
        t = Tournament.objects.get(slug=slug)
        report(
            f"standings {t.system} {t.entries.count()} entries x {t.rounds.count()} rounds",
            reverse("public:standings", args=[slug]),
            args.requests,
            show_queries=args.show_queries,
        )
    if args.db == "postgres":
        drop_database(DB_NAME)


if __name__ == "__main__":
    main()
