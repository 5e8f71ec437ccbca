"""manage.py export_ranking --year YYYY: the year's ranking as CSV on stdout."""

import csv

from django.core.management.base import BaseCommand
from django.utils import timezone

from rankings import health
from rankings.exports import RANKING_HEADER, ranking_rows


class Command(BaseCommand):
    help = (
        "Prints the ranking of a year as CSV: position,player,rating,games,change (full precision)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--year", type=int, default=None)

    def handle(self, *args, year=None, **options):
        year = year or timezone.localdate().year
        if health.attention():  # the CSV stays clean; the warning goes to stderr
            self.stderr.write(
                "Aviso: el ranking necesita atención (manage.py check_ledger); estas cifras "
                "pueden no estar al día."
            )
        writer = csv.writer(self.stdout, lineterminator="\n")
        writer.writerow(RANKING_HEADER)
        writer.writerows(ranking_rows(year))
