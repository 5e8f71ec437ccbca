"""``manage.py import_match_results SLUG FILE.csv``: import swiss match-play results (all or
nothing; ``tournaments.imports.import_match_results``)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from tournaments.errors import DomainError
from tournaments.imports import ImportRefused, import_match_results
from tournaments.management.commands._common import (
    read_bytes,
    refuse,
    tournament_by_slug,
    warn,
)


class Command(BaseCommand):
    help = ("Importa resultados de encuentros de un torneo suizo desde un CSV "
            "(round,table,player_a,player_b,games_a,games_b,games_drawn,drop).")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        data = read_bytes(opts["file"])
        try:
            report = import_match_results(acting_user=None, tournament=tournament, data=data)
        except ImportRefused as exc:
            raise refuse(self, exc) from None
        except DomainError as exc:
            raise CommandError(exc.message) from None
        warn(self, report)
        self.stdout.write(
            f"creados: {report.created}, cambiados: {report.changed}, "
            f"sin cambios: {report.unchanged}"
        )
        self.stdout.write(
            f"descansos: {report.byes}, retirados: {report.drops}, "
            f"jugadores nuevos: {report.players_created}, "
            f"inscripciones nuevas: {report.entries_created}"
        )
