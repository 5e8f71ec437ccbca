"""Management commands: create_tournament, import_results, import_domino_results,
import_castigos, export_standings."""

import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests import builders
from tournaments import services
from tournaments.models import Castigo, Entry, Player, Result, Tournament

pytestmark = pytest.mark.django_db

#: The tournament the commands import into (a script's): a running dominó of pairs to 100.
TORNEO = {
    "name": "Torneo de Prueba",
    "date": dt.date(2026, 4, 18),
    "mode": "pairs",
    "target": 100,
    "status": "running",
}
HEADER = "round,table,side_a,side_b,tantos_a,tantos_b,ended_by_time,forfeit,played_at"


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def write(tmp_path, text, name="datos.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_create_tournament_prints_only_its_slug():
    out, _err = run(
        "create_tournament",
        "--name",
        "Copa Nopal",
        "--date",
        "2026-05-09",
        "--system",
        "domino",
        "--mode",
        "pairs",
        "--target",
        "200",
        "--time-limit",
        "40",
        "--bye-rule",
        "win",
        "--forfeit-score",
        "200-50",
        "--rounds",
        "7",
        "--unrated",
    )

    assert out == "copa-nopal-2026\n"
    t = Tournament.objects.get(slug="copa-nopal-2026")
    assert (t.status, t.mode, t.target, t.time_limit, t.bye_rule) == (
        "running",
        "pairs",
        200,
        40,
        "win",
    )
    assert (t.forfeit_score, t.rounds_planned, t.rated) == ((200, 50), 7, False)


def test_create_tournament_with_a_bad_date_is_a_command_error():
    with pytest.raises(CommandError, match="AAAA-MM-DD"):
        run(
            "create_tournament",
            "--name",
            "Copa",
            "--date",
            "09/05/2026",
            "--mode",
            "single",
            "--target",
            "100",
        )
    assert Tournament.objects.count() == 0


def test_create_tournament_with_an_invalid_forfeit_score_is_a_command_error():
    with pytest.raises(CommandError, match="no presentación"):
        run(
            "create_tournament",
            "--name",
            "Copa",
            "--date",
            "2026-05-09",
            "--mode",
            "single",
            "--target",
            "100",
            "--forfeit-score",
            "100-100",
        )


def test_create_tournament_with_a_target_of_150_is_a_command_error():
    with pytest.raises(CommandError):
        run(
            "create_tournament",
            "--name",
            "Copa",
            "--date",
            "2026-05-09",
            "--mode",
            "single",
            "--target",
            "150",
        )


def test_import_domino_results_prints_the_counts(tmp_path):
    t = builders.tournament(TORNEO)
    path = write(
        tmp_path,
        "\n".join(
            [
                HEADER,
                "1,1,Rosa Salinas & Tomás Uribe,Úrsula Vega & Víctor Zamora,100,40,no,no,",
                "1,2,Wendy Arce & Ximena Bravo,Yolanda Cano & Zacarías Díaz,30,100,no,no,",
            ]
        )
        + "\n",
    )

    out, _err = run("import_domino_results", t.slug, path)

    assert out == (
        "creados: 2, cambiados: 0, sin cambios: 0\n"
        "descansos: 0, jugadores nuevos: 8, inscripciones nuevas: 4\n"
        "jugadores creados: Rosa Salinas, Tomás Uribe, Úrsula Vega, Víctor Zamora, Wendy Arce, "
        "Ximena Bravo, Yolanda Cano, Zacarías Díaz\n"
    )
    out, _err = run("import_domino_results", t.slug, path)
    assert out.splitlines()[0] == "creados: 0, cambiados: 0, sin cambios: 2"


def test_import_domino_results_refused_lists_each_line_on_stderr(tmp_path):
    t = builders.tournament(TORNEO)
    path = write(
        tmp_path,
        "\n".join(
            [
                HEADER,
                "1,1,Rosa Salinas & Tomás Uribe,Úrsula Vega & Víctor Zamora,100,40,no,no,",
                "1,2,Wendy Arce & Ximena Bravo,Yolanda Cano & Zacarías Díaz,99,98,no,no,",
                "1,3,Alma Ríos & Benito Sosa,Cira Tello & Doroteo Uribe,100,-5,no,no,",
            ]
        )
        + "\n",
    )
    out, err = StringIO(), StringIO()

    with pytest.raises(CommandError, match="2 línea"):
        call_command("import_domino_results", t.slug, path, stdout=out, stderr=err)

    lines = err.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == ["línea 3", "línea 4"]
    assert "99–98" in lines[0]
    assert (Result.objects.count(), Player.objects.count(), Entry.objects.count()) == (0, 0, 0)


def test_import_results_takes_the_format_of_the_tournaments_system(tmp_path):
    t = builders.tournament(TORNEO, mode="single")
    domino = write(tmp_path, f"{HEADER}\n1,1,Rosa Salinas,Tomás Uribe,100,40,no,no,\n")
    swiss = services.create_tournament(
        acting_user=None,
        name="Suizo de Prueba",
        date=dt.date(2026, 4, 18),
        system="swiss",
        status="running",
    )
    matches = write(
        tmp_path,
        "round,table,player_a,player_b,games_a,games_b,games_drawn,drop\n"
        "1,1,Ana Robles,Beto Sáenz,2,0,,b\n",
        name="encuentros.csv",
    )

    assert run("import_results", t.slug, domino)[0] == (
        "creados: 1, cambiados: 0, sin cambios: 0\n"
        "descansos: 0, jugadores nuevos: 2, inscripciones nuevas: 2\n"
        "jugadores creados: Rosa Salinas, Tomás Uribe\n"
    )
    assert run("import_results", swiss.slug, matches)[0] == (
        "creados: 1, cambiados: 0, sin cambios: 0\n"
        "descansos: 0, retirados: 1, jugadores nuevos: 2, inscripciones nuevas: 2\n"
        "jugadores creados: Ana Robles, Beto Sáenz\n"
    )
    # The dominó file is not a Swiss tournament's format: its header is refused.
    with pytest.raises(CommandError, match="La primera línea debe ser exactamente"):
        run("import_results", swiss.slug, domino)


def test_import_with_an_unknown_slug_is_a_command_error(tmp_path):
    path = write(tmp_path, HEADER + "\n")
    with pytest.raises(CommandError, match="no-existe"):
        run("import_domino_results", "no-existe", path)


def test_import_castigos_command_prints_how_many(tmp_path):
    t = builders.tournament(TORNEO, mode="single")
    run(
        "import_domino_results",
        t.slug,
        write(tmp_path, f"{HEADER}\n1,1,Rosa Salinas,Tomás Uribe,100,40,no,no,\n"),
    )
    path = write(
        tmp_path,
        "round,player,tantos,reason\n1,Tomás Uribe,15,Pasó con ficha\n",
        name="castigos.csv",
    )

    out, _err = run("import_castigos", t.slug, path)

    assert out == "castigos creados: 1\n"
    assert Castigo.objects.get().tantos == 15


def test_export_standings_writes_the_exact_csv_with_a_shared_position():
    t = builders.tournament(TORNEO, mode="single")
    amado, berta, ciro, dora = [
        services.register_entry(
            acting_user=None,
            tournament=t,
            players=[services.create_player(acting_user=None, full_name=name)],
        )
        for name in ("Amado Quiroga", "Berta Solís", "Ciro Treviño", "Dora Ulloa")
    ]
    rounds = {1: [([amado], [berta]), ([ciro], [dora])], 2: [([amado], [ciro]), ([berta], [dora])]}
    for number, tables in rounds.items():
        rnd = services.set_pairings(
            acting_user=None, tournament=t, round_number=number, tables=tables
        )
        for table in rnd.tables.all():
            services.record_result(
                acting_user=None, table=table, tantos_a=100, tantos_b=40, version=0
            )
    services.add_castigo(
        acting_user=None, tournament=t, player=dora.player1, tantos=5, reason="Ficha mal puesta"
    )

    out, _err = run("export_standings", t.slug)

    assert out == (
        "\ufeffposition,entry,played,won,puntos,tantos_a_favor,tantos_en_contra,castigos,"
        "efectividad,byes\n"
        "1,Amado Quiroga,2,2,4,200,80,0,120,0\n"
        "2,Berta Solís,2,1,2,140,140,0,0,0\n"
        "2,Ciro Treviño,2,1,2,140,140,0,0,0\n"
        "4,Dora Ulloa,2,0,0,80,200,5,-125,0\n"
    )


def test_create_tournament_says_its_planned_rounds_on_stderr():
    args = ["create_tournament", "--name", "Copa Rondas", "--date", "2026-05-09"]
    args += ["--system", "domino", "--mode", "pairs", "--target", "100"]
    out, err = run(*args)
    assert out == "copa-rondas-2026\n"  # stdout stays the slug alone: scripts read it
    assert err == (
        "Rondas previstas: 5 (por omisión; --rounds N para otro número). "
        "Las importaciones de más rondas: --rounds N.\n"
    )
    out, err = run(*args[:2], "Copa Siete", *args[3:], "--rounds", "7")
    assert out == "copa-siete-2026\n"
    assert err == "Rondas previstas: 7. Las importaciones de más rondas: --rounds N.\n"
    assert Tournament.objects.get(slug="copa-siete-2026").rounds_planned == 7


def test_an_import_beyond_the_planned_rounds_names_the_commands_option(tmp_path):
    t = builders.tournament(TORNEO, mode="single", rounds_planned=2)
    path = write(
        tmp_path,
        f"{HEADER}\n"
        "1,1,Rosa Salinas,Tomás Uribe,100,40,no,no,\n"
        "2,1,Rosa Salinas,Tomás Uribe,100,60,no,no,\n"
        "3,1,Rosa Salinas,Tomás Uribe,30,100,no,no,\n",
    )
    err = StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("import_results", t.slug, path, stdout=StringIO(), stderr=err)
    assert str(caught.value).endswith(
        "sube antes el número de rondas en los datos del torneo. El torneo tiene 2 rondas "
        "previstas: para importar más, repite el comando con --rounds N (N: las rondas que se "
        "juegan)."
    )
    assert err.getvalue().startswith("línea 4: El torneo tiene 2 rondas previstas")
    assert not Result.objects.filter(table__round__tournament=t).exists()

    out, _err = run("import_results", t.slug, path, "--rounds", "3")
    assert out.splitlines()[0] == "creados: 3, cambiados: 0, sin cambios: 0"
    t.refresh_from_db()
    assert t.rounds_planned == 3


def test_rounds_raised_by_an_import_that_is_refused_are_not_kept(tmp_path):
    t = builders.tournament(TORNEO, mode="single", rounds_planned=2)
    bad = write(tmp_path, f"{HEADER}\n1,1,Rosa Salinas,Tomás Uribe,100,100,no,no,\n")
    with pytest.raises(CommandError):
        run("import_results", t.slug, bad, "--rounds", "4")
    t.refresh_from_db()
    assert t.rounds_planned == 2
