"""manage.py export_ledger [--year YYYY] [--player NAME]: ledger rows as CSV on stdout."""

import csv

from django.core.management.base import BaseCommand, CommandError

from rankings import health
from rankings.exports import LEDGER_HEADER, ledger_rows
from tournaments.models import Player


class Command(BaseCommand):
    help = (
        "Prints the ranking ledger as CSV at full precision, optionally for one year or one player."
    )

    def add_arguments(self, parser):
        parser.add_argument("--year", type=int, default=None)
        parser.add_argument("--player", default=None, help="exact full name")

    def handle(self, *args, year=None, player=None, **options):
        who = None
        if player is not None:
            matches = list(Player.objects.filter(full_name=player))
            if not matches:
                raise CommandError(f"No hay ningún jugador llamado «{player}».")
            if len(matches) > 1:
                raise CommandError(
                    f"Hay {len(matches)} jugadores llamados «{player}»; no sé cuál elegir."
                )
            who = matches[0]
        if health.attention():  # the CSV stays clean; the warning goes to stderr
            self.stderr.write(
                "Aviso: el ranking necesita atención (manage.py check_ledger); estas cifras "
                "pueden no estar al día."
            )
        writer = csv.writer(self.stdout, lineterminator="\n")
        writer.writerow(LEDGER_HEADER)
        writer.writerows(ledger_rows(year=year, player=who))
