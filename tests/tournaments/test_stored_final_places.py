"""The stored final places (``FinalPlace``; SCORING.md §9, computed by
``Tournament.final_places`` alone): stored when a tournament finishes, stored again whenever
a finished tournament's data changes (a result, a castigo, a sorteo, a withdrawal, a save by
hand), removed when it is reopened or taken back to draft; read by the podiums and the league
tables in one query; filled for a tournament without them (a database from before the table)
by the readers, ``manage.py store_final_places`` and the data generator."""

from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command

from rankings import stories
from tests import builders
from tournaments import leagues, services
from tournaments.models import FinalPlace, Result, Tournament, stored_places

pytestmark = pytest.mark.django_db

WIN = {"tantos_a": 100, "tantos_b": 50}


def stored(t: Tournament) -> list[tuple[str, int | None, bool]]:
    """``t``'s stored rows as (player, place, shared), by place then name."""
    rows = FinalPlace.objects.filter(tournament=t).select_related("player")
    return sorted(
        ((r.player.full_name, r.place, r.shared) for r in rows),
        key=lambda r: (r[1] is None, r[1] or 0, r[0]),
    )


def computed(t: Tournament) -> list[tuple[str, int | None, bool]]:
    """``t.final_places()`` in the same shape as ``stored``."""
    t.refresh_from_db()
    out = [
        (name, line.place, line.place_shared)
        for line in t.final_places()
        for name in line.entry.name.split(" & ")
    ]
    return sorted(out, key=lambda r: (r[1] is None, r[1] or 0, r[0]))


@pytest.fixture
def cup(director, django_capture_on_commit_callbacks):
    """ "Copa del Almacén", mano a mano to 100, two rounds, finished (its commit's work run):
    round 1 Ana 100–50 Beto, Carla 100–50 Dani; round 2 Ana 100–80 Carla, Beto 100–90 Dani.
    Ana 1st (two wins), Carla 2nd (one win, +30), Beto 3rd (one win, −40), Dani 4th."""
    # the commit's work (the rows are stored after it) runs at the end of the block
    with django_capture_on_commit_callbacks(execute=True):
        by = {"acting_user": director}
        t, (a, b, c, d) = builders.field(
            name="Copa del Almacén",
            date=dt.date(2026, 5, 9),
            mode="single",
            target=100,
            rounds_planned=2,
            status="running",
            names=["Ana Alba", "Beto Bravo", "Carla Cid", "Dani Duarte"],
            **by,
        )
        builders.play(t, 1, [(a, b), (c, d)], [WIN, WIN], close=True, **by)
        builders.play(
            t, 2, [(a, c), (b, d)], [builders.tantos(100, 80), builders.tantos(100, 90)], **by
        )
        builders.finish(t, open_rounds_ok=True, **by)
    return {"t": t, "ana": a, "beto": b, "carla": c, "dani": d}


FINAL = [
    ("Ana Alba", 1, False),
    ("Carla Cid", 2, False),
    ("Beto Bravo", 3, False),
    ("Dani Duarte", 4, False),
]


def test_finishing_stores_the_final_places(cup):
    assert stored(cup["t"]) == computed(cup["t"]) == FINAL


def test_a_corrected_result_deletes_the_rows_in_its_transaction_and_stores_them_after(
    cup, director, django_capture_on_commit_callbacks
):
    t = cup["t"]
    table = t.rounds.get(number=2).tables.get(number=1)  # Ana 100–80 Carla
    with django_capture_on_commit_callbacks(execute=False) as hooks:
        builders.record(table, acting_user=director, tantos_a=0, tantos_b=100)
    assert stored(t) == []  # no reader sees the old places once the correction commits
    for hook in hooks:
        hook()
    # Carla 2 + 3 puntos (a zapato), Ana 2, Beto 1, Dani 0
    assert (
        stored(t)
        == computed(t)
        == [
            ("Carla Cid", 1, False),
            ("Ana Alba", 2, False),
            ("Beto Bravo", 3, False),
            ("Dani Duarte", 4, False),
        ]
    )


@pytest.fixture
def tied(director, django_capture_on_commit_callbacks):
    """ "Copa del Sorteo", mano a mano to 100, one round, finished: Eva 100–50 Fede, Gala
    100–50 Hugo. Eva and Gala level on everything (they never met): =1; Fede and Hugo =3."""
    by = {"acting_user": director}
    with django_capture_on_commit_callbacks(execute=True):  # the commits' work
        t, (a, b, c, d) = builders.field(
            name="Copa del Sorteo",
            date=dt.date(2026, 5, 16),
            mode="single",
            target=100,
            rounds_planned=1,
            status="running",
            names=["Eva Eco", "Fede Feo", "Gala Gil", "Hugo Hoz"],
            **by,
        )
        builders.play(t, 1, [(a, b), (c, d)], [WIN, WIN], **by)
        builders.finish(t, open_rounds_ok=True, **by)
    assert (
        stored(t)
        == computed(t)
        == [
            ("Eva Eco", 1, True),
            ("Gala Gil", 1, True),
            ("Fede Feo", 3, True),
            ("Hugo Hoz", 3, True),
        ]
    )
    return t, (a, b, c, d)


def test_a_castigo_after_finishing_is_in_the_stored_places(
    tied, director, django_capture_on_commit_callbacks
):
    t, (_eva, _fede, gala, _hugo) = tied
    with django_capture_on_commit_callbacks(execute=True):
        services.add_castigo(
            acting_user=director,
            tournament=t,
            player=gala.player1,
            tantos=10,
            reason="Hablar durante la partida",
        )
    # Gala's efectividad 50 − 10 = 40 falls below Eva's 50
    assert (
        stored(t)
        == computed(t)
        == [
            ("Eva Eco", 1, False),
            ("Gala Gil", 2, False),
            ("Fede Feo", 3, True),
            ("Hugo Hoz", 3, True),
        ]
    )


def test_a_sorteo_after_finishing_is_in_the_stored_places(
    tied, director, django_capture_on_commit_callbacks
):
    t, (eva, _fede, gala, _hugo) = tied
    with django_capture_on_commit_callbacks(execute=True):
        services.record_sorteo(acting_user=director, tournament=t, entries_in_order=[gala, eva])
    assert (
        stored(t)
        == computed(t)
        == [
            ("Gala Gil", 1, False),
            ("Eva Eco", 2, False),
            ("Fede Feo", 3, True),
            ("Hugo Hoz", 3, True),
        ]
    )


def test_an_entry_withdrawn_after_finishing_is_stored_as_computed(
    director, django_capture_on_commit_callbacks
):
    """Inés only rested (a bye): finished, she takes no place; her withdrawal is stored again
    and still equals the computed places."""
    by = {"acting_user": director}
    with django_capture_on_commit_callbacks(execute=True):  # the commits' work
        t, (a, b, c) = builders.field(
            name="Copa del Descanso",
            date=dt.date(2026, 5, 23),
            mode="single",
            target=100,
            bye_rule="win",
            rounds_planned=1,
            status="running",
            names=["Iván Ibar", "Inés Isla", "Jon Jara"],
            **by,
        )
        rnd = builders.play(t, 1, [(a, c)], [WIN], **by)
        services.add_bye(acting_user=director, round=rnd, entry=b)
        builders.finish(t, open_rounds_ok=True, **by)
    before = stored(t)
    assert (
        before
        == computed(t)
        == [
            ("Iván Ibar", 1, False),
            ("Jon Jara", 2, False),
            ("Inés Isla", None, False),
        ]
    )
    first_ids = set(FinalPlace.objects.filter(tournament=t).values_list("pk", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        services.drop_entry(entry=b, **by)
    assert stored(t) == computed(t) == before
    assert not first_ids & set(FinalPlace.objects.filter(tournament=t).values_list("pk", flat=True))


def test_a_result_saved_by_hand_outside_the_services_is_stored_again(
    cup, django_capture_on_commit_callbacks
):
    t = cup["t"]
    result = Result.objects.get(table__round__tournament=t, table__round__number=2, table__number=2)
    result.tantos_a, result.tantos_b = 0, 100  # Dani now beats Beto
    with django_capture_on_commit_callbacks(execute=True):
        result.save()
    # Dani 3 puntos (a zapato) level with Ana, who won two games: Ana, Dani, Carla, Beto
    assert (
        stored(t)
        == computed(t)
        == [
            ("Ana Alba", 1, False),
            ("Dani Duarte", 2, False),
            ("Carla Cid", 3, False),
            ("Beto Bravo", 4, False),
        ]
    )


@pytest.mark.parametrize("step", ["reopen", "back_to_draft"])
def test_reopening_or_going_back_to_draft_removes_the_rows(
    cup, director, django_capture_on_commit_callbacks, step
):
    t = cup["t"]
    with django_capture_on_commit_callbacks(execute=True):
        services.take_step(acting_user=director, tournament=t, step=step, reason="Un error")
    assert FinalPlace.objects.filter(tournament=t).count() == 0
    assert stories.podiums(cup["ana"].player1_id) == []


def test_the_podiums_read_the_stored_rows_in_one_query(cup, django_assert_num_queries):
    ana = cup["ana"].player1_id
    with django_assert_num_queries(1):
        found = stories.podiums(ana)
    assert [(p.tournament, p.position, p.shared) for p in found] == [("Copa del Almacén", 1, False)]
    dani = cup["dani"].player1_id
    with django_assert_num_queries(1):
        assert stories.podiums(dani) == []  # 4th: a row, but no podium


def test_a_finished_tournament_without_rows_has_them_stored_by_its_first_reader(cup):
    t = cup["t"]
    t.refresh_from_db()
    FinalPlace.objects.filter(tournament=t).delete()  # a database from before the table
    found = stories.podiums(cup["carla"].player1_id)
    assert [(p.tournament, p.position) for p in found] == [("Copa del Almacén", 2)]
    assert stored(t) == FINAL
    FinalPlace.objects.filter(tournament=t).delete()
    assert [(r.player.full_name, r.place) for r in stored_places([t])[t.pk]] == [
        (name, place) for name, place, _shared in FINAL
    ]


def test_the_league_places_of_finished_tournaments_are_one_query(
    cup, director, django_assert_num_queries, settings
):
    settings.PAGE_CACHE = False
    t = cup["t"]
    t.refresh_from_db()
    with django_assert_num_queries(1):
        places = leagues.tournament_places([t])
    assert places[t.pk].finished
    assert sorted((p.player_id, p.position, p.shared) for p in places[t.pk].placings) == sorted(
        (cup[k].player1_id, place, False)
        for k, place in (("ana", 1), ("carla", 2), ("beto", 3), ("dani", 4))
    )


def test_the_command_stores_the_missing_rows_and_with_all_every_one(cup):
    t = cup["t"]
    FinalPlace.objects.filter(tournament=t).delete()
    out = StringIO()
    call_command("store_final_places", stdout=out)
    assert out.getvalue().startswith("Puestos finales guardados: 1 torneos, 4 filas")
    assert stored(t) == FINAL
    call_command("store_final_places", stdout=out)
    assert "0 torneos, 0 filas" in out.getvalue()
    call_command("store_final_places", "--all", stdout=out)
    assert "1 torneos, 4 filas" in out.getvalue().splitlines()[-1]


def test_the_data_generator_stores_the_final_places_of_its_tournaments():
    call_command(
        "generate_club",
        "--players",
        "40",
        "--tournaments",
        "3",
        "--seed",
        "7",
        "--end",
        "2026-11-28",
        "--skip-ledger",
        stdout=StringIO(),
    )
    finished = list(Tournament.objects.filter(status="finished"))
    assert len(finished) == 3
    for t in finished:
        assert stored(t) == computed(t)
        assert any(place == 1 for _name, place, _shared in stored(t))
