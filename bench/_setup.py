"""Shared set-up of the benchmark scripts: a throw-away database (SQLite file or a PostgreSQL
database created for the run), migrated, with Django configured."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def database(kind: str) -> str:
    """Create an empty database of ``kind`` ("sqlite" or "postgres") and return its URL."""
    if kind == "sqlite":
        path = Path(tempfile.mkdtemp(prefix="clubsite-bench-")) / "bench.sqlite3"
        return f"sqlite:///{path}"
    import psycopg

    base = os.environ.get("BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS clubsite_bench")
        conn.execute("CREATE DATABASE clubsite_bench")
    return base.rsplit("/", 1)[0] + "/clubsite_bench"


def django_on(kind: str) -> None:
    os.environ["DATABASE_URL"] = database(kind)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubsite.settings")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
