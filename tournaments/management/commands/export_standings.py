"""``manage.py export_standings SLUG [--full-precision]``: the standings as CSV on stdout, as the
download link gives them (``tournaments.exports``): starting with a UTF-8 byte-order mark, the
figures rounded as the page shows them, or exact with ``--full-precision``."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from tournaments.exports import BOM, standings_csv
from tournaments.management.commands._common import tournament_by_slug


class Command(BaseCommand):
    help = (
        "Escribe la clasificación del torneo en CSV (con BOM UTF-8; cifras redondeadas como en "
        "la página, o exactas con --full-precision)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument(
            "--full-precision",
            action="store_true",
            help="cifras exactas (el formato para comprobar), no redondeadas como en la página",
        )

    def handle(self, *args, **opts):
        text = standings_csv(
            tournament_by_slug(opts["slug"]), full_precision=opts["full_precision"]
        )
        self.stdout.write(BOM + text, ending="")
