"""Shared set-up of the benchmark scripts: a throw-away database (SQLite file or a PostgreSQL
database created for the run), migrated, with Django configured."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def database(kind: str, name: str = "clubsite_bench") -> str:
    """Create an empty database of ``kind`` ("sqlite" or "postgres") and return its URL.

    ``name``: the PostgreSQL database (dropped and created anew), so that benchmarks run side by
    side each get their own."""
    if kind == "sqlite":
        path = Path(tempfile.mkdtemp(prefix="clubsite-bench-")) / "bench.sqlite3"
        return f"sqlite:///{path}"
    import psycopg

    base = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return base.rsplit("/", 1)[0] + f"/{name}"


def drop_database(name: str) -> None:
    """Drop the PostgreSQL database ``name`` (closing Django's connections first)."""
    import psycopg
    from django.db import connections

    connections.close_all()
    base = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def django_on(kind: str, name: str = "clubsite_bench") -> None:
    os.environ["DATABASE_URL"] = database(kind, name)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubsite.settings")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def production_like() -> None:
    """Run Django as in production (DEBUG off: no query log, cached templates, manifest static
    files) but over plain HTTP on loopback. Call before ``django_on``; then ``collect_static``."""
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-not-a-secret-" + "x" * 40)
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")
    os.environ["DJANGO_SECURE_SSL_REDIRECT"] = "0"


def collect_static() -> None:
    """``collectstatic`` into the (git-ignored) STATIC_ROOT, needed with DEBUG off."""
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)


def timed_requests(path: str, n: int = 25, *, page_cache: bool = False) -> dict:
    """GET ``path`` through ``django.test.Client`` ``n`` times after one warm-up request: the
    median and min of the server time (ms), the SQL query count of one request, the bytes.
    ``page_cache`` False computes the page every time (settings.PAGE_CACHE off); True serves
    it from the page cache after the warm-up (clubsite.pagecache)."""
    import statistics
    import time

    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, override_settings

    client = Client()
    with override_settings(PAGE_CACHE=page_cache):
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        with CaptureQueriesContext(connection) as ctx:
            client.get(path)
        sql = list(ctx.captured_queries)  # a view of the log, which the next request clears
        times = []
        for _ in range(n):
            started = time.perf_counter()
            response = client.get(path)
            times.append(time.perf_counter() - started)
    return {
        "median_ms": statistics.median(times) * 1000,
        "min_ms": min(times) * 1000,
        "queries": len(sql),
        "bytes": len(response.content),
        "n": n,
        "sql": sql,
    }


def report(label: str, path: str, n: int, *, show_queries: bool = False) -> None:
    """Print the figures of ``timed_requests`` for ``path``: computed, then from the page cache."""
    for page_cache, how in ((False, "computed"), (True, "page cache")):
        out = timed_requests(path, n, page_cache=page_cache)
        print(
            f"{label} [{how}]: median {out['median_ms']:.1f} ms (min {out['min_ms']:.1f}, n={out['n']}), "
            f"{out['queries']} queries, {out['bytes'] / 1024:.0f} KiB"
        )
        if show_queries:
            for q in out["sql"]:
                print(f"    {float(q['time']) * 1000:7.1f} ms  {q['sql'][:300]}")
