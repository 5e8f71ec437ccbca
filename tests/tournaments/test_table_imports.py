"""Table games in and out of spreadsheets (issue "table games", point 7):
``create_tournament --system table``, ``imports.import_table_results`` with its command and the
upload form, ``exports.standings_csv`` for table games (seed 004, SCORING.md §4); formula-safe
names in every CSV export; the duplicate-name warning of the imports."""

import csv
import datetime as dt
import io
from decimal import Decimal
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from tests import builders
from tournaments import imports, services
from tournaments.errors import DomainError
from tournaments.exports import safe_text, standings_csv
from tournaments.imports import (
    TABLE_HEADER,
    ImportRefused,
    import_domino_results,
    import_match_results,
    import_table_results,
)
from tournaments.models import (
    Bye,
    Entry,
    Player,
    Round,
    Seat,
    Table,
    TableResult,
    Tournament,
)

pytestmark = pytest.mark.django_db

HEADER = ",".join(TABLE_HEADER)
ANA, BETO, CIRO, DORA, EVA, FABIAN, GEMA = (
    "Ana Robles",
    "Beto Sáenz",
    "Ciro Téllez",
    "Dora Uribe",
    "Eva Vargas",
    "Fabián Wong",
    "Gema Yáñez",
)


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


#: The table-game tournament the files go to: running; a director (``acting_user``) who
#: creates it directs it.
MESA = {
    "name": "Mesa Importada",
    "date": dt.date(2026, 6, 13),
    "system": "table",
    "mode": "single",
    "status": "running",
}


def csv_text(*lines):
    return "\n".join([HEADER, *lines]) + "\n"


def write(tmp_path, text, name="mesas.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def seat_rows(t):
    return [
        (s.round.number, s.table.number, s.position, s.entry.name, s.victory_points)
        for s in Seat.objects.filter(round__tournament=t)
        .select_related("round", "table", "entry__player1")
        .order_by("round__number", "table__number", "position")
    ]


def result_rows(t):
    return [
        (r.table.round.number, r.table.number, r.ended_by_time, r.table.version)
        for r in TableResult.objects.filter(table__round__tournament=t)
        .select_related("table__round")
        .order_by("table__round__number", "table__number")
    ]


def nothing_stored():
    return (
        Player.objects.count(),
        Entry.objects.count(),
        Round.objects.count(),
        Table.objects.count(),
        Seat.objects.count(),
        TableResult.objects.count(),
        Bye.objects.count(),
    )


# Seven players, two rounds: a table of 4 and a table of 3 each round.
ROUND_ONE = [
    f"1,1,{ANA},10,no",
    f"1,1,{BETO},8,no",
    f"1,1,{CIRO},7,no",
    f"1,1,{DORA},5,no",
    f"1,2,{EVA},10,no",
    f"1,2,{FABIAN},7,no",
    f"1,2,{GEMA},6,no",
]
ROUND_TWO = [
    f"2,1,{ANA},9,sí",
    f"2,1,{EVA},8,sí",
    f"2,1,{FABIAN},7,sí",
    f"2,1,{CIRO},5,sí",
    f"2,2,{BETO},10,no",
    f"2,2,{DORA},10,no",
    f"2,2,{GEMA},8,no",
]
TWO_ROUNDS = csv_text(*ROUND_ONE, *ROUND_TWO)


# --- create_tournament --system table ----------------------------------------------------------


def test_create_tournament_table_prints_the_slug_and_defaults_to_single():
    out, _err = run(
        "create_tournament",
        "--name",
        "Mesa de Junio",
        "--date",
        "2026-06-13",
        "--system",
        "table",
        "--rounds",
        "4",
    )

    assert out == "mesa-de-junio-2026\n"
    t = Tournament.objects.get(slug="mesa-de-junio-2026")
    assert (t.system, t.mode, t.target, t.rounds_planned, t.status) == (
        "table",
        "single",
        100,
        4,
        "running",
    )


def test_create_tournament_table_accepts_single_and_a_target():
    out, _err = run(
        "create_tournament",
        "--name",
        "Mesa",
        "--date",
        "2026-06-13",
        "--system",
        "table",
        "--mode",
        "single",
        "--target",
        "200",
    )

    t = Tournament.objects.get(slug=out.strip())
    assert (t.system, t.mode, t.target) == ("table", "single", 200)


def test_create_tournament_table_refuses_pairs_and_best_of():
    with pytest.raises(CommandError, match="--mode solo puede ser «single»; se recibió «pairs»"):
        run(
            "create_tournament",
            "--name",
            "Mesa",
            "--date",
            "2026-06-13",
            "--system",
            "table",
            "--mode",
            "pairs",
        )
    with pytest.raises(CommandError, match="--best-of solo vale para torneos suizos"):
        run(
            "create_tournament",
            "--name",
            "Mesa",
            "--date",
            "2026-06-13",
            "--system",
            "table",
            "--best-of",
            "3",
        )
    assert Tournament.objects.count() == 0


# --- import_table_results ----------------------------------------------------------------------


def test_importing_two_rounds_of_seven_stores_seats_results_and_standings(director):
    t = builders.tournament(MESA)

    report = import_table_results(acting_user=director, tournament=t, data=TWO_ROUNDS.encode())

    assert (report.created, report.changed, report.unchanged) == (4, 0, 0)
    assert (report.byes, report.players_created, report.entries_created) == (0, 7, 7)
    assert report.warnings == []
    assert seat_rows(t) == [
        (1, 1, 1, ANA, 10),
        (1, 1, 2, BETO, 8),
        (1, 1, 3, CIRO, 7),
        (1, 1, 4, DORA, 5),
        (1, 2, 1, EVA, 10),
        (1, 2, 2, FABIAN, 7),
        (1, 2, 3, GEMA, 6),
        (2, 1, 1, ANA, 9),
        (2, 1, 2, EVA, 8),
        (2, 1, 3, FABIAN, 7),
        (2, 1, 4, CIRO, 5),
        (2, 2, 1, BETO, 10),
        (2, 2, 2, DORA, 10),
        (2, 2, 3, GEMA, 8),
    ]
    assert result_rows(t) == [(1, 1, False, 1), (1, 2, False, 1), (2, 1, True, 1), (2, 2, False, 1)]
    assert {r.entered_by for r in TableResult.objects.all()} == {director}
    assert {s.side for s in Seat.objects.all()} == {"A"}
    assert Tournament.objects.get(pk=t.pk).entries.filter(player2__isnull=False).count() == 0
    # By hand (SCORING.md §4):
    # R1 T1 10, 8, 7, 5 normal → 5, 3, 2, 1; total 30: 33.33, 26.67, 23.33, 16.67.
    # R1 T2 10, 7, 6 normal → 5, 3, 2; neutral 23/3 = 7.67 → 8, total 31: 32.26, 22.58, 19.35.
    # R2 T1 9, 8, 7, 5 by time → 4, 3, 2, 1; total 29: 31.03, 27.59, 24.14, 17.24.
    # R2 T2 10, 10, 8 normal → 4, 4, 3 (1st shared, 8 is 2nd alone); neutral 28/3 = 9.33 → 9,
    #       total 37: 27.03, 27.03, 21.62.
    # Ana 5+4 = 9, VP 19, 33.33+31.03 = 64.36;  Eva 5+3 = 8, VP 18, 32.26+27.59 = 59.85;
    # Beto 3+4 = 7, VP 18, 26.67+27.03 = 53.70; Dora 1+4 = 5, VP 15, 16.67+27.03 = 43.70;
    # Fabián 3+2 = 5, VP 14, 22.58+24.14 = 46.72; Gema 2+3 = 5, VP 14, 19.35+21.62 = 40.97;
    # Ciro 2+1 = 3, VP 12, 23.33+17.24 = 40.57.
    # On 5 points: Dora by VP (15), then Fabián over Gema by the percentage sum.
    assert [
        (
            ln.row.position,
            ln.entry.name,
            ln.f["games"],
            ln.f["points"],
            ln.f["victory_points"],
            ln.f["pct_sum"],
            ln.f["per_round"],
            ln.row.decided_by,
        )
        for ln in t.standings()
    ] == [
        (1, ANA, 2, 9, 19, Decimal("64.36"), {1: 5, 2: 4}, None),
        (2, EVA, 2, 8, 18, Decimal("59.85"), {1: 5, 2: 3}, None),
        (3, BETO, 2, 7, 18, Decimal("53.70"), {1: 3, 2: 4}, None),
        (4, DORA, 2, 5, 15, Decimal("43.70"), {1: 1, 2: 4}, "victory_points"),
        (5, FABIAN, 2, 5, 14, Decimal("46.72"), {1: 3, 2: 2}, "pct_sum"),
        (6, GEMA, 2, 5, 14, Decimal("40.97"), {1: 2, 2: 3}, "pct_sum"),
        (7, CIRO, 2, 3, 12, Decimal("40.57"), {1: 2, 2: 1}, None),
    ]


def test_reimport_with_one_changed_vp_counts_it_and_keeps_history(
    director, django_capture_on_commit_callbacks
):
    t = builders.tournament(MESA)
    import_table_results(acting_user=director, tournament=t, data=TWO_ROUNDS)
    changed = [line.replace(f"{GEMA},8,", f"{GEMA},9,") for line in ROUND_TWO]
    assert changed != ROUND_TWO

    with django_capture_on_commit_callbacks(execute=True):
        report = import_table_results(acting_user=director, tournament=t, data=csv_text(*changed))

    assert (report.created, report.changed, report.unchanged) == (0, 1, 1)
    assert (report.players_created, report.entries_created, report.warnings) == (0, 0, [])
    table = Table.objects.get(round__number=2, number=2)
    assert result_rows(t) == [(1, 1, False, 1), (1, 2, False, 1), (2, 1, True, 1), (2, 2, False, 2)]
    assert seat_rows(t)[-3:] == [(2, 2, 1, BETO, 10), (2, 2, 2, DORA, 10), (2, 2, 3, GEMA, 9)]
    gema = Seat.objects.get(round__number=2, entry__player1__full_name=GEMA)
    assert [(h.history_type, h.victory_points) for h in gema.history.order_by("history_date")] == [
        ("+", 8),
        ("~", 9),
    ]
    assert gema.history.latest("history_date").history_user == director
    assert table.history.latest("history_date").history_user == director
    # The same players in another order are the same table: VP follow the players.
    report = import_table_results(
        acting_user=director,
        tournament=t,
        data=csv_text(
            f"2,2,{GEMA},9,no",
            f"2,2,{DORA},10,no",
            f"2,2,{BETO},10,no",
        ),
    )
    assert (report.created, report.changed, report.unchanged) == (0, 0, 1)
    # ended_by_time alone also counts as a change.
    report = import_table_results(
        acting_user=director,
        tournament=t,
        data=csv_text(
            f"2,2,{BETO},10,sí",
            f"2,2,{DORA},10,sí",
            f"2,2,{GEMA},9,sí",
        ),
    )
    assert (report.created, report.changed, report.unchanged) == (0, 1, 0)
    assert result_rows(t)[-1] == (2, 2, True, 3)


def test_a_seated_table_without_result_is_reseated_but_one_with_result_is_not(director):
    t = builders.tournament(MESA)
    import_table_results(acting_user=director, tournament=t, data=csv_text(*ROUND_ONE))
    entries = {e.name: e for e in t.entries.select_related("player1")}
    services.set_seating(
        acting_user=director,
        tournament=t,
        round_number=2,
        tables=[
            [entries[n] for n in (ANA, BETO, CIRO, DORA)],
            [entries[n] for n in (EVA, FABIAN, GEMA)],
        ],
    )

    report = import_table_results(acting_user=director, tournament=t, data=csv_text(*ROUND_TWO))

    assert (report.created, report.changed, report.unchanged) == (2, 0, 0)
    assert seat_rows(t)[7:] == [
        (2, 1, 1, ANA, 9),
        (2, 1, 2, EVA, 8),
        (2, 1, 3, FABIAN, 7),
        (2, 1, 4, CIRO, 5),
        (2, 2, 1, BETO, 10),
        (2, 2, 2, DORA, 10),
        (2, 2, 3, GEMA, 8),
    ]
    with pytest.raises(ImportRefused) as caught:
        import_table_results(
            acting_user=director,
            tournament=t,
            data=csv_text(
                f"1,2,{EVA},10,no",
                f"1,2,{FABIAN},7,no",
                f"1,2,{CIRO},6,no",
            ),
        )
    assert caught.value.codes == [(2, "seats_differ"), (3, "seats_differ"), (4, "seats_differ")]
    assert f"{EVA}, {FABIAN}, {GEMA}" in dict(caught.value.errors)[2]
    assert seat_rows(t)[4:7] == [(1, 2, 1, EVA, 10), (1, 2, 2, FABIAN, 7), (1, 2, 3, GEMA, 6)]


def test_file_with_bad_lines_is_refused_listing_every_one_and_storing_nothing(director):
    t = builders.tournament(MESA)
    data = csv_text(
        f"1,1,{ANA},10,no",  # table 1 has only 2 lines
        f"1,1,{BETO},8,no",
        f"1,2,{CIRO},7,no",
        f"1,2,{DORA},-3,no",  # negative VP
        f"1,2,{EVA},5,no",
        f"1,3,{FABIAN},9,no",
        f"1,3,{GEMA},8,sí",  # the table's first line said no
        "1,3,Hugo Zúñiga,7,no",
        "1,4,Iris Abad,6,no",
        f"1,4,{ANA},5,no",  # Ana already plays round 1 (line 2)
        "1,4,Juan Bravo,4,no",
    )

    with pytest.raises(ImportRefused) as caught:
        import_table_results(acting_user=director, tournament=t, data=data)

    exc = caught.value
    assert exc.code == "import_invalid"
    assert exc.codes == [
        (2, "table_size"),
        (3, "table_size"),
        (5, "negative_score"),
        (8, "by_time_mismatch"),
        (11, "entry_twice_in_round"),
    ]
    messages = dict(exc.errors)
    assert (
        messages[2]
        == messages[3]
        == (
            "La mesa 1 de la ronda 1 tiene 2 línea(s): una mesa lleva 3 o 4 jugadores, una línea "
            "por jugador."
        )
    )
    assert messages[5] == "Los puntos de victoria no pueden ser negativos: el asiento 2 tiene -3."
    assert messages[8] == (
        "ended_by_time dice «sí», pero la línea 7 de la misma mesa 3 (ronda 1) dice «no»: "
        "todas las líneas de una mesa deben coincidir."
    )
    assert messages[11] == f"«{ANA}» ya juega o descansa en la ronda 1 (línea 2)."
    assert "5 línea(s)" in exc.message
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)


def test_more_line_errors_are_each_listed(director):
    t = builders.tournament(MESA)
    data = csv_text(
        *(f"1,1,Jugador {n},{n},no" for n in range(1, 6)),  # a table of 5
        "1,2,Uno,x,no",
        "1,2,Dos,,no",
        "1,2,Tres,4,quizá",
        "1,2,Cuatro,100000,no",
        "1,,Cinco,3,no",
    )

    with pytest.raises(ImportRefused) as caught:
        import_table_results(acting_user=director, tournament=t, data=data)

    assert caught.value.codes == [
        *((n, "table_size") for n in range(2, 7)),
        (7, "not_integer"),
        (8, "score_missing"),
        (9, "bad_yes_no"),
        (10, "value_too_large"),
        (11, "table_required"),
    ]
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)


def test_a_round_out_of_order_is_refused_and_nothing_is_stored(director):
    t = builders.tournament(MESA)
    data = csv_text(*ROUND_ONE, *(line.replace("2,", "3,", 1) for line in ROUND_TWO))

    with pytest.raises(ImportRefused) as caught:
        import_table_results(acting_user=director, tournament=t, data=data)

    assert caught.value.codes == [(n, "round_out_of_order") for n in range(9, 16)]
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)


def test_a_round_beyond_the_planned_rounds_is_refused_and_nothing_is_stored(director):
    t = builders.tournament(MESA, rounds_planned=1)

    with pytest.raises(ImportRefused) as caught:
        import_table_results(acting_user=director, tournament=t, data=TWO_ROUNDS)

    assert caught.value.codes == [(n, "round_beyond_planned") for n in range(9, 16)]
    assert "1 rondas previstas" in dict(caught.value.errors)[9]
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)


def test_a_director_of_the_tournament_only_cannot_add_players_by_import(director):
    from django.contrib.auth.models import User

    local = User.objects.create_user("local", password="clave-de-prueba-3", is_staff=True)
    t = builders.tournament(MESA, acting_user=director)
    services.set_tournament_directors(
        acting_user=director, tournament=t, directors=[director, local]
    )
    import_table_results(acting_user=director, tournament=t, data=csv_text(*ROUND_ONE))
    before = nothing_stored()
    data = csv_text(
        *ROUND_TWO[:4], f"2,2,{BETO},10,no", f"2,2,{DORA},10,no", "2,2,Nadie Nuevo,8,no"
    )

    with pytest.raises(ImportRefused) as caught:
        import_table_results(acting_user=local, tournament=t, data=data)

    assert caught.value.codes == [(8, "import_cannot_create_players")]
    assert nothing_stored() == before
    # Known players only: that director's import goes through.
    report = import_table_results(acting_user=local, tournament=t, data=csv_text(*ROUND_TWO))
    assert (report.created, report.players_created) == (2, 0)


def test_a_domino_tournament_refuses_the_table_file_and_vice_versa():
    domino = services.create_tournament(
        acting_user=None,
        name="Copa",
        date=dt.date(2026, 6, 13),
        mode="single",
        target=100,
        status="running",
    )
    with pytest.raises(DomainError) as caught:
        import_table_results(acting_user=None, tournament=domino, data=TWO_ROUNDS)
    assert caught.value.code == "import_not_table"

    t = builders.tournament(MESA)
    with pytest.raises(DomainError) as caught:
        import_domino_results(
            acting_user=None,
            tournament=t,
            data=("round,table,side_a,side_b,tantos_a,tantos_b,ended_by_time,forfeit,played_at\n"),
        )
    assert caught.value.code == "import_not_domino"
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)


def test_import_table_results_command_prints_the_counts(tmp_path):
    t = builders.tournament(MESA)
    path = write(tmp_path, TWO_ROUNDS)

    out, err = run("import_table_results", t.slug, path)

    assert (out, err) == (
        "creados: 4, cambiados: 0, sin cambios: 0\njugadores nuevos: 7, inscripciones nuevas: 7\n"
        f"jugadores creados: {ANA}, {BETO}, {CIRO}, {DORA}, {EVA}, {FABIAN}, {GEMA}\n",
        "",
    )
    out, _err = run("import_table_results", t.slug, path)
    assert out == (
        "creados: 0, cambiados: 0, sin cambios: 4\njugadores nuevos: 0, inscripciones nuevas: 0\n"
    )


def test_import_table_results_command_lists_refused_lines_on_stderr(tmp_path):
    t = builders.tournament(MESA)
    path = write(tmp_path, csv_text(f"1,1,{ANA},10,no", f"1,1,{BETO},8,no"))
    out, err = StringIO(), StringIO()

    with pytest.raises(CommandError, match="2 línea"):
        call_command("import_table_results", t.slug, path, stdout=out, stderr=err)

    assert err.getvalue() == (
        "línea 2: La mesa 1 de la ronda 1 tiene 2 línea(s): una mesa lleva 3 o 4 jugadores, "
        "una línea por jugador.\n"
        "línea 3: La mesa 1 de la ronda 1 tiene 2 línea(s): una mesa lleva 3 o 4 jugadores, "
        "una línea por jugador.\n"
    )
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)


# --- export ------------------------------------------------------------------------------------


def test_export_standings_writes_the_exact_table_csv(tmp_path):
    t = builders.tournament(MESA)
    run("import_table_results", t.slug, write(tmp_path, TWO_ROUNDS))

    out, _err = run("export_standings", t.slug)

    # Figures as computed by hand in the two-round import test above.
    assert out == (
        "\ufeffposition,player,games,points,vp,pct_sum\n"
        f"1,{ANA},2,9,19,64.36\n"
        f"2,{EVA},2,8,18,59.85\n"
        f"3,{BETO},2,7,18,53.70\n"
        f"4,{DORA},2,5,15,43.70\n"
        f"5,{FABIAN},2,5,14,46.72\n"
        f"6,{GEMA},2,5,14,40.97\n"
        f"7,{CIRO},2,3,12,40.57\n"
    )


def test_table_csv_shares_the_position_of_a_tie(client):
    t = builders.tournament(MESA)
    import_table_results(
        acting_user=None,
        tournament=t,
        data=csv_text(
            f"1,1,{ANA},10,no",
            f"1,1,{BETO},8,no",
            f"1,1,{CIRO},8,no",
            f"1,1,{DORA},6,no",
        ),
    )
    # 10, 8, 8, 6 → 5, 2, 2, 2 (SCORING.md §4); total 32: 31.25, 25.00, 25.00, 18.75.
    # Beto and Ciro level on points, VP and percentage: they share 2nd; Dora (2 points, 6 VP)
    # is 4th.

    expected = (
        "position,player,games,points,vp,pct_sum\n"
        f"1,{ANA},1,5,10,31.25\n"
        f"2,{BETO},1,2,8,25.00\n"
        f"2,{CIRO},1,2,8,25.00\n"
        f"4,{DORA},1,2,6,18.75\n"
    )
    assert standings_csv(t) == expected
    response = client.get(reverse("public:standings_csv", args=[t.slug]))
    assert response.status_code == 200
    assert response.content.decode() == "\ufeff" + expected


# --- upload form -------------------------------------------------------------------------------


def test_upload_form_routes_a_table_results_file_to_the_table_import(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(MESA, acting_user=director)
    page = director_client.get(reverse("manage:tournament", args=[t.slug])).content.decode()
    assert "round,table,player,vp,ended_by_time" in page
    assert "side_a,side_b" not in page and "player_a,player_b" not in page

    with django_capture_on_commit_callbacks(execute=True):
        response = director_client.post(
            reverse("manage:import", args=[t.slug]),
            {
                "kind": "results",
                "file": SimpleUploadedFile("mesas.csv", TWO_ROUNDS.encode()),
            },
        )

    job = t.import_jobs.get()
    assert response.status_code == 302
    assert response.url == reverse("manage:import_job", args=[t.slug, job.pk])
    assert (job.status, job.report["created"], job.done, job.total) == ("done", 4, 4, 4)
    assert result_rows(t) == [(1, 1, False, 1), (1, 2, False, 1), (2, 1, True, 1), (2, 2, False, 1)]
    assert len(seat_rows(t)) == 14
    assert {r.entered_by for r in TableResult.objects.all()} == {director}


def test_upload_form_shows_every_refused_line_of_a_table_file(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(MESA, acting_user=director)
    data = csv_text(f"1,1,{ANA},10,no", f"1,1,{BETO},-1,no", f"1,1,{CIRO},7,maybe")

    with django_capture_on_commit_callbacks(execute=True):
        response = director_client.post(
            reverse("manage:import", args=[t.slug]),
            {
                "kind": "results",
                "file": SimpleUploadedFile("mesas.csv", data.encode()),
            },
        )

    response = director_client.get(response.url)  # the import's page: refused
    assert response.status_code == 200
    body = response.content.decode()
    assert "Línea 3:" in body and "Línea 4:" in body and "Línea 2:" not in body
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)


# --- spreadsheet safety ------------------------------------------------------------------------

HYPER, RARO = '=HYPERLINK("x")', "-Raro"


def test_safe_text_escapes_formula_starts_only():
    assert [safe_text(v) for v in ("=1+1", "+34 600", "-Raro", "@SUM(A1)", "\tx", "\rx")] == [
        "'=1+1",
        "'+34 600",
        "'-Raro",
        "'@SUM(A1)",
        "'\tx",
        "'\rx",
    ]
    assert [safe_text(v) for v in ("Ana", "José-Luis", "", None, "'=x")] == [
        "Ana",
        "José-Luis",
        "",
        "",
        "'=x",
    ]


def test_csv_exports_escape_formula_names_but_keep_negative_numbers(
    client, django_capture_on_commit_callbacks
):
    hyper = services.create_player(acting_user=None, full_name=HYPER)
    raro = services.create_player(acting_user=None, full_name=RARO)
    with django_capture_on_commit_callbacks(execute=True):
        t = services.create_tournament(
            acting_user=None,
            name="-Copa",
            date=dt.date(2026, 6, 13),
            mode="single",
            target=100,
            status="running",
        )
        a = services.register_entry(acting_user=None, tournament=t, players=[hyper])
        b = services.register_entry(acting_user=None, tournament=t, players=[raro])
        rnd = services.set_pairings(
            acting_user=None, tournament=t, round_number=1, tables=[([a], [b])]
        )
        services.record_result(
            acting_user=None, table=rnd.tables.get(), tantos_a=100, tantos_b=95, version=None
        )
    # 100–95: the winner takes 1 punto, for 100 against 95 (efectividad 5); the loser for 95
    # against 100 (efectividad -5).

    standings = standings_csv(t)
    assert standings == (
        "position,entry,played,won,puntos,tantos_a_favor,tantos_en_contra,castigos,"
        "efectividad,byes\n"
        '1,"\'=HYPERLINK(""x"")",1,1,1,100,95,0,5,0\n'
        "2,'-Raro,1,0,0,95,100,0,-5,0\n"
    )
    assert list(csv.reader(io.StringIO(standings)))[2][-2] == "-5"
    download = client.get(reverse("public:standings_csv", args=[t.slug])).content.decode()
    assert download == "\ufeff" + standings

    out, _err = run("export_ranking", "--year", "2026", "--full-precision")
    rows = list(csv.reader(io.StringIO(out.removeprefix("\ufeff"))))
    # Both start at 1500 (SE 0.5); S = 0.55 + 0.45 × 5/100 = 0.5725, K 32: ±2.32.
    assert [row[:2] + row[3:4] for row in rows[1:]] == [
        ["1", "'" + HYPER, "1"],
        ["2", "'-Raro", "1"],
    ]
    assert abs(float(rows[1][4]) - 2.32) < 1e-9 and abs(float(rows[2][4]) + 2.32) < 1e-9
    assert rows[2][4].startswith("-2.3")  # a number, not escaped
    exact = reverse("rankings:ranking_csv", args=[2026]) + "?precision=full"
    assert client.get(exact).content.decode() == out

    out, _err = run("export_ledger", "--year", "2026")
    ledger = list(csv.reader(io.StringIO(out.removeprefix("\ufeff"))))
    assert {(row[1], row[4]) for row in ledger[1:]} == {
        ("'-Copa", "'" + HYPER),
        ("'-Copa", "'-Raro"),
    }
    page = client.get(reverse("rankings:player_csv", args=[raro.pk])).content.decode()
    assert "'-Copa" in page and "'-Raro" in page


# --- a name that differs only in case, accents or spacing ---------------------------------------

DOMINO_HEADER = "round,table,side_a,side_b,tantos_a,tantos_b,ended_by_time,forfeit,played_at"
DUPLICATE = f"{DOMINO_HEADER}\n1,1,hermenegildo paz,Ana Robles,100,40,no,no,\n"


def taken(line, typed, name="Hermenegildo Paz"):
    return (
        f"Línea {line}: «{typed}» se tomó como «{name}», que solo difiere en mayúsculas, "
        "acentos o espacios."
    )


WARNING = taken(2, "hermenegildo paz")


#: A running mano a mano dominó to 100, for the names the imports take.
COPA = {
    "name": "Copa",
    "date": dt.date(2026, 6, 13),
    "mode": "single",
    "target": 100,
    "status": "running",
}


def test_a_domino_import_takes_a_name_that_differs_only_in_case_and_says_so(director):
    existing = services.create_player(acting_user=None, full_name="Hermenegildo Paz")
    t = builders.tournament(COPA)

    report = import_domino_results(acting_user=director, tournament=t, data=DUPLICATE)

    assert report.warnings == [WARNING]
    assert (report.created, report.players_created, report.entries_created) == (1, 1, 2)
    assert not Player.objects.filter(full_name="hermenegildo paz").exists()
    assert sorted(t.entries.values_list("player1_id", flat=True))[0] == existing.pk
    assert sorted(t.entries.values_list("player1__full_name", flat=True)) == [
        "Ana Robles",
        "Hermenegildo Paz",
    ]
    # Importing again: the same player, nothing new, the same warning.
    report = import_domino_results(acting_user=director, tournament=t, data=DUPLICATE)
    assert (report.unchanged, report.players_created, report.warnings) == (1, 0, [WARNING])


def test_the_import_commands_print_the_warning_on_stderr(tmp_path):
    services.create_player(acting_user=None, full_name="Hermenegildo Paz")
    t = builders.tournament(COPA)
    out, err = run("import_domino_results", t.slug, write(tmp_path, DUPLICATE))
    assert err == f"aviso: {WARNING}\n"
    assert out.startswith("creados: 1,")

    swiss = services.create_tournament(
        acting_user=None,
        name="Suizo",
        date=dt.date(2026, 6, 13),
        system="swiss",
        mode="single",
        status="running",
    )
    _out, err = run(
        "import_match_results",
        swiss.slug,
        write(
            tmp_path,
            (
                "round,table,player_a,player_b,games_a,games_b,games_drawn,drop\n"
                "1,1,HERMENEGILDO PAZ,Beto Sáenz,2,0,,\n"
            ),
        ),
    )
    assert err == f"aviso: {taken(2, 'HERMENEGILDO PAZ')}\n"

    tg = builders.tournament(MESA)
    _out, err = run(
        "import_table_results",
        tg.slug,
        write(
            tmp_path,
            csv_text(
                f"1,1,{ANA},10,no",
                f"1,1,{BETO},8,no",
                "1,1,hermenegildo  paz,7,no",
            ),
        ),
    )
    assert err == f"aviso: {taken(4, 'hermenegildo paz')}\n"


def test_the_match_and_table_imports_take_the_player_too():
    existing = services.create_player(acting_user=None, full_name="Hermenegildo Paz")
    swiss = services.create_tournament(
        acting_user=None,
        name="Suizo",
        date=dt.date(2026, 6, 13),
        system="swiss",
        mode="single",
        status="running",
    )
    report = import_match_results(
        acting_user=None,
        tournament=swiss,
        data=(
            "round,table,player_a,player_b,games_a,games_b,games_drawn,drop\n"
            "1,1,hermenegildo paz,Beto Sáenz,2,0,,\n"
        ),
    )
    assert report.warnings == [WARNING]
    assert existing.pk in swiss.entries.values_list("player1_id", flat=True)

    t = builders.tournament(MESA)
    report = import_table_results(
        acting_user=None,
        tournament=t,
        data=csv_text(
            f"1,1,{ANA},10,no",
            f"1,1,{BETO},8,no",
            "1,1,HERMENEGILDO PÁZ,7,no",
        ),
    )
    assert report.warnings == [taken(4, "HERMENEGILDO PÁZ")]
    assert Player.objects.filter(name_key=existing.name_key).count() == 1


def test_upload_form_shows_the_warning(
    director_client, director, django_capture_on_commit_callbacks
):
    services.create_player(acting_user=None, full_name="Hermenegildo Paz")
    t = builders.tournament(COPA, acting_user=director)

    with django_capture_on_commit_callbacks(execute=True):
        response = director_client.post(
            reverse("manage:import", args=[t.slug]),
            {
                "kind": "results",
                "file": SimpleUploadedFile("r.csv", DUPLICATE.encode()),
            },
        )

    response = director_client.get(response.url)  # the import's page, once it ran
    assert response.status_code == 200
    shown = response.context["report_messages"]
    assert ("warning", WARNING) in shown
    assert "«hermenegildo paz» se tomó como «Hermenegildo Paz»" in response.content.decode()


def test_a_round_that_leaves_a_player_without_a_table_is_refused_as_on_the_pairings_page(director):
    """Seven entered, six seated: table games rest nobody but the fifth of five (SCORING.md §4)."""
    t = builders.tournament(MESA, acting_user=director)
    names = [f"Mesa Jugador {i}" for i in range(1, 8)]
    for name in names:
        services.register_entry(
            acting_user=director,
            tournament=t,
            players=[services.create_player(acting_user=director, full_name=name)],
        )
    lines = [f"1,1,{n},{vp},no" for n, vp in zip(names[:3], (9, 8, 7), strict=True)]
    lines += [f"1,2,{n},{vp},no" for n, vp in zip(names[3:6], (5, 4, 3), strict=True)]
    with pytest.raises(imports.ImportRefused) as refused:
        imports.import_table_results(acting_user=director, tournament=t, data=csv_text(*lines))
    assert refused.value.codes == [(line, "table_byes") for line in range(2, 8)]
    assert not t.rounds.exists()
    lines.append(f"1,2,{names[6]},2,no")
    report = imports.import_table_results(acting_user=director, tournament=t, data=csv_text(*lines))
    assert report.created == 2
