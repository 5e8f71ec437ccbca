"""Swiss match play in and out of spreadsheets (issue "Swiss match play", point 6):
``create_tournament --system swiss``, ``imports.import_match_results`` and its command and
upload form, ``exports.standings_csv`` for swiss (seed 000, SCORING.md §3)."""

import datetime as dt
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from tests import builders
from tournaments import services
from tournaments.errors import DomainError
from tournaments.exports import standings_csv
from tournaments.imports import MATCH_HEADER, ImportRefused, import_match_results
from tournaments.models import Bye, Entry, MatchResult, Player, Round, Seat, Table, Tournament

pytestmark = pytest.mark.django_db

HEADER = ",".join(MATCH_HEADER)
ANA, BETO, CIRO, DORA, EVA = (
    "Ana Robles",
    "Beto Sáenz",
    "Ciro Téllez",
    "Dora Uribe",
    "Eva Vargas",
)


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


#: The Swiss tournament the files go to: running, best of 3; a director (``acting_user``)
#: who creates it directs it.
SUIZO = {
    "name": "Suizo Importado",
    "date": dt.date(2026, 6, 13),
    "system": "swiss",
    "mode": "single",
    "best_of": 3,
    "status": "running",
}


def csv_text(*lines):
    return "\n".join([HEADER, *lines]) + "\n"


def write(tmp_path, text, name="encuentros.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def stored_matches(t):
    return [
        (
            r.table.round.number,
            r.table.number,
            r.table.side_name("A"),
            r.table.side_name("B"),
            r.games_a,
            r.games_b,
            r.games_drawn,
        )
        for r in MatchResult.objects.filter(table__round__tournament=t).order_by(
            "table__round__number", "table__number"
        )
    ]


def nothing_stored():
    return (
        Player.objects.count(),
        Entry.objects.count(),
        Round.objects.count(),
        Table.objects.count(),
        Seat.objects.count(),
        MatchResult.objects.count(),
        Bye.objects.count(),
    )


# Five players, round 1: two matches, a bye, and Dora drops after the round.
ROUND_ONE = csv_text(
    f"1,1,{ANA},{BETO},2,1,,",
    f"1,2,{CIRO},{DORA},1,1,1,b",
    f"1,,{EVA},,,,,",
)


# --- create_tournament --system swiss ----------------------------------------------------------


def test_create_tournament_swiss_prints_the_slug_and_stores_best_of():
    out, _err = run(
        "create_tournament",
        "--name",
        "Suizo de Junio",
        "--date",
        "2026-06-13",
        "--system",
        "swiss",
        "--best-of",
        "5",
        "--rounds",
        "4",
    )

    assert out == "suizo-de-junio-2026\n"
    t = Tournament.objects.get(slug="suizo-de-junio-2026")
    assert (t.system, t.mode, t.best_of, t.rounds_planned, t.status) == (
        "swiss",
        "single",
        5,
        4,
        "running",
    )


def test_create_tournament_swiss_defaults_to_best_of_three_and_accepts_a_target():
    out, _err = run(
        "create_tournament",
        "--name",
        "Suizo",
        "--date",
        "2026-06-13",
        "--system",
        "swiss",
        "--target",
        "200",
    )

    t = Tournament.objects.get(slug=out.strip())
    assert (t.system, t.mode, t.best_of, t.target) == ("swiss", "single", 3, 200)


def test_create_tournament_refuses_a_best_of_two():
    with pytest.raises(CommandError, match="best-of"):
        run(
            "create_tournament",
            "--name",
            "Suizo",
            "--date",
            "2026-06-13",
            "--system",
            "swiss",
            "--best-of",
            "2",
        )
    assert Tournament.objects.count() == 0


def test_create_tournament_refuses_best_of_for_domino_in_words():
    with pytest.raises(CommandError, match="--best-of solo vale para torneos suizos"):
        run(
            "create_tournament",
            "--name",
            "Copa",
            "--date",
            "2026-06-13",
            "--system",
            "domino",
            "--mode",
            "pairs",
            "--target",
            "100",
            "--best-of",
            "3",
        )
    assert Tournament.objects.count() == 0


def test_create_tournament_domino_still_needs_mode_and_target():
    with pytest.raises(CommandError, match="--mode y --target"):
        run("create_tournament", "--name", "Copa", "--date", "2026-06-13")
    assert Tournament.objects.count() == 0


# --- import_match_results ----------------------------------------------------------------------


def test_importing_a_round_of_five_stores_matches_the_bye_and_the_drop(director):
    t = builders.tournament(SUIZO)

    report = import_match_results(acting_user=director, tournament=t, data=ROUND_ONE.encode())

    assert (report.created, report.changed, report.unchanged) == (2, 0, 0)
    assert (report.byes, report.drops, report.players_created, report.entries_created) == (
        1,
        1,
        5,
        5,
    )
    assert stored_matches(t) == [
        (1, 1, ANA, BETO, 2, 1, 0),
        (1, 2, CIRO, DORA, 1, 1, 1),
    ]
    assert [(b.round.number, b.entry.name) for b in Bye.objects.all()] == [(1, EVA)]
    assert {e.name: e.dropped_after_round for e in t.entries.all()} == {
        ANA: None,
        BETO: None,
        CIRO: None,
        DORA: 1,
        EVA: None,
    }
    assert [tbl.version for tbl in Table.objects.order_by("number")] == [1, 1]
    assert {r.entered_by for r in MatchResult.objects.all()} == {director}
    lines = {line.entry.name: line.f for line in t.standings()}
    assert [lines[n]["match_points"] for n in (ANA, BETO, CIRO, DORA, EVA)] == [3, 0, 1, 1, 3]
    assert (lines[EVA]["wins"], lines[EVA]["byes"], lines[EVA]["game_points"]) == (1, 1, 6)


def test_reimport_with_one_changed_line_counts_it_and_keeps_history(
    director, django_capture_on_commit_callbacks
):
    t = builders.tournament(SUIZO)
    import_match_results(acting_user=director, tournament=t, data=ROUND_ONE)
    corrected = csv_text(
        f"1,1,{ANA},{BETO},2,1,,",
        f"1,2,{CIRO},{DORA},2,1,,b",
        f"1,,{EVA},,,,,",
    )

    with django_capture_on_commit_callbacks(execute=True):
        report = import_match_results(acting_user=director, tournament=t, data=corrected)

    assert (report.created, report.changed, report.unchanged) == (0, 1, 1)
    assert (report.byes, report.drops, report.players_created, report.entries_created) == (
        0,
        0,
        0,
        0,
    )
    table1, table2 = Table.objects.order_by("number")
    assert (table1.version, table2.version) == (1, 2)
    assert stored_matches(t)[1] == (1, 2, CIRO, DORA, 2, 1, 0)
    history = list(table2.match_result.history.order_by("history_date"))
    assert [(h.history_type, h.games_a, h.games_b, h.games_drawn) for h in history] == [
        ("+", 1, 1, 1),
        ("~", 2, 1, 0),
    ]
    assert history[-1].history_user == director
    assert (MatchResult.objects.count(), Bye.objects.count()) == (2, 1)


def test_same_players_on_swapped_sides_are_the_same_match(director):
    t = builders.tournament(SUIZO)
    import_match_results(acting_user=director, tournament=t, data=ROUND_ONE)

    report = import_match_results(
        acting_user=director,
        tournament=t,
        data=csv_text(
            f"1,1,{BETO},{ANA},1,2,,",
        ),
    )

    assert (report.created, report.changed, report.unchanged) == (0, 0, 1)
    assert stored_matches(t)[0] == (1, 1, ANA, BETO, 2, 1, 0)


def test_file_with_bad_lines_is_refused_listing_every_one_and_storing_nothing(director):
    t = builders.tournament(SUIZO, best_of=3)
    data = csv_text(
        f"1,1,{ANA},{BETO},3,0,,",  # 3 wins: a best of 3 ends at 2
        f"1,2,{CIRO},{DORA},2,2,0,",  # 2+2 = 4 games > 3
        f"1,3,{EVA},Fabián Wong,2,0,,x",  # unknown drop value
        "1,4,Gema Yáñez,Hugo Zúñiga,2,0,,",  # good
        "1,5,Hugo Zúñiga,Iris Abad,1,0,1,",  # Hugo already plays round 1 (line 5)
    )

    with pytest.raises(ImportRefused) as caught:
        import_match_results(acting_user=director, tournament=t, data=data)

    exc = caught.value
    assert exc.code == "import_invalid"
    assert exc.codes == [
        (2, "above_wins_needed"),
        (3, "too_many_games"),
        (4, "bad_drop"),
        (6, "entry_twice_in_round"),
    ]
    messages = dict(exc.errors)
    assert "3–0–0 no es posible" in messages[2]
    assert "2–2–0 suma 4" in messages[3]
    assert "«x»" in messages[4]
    assert "línea 5" in messages[6]
    assert "4 línea(s)" in exc.message
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)


def test_bye_and_drop_lines_are_checked(director):
    t = builders.tournament(SUIZO)
    data = csv_text(
        f"1,1,{ANA},{BETO},2,0,,a",
        f"1,,{CIRO},,1,,,",  # a bye carries no games
        f"1,,{DORA},,,,,b",  # only player_a can drop on a bye
        f"1,2,{EVA},Fabián Wong,2,,,",  # games_b missing
        f"2,1,{ANA},{CIRO},2,0,,",  # Ana dropped after round 1 (line 2)
    )

    with pytest.raises(ImportRefused) as caught:
        import_match_results(acting_user=director, tournament=t, data=data)

    assert caught.value.codes == [
        (3, "bye_line_games"),
        (4, "bye_drop"),
        (5, "games_missing"),
        (6, "entry_dropped"),
    ]
    assert f"{ANA} se retiró después de la ronda 1" in dict(caught.value.errors)[6]
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)


def test_a_drop_before_a_round_already_played_is_refused(director):
    t = builders.tournament(SUIZO)
    import_match_results(
        acting_user=director,
        tournament=t,
        data=csv_text(
            f"1,1,{ANA},{BETO},2,0,,",
            f"2,1,{ANA},{CIRO},2,1,,",
        ),
    )

    with pytest.raises(ImportRefused) as caught:
        import_match_results(
            acting_user=director,
            tournament=t,
            data=csv_text(
                f"1,1,{ANA},{BETO},2,0,,a",
            ),
        )

    assert caught.value.codes == [(2, "drop_before_later_round")]
    assert Entry.objects.get(player1__full_name=ANA).dropped_after_round is None


def test_a_round_out_of_order_is_refused_and_nothing_is_stored(director):
    t = builders.tournament(SUIZO)
    data = csv_text(
        f"1,1,{ANA},{BETO},2,1,,",
        f"3,1,{CIRO},{DORA},2,0,,",  # round 2 does not exist: round 3 cannot come next
        f"3,,{EVA},,,,,",
    )

    with pytest.raises(ImportRefused) as caught:
        import_match_results(acting_user=director, tournament=t, data=data)

    assert caught.value.codes == [(3, "round_out_of_order"), (4, "round_out_of_order")]
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)


def test_a_round_beyond_the_planned_rounds_is_refused_and_nothing_is_stored(director):
    t = builders.tournament(SUIZO, rounds_planned=1)
    data = csv_text(
        f"1,1,{ANA},{BETO},2,1,,",
        f"2,1,{ANA},{CIRO},2,0,,",
        f"2,,{BETO},,,,,a",
    )

    with pytest.raises(ImportRefused) as caught:
        import_match_results(acting_user=director, tournament=t, data=data)

    assert caught.value.codes == [(3, "round_beyond_planned"), (4, "round_beyond_planned")]
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)
    assert Entry.objects.filter(dropped_after_round__isnull=False).count() == 0


def test_a_dominó_tournament_refuses_the_match_file():
    t = services.create_tournament(
        acting_user=None,
        name="Copa",
        date=dt.date(2026, 6, 13),
        mode="single",
        target=100,
        status="running",
    )

    with pytest.raises(DomainError) as caught:
        import_match_results(acting_user=None, tournament=t, data=ROUND_ONE)

    assert caught.value.code == "import_not_swiss"
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)


def test_import_match_results_command_prints_the_counts(tmp_path):
    t = builders.tournament(SUIZO)
    path = write(tmp_path, ROUND_ONE)

    out, _err = run("import_match_results", t.slug, path)

    assert out == (
        "creados: 2, cambiados: 0, sin cambios: 0\n"
        "descansos: 1, retirados: 1, jugadores nuevos: 5, inscripciones nuevas: 5\n"
        f"jugadores creados: {ANA}, {BETO}, {CIRO}, {DORA}, {EVA}\n"
    )
    out, _err = run("import_match_results", t.slug, path)
    assert out == (
        "creados: 0, cambiados: 0, sin cambios: 2\n"
        "descansos: 0, retirados: 0, jugadores nuevos: 0, inscripciones nuevas: 0\n"
    )


def test_import_match_results_command_lists_refused_lines_on_stderr(tmp_path):
    t = builders.tournament(SUIZO)
    path = write(tmp_path, csv_text(f"1,1,{ANA},{BETO},2,1,,", f"1,2,{CIRO},{DORA},0,0,0,"))
    out, err = StringIO(), StringIO()

    with pytest.raises(CommandError, match="1 línea"):
        call_command("import_match_results", t.slug, path, stdout=out, stderr=err)

    assert err.getvalue().startswith("línea 3: El encuentro no tiene ninguna partida")
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)


# --- export ------------------------------------------------------------------------------------


def test_export_standings_writes_the_exact_swiss_csv():
    t = builders.tournament(SUIZO)
    import_match_results(
        acting_user=None,
        tournament=t,
        data=csv_text(
            f"1,1,{ANA},{BETO},2,0,,",
            f"1,2,{CIRO},{DORA},2,1,,",
            f"1,,{EVA},,,,,",
            f"2,1,{ANA},{EVA},2,1,,",
            f"2,2,{CIRO},{BETO},1,1,1,",
            f"2,,{DORA},,,,,",
        ),
    )
    # By hand (SCORING.md §3; a bye = a match won 2–0, wins include byes):
    #   Ana  W W      MP 6, MWP 6/6 = 1;      games 4–1–0: GP 12/15 = 0.8
    #   Beto L D      MP 1, MWP 1/6 → 0.33;   games 1–3–1: GP 4/15 → 0.33
    #   Ciro W D      MP 4, MWP 4/6 = 2/3;    games 3–2–1: GP 10/18 = 5/9
    #   Dora L bye    MP 3, MWP 3/6 = 0.5;    games 3–2–0 (bye 2–0): GP 9/15 = 0.6
    #   Eva  bye L    MP 3, MWP 0.5;          games 3–2–0: GP 9/15 = 0.6
    # OMW/OGW (byes ignored):
    #   Ana  vs Beto, Eva:  (0.33 + 0.5)/2 = 0.415;   (0.33 + 0.6)/2 = 0.465
    #   Beto vs Ana, Ciro:  (1 + 2/3)/2 = 5/6;        (0.8 + 5/9)/2 = 61/90 = 0.677778
    #   Ciro vs Dora, Beto: (0.5 + 0.33)/2 = 0.415;   (0.6 + 0.33)/2 = 0.465
    #   Dora vs Ciro:       2/3;                      5/9 = 0.555556
    #   Eva  vs Ana:        1;                        0.8
    # Order: Ana 6, Ciro 4, then Eva and Dora on 3 split by OMW (1 > 2/3), Beto 1.

    out, _err = run("export_standings", t.slug, "--full-precision")

    assert out == (
        "\ufeffposition,entry,match_points,wins,losses,draws,byes,omw,gwp,ogw\n"
        f"1,{ANA},6,2,0,0,0,0.415000,0.800000,0.465000\n"
        f"2,{CIRO},4,1,0,1,0,0.415000,0.555556,0.465000\n"
        f"3,{EVA},3,1,1,0,1,1.000000,0.600000,0.800000\n"
        f"4,{DORA},3,1,1,0,1,0.666667,0.600000,0.555556\n"
        f"5,{BETO},1,0,1,1,0,0.833333,0.330000,0.677778\n"
    )


def test_swiss_csv_shares_the_position_of_a_tie():
    t = builders.tournament(SUIZO)
    import_match_results(
        acting_user=None,
        tournament=t,
        data=csv_text(
            f"1,1,{ANA},{BETO},2,0,,",
            f"1,2,{CIRO},{DORA},2,0,,",
            f"2,1,{ANA},{DORA},2,0,,",
            f"2,2,{CIRO},{BETO},2,0,,",
        ),
    )
    # Ana and Ciro: 2–0 each over Beto and Dora (MWP 0 → 0.33, GWP 0 → 0.33): identical, so
    # they share 1st; Beto and Dora lost to the same two (MWP 1, GWP 1): they share 3rd.

    assert standings_csv(t, full_precision=True) == (
        "position,entry,match_points,wins,losses,draws,byes,omw,gwp,ogw\n"
        f"1,{ANA},6,2,0,0,0,0.330000,1.000000,0.330000\n"
        f"1,{CIRO},6,2,0,0,0,0.330000,1.000000,0.330000\n"
        f"3,{BETO},0,0,2,0,0,1.000000,0.330000,1.000000\n"
        f"3,{DORA},0,0,2,0,0,1.000000,0.330000,1.000000\n"
    )


def test_public_csv_link_downloads_the_swiss_standings(client):
    t = builders.tournament(SUIZO)
    import_match_results(acting_user=None, tournament=t, data=ROUND_ONE)

    response = client.get(reverse("public:standings_csv", args=[t.slug]))

    assert response.status_code == 200
    assert response.content.decode() == "\ufeff" + standings_csv(t)
    assert response.content.decode("utf-8-sig").splitlines()[0] == (
        "position,entry,match_points,wins,losses,draws,byes,omw,gwp,ogw"
    )


# --- upload form -------------------------------------------------------------------------------


def test_upload_form_routes_a_swiss_results_file_to_the_match_import(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(SUIZO, acting_user=director)
    page = director_client.get(reverse("manage:tournament", args=[t.slug])).content.decode()
    assert "round,table,player_a,player_b,games_a,games_b,games_drawn,drop" in page
    assert "side_a,side_b" not in page

    with django_capture_on_commit_callbacks(execute=True):
        response = director_client.post(
            reverse("manage:import", args=[t.slug]),
            {
                "kind": "results",
                "file": SimpleUploadedFile("r1.csv", ROUND_ONE.encode()),
            },
        )

    job = t.import_jobs.get()
    assert response.status_code == 302
    assert response.url == reverse("manage:import_job", args=[t.slug, job.pk])
    assert (job.status, job.report["created"], job.report["drops"]) == ("done", 2, 1)  # Dora
    assert stored_matches(t) == [(1, 1, ANA, BETO, 2, 1, 0), (1, 2, CIRO, DORA, 1, 1, 1)]
    assert Bye.objects.get().entry.name == EVA
    assert {r.entered_by for r in MatchResult.objects.all()} == {director}


def test_upload_form_shows_every_refused_line_of_a_swiss_file(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(SUIZO, acting_user=director)
    data = csv_text(f"1,1,{ANA},{BETO},3,0,,", f"1,2,{CIRO},{DORA},2,1,,maybe")

    with django_capture_on_commit_callbacks(execute=True):
        response = director_client.post(
            reverse("manage:import", args=[t.slug]),
            {
                "kind": "results",
                "file": SimpleUploadedFile("r1.csv", data.encode()),
            },
        )

    response = director_client.get(response.url)  # the import's page: refused
    assert response.status_code == 200
    body = response.content.decode()
    assert "Línea 2:" in body and "Línea 3:" in body
    assert nothing_stored() == (0, 0, 0, 0, 0, 0, 0)
