"""The dominó results file (seed 003, SCORING.md §1): one line per game or per bye.

Header exactly ``RESULTS_HEADER``::

    round,table,side_a,side_b,tantos_a,tantos_b,ended_by_time,forfeit,played_at
    1,1,Ana Ruiz & Beto Gil,Carla Paz & Dani Sol,100,45,no,no,
    1,,Eva Mar & Fito Luz,,,,,,

A side is one name (mano a mano) or two joined by `` & `` (the pair of a pairs tournament, or
the two players sitting on that side in an individual tournament). A line with ``side_b`` and
both tantos empty is a bye (descanso) of the entry or entries in ``side_a``. Each game is
checked here with ``scoring.domino.validate_result`` (so that every bad line is listed) and
recorded through ``services.record_result`` (which checks it again).

This module reads the format and plans; ``apply`` writes. Which importer runs is the
registry's business (``tournaments.systems``), not this module's.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from tournaments import services
from tournaments.errors import DomainError
from tournaments.imports import apply
from tournaments.imports.formats import FileFormat
from tournaments.imports.plan import Plan, PlannedBye, PlannedTable, plan_side_lines
from tournaments.imports.reading import (
    MAX_ROUND,
    MAX_TABLE,
    Directory,
    field_count,
    played_at,
    positive,
    yes_no,
)
from tournaments.models import Tournament
from tournaments.scoring import domino

#: The columns of a dominó results file.
RESULTS_HEADER = (
    "round",
    "table",
    "side_a",
    "side_b",
    "tantos_a",
    "tantos_b",
    "ended_by_time",
    "forfeit",
    "played_at",
)


class DominoFile(FileFormat):
    """The dominó results file (``RESULTS_HEADER``): one line per game or bye."""

    header = RESULTS_HEADER
    hint = _(
        "Resultados: <code>round,table,side_a,side_b,tantos_a,tantos_b,ended_by_time,forfeit,"
        "played_at</code>."
    )

    def import_results(self, system, *, acting_user, tournament, data, progress=None):
        return import_results(
            system, acting_user=acting_user, tournament=tournament, data=data, progress=progress
        )


def import_results(system, *, acting_user, tournament: Tournament, data, progress=None):
    """Import dominó results from a CSV file (bytes or text) into ``tournament`` of
    ``system`` (its dominó adapter); all or nothing.

    Names are matched as ``reading.Directory`` says (exactly, else up to case, accents and
    spacing when only one player fits, with a warning; "ambiguous_player_similar" when several
    do). Unknown players are created (by a club director or a command only) and unknown entries
    registered; missing rounds (in order, within ``rounds_planned``) and tables are created.
    A round/table pair already in the tournament is corrected (its version grows, history
    keeps the old values) and tables the file does not name are left alone. A table already
    seated with other entries is re-seated if it has no result yet, else the line is refused
    ("seats_differ"); the same entries on swapped sides are the same game (the tantos follow
    their entries). An empty ``played_at`` keeps an existing result's time, or takes the
    round's default (``tournaments.timing.default_played_at``).

    Returns ``services.ImportReport`` (results created / changed / unchanged, byes, players
    and entries created, warnings). Raises ``ImportRefused`` (codes "import_invalid",
    "bad_encoding", "bad_header", "file_too_large"; per line: ``validate_result`` codes,
    "value_too_large" (tantos above ``MAX_SCORE``), "round_closed", "round_out_of_order",
    "round_beyond_planned", "import_cannot_create_players", "seats_differ", "table_twice",
    "entry_twice_in_round", "entry_elsewhere" ...). Nothing is stored on error.
    """
    return apply.run(
        system,
        acting_user=acting_user,
        tournament=tournament,
        data=data,
        header=RESULTS_HEADER,
        make_plan=plan,
        report=services.ImportReport(),
        progress=progress,
    )


def plan(t: Tournament, rows: list[tuple[int, list[str]]]) -> Plan:
    """Every line read (``parse_line``) and checked against the file and the database."""
    return plan_side_lines(t, rows, parse_line)


def _tantos(value: str, side: str) -> int:
    """Tantos as written: a whole number up to ``MAX_SCORE`` (``services.parse_int``: the
    same limit as the result row); raises ResultError "tantos_missing", "not_integer",
    "value_too_large"."""
    return services.parse_int(value, side)


def parse_line(t: Tournament, who: Directory, line: int, f: list[str]):
    """One data line → ``PlannedTable`` (a game) or ``PlannedBye``; raises DomainError for
    the first problem of the line."""
    field_count(f, RESULTS_HEADER)
    rnd_s, table_s, side_a, side_b, ta, tb, by_time_s, forfeit_s, played_s = f
    number = positive(rnd_s, "bad_round", MAX_ROUND)
    by_time = yes_no(by_time_s, "ended_by_time")
    forfeit = yes_no(forfeit_s, "forfeit")
    moment = played_at(played_s)
    if side_b == "" and ta == "" and tb == "":
        if by_time or forfeit:
            raise DomainError("bye_with_marks")
        return PlannedBye(line, number, who.side(side_a, "A", bye=True))
    if table_s == "":
        raise DomainError("table_required")
    table = positive(table_s, "bad_table", MAX_TABLE)
    a_entries = who.side(side_a, "A")
    b_entries = who.side(side_b, "B")
    shared = {e.key for e in a_entries} & {e.key for e in b_entries}
    if shared:
        name = next(e.name for e in a_entries if e.key in shared)
        raise DomainError("player_twice_in_row", name=name)
    a, b = _tantos(ta, "A"), _tantos(tb, "B")
    if forfeit and by_time:
        raise DomainError("forfeit_by_time")
    if by_time and not t.time_limit:
        raise DomainError("no_time_limit")
    domino.validate_result(a, b, target=t.target, ended_by_time=by_time)
    forfeiting = None
    if forfeit:
        winner, loser = t.forfeit_score
        if (a, b) == (winner, loser):
            forfeiting = "B"
        elif (a, b) == (loser, winner):
            forfeiting = "A"
        else:
            raise DomainError(
                "forfeit_score_mismatch", winner=winner, loser=loser, tantos_a=a, tantos_b=b
            )
    other = {"A": "B", "B": "A", None: None}[forfeiting]
    return PlannedTable(
        number,
        table,
        [line],
        side_a=a_entries,
        side_b=b_entries,
        values={
            "tantos_a": a,
            "tantos_b": b,
            "ended_by_time": by_time,
            "forfeiting_side": forfeiting,
        },
        flipped={
            "tantos_a": b,
            "tantos_b": a,
            "ended_by_time": by_time,
            "forfeiting_side": other,
        },
        played_at=moment,
    )


__all__ = ["RESULTS_HEADER", "DominoFile", "import_results", "parse_line", "plan"]
