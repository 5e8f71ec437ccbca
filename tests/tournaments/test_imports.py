"""CSV imports of dominó results and castigos (tournaments/imports.py; SCORING.md §1)."""

import datetime as dt
import zoneinfo

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests import builders
from tournaments import services
from tournaments.errors import DomainError
from tournaments.imports import (
    RESULTS_HEADER,
    ImportRefused,
    import_castigos,
    import_domino_results,
)
from tournaments.models import Bye, Castigo, Entry, Player, Result, Round, Seat, Table, Tournament

pytestmark = pytest.mark.django_db

HEADER = ",".join(RESULTS_HEADER)
P1 = "Aurora Blanco & Bruno Castillo"
P2 = "Carmen Dávila & Diego Esparza"
P3 = "Elena Fuentes & Fabián Garza"
P4 = "Gloria Hinojosa & Héctor Ibáñez"
P5 = "Irene Jáuregui & Julián Kuri"
LOCAL = zoneinfo.ZoneInfo(settings.TIME_ZONE)


#: The tournament the files go to (a script's): a running dominó of pairs to 100.
COPA = {
    "name": "Copa Importada",
    "date": dt.date(2026, 3, 7),
    "mode": "pairs",
    "target": 100,
    "status": "running",
}


def csv_text(*lines):
    return "\n".join([HEADER, *lines]) + "\n"


ROUND_ONE = csv_text(
    f"1,1,{P1},{P2},100,0,no,no,",
    f"1,2,{P3},{P4},45,100,no,no,",
)


def counts():
    return (
        Result.objects.count(),
        Player.objects.count(),
        Entry.objects.count(),
        Round.objects.count(),
        Table.objects.count(),
        Seat.objects.count(),
        Bye.objects.count(),
    )


def test_importing_a_round_of_four_pairs_stores_tables_results_and_standings(director):
    t = builders.tournament(COPA)

    report = import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE.encode())

    assert (report.created, report.changed, report.unchanged) == (2, 0, 0)
    assert (report.players_created, report.entries_created, report.byes) == (8, 4, 0)
    table1, table2 = Table.objects.filter(round__tournament=t).order_by("number")
    assert [table1.version, table2.version] == [1, 1]
    assert (table1.side_name("A"), table1.side_name("B")) == (P1, P2)
    assert (table2.result.tantos_a, table2.result.tantos_b) == (45, 100)
    assert table2.result.entered_by == director
    assert table1.result.played_at == dt.datetime(2026, 3, 7, 10, 0, tzinfo=LOCAL)
    lines = t.standings()
    assert [(line.row.position, line.entry.name) for line in lines] == [
        (1, P1),
        (2, P4),
        (3, P3),
        (4, P2),
    ]
    assert [(line.f["puntos"], line.f["efectividad"]) for line in lines] == [
        (3, 100),
        (2, 55),
        (0, -55),
        (0, -100),
    ]


def test_a_line_without_side_b_and_tantos_is_a_bye(director):
    t = builders.tournament(COPA)
    data = csv_text(f"1,1,{P1},{P2},100,30,no,no,", f"1,,{P3},,,,,,")

    report = import_domino_results(acting_user=director, tournament=t, data=data)

    assert (report.created, report.byes) == (1, 1)
    bye = Bye.objects.get()
    assert (bye.round.number, bye.entry.name) == (1, P3)
    assert {line.entry.name: line.f["byes"] for line in t.standings()} == {P1: 0, P2: 0, P3: 1}


def test_reimport_with_one_changed_line_corrects_it_and_keeps_history(director):
    t = builders.tournament(COPA)
    import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)
    corrected = csv_text(
        f"1,1,{P1},{P2},100,0,no,no,",
        f"1,2,{P3},{P4},60,100,no,no,",
    )

    report = import_domino_results(acting_user=director, tournament=t, data=corrected)

    assert (report.created, report.changed, report.unchanged) == (0, 1, 1)
    assert (report.players_created, report.entries_created) == (0, 0)
    table2 = Table.objects.get(round__tournament=t, number=2)
    assert table2.version == 2
    assert (table2.result.tantos_a, table2.result.tantos_b) == (60, 100)
    history = list(table2.result.history.order_by("history_date"))
    assert [(h.history_type, h.tantos_a) for h in history] == [("+", 45), ("~", 60)]
    assert history[-1].history_user == director
    assert Table.objects.get(round__tournament=t, number=1).version == 1
    assert Result.objects.count() == 2


def test_reimport_leaves_tables_the_file_does_not_name_alone(director):
    t = builders.tournament(COPA)
    import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)

    report = import_domino_results(
        acting_user=director, tournament=t, data=csv_text(f"1,1,{P1},{P2},100,20,no,no,")
    )

    assert (report.created, report.changed, report.unchanged) == (0, 1, 0)
    assert Table.objects.get(round__tournament=t, number=2).result.tantos_a == 45


def test_same_entries_on_swapped_sides_are_the_same_game(director):
    t = builders.tournament(COPA)
    import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)

    report = import_domino_results(
        acting_user=director, tournament=t, data=csv_text(f"1,1,{P2},{P1},0,100,no,no,")
    )

    assert (report.created, report.changed, report.unchanged) == (0, 0, 1)


def test_file_with_two_bad_lines_is_refused_listing_both_and_storing_nothing(director):
    t = builders.tournament(COPA)
    before = counts()
    data = csv_text(
        f"1,1,{P1},{P2},100,0,no,no,",
        f"1,2,{P3},{P4},100,100,no,no,",
        f"2,1,{P1},{P3},100,10,no,no,",
        f"x,2,{P2},{P4},100,10,no,no,",
        f"2,3,{P5},Karla Lozano & Luis Medina,100,10,no,no,",
    )

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(acting_user=director, tournament=t, data=data)

    exc = caught.value
    assert exc.code == "import_invalid"
    assert [line for line, _message in exc.errors] == [3, 5]
    assert exc.codes == [(3, "both_reached_target"), (5, "bad_round")]
    assert "100–100" in exc.errors[0][1]
    assert "«x»" in exc.errors[1][1]
    assert counts() == before


def test_wrong_header_is_refused_saying_the_expected_header(director):
    t = builders.tournament(COPA)
    data = "ronda,mesa,a,b,ta,tb\n1,1,X,Y,100,0\n"

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(acting_user=director, tournament=t, data=data)

    assert caught.value.code == "bad_header"
    [(line, message)] = caught.value.errors
    assert line == 1
    assert HEADER in message


def test_bytes_of_no_known_encoding_are_refused_in_words(director):
    # 0x81 is neither UTF-8 nor Windows-1252 (latin-1 files import as Windows-1252 now:
    # tests/tournaments/test_spreadsheets.py).
    t = builders.tournament(COPA)
    data = csv_text(f"1,1,{P1},{P2},100,0,no,no,").encode() + b"1,2,Pe\x81a,X,100,0,no,no,\n"
    before = counts()

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(acting_user=director, tournament=t, data=data)

    assert caught.value.code == "bad_encoding"
    [(line, message)] = caught.value.errors
    assert line == 3
    assert "UTF-8" in message
    assert counts() == before


def test_utf8_bom_and_si_marks_are_accepted(director):
    t = builders.tournament(COPA, time_limit=30)
    data = ("\ufeff" + csv_text(f"1,1,{P1},{P2},80,60,Sí,NO,")).encode("utf-8")

    report = import_domino_results(acting_user=director, tournament=t, data=data)

    assert report.created == 1
    assert Result.objects.get().ended_by_time is True


def test_played_at_without_offset_is_club_local_time(director):
    t = builders.tournament(COPA)
    data = csv_text(f"1,1,{P1},{P2},100,0,no,no,2026-03-07 18:45")

    import_domino_results(acting_user=director, tournament=t, data=data)

    assert Result.objects.get().played_at == dt.datetime(2026, 3, 7, 18, 45, tzinfo=LOCAL)


def test_result_rules_and_in_file_conflicts_are_refused_per_line(director):
    t = builders.tournament(COPA)
    data = csv_text(
        f"1,1,{P1},{P2},100,0,no,no,",
        f"1,1,{P3},{P4},100,0,no,no,",
        f"1,2,{P1},{P5},100,0,no,no,",
        f"1,3,{P3},{P4},70,60,sí,no,",
        f"1,4,{P3},{P4},100,0,quizá,no,",
        f"1,5,{P3},{P4},100,50,no,yes,",
        f"1,6,{P3},{P3},100,50,no,no,",
    )

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(acting_user=director, tournament=t, data=data)

    assert caught.value.codes == [
        (3, "table_twice"),
        (4, "entry_twice_in_round"),
        (5, "no_time_limit"),
        (6, "bad_yes_no"),
        (7, "forfeit_score_mismatch"),
        (8, "player_twice_in_row"),
    ]
    assert Result.objects.count() == 0


def test_lines_of_a_closed_round_are_refused(director):
    t = builders.tournament(COPA)
    import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)
    services.close_round(acting_user=director, round=Round.objects.get(tournament=t, number=1))

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)

    assert caught.value.codes == [(2, "round_closed"), (3, "round_closed")]


def test_table_with_a_result_and_other_entries_is_refused(director):
    t = builders.tournament(COPA)
    import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(
            acting_user=director,
            tournament=t,
            data=csv_text(f"1,1,{P1},{P3},100,0,no,no,", f"1,2,{P2},{P4},100,0,no,no,"),
        )

    assert caught.value.codes == [(2, "seats_differ"), (3, "seats_differ")]


def test_tables_without_result_are_reseated_as_the_file_says(director):
    t = builders.tournament(COPA)
    players = [
        services.create_player(acting_user=director, full_name=n)
        for pair in (P1, P2, P3, P4)
        for n in pair.split(" & ")
    ]
    e1, e2, e3, e4 = [
        services.register_entry(acting_user=director, tournament=t, players=players[i : i + 2])
        for i in range(0, 8, 2)
    ]
    services.set_pairings(
        acting_user=director, tournament=t, round_number=1, tables=[([e1], [e2]), ([e3], [e4])]
    )

    report = import_domino_results(
        acting_user=director,
        tournament=t,
        data=csv_text(f"1,1,{P1},{P3},100,0,no,no,", f"1,2,{P2},{P4},100,0,no,no,"),
    )

    assert (report.created, report.players_created, report.entries_created) == (2, 0, 0)
    table1 = Table.objects.get(round__tournament=t, number=1)
    assert (table1.side_name("A"), table1.side_name("B")) == (P1, P3)
    assert Seat.objects.filter(round__tournament=t).count() == 4


def test_entry_seated_at_a_table_the_file_does_not_name_is_refused(director):
    t = builders.tournament(COPA)
    import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(
            acting_user=director, tournament=t, data=csv_text(f"1,3,{P1},{P5},100,0,no,no,")
        )

    assert caught.value.codes == [(2, "entry_elsewhere")]
    assert "mesa 1" in caught.value.errors[0][1]


def test_a_player_already_in_another_pair_is_refused(director):
    t = builders.tournament(COPA)
    import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(
            acting_user=director,
            tournament=t,
            data=csv_text(f"2,1,Aurora Blanco & Julián Kuri,{P2},100,0,no,no,"),
        )

    assert caught.value.codes == [(2, "player_other_entry")]


def test_individual_mode_sides_are_the_two_players_sitting_there(director):
    t = builders.tournament(COPA, mode="individual")
    data = csv_text(
        "1,1,Ana Ortiz & Beto Pardo,Carla Quintero & Dante Rosas,100,50,no,no,",
        "2,1,Ana Ortiz & Carla Quintero,Beto Pardo & Dante Rosas,100,0,no,no,",
    )

    report = import_domino_results(acting_user=director, tournament=t, data=data)

    assert (report.created, report.entries_created) == (2, 4)
    figures = {line.entry.name: (line.f["puntos"], line.f["efectividad"]) for line in t.standings()}
    assert figures == {
        "Ana Ortiz": (5, 150),
        "Beto Pardo": (2, -50),
        "Carla Quintero": (3, 50),
        "Dante Rosas": (0, -150),
    }


def test_a_file_over_twenty_thousand_lines_is_refused(director):
    t = builders.tournament(COPA)
    data = csv_text(*[f"1,{n},A{n},B{n},100,0,no,no," for n in range(1, 20001)])

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(acting_user=director, tournament=t, data=data)

    assert caught.value.code == "file_too_large"
    assert caught.value.errors[0][0] == 20001


def test_import_castigos_creates_them_and_lowers_efectividad(director):
    t = builders.tournament(COPA)
    import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)
    data = (
        "round,player,tantos,reason\n"
        "1,Bruno Castillo,25,Habló durante la mano\n"
        ",Gloria Hinojosa,10,Llegó tarde\n"
    )

    created = import_castigos(acting_user=director, tournament=t, data=data.encode())

    assert created == 2
    castigo = Castigo.objects.get(player__full_name="Bruno Castillo")
    assert (castigo.round.number, castigo.tantos, castigo.entered_by) == (1, 25, director)
    assert Castigo.objects.get(player__full_name="Gloria Hinojosa").round is None
    figures = {
        line.entry.name: (line.f["castigos"], line.f["efectividad"]) for line in t.standings()
    }
    assert figures[P1] == (25, 75)
    assert figures[P4] == (10, 45)
    notes = []
    assert import_castigos(acting_user=director, tournament=t, data=data, notes=notes) == 0
    assert Castigo.objects.count() == 2
    assert notes == ["2 castigos del archivo ya estaban anotados: no se repitieron."]


def test_castigos_file_with_bad_lines_is_refused_and_stores_nothing(director):
    t = builders.tournament(COPA)
    import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)
    services.create_player(acting_user=director, full_name="Mateo Navarro")
    data = (
        "round,player,tantos,reason\n"
        "1,Bruno Castillo,25,Habló\n"
        "1,Mateo Navarro,10,Ajeno\n"
        "1,Nadie Conocido,10,Fantasma\n"
        "7,Bruno Castillo,10,Ronda futura\n"
        "1,Bruno Castillo,0,Cero\n"
        "1,Bruno Castillo,5,\n"
    )

    with pytest.raises(ImportRefused) as caught:
        import_castigos(acting_user=director, tournament=t, data=data)

    assert caught.value.codes == [
        (3, "player_not_entered"),
        (4, "player_unknown"),
        (5, "round_missing"),
        (6, "castigo_tantos"),
        (7, "name_required"),
    ]
    assert Castigo.objects.count() == 0


def test_import_into_a_tournament_in_registration_starts_it(director):
    t = builders.tournament(COPA, status="registration")

    import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)

    assert Tournament.objects.get(pk=t.pk).status == "running"


# --- the pages' rules, once in the services ----------------------------------------------------


def test_a_round_out_of_order_is_refused_on_its_lines_and_nothing_is_stored(director):
    t = builders.tournament(COPA)
    before = counts()
    data = csv_text(
        f"1,1,{P1},{P2},100,0,no,no,",
        f"3,1,{P1},{P3},100,0,no,no,",  # round 2 does not exist: round 3 cannot come next
        f"3,,{P2},,,,,,",
    )

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(acting_user=director, tournament=t, data=data)

    assert caught.value.codes == [(3, "round_out_of_order"), (4, "round_out_of_order")]
    assert "la próxima ronda es la 2" in dict(caught.value.errors)[3]
    assert counts() == before


def test_a_round_beyond_the_planned_rounds_is_refused_by_import_and_by_the_pages(director):
    t = builders.tournament(COPA, rounds_planned=2)
    before = counts()
    data = csv_text(
        f"1,1,{P1},{P2},100,0,no,no,",
        f"2,1,{P1},{P3},100,0,no,no,",
        f"3,1,{P1},{P4},100,0,no,no,",
    )

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(acting_user=director, tournament=t, data=data)

    assert caught.value.codes == [(4, "round_beyond_planned")]
    assert "2 rondas previstas" in caught.value.errors[0][1]
    assert counts() == before
    # The same rule on the pairings pages' path (services.set_pairings → _write_round).
    import_domino_results(
        acting_user=director, tournament=t, data=csv_text(*data.splitlines()[1:3])
    )
    e1, e2, *_ = t.entries.order_by("pk")
    with pytest.raises(DomainError) as caught:
        services.set_pairings(
            acting_user=director, tournament=t, round_number=3, tables=[([e1], [e2])]
        )
    assert caught.value.code == "round_beyond_planned"
    assert Round.objects.filter(tournament=t).count() == 2


def test_tantos_above_99999_are_refused_with_their_line(director):
    t = builders.tournament(COPA)
    before = counts()
    data = csv_text(f"1,1,{P1},{P2},100,0,no,no,", f"1,2,{P3},{P4},100000,0,no,no,")

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(acting_user=director, tournament=t, data=data)

    assert caught.value.codes == [(3, "value_too_large")]
    assert "99999" in caught.value.errors[0][1]
    assert counts() == before


def test_a_castigo_of_100000_tantos_is_refused_with_its_line(director):
    t = builders.tournament(COPA)
    import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)
    data = (
        "round,player,tantos,reason\n"
        "1,Bruno Castillo,25,Habló\n"
        "1,Bruno Castillo,100000,Demasiados\n"
        ",Gloria Hinojosa,99999,El máximo\n"
    )

    with pytest.raises(ImportRefused) as caught:
        import_castigos(acting_user=director, tournament=t, data=data)

    assert caught.value.codes == [(3, "castigo_tantos")]
    assert "99999" in caught.value.errors[0][1]
    assert Castigo.objects.count() == 0


@pytest.fixture
def local_director(director):
    """A staff user who directs one tournament only: not in the "Directores" group."""
    return User.objects.create_user("local", password="clave-de-prueba-3", is_staff=True)


def test_a_director_of_the_tournament_only_cannot_create_players_by_import(
    director, local_director, client, django_capture_on_commit_callbacks
):
    t = builders.tournament(COPA)
    services.set_tournament_directors(
        acting_user=director, tournament=t, directors=[director, local_director]
    )
    import_domino_results(acting_user=director, tournament=t, data=ROUND_ONE)
    round_two = csv_text(
        f"2,1,{P1},{P3},100,0,no,no,",  # known players: fine
        f"2,2,{P2},{P5},100,20,no,no,",  # Irene Jáuregui and Julián Kuri are nobody yet
    )
    before = counts()

    with pytest.raises(ImportRefused) as caught:
        import_domino_results(acting_user=local_director, tournament=t, data=round_two)

    assert caught.value.codes == [(3, "import_cannot_create_players")]
    assert "«Irene Jáuregui» no está en el registro de jugadores" in caught.value.errors[0][1]
    assert counts() == before
    # The same through the upload form, the page that director uses (a background import:
    # its progress page shows the refusal).
    client.force_login(local_director)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("manage:import", args=[t.slug]),
            {"kind": "results", "file": SimpleUploadedFile("r2.csv", round_two.encode())},
        )
    assert response.status_code == 302
    page = client.get(response.url)
    assert page.context["state"] == "failed"
    assert "Línea 3:" in page.content.decode()
    assert counts() == before
    # A club director's import creates them.
    report = import_domino_results(acting_user=director, tournament=t, data=round_two)
    assert (report.created, report.players_created, report.entries_created) == (2, 2, 1)
    assert Player.objects.filter(full_name="Irene Jáuregui").exists()
