"""Dominó table order: the worked examples of SCORING.md §1 (seed 003) and a few more."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.errors import DomainError, ResultError
from tournaments.scoring import StandingRow
from tournaments.scoring.domino import Game, SideFigures, game_figures, standings, validate_result


def figures(a, b, target=100, by_time=False):
    return game_figures(a, b, target=target, ended_by_time=by_time)


def order(rows):
    return [row.entry_id for row in rows]


def row_of(rows, entry_id) -> StandingRow:
    return next(row for row in rows if row.entry_id == entry_id)


# --- Per-game figures (SCORING.md §1, worked examples) ---------------------------------------


def test_zapato_112_0_caps_winner_at_target():
    assert figures(112, 0) == (SideFigures(1, 3, 100, 0, True), SideFigures(0, 0, 0, 100, False))


def test_100_50_gives_two_puntos():
    assert figures(100, 50) == (
        SideFigures(1, 2, 100, 50, False),
        SideFigures(0, 0, 50, 100, False),
    )


def test_104_51_gives_one_punto():
    assert figures(104, 51)[0] == SideFigures(1, 1, 100, 51, False)


def test_100_99_gives_one_punto():
    assert figures(100, 99)[0].puntos == 1


def test_side_b_can_win():
    assert figures(1, 100) == (SideFigures(0, 0, 1, 100, False), SideFigures(1, 2, 100, 1, False))


def test_target_200_tiers():
    assert figures(200, 100, target=200)[0] == SideFigures(1, 2, 200, 100, False)
    assert figures(215, 101, target=200) == (
        SideFigures(1, 1, 200, 101, False),
        SideFigures(0, 0, 101, 200, False),
    )
    assert figures(201, 0, target=200)[0] == SideFigures(1, 3, 200, 0, True)


def test_win_by_time_80_60_takes_recorded_tantos():
    assert figures(80, 60, by_time=True) == (
        SideFigures(1, 1, 80, 60, False),
        SideFigures(0, 0, 60, 80, False),
    )


def test_win_by_time_45_0_is_one_punto_not_zapato():
    assert figures(45, 0, by_time=True)[0] == SideFigures(1, 1, 45, 0, False)


# --- Rejected results --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "by_time", "code"),
    [
        (100, 100, False, "both_reached_target"),
        (100, 120, False, "both_reached_target"),
        (60, 60, True, "tie_by_time"),
        (100, 40, True, "time_but_target_reached"),
        (-5, 100, False, "negative_tantos"),
        (99, 98, False, "no_side_reached_target"),
        (100.0, 0, False, "not_integer"),
        (True, 0, False, "not_integer"),
        ("100", 0, False, "not_integer"),
    ],
)
def test_invalid_results_are_rejected_with_code(a, b, by_time, code):
    with pytest.raises(ResultError) as caught:
        validate_result(a, b, target=100, ended_by_time=by_time)
    assert caught.value.code == code
    with pytest.raises(ResultError):
        game_figures(a, b, target=100, ended_by_time=by_time)


@pytest.mark.parametrize("target", [50, 150, 0, True, "100"])
def test_target_must_be_100_or_200(target):
    with pytest.raises(ResultError) as caught:
        validate_result(100, 0, target=target, ended_by_time=False)
    assert caught.value.code == "invalid_target"


def test_error_message_names_the_values():
    with pytest.raises(ResultError) as caught:
        validate_result(99, 98, target=100, ended_by_time=False)
    assert caught.value.message == (
        "Ningún lado llegó a 100 tantos (99–98); si la partida terminó por tiempo, márcalo."
    )
    assert caught.value.params == {"tantos_a": 99, "tantos_b": 98, "target": 100}


# --- Standings --------------------------------------------------------------------------------


def test_efectividad_subtracts_castigos():
    games = [
        Game((1,), (2,), 100, 80),
        Game((1,), (3,), 100, 70),
        Game((4,), (1,), 70, 100),
        Game((1,), (5,), 100, 60),
        Game((2,), (1,), 100, 50),
    ]
    rows = standings([1, 2, 3, 4, 5], games, target=100, castigos={1: 25})
    assert row_of(rows, 1).figures == {
        "played": 5,
        "won": 4,
        "puntos": 4,
        "tantos_a_favor": 450,
        "tantos_en_contra": 380,
        "castigos": 25,
        "efectividad": 45,
        "byes": 0,
    }


def test_head_to_head_diferencial_orders_b_a_c():
    a, b, c, d = 1, 2, 3, 4
    games = [
        Game((a,), (b,), 100, 60),
        Game((b,), (c,), 100, 20),
        Game((c,), (a,), 100, 90),
        # Games against D level A, B and C on puntos 3, won 2, for 290, against 300.
        Game((a,), (d,), 100, 40),
        Game((d,), (a,), 100, 0),
        Game((b,), (d,), 100, 80),
        Game((d,), (b,), 100, 30),
        Game((c,), (d,), 100, 10),
        Game((d,), (c,), 100, 70),
    ]
    rows = standings([a, b, c, d], games, target=100)
    for entry_id in (a, b, c):
        f = row_of(rows, entry_id).figures
        assert (f["puntos"], f["won"], f["tantos_a_favor"], f["efectividad"]) == (3, 2, 290, -10)
    assert [(r.position, r.entry_id, r.shared, r.decided_by) for r in rows] == [
        (1, d, False, None),
        (2, b, False, "diferencial"),
        (3, a, False, "diferencial"),
        (4, c, False, "diferencial"),
    ]


def test_diferencial_applies_again_inside_the_group_left_level():
    w, x, y, z = 1, 2, 3, 4
    games = [
        # Among the four: W +90; X, Y, Z −30 each. Among X, Y, Z: Y +40, X +30, Z −70.
        Game((w,), (x,), 100, 40),
        Game((w,), (y,), 100, 30),
        Game((z,), (w,), 100, 60),
        Game((x,), (y,), 100, 60),
        Game((y,), (z,), 100, 20),
        Game((z,), (x,), 100, 90),
        # Against outsiders: all four end on puntos 5, won 3, for 450, against 430.
        Game((w,), (5,), 100, 60),
        Game((5,), (w,), 100, 90),
        Game((5,), (w,), 50, 0, ended_by_time=True),
        Game((5,), (w,), 50, 0, ended_by_time=True),
        Game((x,), (6,), 100, 30),
        Game((x,), (6,), 100, 40),
        Game((6,), (x,), 100, 20),
        Game((y,), (7,), 100, 40),
        Game((y,), (7,), 90, 70, ended_by_time=True),
        Game((7,), (y,), 100, 70),
        Game((z,), (8,), 100, 0),
        Game((8,), (z,), 100, 90),
        Game((8,), (z,), 80, 40, ended_by_time=True),
    ]
    rows = standings([w, x, y, z, 5, 6, 7, 8], games, target=100)
    for entry_id in (w, x, y, z):
        f = row_of(rows, entry_id).figures
        assert (f["puntos"], f["won"], f["efectividad"], f["tantos_a_favor"]) == (5, 3, 20, 450)
    assert [(r.position, r.entry_id, r.shared, r.decided_by) for r in rows[:4]] == [
        (1, w, False, "diferencial"),
        (2, y, False, "diferencial"),
        (3, x, False, "diferencial"),
        (4, z, False, "diferencial"),
    ]
    assert [r.position for r in rows] == [1, 2, 3, 4, 5, 6, 7, 8]


SHARED_GAMES = [
    Game((1,), (2,), 100, 0),
    Game((1,), (3,), 100, 0),
    Game((2,), (4,), 100, 50),
    Game((3,), (4,), 100, 50),
]


def test_unbroken_tie_shares_the_position():
    rows = standings([1, 2, 3, 4], SHARED_GAMES, target=100)
    assert [(r.position, r.entry_id, r.shared, r.decided_by) for r in rows] == [
        (1, 1, False, None),
        (2, 2, True, None),
        (2, 3, True, None),
        (4, 4, False, None),
    ]


def test_sorteo_with_a_missing_lot_keeps_the_tie():
    rows = standings([1, 2, 3, 4], SHARED_GAMES, target=100, sorteo={3: 1})
    assert [(r.position, r.entry_id, r.shared) for r in rows[1:3]] == [(2, 2, True), (2, 3, True)]


def test_sorteo_breaks_the_tie():
    rows = standings([1, 2, 3, 4], SHARED_GAMES, target=100, sorteo={2: 2, 3: 1})
    assert [(r.position, r.entry_id, r.shared, r.decided_by) for r in rows] == [
        (1, 1, False, None),
        (2, 3, False, "sorteo"),
        (3, 2, False, "sorteo"),
        (4, 4, False, None),
    ]


def test_won_then_efectividad_then_tantos_a_favor():
    games = [
        Game((1,), (9,), 100, 50),  # 1: 2 puntos from one win, efectividad +50
        Game((2,), (9,), 100, 60),  # 2: 2 puntos from two wins
        Game((2,), (9,), 100, 60),
        Game((3,), (9,), 100, 10),  # 3: 2 puntos, one win, efectividad +90
        Game((4,), (9,), 100, 20),  # 4: 2 puntos, one win, efectividad +80
        Game((5,), (9,), 100, 30),  # 5: 2 puntos, one win, efectividad 0, for 130
        Game((8,), (5,), 100, 30),
        Game((6,), (9,), 100, 20),  # 6: 2 puntos, one win, efectividad 0, for 220
        Game((8,), (6,), 100, 60),
        Game((8,), (6,), 100, 60),
    ]
    rows = standings([1, 2, 3, 4, 5, 6, 8, 9], games, target=100)
    assert [(r.entry_id, r.decided_by) for r in rows if r.entry_id < 8] == [
        (2, "won"),
        (3, "efectividad"),
        (4, "efectividad"),
        (1, "efectividad"),
        (6, "tantos_a_favor"),
        (5, "tantos_a_favor"),
    ]
    # A tiebreak's name is the key of the figure it compares.
    assert all(r.decided_by in r.figures for r in rows if r.entry_id < 8)


def test_bye_rule_rest_adds_nothing():
    rows = standings([1, 2, 3], [Game((1,), (2,), 100, 0)], target=100, byes={3: 1})
    f = row_of(rows, 3).figures
    assert (f["played"], f["won"], f["puntos"], f["byes"], f["efectividad"]) == (0, 0, 0, 1, 0)
    assert [(r.position, r.entry_id, r.decided_by) for r in rows] == [
        (1, 1, None),
        (2, 3, "efectividad"),
        (3, 2, "efectividad"),
    ]


def test_bye_rule_win_adds_one_game_and_one_punto():
    rows = standings([1, 2, 3], [Game((1,), (2,), 100, 0)], target=100, byes={3: 1}, bye_rule="win")
    assert row_of(rows, 3).figures == {
        "played": 0,
        "won": 1,
        "puntos": 1,
        "tantos_a_favor": 0,
        "tantos_en_contra": 0,
        "castigos": 0,
        "efectividad": 0,
        "byes": 1,
    }
    assert order(rows) == [1, 3, 2]


def test_individual_mode_each_player_takes_its_side_figures():
    games = [Game((1, 2), (3, 4), 100, 40), Game((1, 3), (2, 4), 30, 100)]
    rows = standings([1, 2, 3, 4], games, target=100)
    summary = {
        r.entry_id: tuple(
            r.figures[k]
            for k in (
                "played",
                "won",
                "puntos",
                "tantos_a_favor",
                "tantos_en_contra",
                "efectividad",
            )
        )
        for r in rows
    }
    assert summary == {
        1: (2, 1, 2, 130, 140, -10),
        2: (2, 2, 4, 200, 70, 130),
        3: (2, 0, 0, 70, 200, -130),
        4: (2, 1, 2, 140, 130, 10),
    }
    assert [(r.position, r.entry_id, r.decided_by) for r in rows] == [
        (1, 2, None),
        (2, 4, "efectividad"),
        (3, 1, "efectividad"),
        (4, 3, None),
    ]


def test_standings_use_capped_tantos_and_target_200():
    rows = standings([1, 2], [Game((1,), (2,), 215, 101)], target=200)
    assert row_of(rows, 1).figures["tantos_a_favor"] == 200
    assert row_of(rows, 2).figures["tantos_en_contra"] == 200


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"games": [Game((1,), (1,), 100, 0)]}, "invalid_sides"),
        ({"games": [Game((), (1,), 100, 0)]}, "invalid_sides"),
        ({"games": [Game((1,), (7,), 100, 0)]}, "unknown_entry"),
        ({"games": [Game((1,), (2,), 100, 100)]}, "both_reached_target"),
        ({"entry_ids": [1, 1]}, "duplicate_entry"),
        ({"castigos": {1: -5}}, "invalid_count"),
        ({"bye_rule": "skip"}, "invalid_bye_rule"),
        ({"target": 150}, "invalid_target"),
    ],
)
def test_standings_reject_bad_input(kwargs, code):
    args = {"entry_ids": [1, 2], "games": [], "target": 100} | kwargs
    with pytest.raises(DomainError) as caught:
        standings(args.pop("entry_ids"), args.pop("games"), **args)
    assert caught.value.code == code


# --- Property ---------------------------------------------------------------------------------


@st.composite
def tournaments(draw):
    target = draw(st.sampled_from([100, 200]))
    ids = draw(st.lists(st.integers(1, 50), min_size=1, max_size=7, unique=True))
    games = []
    if len(ids) >= 2:
        for _ in range(draw(st.integers(0, 12))):
            a, b = draw(st.lists(st.sampled_from(ids), min_size=2, max_size=2, unique=True))
            if draw(st.booleans()):
                loser = draw(st.integers(0, target - 2))
                winner = draw(st.integers(loser + 1, target - 1))
                by_time = True
            else:
                loser = draw(st.integers(0, target - 1))
                winner = draw(st.integers(target, target + 60))
                by_time = False
            score = (winner, loser) if draw(st.booleans()) else (loser, winner)
            games.append(Game((a,), (b,), *score, ended_by_time=by_time))
    castigos = draw(st.dictionaries(st.sampled_from(ids), st.integers(0, 30)))
    sorteo = draw(st.dictionaries(st.sampled_from(ids), st.integers(0, 3)))
    bye_rule = draw(st.sampled_from(["rest", "win"]))
    byes = draw(st.dictionaries(st.sampled_from(ids), st.integers(0, 2)))
    return (
        ids,
        games,
        {
            "target": target,
            "castigos": castigos,
            "sorteo": sorteo,
            "bye_rule": bye_rule,
            "byes": byes,
        },
    )


@given(tournaments())
def test_standings_is_a_permutation_with_non_decreasing_positions(case):
    ids, games, kwargs = case
    rows = standings(ids, games, **kwargs)
    assert sorted(order(rows)) == sorted(ids)
    positions = [r.position for r in rows]
    assert positions == sorted(positions)
    for index, row in enumerate(rows):
        assert row.position == 1 + sum(p < row.position for p in positions)
        assert row.shared == (positions.count(row.position) > 1)
        assert row.figures["efectividad"] == (
            row.figures["tantos_a_favor"]
            - row.figures["tantos_en_contra"]
            - row.figures["castigos"]
        )
        if index:
            prev = rows[index - 1].figures
            assert (prev["puntos"], prev["won"]) >= (row.figures["puntos"], row.figures["won"])
