"""A tournament's final places (SCORING.md §9): the standings position, a withdrawn entry that
played no game taking none and the places below closing up (tournaments/scoring/places.py)."""

from __future__ import annotations

from tournaments.scoring import StandingRow
from tournaments.scoring.places import Place, final_places


def rows(*positions):
    """Standings rows with entry ids 1, 2, 3 ... at ``positions`` (shared when repeated)."""
    return [
        StandingRow(p, positions.count(p) > 1, i, {}, None)
        for i, p in enumerate(positions, start=1)
    ]


def test_without_withdrawals_the_places_are_the_positions():
    assert final_places(rows(1, 2, 2, 4)) == [
        Place(1, 1),
        Place(2, 2, True),
        Place(3, 2, True),
        Place(4, 4),
    ]


def test_a_withdrawn_entry_without_a_game_takes_no_place_and_the_places_below_close_up():
    assert final_places(rows(1, 2, 3, 4), unplaced={2}) == [
        Place(1, 1),
        Place(3, 2),
        Place(4, 3),
        Place(2, None),
    ]


def test_one_of_a_tie_taking_no_place_leaves_the_other_alone_in_that_place():
    assert final_places(rows(1, 2, 2, 4, 5), unplaced={3}) == [
        Place(1, 1),
        Place(2, 2),
        Place(4, 3),
        Place(5, 4),
        Place(3, None),
    ]


def test_several_unplaced_entries_follow_in_standings_order():
    assert final_places(rows(1, 1, 3, 4), unplaced={4, 1}) == [
        Place(2, 1),
        Place(3, 2),
        Place(1, None),
        Place(4, None),
    ]
