"""Helpers shared by the tournaments management commands."""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from tournaments import imports, services
from tournaments.errors import DomainError
from tournaments.imports import ImportRefused
from tournaments.imports.reading import open_file
from tournaments.models import Tournament


def tournament_by_slug(slug: str) -> Tournament:
    try:
        return Tournament.objects.get(slug=slug)
    except Tournament.DoesNotExist:
        raise CommandError(f"No existe ningún torneo con el identificador «{slug}».") from None


def open_notes(data: bytes) -> list[str]:
    """How ``data`` reads (``reading.open_file``), for a refusal's stderr; [] when it cannot
    be read at all (the refusal says so)."""

    try:
        return open_file(data).notes
    except ImportRefused:
        return []


def read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        reason = exc.strerror or exc
        raise CommandError(f"No se puede leer el archivo «{path}»: {reason}.") from None


#: The import commands' option that raises the tournament's planned rounds before importing
#: (``ResultsImportCommand``); a refusal of rounds beyond the planned ones names it.
ROUNDS_OPTION = "--rounds"


def refuse(command, exc, notes=(), tournament: Tournament | None = None) -> CommandError:
    """Write how the file was read (``notes``, see ``note``) and each refused line of an
    ``ImportRefused`` to stderr (none for a refusal of the whole file: its one sentence is the
    error); return a CommandError to raise. When lines were refused for a round beyond the
    ``tournament``'s planned rounds ("round_beyond_planned"), the error ends naming the
    command's option that raises them (``ROUNDS_OPTION``), since the refusal's own words speak
    of the web page's settings."""
    note(command, notes)
    for line, message in exc.listed:
        command.stderr.write(f"línea {line}: {message}")
    if tournament is not None and any(
        code == "round_beyond_planned" for _line, code in getattr(exc, "codes", ())
    ):
        return CommandError(f"{exc.message} {rounds_hint(tournament)}")
    return CommandError(exc.message)


def rounds_hint(tournament: Tournament) -> str:
    """The line that tells a command's user how to import rounds beyond the planned ones."""
    return (
        f"El torneo tiene {tournament.rounds_planned} rondas previstas: para importar más, "
        f"repite el comando con {ROUNDS_OPTION} N (N: las rondas que se juegan)."
    )


def note(command, notes) -> None:
    """Write how an import read its file, when it was not UTF-8 text ("Leído como
    Windows-1252 (no era UTF-8)."), to stderr, one "nota: …" a line."""
    for text in notes:
        command.stderr.write(f"nota: {text}", style_func=lambda x: x)


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
    ``ImportReport``). A third line names the players the import created, if any; how the file
    was read (when not UTF-8) goes to stderr as "nota: …".
    """

    importer = staticmethod(imports.import_results)

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")
        parser.add_argument(
            ROUNDS_OPTION,
            type=int,
            dest="rounds",
            metavar="N",
            help="sube antes las rondas previstas del torneo a N (si el archivo trae más rondas "
            "de las previstas); en la misma transacción que la importación",
        )

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
            with transaction.atomic():
                if opts.get("rounds") is not None and opts["rounds"] != tournament.rounds_planned:
                    tournament = services.update_tournament(
                        acting_user=None, tournament=tournament, rounds_planned=opts["rounds"]
                    )
                report = self.importer(
                    acting_user=None, tournament=tournament, data=data, progress=bar
                )
        except ImportRefused as exc:
            bar.finish()
            raise refuse(self, exc, open_notes(data), tournament) from None
        except DomainError as exc:
            bar.finish()
            raise CommandError(exc.message) from None
        finally:
            bar.finish()  # a bar drawn, then any other error: its traceback on a line of its own
        note(self, report.notes)
        warn(self, report)
        self.stdout.write(
            f"creados: {report.created}, cambiados: {report.changed}, "
            f"sin cambios: {report.unchanged}"
        )
        self.stdout.write(self.details(report))
        if report.new_players:
            self.stdout.write("jugadores creados: " + ", ".join(report.new_players))
