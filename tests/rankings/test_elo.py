"""Yearly Elo ledger, one game's update: SCORING.md §2 (seed 002) worked examples and more."""

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankings import elo
from rankings.elo import (
    INITIAL_RATING,
    PlayerBefore,
    PlayerUpdate,
    expected_score,
    game_update,
    k_factor,
    obtained_scores,
    team_rating,
)

JA, JB, JC, JD = 1, 2, 3, 4


def seed_example() -> dict[int, PlayerUpdate]:
    """JA 1680 (NG 15) and JC 1700 (NG 120) beat JB 1740 (NG 70) and JD 1700 (NG 18) 120–80."""
    updates = game_update(
        [PlayerBefore(JA, 1680.0, 15), PlayerBefore(JC, 1700.0, 120)],
        [PlayerBefore(JB, 1740.0, 70), PlayerBefore(JD, 1700.0, 18)],
        120,
        80,
    )
    return {u.player_id: u for u in updates}


# --- Module shape -----------------------------------------------------------------------------


def test_initial_rating_is_1500_float():
    assert INITIAL_RATING == 1500.0
    assert isinstance(INITIAL_RATING, float)


def test_module_does_not_import_django():
    tree = ast.parse(Path(elo.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert "django" not in imported
    assert imported <= {"__future__", "collections", "dataclasses"}


# --- Seed worked example (SCORING.md §2) ------------------------------------------------------


def test_seed_example_team_means():
    u = seed_example()
    for pid in (JA, JC):
        assert u[pid].team_rating == 1690.0
        assert u[pid].opponent_rating == 1720.0
    for pid in (JB, JD):
        assert u[pid].team_rating == 1720.0
        assert u[pid].opponent_rating == 1690.0


def test_seed_example_expected_scores():
    u = seed_example()
    assert u[JA].expected_score == pytest.approx(0.456934, abs=1e-6)
    assert u[JC].expected_score == pytest.approx(0.456934, abs=1e-6)
    assert u[JB].expected_score == pytest.approx(0.543066, abs=1e-6)
    assert u[JD].expected_score == pytest.approx(0.543066, abs=1e-6)


def test_seed_example_obtained_scores():
    u = seed_example()
    assert u[JA].score == pytest.approx(0.73) and u[JC].score == pytest.approx(0.73)
    assert u[JB].score == pytest.approx(0.27) and u[JD].score == pytest.approx(0.27)


def test_seed_example_k_factors():
    u = seed_example()
    assert u[JA].k_factor == 32
    assert u[JB].k_factor == pytest.approx(25)  # 5 + 4000 / 200
    assert u[JC].k_factor == pytest.approx(21)  # 5 + 4000 / 250
    assert u[JD].k_factor == 32
    assert [u[p].ng_before for p in (JA, JB, JC, JD)] == [15, 70, 120, 18]


def test_seed_example_new_ratings():
    u = seed_example()
    assert u[JA].rating_after == pytest.approx(1688.74, abs=0.005)
    assert u[JB].rating_after == pytest.approx(1733.17, abs=0.005)
    assert u[JC].rating_after == pytest.approx(1705.73, abs=0.005)
    assert u[JD].rating_after == pytest.approx(1691.26, abs=0.005)


def test_seed_example_changes_and_before_ratings():
    u = seed_example()
    assert [u[p].rating_before for p in (JA, JB, JC, JD)] == [1680.0, 1740.0, 1700.0, 1700.0]
    for update in u.values():
        assert update.change == update.rating_after - update.rating_before
    assert u[JA].change == pytest.approx(8.74, abs=0.005)
    assert u[JB].change == pytest.approx(-6.83, abs=0.005)


def test_game_update_returns_side_a_then_side_b_in_given_order():
    updates = game_update(
        [PlayerBefore(JC, 1700.0, 120), PlayerBefore(JA, 1680.0, 15)],
        [PlayerBefore(JD, 1700.0, 18), PlayerBefore(JB, 1740.0, 70)],
        120,
        80,
    )
    assert [u.player_id for u in updates] == [JC, JA, JD, JB]


def test_side_b_winning_mirrors_side_a_winning():
    a_side = [PlayerBefore(JA, 1680.0, 15), PlayerBefore(JC, 1700.0, 120)]
    b_side = [PlayerBefore(JB, 1740.0, 70), PlayerBefore(JD, 1700.0, 18)]
    mirrored = {u.player_id: u for u in game_update(b_side, a_side, 80, 120)}
    assert mirrored == seed_example()


def test_player_update_is_frozen():
    update = seed_example()[JA]
    with pytest.raises(AttributeError):
        update.rating_after = 0.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        PlayerBefore(JA, 1500.0, 0).rating = 1.0  # type: ignore[misc]


# --- Building blocks --------------------------------------------------------------------------


def test_team_rating_is_mean_of_two():
    assert team_rating([1680.0, 1700.0]) == 1690.0
    assert team_rating([1740, 1700]) == 1720.0


def test_team_rating_of_one_player_is_that_rating():
    assert team_rating([1623.5]) == 1623.5


@pytest.mark.parametrize("ratings", [[], [1500.0, 1500.0, 1500.0]])
def test_team_rating_rejects_zero_or_more_than_two_players(ratings):
    with pytest.raises(ValueError):
        team_rating(ratings)


def test_expected_score_of_equal_ratings_is_half():
    assert expected_score(1500.0, 1500.0) == 0.5


def test_expected_score_400_points_above_is_ten_to_one():
    assert expected_score(1900.0, 1500.0) == pytest.approx(10 / 11)
    assert expected_score(1500.0, 1900.0) == pytest.approx(1 / 11)


def test_expected_scores_of_both_sides_sum_to_one():
    assert expected_score(1690.0, 1720.0) + expected_score(1720.0, 1690.0) == pytest.approx(1.0)


def test_obtained_scores_seed_margin_40():
    winner, loser = obtained_scores(120, 80)
    assert winner == pytest.approx(0.73)
    assert loser == pytest.approx(0.27)


def test_obtained_scores_margin_100_is_one_and_zero():
    assert obtained_scores(100, 0) == (1.0, 0.0)


def test_obtained_scores_clamped_for_200_target_margin_150():
    winner, loser = obtained_scores(180, 30)
    assert winner == 1.0
    assert loser == 0.0


def test_obtained_scores_use_raw_margin_not_capped():
    # 112–0 to 100: d = 112 (raw), not 100; S clamps to 1 either way.
    assert obtained_scores(112, 0) == (1.0, 0.0)
    # 215–101 to 200: d = 114 raw → clamped 1; capping to 200 would give d = 99.
    assert obtained_scores(215, 101) == (1.0, 0.0)


def test_obtained_scores_smallest_margin():
    winner, loser = obtained_scores(100, 99)
    assert winner == pytest.approx(0.5545)
    assert loser == pytest.approx(0.4455)


@pytest.mark.parametrize("winner, loser", [(100, 100), (80, 120), (0, 0)])
def test_obtained_scores_rejects_non_positive_margin(winner, loser):
    with pytest.raises(ValueError):
        obtained_scores(winner, loser)


def test_obtained_scores_rejects_negative_tantos():
    with pytest.raises(ValueError):
        obtained_scores(100, -5)


@pytest.mark.parametrize("ng", [0, 1, 15, 18, 19])
def test_k_factor_is_32_below_20_games(ng):
    assert k_factor(ng) == 32.0


def test_k_factor_at_20_games_switches_to_sliding_formula():
    assert k_factor(20) == pytest.approx(5 + 4000 / 150)
    assert k_factor(20) == pytest.approx(31.67, abs=0.005)


def test_k_factor_seed_values():
    assert k_factor(70) == pytest.approx(25)
    assert k_factor(120) == pytest.approx(21)


def test_k_factor_decreases_with_games():
    ks = [k_factor(ng) for ng in range(20, 400)]
    assert all(a > b for a, b in zip(ks, ks[1:], strict=False))
    assert k_factor(100_000) > 5


def test_k_factor_rejects_negative_ng():
    with pytest.raises(ValueError):
        k_factor(-1)


# --- Mano a mano ------------------------------------------------------------------------------


def test_mano_a_mano_equal_ratings_100_50():
    winner, loser = game_update(
        [PlayerBefore(JA, INITIAL_RATING, 0)], [PlayerBefore(JB, INITIAL_RATING, 0)], 100, 50
    )
    assert winner.score == pytest.approx(0.775)
    assert loser.score == pytest.approx(0.225)
    assert winner.expected_score == 0.5 and loser.expected_score == 0.5
    assert winner.k_factor == 32 and loser.k_factor == 32
    assert winner.team_rating == 1500.0 and winner.opponent_rating == 1500.0
    assert winner.change == pytest.approx(8.8)
    assert loser.change == pytest.approx(-8.8)
    assert winner.rating_after == pytest.approx(1508.8)
    assert loser.rating_after == pytest.approx(1491.2)


def test_full_precision_is_kept_not_rounded():
    (a, _) = game_update([PlayerBefore(JA, 1680.0, 15)], [PlayerBefore(JB, 1720.0, 15)], 120, 80)
    expected = 1680.0 + 32 * (0.73 - 1 / (1 + 10 ** (40 / 400)))
    assert a.rating_after == pytest.approx(expected, abs=1e-9)
    assert a.rating_after != round(a.rating_after, 2)


# --- Rejected games ---------------------------------------------------------------------------


def test_tie_is_rejected():
    with pytest.raises(ValueError):
        game_update([PlayerBefore(JA, 1500.0, 0)], [PlayerBefore(JB, 1500.0, 0)], 100, 100)


def test_side_of_three_is_rejected():
    three = [PlayerBefore(JA, 1500.0, 0), PlayerBefore(JB, 1500.0, 0), PlayerBefore(JC, 1500.0, 0)]
    with pytest.raises(ValueError):
        game_update(three, [PlayerBefore(5, 1500.0, 0), PlayerBefore(6, 1500.0, 0)], 100, 50)


def test_empty_side_is_rejected():
    with pytest.raises(ValueError):
        game_update([], [PlayerBefore(JB, 1500.0, 0)], 100, 50)


def test_mixed_side_sizes_are_rejected():
    with pytest.raises(ValueError):
        game_update(
            [PlayerBefore(JA, 1500.0, 0)],
            [PlayerBefore(JB, 1500.0, 0), PlayerBefore(JC, 1500.0, 0)],
            100,
            50,
        )


def test_player_on_both_sides_is_rejected():
    with pytest.raises(ValueError):
        game_update(
            [PlayerBefore(JA, 1500.0, 0), PlayerBefore(JB, 1500.0, 0)],
            [PlayerBefore(JC, 1500.0, 0), PlayerBefore(JA, 1500.0, 0)],
            100,
            50,
        )


def test_player_twice_on_one_side_is_rejected():
    with pytest.raises(ValueError):
        game_update(
            [PlayerBefore(JA, 1500.0, 0), PlayerBefore(JA, 1500.0, 0)],
            [PlayerBefore(JC, 1500.0, 0), PlayerBefore(JD, 1500.0, 0)],
            100,
            50,
        )


def test_negative_ng_is_rejected():
    with pytest.raises(ValueError):
        game_update([PlayerBefore(JA, 1500.0, -1)], [PlayerBefore(JB, 1500.0, 0)], 100, 50)


# --- Properties -------------------------------------------------------------------------------

ratings = st.floats(min_value=1000.0, max_value=2500.0, allow_nan=False, allow_infinity=False)


@given(
    size=st.sampled_from([1, 2]),
    side_ratings=st.lists(ratings, min_size=4, max_size=4),
    ng=st.integers(min_value=0, max_value=500),
    margin=st.integers(min_value=1, max_value=250),
    loser_tantos=st.integers(min_value=0, max_value=199),
    a_wins=st.booleans(),
)
def test_changes_sum_to_zero_when_all_k_equal(size, side_ratings, ng, margin, loser_tantos, a_wins):
    players = [PlayerBefore(i, r, ng) for i, r in enumerate(side_ratings)]
    side_a, side_b = players[:size], players[2 : 2 + size]
    winner = loser_tantos + margin
    tantos_a, tantos_b = (winner, loser_tantos) if a_wins else (loser_tantos, winner)
    updates = game_update(side_a, side_b, tantos_a, tantos_b)
    assert len(updates) == 2 * size
    assert sum(u.change for u in updates) == pytest.approx(0.0, abs=1e-9)


@given(
    side_ratings=st.lists(ratings, min_size=4, max_size=4),
    ngs=st.lists(st.integers(min_value=0, max_value=500), min_size=4, max_size=4),
    margin=st.integers(min_value=1, max_value=250),
    loser_tantos=st.integers(min_value=0, max_value=199),
)
def test_scores_stay_in_range_and_no_change_exceeds_k(side_ratings, ngs, margin, loser_tantos):
    players = [
        PlayerBefore(i, r, n) for i, (r, n) in enumerate(zip(side_ratings, ngs, strict=False))
    ]
    updates = game_update(players[:2], players[2:], loser_tantos + margin, loser_tantos)
    for u in updates:
        assert 0.0 <= u.score <= 1.0
        assert 0.0 < u.expected_score < 1.0
        assert abs(u.change) <= u.k_factor
    assert updates[0].score + updates[2].score == pytest.approx(1.0)
    assert updates[0].expected_score + updates[2].expected_score == pytest.approx(1.0)
