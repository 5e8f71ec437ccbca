"""``manage.py import_castigos SLUG FILE``: import castigos (all or nothing) from a CSV file or
an .xlsx workbook, read as the results files are (``tournaments.imports.reading``)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from tournaments.errors import DomainError
from tournaments.imports import ImportRefused, import_castigos
from tournaments.management.commands._common import note, read_bytes, refuse, tournament_by_slug


class Command(BaseCommand):
    help = "Importa castigos desde un CSV o una hoja .xlsx (round,player,tantos,reason)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        data = read_bytes(opts["file"])
        warnings: list[str] = []
        notes: list[str] = []
        try:
            created = import_castigos(
                acting_user=None, tournament=tournament, data=data, warnings=warnings, notes=notes
            )
        except ImportRefused as exc:
            raise refuse(self, exc, notes) from None
        except DomainError as exc:
            raise CommandError(exc.message) from None
        note(self, notes)
        self.stdout.write(f"castigos creados: {created}")
        for warning in warnings:
            self.stderr.write(f"aviso: {warning}")
