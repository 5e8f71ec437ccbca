"""manage.py check_ledger [--limit N]: is the stored ledger what a rebuild would write?

Computes the rebuild in memory (``rankings.ledger.rated_games`` + ``compute_rows``, nothing
written) and compares it, row by row and column by column at full precision, with the stored
ledger, both read in one snapshot. Exit status 0 and "ledger is current" when they are equal
and every rated game can be rated; otherwise the first ``--limit`` differences in words (a
missing row, a row no game gives, a column that differs: stored and rebuilt values) and the
games a rebuild would leave out, then exit status 1 (``LedgerNotCurrent``). It never writes,
not even the ranking's status (``rebuild_ledger`` repairs both).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.db import connection, transaction

from rankings import health, ledger
from rankings.management import LedgerNotCurrent
from rankings.management.commands.rebuild_ledger import problem_lines
from rankings.models import LedgerRow
from tournaments.models import Player, Table

#: The columns compared, in ``ledger.COLUMNS`` order (the first two identify the row).
COMPARED = ledger.COLUMNS[2:]


def compare(limit: int = 10) -> tuple[int, int, list[str], list[dict]]:
    """(stored rows, differences, the first ``limit`` differences in words, the games a rebuild
    would skip as ``LedgerStatus.problems`` entries). Reads only: the rated games and the
    stored rows, in one transaction (a REPEATABLE READ snapshot on PostgreSQL when it is the
    outermost one)."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        problems: list[ledger.BadGame] = []
        games = ledger.rated_games(None, problems=problems)
        expected = {
            (row[0], row[1]): row for row in ledger.compute_rows(games, {}, problems=problems)
        }
        stored = {(r.table_id, r.player_id): r for r in LedgerRow.objects.iterator(chunk_size=5000)}
        differences: list[tuple[str, tuple[int, int], str, list]] = []
        for pair in expected.keys() | stored.keys():
            want, have = expected.get(pair), stored.get(pair)
            if have is None:
                differences.append((want[3], pair, "missing", []))
            elif want is None:
                differences.append((have.order_key, pair, "extra", []))
            else:
                columns = [
                    (name, getattr(have, name), value)
                    for name, value in zip(COMPARED, want[2:], strict=True)
                    if getattr(have, name) != value
                ]
                if columns:
                    differences.append((want[3], pair, "differs", columns))
        differences.sort(key=lambda d: (d[0], d[1]))
        shown = differences[:limit]
        words = _in_words(shown, expected, stored)
        skipped = ledger.describe(problems)
    return len(stored), len(differences), words, skipped


def _in_words(shown, expected, stored) -> list[str]:
    """Each difference as a sentence naming the tournament, round, table and player."""
    tables = {
        pk: (name, rnd, number)
        for pk, name, rnd, number in Table.objects.filter(
            pk__in={pair[0] for _, pair, _, _ in shown}
        ).values_list("pk", "round__tournament__name", "round__number", "number")
    }
    players = dict(
        Player.objects.filter(pk__in={pair[1] for _, pair, _, _ in shown}).values_list(
            "pk", "full_name"
        )
    )
    lines = []
    for _, (table_id, player_id), kind, columns in shown:
        name, rnd, number = tables.get(table_id, ("?", "?", "?"))
        who = players.get(player_id, f"#{player_id}")
        where = f"torneo «{name}», ronda {rnd}, mesa {number} (mesa #{table_id}), jugador «{who}»"
        if kind == "missing":
            after = expected[(table_id, player_id)][ledger.COLUMNS.index("rating_after")]
            lines.append(
                f"falta una fila: {where}; una reconstrucción la escribe con rating_after "
                f"{after!r}."
            )
        elif kind == "extra":
            row = stored[(table_id, player_id)]
            lines.append(
                f"sobra una fila: {where} (rating_after {row.rating_after!r}); ninguna partida "
                "puntuable la da."
            )
        else:
            changes = "; ".join(
                f"{column} guardado {have!r}, reconstrucción {want!r}"
                for column, have, want in columns
            )
            lines.append(f"fila distinta: {where}: {changes}.")
    return lines


class Command(BaseCommand):
    help = (
        "Compares the stored ranking ledger with a rebuild computed in memory (nothing is "
        "written): exit 0 and 'ledger is current' when equal, else the first differences "
        "in words and exit 1."
    )

    def add_arguments(self, parser):
        parser.add_argument("--limit", type=int, default=10, help="differences shown (default 10)")

    def handle(self, *args, limit=10, **options):
        rows, count, words, skipped = compare(max(1, limit))
        if count == 0 and not skipped:
            self.stdout.write(f"ledger is current: {rows} filas, iguales a una reconstrucción.")
            status = health.attention()
            if status is not None:
                self.stdout.write(
                    "El estado guardado aún dice «necesita atención»; la próxima "
                    "reconstrucción (o cualquier cambio de una partida) lo quita."
                )
            return
        report = []
        if count:
            report.append(
                f"ledger differs from a rebuild: {count} diferencia(s) en {rows} filas "
                f"guardadas; las primeras {len(words)}:"
            )
            report += [f"  - {line}" for line in words]
        if skipped:
            report.append(f"Partidas que una reconstrucción deja fuera: {len(skipped)}")
            report += [f"  - {line}" for line in problem_lines(skipped)]
        text = "\n".join(report)
        self.stdout.write(text)
        raise LedgerNotCurrent(
            "El ranking no está al día"
            + (f" ({count} diferencia(s))" if count else "")
            + ":\n"
            + text
            + "\nReconstrúyalo con manage.py rebuild_ledger."
        )
