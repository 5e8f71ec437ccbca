"""The ledger table's autovacuum settings (migration rankings 0006): set on PostgreSQL, reset by
the migration's reverse, nothing on SQLite (docs/performance.md, "The ledger table under
corrections")."""

from importlib import import_module

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

MIGRATION = import_module("rankings.migrations.0006_ledger_autovacuum")

EXPECTED = [
    "autovacuum_vacuum_threshold=10000",
    "autovacuum_vacuum_scale_factor=0.02",
    "autovacuum_analyze_threshold=10000",
    "autovacuum_analyze_scale_factor=0.01",
    "autovacuum_vacuum_insert_threshold=10000",
    "autovacuum_vacuum_insert_scale_factor=0.05",
    "autovacuum_vacuum_cost_limit=2000",
]


def reloptions() -> list[str] | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'rankings_ledgerrow'")
        return cursor.fetchone()[0]


def run(direction: str) -> None:
    operation = MIGRATION.Migration.operations[0]
    with connection.schema_editor() as editor:
        getattr(operation, f"database_{direction}")("rankings", editor, None, None)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="storage parameters: PostgreSQL")
def test_the_ledger_table_carries_its_autovacuum_settings_and_the_reverse_resets_them():
    assert reloptions() == EXPECTED
    run("backwards")
    assert reloptions() is None
    run("forwards")
    assert reloptions() == EXPECTED


class Editor:
    """A schema editor that records what it would run (SQLite's cannot open inside a test's
    transaction)."""

    def __init__(self):
        self.connection = connection
        self.ran = []

    def execute(self, sql, params=()):
        self.ran.append(sql)


@pytest.mark.skipif(connection.vendor == "postgresql", reason="the SQLite side of the migration")
def test_on_sqlite_the_migration_runs_nothing_either_way():
    operation = MIGRATION.Migration.operations[0]
    editor = Editor()
    operation.database_forwards("rankings", editor, None, None)
    operation.database_backwards("rankings", editor, None, None)
    assert editor.ran == []
