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
``import_results`` asks the tournament's system (``systems.of(t).import_results``). The
per-format functions below stay for the commands and tests that name a format; they refuse a
tournament of another system.
"""

from __future__ import annotations

from tournaments import services, systems
from tournaments.errors import DomainError
from tournaments.imports.castigos import CASTIGOS_HEADER, import_castigos
from tournaments.imports.domino import RESULTS_HEADER
from tournaments.imports.reading import MAX_LINES, ImportRefused, LineError
from tournaments.imports.swiss import MATCH_HEADER, MATCH_MESSAGES, MatchImportReport, match_error
from tournaments.imports.table import TABLE_HEADER, TABLE_MESSAGES, table_error


def import_results(*, acting_user, tournament, data, progress=None) -> services.ImportReport:
    """Import a results CSV (bytes or text) in the format of ``tournament``'s scoring system
    (``ScoringSystem.import_header``), all or nothing: ``systems.of(tournament)
    .import_results``. Returns an ``ImportReport``; raises ``ImportRefused`` or
    ``DomainError`` (see the system's importer). ``progress(done, total)``, if given, is called
    after each table (``apply.apply_plan``)."""
    return systems.of(tournament).import_results(
        acting_user=acting_user, tournament=tournament, data=data, progress=progress
    )


def import_domino_results(*, acting_user, tournament, data, progress=None) -> services.ImportReport:
    """Import a dominó results file (``RESULTS_HEADER``; ``domino.import_results``). Raises
    DomainError "import_not_domino" for a tournament of another system. ``progress(done,
    total)``, if given, is called after each table."""
    system = systems.require(tournament, "domino", DomainError("import_not_domino"))
    return system.import_results(
        acting_user=acting_user, tournament=tournament, data=data, progress=progress
    )


def import_match_results(*, acting_user, tournament, data, progress=None) -> MatchImportReport:
    """Import a Swiss match-play results file (``MATCH_HEADER``; ``swiss.import_results``).
    Raises DomainError "import_not_swiss" for a tournament of another system.
    ``progress(done, total)``, if given, is called after each table."""
    system = systems.require(tournament, "swiss", match_error("import_not_swiss"))
    return system.import_results(
        acting_user=acting_user, tournament=tournament, data=data, progress=progress
    )


def import_table_results(*, acting_user, tournament, data, progress=None) -> services.ImportReport:
    """Import a 3–4 player table-game results file (``TABLE_HEADER``; the generic
    seat-per-line import). Raises DomainError "import_not_table" for a tournament of another
    system. ``progress(done, total)``, if given, is called after each table."""
    system = systems.require(tournament, "table", table_error("import_not_table"))
    return system.import_results(
        acting_user=acting_user, tournament=tournament, data=data, progress=progress
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
]
