"""``manage.py export_standings SLUG``: the standings as CSV on stdout."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from tournaments.exports import standings_csv
from tournaments.management.commands._common import tournament_by_slug


class Command(BaseCommand):
    help = "Escribe la clasificación del torneo en CSV."

    def add_arguments(self, parser):
        parser.add_argument("slug")

    def handle(self, *args, **opts):
        self.stdout.write(standings_csv(tournament_by_slug(opts["slug"])), ending="")
