"""The ledger table's autovacuum settings (PostgreSQL only; nothing elsewhere).

A replay deletes the ledger rows from its first game on and writes them again: a correction of
the season's first game turns every row of the table (405,000 in the generated federation)
into a dead row at once, and a day of ordinary saves leaves a few thousand more. PostgreSQL's
defaults vacuum a table once a fifth of it is dead and at a tenth of the default speed limit of
a manual VACUUM; here the table is vacuumed after about 10,000 + 2 % dead rows, analysed after
10,000 + 1 % changed rows (the replays' ``order_key >= …`` plans and the pages' estimates follow
the new rows), vacuumed after 10,000 + 5 % inserted rows (the visibility map of a rewritten
table, for index-only scans) and at ten times the default cost limit (the dead rows of a full
replay are cleared in seconds, not minutes). docs/performance.md, "The ledger table under
corrections", says what VACUUM does with those rows and when to run VACUUM (FULL) or pg_repack.
"""

from django.db import migrations

TABLE = "rankings_ledgerrow"
SETTINGS = {
    "autovacuum_vacuum_threshold": 10000,
    "autovacuum_vacuum_scale_factor": 0.02,
    "autovacuum_analyze_threshold": 10000,
    "autovacuum_analyze_scale_factor": 0.01,
    "autovacuum_vacuum_insert_threshold": 10000,
    "autovacuum_vacuum_insert_scale_factor": 0.05,
    "autovacuum_vacuum_cost_limit": 2000,
}


class PostgreSQLOnly(migrations.RunSQL):
    """``RunSQL`` run only when the database is PostgreSQL (storage parameters are
    PostgreSQL's); on SQLite it does nothing, both ways."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):
    dependencies = [
        ("rankings", "0005_replay_requests_year_ratings"),
    ]

    operations = [
        PostgreSQLOnly(
            sql=f"ALTER TABLE {TABLE} SET ("
            + ", ".join(f"{name} = {value}" for name, value in SETTINGS.items())
            + ")",
            reverse_sql=f"ALTER TABLE {TABLE} RESET (" + ", ".join(SETTINGS) + ")",
        ),
    ]
