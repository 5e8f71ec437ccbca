"""Castigos (penalties in tantos charged to a player) and sorteos (draws of lots between tied
entries)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.db.models import Q

from tournaments import systems
from tournaments.errors import DomainError, ResultError, gettext_noop
from tournaments.models import MAX_SCORE, Castigo, Entry, Player, Round, Sorteo, Tournament
from tournaments.writing import audit, clean_name, entered_by, lock_tournament, parse_int


@transaction.atomic
def add_castigo(
    *,
    acting_user,
    tournament: Tournament,
    player: Player,
    tantos,
    reason: str,
    round: Round | None = None,
) -> Castigo:
    """Charge a castigo of ``tantos`` (a positive whole number) to a player of the tournament.

    It lowers the efectividad of the player's entry (SCORING.md §1, Castigos). Raises
    DomainError "castigo_tantos", "castigo_reason", "player_not_entered", "round_closed",
    "foreign_round", "castigo_after_withdrawal" (a round after the player's entry withdrew:
    it did not play it), "castigos_not_applicable" (a system without castigos).
    """
    try:
        n = parse_int(tantos, "castigo")
    except ResultError as exc:
        raise DomainError("castigo_tantos") from exc
    if not 1 <= n <= MAX_SCORE:
        raise DomainError("castigo_tantos")
    reason = clean_name(reason, field=gettext_noop("motivo"), max_length=200)
    t = lock_tournament(tournament)
    system = systems.of(t)
    if systems.CASTIGOS not in system.actions(t):
        raise DomainError("castigos_not_applicable", system=system.label)
    entry = t.entries.filter(Q(player1=player) | Q(player2=player)).first()
    if entry is None:
        raise DomainError("player_not_entered", name=player.full_name)
    if round is not None:
        if round.tournament_id != t.pk:
            raise DomainError("foreign_round")
        if Round.objects.get(pk=round.pk).closed:
            raise DomainError("round_closed", number=round.number)
        if entry.dropped_after_round is not None and round.number > entry.dropped_after_round:
            raise DomainError(
                "castigo_after_withdrawal",
                name=player.full_name,
                round=round.number,
                played=entry.dropped_after_round,
            )
    castigo = Castigo(
        tournament=t,
        round=round,
        player=player,
        tantos=n,
        reason=reason,
        entered_by=entered_by(acting_user),
    )
    audit(castigo, acting_user).save()
    return castigo


@transaction.atomic
def remove_castigo(*, acting_user, castigo: Castigo) -> None:
    """Delete a castigo (the deletion stays in its history). Raises "round_closed" if its round is closed."""
    lock_tournament(Castigo.objects.values_list("tournament_id", flat=True).get(pk=castigo.pk))
    castigo = (
        Castigo.objects.select_for_update(no_key=True, of=("self",))
        .select_related("round")
        .get(pk=castigo.pk)
    )
    if castigo.round is not None and castigo.round.closed:
        raise DomainError("round_closed", number=castigo.round.number)
    audit(castigo, acting_user).delete()


@transaction.atomic
def record_sorteo(
    *, acting_user, tournament: Tournament, entries_in_order: Sequence[Entry]
) -> list[Sorteo]:
    """Record a draw of lots: ``entries_in_order`` ranks the given tied entries, first = best.

    Only for a tie the final order leaves (SCORING.md §9): the tournament finished, or every
    planned round played with all its results (``Tournament.order_is_final``, the test the
    directors' page offers it by). Replaces any earlier lot of those entries. Raises
    "sorteo_too_few", "entry_twice", "foreign_entry", then "sorteo_too_early" (the order is not
    final yet).
    """
    t = lock_tournament(tournament)
    entries = list(entries_in_order)
    if len(entries) < 2:
        raise DomainError("sorteo_too_few")
    if len({e.pk for e in entries}) != len(entries):
        raise DomainError("entry_twice", name="")
    for e in entries:
        if e.tournament_id != t.pk:
            raise DomainError("foreign_entry", name=e.name)
    if not t.order_is_final():
        raise DomainError("sorteo_too_early", planned=t.rounds_planned)
    for old in Sorteo.objects.filter(tournament=t, entry__in=entries):
        audit(old, acting_user).delete()  # one by one: the history names the acting user
    rows = []
    for lot, e in enumerate(entries, start=1):
        s = Sorteo(
            tournament=t,
            entry=e,
            lot=lot,
            recorded_by=entered_by(acting_user),
        )
        audit(s, acting_user).save()
        rows.append(s)
    return rows
