"""Benchmark: the computed time of the public pages at demo size against federation size, side
by side in one run.

    .venv/bin/python bench/page_scale.py                                  # PostgreSQL, full club
    .venv/bin/python bench/page_scale.py --players 500 --tournaments 100  # a quick check

Two throw-away databases: one with ``manage.py load_demo`` (the demo club: four tournaments,
a few dozen players), one with ``manage.py generate_club --players 5000 --tournaments 1000
--seed 1`` (about 117,000 rated games, 405,000 ledger rows; ``--players``/``--tournaments``/
``--seed``/``--end`` change it; ``--end`` defaults to today, so the club differs from one day
to the next), both migrated, built with DJANGO_TASKS_BACKEND=immediate (the demo's
replays run inline: no change waits for a worker) and ANALYZEd. Then, for each database in
turn, a process of its own with Django as in production (DEBUG off) and the page cache off
(DJANGO_PAGE_CACHE=0: every request computes its page) requests through ``django.test.Client``
home (``public:home``), the tournament list (``public:tournaments``), the page of the player
with the most rated games (``rankings:player``) and the ranking page (``rankings:ranking``,
the default year): one warm-up, the SQL queries of one request, then the median of
``--requests`` (≥ 15). Prints a table (median and min ms, queries, bytes at both sizes) and each
federation / demo ratio with its target (≤ 3×). The databases are dropped at the end, also on
failure (``--keep`` keeps them).
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


def measure(requests: int) -> dict:
    """In the child process (DATABASE_URL set): the sizes of the club and the figures of the
    four pages, as a dict."""
    import django

    django.setup()
    from _setup import timed_requests
    from django.db.models import Count
    from django.urls import reverse

    from rankings.models import LedgerRow
    from tournaments.models import Player, Tournament

    counts = LedgerRow.objects.values("player").annotate(n=Count("id")).order_by("-n", "player")[:1]
    top = counts[0]
    pages = [
        ("home", reverse("public:home")),
        ("tournament list", reverse("public:tournaments")),
        (f"player page ({top['n']} games)", reverse("rankings:player", args=[top["player"]])),
        ("ranking", reverse("rankings:ranking")),
    ]
    out = {
        "club": {
            "tournaments": Tournament.objects.count(),
            "players": Player.objects.count(),
            "rated_games": LedgerRow.objects.values("table_id").distinct().count(),
            "ledger_rows": LedgerRow.objects.count(),
        },
        "pages": [],
    }
    for label, path in pages:
        figures = timed_requests(path, requests, page_cache=False)
        figures.pop("sql")
        out["pages"].append({"label": label, "path": path, **figures})
    return out


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
    parser.add_argument("--keep", action="store_true", help="keep the databases afterwards")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # the child
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
        print(json.dumps(measure(args.requests)))
        return 0

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # cleanup on kill too
    urls: dict[str, str] = {}
    try:
        for size in ("demo", "federation"):
            urls[size] = database(args.db, DB_NAMES[size])
            env = {**os.environ, "DATABASE_URL": urls[size]}
            t0 = time.perf_counter()
            manage(env, "migrate", "--noinput", "-v0")
            if size == "demo":
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
            analyse(urls[size])
            club = (
                "load_demo"
                if size == "demo"
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
            print(f"measuring {size} (load average {load()})", flush=True)
            child = subprocess.run(
                [sys.executable, __file__, "--measure", f"--requests={args.requests}"],
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
            f"{c['rated_games']} rated games, {c['ledger_rows']} ledger rows"
        )
    print(
        f"\ncomputed (page cache off, DEBUG off), median of {args.requests} requests through "
        f"django.test.Client, {args.db}; machine: {os.cpu_count()} cores, load average {load()}"
    )
    head = f"{'page':<16} | {'demo ms (min)':>15} | {'q':>3} | {'bytes':>9} | {'federation ms (min)':>20} | {'q':>3} | {'bytes':>9} | ratio"
    print(head)
    print("-" * len(head))
    ratios = []
    for demo, fed in zip(results["demo"]["pages"], results["federation"]["pages"], strict=True):
        name = demo["label"].split(" (")[0]
        ratio = fed["median_ms"] / demo["median_ms"]
        ratios.append((name, demo, fed, ratio))
        print(
            f"{name:<16} | {demo['median_ms']:>7.1f} ({demo['min_ms']:>5.1f}) | {demo['queries']:>3} | "
            f"{demo['bytes']:>9,} | {fed['median_ms']:>12.1f} ({fed['min_ms']:>5.1f}) | "
            f"{fed['queries']:>3} | {fed['bytes']:>9,} | {ratio:.2f}x"
        )
    print()
    for name, demo, fed, ratio in ratios:
        extra = ""
        if name == "player page":
            extra = f" [{demo['label'].split(' (')[1][:-1]} / {fed['label'].split(' (')[1][:-1]}]"
        verdict = "met" if ratio <= TARGET else "MISSED"
        print(
            f"{name}{extra}: federation / demo = {ratio:.2f}x "
            f"({fed['median_ms']:.1f} / {demo['median_ms']:.1f} ms; "
            f"{fed['bytes']:,} / {demo['bytes']:,} bytes) (target <= {TARGET:.0f}x: {verdict})"
        )


if __name__ == "__main__":
    sys.exit(main())
