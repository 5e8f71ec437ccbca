"""Withdrawals ("retiradas", docs/SCORING.md §5) in every system and mode: the withdrawal takes
effect after the last round the entry played, the rounds already published lose it (its
opponents rest, play on, or wait to be seated again), nothing seats it or rests it again, the
standings never give it a bye, a round robin carries on with rests, and undoing it puts the
entry back. Through the services, the pure schedule and the director's pages (POST)."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from tests import builders
from tests.helpers import byes, layout, refused
from tournaments import services
from tournaments.errors import DomainError
from tournaments.models import Bye, Castigo, Entry, Round, Seat, Table, Tournament
from tournaments.pairing.round_robin import (
    ScheduledRound,
    Slot,
    first_conflict,
    round_robin,
    schedule,
    slot_of,
)
from tournaments.services.rounds import SeatChange

DOMINO_WIN_A = {"tantos_a": 100, "tantos_b": 50}  # side A: 2 puntos, for 100 against 50
SWISS_WIN_A = {"games_a": 2, "games_b": 0, "games_drawn": 0}  # side A: 3 match points


# --- helpers -----------------------------------------------------------------------------------


def rnd(t, number):
    return Round.objects.get(tournament=t, number=number)


def standings_rows(t, entries, *keys):
    """The standings as [(entry index, position, figures in ``keys``...)], best first."""
    index = {e.pk: i for i, e in enumerate(entries)}
    return [
        (index[line.entry.pk], line.row.position, *(line.row.figures[k] for k in keys))
        for line in t.standings()
    ]


def fresh(entry) -> Entry:
    return Entry.objects.get(pk=entry.pk)


# --- the pure schedule (no database) -----------------------------------------------------------


def test_schedule_rests_the_scheduled_opponents_of_an_entry_withdrawn_after_round_2():
    rounds = schedule([10, 11, 12, 13, 14, 15], withdrawn_after={15: 2})
    assert rounds[:2] == [
        ScheduledRound(1, ((10, 15), (11, 14), (12, 13)), (), ()),
        ScheduledRound(2, ((11, 10), (12, 15), (13, 14)), (), ()),
    ]
    assert rounds[2:] == [
        ScheduledRound(3, ((10, 12), (13, 11)), (14,), (15,)),
        ScheduledRound(4, ((13, 10), (14, 12)), (11,), (15,)),
        ScheduledRound(5, ((10, 14), (11, 12)), (13,), (15,)),
    ]


def test_schedule_of_an_odd_count_rests_two_when_the_withdrawn_entry_had_a_game():
    # 5 entries: each round one rests; entry 4 withdrawn after round 1.
    assert round_robin([0, 1, 2, 3, 4])[2] == [(2, 0), (3, 4), (1, None)]
    assert round_robin([0, 1, 2, 3, 4])[4] == [(4, 2), (0, 1), (3, None)]
    rounds = schedule([0, 1, 2, 3, 4], withdrawn_after={4: 1})
    assert rounds[2] == ScheduledRound(3, ((2, 0),), (3, 1), (4,))
    # Round 2 is (1, 4), (2, 3) with 0 resting: 1 loses its game and rests too.
    assert rounds[1] == ScheduledRound(2, ((2, 3),), (1, 0), (4,))
    assert rounds[4] == ScheduledRound(5, ((0, 1),), (2, 3), (4,))


def test_schedule_without_withdrawals_is_the_circle_method():
    ids = [3, 1, 4, 5, 9, 2]
    assert [list(r.games) for r in schedule(ids)] == round_robin(ids)
    assert all(r.resting == () and r.out == () for r in schedule(ids))


def test_a_round_where_everyone_still_in_rests_has_no_games():
    # 3 entries: round 3 is (3, 1) and 2 rests; with 1 withdrawn after round 1, 3 rests too.
    assert round_robin([1, 2, 3]) == [[(1, 2), (3, None)], [(2, 3), (1, None)], [(3, 1), (2, None)]]
    rounds = schedule([1, 2, 3], withdrawn_after={1: 1})
    assert rounds[1] == ScheduledRound(2, ((2, 3),), (), (1,))
    assert rounds[2] == ScheduledRound(3, (), (3, 2), (1,))
    # Both entries of a game withdrawn: nobody rests for it.
    assert schedule([1, 2, 3, 4], withdrawn_after={1: 0, 4: 0})[0] == ScheduledRound(
        1, ((2, 3),), (), (1, 4)
    )


def test_slot_of_gives_opponent_side_and_table_number():
    ids = [0, 1, 2, 3, 4, 5]
    assert slot_of(ids, 3, 5) == Slot(opponent=4, side="B", table=3)
    assert slot_of(ids, 4, 5) == Slot(opponent=1, side="A", table=3)
    assert slot_of(ids, 1, 0) == Slot(opponent=5, side="A", table=1)
    assert slot_of([0, 1, 2, 3, 4], 1, 4) == Slot(opponent=None, side="A", table=None)
    with pytest.raises(DomainError) as caught:
        slot_of(ids, 6, 0)
    assert caught.value.code == "invalid_round_number"
    with pytest.raises(DomainError) as caught:
        slot_of(ids, 1, 99)
    assert caught.value.code == "foreign_entry"


def test_first_conflict_allows_missing_games_but_not_other_tables():
    ids = [0, 1, 2, 3, 4, 5]
    assert first_conflict(ids, {1: [{0, 5}, {1, 4}, {2, 3}], 2: [{0, 1}], 3: []}) is None
    assert first_conflict(ids, {1: [{0, 5}, {1, 4}, {2, 3}], 2: [{0, 2}]}) == 2
    assert first_conflict(ids, {6: []}) == 6
    assert first_conflict(ids, {1: [{0}]}) == 1


# --- when a withdrawal takes effect ------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["pairs", "single"])
def test_domino_withdrawal_after_round_2_leaves_the_published_round_3(director, mode):
    """The tester's case: round 3 is published and unplayed; the withdrawal counts after round
    2, the entry leaves round 3 and its opponent rests."""
    t, e = builders.running_tournament(acting_user=director, system="domino", mode=mode)
    builders.pair(t, 1, [(0, 5), (1, 4), (2, 3)], entries=e, acting_user=director)
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)
    builders.pair(t, 2, [(1, 0), (2, 5), (3, 4)], entries=e, acting_user=director, anyway=True)
    builders.record_round(t, 2, acting_user=director, **DOMINO_WIN_A)
    builders.pair(t, 3, [(0, 2), (3, 1), (4, 5)], entries=e, acting_user=director, anyway=True)

    dropped = services.drop_entry(acting_user=director, entry=e[5])

    assert fresh(e[5]).dropped_after_round == 2
    assert dropped.seat_changes == [SeatChange(3, "rest", 3, (e[4].name,))]
    assert layout(t, 3, e) == {1: ((0,), (2,)), 2: ((3,), (1,))}
    assert byes(t, 3, e) == [4]
    assert layout(t, 2, e) == {1: ((1,), (0,)), 2: ((2,), (5,)), 3: ((3,), (4,))}


@pytest.mark.django_db
def test_an_explicit_round_not_yet_played_still_counts_after_the_last_round_played(director):
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="single")
    builders.pair(t, 1, [(0, 5), (1, 4), (2, 3)], entries=e, acting_user=director)
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)
    builders.pair(t, 2, [(1, 0), (2, 5), (3, 4)], entries=e, acting_user=director, anyway=True)
    builders.record_round(t, 2, acting_user=director, **DOMINO_WIN_A)
    builders.pair(t, 3, [(0, 2), (3, 1), (4, 5)], entries=e, acting_user=director, anyway=True)

    services.drop_entry(acting_user=director, entry=e[5], after_round=3)

    assert fresh(e[5]).dropped_after_round == 2
    assert byes(t, 3, e) == [4]
    assert Seat.objects.filter(entry=e[5], round__number=3).count() == 0


@pytest.mark.django_db
def test_a_withdrawal_before_a_round_already_played_is_refused_and_nothing_changes(director):
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="single")
    builders.pair(t, 1, [(0, 5), (1, 4), (2, 3)], entries=e, acting_user=director)
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)
    builders.pair(t, 2, [(1, 0), (2, 5), (3, 4)], entries=e, acting_user=director, anyway=True)
    builders.record_round(t, 2, acting_user=director, **DOMINO_WIN_A)

    code = refused(lambda: services.drop_entry(acting_user=director, entry=e[5], after_round=1))
    assert code == "drop_before_played"
    assert (
        refused(lambda: services.drop_entry(acting_user=director, entry=e[5], after_round=100))
        == "invalid_round_number"
    )
    assert fresh(e[5]).dropped_after_round is None
    assert Seat.objects.filter(entry=e[5]).count() == 2


@pytest.mark.django_db
def test_a_rest_counts_as_played_once_its_round_has_begun(director):
    """Round robin of 5: entry 4 rests in round 1. Before any result the rest is not played
    (withdrawn after 0, the bye goes); once a table of round 1 has a result it is."""
    t, e = builders.running_tournament(
        acting_user=director, system="domino", mode="pairs", n=5, bye_rule="win"
    )
    services.generate_round_robin(acting_user=director, tournament=t, next_only=True, anyway=True)
    assert byes(t, 1, e) == [4]

    first = services.drop_entry(acting_user=director, entry=e[4])
    assert (fresh(e[4]).dropped_after_round, first.seat_changes) == (
        0,
        [SeatChange(1, "bye_removed")],
    )
    assert byes(t, 1, e) == []

    services.undrop_entry(acting_user=director, entry=e[4])
    assert byes(t, 1, e) == [4]  # its scheduled rest, back
    table = rnd(t, 1).tables.get(number=1)
    services.record_result(acting_user=director, table=table, version=0, **DOMINO_WIN_A)
    again = services.drop_entry(acting_user=director, entry=e[4])
    assert (fresh(e[4]).dropped_after_round, again.seat_changes) == (1, [])
    assert byes(t, 1, e) == [4]
    line = next(x for x in t.standings() if x.entry.pk == e[4].pk)
    assert (line.row.figures["byes"], line.row.figures["puntos"], line.row.figures["won"]) == (
        1,
        1,
        1,
    )


@pytest.mark.django_db
def test_a_later_round_played_first_keeps_the_earlier_unplayed_table(director):
    """Round robin made in advance: entry 5's round-4 game has a result, its round-3 game not.
    The withdrawal counts after round 4; the round-3 game stays to be played, round 5 goes."""
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="pairs")
    services.generate_round_robin(acting_user=director, tournament=t, anyway=True)
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)
    builders.record_round(t, 2, acting_user=director, **DOMINO_WIN_A)
    round_4_table = Table.objects.get(round__tournament=t, round__number=4, seats__entry=e[5])
    services.record_result(acting_user=director, table=round_4_table, version=0, **DOMINO_WIN_A)

    dropped = services.drop_entry(acting_user=director, entry=e[5])

    assert fresh(e[5]).dropped_after_round == 4
    assert dropped.seat_changes == [SeatChange(5, "rest", 2, (e[3].name,))]
    assert layout(t, 3, e)[3] == ((4,), (5,))
    assert layout(t, 5, e) == {1: ((0,), (4,)), 3: ((1,), (2,))}
    assert byes(t, 5, e) == [3]


# --- nothing seats or rests a withdrawn entry again --------------------------------------------


@pytest.fixture(params=["single", "pairs"])
def swiss_round_3_published(director, request):
    """Swiss, 6 players (or pairs), best of 3: rounds 1 and 2 played (side A wins 2–0), round
    3 published: 0–1, 2–3, 4–5. Entry 5 withdraws."""
    t, e = builders.running_tournament(
        acting_user=director, system="swiss", mode=request.param, best_of=3
    )
    builders.pair(t, 1, [(0, 5), (1, 4), (2, 3)], entries=e, acting_user=director)
    builders.record_round(t, 1, acting_user=director, **SWISS_WIN_A)
    builders.pair(t, 2, [(0, 2), (1, 3), (4, 5)], entries=e, acting_user=director, anyway=True)
    builders.record_round(t, 2, acting_user=director, **SWISS_WIN_A)
    builders.pair(t, 3, [(0, 1), (2, 3), (4, 5)], entries=e, acting_user=director, anyway=True)
    dropped = services.drop_entry(acting_user=director, entry=e[5])
    return t, e, dropped


@pytest.mark.django_db
def test_swiss_withdrawal_rests_the_opponent_and_every_path_refuses_the_entry(
    director, swiss_round_3_published
):
    t, e, dropped = swiss_round_3_published
    assert fresh(e[5]).dropped_after_round == 2
    assert dropped.seat_changes == [SeatChange(3, "rest", 3, (e[4].name,))]
    assert byes(t, 3, e) == [4]
    r3 = rnd(t, 3)
    assert (
        refused(
            lambda: builders.pair(
                t, 3, [(0, 1), (2, 3), (4, 5)], entries=e, acting_user=director, anyway=True
            )
        )
        == "entry_dropped"
    )
    assert (
        refused(
            lambda: services.seat_table(
                acting_user=director, round=r3, number=3, sides=([e[5]], [e[4]])
            )
        )
        == "entry_dropped"
    )
    assert (
        refused(lambda: services.add_bye(acting_user=director, round=r3, entry=e[5]))
        == "entry_dropped"
    )
    pairing, _lines = t.propose_pairings(3, seed=7)
    proposed = {x for table in pairing.tables for x in table} | {pairing.bye}
    assert proposed == {x.pk for x in e[:5]}


@pytest.mark.django_db
def test_swiss_round_3_re_paired_without_the_entry_gives_it_no_bye_and_no_points(
    director, swiss_round_3_published
):
    t, e, _ = swiss_round_3_published
    builders.pair(
        t, 3, [(0, 1), (2, 4)], entries=e, acting_user=director, anyway=True
    )  # 3 rests; 5 is out
    assert byes(t, 3, e) == [3]
    builders.record_round(t, 3, acting_user=director, **SWISS_WIN_A)

    rows = standings_rows(t, e, "match_points", "wins", "losses", "byes", "rounds_played")
    figures = {r[0]: r[2:] for r in rows}
    assert figures == {
        0: (9, 3, 0, 0, 3),
        1: (6, 2, 1, 0, 3),
        2: (6, 2, 1, 0, 3),
        3: (3, 1, 2, 1, 3),
        4: (3, 1, 2, 0, 3),
        5: (0, 0, 2, 0, 2),
    }
    assert Bye.objects.filter(entry=e[5]).count() == 0


@pytest.mark.django_db
def test_swiss_opponents_rest_scores_as_a_bye_2_0(director, swiss_round_3_published):
    t, e, _ = swiss_round_3_published
    # 0 beats 1, 2 beats 3; 4 rests
    builders.record_round(t, 3, acting_user=director, **SWISS_WIN_A)
    rows = standings_rows(t, e, "match_points", "wins", "losses", "byes", "games_played")
    assert {r[0]: r[2:] for r in rows} == {
        0: (9, 3, 0, 0, 6),
        1: (6, 2, 1, 0, 6),
        2: (6, 2, 1, 0, 6),
        3: (0, 0, 3, 0, 6),
        4: (6, 2, 1, 1, 6),
        5: (0, 0, 2, 0, 4),
    }


@pytest.mark.django_db
def test_dominó_rondas_re_paired_after_a_withdrawal_never_rest_the_entry(director):
    """Dominó pairs by Swiss proposal, bye rule "win": the re-paired round 3 rests one entry
    (1 punto) but never the withdrawn one."""
    t, e = builders.running_tournament(
        acting_user=director, system="domino", mode="pairs", bye_rule="win"
    )
    builders.pair(t, 1, [(0, 5), (1, 4), (2, 3)], entries=e, acting_user=director)
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)
    builders.pair(t, 2, [(0, 2), (1, 3), (4, 5)], entries=e, acting_user=director, anyway=True)
    builders.record_round(t, 2, acting_user=director, **DOMINO_WIN_A)
    builders.pair(t, 3, [(0, 1), (2, 3), (4, 5)], entries=e, acting_user=director, anyway=True)
    services.drop_entry(acting_user=director, entry=e[5])

    pairing, _ = t.propose_pairings(3, seed=11)
    assert e[5].pk not in {x for table in pairing.tables for x in table} | {pairing.bye}
    builders.pair(t, 3, [(0, 1), (2, 4)], entries=e, acting_user=director, anyway=True)
    builders.record_round(t, 3, acting_user=director, **DOMINO_WIN_A)

    # 1 and 2 never met: level on everything, they share 2nd place.
    rows = standings_rows(t, e, "puntos", "won", "byes", "efectividad")
    assert rows == [
        (0, 1, 6, 3, 0, 150),
        (1, 2, 4, 2, 0, 50),
        (2, 2, 4, 2, 0, 50),
        (4, 4, 2, 1, 0, -50),
        (3, 5, 1, 1, 1, -100),
        (5, 6, 0, 0, 0, -100),
    ]


@pytest.mark.django_db
def test_individual_dominó_withdrawal_empties_the_table_for_the_director_to_reseat(director):
    t, e = builders.running_tournament(
        acting_user=director, system="domino", mode="individual", n=8
    )

    def four(number, groups):
        tables = [((a, c), (b, d)) for a, b, c, d in groups]
        return builders.pair(t, number, tables, entries=e, acting_user=director, anyway=True)

    four(1, [(0, 1, 2, 3), (4, 5, 6, 7)])
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)
    four(2, [(0, 4, 1, 5), (2, 6, 3, 7)])
    builders.record_round(t, 2, acting_user=director, **DOMINO_WIN_A)
    four(3, [(0, 6, 5, 3), (4, 2, 7, 1)])

    dropped = services.drop_entry(acting_user=director, entry=e[7])

    names = tuple(e[i].name for i in (4, 2, 1))  # the others at table 2, side A then B
    assert dropped.seat_changes == [SeatChange(3, "reseat", 2, names)]
    assert layout(t, 3, e) == {1: ((0, 5), (6, 3))}
    assert byes(t, 3, e) == []
    pairs = [([e[0], e[5]], [e[6], e[7]])]
    code = refused(
        lambda: services.set_pairings(
            acting_user=director, tournament=t, round_number=3, tables=pairs, anyway=True
        )
    )
    assert code == "entry_dropped"
    seating, _ = t.propose_seating(3, seed=5)
    assert e[7].pk not in {x for table in seating.tables for x in table} | set(seating.byes)
    assert len(seating.tables) == 1 and len(seating.byes) == 3
    four(3, [(0, 4, 1, 5)])
    assert byes(t, 3, e) == [2, 3, 6]


@pytest.mark.django_db
def test_table_game_of_four_plays_on_with_three(director):
    t, e = builders.running_tournament(acting_user=director, system="table", mode="single", n=8)
    services.set_seating(acting_user=director, tournament=t, round_number=1, tables=[e[:4], e[4:]])
    services.set_seating(
        acting_user=director,
        tournament=t,
        round_number=2,
        tables=[[e[0], e[4], e[1], e[5]], [e[2], e[6], e[3], e[7]]],
        anyway=True,
    )
    table = rnd(t, 2).tables.get(number=1)
    services.record_result(
        acting_user=director,
        table=table,
        version=0,
        scores={e[0].pk: 40, e[4].pk: 30, e[1].pk: 20, e[5].pk: 10},
    )

    dropped = services.drop_entry(acting_user=director, entry=e[6])

    assert fresh(e[6]).dropped_after_round == 0  # round 1 never scored: nothing played
    assert dropped.seat_changes == [
        SeatChange(1, "play_on", 2, (e[4].name, e[5].name, e[7].name)),
        SeatChange(2, "play_on", 2, (e[2].name, e[3].name, e[7].name)),
    ]
    assert layout(t, 2, e)[2] == ((2, 3, 7), ())
    assert list(
        Seat.objects.filter(round__number=2, table__number=2)
        .order_by("position")
        .values_list("position", flat=True)
    ) == [1, 2, 3]
    assert rnd(t, 2).tables.get(number=2).version == 1
    assert (
        refused(
            lambda: services.set_seating(
                acting_user=director,
                tournament=t,
                round_number=2,
                tables=[e[:4], e[4:]],
                anyway=True,
            )
        )
        == "entry_dropped"
    )


@pytest.mark.django_db
def test_table_game_of_three_loses_its_table_and_the_round_is_reseated(director):
    t, e = builders.running_tournament(acting_user=director, system="table", mode="single", n=6)
    services.set_seating(acting_user=director, tournament=t, round_number=1, tables=[e[:3], e[3:]])
    play_scores = [{e[0].pk: 30, e[1].pk: 20, e[2].pk: 10}, {e[3].pk: 30, e[4].pk: 20, e[5].pk: 10}]
    for table, scores in zip(rnd(t, 1).tables.order_by("number"), play_scores, strict=True):
        services.record_result(acting_user=director, table=table, version=0, scores=scores)
    services.set_seating(
        acting_user=director,
        tournament=t,
        round_number=2,
        tables=[[e[0], e[3], e[5]], e[1:3] + [e[4]]],
        anyway=True,
    )

    dropped = services.drop_entry(acting_user=director, entry=e[5])

    assert fresh(e[5]).dropped_after_round == 1
    assert dropped.seat_changes == [SeatChange(2, "reseat", 1, (e[0].name, e[3].name))]
    assert layout(t, 2, e) == {2: ((1, 2, 4), ())}
    assert byes(t, 2, e) == []
    seating, _ = t.propose_seating(2, seed=3)
    assert sorted(len(x) for x in seating.tables) == [4] and len(seating.byes) == 1
    assert e[5].pk not in set(seating.byes) | {x for table in seating.tables for x in table}
    services.set_seating(
        acting_user=director,
        tournament=t,
        round_number=2,
        tables=[[e[0], e[1], e[2], e[3]]],
        anyway=True,
    )
    assert byes(t, 2, e) == [4]
    rows = standings_rows(t, e, "points", "byes")
    assert {r[0]: r[2:] for r in rows} == {
        0: (5, 0),
        1: (3, 0),
        2: (2, 0),
        3: (5, 0),
        4: (3, 0),
        5: (2, 0),
    }


# --- round robins carry on ---------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("bye_rule", "expected"),
    [
        # (entry, position, puntos, juegos ganados, byes, efectividad); side A always wins 100–50.
        (
            "rest",
            [
                (3, 1, 6, 3, 1, 100),
                (1, 2, 6, 3, 1, 100),
                (0, 3, 6, 3, 0, 50),
                (2, 4, 4, 2, 0, -50),
                (4, 5, 2, 1, 1, -100),
                (5, 6, 0, 0, 0, -100),
            ],
        ),
        (
            "win",
            [
                (3, 1, 7, 4, 1, 100),
                (1, 2, 7, 4, 1, 100),
                (0, 3, 6, 3, 0, 50),
                (2, 4, 4, 2, 0, -50),
                (4, 5, 3, 2, 1, -100),
                (5, 6, 0, 0, 0, -100),
            ],
        ),
    ],
)
@pytest.mark.parametrize("mode", ["pairs", "single"])
def test_domino_round_robin_made_in_advance_continues_with_rests(
    director, mode, bye_rule, expected
):
    t, e = builders.running_tournament(
        acting_user=director, system="domino", mode=mode, bye_rule=bye_rule
    )
    services.generate_round_robin(acting_user=director, tournament=t, anyway=True)
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)
    builders.record_round(t, 2, acting_user=director, **DOMINO_WIN_A)

    dropped = services.drop_entry(acting_user=director, entry=e[5])

    assert dropped.seat_changes == [
        SeatChange(3, "rest", 3, (e[4].name,)),
        SeatChange(4, "rest", 3, (e[1].name,)),
        SeatChange(5, "rest", 2, (e[3].name,)),
    ]
    assert [layout(t, n, e) for n in (3, 4, 5)] == [
        {1: ((0,), (2,)), 2: ((3,), (1,))},
        {1: ((3,), (0,)), 2: ((4,), (2,))},
        {1: ((0,), (4,)), 3: ((1,), (2,))},
    ]
    assert [byes(t, n, e) for n in (1, 2, 3, 4, 5)] == [[], [], [4], [1], [3]]
    assert (
        refused(
            lambda: services.generate_round_robin(acting_user=director, tournament=t, anyway=True)
        )
        == "round_robin_complete"
    )
    for number in (3, 4, 5):
        builders.record_round(t, number, acting_user=director, **DOMINO_WIN_A)
    assert standings_rows(t, e, "puntos", "won", "byes", "efectividad") == expected


@pytest.mark.django_db
def test_round_robin_one_round_at_a_time_continues_after_a_withdrawal(director):
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="pairs")
    for number in (1, 2):
        services.generate_round_robin(
            acting_user=director, tournament=t, next_only=True, anyway=True
        )
        builders.record_round(t, number, acting_user=director, **DOMINO_WIN_A)
    dropped = services.drop_entry(acting_user=director, entry=e[5])
    assert (fresh(e[5]).dropped_after_round, dropped.seat_changes) == (2, [])

    created = services.generate_round_robin(
        acting_user=director, tournament=t, next_only=True, anyway=True
    )

    assert [r.number for r in created] == [3]
    assert layout(t, 3, e) == {1: ((0,), (2,)), 2: ((3,), (1,))}
    assert byes(t, 3, e) == [4]
    created = services.generate_round_robin(acting_user=director, tournament=t, anyway=True)
    assert [r.number for r in created] == [4, 5]
    assert [byes(t, n, e) for n in (4, 5)] == [[1], [3]]
    assert Seat.objects.filter(entry=e[5], round__number__gt=2).count() == 0
    assert Bye.objects.filter(entry=e[5]).count() == 0


@pytest.mark.django_db
def test_round_robin_of_five_rests_two_where_the_withdrawn_entry_had_a_game(director):
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="single", n=5)
    services.generate_round_robin(acting_user=director, tournament=t, next_only=True, anyway=True)
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)  # 0–3 and 1–2 play, 4 rests
    services.drop_entry(acting_user=director, entry=e[4])
    assert fresh(e[4]).dropped_after_round == 1

    services.generate_round_robin(acting_user=director, tournament=t, anyway=True)

    assert [layout(t, n, e) for n in (2, 3, 4, 5)] == [
        {1: ((2,), (3,))},
        {1: ((2,), (0,))},
        {1: ((3,), (1,))},
        {1: ((0,), (1,))},
    ]
    assert [byes(t, n, e) for n in (2, 3, 4, 5)] == [[0, 1], [1, 3], [0, 2], [2, 3]]


@pytest.mark.django_db
def test_round_robin_creates_a_round_of_rests_only(director):
    """3 entries, entry 0 withdrawn after round 1: round 3 would be 2–0 with 1 resting, so
    everybody still in rests and the round has no table."""
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="single", n=3)
    services.generate_round_robin(acting_user=director, tournament=t, next_only=True, anyway=True)
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)  # 0–1, 2 rests
    services.drop_entry(acting_user=director, entry=e[0])
    created = services.generate_round_robin(acting_user=director, tournament=t, anyway=True)
    assert [r.number for r in created] == [2, 3]
    assert (layout(t, 2, e), byes(t, 2, e)) == ({1: ((1,), (2,))}, [])
    assert (layout(t, 3, e), byes(t, 3, e)) == ({}, [1, 2])
    assert Round.objects.get(tournament=t, number=3).tables.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["single", "pairs"])
def test_swiss_round_robin_rests_score_as_byes(director, mode):
    t, e = builders.running_tournament(acting_user=director, system="swiss", mode=mode, best_of=3)
    services.generate_round_robin(acting_user=director, tournament=t, anyway=True)
    builders.record_round(t, 1, acting_user=director, **SWISS_WIN_A)
    builders.record_round(t, 2, acting_user=director, **SWISS_WIN_A)
    services.drop_entry(acting_user=director, entry=e[5])
    for number in (3, 4, 5):
        builders.record_round(t, number, acting_user=director, **SWISS_WIN_A)

    rows = standings_rows(t, e, "match_points", "wins", "losses", "byes", "rounds_played")
    assert {r[0]: r[2:] for r in rows} == {
        0: (9, 3, 2, 0, 5),
        1: (12, 4, 1, 1, 5),
        2: (6, 2, 3, 0, 5),
        3: (12, 4, 1, 1, 5),
        4: (6, 2, 3, 1, 5),
        5: (0, 0, 2, 0, 2),
    }


@pytest.mark.django_db
def test_a_hand_made_round_still_conflicts_with_the_schedule(director):
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="pairs", n=4)
    builders.pair(t, 1, [(0, 1), (2, 3)], entries=e, acting_user=director)
    assert (
        refused(
            lambda: services.generate_round_robin(acting_user=director, tournament=t, anyway=True)
        )
        == "round_robin_conflict"
    )


# --- undoing a withdrawal ----------------------------------------------------------------------


@pytest.mark.django_db
def test_undoing_a_round_robin_withdrawal_gives_back_every_scheduled_table(director):
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="pairs")
    services.generate_round_robin(acting_user=director, tournament=t, anyway=True)
    before = [layout(t, n, e) for n in range(1, 6)]
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)
    builders.record_round(t, 2, acting_user=director, **DOMINO_WIN_A)
    services.drop_entry(acting_user=director, entry=e[5])

    back = services.undrop_entry(acting_user=director, entry=e[5])

    assert fresh(e[5]).dropped_after_round is None
    assert back.seat_changes == [
        SeatChange(3, "restored", 3, (e[4].name,)),
        SeatChange(4, "restored", 3, (e[1].name,)),
        SeatChange(5, "restored", 2, (e[3].name,)),
    ]
    assert [layout(t, n, e) for n in range(1, 6)] == before
    assert Bye.objects.filter(round__tournament=t).count() == 0


@pytest.mark.django_db
def test_undoing_after_a_round_began_without_the_entry_leaves_that_round(director):
    t, e = builders.running_tournament(
        acting_user=director, system="swiss", mode="single", best_of=3
    )
    services.generate_round_robin(acting_user=director, tournament=t, anyway=True)
    builders.record_round(t, 1, acting_user=director, **SWISS_WIN_A)
    builders.record_round(t, 2, acting_user=director, **SWISS_WIN_A)
    services.drop_entry(acting_user=director, entry=e[5])
    first = rnd(t, 3).tables.get(number=1)
    services.record_result(acting_user=director, table=first, version=0, **SWISS_WIN_A)

    back = services.undrop_entry(acting_user=director, entry=e[5])

    assert back.seat_changes == [
        SeatChange(3, "missed"),
        SeatChange(4, "restored", 3, (e[1].name,)),
        SeatChange(5, "restored", 2, (e[3].name,)),
    ]
    assert byes(t, 3, e) == [4]
    assert [byes(t, n, e) for n in (4, 5)] == [[], []]
    rows = standings_rows(t, e, "match_points", "byes", "rounds_played")
    # 4 lost rounds 1 and 2; its round-3 rest (3 match points) counts, the round began.
    assert {r[0]: r[2:] for r in rows}[4] == (3, 1, 3)
    assert {r[0]: r[2:] for r in rows}[5] == (0, 0, 2)


@pytest.mark.django_db
def test_undoing_a_swiss_withdrawal_lets_the_director_pair_the_entry_again(
    director, swiss_round_3_published
):
    t, e, _ = swiss_round_3_published
    back = services.undrop_entry(acting_user=director, entry=e[5])
    assert back.seat_changes == [SeatChange(3, "unseated")]
    assert fresh(e[5]).dropped_after_round is None
    builders.pair(t, 3, [(0, 1), (2, 3), (4, 5)], entries=e, acting_user=director, anyway=True)
    assert byes(t, 3, e) == []
    assert layout(t, 3, e)[3] == ((4,), (5,))


# --- the director's pages (POST) ---------------------------------------------------------------


def messages_of(response) -> str:
    return html.unescape(response.content.decode())


@pytest.mark.django_db
def test_director_withdraws_on_the_page_after_round_3_was_published(director, director_client):
    t, e = builders.running_tournament(
        acting_user=director, system="domino", mode="pairs", bye_rule="win"
    )
    services.generate_round_robin(acting_user=director, tournament=t, anyway=True)
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)
    builders.record_round(t, 2, acting_user=director, **DOMINO_WIN_A)
    url = reverse("manage:entry_drop", args=[t.slug, e[5].pk])

    r = director_client.post(url, follow=True)

    page = messages_of(r)
    assert r.status_code == 200
    assert f"{e[5].name} se retira después de la ronda 2." in page
    assert (
        f"Ronda 3: se quitó la mesa 3; {e[4].name} descansa en esa ronda (descanso según la "
        "regla del torneo)." in page
    )
    assert fresh(e[5]).dropped_after_round == 2
    assert [byes(t, n, e) for n in (3, 4, 5)] == [[4], [1], [3]]

    r = director_client.post(url, {"undo": "1"}, follow=True)

    page = messages_of(r)
    assert f"{e[5].name} vuelve a emparejarse." in page
    assert (
        f"Ronda 3: {e[5].name} vuelve a la mesa 3 contra {e[4].name}, como en el calendario "
        "del todos con todos." in page
    )
    assert fresh(e[5]).dropped_after_round is None
    assert Bye.objects.filter(round__tournament=t).count() == 0


@pytest.mark.django_db
def test_director_re_pairs_round_3_on_the_page_and_the_round_robin_button_continues(
    director, director_client
):
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="single")
    for number in (1, 2):
        services.generate_round_robin(
            acting_user=director, tournament=t, next_only=True, anyway=True
        )
        builders.record_round(t, number, acting_user=director, **DOMINO_WIN_A)
    # published by hand, as scheduled
    builders.pair(t, 3, [(0, 2), (3, 1), (4, 5)], entries=e, acting_user=director, anyway=True)
    director_client.post(reverse("manage:entry_drop", args=[t.slug, e[5].pk]))
    assert (fresh(e[5]).dropped_after_round, byes(t, 3, e)) == (2, [4])

    # Re-pair round 3 on the pairings page: with the withdrawn entry it is refused in words.
    url = reverse("manage:pairings", args=[t.slug, 3])
    slots = {"t0_a1": e[0], "t0_b1": e[2], "t1_a1": e[3], "t1_b1": e[1], "t2_a1": e[4]}
    post = {k: str(v.pk) for k, v in slots.items()} | {"t2_b1": str(e[5].pk)}
    r = director_client.post(url, post)
    assert r.status_code == 400
    assert f"{e[5].name} se retiró después de la ronda 2: ya no se empareja." in messages_of(r)
    post.pop("t2_a1")
    post.pop("t2_b1")
    assert director_client.post(url, post).status_code == 302
    assert (layout(t, 3, e), byes(t, 3, e)) == ({1: ((0,), (2,)), 2: ((3,), (1,))}, [4])

    r = director_client.post(reverse("manage:round_robin", args=[t.slug]), {"next": "1"})
    assert r.status_code == 302 and r.url == reverse("manage:tournament", args=[t.slug])
    assert "La ronda 3 aún no está completa" in messages_of(director_client.get(r.url))
    r = director_client.post(
        reverse("manage:round_robin", args=[t.slug]), {"next": "1", "anyway": "1"}
    )
    assert r.status_code == 302 and r.url == reverse("manage:round", args=[t.slug, 4])
    assert (layout(t, 4, e), byes(t, 4, e)) == ({1: ((3,), (0,)), 2: ((4,), (2,))}, [1])


@pytest.mark.django_db
def test_director_page_says_who_waits_for_a_seat_in_a_table_game(director, director_client):
    t, e = builders.running_tournament(acting_user=director, system="table", mode="single", n=6)
    services.set_seating(acting_user=director, tournament=t, round_number=1, tables=[e[:3], e[3:]])

    r = director_client.post(reverse("manage:entry_drop", args=[t.slug, e[0].pk]), follow=True)

    page = messages_of(r)
    assert f"{e[0].name} se retira sin haber jugado ninguna ronda." in page
    assert (
        f"Ronda 1: se quitó la mesa 1; {e[1].name}, {e[2].name} quedan sin mesa ni descanso. "
        "Vuelve a emparejar la ronda 1 para sentarlos." in page
    )
    assert layout(t, 1, e) == {2: ((3, 4, 5), ())}


@pytest.mark.django_db
def test_a_withdrawal_before_any_round_counts_after_round_0(director):
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="single")
    dropped = services.drop_entry(acting_user=director, entry=e[0])
    assert (fresh(e[0]).dropped_after_round, dropped.seat_changes) == (0, [])
    assert Tournament.objects.get(pk=t.pk).status == "running"
    pairing, _ = t.propose_pairings(1, seed=1)
    assert e[0].pk not in {x for table in pairing.tables for x in table} | {pairing.bye}


@pytest.mark.django_db
def test_a_castigo_in_a_round_after_the_withdrawal_is_refused(director):
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="single")
    builders.pair(t, 1, [(0, 5), (1, 4), (2, 3)], entries=e, acting_user=director)
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)
    builders.pair(t, 2, [(1, 0), (2, 5), (3, 4)], entries=e, acting_user=director, anyway=True)
    services.drop_entry(acting_user=director, entry=e[5])
    player = e[5].player1
    with pytest.raises(DomainError) as caught:
        services.add_castigo(
            acting_user=director,
            tournament=t,
            player=player,
            tantos=5,
            reason="Habló",
            round=rnd(t, 2),
        )
    assert caught.value.code == "castigo_after_withdrawal"
    assert caught.value.message == (
        f"{player.full_name} se retiró después de la ronda 1 y no juega la ronda 2: un castigo "
        "suyo va sin ronda o en una ronda que jugó."
    )
    # in the round it played, or without a round, it is charged
    for where in (rnd(t, 1), None):
        services.add_castigo(
            acting_user=director, tournament=t, player=player, tantos=5, reason="Habló", round=where
        )
    assert Castigo.objects.filter(player=player).count() == 2


@pytest.mark.django_db
def test_the_same_withdrawal_twice_changes_nothing_the_second_time(director, client):
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="single")
    builders.pair(t, 1, [(0, 5), (1, 4), (2, 3)], entries=e, acting_user=director)
    builders.record_round(t, 1, acting_user=director, **DOMINO_WIN_A)
    first = services.drop_entry(acting_user=director, entry=e[5])
    assert (first.already_withdrawn, first.dropped_after_round) == (False, 1)
    history = Entry.history.filter(id=e[5].pk).count()
    second = services.drop_entry(acting_user=director, entry=e[5])
    assert (second.already_withdrawn, second.seat_changes) == (True, [])
    assert Entry.history.filter(id=e[5].pk).count() == history
    client.force_login(director)
    response = client.post(reverse("manage:entry_drop", args=[t.slug, e[5].pk]), follow=True)
    shown = [m.message for m in response.context["messages"]]
    assert shown == [f"{e[5].name} ya se había retirado, después de la ronda 1."]
