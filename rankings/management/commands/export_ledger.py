"""manage.py export_ledger [--year YYYY] [--player NAME] [--full-precision]: ledger rows as CSV on
stdout, as the download links give them (``rankings.exports``): starting with a UTF-8
byte-order mark, the figures rounded as the pages show them, or at full precision with
``--full-precision``."""

from django.core.management.base import BaseCommand, CommandError

from rankings.exports import LEDGER_HEADER, ledger_rows, not_current_warning
from tournaments.exports import BOM, csv_text
from tournaments.models import Player


class Command(BaseCommand):
    help = (
        "Prints the ranking ledger as CSV (UTF-8 with a BOM; figures rounded as on the pages, "
        "or --full-precision), optionally for one year or one player."
    )

    def add_arguments(self, parser):
        parser.add_argument("--year", type=int, default=None)
        parser.add_argument("--player", default=None, help="exact full name")
        parser.add_argument(
            "--full-precision", action="store_true", help="every float at full precision"
        )

    def handle(self, *args, year=None, player=None, full_precision=False, **options):
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
        warning = not_current_warning()
        if warning:  # the CSV stays clean; the warning goes to stderr
            self.stderr.write(warning)
        rows = ledger_rows(year=year, player=who, full_precision=full_precision)
        self.stdout.write(BOM + csv_text(LEDGER_HEADER, rows), ending="")
