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
from tournaments.writing import bump_version, check_writable, lock_table


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
    of another system) or the system's ``ResultError`` codes. Nothing is stored on error. A
    stale ``version`` whose values are exactly the stored ones (the same save sent twice, or
    its answer lost) is no error: the stored result is returned, nothing is written.
    Returns the stored result (the system's ``result_model``).
    """
    tbl = lock_table(table)
    t = tbl.round.tournament
    system = systems.of(t)
    unknown = set(values) - set(system.value_names())
    if unknown:
        raise DomainError("wrong_system")
    try:
        check_writable(tbl, version)
    except DomainError as exc:
        # A copy of a save that already landed (an answer lost on the way, a double tap):
        # the table "changed" only by these very values, so there is nothing to do.
        if exc.code == "stale_version" and _already_stored(system, tbl, t, values, played_at):
            return system.result_of(tbl)
        raise
    result = system.record(
        acting_user=acting_user, table=tbl, tournament=t, values=values, played_at=played_at
    )
    bump_version(tbl, acting_user)
    return result


def _already_stored(system, tbl, t, values, played_at) -> bool:
    """Whether saving ``values`` now would leave ``tbl``'s stored result exactly as it is: the
    system's own ``record`` runs in a savepoint that is always rolled back (no history, no
    version, no ledger replay remain), and the stored values before and after are compared
    (``ScoringSystem.stored_values``). False when there is no result or the values are refused."""
    before = system.result_of(tbl)
    if before is None:
        return False
    stored = system.stored_values(tbl, before), getattr(before, "played_at", None)
    try:
        with transaction.atomic():
            after = system.record(
                acting_user=None, table=tbl, tournament=t, values=values, played_at=played_at
            )
            fresh = Table.objects.get(pk=tbl.pk)
            trial = system.stored_values(fresh, after), getattr(after, "played_at", None)
            transaction.set_rollback(True)  # a trial only: undone when the block ends
    except DomainError:
        return False
    return trial == stored


@transaction.atomic
def delete_result(*, acting_user, table: Table, version: int | None) -> None:
    """Remove a table's result, whatever the system (kept in history).
    Raises "round_closed"; "no_result" when there is none (deleted meanwhile from another
    page too: said as such, not as a change to reload); "stale_version" when the result was
    changed since ``version`` was read."""
    tbl = lock_table(table)
    if tbl.round.closed:
        raise DomainError("round_closed", number=tbl.round.number)
    system = systems.of(tbl.round.tournament)
    result = system.result_of(tbl)
    if result is None:
        raise DomainError("no_result", table=tbl.number)
    if version is not None and int(version) != tbl.version:
        raise DomainError("stale_version", table=tbl.number)
    system.delete(acting_user=acting_user, table=tbl, result=result)
    bump_version(tbl, acting_user)
