"""The results file of a 3–4 player table game (seed 004, SCORING.md §4): the generic
seat-per-line file (``generic``) with the columns ``vp`` and ``ended_by_time``.

Header exactly ``TABLE_HEADER``, one line per seated player, the lines of one round/table
forming one table of 3 or 4, seated in file order (the column ``vp`` is the file's name for a
seat's ``victory_points``; the file format keeps it)::

    round,table,player,vp,ended_by_time
    1,1,Ana Ruiz,10,no
    1,1,Beto Gil,8,no
    1,1,Carla Paz,7,no

The import itself is the generic one (one code path for every system without sides); this
module only reads a table's values (``values_of``, the table games'
``FileFormat.parse_rows``): each ``vp`` a whole number ≥ 0, ``ended_by_time`` the
same on every line, the VP checked with ``scoring.table.validate_table``, every bad line
named.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from tournaments import services
from tournaments.errors import DomainError, ResultError
from tournaments.imports.generic import SeatFile, at_seat, ended_by_time
from tournaments.scoring import table as table_scoring

#: The columns of a table-game results file.
TABLE_HEADER = ("round", "table", "player", "vp", "ended_by_time")

#: Messages of the codes only the table-game import uses (the others are in errors.MESSAGES
#: and ``generic.SEAT_MESSAGES``).
TABLE_MESSAGES = {
    "import_not_table": gettext_noop(
        "Este torneo no es de juegos de mesa de 3–4 jugadores: este archivo de mesas solo se "
        "importa en esos torneos."
    ),
    "score_missing": gettext_noop("Faltan los puntos de victoria (vp) de «{name}»."),
}


def table_error(code: str, **params) -> DomainError:
    """A DomainError with the table-game import's own message for ``code``, if it has one."""
    return DomainError(code, message=TABLE_MESSAGES.get(code), **params)


def _victory_points(value: str, name: str) -> int:
    """A ``vp`` cell as a whole number ("-3" is returned and later refused by ``validate_table``).
    Raises DomainError "score_missing", ResultError "not_integer", "value_too_large"."""
    if value == "":
        raise table_error("score_missing", name=name)
    return services.parse_int(value, name, kind="victory_points")


def _seat_errors(scores: list[int], by_time: bool) -> dict[int, ResultError]:
    """Every bad score of one table (index → error) by ``scoring.table.validate_table``: it
    names the first bad seat; that seat is set aside and the table is checked again."""
    values, errors = list(scores), {}
    while True:
        try:
            table_scoring.validate_table(values, ended_by_time=by_time)
            return errors
        except ResultError as exc:
            seat = exc.params.get("seat")
            if not isinstance(seat, int) or not 1 <= seat <= len(values) or seat - 1 in errors:
                return {i: exc for i in range(len(values))}
            errors[seat - 1] = exc
            values[seat - 1] = 0


def values_of(rows: list[dict]) -> dict:
    """The ``services.record_result`` values of one table from its lines (``rows``: column →
    text, plus ``entry_id``, ``line``, in seat order): ``scores`` (entry id → VP, whole
    numbers) and ``ended_by_time``.

    Each line is read (its ``vp``, then its ``ended_by_time``), the lines must agree on
    ``ended_by_time``, and the VP are checked with ``scoring.table.validate_table`` (a
    refused line stands in with 0 VP). Raises an ExceptionGroup of DomainErrors, each marked
    with its seat (``generic.at_seat``): "score_missing", "not_integer", "value_too_large",
    "bad_yes_no", "by_time_mismatch", "negative_score" ...
    """
    errors: list[DomainError] = []
    numbers: list[int] = []
    scores: dict[int, int] = {}
    good: list[tuple[int, dict]] = []
    for seat, row in enumerate(rows, start=1):
        try:
            victory_points = _victory_points(row.get("vp", ""), row.get("player", ""))
        except DomainError as exc:
            errors.append(at_seat(exc, seat))
            numbers.append(0)
            continue
        numbers.append(victory_points)
        scores[row["entry_id"]] = victory_points
        good.append((seat, row))
    by_time = ended_by_time(good, errors)
    # Each carries its seat; an error of the whole table (no seat) goes on every line.
    errors.extend(_seat_errors(numbers, by_time).values())
    if errors:
        raise ExceptionGroup("bad lines", errors)
    return {"scores": scores, "ended_by_time": by_time}


class TableFile(SeatFile):
    """The table games' results file: the generic seat-per-line file with each seat's VP and
    the table's ``ended_by_time`` (``values_of``)."""

    header = TABLE_HEADER
    hint = _(
        "Resultados (mesas de 3–4 jugadores): <code>round,table,player,vp,ended_by_time</code>, "
        "una línea por jugador sentado; las líneas de la misma ronda y mesa forman la mesa (3 o "
        "4 jugadores) y deben coincidir en <code>ended_by_time</code> (sí/no)."
    )

    def parse_rows(self, rows: list[dict]) -> dict:
        """Each line's VP (a whole number ≥ 0) and ``ended_by_time`` (the same on every line),
        the VP checked with ``scoring.table.validate_table``, every bad line named
        (``values_of``). Returns ``scores`` (entry id → VP) and ``ended_by_time``."""
        return values_of(rows)


__all__ = ["TABLE_HEADER", "TABLE_MESSAGES", "TableFile", "table_error", "values_of"]
