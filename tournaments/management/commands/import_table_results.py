"""``manage.py import_table_results SLUG FILE.csv``: import the results of a 3–4 player table
game (all or nothing; ``tournaments.imports.import_table_results``, seed 004, SCORING.md §4)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from tournaments.errors import DomainError
from tournaments.imports import ImportRefused, import_table_results
from tournaments.management.commands._common import (
    read_bytes,
    refuse,
    tournament_by_slug,
    warn,
)


class Command(BaseCommand):
    help = ("Importa resultados de juegos de mesa de 3–4 jugadores desde un CSV "
            "(round,table,player,vp,ended_by_time; una línea por jugador sentado).")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        data = read_bytes(opts["file"])
        try:
            report = import_table_results(acting_user=None, tournament=tournament, data=data)
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
            f"jugadores nuevos: {report.players_created}, "
            f"inscripciones nuevas: {report.entries_created}"
        )
