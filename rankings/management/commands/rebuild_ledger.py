"""manage.py rebuild_ledger: recompute the whole Elo ledger from the rated games.

Exit status 0 when every rated game was applied. A game the ledger cannot rate (a bad row:
an impossible date, sides that cannot be rated; ``rankings.ledger``) is skipped and named
(tournament, round, table, why), the rest is written, the ranking is marked "needs attention"
(``rankings.health``) and the command exits 1. A rebuild that fails changes nothing, says why
(no traceback) and exits 1 too.
"""

import time

from django.core.management.base import BaseCommand

from rankings import ledger
from rankings.management import LedgerNotCurrent
from rankings.models import LedgerRow
from tournaments.errors import DomainError


def problem_lines(problems: list[dict]) -> list[str]:
    """``LedgerStatus.problems``-shaped entries as sentences (the active language)."""
    return [DomainError(p["code"], **p.get("params", {})).message for p in problems]


class Command(BaseCommand):
    help = (
        "Rebuilds the ranking ledger from nothing and prints how many rows changed; exits 1 "
        "if a game had to be left out (it is named) or the rebuild failed."
    )

    def handle(self, *args, **options):
        before = {
            (r[0], r[1]): r
            for r in (row.as_tuple() for row in LedgerRow.objects.iterator(chunk_size=5000))
        }
        tty = self.stdout.isatty()
        started = time.perf_counter()

        def progress(done, total):
            if tty and total:
                width = 30
                filled = int(width * done / total)
                self.stdout.write(
                    f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} filas", ending=""
                )
                self.stdout.flush()

        try:
            report = ledger.rebuild(progress=progress)
        except ledger.ReplayFailed as exc:
            if tty:
                self.stdout.write("")
            raise LedgerNotCurrent(
                f"No se pudo reconstruir el ranking ({exc}); no cambió nada y queda marcado "
                "«necesita atención»."
            ) from exc
        if tty:
            self.stdout.write("")
        seconds = time.perf_counter() - started
        after = {
            (r[0], r[1]): r
            for r in (row.as_tuple() for row in LedgerRow.objects.iterator(chunk_size=5000))
        }
        changed = sum(1 for k, v in after.items() if before.get(k) != v) + sum(
            1 for k in before if k not in after
        )
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
