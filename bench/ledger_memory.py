"""Benchmark: peak memory of ``manage.py rebuild_ledger`` against ``rankings.ledger.rebuild()``
alone, over a full ledger of N rated pairs games (4 ledger rows each).

    .venv/bin/python bench/ledger_memory.py                       # PostgreSQL, 100,000 games
    .venv/bin/python bench/ledger_memory.py --games 20000
    .venv/bin/python bench/ledger_memory.py --db sqlite --games 20000

The season is ``ledger_rebuild.make_season`` (pairs games, 400 players) in a throw-away
database (``_setup.database``: a PostgreSQL database of its own, or an SQLite file in a
temporary directory), rebuilt once so that the ledger is full; the database is dropped at the
end (``--keep`` keeps the PostgreSQL one). Then each figure comes from a fresh child process
(this script with ``--child``), so that no peak mixes with another or with the parent's:

- baseline: a child that only sets up Django;
- rebuild: a child that runs ``ledger.rebuild()`` over the full ledger;
- command: a child that runs ``call_command("rebuild_ledger")`` over the full ledger (what
  ``manage.py rebuild_ledger`` runs: its snapshot of the rows before, the rebuild, the count of
  the rows changed).

A child reports its own peak resident set (``VmHWM`` in /proc/self/status; elsewhere
``getrusage(RUSAGE_SELF).ru_maxrss``). Only the Python process is measured, not the database
server. Django runs as in production (DEBUG off: no query log; ``_setup.production_like``).

Prints the figures in MB (MiB, 1,048,576 bytes), the seconds of each child's work, the command's
own line, and last, exactly: ``command_mb=… rebuild_mb=… ratio=…`` (ratio = command / rebuild,
two decimals; target ≤ 1.3).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from _setup import database, drop_database, production_like

DB_NAME = "clubsite_bench_ledger_memory"
TARGET = 1.3


def peak_kib() -> int:
    """This process's peak resident set so far, in KiB (VmHWM; ru_maxrss where there is no
    /proc)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


def child(what: str) -> None:
    """Set up Django (DATABASE_URL from the parent), do ``what`` ("baseline", "rebuild" or
    "command"), then print ``seconds=…`` and ``peak_kib=…`` (and the command's output)."""
    import io

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubsite.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from rankings import ledger

    started = time.perf_counter()
    if what == "rebuild":
        report = ledger.rebuild()
        print(f"rows={report.written}")
    elif what == "command":
        out = io.StringIO()
        call_command("rebuild_ledger", stdout=out)
        print(f"output={out.getvalue().strip()}")
    print(f"seconds={time.perf_counter() - started:.2f}")
    print(f"peak_kib={peak_kib()}")


def measure(what: str) -> dict:
    """Run a fresh child doing ``what``; its ``key=value`` lines as a dict (peak in MB added)."""
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", what],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
    )
    if done.returncode != 0:
        sys.exit(f"child {what!r} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    figures = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    figures["mb"] = int(figures["peak_kib"]) / 1024
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="postgres")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument(
        "--keep", action="store_true", help="keep the PostgreSQL database afterwards"
    )
    parser.add_argument(
        "--child", choices=["baseline", "rebuild", "command"], help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return

    production_like()
    os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")
    url = database(args.db, DB_NAME)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubsite.settings")
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection, connections
        from ledger_rebuild import make_season

        from rankings import ledger

        call_command("migrate", verbosity=0)
        t0 = time.perf_counter()
        n = make_season(args.games)
        report = ledger.rebuild()
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        print(
            f"season: {n} games, {report.written} ledger rows, made in "
            f"{time.perf_counter() - t0:.1f} s ({args.db})"
        )
        connections.close_all()

        baseline = measure("baseline")
        rebuild = measure("rebuild")
        command = measure("command")
        print(f"baseline (Django set up, nothing else): {baseline['mb']:.0f} MB")
        print(
            f"ledger.rebuild() over the full ledger: {rebuild['mb']:.0f} MB "
            f"({rebuild['mb'] - baseline['mb']:.0f} MB above the baseline), "
            f"{rebuild['seconds']} s, {rebuild['rows']} rows"
        )
        print(
            f"rebuild_ledger command over the full ledger: {command['mb']:.0f} MB "
            f"({command['mb'] - baseline['mb']:.0f} MB above the baseline), "
            f"{command['seconds']} s"
        )
        print(f"  its output: {command['output']}")
        ratio = command["mb"] / rebuild["mb"]
        print(f"target ratio <= {TARGET}: {'met' if ratio <= TARGET else 'MISSED'}")
        print(f"command_mb={command['mb']:.0f} rebuild_mb={rebuild['mb']:.0f} ratio={ratio:.2f}")
    finally:
        if args.db == "sqlite":
            shutil.rmtree(Path(url.removeprefix("sqlite:///")).parent, ignore_errors=True)
        elif not args.keep:
            drop_database(DB_NAME)


if __name__ == "__main__":
    main()
