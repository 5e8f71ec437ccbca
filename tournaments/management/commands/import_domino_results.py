"""``manage.py import_domino_results SLUG FILE.csv``: import dominó results (all or nothing)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from tournaments.errors import DomainError
from tournaments.imports import ImportRefused, import_domino_results
from tournaments.management.commands._common import (
    read_bytes,
    refuse,
    tournament_by_slug,
    warn,
)


class Command(BaseCommand):
    help = ("Importa resultados de dominó desde un CSV "
            "(round,table,side_a,side_b,tantos_a,tantos_b,ended_by_time,forfeit,played_at).")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        data = read_bytes(opts["file"])
        try:
            report = import_domino_results(acting_user=None, tournament=tournament, data=data)
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
            f"descansos: {report.byes}, jugadores nuevos: {report.players_created}, "
            f"inscripciones nuevas: {report.entries_created}"
        )
