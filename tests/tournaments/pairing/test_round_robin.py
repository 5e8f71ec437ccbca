"""Round robin pairings by the circle method."""

from itertools import combinations

import pytest

from tournaments.errors import DomainError
from tournaments.pairing.round_robin import round_robin


def games_of(rounds):
    return [pair for games in rounds for pair in games if pair[1] is not None]


def test_six_entries_play_five_rounds_meeting_each_pair_once():
    rounds = round_robin([1, 2, 3, 4, 5, 6])
    assert len(rounds) == 5
    assert all(len(games) == 3 for games in rounds)
    for games in rounds:
        seated = [e for pair in games for e in pair]
        assert sorted(seated) == [1, 2, 3, 4, 5, 6]
    met = sorted(tuple(sorted(pair)) for pair in games_of(rounds))
    assert met == list(combinations([1, 2, 3, 4, 5, 6], 2))


def test_seven_entries_play_seven_rounds_each_resting_once():
    ids = [10, 20, 30, 40, 50, 60, 70]
    rounds = round_robin(ids)
    assert len(rounds) == 7
    resting = []
    for games in rounds:
        rests = [a for a, b in games if b is None]
        assert len(rests) == 1
        resting += rests
        seated = [e for pair in games for e in pair if e is not None]
        assert sorted(seated) == ids
    assert sorted(resting) == ids
    met = sorted(tuple(sorted(pair)) for pair in games_of(rounds))
    assert met == list(combinations(ids, 2))


def test_two_entries_play_one_game():
    assert round_robin([7, 3]) == [[(7, 3)]]


def test_three_entries():
    rounds = round_robin([1, 2, 3])
    assert len(rounds) == 3
    assert sorted(tuple(sorted(p)) for p in games_of(rounds)) == [(1, 2), (1, 3), (2, 3)]


def test_is_deterministic():
    assert round_robin([4, 1, 9, 2, 5]) == round_robin([4, 1, 9, 2, 5])


@pytest.mark.parametrize("ids", [[], [1]])
def test_too_few_entries_raise(ids):
    with pytest.raises(DomainError) as caught:
        round_robin(ids)
    assert caught.value.code == "too_few_entries"


def test_repeated_entry_raises():
    with pytest.raises(DomainError) as caught:
        round_robin([1, 2, 1])
    assert caught.value.code == "duplicate_entry"


@pytest.mark.parametrize("n", range(2, 17))
def test_each_entry_is_side_a_in_about_half_its_games(n):
    rounds = round_robin(list(range(1, n + 1)))
    for entry in range(1, n + 1):
        side_a = sum(a == entry for a, b in games_of(rounds))
        side_b = sum(b == entry for a, b in games_of(rounds))
        assert side_a + side_b == n - 1
        assert abs(side_a - side_b) <= 1
