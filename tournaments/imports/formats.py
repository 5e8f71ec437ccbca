"""The file-format part of a scoring system: how its results file reads (docs/ARCHITECTURE.md,
"Registry").

A ``FileFormat`` says what the file's header is, how the import form describes it (``hint``),
how a file is imported (``import_results``) and, for a seat-per-line file, how one table's
lines become the values of ``record`` (``parse_rows``). One format per system key, kept here
beside the registry of systems: the built-in ones are registered by the app's ``ready``
(``tournaments.imports.register_builtin_formats``); a test may register its toy system's.
Nothing below the imports layer knows a file format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from tournaments.systems.rules import ScoringSystem
    from tournaments.writing import ImportReport


class FileFormat:
    """One scoring system's results file. ``header``: its columns, exactly; ``hint``: the
    format in words (HTML, for the tournament page's import form)."""

    header: tuple[str, ...] = ()
    hint: str = ""

    def import_results(
        self, system: ScoringSystem, *, acting_user, tournament, data, progress=None
    ) -> ImportReport:
        """Import a results file of this format into ``tournament`` (of ``system``), all or
        nothing; returns an ``ImportReport``, raises ``ImportRefused`` / ``DomainError``.
        ``progress(done, total)``, if given, is called after each table."""
        raise NotImplementedError

    def parse_rows(self, rows: list[dict]) -> dict:
        """The ``services.record_result`` values of one table from its lines in seat order
        (each row maps every column of ``header`` to its text, plus ``line`` and
        ``entry_id``), for formats with a line per seated player. Raise a ``DomainError``, or
        an ``ExceptionGroup`` of them to name several bad lines (an error with the parameter
        ``seat``, 1-based, is listed on that line, any other on every line of the table)."""
        raise NotImplementedError


_FORMATS: dict[str, FileFormat] = {}


def register(key: str, file_format: FileFormat) -> FileFormat:
    """The results file of the system ``key`` is ``file_format`` (replacing any); returns it."""
    _FORMATS[key] = file_format
    return file_format


def unregister(key: str) -> None:
    """Forget the format of the system ``key`` (tests that register a toy system)."""
    _FORMATS.pop(key, None)


def of(tournament_or_system) -> FileFormat:
    """The results file of a tournament's (or a ``ScoringSystem``'s) system. Raises
    ``LookupError`` for a system registered without a file format."""
    key = getattr(tournament_or_system, "system", None) or tournament_or_system.key
    try:
        return _FORMATS[key]
    except KeyError:
        raise LookupError(f"no results file format is registered for the system {key!r}") from None
