"""Benchmark: every public page at demo size against federation size, side by side in one run,
computed and from the page cache.

    .venv/bin/python bench/page_scale.py                                  # PostgreSQL, full club
    .venv/bin/python bench/page_scale.py --players 500 --tournaments 100  # a quick check

Two throw-away databases: one with ``manage.py load_demo`` (the demo club: four tournaments,
a few dozen players), one with ``manage.py generate_club --players 5000 --tournaments 1000
--seed 1`` (about 117,000 rated games, 405,000 ledger rows; ``--players``/``--tournaments``/
``--seed``/``--end`` change it; ``--end`` defaults to today, so the club differs from one day
to the next; ``--federation-from DATABASE`` copies an existing PostgreSQL database instead,
e.g. the club ``bench/throughput_writes.sh`` keeps with ``TEMPLATE=1``), both migrated, built with DJANGO_TASKS_BACKEND=immediate (the demo's
replays run inline: no change waits for a worker), given a league when they have none
(bench/_pages.py ``ensure_league``) and ANALYZEd.

The pages: every public URL pattern of the resolver, walked by bench/_pages.py, which chooses
each one's arguments in the club at hand (the largest dominó pairs tournament, the latest
finished one, the largest one's round with most tables, the player with most rated games, the
two players who met most often, the league, the year of the latest game, the calculator empty
and with a game); a pattern without a rule there makes the run fail. Then, for each database
in turn, a process of its own with Django as in production (DEBUG off) requests each page
through ``django.test.Client``: **computed** (DJANGO_PAGE_CACHE=0: every request computes the
page): one warm-up, the SQL queries of one request, the median of ``--requests`` (≥ 15); and
**cached** (page cache on): the first request stores the page, the queries of the second, the
median of ``--requests`` more. Heavy outputs (PDFs, workbooks, the year's ledger CSV:
``_pages.HEAVY``) are skipped with the reason printed, or measured once, computed, with
``--heavy``; the calculator's answer to a game is computed every time (never stored), so its
"cached" figures are computed ones too.

Prints a table (per page and mode: median ms, queries and bytes at both sizes, the ratio
federation / demo) and one final line per page with the computed and the cached ratio against
the target (≤ 3×). The databases are dropped at the end, also on failure (``--keep`` keeps
them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from _setup import ROOT, database, production_like

DB_NAMES = {"demo": "clubsite_bench_page_scale_demo", "federation": "clubsite_bench_page_scale_fed"}
TARGET = 3.0


def measure(requests: int, heavy: bool) -> dict:
    """In the child process (DATABASE_URL set): the sizes of the club and the figures of
    every public page (``_pages.public_pages``), as a dict."""
    import time as clock

    import django

    django.setup()
    from _pages import HEAVY, Club, public_pages
    from _setup import timed_requests
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from rankings.models import LedgerRow
    from tournaments.models import Player, Tournament

    out = {
        "club": {
            "tournaments": Tournament.objects.count(),
            "players": Player.objects.count(),
            "rated_games": LedgerRow.objects.values("table_id").distinct().count(),
            "ledger_rows": LedgerRow.objects.count(),
        },
        "pages": [],
    }
    club = Club()  # BENCH_TOURNAMENT_ENTRIES: the federation's tournament of the demo's size
    out["club"]["tournament_entries"] = club.largest.entries.count()
    for page in public_pages(club):
        figures = {"label": page.label, "path": page.path}
        if page.heavy and not heavy:
            figures["skipped"] = f"heavy output: {HEAVY[page.name]} (--heavy measures it once)"
        elif page.heavy:
            client = Client()
            with CaptureQueriesContext(connection) as ctx:
                started = clock.perf_counter()
                response = client.get(page.path)
                seconds = clock.perf_counter() - started
            assert response.status_code == 200, (page.path, response.status_code)
            figures["computed"] = {
                "median_ms": seconds * 1000,
                "min_ms": seconds * 1000,
                "queries": len(ctx),
                "bytes": len(response.content),
                "n": 1,
            }
        else:
            for mode, page_cache in (("computed", False), ("cached", not page.computed)):
                result = timed_requests(page.path, requests, page_cache=page_cache)
                result.pop("sql")
                figures[mode] = result
        out["pages"].append(figures)
    return out


def prepare() -> None:
    """In a child process: a league when the club has none (``_pages.ensure_league``)."""
    import django

    django.setup()
    from _pages import ensure_league

    made = ensure_league()
    print(f"    league made: {made}" if made else "    the club has a league")


def manage(env: dict, *args: str) -> None:
    """``manage.py`` with ``args`` on the database in ``env``; its output indented."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    lines = (result.stdout + result.stderr).splitlines()
    tasks = [line for line in lines if line.startswith("Task id=")]  # the immediate backend's log
    for line in lines:
        if line.strip() and line not in tasks:
            print(f"    {line}")
    if tasks:
        print(
            f"    ({sum('state=SUCCESSFUL' in line for line in tasks)} ledger replays run inline)"
        )
    if result.returncode:
        raise SystemExit(f"manage.py {' '.join(args)} failed ({result.returncode})")


def analyse(url: str) -> None:
    """ANALYZE (what autovacuum does after a bulk load)."""
    if url.startswith("sqlite:///"):
        import sqlite3

        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            conn.execute("ANALYZE")
        return
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ANALYZE")


def drop(kind: str, url: str, name: str) -> None:
    """Drop the PostgreSQL database ``name`` / remove the SQLite file's folder."""
    if kind == "sqlite":
        shutil.rmtree(Path(url.removeprefix("sqlite:///")).parent, ignore_errors=True)
        return
    import psycopg

    base = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def copy_database(source: str, name: str) -> str:
    """A new PostgreSQL database ``name``, a copy of database ``source`` (``CREATE DATABASE …
    TEMPLATE``; nobody may be connected to ``source``). Returns its URL."""
    import psycopg

    base = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{source}"')
    return base.rsplit("/", 1)[0] + f"/{name}"


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="postgres")
    parser.add_argument("--players", type=int, default=5000)
    parser.add_argument("--tournaments", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--end",
        default=None,
        help="generate_club's --end, YYYY-MM-DD (default: today in the site's time zone; "
        "the club differs from one day to the next)",
    )
    parser.add_argument("--requests", type=int, default=15)
    parser.add_argument("--heavy", action="store_true", help="measure the heavy outputs once")
    parser.add_argument("--keep", action="store_true", help="keep the databases afterwards")
    parser.add_argument(
        "--federation-from",
        metavar="DATABASE",
        help="copy the federation from this PostgreSQL database (e.g. the club "
        "bench/throughput_writes.sh keeps with TEMPLATE=1) instead of generating it",
    )
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # the child
    parser.add_argument("--prepare", action="store_true", help=argparse.SUPPRESS)  # the child
    args = parser.parse_args()
    if args.requests < 15:
        parser.error("--requests must be at least 15")
    production_like()
    os.environ["DJANGO_PAGE_CACHE"] = "0"
    os.environ["DJANGO_TASKS_BACKEND"] = "immediate"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubsite.settings")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")
    os.environ.pop("DATABASE_REPLICA_URL", None)
    if args.measure:
        print(json.dumps(measure(args.requests, args.heavy)))
        return 0
    if args.prepare:
        prepare()
        return 0

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # cleanup on kill too
    urls: dict[str, str] = {}
    try:
        for size in ("demo", "federation"):
            copied = size == "federation" and args.federation_from
            if copied:
                urls[size] = copy_database(args.federation_from, DB_NAMES[size])
            else:
                urls[size] = database(args.db, DB_NAMES[size])
            env = {**os.environ, "DATABASE_URL": urls[size]}
            t0 = time.perf_counter()
            manage(env, "migrate", "--noinput", "-v0")
            if copied:
                pass
            elif size == "demo":
                manage(env, "collectstatic", "--noinput", "-v0")
                manage(env, "load_demo")
            else:
                manage(
                    env,
                    "generate_club",
                    f"--players={args.players}",
                    f"--tournaments={args.tournaments}",
                    f"--seed={args.seed}",
                    *([f"--end={args.end}"] if args.end else []),
                )
            child = subprocess.run(
                [sys.executable, __file__, "--prepare"], cwd=ROOT, env=env, text=True
            )
            if child.returncode:
                raise SystemExit(f"preparing {size} failed ({child.returncode})")
            analyse(urls[size])
            club = (
                "load_demo"
                if size == "demo"
                else f"a copy of {args.federation_from}"
                if copied
                else (
                    f"generate_club --players {args.players} --tournaments {args.tournaments} "
                    f"--seed {args.seed} --end {args.end or 'today'}"
                )
            )
            print(
                f"{size}: {club}, built in {time.perf_counter() - t0:.1f} s ({args.db})", flush=True
            )

        results = {}
        for size in ("demo", "federation"):
            env = {**os.environ, "DATABASE_URL": urls[size]}
            if size == "federation":  # a tournament's pages: one of the demo's size (Club)
                env["BENCH_TOURNAMENT_ENTRIES"] = str(results["demo"]["club"]["tournament_entries"])
            print(f"measuring {size} (load average {load()})", flush=True)
            child = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--measure",
                    f"--requests={args.requests}",
                    *(["--heavy"] if args.heavy else []),
                ],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
            )
            if child.returncode:
                raise SystemExit(f"measuring {size} failed:\n{child.stderr[-3000:]}")
            results[size] = json.loads(child.stdout.strip().splitlines()[-1])
        report(results, args)
        return 0
    finally:
        if not args.keep:
            for size, url in urls.items():
                try:
                    drop(args.db, url, DB_NAMES[size])
                except Exception as exc:  # noqa: BLE001 - reported, the rest goes on
                    print(f"could not drop the {size} database: {exc!r}", file=sys.stderr)


def report(results: dict, args) -> None:
    for size in ("demo", "federation"):
        c = results[size]["club"]
        print(
            f"{size}: {c['tournaments']} tournaments, {c['players']} players, "
            f"{c['rated_games']} rated games, {c['ledger_rows']} ledger rows; the tournament "
            f"pages' tournament: {c['tournament_entries']} entries"
        )
    print(
        f"\nmedian of {args.requests} requests through django.test.Client (DEBUG off), {args.db}; "
        f"computed = page cache off, cached = page cache on, from the second request; "
        f"machine: {os.cpu_count()} cores, load average {load()}"
    )
    head = (
        f"{'page':<58} | {'mode':<8} | {'demo ms':>8} | {'q':>3} | {'bytes':>9} | "
        f"{'fed. ms':>8} | {'q':>3} | {'bytes':>9} | ratio"
    )
    print(head)
    print("-" * len(head))
    finals, missed = [], 0
    for demo, fed in zip(results["demo"]["pages"], results["federation"]["pages"], strict=True):
        assert demo["label"] == fed["label"], (demo["label"], fed["label"])
        label = demo["label"]
        if "skipped" in demo:
            print(f"{label:<58} | skipped: {demo['skipped']}")
            finals.append(f"{label}: skipped ({demo['skipped']})")
            continue
        ratios = []
        for mode in ("computed", "cached"):
            if mode not in demo:
                continue
            d, f = demo[mode], fed[mode]
            ratio = f["median_ms"] / d["median_ms"]
            ratios.append((mode, ratio, d, f))
            print(
                f"{label:<58} | {mode:<8} | {d['median_ms']:>8.1f} | {d['queries']:>3} | "
                f"{d['bytes']:>9,} | {f['median_ms']:>8.1f} | {f['queries']:>3} | "
                f"{f['bytes']:>9,} | {ratio:.2f}x"
            )
        verdict = "met" if all(r <= TARGET for _, r, _, _ in ratios) else "MISSED"
        missed += verdict == "MISSED"
        finals.append(
            f"{label}: federation / demo "
            + ", ".join(
                f"{mode} {r:.2f}x ({f['median_ms']:.1f} / {d['median_ms']:.1f} ms, "
                f"{f['queries']} / {d['queries']} queries, {f['bytes']:,} / {d['bytes']:,} bytes)"
                for mode, r, d, f in ratios
            )
            + f" (target <= {TARGET:.0f}x: {verdict})"
        )
    print()
    for line in finals:
        print(line)
    print(f"\n{len(finals)} pages, {missed} over the target")


if __name__ == "__main__":
    sys.exit(main())
