"""Swiss match tiebreakers: the worked examples of SCORING.md §3 (seed 000) and a few more."""

from fractions import Fraction
from itertools import count

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.errors import DomainError, ResultError
from tournaments.scoring import StandingRow
from tournaments.scoring.swiss import (
    FLOOR,
    Match,
    game_points,
    gwp,
    match_points,
    mwp,
    ogw,
    omw,
    standings,
    validate_match,
)

# One match from the first entry's side: W = won 2–0, L = lost 0–2, D = drawn 1–1–1.
SCORES = {"W": (2, 0, 0), "L": (0, 2, 0), "D": (1, 1, 1)}


def order(rows):
    return [row.entry_id for row in rows]


def row_of(rows, entry_id) -> StandingRow:
    return next(row for row in rows if row.entry_id == entry_id)


def four(value: Fraction) -> Fraction:
    """``value`` rounded to 4 decimals, exactly (what §3 prints)."""
    return round(value, 4)


def against_fillers(entry_id, results, fillers, rounds=None):
    """Matches of ``entry_id`` against fresh filler entries: ``results`` is a string of W, L,
    D (or B for a bye), played in ``rounds`` (default 1, 2, 3, ...). Returns (ids, matches)."""
    ids, matches = [], []
    for rnd, result in zip(rounds or count(1), results, strict=False):
        if result == "B":
            matches.append(Match(rnd, entry_id, None))
            continue
        filler = next(fillers)
        ids.append(filler)
        matches.append(Match(rnd, entry_id, filler, *SCORES[result]))
    return ids, matches


# --- Match points and game points (SCORING.md §3) --------------------------------------------


def test_6_2_0_gives_18_match_points():
    assert match_points(6, 2, 0) == 18


def test_4_2_2_gives_14_match_points():
    assert match_points(4, 2, 2) == 14


def test_game_points_2_0_0_gives_6_and_0():
    assert (game_points(2, 0, 0), game_points(0, 2, 0)) == (6, 0)


def test_game_points_2_1_0_gives_6_and_3():
    assert (game_points(2, 1, 0), game_points(1, 2, 0)) == (6, 3)


def test_game_points_2_0_1_gives_7_and_1():
    assert (game_points(2, 0, 1), game_points(0, 2, 1)) == (7, 1)


def test_standings_game_points_of_a_2_0_1_match_are_7_and_1():
    rows = standings([1, 2], [Match(1, 1, 2, 2, 0, 1)])
    assert (row_of(rows, 1).figures["game_points"], row_of(rows, 2).figures["game_points"]) == (
        7,
        1,
    )
    assert row_of(rows, 1).figures["games_played"] == row_of(rows, 2).figures["games_played"] == 3


@pytest.mark.parametrize("bad", [-1, 1.0, True, "2", None])
def test_points_helpers_reject_a_count_that_is_not_a_whole_number(bad):
    for func in (match_points, game_points):
        with pytest.raises(ResultError) as caught:
            func(bad, 0, 0)
        assert caught.value.code == "not_integer"


# --- Match-win % (SCORING.md §3) -------------------------------------------------------------


def test_mwp_5_2_1_over_8_rounds_is_16_over_24():
    ids, matches = against_fillers(1, "WWWWWLLD", count(100))
    f = row_of(standings([1, *ids], matches), 1).figures
    assert (f["wins"], f["losses"], f["draws"], f["match_points"], f["rounds_played"]) == (
        5,
        2,
        1,
        16,
        8,
    )
    assert f["mwp"] == Fraction(16, 24) == mwp(16, 8)
    assert four(f["mwp"]) == Fraction("0.6667")


def test_mwp_1_3_0_then_dropped_is_floored_from_0_25_to_0_33():
    ids, matches = against_fillers(1, "WLLL", count(100))  # dropped after round 4 of 8
    f = row_of(standings([1, *ids], matches), 1).figures
    assert (f["match_points"], f["rounds_played"]) == (3, 4)
    assert Fraction(3, 12) == Fraction("0.25")
    assert f["mwp"] == Fraction("0.33") == FLOOR == mwp(3, 4)


def test_mwp_3_2_0_with_a_round_1_bye_then_dropped_is_0_60():
    ids, matches = against_fillers(1, "BWWLL", count(100))
    f = row_of(standings([1, *ids], matches), 1).figures
    assert (f["wins"], f["losses"], f["draws"], f["byes"]) == (3, 2, 0, 1)
    assert (f["match_points"], f["rounds_played"]) == (9, 5)
    assert f["mwp"] == Fraction(9, 15) == Fraction("0.60") == mwp(9, 5)


def test_one_third_is_not_floored():
    assert mwp(1, 1) == Fraction(1, 3) > FLOOR


def test_no_rounds_played_gives_the_floor():
    assert mwp(0, 0) == gwp(0, 0) == FLOOR
    f = standings([1], [])[0].figures
    assert (f["rounds_played"], f["mwp"], f["gwp"], f["omw"], f["ogw"]) == (
        0,
        FLOOR,
        FLOOR,
        FLOOR,
        FLOOR,
    )


# --- Game-win % (SCORING.md §3) --------------------------------------------------------------


def test_gwp_21_game_points_over_10_games_is_0_70():
    fillers = count(100)
    matches = [
        Match(r, 1, next(fillers), a, b)
        for r, (a, b) in enumerate([(2, 0), (2, 1), (1, 2), (2, 0)], start=1)
    ]
    rows = standings([1, 100, 101, 102, 103], matches)
    f = row_of(rows, 1).figures
    assert (f["game_points"], f["games_played"]) == (21, 10)
    assert f["gwp"] == Fraction(21, 30) == Fraction("0.70") == gwp(21, 10)


def test_gwp_9_over_11_games_is_floored_from_0_2727_to_0_33():
    fillers = count(100)
    matches = [
        Match(r, 1, next(fillers), a, b)
        for r, (a, b) in enumerate([(1, 2), (1, 2), (0, 2), (1, 2)], start=1)
    ]
    rows = standings([1, 100, 101, 102, 103], matches)
    f = row_of(rows, 1).figures
    assert (f["game_points"], f["games_played"]) == (9, 11)
    assert four(Fraction(9, 33)) == Fraction("0.2727")
    assert f["gwp"] == FLOOR == gwp(9, 11)


# --- Opponents' match-win % (SCORING.md §3 worked example) -----------------------------------

HERO = 1
# Opponent id → its final W–L–D record (its match against HERO included), met in round
# id − 10. Opponent 13 (1–3–1) dropped after five rounds; 14 (3–3–1) after seven.
OPPONENT_RECORDS = {
    11: (4, 4, 0),
    12: (7, 1, 0),
    13: (1, 3, 1),
    14: (3, 3, 1),
    15: (6, 2, 0),
    16: (5, 2, 1),
    17: (4, 3, 1),
    18: (6, 1, 1),
}
HERO_LOST_TO = {12, 18}  # HERO finishes 6–2–0
OPPONENT_MWPS = [
    Fraction(1, 2),
    Fraction(7, 8),
    FLOOR,  # 4/15 = 0.2667 → 0.33
    Fraction(10, 21),
    Fraction(3, 4),
    Fraction(2, 3),
    Fraction(13, 24),
    Fraction(19, 24),
]


def omw_field(bye_instead_of_11: bool = False):
    """A real eight-round field: HERO meets opponent ``10 + r`` in round ``r`` (a bye in round
    1 instead of opponent 11 when asked); every other match of an opponent is against a fresh
    filler entry, so each opponent finishes with exactly its ``OPPONENT_RECORDS`` record."""
    ids, matches, fillers = [HERO], [], count(100)
    for opponent, (wins, losses, draws) in OPPONENT_RECORDS.items():
        rnd = opponent - 10
        if bye_instead_of_11 and opponent == 11:
            matches.append(Match(rnd, HERO, None))
            continue
        ids.append(opponent)
        if opponent in HERO_LOST_TO:
            matches.append(Match(rnd, opponent, HERO, 2, 1))
            wins -= 1
        else:
            matches.append(Match(rnd, HERO, opponent, 2, 1))
            losses -= 1
        other_rounds = [r for r in range(1, 9) if r != rnd]
        more_ids, more = against_fillers(
            opponent, "W" * wins + "L" * losses + "D" * draws, fillers, other_rounds
        )
        ids += more_ids
        matches += more
    return ids, matches


def test_omw_example_built_from_real_matches_is_0_6164():
    ids, matches = omw_field()
    rows = standings(ids, matches, best_of=3)
    hero = row_of(rows, HERO).figures
    assert (hero["wins"], hero["losses"], hero["draws"], hero["match_points"]) == (6, 2, 0, 18)
    for opponent, (wins, losses, draws) in OPPONENT_RECORDS.items():
        f = row_of(rows, opponent).figures
        assert (f["wins"], f["losses"], f["draws"]) == (wins, losses, draws)
    assert row_of(rows, 13).figures["rounds_played"] == 5  # dropped: counts 5 rounds only
    assert [row_of(rows, o).figures["mwp"] for o in OPPONENT_RECORDS] == OPPONENT_MWPS
    assert hero["omw"] == sum(OPPONENT_MWPS) / 8
    assert four(hero["omw"]) == Fraction("0.6164")


def test_omw_helper_on_the_example_is_0_6164():
    assert four(omw(OPPONENT_MWPS)) == Fraction("0.6164")


def test_omw_example_with_a_bye_instead_of_the_4_4_0_opponent_is_0_6330():
    ids, matches = omw_field(bye_instead_of_11=True)
    hero = row_of(standings(ids, matches, best_of=3), HERO).figures
    assert (hero["wins"], hero["losses"], hero["byes"], hero["match_points"]) == (6, 2, 1, 18)
    assert hero["omw"] == omw(OPPONENT_MWPS[1:]) == sum(OPPONENT_MWPS[1:]) / 7
    assert four(hero["omw"]) == Fraction("0.6330")


def test_byes_are_ignored_in_omw_and_ogw():
    # 1 had a bye in round 1 and beat 2 in round 2; 2 beat 3 in round 1.
    matches = [Match(1, 1, None), Match(2, 1, 2, 2, 1), Match(1, 2, 3, 2, 0)]
    rows = standings([1, 2, 3], matches)
    one, two = row_of(rows, 1).figures, row_of(rows, 2).figures
    assert (two["mwp"], two["gwp"]) == (Fraction(1, 2), Fraction(9, 15))
    assert one["omw"] == Fraction(1, 2)  # not (1/2 + anything for the bye) / 2
    assert one["ogw"] == Fraction(3, 5)
    assert row_of(rows, 3).figures["omw"] == Fraction(1, 2)


def test_a_bye_counts_as_a_match_won_2_0():
    rows = standings([1], [Match(1, 1, None)])
    f = rows[0].figures
    assert {
        k: f[k]
        for k in (
            "wins",
            "losses",
            "draws",
            "byes",
            "match_points",
            "game_points",
            "games_played",
            "rounds_played",
            "mwp",
            "gwp",
        )
    } == {
        "wins": 1,
        "losses": 0,
        "draws": 0,
        "byes": 1,
        "match_points": 3,
        "game_points": 6,
        "games_played": 2,
        "rounds_played": 1,
        "mwp": Fraction(1),
        "gwp": Fraction(1),
    }


@pytest.mark.parametrize(
    ("best_of", "games"),
    [(1, 1), (3, 2), (5, 3), (None, 2)],
)
def test_a_bye_is_won_by_the_formats_smallest_winning_score(best_of, games):
    # SCORING.md §9 "Swiss byes": 1–0 at best of 1, 2–0 at best of 3, 3–0 at best of 5.
    # A bye and a lost match: the games count changes GWP, never the match points.
    matches = [Match(1, 1, None), Match(2, 1, 2, games_a=0, games_b=games)]
    rows = standings([1, 2], matches, bye_best_of=best_of)
    f = next(row.figures for row in rows if row.entry_id == 1)
    assert (f["match_points"], f["game_points"], f["games_played"]) == (3, 3 * games, 2 * games)
    assert f["gwp"] == Fraction(1, 2)
    played = standings([1, 2], [Match(1, 1, None)], best_of=best_of or 3)[0].figures
    assert played["games_played"] == ((best_of or 3) + 1) // 2


def test_only_byes_means_no_opponents_and_omw_ogw_at_the_floor():
    f = standings([1], [Match(1, 1, None), Match(2, 1, None)])[0].figures
    assert (f["omw"], f["ogw"]) == (FLOOR, FLOOR)
    assert omw([]) == ogw([]) == FLOOR


def test_ogw_averages_the_floored_gwps_once_per_match():
    # 1 meets 2 twice and 3 once: ogw = (gwp2 + gwp2 + gwp3) / 3.
    matches = [Match(1, 1, 2, 2, 0), Match(2, 1, 3, 1, 2), Match(3, 1, 2, 1, 1, 1)]
    rows = standings([1, 2, 3], matches)
    gwp2, gwp3 = row_of(rows, 2).figures["gwp"], row_of(rows, 3).figures["gwp"]
    assert gwp2 == FLOOR  # 4 game points over 5 games = 0.2667 → 0.33
    assert gwp3 == Fraction(6, 9)
    assert row_of(rows, 1).figures["ogw"] == (2 * gwp2 + gwp3) / 3 == ogw([gwp2, gwp2, gwp3])


# --- The winner is derived from the games ----------------------------------------------------


def test_the_match_result_follows_the_games_whatever_side_is_listed_first():
    matches = [
        Match(1, 1, 2, 1, 2),  # listed first, but 1 lost
        Match(2, 1, 3, 1, 0, 2),  # one game won, two drawn: a win
        Match(3, 1, 4, 1, 1, 1),  # draw
        Match(4, 1, 5, 0, 0, 1),  # a single drawn game: a draw
    ]
    f = row_of(standings([1, 2, 3, 4, 5], matches), 1).figures
    assert (f["wins"], f["losses"], f["draws"], f["match_points"]) == (1, 1, 2, 5)


# --- validate_match codes --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("games", "best_of"),
    [
        ((2, 0, 0), 3),
        ((2, 1, 0), 3),
        ((0, 2, 1), 3),
        ((1, 1, 1), 3),
        ((1, 1, 0), 3),
        ((0, 0, 1), 3),
        ((1, 0, 0), 3),
        ((1, 0, 2), 3),
        ((1, 0, 0), 1),
        ((0, 0, 1), 1),
        ((3, 2, 0), 5),
        ((2, 2, 1), 5),
        ((0, 0, 5), 5),
    ],
)
def test_valid_match_results_pass(games, best_of):
    assert validate_match(*games, best_of=best_of) is None


@pytest.mark.parametrize(
    ("games", "best_of", "code"),
    [
        ((3, 0, 0), 3, "above_wins_needed"),
        ((0, 3, 0), 3, "above_wins_needed"),
        ((2, 0, 0), 1, "above_wins_needed"),
        ((4, 1, 0), 5, "above_wins_needed"),
        ((2, 1, 1), 3, "too_many_games"),
        ((2, 2, 0), 3, "too_many_games"),
        ((1, 1, 2), 3, "too_many_games"),
        ((1, 0, 1), 1, "too_many_games"),
        ((3, 2, 1), 5, "too_many_games"),
        ((-1, 2, 0), 3, "negative_games"),
        ((2, 0, -1), 3, "negative_games"),
        ((0, 0, 0), 3, "empty_match"),
        ((1.0, 0, 0), 3, "not_integer"),
        ((True, 0, 0), 3, "not_integer"),
        ((2, "1", 0), 3, "not_integer"),
        ((2, 0, None), 3, "not_integer"),
        ((2, 0, 0), 2, "invalid_best_of"),
        ((2, 0, 0), 7, "invalid_best_of"),
        ((2, 0, 0), True, "invalid_best_of"),
        ((2, 0, 0), "3", "invalid_best_of"),
    ],
)
def test_invalid_match_results_are_rejected_with_code(games, best_of, code):
    with pytest.raises(ResultError) as caught:
        validate_match(*games, best_of=best_of)
    assert caught.value.code == code


def test_error_message_names_the_result():
    with pytest.raises(ResultError) as caught:
        validate_match(2, 1, 1, best_of=3)
    assert "2–1–1" in caught.value.message and "3" in caught.value.message
    with pytest.raises(ResultError) as caught:
        validate_match(3, 0, 0, best_of=3)
    assert "3–0–0" in caught.value.message and "2" in caught.value.message
    with pytest.raises(ResultError) as caught:
        validate_match(1.5, 0, 0, best_of=3)
    assert "1.5" in caught.value.message and "partidas" in caught.value.message


# --- Standings order -------------------------------------------------------------------------


def test_omw_comes_before_gwp():
    matches = [
        Match(1, 1, 3, 2, 1),  # 1: GWP 2/3, but its opponent 3 goes on to win a match
        Match(1, 2, 4, 2, 0),  # 2: GWP 1, its opponent 4 never wins
        Match(2, 3, 5, 2, 0),
    ]
    rows = standings([1, 2, 3, 4, 5], matches)
    assert row_of(rows, 1).figures["omw"] == Fraction(1, 2)
    assert row_of(rows, 2).figures["omw"] == FLOOR
    assert row_of(rows, 3).figures["omw"] == Fraction(133, 200)  # (1 + 0.33) / 2
    assert [(r.position, r.entry_id, r.shared, r.decided_by) for r in rows] == [
        (1, 3, False, "omw"),
        (2, 1, False, "omw"),
        (3, 2, False, "omw"),
        (4, 4, False, "omw"),  # OMW 1 (opponent 2 is 1–0)
        (5, 5, False, "omw"),  # OMW 1/2 (opponent 3 is 1–1)
    ]


# 1 and 2 win 2–1; 5 wins 2–1 and 6 wins 2–0; 3 and 4 lose both their matches.
TIE_MATCHES = [
    Match(1, 1, 3, 2, 1),
    Match(1, 2, 4, 2, 1),
    Match(2, 5, 3, 2, 1),
    Match(2, 6, 4, 2, 0),
]


def test_gwp_then_ogw_then_shared_position():
    rows = standings([1, 2, 3, 4, 5, 6], TIE_MATCHES)
    three, four_ = row_of(rows, 3).figures, row_of(rows, 4).figures
    assert three["gwp"] == Fraction(1, 3)  # 6 over 6 games: 1/3 is above the 0.33 floor
    assert four_["gwp"] == FLOOR  # 3 over 5 games = 0.2 → 0.33
    assert {r.figures["omw"] for r in rows if r.figures["match_points"] == 3} == {FLOOR}
    assert [(r.position, r.entry_id, r.shared, r.decided_by) for r in rows] == [
        (1, 6, False, "gwp"),
        (2, 1, True, "ogw"),
        (2, 5, True, "ogw"),
        (4, 2, False, "ogw"),
        (5, 3, False, "gwp"),
        (6, 4, False, "gwp"),
    ]


def test_sorteo_breaks_the_shared_position():
    rows = standings([1, 2, 3, 4, 5, 6], TIE_MATCHES, sorteo={1: 2, 5: 1, 4: 0})
    assert [(r.position, r.entry_id, r.shared, r.decided_by) for r in rows[:4]] == [
        (1, 6, False, "gwp"),
        (2, 5, False, "sorteo"),
        (3, 1, False, "sorteo"),
        (4, 2, False, "ogw"),
    ]


def test_sorteo_with_a_missing_lot_keeps_the_tie():
    rows = standings([1, 2, 3, 4, 5, 6], TIE_MATCHES, sorteo={1: 1})
    assert [(r.position, r.entry_id, r.shared) for r in rows[1:3]] == [(2, 1, True), (2, 5, True)]


def test_a_drawn_match_leaves_both_level_until_the_sorteo():
    draw = [Match(1, 7, 3, 1, 1, 1)]
    rows = standings([3, 7], draw)
    assert [(r.position, r.entry_id, r.shared, r.decided_by) for r in rows] == [
        (1, 3, True, None),
        (1, 7, True, None),
    ]
    rows = standings([3, 7], draw, sorteo={3: 2, 7: 1})
    assert [(r.position, r.entry_id, r.shared, r.decided_by) for r in rows] == [
        (1, 7, False, "sorteo"),
        (2, 3, False, "sorteo"),
    ]


def test_equal_lots_keep_the_tie():
    rows = standings([3, 7], [Match(1, 7, 3, 1, 1, 1)], sorteo={3: 1, 7: 1})
    assert [(r.position, r.shared) for r in rows] == [(1, True), (1, True)]


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"entry_ids": [1, 1]}, "duplicate_entry"),
        ({"matches": [Match(1, 1, 9, 2, 0)]}, "unknown_entry"),
        ({"matches": [Match(1, 9, None)]}, "unknown_entry"),
        ({"matches": [Match(1, 1, 1, 2, 0)]}, "invalid_sides"),
        ({"matches": [Match(0, 1, 2, 2, 0)]}, "invalid_round_number"),
        ({"matches": [Match(100, 1, 2, 2, 0)]}, "invalid_round_number"),
        ({"matches": [Match(1, 1, 2, 2, 0), Match(1, 3, 1, 2, 0)]}, "round_entry_twice"),
        ({"matches": [Match(1, 1, 2, 2, 0), Match(1, 1, None)]}, "round_entry_twice"),
        ({"matches": [Match(1, 1, None, 2, 0)]}, "bye_with_games"),
        ({"matches": [Match(1, 1, 2)]}, "empty_match"),
        ({"matches": [Match(1, 1, 2, -1, 2)]}, "negative_games"),
        ({"matches": [Match(1, 1, 2, 2.0, 0)]}, "not_integer"),
        ({"matches": [Match(1, 1, 2, 3, 0)], "best_of": 3}, "above_wins_needed"),
        ({"matches": [Match(1, 1, 2, 2, 1, 1)], "best_of": 3}, "too_many_games"),
        ({"best_of": 2}, "invalid_best_of"),
        ({"sorteo": {1: -1}}, "invalid_count"),
        ({"sorteo": {9: 1}}, "unknown_entry"),
    ],
)
def test_standings_reject_bad_input(kwargs, code):
    args = {"entry_ids": [1, 2, 3], "matches": []} | kwargs
    with pytest.raises(DomainError) as caught:
        standings(args.pop("entry_ids"), args.pop("matches"), **args)
    assert caught.value.code == code


def test_best_of_is_only_checked_when_given():
    rows = standings([1, 2], [Match(1, 1, 2, 3, 0)])  # 3–0 is a real best-of-5 result
    assert row_of(rows, 1).figures["game_points"] == 9


# --- Property ---------------------------------------------------------------------------------

VALID_BO3 = [
    (2, 0, 0),
    (2, 1, 0),
    (2, 0, 1),
    (1, 0, 0),
    (1, 0, 1),
    (1, 0, 2),
    (1, 1, 1),
    (1, 1, 0),
    (0, 0, 1),
    (0, 0, 2),
    (0, 0, 3),
]
VALID_BO3 += [(b, a, d) for a, b, d in VALID_BO3]


@st.composite
def tournaments(draw):
    ids = draw(st.lists(st.integers(1, 60), min_size=1, max_size=8, unique=True))
    active, matches = list(ids), []
    for rnd in range(1, draw(st.integers(0, 6)) + 1):
        if len(active) > 1 and draw(st.booleans()):  # someone drops before this round
            active.remove(draw(st.sampled_from(active)))
        seating = draw(st.permutations(active))
        for a, b in zip(seating[::2], seating[1::2], strict=False):
            matches.append(Match(rnd, a, b, *draw(st.sampled_from(VALID_BO3))))
        if len(seating) % 2:
            matches.append(Match(rnd, seating[-1], None))
    sorteo = draw(st.dictionaries(st.sampled_from(ids), st.integers(0, 3)))
    return ids, matches, sorteo


@given(tournaments())
def test_standings_is_a_permutation_with_non_decreasing_positions(case):
    ids, matches, sorteo = case
    rows = standings(ids, matches, sorteo=sorteo, best_of=3)
    assert sorted(order(rows)) == sorted(ids)
    positions = [r.position for r in rows]
    assert positions == sorted(positions)
    for index, row in enumerate(rows):
        f = row.figures
        assert row.position == 1 + sum(p < row.position for p in positions)
        assert row.shared == (positions.count(row.position) > 1)
        assert f["rounds_played"] == f["wins"] + f["losses"] + f["draws"]
        assert f["match_points"] == match_points(f["wins"], f["losses"], f["draws"])
        for name in ("mwp", "gwp", "omw", "ogw"):
            assert FLOOR <= f[name] <= 1
        if index:
            prev = rows[index - 1].figures
            key = ("match_points", "omw", "gwp", "ogw")
            assert [prev[k] for k in key] >= [f[k] for k in key]
