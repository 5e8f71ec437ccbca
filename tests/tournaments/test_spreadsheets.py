"""Spreadsheets as people have them (tournaments/imports/reading.py, tournaments/exports.py,
rankings/exports.py, tournaments/views/downloads.py).

In: a results or castigos file separated by commas, semicolons or tabs, in UTF-8 (with or
without a byte-order mark), UTF-16 with a BOM or Windows-1252 (the report says so), or an
.xlsx workbook with the same columns; a file with the header alone is refused in words; a
refusal of the whole file is said once; the players an import created are named; a name that
differs from a player's only in case, accents or spacing is taken (and said) when one player
fits, refused when several do, on every path.

Out: every CSV starts with a UTF-8 BOM; for people the figures are rounded as the pages show
them (CSV and .xlsx), the exact form (``?precision=full``, ``--full-precision``) keeps every
float."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from io import StringIO

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from rankings import queries
from tests import builders
from tournaments import imports, services
from tournaments.imports import ImportRefused, import_castigos
from tournaments.models import Castigo, ImportJob, Player, Result
from tournaments.views.manage.tournaments import new_players_text

pytestmark = pytest.mark.django_db

HEADER = ("round", "table", "side_a", "side_b", "tantos_a", "tantos_b")
HEADER += ("ended_by_time", "forfeit", "played_at")
ROWS = [
    ("1", "1", "José Pérez", "Rosa Quintana", "100", "40", "no", "no", ""),
    ("1", "2", "Tomás Ulloa", "Úrsula Vega", "35", "100", "no", "no", "2026-10-03 18:45"),
]
NEW = ["José Pérez", "Rosa Quintana", "Tomás Ulloa", "Úrsula Vega"]
CP1252_NOTE = "Leído como Windows-1252 (no era UTF-8)."
NO_ROWS = "El archivo no tiene filas de resultados: solo la primera línea."
LOOSE = (
    "Línea {line}: «{typed}» se tomó como «{name}», que solo difiere en mayúsculas, acentos o "
    "espacios."
)
AMBIGUOUS = (
    "«{typed}» no es exactamente el nombre de ningún jugador y solo difiere en mayúsculas, "
    "acentos o espacios del de 2: «Jose Perez» y «José Pérez». Escribe en el archivo el nombre "
    "exacto del que corresponda."
)


#: A running mano a mano dominó to 100 (its director: who creates it).
HOJAS = {
    "name": "Copa Hojas",
    "date": dt.date(2026, 10, 3),
    "mode": "single",
    "target": 100,
    "status": "running",
}


def text(rows=ROWS, *, sep=",", header=HEADER) -> str:
    return "\n".join(sep.join(r) for r in [header, *rows]) + "\n"


def workbook(rows, *, title="Resultados", extra_sheet=False) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = title
    for row in rows:
        sheet.append(list(row))
    if extra_sheet:
        book.create_sheet("Notas").append(["no se lee"])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def stored() -> list[tuple]:
    """Every result: (round, table, side A names, side B names, tantos A, tantos B)."""
    out = []
    for r in Result.objects.select_related("table__round").order_by(
        "table__round__number", "table__number"
    ):
        tbl = r.table
        out.append(
            (tbl.round.number, tbl.number, tbl.side_name("A"), tbl.side_name("B"))
            + (r.tantos_a, r.tantos_b)
        )
    return out


EXPECTED = [
    (1, 1, "José Pérez", "Rosa Quintana", 100, 40),
    (1, 2, "Tomás Ulloa", "Úrsula Vega", 35, 100),
]


def upload(client, t, data: bytes, name="resultados.csv", kind="results"):
    return client.post(
        reverse("manage:import", args=[t.slug]),
        {"kind": kind, "file": SimpleUploadedFile(name, data)},
    )


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


# --- separators and encodings ------------------------------------------------------------------


@pytest.mark.parametrize("sep", [",", ";", "\t"], ids=["comma", "semicolon", "tab"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"], ids=["no_bom", "bom"])
def test_comma_semicolon_and_tab_files_with_or_without_bom_import_the_same(director, sep, bom):
    t = builders.tournament(HOJAS, acting_user=director)
    data = bom + text(sep=sep).encode("utf-8")

    report = imports.import_results(acting_user=director, tournament=t, data=data)

    assert (report.created, report.players_created, report.new_players) == (2, 4, NEW)
    assert (report.notes, report.warnings) == ([], [])
    assert stored() == EXPECTED


def test_a_semicolon_file_keeps_commas_inside_its_cells(director):
    t = builders.tournament(HOJAS, acting_user=director)
    rows = [("1", "1", '"Pérez, José"', "Rosa Quintana", "100", "40", "no", "no", "")]
    report = imports.import_results(
        acting_user=director, tournament=t, data=text(rows, sep=";").encode()
    )
    assert report.new_players == ["Pérez, José", "Rosa Quintana"]


def test_a_windows_1252_file_imports_and_the_report_says_how_it_was_read(director):
    t = builders.tournament(HOJAS, acting_user=director)
    data = text(sep=";").encode("cp1252")
    assert "Pérez".encode("cp1252") in data and b"\xe9" in data  # not UTF-8

    report = imports.import_results(acting_user=director, tournament=t, data=data)

    assert report.notes == [CP1252_NOTE]
    assert stored() == EXPECTED
    assert Player.objects.filter(full_name="José Pérez").count() == 1


def test_a_utf16_tab_file_imports_as_a_spreadsheets_unicode_text(director):
    t = builders.tournament(HOJAS, acting_user=director)
    data = text(sep="\t").encode("utf-16")  # with its BOM, as "Unicode text" saves it

    report = imports.import_results(acting_user=director, tournament=t, data=data)

    assert report.notes == ["Leído como UTF-16."]
    assert stored() == EXPECTED


def test_the_page_reports_the_encoding_it_read(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(HOJAS, acting_user=director)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(director_client, t, text(sep=";").encode("cp1252"))

    job = ImportJob.objects.get()
    assert (job.status, job.report["notes"]) == ("done", [CP1252_NOTE])
    shown = director_client.get(response.url).context["report_messages"]
    assert shown == [
        ("success", "Resultados importados: creados 2, cambiados 0, sin cambios 0."),
        ("info", CP1252_NOTE),
        (
            "info",
            "Jugadores nuevos (4): «José Pérez», «Rosa Quintana», «Tomás Ulloa» y «Úrsula Vega».",
        ),
    ]


def test_a_refused_windows_1252_file_still_says_how_it_was_read(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(HOJAS, acting_user=director)
    rows = [("1", "1", "José Pérez", "Rosa Quintana", "99", "98", "no", "no", "")]
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(director_client, t, text(rows).encode("cp1252"))

    job = ImportJob.objects.get()
    assert job.status == "failed" and job.report is None
    assert job.refusal["notes"] == [CP1252_NOTE]
    body = director_client.get(response.url).content.decode()
    assert f"<li>{CP1252_NOTE}</li>" in body


def test_the_command_notes_the_encoding_on_stderr(director, tmp_path):
    t = builders.tournament(HOJAS)
    path = tmp_path / "resultados.csv"
    path.write_bytes(text(sep=";").encode("cp1252"))

    out, err = run("import_results", t.slug, str(path))

    assert err == f"nota: {CP1252_NOTE}\n"
    assert out.splitlines() == [
        "creados: 2, cambiados: 0, sin cambios: 0",
        "descansos: 0, jugadores nuevos: 4, inscripciones nuevas: 4",
        "jugadores creados: José Pérez, Rosa Quintana, Tomás Ulloa, Úrsula Vega",
    ]


def test_bytes_no_encoding_reads_are_refused_with_their_line(director):
    t = builders.tournament(HOJAS, acting_user=director)
    data = text().encode() + b"2,1,Pe\x81a,Rosa Quintana,100,0,no,no,\n"
    with pytest.raises(ImportRefused) as refused:
        imports.import_results(acting_user=director, tournament=t, data=data)
    assert refused.value.codes == [(4, "bad_encoding")]
    assert refused.value.message == (
        "El archivo no está en UTF-8 ni en Windows-1252 (hay un carácter no válido en la línea "
        "4). Guárdalo desde la hoja de cálculo como «CSV UTF-8» o como .xlsx y vuelve a "
        "importarlo."
    )


def test_a_wrong_header_in_a_semicolon_file_is_shown_as_read(director):
    t = builders.tournament(HOJAS, acting_user=director)
    with pytest.raises(ImportRefused) as refused:
        imports.import_results(
            acting_user=director, tournament=t, data=b"ronda;mesa;a;b\n1;1;x;y\n"
        )
    assert refused.value.code == "bad_header"
    assert refused.value.message == (
        "La primera línea debe ser exactamente «round,table,side_a,side_b,tantos_a,tantos_b,"
        "ended_by_time,forfeit,played_at» (separada por comas, puntos y comas o tabuladores); "
        "se encontró «ronda,mesa,a,b»."
    )


def test_a_line_with_other_separators_is_refused_naming_its_fields(director):
    t = builders.tournament(HOJAS, acting_user=director)
    data = text(sep=";") + "1,3,Ana Sol,Beto Mar,100,0,no,no,\n"
    with pytest.raises(ImportRefused) as refused:
        imports.import_results(acting_user=director, tournament=t, data=data)
    assert refused.value.errors == [
        (
            4,
            "La línea tiene 1 campo(s); se esperaban 9, separados como los de la primera línea.",
        )
    ]


# --- .xlsx -------------------------------------------------------------------------------------


def xlsx_rows():
    """The same results as ``ROWS``, as a spreadsheet holds them: numbers, a date-time cell,
    empty cells, a blank row between."""
    return [
        HEADER,
        (1, 1, "José Pérez", "Rosa Quintana", 100, 40.0, "no", "no", None),
        (None,) * 9,
        (
            1,
            2,
            "Tomás Ulloa",
            "Úrsula Vega",
            35,
            100,
            False,
            "no",
            dt.datetime(2026, 10, 3, 18, 45),
        ),
    ]


def test_an_xlsx_workbook_imports_the_same_as_the_csv(director):
    t = builders.tournament(HOJAS, acting_user=director)
    data = workbook(xlsx_rows(), extra_sheet=True)
    assert data.startswith(b"PK\x03\x04")

    report = imports.import_results(acting_user=director, tournament=t, data=data)

    assert report.notes == ["Leída la primera hoja del archivo .xlsx: «Resultados»."]
    assert (report.created, report.new_players) == (2, NEW)
    assert stored() == EXPECTED
    played = Result.objects.get(table__number=2).table
    assert played.round.tournament_id == t.pk


def test_an_xlsx_refusal_counts_lines_as_rows(director):
    t = builders.tournament(HOJAS, acting_user=director)
    rows = xlsx_rows()
    rows[3] = (1, 2, "Tomás Ulloa", "Úrsula Vega", 99, 98, "no", "no", None)
    with pytest.raises(ImportRefused) as refused:
        imports.import_results(acting_user=director, tournament=t, data=workbook(rows))
    assert refused.value.codes == [(4, "no_side_reached_target")]
    assert Result.objects.count() == 0


def test_an_xlsx_upload_goes_through_the_page(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(HOJAS, acting_user=director)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(director_client, t, workbook(xlsx_rows()), name="resultados.xlsx")

    assert ImportJob.objects.get().status == "done"
    assert stored() == EXPECTED
    shown = director_client.get(response.url).context["report_messages"]
    assert ("info", "Leída la primera hoja del archivo .xlsx: «Resultados».") in shown


def test_the_import_form_accepts_xlsx_and_says_what_it_reads(director_client, director):
    t = builders.tournament(HOJAS, acting_user=director)
    body = director_client.get(reverse("manage:tournament", args=[t.slug])).content.decode()
    assert 'accept=".csv,.txt,.tsv,.xlsx,' in body
    assert (
        "Se leen archivos CSV (columnas separadas por comas, puntos y comas o tabuladores; "
        "UTF-8, UTF-16 o Windows-1252) y hojas .xlsx (la primera hoja, con las mismas columnas)."
    ) in body


def test_an_old_xls_and_a_zip_that_is_no_workbook_are_refused_in_words(director):
    t = builders.tournament(HOJAS, acting_user=director)
    old = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64
    other = io.BytesIO()
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
    for data, code, message in [
        (
            old,
            "xls_file",
            "Los archivos .xls (Excel 97–2003) no se leen. Guárdalo desde la hoja de cálculo "
            "como .xlsx o como «CSV UTF-8» y vuelve a importarlo.",
        ),
        (
            other.getvalue(),
            "bad_xlsx",
            "No se pudo leer el archivo como hoja de cálculo .xlsx. Guárdalo desde la hoja de "
            "cálculo como .xlsx o como «CSV UTF-8» y vuelve a importarlo.",
        ),
    ]:
        with pytest.raises(ImportRefused) as refused:
            imports.import_results(acting_user=director, tournament=t, data=data)
        assert (refused.value.code, refused.value.message) == (code, message)


def test_castigos_from_an_xlsx_workbook_through_the_command(tmp_path):
    t = builders.tournament(HOJAS)
    imports.import_results(acting_user=None, tournament=t, data=text())
    path = tmp_path / "castigos.xlsx"
    path.write_bytes(
        workbook([("round", "player", "tantos", "reason"), (1, "jose perez", 10, "Tarde")])
    )

    out, err = run("import_castigos", t.slug, str(path))

    assert out == "castigos creados: 1\n"
    assert err == (
        "nota: Leída la primera hoja del archivo .xlsx: «Resultados».\n"
        "aviso: " + LOOSE.format(line=2, typed="jose perez", name="José Pérez") + "\n"
    )
    assert list(Castigo.objects.values_list("player__full_name", "tantos")) == [("José Pérez", 10)]


# --- a file with the header alone, a refusal said once ------------------------------------------


def test_a_header_only_file_is_refused_in_words(director):
    t = builders.tournament(HOJAS, acting_user=director)
    # Blank lines, and the empty rows a spreadsheet writes (",,,,"), are no rows.
    blank_rows = (text(rows=[]) + ",,,,,,,,\n\n", (text(rows=[], sep=";") + ";;;;;;;;\n").encode())
    for data in (text(rows=[]), *blank_rows):
        with pytest.raises(ImportRefused) as refused:
            imports.import_results(acting_user=director, tournament=t, data=data)
        assert (refused.value.code, refused.value.message) == ("no_rows", NO_ROWS)
    with pytest.raises(ImportRefused) as refused:
        import_castigos(acting_user=director, tournament=t, data="round,player,tantos,reason\n")
    assert refused.value.message == "El archivo no tiene filas de castigos: solo la primera línea."


def test_the_page_refuses_a_header_only_file_at_once_saying_it_once(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(HOJAS, acting_user=director)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = upload(director_client, t, text(rows=[]).encode())

    assert response.status_code == 400
    assert callbacks == [] and not ImportJob.objects.exists()
    assert response.context["import_form"].non_field_errors() == [NO_ROWS]
    assert response.context["import_errors"] == []
    assert response.content.decode().count(NO_ROWS) == 1


def test_a_refusal_of_the_whole_file_is_shown_once_and_bad_lines_each_once(
    director_client, director
):
    t = builders.tournament(HOJAS, acting_user=director)
    response = upload(director_client, t, b"round,table\n1,2\n")
    body = response.content.decode()
    assert response.status_code == 400
    assert body.count("La primera línea debe ser exactamente") == 1

    response = upload(
        director_client,
        t,
        b"round,player,tantos,reason\n9,Nadie,5,x\n,Nadie,0,y\n",
        kind="castigos",
    )
    body = response.content.decode()
    assert response.status_code == 400
    summary = (
        "No se importó nada: 2 línea(s) con errores. Corrige el archivo y vuelve a importarlo."
    )
    assert response.context["import_form"].non_field_errors() == [summary]
    assert response.context["import_errors"] == [
        (2, "La ronda 9 no existe en este torneo."),
        (3, "No hay ningún jugador llamado «Nadie»."),
    ]
    for text_shown in [summary, *(message for _line, message in response.context["import_errors"])]:
        assert body.count(text_shown) == 1, text_shown


def test_the_command_says_a_whole_file_refusal_once(tmp_path):
    t = builders.tournament(HOJAS)
    path = tmp_path / "r.csv"
    path.write_text(",".join(HEADER) + "\n")
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError) as caught:
        call_command("import_results", t.slug, str(path), stdout=out, stderr=err)
    assert str(caught.value) == NO_ROWS
    assert err.getvalue() == ""


# --- the players an import created -------------------------------------------------------------


def test_new_players_are_named_up_to_fifty_then_counted():
    assert new_players_text(["Ana Sol"]) == "Jugador nuevo: «Ana Sol»."
    names = [f"Jugador {n:02}" for n in range(1, 53)]
    shown = new_players_text(names)
    assert shown.startswith("Jugadores nuevos (52): «Jugador 01», «Jugador 02», ")
    assert shown.endswith("«Jugador 49», «Jugador 50» y 2 más.")


# --- names up to case, accents and spacing ------------------------------------------------------


@pytest.fixture
def jose_and_rosa(db):
    return [
        services.create_player(acting_user=None, full_name=n)
        for n in ("José Pérez", "Rosa Quintana")
    ]


@pytest.mark.parametrize("sep", [";", "\t"], ids=["semicolon", "tab"])
def test_a_loose_name_in_a_semicolon_or_tab_file_is_matched_and_reported(
    director, jose_and_rosa, sep
):
    t = builders.tournament(HOJAS, acting_user=director)
    rows = [("1", "1", "JOSE  PEREZ", "rosa quintana", "100", "40", "no", "no", "")]
    report = imports.import_results(
        acting_user=director, tournament=t, data=text(rows, sep=sep).encode("cp1252")
    )
    assert report.warnings == [
        LOOSE.format(line=2, typed="JOSE PEREZ", name="José Pérez"),
        LOOSE.format(line=2, typed="rosa quintana", name="Rosa Quintana"),
    ]
    assert (report.players_created, report.new_players) == (0, [])
    assert Player.objects.count() == 2


def test_an_ambiguous_loose_name_in_a_workbook_is_refused(director, jose_and_rosa):
    services.create_player(acting_user=None, full_name="Jose Perez")
    t = builders.tournament(HOJAS, acting_user=director)
    rows = [HEADER, (1, 1, "JOSE PEREZ", "Rosa Quintana", 100, 40, "no", "no", None)]
    with pytest.raises(ImportRefused) as refused:
        imports.import_results(acting_user=director, tournament=t, data=workbook(rows))
    assert refused.value.codes == [(2, "ambiguous_player_similar")]
    assert refused.value.errors == [(2, AMBIGUOUS.format(typed="JOSE PEREZ"))]
    assert (Player.objects.count(), Result.objects.count()) == (3, 0)


def test_castigos_through_the_page_take_a_loose_name_and_say_so(director_client, director):
    t = builders.tournament(HOJAS, acting_user=director)
    imports.import_results(acting_user=director, tournament=t, data=text())
    data = "round;player;tantos;reason\n1;JOSE PEREZ;5;Habló\n".encode("cp1252")

    response = upload(director_client, t, data, kind="castigos")

    assert response.status_code == 302
    shown = [
        (m.level_tag, m.message) for m in director_client.get(response.url).context["messages"]
    ]
    assert shown == [
        ("success", "Castigos importados: 1."),
        ("info", CP1252_NOTE),
        ("warning", LOOSE.format(line=2, typed="JOSE PEREZ", name="José Pérez")),
    ]


def test_castigos_through_the_command_refuse_an_ambiguous_name(tmp_path):
    t = builders.tournament(HOJAS)
    imports.import_results(acting_user=None, tournament=t, data=text())
    other = services.create_player(acting_user=None, full_name="Jose Perez")
    services.register_entry(acting_user=None, tournament=t, players=[other])
    path = tmp_path / "castigos.csv"
    path.write_text("round\tplayer\ttantos\treason\n1\tJOSE PEREZ\t5\tHabló\n", encoding="utf-8")
    out, err = StringIO(), StringIO()

    with pytest.raises(CommandError) as caught:
        call_command("import_castigos", t.slug, str(path), stdout=out, stderr=err)

    assert str(caught.value).endswith(AMBIGUOUS.format(typed="JOSE PEREZ"))
    assert err.getvalue() == f"línea 2: {AMBIGUOUS.format(typed='JOSE PEREZ')}\n"
    assert Castigo.objects.count() == 0


# --- exports -----------------------------------------------------------------------------------

BOM = b"\xef\xbb\xbf"


@pytest.fixture
def rated(django_capture_on_commit_callbacks):
    """One rated game of 2026, 100–95: both players start at 1500 (expected 0.5); obtained
    0.55 + 0.45 × 5/100 = 0.5725, K 32: +2.32 and −2.32 (1502.32, 1497.68)."""
    with django_capture_on_commit_callbacks(execute=True):
        t = builders.tournament(HOJAS, name="Copa Redondeo")
        imports.import_results(
            acting_user=None,
            tournament=t,
            data=text([("1", "1", "Ana Sol", "Beto Mar", "100", "95", "no", "no", "")]),
        )
    return t


def xlsx_values(content: bytes):
    book = openpyxl.load_workbook(io.BytesIO(content))
    sheet = book.worksheets[0]
    return sheet, [list(r) for r in sheet.iter_rows(values_only=True)]


def test_every_csv_download_starts_with_a_bom_and_names_its_exact_form(client, rated):
    ana = Player.objects.get(full_name="Ana Sol")
    for url, name in [
        (reverse("public:standings_csv", args=[rated.slug]), "copa-redondeo-2026-clasificacion"),
        (reverse("rankings:ranking_csv", args=[2026]), "ranking-2026"),
        (reverse("rankings:ledger_csv", args=[2026]), "partidas-2026"),
        (reverse("rankings:player_csv", args=[ana.pk]), f"ledger-{ana.pk}"),
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        assert response.content.startswith(BOM), url
        assert response["Content-Disposition"] == f'attachment; filename="{name}.csv"'
        exact = client.get(url + "?precision=full")
        assert exact.content.startswith(BOM), url
        assert exact["Content-Disposition"] == f'attachment; filename="{name}-exacto.csv"'


def test_the_ranking_for_people_is_rounded_as_the_page_and_the_exact_form_keeps_the_floats(
    client, rated
):
    people = client.get(reverse("rankings:ranking_csv", args=[2026])).content.decode("utf-8-sig")
    assert people == (
        "position,player,rating,games,change\n1,Ana Sol,1502.3,1,2.3\n2,Beto Mar,1497.7,1,-2.3\n"
    )
    assert "1502,3" in client.get(reverse("rankings:ranking") + "?year=2026").content.decode()

    lines = queries.year_ranking(2026)
    exact = client.get(reverse("rankings:ranking_csv", args=[2026]) + "?precision=full")
    rows = list(csv.reader(io.StringIO(exact.content.decode("utf-8-sig"))))
    assert rows[1:] == [
        ["1", "Ana Sol", repr(lines[0].rating), "1", repr(lines[0].change)],
        ["2", "Beto Mar", repr(lines[1].rating), "1", repr(lines[1].change)],
    ]
    assert float(rows[1][2]) == lines[0].rating and abs(lines[0].rating - 1502.32) < 1e-9


def test_the_commands_write_the_same_as_the_links(client, rated):
    out, _err = run("export_ranking", "--year", "2026")
    assert out.encode() == client.get(reverse("rankings:ranking_csv", args=[2026])).content
    out, _err = run("export_ranking", "--year", "2026", "--full-precision")
    url = reverse("rankings:ranking_csv", args=[2026]) + "?precision=full"
    assert out.encode() == client.get(url).content
    out, _err = run("export_ledger", "--year", "2026")
    assert out.encode() == client.get(reverse("rankings:ledger_csv", args=[2026])).content
    out, _err = run("export_standings", rated.slug, "--full-precision")
    url = reverse("public:standings_csv", args=[rated.slug]) + "?precision=full"
    assert out.encode() == client.get(url).content


def test_the_ledger_for_people_is_rounded_as_the_pages(client, rated):
    body = client.get(reverse("rankings:ledger_csv", args=[2026])).content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(body)))
    assert [r[1:] for r in rows[1:]] == [
        ["Copa Redondeo", "1", "1", "Ana Sol", "0"]
        + ["1500.0", "1500.0", "1500.0", "0.500", "0.573", "32.00", "1502.3"],
        ["Copa Redondeo", "1", "1", "Beto Mar", "0"]
        + ["1500.0", "1500.0", "1500.0", "0.500", "0.428", "32.00", "1497.7"],
    ]
    assert dt.datetime.fromisoformat(rows[1][0]).date() == dt.date(2026, 10, 3)


def test_the_xlsx_downloads_hold_the_rounded_values(client, rated):
    response = client.get(reverse("rankings:ranking_xlsx", args=[2026]))
    assert response["Content-Type"] == (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    assert response["Content-Disposition"] == 'attachment; filename="ranking-2026.xlsx"'
    sheet, rows = xlsx_values(response.content)
    assert sheet.title == "Ranking 2026"
    assert rows == [
        ["position", "player", "rating", "games", "change"],
        [1, "Ana Sol", 1502.3, 1, 2.3],
        [2, "Beto Mar", 1497.7, 1, -2.3],
    ]
    assert sheet["C2"].number_format == "0.0" and sheet.freeze_panes == "A2"

    _sheet, rows = xlsx_values(client.get(reverse("rankings:ledger_xlsx", args=[2026])).content)
    assert rows[0][:5] == ["date", "tournament", "round", "table", "player"]
    assert rows[1][1:] == ["Copa Redondeo", 1, 1, "Ana Sol", 0, 1500, 1500, 1500] + [
        0.5,
        0.573,
        32,
        1502.3,
    ]
    assert isinstance(rows[1][0], dt.datetime) and rows[1][0].date() == dt.date(2026, 10, 3)

    sheet, rows = xlsx_values(
        client.get(reverse("public:standings_xlsx", args=[rated.slug])).content
    )
    assert sheet.title == "Clasificación"
    assert rows == [
        ["position", "entry", "played", "won", "puntos", "tantos_a_favor", "tantos_en_contra"]
        + ["castigos", "efectividad", "byes"],
        [1, "Ana Sol", 1, 1, 1, 100, 95, 0, 5, 0],
        [2, "Beto Mar", 1, 0, 0, 95, 100, 0, -5, 0],
    ]


def test_a_formula_name_is_text_in_the_xlsx_and_escaped_in_the_csv(client):
    t = builders.tournament(HOJAS, name="Copa Fórmulas")
    imports.import_results(
        acting_user=None,
        tournament=t,
        data=text([("1", "1", '"=HYPERLINK(""x"")"', "-Raro", "100", "95", "no", "no", "")]),
    )
    sheet, rows = xlsx_values(client.get(reverse("public:standings_xlsx", args=[t.slug])).content)
    assert [r[1] for r in rows[1:]] == ['=HYPERLINK("x")', "-Raro"]
    assert (sheet["B2"].data_type, sheet["B3"].data_type) == ("s", "s")
    body = client.get(reverse("public:standings_csv", args=[t.slug])).content.decode("utf-8-sig")
    assert body.splitlines()[1:] == [
        '1,"\'=HYPERLINK(""x"")",1,1,1,100,95,0,5,0',
        "2,'-Raro,1,0,0,95,100,0,-5,0",
    ]


def swiss_tie():
    """The Swiss tie of test_swiss_imports (``test_swiss_csv_shares_the_position_of_a_tie``)."""
    t = builders.tournament(
        name="Suizo Hojas",
        date=dt.date(2026, 6, 13),
        system="swiss",
        mode="single",
        status="running",
    )
    header = "round,table,player_a,player_b,games_a,games_b,games_drawn,drop"
    lines = [
        "1,1,Ana Robles,Beto Sáenz,2,0,,",
        "1,2,Ciro Téllez,Dora Uribe,2,0,,",
        "2,1,Ana Robles,Dora Uribe,2,0,,",
        "2,2,Ciro Téllez,Beto Sáenz,2,0,,",
    ]
    imports.import_results(acting_user=None, tournament=t, data="\n".join([header, *lines]))
    return t


def test_swiss_percentages_for_people_are_the_pages_and_exact_the_shares(client):
    t = swiss_tie()
    url = reverse("public:standings_csv", args=[t.slug])
    people = client.get(url).content.decode("utf-8-sig")
    exact = client.get(url + "?precision=full").content.decode("utf-8-sig")
    # MWP 0 and GWP 0 floor at 0.33 (33.00 %); GWP 1 is 100.00 %.
    assert people.splitlines() == [
        "position,entry,match_points,wins,losses,draws,byes,omw,gwp,ogw",
        "1,Ana Robles,6,2,0,0,0,33.00,100.00,33.00",
        "1,Ciro Téllez,6,2,0,0,0,33.00,100.00,33.00",
        "3,Beto Sáenz,0,0,2,0,0,100.00,33.00,100.00",
        "3,Dora Uribe,0,0,2,0,0,100.00,33.00,100.00",
    ]
    assert exact.splitlines()[1] == "1,Ana Robles,6,2,0,0,0,0.330000,1.000000,0.330000"
    page = client.get(reverse("public:standings", args=[t.slug])).content.decode()
    assert "33,00" in page and "100,00" in page
    _sheet, rows = xlsx_values(client.get(reverse("public:standings_xlsx", args=[t.slug])).content)
    assert rows[1] == [1, "Ana Robles", 6, 2, 0, 0, 0, 33, 100, 33]


def test_the_pages_link_every_download(client, rated):
    body = client.get(reverse("public:standings", args=[rated.slug])).content.decode()
    base = reverse("public:standings_csv", args=[rated.slug])
    assert f'href="{reverse("public:standings_xlsx", args=[rated.slug])}"' in body
    assert f'href="{base}?precision=full"' in body
    body = client.get(reverse("rankings:ranking") + "?year=2026").content.decode()
    for name in ("ranking_xlsx", "ledger_csv", "ledger_xlsx"):
        assert f'href="{reverse("rankings:" + name, args=[2026])}"' in body, name
    assert f'href="{reverse("rankings:ranking_csv", args=[2026])}?precision=full"' in body
    assert f'href="{reverse("rankings:ledger_csv", args=[2026])}?precision=full"' in body
    ana = Player.objects.get(full_name="Ana Sol")
    body = client.get(reverse("rankings:player", args=[ana.pk])).content.decode()
    assert f'href="{reverse("rankings:player_csv", args=[ana.pk])}?precision=full"' in body
