"""manage.py export_ranking [--year YYYY] [--full-precision]: the year's ranking as CSV on stdout,
as the download link gives it (``rankings.exports``): starting with a UTF-8 byte-order mark,
rating and change rounded to 1 decimal as the page shows them, or at full precision with
``--full-precision``."""

from django.core.management.base import BaseCommand
from django.utils import timezone

from rankings.exports import RANKING_HEADER, not_current_warning, ranking_rows
from tournaments.exports import BOM, csv_text


class Command(BaseCommand):
    help = (
        "Prints the ranking of a year as CSV: position,player,rating,games,change (UTF-8 with "
        "a BOM; rating and change to 1 decimal as on the page, or --full-precision)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--year", type=int, default=None)
        parser.add_argument(
            "--full-precision", action="store_true", help="every float at full precision"
        )

    def handle(self, *args, year=None, full_precision=False, **options):
        year = year or timezone.localdate().year
        warning = not_current_warning()
        if warning:  # the CSV stays clean; the warning goes to stderr
            self.stderr.write(warning)
        rows = ranking_rows(year, full_precision=full_precision)
        self.stdout.write(BOM + csv_text(RANKING_HEADER, rows), ending="")
