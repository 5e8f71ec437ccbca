"""Table victory points: the worked examples of SCORING.md §4 (seed 004) and a few more."""

from decimal import Decimal
from itertools import count

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.errors import DomainError, ResultError
from tournaments.scoring import StandingRow
from tournaments.scoring.table import (
    TableBye,
    TableGame,
    game_percentages,
    neutral_score,
    standings,
    table_total,
    tournament_points,
    validate_table,
)

A, B = 1, 2


def order(rows):
    return [row.entry_id for row in rows]


def row_of(rows, entry_id) -> StandingRow:
    return next(row for row in rows if row.entry_id == entry_id)


# --- Tournament points at the table (SCORING.md §4) ------------------------------------------


def test_10_8_7_5_gives_5_3_2_1():
    assert tournament_points([10, 8, 7, 5], ended_by_time=False) == [5, 3, 2, 1]


def test_time_end_9_8_7_5_gives_4_3_2_1():
    assert tournament_points([9, 8, 7, 5], ended_by_time=True) == [4, 3, 2, 1]


def test_shared_first_10_10_8_6_gives_4_4_3_2():
    assert tournament_points([10, 10, 8, 6], ended_by_time=False) == [4, 4, 3, 2]


def test_shared_second_10_8_8_6_gives_5_2_2_2_with_6_the_sole_third():
    assert tournament_points([10, 8, 8, 6], ended_by_time=False) == [5, 2, 2, 2]


def test_shared_third_10_8_6_6_gives_5_3_1_1():
    assert tournament_points([10, 8, 6, 6], ended_by_time=False) == [5, 3, 1, 1]


def test_points_come_back_in_the_input_order():
    assert tournament_points([5, 8, 10, 7], ended_by_time=False) == [1, 3, 5, 2]


def test_shared_first_by_time_still_gives_4_each():
    assert tournament_points([9, 9, 7, 5], ended_by_time=True) == [4, 4, 3, 2]


def test_all_four_level_share_first_place():
    assert tournament_points([6, 6, 6, 6], ended_by_time=False) == [4, 4, 4, 4]


def test_three_player_table_points():
    assert tournament_points([10, 7, 6], ended_by_time=False) == [5, 3, 2]


@given(
    st.lists(st.integers(min_value=0, max_value=60), min_size=3, max_size=4),
    st.booleans(),
)
def test_points_are_1_to_5_and_never_rise_as_the_score_falls(scores, ended_by_time):
    points = tournament_points(scores, ended_by_time=ended_by_time)
    assert len(points) == len(scores)
    assert all(1 <= p <= 5 for p in points)
    for score_i, points_i in zip(scores, points, strict=True):
        for score_j, points_j in zip(scores, points, strict=True):
            if score_i > score_j:
                assert points_i >= points_j
            if score_i == score_j:
                assert points_i == points_j


# --- Neutral fourth player and percentages (SCORING.md §4) -----------------------------------


def test_neutral_of_10_7_6_is_8_and_table_total_31():
    assert neutral_score([10, 7, 6]) == 8  # 23/3 = 7.67
    assert table_total([10, 7, 6]) == 31


def test_neutral_of_10_7_5_is_7_and_table_total_29():
    assert neutral_score([10, 7, 5]) == 7  # 22/3 = 7.33
    assert table_total([10, 7, 5]) == 29


def test_neutral_of_a_whole_mean_is_the_mean():
    assert neutral_score([9, 8, 7]) == 8


def test_neutral_needs_exactly_three_scores():
    with pytest.raises(ResultError) as info:
        neutral_score([10, 8, 7, 5])
    assert info.value.code == "table_size"


def test_three_player_percentages_count_the_neutral_in_the_total_only():
    # 10, 7, 6 + neutral 8 = 31: 32.258 → 32.26, 22.580 → 22.58, 19.354 → 19.35
    assert game_percentages([10, 7, 6]) == [Decimal("32.26"), Decimal("22.58"), Decimal("19.35")]


def test_four_player_percentages_of_the_seed():
    assert game_percentages([10, 9, 7, 6]) == [
        Decimal("31.25"),
        Decimal("28.13"),  # 28.125 rounds half up
        Decimal("21.88"),  # 21.875 rounds half up
        Decimal("18.75"),
    ]


def test_percentages_keep_two_decimals():
    assert [str(p) for p in game_percentages([10, 9, 8, 6])] == ["30.30", "27.27", "24.24", "18.18"]


def test_a_table_whose_scores_are_all_0_gives_each_seat_25_percent():
    # SCORING.md §9: every seat, the neutral one included, takes an equal share (25.00 each)
    assert game_percentages([0, 0, 0, 0]) == [Decimal("25.00")] * 4
    assert game_percentages([0, 0, 0]) == [Decimal("25.00")] * 3


# --- Validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "code"),
    [
        ([10, 8], "table_size"),
        ([10, 8, 7, 6, 5], "table_size"),
        ([], "table_size"),
        ([10, None, 7], "score_missing"),
        ([10, 8.0, 7], "not_integer"),
        ([10, "8", 7], "not_integer"),
        ([10, True, 7], "not_integer"),
        ([10, 8, -1, 6], "negative_score"),
    ],
)
def test_validate_table_rejects(scores, code):
    with pytest.raises(ResultError) as info:
        validate_table(scores)
    assert info.value.code == code
    assert info.value.message  # a Spanish message, not the bare code
    assert info.value.message != code


def test_validate_table_accepts_3_or_4_whole_scores_and_ties_by_time():
    validate_table([10, 8, 7])
    validate_table([0, 0, 0, 0], ended_by_time=True)


def test_tournament_points_validate_first():
    with pytest.raises(ResultError) as info:
        tournament_points([10, 8, -2], ended_by_time=False)
    assert info.value.code == "negative_score"


# --- Standings (SCORING.md §4) ---------------------------------------------------------------


def seed_example():
    """The seed's A/B example as real games: after three rounds A and B have 13 tournament
    points and 28 VP each; every other seat is a fresh filler player (one game each, so
    at most 5 points)."""
    fillers = count(101)

    def seat(round_number, own_entry, own_score, others, ended_by_time=False):
        ids = (own_entry, *(next(fillers) for _ in others))
        return TableGame(round_number, ids, (own_score, *others), ended_by_time)

    games = [
        # A: 10 of 32 at a 3-player table (10 + 8 + 6, neutral 8) — 1st, 5 points
        seat(1, A, 10, (8, 6)),
        # A: 8 of 30 — 2nd alone, 3 points
        seat(2, A, 8, (9, 7, 6)),
        # A: 10 of 36 — 1st, 5 points
        seat(3, A, 10, (9, 9, 8)),
        # B: 10 of 30 — 1st, 5 points
        seat(1, B, 10, (9, 6, 5)),
        # B: 10 of 33 — 1st, 5 points
        seat(2, B, 10, (9, 8, 6)),
        # B: 8 of 36 — 2nd alone, 3 points
        seat(3, B, 8, (14, 7, 7)),
    ]
    entry_ids = sorted({e for game in games for e in game.entry_ids})
    return entry_ids, games


def test_seed_example_percentages_per_game():
    assert game_percentages([10, 8, 6])[0] == Decimal("31.25")  # of 32 with the neutral 8
    assert game_percentages([8, 9, 7, 6])[0] == Decimal("26.67")
    assert game_percentages([10, 9, 9, 8])[0] == Decimal("27.78")
    assert game_percentages([10, 9, 6, 5])[0] == Decimal("33.33")
    assert game_percentages([10, 9, 8, 6])[0] == Decimal("30.30")
    assert game_percentages([8, 14, 7, 7])[0] == Decimal("22.22")


def test_seed_example_b_ranks_above_a_on_the_percentage_sum():
    entry_ids, games = seed_example()
    rows = standings(entry_ids, games)
    a, b = row_of(rows, A), row_of(rows, B)
    assert a.figures["points"] == b.figures["points"] == 13
    assert a.figures["victory_points"] == b.figures["victory_points"] == 28
    assert a.figures["pct_sum"] == Decimal("85.70")
    assert b.figures["pct_sum"] == Decimal("85.85")
    assert order(rows)[:2] == [B, A]
    assert (b.position, a.position) == (1, 2)
    assert b.decided_by == a.decided_by == "pct_sum"
    assert not a.shared and not b.shared


def test_seed_example_figures_of_a():
    entry_ids, games = seed_example()
    a = row_of(standings(entry_ids, games), A)
    assert a.figures == {
        "games": 3,
        "points": 13,
        "victory_points": 28,
        "pct_sum": Decimal("85.70"),
        "byes": 0,
        "per_round": {1: 5, 2: 3, 3: 5},
    }


def test_points_rank_before_vp():
    rows = standings([1, 2, 3, 4], [TableGame(1, (1, 2, 3, 4), (10, 8, 7, 5))])
    assert order(rows) == [1, 2, 3, 4]
    assert [row.position for row in rows] == [1, 2, 3, 4]
    assert [row.decided_by for row in rows] == [None] * 4


def test_vp_breaks_a_points_tie():
    # 10, 8, 8, 6 → 5, 2, 2, 2: the two 8s beat the 6 on VP and stay level with each other
    rows = standings([1, 2, 3, 4], [TableGame(1, (1, 2, 3, 4), (10, 8, 8, 6))])
    assert order(rows) == [1, 2, 3, 4]
    assert [row.position for row in rows] == [1, 2, 2, 4]
    assert [row.shared for row in rows] == [False, True, True, False]
    assert [row.decided_by for row in rows] == [
        None,
        "victory_points",
        "victory_points",
        "victory_points",
    ]


def test_still_level_players_share_the_position_until_a_sorteo():
    games = [TableGame(1, (1, 2, 3, 4), (10, 8, 8, 6))]
    rows = standings([1, 2, 3, 4], games, sorteo={2: 5, 3: 1})
    assert order(rows) == [1, 3, 2, 4]
    assert [row.position for row in rows] == [1, 2, 3, 4]
    assert [row.shared for row in rows] == [False] * 4
    assert [row.decided_by for row in rows] == [None, "sorteo", "sorteo", "victory_points"]


def test_a_sorteo_needs_a_lot_for_every_tied_player():
    games = [TableGame(1, (1, 2, 3, 4), (10, 8, 8, 6))]
    rows = standings([1, 2, 3, 4], games, sorteo={3: 1})
    assert [row.position for row in rows] == [1, 2, 2, 4]
    assert row_of(rows, 3).decided_by == "victory_points"


def test_level_players_on_everything_share_first_then_sorteo_decides():
    games = [TableGame(1, (1, 2, 3), (9, 9, 6))]
    rows = standings([1, 2, 3], games)
    assert [(r.entry_id, r.position, r.shared, r.decided_by) for r in rows] == [
        (1, 1, True, None),
        (2, 1, True, None),
        (3, 3, False, None),
    ]
    rows = standings([1, 2, 3], games, sorteo={1: 2, 2: 1})
    assert [(r.entry_id, r.position, r.shared, r.decided_by) for r in rows] == [
        (2, 1, False, "sorteo"),
        (1, 2, False, "sorteo"),
        (3, 3, False, None),
    ]


def test_five_players_bye_gives_3_points_no_vp_and_0_percent():
    games = [TableGame(round_number=1, entry_ids=(1, 2, 3, 4), scores=(10, 8, 7, 5))]
    rows = standings(entry_ids=[1, 2, 3, 4, 5], games=games, byes=[TableBye(1, entry_id=5)])
    bye_row = row_of(rows, 5)
    assert bye_row.figures == {
        "games": 0,
        "points": 3,
        "victory_points": 0,
        "pct_sum": Decimal("0.00"),
        "byes": 1,
        "per_round": {1: 3},
    }
    # 3 points: level with the 2nd place (3 points, 8 VP), below it on VP
    assert order(rows) == [1, 2, 5, 3, 4]
    assert bye_row.position == 3 and bye_row.decided_by == "victory_points"


def test_five_players_over_two_rounds_add_the_bye_to_the_round_points():
    games = [
        TableGame(1, (1, 2, 3, 4), (10, 8, 7, 5)),
        TableGame(2, (5, 2, 3, 4), (12, 9, 4, 3)),
    ]
    rows = standings([1, 2, 3, 4, 5], games, byes=[TableBye(1, 5), TableBye(2, 1)])
    one, five = row_of(rows, 1), row_of(rows, 5)
    assert five.figures["per_round"] == {1: 3, 2: 5}
    assert five.figures["points"] == 8 and five.figures["games"] == 1
    assert one.figures["per_round"] == {1: 5, 2: 3}
    assert one.figures["pct_sum"] == Decimal("33.33")  # 10 of 30, plus 0 for the bye
    assert one.figures["byes"] == 1


def test_time_end_first_place_takes_4_in_standings():
    rows = standings([1, 2, 3, 4], [TableGame(1, (1, 2, 3, 4), (9, 8, 7, 5), True)])
    assert [row.figures["points"] for row in rows] == [4, 3, 2, 1]


def test_entry_without_games_has_zero_figures():
    rows = standings([1, 2, 3, 9], [TableGame(1, (1, 2, 3), (5, 4, 3))])
    assert row_of(rows, 9).figures == {
        "games": 0,
        "points": 0,
        "victory_points": 0,
        "pct_sum": Decimal("0.00"),
        "byes": 0,
        "per_round": {},
    }
    assert order(rows)[-1] == 9


@pytest.mark.parametrize(
    ("entry_ids", "games", "byes", "code"),
    [
        ([1, 2, 3], [TableGame(1, (1, 2, 7), (5, 4, 3))], (), "unknown_entry"),
        ([1, 2, 3, 4], [TableGame(1, (1, 2, 3), (5, 4, 3))], [TableBye(1, 3)], "round_entry_twice"),
        ([1, 2, 3], [TableGame(1, (1, 2, 2), (5, 4, 3))], (), "round_entry_twice"),
        ([1, 2, 3], [TableGame(1, (1, 2, 3), (5, 4))], (), "table_seats"),
        ([1, 2], [TableGame(1, (1, 2), (5, 4))], (), "table_size"),
        ([1, 2, 3], [TableGame(0, (1, 2, 3), (5, 4, 3))], (), "invalid_round_number"),
        ([1, 2, 3], [TableGame(1, (1, 2, 3), (5, None, 3))], (), "score_missing"),
        ([1, 2, 3], [], [TableBye(100, 1)], "invalid_round_number"),
    ],
)
def test_standings_reject_bad_input(entry_ids, games, byes, code):
    with pytest.raises(ResultError) as info:
        standings(entry_ids, games, byes=byes)
    assert info.value.code == code


def test_standings_reject_a_duplicate_entry_and_a_bad_lot():
    with pytest.raises(DomainError) as info:
        standings([1, 1, 2], [])
    assert info.value.code == "duplicate_entry"
    with pytest.raises(DomainError) as info:
        standings([1, 2], [], sorteo={1: -1})
    assert info.value.code == "invalid_count"
