"""manage.py rebuild_ledger: recompute the whole Elo ledger from the rated games.

Exit status 0 when every rated game was applied. A game the ledger cannot rate (a bad row:
an impossible date, sides that cannot be rated; ``rankings.ledger``) is skipped and named
(tournament, round, table, why), the rest is written, the ranking is marked "needs attention"
(``rankings.health``) and the command exits 1. A rebuild that fails changes nothing, says why
(no traceback) and exits 1 too.
"""

import time

from django.core.management.base import BaseCommand
from django.db import connection, transaction

from rankings import ledger
from rankings.management import LedgerNotCurrent
from rankings.models import LedgerRow
from tournaments.errors import DomainError


def problem_lines(problems: list[dict]) -> list[str]:
    """``LedgerStatus.problems``-shaped entries as sentences (the active language)."""
    return [DomainError(p["code"], **p.get("params", {})).message for p in problems]


#: The columns compared to count changed rows: ``LedgerRow.as_tuple``'s, in its order. The
#: first two are the row's key: one row per (table, player).
COMPARED = LedgerRow.COMPARED_FIELDS
#: The temporary table holding the ledger as it was before the rebuild (this connection only).
SNAPSHOT = "rebuild_ledger_before"


def _snapshot_name() -> str:
    """The snapshot table, qualified with the connection's own temporary schema, so that no
    ordinary table of that name is ever read or dropped."""
    schema = "pg_temp" if connection.vendor == "postgresql" else "temp"
    return f"{schema}.{connection.ops.quote_name(SNAPSHOT)}"


def _columns() -> list[str]:
    return [connection.ops.quote_name(LedgerRow._meta.get_field(c).column) for c in COMPARED]


def take_snapshot() -> None:
    """Copy the ledger's compared columns into a temporary table of this connection (inside the
    database: nothing is read into Python). Replaces a snapshot left by an earlier run."""
    table = connection.ops.quote_name(LedgerRow._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {_snapshot_name()}")
        cursor.execute(
            f"CREATE TEMPORARY TABLE {connection.ops.quote_name(SNAPSHOT)} AS "
            f"SELECT {', '.join(_columns())} FROM {table}"
        )
        if connection.vendor == "postgresql":  # autovacuum never analyses temporary tables
            cursor.execute(f"ANALYZE {_snapshot_name()}")


def drop_snapshot() -> None:
    """Drop the snapshot table (no error if there is none)."""
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {_snapshot_name()}")


def changed_since_snapshot() -> int:
    """Rows that differ between the ledger now and the snapshot: a row is keyed by (table,
    player); a current row counts when the snapshot has no row of its key or one differing in a
    compared column (values compared exactly, floats included: SQL ``=`` on the stored
    doubles), and a snapshot row counts when the ledger no longer has its key. The database
    counts: one joined pass, one row returned, whatever the ledger's size.

    That is ``(now - equal) + (before - matched)``, where ``matched`` counts the keys in both and
    ``equal`` those of them whose compared columns are all equal."""
    table = connection.ops.quote_name(LedgerRow._meta.db_table)
    snapshot = _snapshot_name()
    key, rest = _columns()[:2], _columns()[2:]
    # Null-safe equality, as Python's == (the columns are NOT NULL today; this stays right if
    # one ever is not).
    same = "IS NOT DISTINCT FROM" if connection.vendor == "postgresql" else "IS"
    equal = " AND ".join(f"o.{c} {same} n.{c}" for c in rest)
    on = " AND ".join(f"o.{c} = n.{c}" for c in key)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT COUNT(*) FROM {table}), (SELECT COUNT(*) FROM {snapshot}), "
            f"COUNT(*), COALESCE(SUM(CASE WHEN {equal} THEN 1 ELSE 0 END), 0) "
            f"FROM {snapshot} o INNER JOIN {table} n ON {on}"
        )
        now, before, matched, same_rows = cursor.fetchone()
    return (now - same_rows) + (before - matched)


class Command(BaseCommand):
    help = (
        "Rebuilds the ranking ledger from nothing and prints how many rows changed; exits 1 "
        "if a game had to be left out (it is named) or the rebuild failed."
    )

    def handle(self, *args, **options):
        tty = self.stdout.isatty()

        def progress(done, total):
            if tty and total:
                width = 30
                filled = int(width * done / total)
                self.stdout.write(
                    f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} filas", ending=""
                )
                self.stdout.flush()

        # The ledger before is kept in the database (a temporary table), not in Python: the
        # command needs no more memory than the rebuild itself (docs/performance.md). One
        # transaction holds the snapshot, the rebuild (a savepoint in it) and the count: the
        # temporary table is read back on the connection that made it (also behind PgBouncer in
        # transaction mode, docs/scale-out.md), a rollback takes it away, and the count sees
        # exactly what the rebuild wrote (its lock is held until this commits).
        failure = None
        with transaction.atomic():
            take_snapshot()
            started = time.perf_counter()
            try:
                report = ledger.rebuild(progress=progress)
            except ledger.ReplayFailed as exc:
                # The rebuild rolled back its own work and recorded the failure ("needs
                # attention"): that record commits with this transaction.
                failure = exc
            else:
                seconds = time.perf_counter() - started
                changed = changed_since_snapshot()
            drop_snapshot()
        if tty:
            self.stdout.write("")
        if failure is not None:
            raise LedgerNotCurrent(
                f"No se pudo reconstruir el ranking ({failure}); no cambió nada y queda marcado "
                "«necesita atención»."
            ) from failure
        rate = report.written / seconds if seconds > 0 else 0
        self.stdout.write(
            f"Filas escritas: {report.written}; filas cambiadas: {changed}; "
            f"{seconds:.2f} s ({rate:,.0f} filas/s)."
        )
        if report.skipped:
            lines = problem_lines(report.skipped)
            listing = "\n".join(f"  - {line}" for line in lines)
            self.stdout.write(f"Partidas que quedaron fuera del ranking: {len(lines)}\n{listing}")
            raise LedgerNotCurrent(
                f"{len(lines)} partida(s) quedaron fuera del ranking; queda marcado «necesita "
                f"atención» hasta que se corrijan y se reconstruya:\n{listing}"
            )
