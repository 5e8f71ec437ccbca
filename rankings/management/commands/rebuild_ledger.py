"""manage.py rebuild_ledger: recompute the whole Elo ledger from the rated games."""

import time

from django.core.management.base import BaseCommand

from rankings import ledger
from rankings.models import LedgerRow


class Command(BaseCommand):
    help = "Rebuilds the ranking ledger from nothing and prints how many rows changed."

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

        report = ledger.rebuild(progress=progress)
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
