"""Helpers shared by the tournaments management commands."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError

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
