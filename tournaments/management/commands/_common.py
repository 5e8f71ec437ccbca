"""Helpers shared by the tournaments management commands."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments import imports
from tournaments.errors import DomainError
from tournaments.imports import ImportRefused
from tournaments.models import Tournament


def tournament_by_slug(slug: str) -> Tournament:
    try:
        return Tournament.objects.get(slug=slug)
    except Tournament.DoesNotExist:
        raise CommandError(f"No existe ningún torneo con el identificador «{slug}».") from None


def read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        reason = exc.strerror or exc
        raise CommandError(f"No se puede leer el archivo «{path}»: {reason}.") from None


def refuse(command, exc) -> CommandError:
    """Write each refused line of an ``ImportRefused`` to stderr; return a CommandError to raise."""
    for line, message in exc.errors:
        command.stderr.write(f"línea {line}: {message}")
    return CommandError(exc.message)


def warn(command, report) -> None:
    """Write each warning of an import's ``services.ImportReport`` to stderr (one a line)."""
    for warning in getattr(report, "warnings", ()):
        command.stderr.write(f"aviso: {warning}")


class ResultsImportCommand(BaseCommand):
    """``manage.py import_results SLUG FILE.csv``: one all-or-nothing import of a results file,
    in the format of the tournament's scoring system (``tournaments.imports.import_results``).

    The older per-format commands (``import_domino_results`` ...) are this command with
    another ``importer`` (a ``tournaments.imports`` function that refuses a tournament of
    another system); they may override ``details`` (the second summary line, from the
    ``ImportReport``).
    """

    importer = staticmethod(imports.import_results)

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")

    def details(self, report) -> str:
        """Byes, drops (when the report counts them), players and entries created."""
        parts = [f"descansos: {report.byes}"]
        if hasattr(report, "drops"):
            parts.append(f"retirados: {report.drops}")
        parts.append(f"jugadores nuevos: {report.players_created}")
        parts.append(f"inscripciones nuevas: {report.entries_created}")
        return ", ".join(parts)

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        data = read_bytes(opts["file"])
        try:
            report = self.importer(acting_user=None, tournament=tournament, data=data)
        except ImportRefused as exc:
            raise refuse(self, exc) from None
        except DomainError as exc:
            raise CommandError(exc.message) from None
        warn(self, report)
        self.stdout.write(
            f"creados: {report.created}, cambiados: {report.changed}, "
            f"sin cambios: {report.unchanged}"
        )
        self.stdout.write(self.details(report))
