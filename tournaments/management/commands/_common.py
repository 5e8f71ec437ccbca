"""Helpers shared by the tournaments management commands."""

from __future__ import annotations

import time
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


class ProgressBar:
    """An import's ``progress(done, total)`` shown on a command's stderr (an ``OutputWrapper``).

    On a terminal: a bar redrawn in place, at most every ``REDRAW_SECONDS`` (and always at the
    end), "[#####-----] 1280 de 2560 mesas (50 %)"; ``finish()`` ends its line. Otherwise (a
    log, a pipe): one line "1280 de 2560 mesas (50 %)" each time the import passes another 10 %,
    but only once it has run ``QUIET_SECONDS``, so a quick import writes nothing but its
    summary (and the refused lines), as before. ``clock``: seconds, monotonic (for tests)."""

    WIDTH = 30
    REDRAW_SECONDS = 0.1
    QUIET_SECONDS = 2.0

    def __init__(self, stream, *, clock=time.monotonic):
        self.stream = stream
        self.tty = stream.isatty()
        self.clock = clock
        self.started = clock()
        self.drawn_at: float | None = None
        self.next_step = 10

    def __call__(self, done: int, total: int) -> None:
        if total <= 0:
            return
        percent = done * 100 // total
        now = self.clock()
        if self.tty:
            if done < total and self.drawn_at is not None:
                if now - self.drawn_at < self.REDRAW_SECONDS:
                    return
            self.drawn_at = now
            filled = self.WIDTH * done // total
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            self._write(f"\r[{bar}] {done} de {total} mesas ({percent} %)", ending="")
            return
        if percent < self.next_step:
            return
        self.next_step = percent // 10 * 10 + 10
        if now - self.started >= self.QUIET_SECONDS:
            self._write(f"{done} de {total} mesas ({percent} %)")

    def finish(self) -> None:
        """End the bar's line on a terminal (if a bar was drawn)."""
        if self.tty and self.drawn_at is not None:
            self._write("")
            self.drawn_at = None

    def _write(self, text: str, ending: str | None = None) -> None:
        # The plain text: stderr's own style (red on a terminal) is for errors.
        self.stream.write(text, style_func=lambda x: x, ending=ending)
        self.stream.flush()


class ResultsImportCommand(BaseCommand):
    """``manage.py import_results SLUG FILE.csv``: one all-or-nothing import of a results file,
    in the format of the tournament's scoring system (``tournaments.imports.import_results``).

    The import runs in this process, in one transaction as always (no background worker
    needed for a command), with its progress on stderr (``ProgressBar``).

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
        bar = ProgressBar(self.stderr)
        try:
            report = self.importer(acting_user=None, tournament=tournament, data=data, progress=bar)
        except ImportRefused as exc:
            bar.finish()
            raise refuse(self, exc) from None
        except DomainError as exc:
            bar.finish()
            raise CommandError(exc.message) from None
        finally:
            bar.finish()  # a bar drawn, then any other error: its traceback on a line of its own
        warn(self, report)
        self.stdout.write(
            f"creados: {report.created}, cambiados: {report.changed}, "
            f"sin cambios: {report.unchanged}"
        )
        self.stdout.write(self.details(report))
