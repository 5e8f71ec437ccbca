"""Results: record (create or correct) and delete the result of a table, whatever the scoring
system. One ``record_result`` for every system: it locks and checks the table here, once,
then the tournament's system (``tournaments.systems``) validates and stores its values. Each
change bumps the table version; the ranking ledger replays through the model signals of
``rankings.signals``."""

from __future__ import annotations

import datetime as dt

from django.db import transaction

from tournaments import systems
from tournaments.errors import DomainError
from tournaments.models import Table
from tournaments.services.common import bump_version, check_writable, lock_table


@transaction.atomic
def record_result(
    *,
    acting_user,
    table: Table,
    version: int | None,
    played_at: dt.datetime | None = None,
    **values,
):
    """Save (create or correct) the result of ``table``, by its tournament's scoring system.

    ``values`` are the system's (``ScoringSystem.value_names``), as typed or as numbers:
    dominó ``tantos_a``, ``tantos_b``, ``ended_by_time``, ``forfeiting_side`` ("A"/"B": a
    no-show with the forfeit score, SCORING.md §1); Swiss ``games_a``, ``games_b``,
    ``games_drawn`` (SCORING.md §3); table games ``scores`` ({entry id: VP}) and
    ``ended_by_time`` (SCORING.md §4). ``version`` is the table version the user saw (None:
    no check); a different current version means someone else changed the table.
    ``played_at`` orders a rated game in the ranking (systems whose results carry a time).

    Raises DomainError "stale_version", "round_closed", "table_empty", "wrong_system" (values
    of another system) or the system's ``ResultError`` codes. Nothing is stored on error.
    Returns the stored result (the system's ``result_model``).
    """
    tbl = lock_table(table)
    t = tbl.round.tournament
    check_writable(tbl, version)
    system = systems.of(t)
    unknown = set(values) - set(system.value_names())
    if unknown:
        raise DomainError("wrong_system")
    result = system.record(
        acting_user=acting_user, table=tbl, tournament=t, values=values, played_at=played_at
    )
    bump_version(tbl, acting_user)
    return result


@transaction.atomic
def delete_result(*, acting_user, table: Table, version: int | None) -> None:
    """Remove a table's result, whatever the system (kept in history).
    Raises "stale_version", "round_closed", "no_result"."""
    tbl = lock_table(table)
    if tbl.round.closed:
        raise DomainError("round_closed", number=tbl.round.number)
    if version is not None and int(version) != tbl.version:
        raise DomainError("stale_version", table=tbl.number)
    system = systems.of(tbl.round.tournament)
    result = system.result_of(tbl)
    if result is None:
        raise DomainError("no_result", table=tbl.number)
    system.delete(acting_user=acting_user, table=tbl, result=result)
    bump_version(tbl, acting_user)
