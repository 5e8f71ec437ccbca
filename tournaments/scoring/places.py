"""A tournament's final places (SCORING.md §9, "A tournament's final place"): the one rule
every page, podium, league and story uses.

The place is the standings position, except that a withdrawn entry that played no game (a bye
is not a game) takes no place: it is listed after the others, unnumbered, and the positions
below it close up (1, 2, =2, 4 with the =2 gone becomes 1, 2, 3). Tied entries keep sharing
their place. Pure: plain standings rows in, plain places out.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from tournaments.scoring import StandingRow


@dataclass(frozen=True)
class Place:
    """One entry's final place: ``place`` 1-based (None: no place, a withdrawn entry that
    played no game), ``shared`` when another entry holds the same place."""

    entry_id: int
    place: int | None
    shared: bool = False


def final_places(rows: Sequence[StandingRow], *, unplaced: Collection[int] = ()) -> list[Place]:
    """The final places of the standings ``rows`` (best first, as ``scoring.ordering.rank``
    gives them): every entry in ``rows`` once, the placed ones first in standings order with
    their positions closed up over the entries of ``unplaced`` (entry ids that played no
    game: a withdrawn one, or one not yet seated at a table with a result; the site passes
    every entry that played none, ``Tournament.final_places``), then those, in standings
    order, with place None."""
    unplaced = set(unplaced)
    kept = [row for row in rows if row.entry_id not in unplaced]
    places: list[Place] = []
    count_of = {}
    for row in kept:
        count_of[row.position] = count_of.get(row.position, 0) + 1
    first_of: dict[int, int] = {}
    for index, row in enumerate(kept):
        place = first_of.setdefault(row.position, index + 1)
        places.append(Place(row.entry_id, place, count_of[row.position] > 1))
    places += [Place(row.entry_id, None) for row in rows if row.entry_id in unplaced]
    return places


def without_place(
    entry_ids: Iterable[int],
    *,
    played: Collection[int],
    rested: Collection[int] = (),
    withdrawn: Collection[int] = (),
    finished: bool,
) -> set[int]:
    """The entries of ``entry_ids`` that take no place (the ``unplaced`` of ``final_places``):
    those that played no game (not in ``played``: seated at a table with a result; a bye is
    not a game), when one of these holds:

    - it is withdrawn (in ``withdrawn``): SCORING.md §9;
    - the tournament is ``finished``: an entry absent, or that only rested, takes no place
      (docs/SCORING.md §6, "A player's place in a tournament");
    - it has not rested a round that counts either (not in ``rested``): nothing to order yet.

    So while the tournament runs, an entry still in it that has only rested (a bye the
    standings count) keeps its standings position: its rest scores and it plays on."""
    played, rested, withdrawn = set(played), set(rested), set(withdrawn)
    return {
        e for e in entry_ids if e not in played and (finished or e in withdrawn or e not in rested)
    }
