"""The generic results file: one line per seated player, for any system without sides
(``SeatFile``: a ``FileFormat`` with a header and ``parse_rows``).

The header is the format's ``header`` and starts with ``round,table,player``; the
columns after those are the system's (the table games: ``vp,ended_by_time``)::

    round,table,player,vp,ended_by_time
    1,1,Ana Ruiz,10,no
    1,1,Beto Gil,8,no
    1,1,Carla Paz,7,no

The lines of one round/table form one table, seated in line order; a table has as many lines
as the system's ``seat_rule`` allows. Players are single-player entries (created and
registered if unknown, like the other imports). Once the entries exist, the system reads each
table's values from its lines (``SeatFile.parse_rows``: column → text, plus ``line`` and
``entry_id``) and ``services.record_result`` validates and stores them by the system's own
``record``. Nothing here names a system.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

from tournaments import services
from tournaments.errors import DomainError
from tournaments.imports import apply
from tournaments.imports.formats import FileFormat
from tournaments.imports.plan import Plan, PlannedTable, check_against_database
from tournaments.imports.reading import (
    MAX_ROUND,
    MAX_TABLE,
    Directory,
    field_count,
    positive,
    yes_no,
)
from tournaments.models import Tournament

#: The first columns of every seat-per-line file.
SEAT_COLUMNS = ("round", "table", "player")

#: Messages of the codes the seat-per-line files use differently (the others are in
#: errors.MESSAGES).
SEAT_MESSAGES = {
    "table_required": gettext_noop(
        "Falta el número de mesa: cada línea es un jugador sentado en una mesa."
    ),
    # A table of 3 or 4 (the table games' rule) keeps the words it always had.
    "table_size": gettext_noop(
        "La mesa {table} de la ronda {round} tiene {count} línea(s): una mesa lleva 3 o 4 "
        "jugadores, una línea por jugador."
    ),
    "table_size_range": gettext_noop(  # message for code "table_size" under other seat rules
        "La mesa {table} de la ronda {round} tiene {count} línea(s): una mesa lleva de "
        "{fewest} a {most} jugadores, una línea por jugador."
    ),
    "by_time_mismatch": gettext_noop(
        "ended_by_time dice «{value}», pero la línea {other} de la misma mesa {table} "
        "(ronda {round}) dice «{first}»: todas las líneas de una mesa deben coincidir."
    ),
}


def seat_error(code: str, **params) -> DomainError:
    """A DomainError with the seat-per-line files' own message for ``code``, if any."""
    return DomainError(code, message=SEAT_MESSAGES.get(code), **params)


def at_seat(exc: DomainError, seat: int) -> DomainError:
    """``exc`` marked as the error of the table's ``seat``-th line (1-based): ``apply`` reports
    it on that line (the ``seat`` parameter, as ``scoring.table.validate_table`` gives it)."""
    exc.params["seat"] = seat
    return exc


class SeatFile(FileFormat):
    """A results file with one line per seated player (``round,table,player`` then the
    system's columns): any system without sides. ``parse_rows`` by default reads the fourth
    column as each seat's score and, when the header has one, ``ended_by_time``
    (``default_values``)."""

    def __init__(self, header: tuple[str, ...] | None = None, hint: str | None = None):
        if header is not None:
            self.header = tuple(header)
        if hint is not None:
            self.hint = hint
        if self.header[: len(SEAT_COLUMNS)] != SEAT_COLUMNS:
            raise ValueError(f"a seat-per-line header starts with round,table,player: {header}")

    def import_results(self, system, *, acting_user, tournament, data, progress=None):
        """``import_results`` of this file's header."""
        return import_results(
            system,
            self.header,
            acting_user=acting_user,
            tournament=tournament,
            data=data,
            progress=progress,
        )

    def parse_rows(self, rows: list[dict]) -> dict:
        return default_values(self.header, rows)


def import_results(system, header, *, acting_user, tournament: Tournament, data, progress=None):
    """Import a seat-per-line results file of ``system`` (any system without sides), with the
    columns ``header``, into ``tournament``; all or nothing.

    Like the other imports: players matched by name (``reading.Directory``: exactly, else up to
    case, accents and spacing when only one player fits, with a warning) and created if unknown
    (by a club director or a command only), single-player entries registered if missing, missing
    rounds (in order, within ``rounds_planned``) and tables created (``services.seat_table``). A
    round/table already in the tournament with the same players is corrected (values by player,
    whatever the order; a change counts as changed, the table's version grows and history keeps
    the old values, the same values count as unchanged); a table with no result yet is re-seated
    as the file says; a table with a result and other players is refused ("seats_differ"). The
    file has no bye lines (a bye is set by the seating). Each round, once written, rests no
    more entries than the system allows (``ScoringSystem.check_byes``: a table game seats
    everyone but the fifth of five), counted as the pairings page counts them
    (``Tournament.entries_to_pair``): a player whose first line is in a later round arrived
    then and is not missing from the rounds before, so one file with rounds 1 and 2 stores
    what two files store (SCORING.md §5, "Late arrivals").

    Returns ``services.ImportReport`` (tables created / changed / unchanged, players and
    entries created, warnings). Raises ``ImportRefused`` (file-level codes "bad_encoding",
    "bad_header", "file_too_large"; per line "table_size" (a table of a size the system's
    ``seat_rule`` refuses, on each of its lines), "table_required", "bad_round", "bad_table",
    "field_count", "entry_twice_in_round", "round_closed", "round_out_of_order",
    "round_beyond_planned", "import_cannot_create_players", "seats_differ",
    "entry_elsewhere", "table_byes" (on every line of the round), and the system's own from
    its format's ``parse_rows`` and ``record``).
    Nothing is stored on error.
    """
    header = tuple(header)

    def make_plan(t, rows):
        return plan(t, rows, system=system, header=header)

    return apply.run(
        system,
        acting_user=acting_user,
        tournament=tournament,
        data=data,
        header=header,
        make_plan=make_plan,
        report=services.ImportReport(),
        progress=progress,
    )


def plan(t: Tournament, rows: list[tuple[int, list[str]]], *, system, header) -> Plan:
    """Read every line (round, table, player), group the lines of each round/table into a
    ``PlannedTable`` (seats in line order) and check the tables against the file and the
    database; collect all errors (the first of each line). A table with a refused line is
    kept ``blocked``: its values are still checked, it is never written."""
    who = Directory(t)
    result = Plan(who=who)
    errors = result.errors
    seen_entry: dict[tuple[int, tuple], int] = {}
    located: dict[tuple[int, int], list[int]] = {}
    parsed: dict[int, tuple] = {}  # line -> (EntryRef or None, row)
    for line, fields in rows:
        who.at(line)
        try:
            field_count(fields, header)
            number = positive(fields[0], "bad_round", MAX_ROUND)
            if fields[1] == "":
                raise seat_error("table_required")
            table = positive(fields[1], "bad_table", MAX_TABLE)
        except DomainError as exc:
            errors.add(line, exc)
            continue
        located.setdefault((number, table), []).append(line)
        ref = None
        try:
            ref = who.entry([who.player(fields[2])])
            other = seen_entry.get((number, ref.key))
            if other:
                raise DomainError("entry_twice_in_round", name=ref.name, round=number, other=other)
            seen_entry[(number, ref.key)] = line
        except DomainError as exc:
            errors.add(line, exc)
        parsed[line] = (ref, dict(zip(header, fields, strict=True)))

    fewest, most = system.seat_rule()
    for (number, table), lines in located.items():
        if not fewest <= len(lines) <= most:
            if (fewest, most) == (3, 4):
                exc = seat_error("table_size", table=table, round=number, count=len(lines))
            else:
                exc = DomainError(
                    "table_size",
                    message=SEAT_MESSAGES["table_size_range"],
                    table=table,
                    round=number,
                    count=len(lines),
                    fewest=fewest,
                    most=most,
                )
            errors.add_all(lines, exc)
            continue
        result.tables.append(
            PlannedTable(
                number,
                table,
                list(lines),
                seats=[parsed[line][0] for line in lines],
                rows=[parsed[line][1] for line in lines],
                blocked=any(line in errors for line in lines),
            )
        )
    check_against_database(t, result)
    return result


def ended_by_time(rows: list[tuple[int, dict]], errors: list[DomainError]) -> bool:
    """The ``ended_by_time`` column (yes/no) of one table's lines, which must agree: the
    value of the first good line. ``rows``: (seat, row) pairs; a bad value ("bad_yes_no") or
    a line that disagrees ("by_time_mismatch") adds its error, marked with its seat, to
    ``errors``."""
    first = None
    for seat, row in rows:
        try:
            value = yes_no(row.get("ended_by_time", ""), "ended_by_time")
        except DomainError as exc:
            errors.append(at_seat(exc, seat))
            continue
        if first is None:
            first = (value, row)
        elif value != first[0]:
            errors.append(
                at_seat(
                    seat_error(
                        "by_time_mismatch",
                        value="sí" if value else "no",
                        first="sí" if first[0] else "no",
                        other=first[1]["line"],
                        table=row["table"],
                        round=row["round"],
                    ),
                    seat,
                )
            )
    return first[0] if first is not None else False


def default_values(header: tuple[str, ...], rows: list[dict]) -> dict:
    """``SeatFile.parse_rows`` by default: ``scores`` (entry id → the text of the fourth
    column of ``header``) and, when it has an ``ended_by_time`` column, ``ended_by_time``
    (yes/no, the same on every line). Raises an ExceptionGroup of the bad lines' errors."""
    values: dict = {}
    if len(header) > len(SEAT_COLUMNS):
        column = header[len(SEAT_COLUMNS)]
        values["scores"] = {row["entry_id"]: row.get(column, "") for row in rows}
    if "ended_by_time" in header:
        errors: list[DomainError] = []
        values["ended_by_time"] = ended_by_time(list(enumerate(rows, start=1)), errors)
        if errors:
            raise ExceptionGroup("bad lines", errors)
    return values


__all__ = [
    "SEAT_COLUMNS",
    "SeatFile",
    "SEAT_MESSAGES",
    "at_seat",
    "default_values",
    "ended_by_time",
    "import_results",
    "plan",
    "seat_error",
]
