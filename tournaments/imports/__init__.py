"""Spreadsheet in: results and castigos from CSV files (DESIGN.md, "Writes").

Every import is all-or-nothing: the whole file is checked, every bad line is collected (line
numbers count the header as line 1), and if any line is wrong nothing is stored and
``ImportRefused`` lists them all. Every write goes through the services, with simple-history
recording the acting user.

Reading a file is apart from applying it:

- ``reading``: decoding, rows under the exact header, the refusals (``LineError``,
  ``ImportRefused``), the cell parsers and who is who (``Directory``) — no system knowledge;
- ``plan``: the plan of an import and its checks against the database;
- one module per file format, each parsing and planning: ``domino`` (one line per game),
  ``swiss`` (one line per match), ``generic`` (one line per seated player, for any system
  without sides, from its adapter alone) with ``table`` (the table games' values), and
  ``castigos``;
- ``apply``: the plan written through the public services only.

Which format a tournament's results file has is the registry's business:
Which format a tournament's results file has is a registry of its own, beside the registry of
systems: ``formats`` maps each system's key to its ``FileFormat`` (header, the form's hint,
how the file is imported and, for seat-per-line files, how a table's lines become values);
the built-in formats are registered by the app's ``ready`` (``register_builtin_formats``).
``import_results`` asks the tournament's format. The per-format functions below stay for the
commands and tests that name a format; they refuse a tournament of another system.
"""

from __future__ import annotations

from tournaments import services, systems
from tournaments.errors import DomainError
from tournaments.imports import formats
from tournaments.imports.castigos import CASTIGOS_HEADER, import_castigos
from tournaments.imports.domino import RESULTS_HEADER, DominoFile
from tournaments.imports.reading import MAX_LINES, ImportRefused, LineError
from tournaments.imports.swiss import (
    MATCH_HEADER,
    MATCH_MESSAGES,
    MatchFile,
    MatchImportReport,
    match_error,
)
from tournaments.imports.table import TABLE_HEADER, TABLE_MESSAGES, TableFile, table_error


def register_builtin_formats() -> None:
    """The results files of the built-in systems (the app's ``ready``): dominó
    (``DominoFile``), Swiss (``MatchFile``), table games (``TableFile``)."""
    formats.register("domino", DominoFile())
    formats.register("swiss", MatchFile())
    formats.register("table", TableFile())


def _import(system, *, acting_user, tournament, data, progress):
    return formats.of(system).import_results(
        system, acting_user=acting_user, tournament=tournament, data=data, progress=progress
    )


def import_results(*, acting_user, tournament, data, progress=None) -> services.ImportReport:
    """Import a results CSV (bytes or text) in the format of ``tournament``'s scoring system
    (``formats.of(tournament)``), all or nothing. Returns an ``ImportReport``; raises
    ``ImportRefused`` or ``DomainError`` (see the system's importer). ``progress(done,
    total)``, if given, is called after each table (``apply.apply_plan``)."""
    return _import(
        systems.of(tournament),
        acting_user=acting_user,
        tournament=tournament,
        data=data,
        progress=progress,
    )


def import_domino_results(*, acting_user, tournament, data, progress=None) -> services.ImportReport:
    """Import a dominó results file (``RESULTS_HEADER``; ``domino.import_results``). Raises
    DomainError "import_not_domino" for a tournament of another system. ``progress(done,
    total)``, if given, is called after each table."""
    system = systems.require(tournament, "domino", DomainError("import_not_domino"))
    return _import(
        system, acting_user=acting_user, tournament=tournament, data=data, progress=progress
    )


def import_match_results(*, acting_user, tournament, data, progress=None) -> MatchImportReport:
    """Import a Swiss match-play results file (``MATCH_HEADER``; ``swiss.import_results``).
    Raises DomainError "import_not_swiss" for a tournament of another system.
    ``progress(done, total)``, if given, is called after each table."""
    system = systems.require(tournament, "swiss", match_error("import_not_swiss"))
    return _import(
        system, acting_user=acting_user, tournament=tournament, data=data, progress=progress
    )


def import_table_results(*, acting_user, tournament, data, progress=None) -> services.ImportReport:
    """Import a 3–4 player table-game results file (``TABLE_HEADER``; the generic
    seat-per-line import). Raises DomainError "import_not_table" for a tournament of another
    system. ``progress(done, total)``, if given, is called after each table."""
    system = systems.require(tournament, "table", table_error("import_not_table"))
    return _import(
        system, acting_user=acting_user, tournament=tournament, data=data, progress=progress
    )


__all__ = [
    "CASTIGOS_HEADER",
    "MATCH_HEADER",
    "MATCH_MESSAGES",
    "MAX_LINES",
    "RESULTS_HEADER",
    "TABLE_HEADER",
    "TABLE_MESSAGES",
    "ImportRefused",
    "LineError",
    "MatchImportReport",
    "import_castigos",
    "import_domino_results",
    "import_match_results",
    "import_results",
    "import_table_results",
    "formats",
    "register_builtin_formats",
]
