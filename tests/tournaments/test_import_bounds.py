"""Files are bounded before they are parsed (issue 25: a 586 KB workbook holding 19 million
empty cells killed a worker). Written as an attacker would: workbooks made by hand, each aimed
at one bound (tournaments/imports/reading.py, docs/performance.md "Bounded inputs").

- the zip's directory, the one check a request makes (``reading.check_workbook``): too many
  parts, too large once unpacked, compressed like a zip bomb — refused before any part is
  unpacked;
- the XML, streamed before openpyxl reads it: too many elements, a row holding too much, a DTD;
- the first worksheet as openpyxl streams it: its declared dimension ignored, at most
  ``MAX_LINES`` rows of at most ``MAX_COLUMNS`` cells;
- the import page never parses a workbook: the request only checks its directory and queues
  a job (results or castigos), which parses it and records the import or the refusal.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import random
import time
import zipfile
from io import StringIO

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import timezone

from tests import builders
from tournaments import imports
from tournaments.imports import jobs, reading
from tournaments.imports.reading import ImportRefused
from tournaments.models import Castigo, ImportJob, Result

pytestmark = pytest.mark.django_db

SHEET = "xl/worksheets/sheet1.xml"
STYLES = "xl/styles.xml"
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
CASTIGOS = ("round", "player", "tantos", "reason")
RESULTS = ("round", "table", "side_a", "side_b", "tantos_a", "tantos_b")
RESULTS += ("ended_by_time", "forfeit", "played_at")
ROW = (1, 1, "Ana Sol", "Beto Mar", 100, 40, "no", "no", None)
CSV_ROW = "1,1,Ana Sol,Beto Mar,100,40,no,no,"
SHEET_NOTE = "Leída la primera hoja del archivo .xlsx: «Hoja»."

WIDE = (
    "La fila {row} tiene más de 60 columnas. Borra las columnas que sobran a la derecha de los "
    "datos (aunque parezcan vacías) y vuelve a importarlo."
)
TOO_BIG = (
    "El libro de cálculo es demasiado grande al descomprimirlo ({size} MB; como mucho 30 MB). "
    "Guarda solo la hoja de la importación como .xlsx o como «CSV UTF-8» y vuelve a importarlo."
)
BAD_XLSX = (
    "No se pudo leer el archivo como hoja de cálculo .xlsx. Guárdalo desde la hoja de cálculo "
    "como .xlsx o como «CSV UTF-8» y vuelve a importarlo."
)

#: A running mano a mano dominó to 100.
COPA = {
    "name": "Copa Acotada",
    "date": dt.date(2026, 10, 3),
    "mode": "single",
    "target": 100,
    "status": "running",
}


# --- workbooks made by hand ------------------------------------------------------------------


def workbook(rows=(RESULTS, ROW), *, parts: dict[str, bytes | str] | None = None) -> bytes:
    """A workbook of ``rows`` (first sheet «Hoja») saved by openpyxl, then with ``parts``
    written over its own (a part's XML as an attacker writes it) or added."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Hoja"
    for row in rows:
        sheet.append(list(row))
    saved = io.BytesIO()
    book.save(saved)
    parts = {k: v.encode() if isinstance(v, str) else v for k, v in (parts or {}).items()}
    source = zipfile.ZipFile(saved)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in source.infolist():
            z.writestr(info.filename, parts.pop(info.filename, None) or source.read(info))
        for name, data in parts.items():
            z.writestr(name, data)
    return out.getvalue()


def sheet_xml(rows: str, *, dimension: str = "") -> str:
    """A worksheet part: ``rows`` (XML) in its ``sheetData``, after ``dimension`` if given."""
    declared = f'<dimension ref="{dimension}"/>' if dimension else ""
    return f'<worksheet xmlns="{MAIN}">{declared}<sheetData>{rows}</sheetData></worksheet>'


def text_row(number: int, values) -> str:
    """Row ``number`` of inline-string and number cells."""
    cells = []
    for value in values:
        if isinstance(value, int):
            cells.append(f"<c><v>{value}</v></c>")
        else:
            cells.append(f'<c t="inlineStr"><is><t>{value}</t></is></c>')
    return f'<row r="{number}">{"".join(cells)}</row>'


@contextlib.contextmanager
def forbidden(*what: str):
    """Inside the block, what ``what`` names fails the test if it happens: "openpyxl" (opening
    a workbook), "unpacking" (a part of a zip), "reading" (``reading.open_file``, ``_xlsx``).
    The refusal, or the request's answer, must come before."""

    def fail(*args, **kwargs):
        raise AssertionError(f"called inside forbidden{what}")

    targets = {
        "openpyxl": [(openpyxl, "load_workbook")],
        "unpacking": [(zipfile.ZipFile, "open")],
        "reading": [(reading, "open_file"), (reading, "_xlsx")],
    }
    with pytest.MonkeyPatch.context() as patch:
        for name in what:
            for owner, attribute in targets[name]:
                patch.setattr(owner, attribute, fail)
        yield


#: A request may do none of these with a workbook.
IN_A_REQUEST = ("openpyxl", "unpacking", "reading")


def refusal(data) -> ImportRefused:
    """The refusal of ``open_file(data)``."""
    with pytest.raises(ImportRefused) as refused:
        reading.open_file(data)
    return refused.value


# --- the first worksheet as it streams ----------------------------------------------------------


def test_a_lying_dimension_is_ignored_and_only_the_real_cells_are_visited(monkeypatch):
    """The worker killer: a sheet that declares A1:XFD1048576 and holds one row. openpyxl in
    read-only mode pads every row to the declared width and the sheet to the declared height
    (16,384 × 1,048,576 cells); ignored, the row is read alone."""
    visited = []
    cell_text = reading._cell_text
    monkeypatch.setattr(reading, "_cell_text", lambda v: visited.append(v) or cell_text(v))
    rows = text_row(1, CASTIGOS) + text_row(2, [1, "Ana Sol", 5, "Tarde"])
    data = workbook(parts={SHEET: sheet_xml(rows, dimension="A1:XFD1048576")})
    assert len(data) < 10_000

    started = time.monotonic()
    source = reading.open_file(data)

    assert source.text == "round,player,tantos,reason\n1,Ana Sol,5,Tarde\n"
    assert len(visited) == 8
    assert time.monotonic() - started < 5


def test_a_row_of_twenty_thousand_empty_cells_is_refused_as_too_wide():
    data = workbook(parts={SHEET: sheet_xml('<row r="1">' + "<c/>" * 20_000 + "</row>")})

    refused = refusal(data)

    assert (refused.code, refused.message, refused.codes) == (
        "file_too_wide",
        WIDE.format(row=1),
        [(1, "file_too_wide")],
    )
    assert refused.listed == []  # one sentence, said once


def test_a_cell_far_to_the_right_makes_its_row_too_wide_at_that_row():
    """One empty cell at column 61 (BI) widens row 3 to 61 columns; at column XFD it would
    pad the row to 16,384."""
    rows = text_row(1, CASTIGOS) + text_row(2, [1, "Ana Sol", 5, "Tarde"])
    for ref in ("BI3", "XFD3"):
        data = workbook(parts={SHEET: sheet_xml(rows + f'<row r="3"><c r="{ref}"/></row>')})
        refused = refusal(data)
        assert (refused.code, refused.message) == ("file_too_wide", WIDE.format(row=3))
    sixty = sheet_xml(rows + '<row r="3"><c r="BH3"/></row>')  # read, its empty cells dropped
    assert reading.open_file(workbook(parts={SHEET: sixty})).text.endswith("Tarde\n\n")


def test_a_row_too_large_for_openpyxl_to_hold_is_refused_before_it_is_parsed():
    data = workbook(parts={SHEET: sheet_xml('<row r="7">' + "<c/>" * 100_000 + "</row>")})

    with forbidden("openpyxl"):
        refused = refusal(data)

    assert (refused.code, refused.message) == ("file_too_wide", WIDE.format(row=7))


def test_a_row_numbered_past_the_last_line_is_refused_without_reading_the_gap():
    rows = text_row(1, CASTIGOS) + text_row(1_048_576, [1, "Ana Sol", 5, "Tarde"])
    data = workbook(parts={SHEET: sheet_xml(rows, dimension="A1:XFD1048576")})

    refused = refusal(data)

    assert refused.code == "file_too_large"
    assert refused.codes == [(reading.MAX_LINES + 1, "file_too_large")]


# --- the XML, streamed before openpyxl reads it ------------------------------------------------


def test_styles_with_too_many_elements_are_refused_before_openpyxl_builds_them():
    """100,001 cell formats: each an object in openpyxl (about 1 KB and 15 µs), the part
    2.5 MB unpacked and compressed less than 10 to 1, so no other bound sees it."""
    rng = random.Random(25)
    formats = "".join(
        f'<xf numFmtId="{rng.randrange(1000)}" fontId="{rng.randrange(10)}"/>'
        for _ in range(reading.MAX_OTHER_ELEMENTS + 1)
    )
    styles = f'<styleSheet xmlns="{MAIN}"><cellXfs>{formats}</cellXfs></styleSheet>'

    with forbidden("openpyxl"):
        refused = refusal(workbook(parts={STYLES: styles}))

    assert refused.code == "xlsx_too_complex"
    assert refused.message.startswith(
        "El libro de cálculo tiene demasiado contenido para leerlo (más de 100000 elementos "
        "entre celdas, formatos y demás partes)."
    )


def test_rows_and_cells_past_their_budget_of_elements_are_refused(monkeypatch):
    """Light elements (rows, cells, strings) have a budget of their own, here made small."""
    monkeypatch.setattr(reading, "MAX_ELEMENTS", 500)
    rows = "".join(text_row(n, [n]) for n in range(1, 200))

    with forbidden("openpyxl"):
        refused = refusal(workbook(parts={SHEET: sheet_xml(rows)}))

    assert refused.code == "xlsx_too_complex"
    assert "(más de 500 elementos" in refused.message


def test_a_part_with_a_dtd_is_refused():
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>'
    )
    data = workbook(parts={SHEET: laughs + sheet_xml(text_row(1, ["&lol2;"]))})

    with forbidden("openpyxl"):
        refused = refusal(data)

    assert (refused.code, refused.message) == ("bad_xlsx", BAD_XLSX)


# --- the zip's directory: no part unpacked ------------------------------------------------------


def test_a_zip_bomb_is_refused_from_the_directory_alone():
    """41 MB of spaces in a sheet compress to some 40 KB; the directory declares the size."""
    bomb = workbook(parts={SHEET: sheet_xml(" " * (41 * 1024 * 1024))})
    assert len(bomb) < 100_000

    with forbidden(*IN_A_REQUEST), pytest.raises(ImportRefused) as refused:
        reading.check_workbook(bomb)
    assert (refused.value.code, refused.value.message) == ("xlsx_too_big", TOO_BIG.format(size=42))
    with forbidden("openpyxl", "unpacking"):
        refused = refusal(bomb)  # the job's reading, or a command's: the same check first
    assert (refused.code, refused.message) == ("xlsx_too_big", TOO_BIG.format(size=42))


def test_a_part_compressed_like_a_bomb_is_refused_under_the_size_bound():
    bomb = workbook(parts={"xl/media/image1.png": b"\0" * (20 * 1024 * 1024)})

    with forbidden("openpyxl", "unpacking"):
        refused = refusal(bomb)

    assert refused.code == "xlsx_bomb"
    assert refused.message.startswith(
        "El libro de cálculo está comprimido de una forma anómala (una de sus partes ocupa "
    )
    assert "; como mucho 100) y no se lee." in refused.message


def test_a_zip_of_too_many_parts_is_refused():
    many = {f"xl/media/{n}.bin": b"" for n in range(reading.MAX_PARTS)}

    data = workbook(parts=many)

    with forbidden("openpyxl", "unpacking"):
        refused = refusal(data)

    assert refused.code == "xlsx_too_many_parts"
    assert refused.message.startswith(
        "El libro de cálculo tiene demasiadas partes (1009; como mucho 1000)."
    )


def test_a_zip_that_is_no_workbook_is_refused_from_its_directory():
    other = io.BytesIO()
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
    for data in (other.getvalue(), b"PK\x03\x04 and nothing of a zip"):
        with forbidden(*IN_A_REQUEST), pytest.raises(ImportRefused) as refused:
            reading.check_workbook(data)
        assert (refused.value.code, refused.value.message) == ("bad_xlsx", BAD_XLSX)


# --- the import page: parsed in the job, never in the request ---------------------------------


def upload(client, t, data: bytes, *, kind="results", name="resultados.xlsx"):
    return client.post(
        reverse("manage:import", args=[t.slug]),
        {"kind": kind, "file": SimpleUploadedFile(name, data)},
    )


def test_an_xlsx_upload_is_queued_unread_and_the_job_imports_it(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(COPA, acting_user=director)
    data = workbook()

    with forbidden(*IN_A_REQUEST), django_capture_on_commit_callbacks() as queued:
        response = upload(director_client, t, data)

    job = ImportJob.objects.get()
    assert response.status_code == 302 and response.url == reverse(
        "manage:import_job", args=[t.slug, job.pk]
    )
    assert (job.status, job.kind, bytes(job.workbook), job.data) == (
        "queued",
        "results",
        data,
        "",
    )
    assert len(queued) == 1 and Result.objects.count() == 0

    queued[0]()  # the task, outside the request

    job.refresh_from_db()
    assert (job.status, bytes(job.workbook), job.report["created"]) == ("done", b"", 1)
    assert job.report["notes"] == [SHEET_NOTE]
    shown = director_client.get(response.url).context["report_messages"]
    assert shown[0] == ("success", "Resultados importados: creados 1, cambiados 0, sin cambios 0.")
    assert ("info", SHEET_NOTE) in shown


def test_a_workbook_the_bounds_refuse_is_the_jobs_refusal(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(COPA, acting_user=director)
    rows = text_row(1, RESULTS) + '<row r="2">' + "<c/>" * 20_000 + "</row>"
    data = workbook(parts={SHEET: sheet_xml(rows)})

    with forbidden(*IN_A_REQUEST), django_capture_on_commit_callbacks() as queued:
        response = upload(director_client, t, data)
    assert ImportJob.objects.get().status == "queued"
    queued[0]()

    job = ImportJob.objects.get()
    assert (job.status, job.report, bytes(job.workbook)) == ("failed", None, b"")
    assert job.refusal == {"summary": WIDE.format(row=2), "errors": []}
    page = director_client.get(response.url)
    assert WIDE.format(row=2) in page.content.decode()
    assert page.context["import_form"] is not None  # to send the corrected file


def test_a_workbook_refused_by_its_directory_is_refused_in_the_request_and_nothing_queued(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(COPA, acting_user=director)
    bomb = workbook(parts={SHEET: sheet_xml(" " * (41 * 1024 * 1024))})

    with forbidden(*IN_A_REQUEST), django_capture_on_commit_callbacks() as queued:
        response = upload(director_client, t, bomb)

    assert response.status_code == 400
    assert TOO_BIG.format(size=42) in response.content.decode()
    assert queued == [] and not ImportJob.objects.exists()


def test_a_file_over_five_megabytes_is_refused_before_it_is_read(director_client, director):
    t = builders.tournament(COPA, acting_user=director)

    response = upload(director_client, t, b"PK\x03\x04" + b"\0" * reading.MAX_FILE_BYTES)

    assert response.status_code == 400
    assert "El archivo pasa de 5 MB." in response.content.decode()
    assert not ImportJob.objects.exists()


@pytest.fixture
def castigos_tournament(director):
    """COPA with Ana Sol and Beto Mar entered, round 1 played and open."""
    t = builders.tournament(COPA, acting_user=director)
    imports.import_results(acting_user=director, tournament=t, data=workbook())
    return t


def test_a_castigos_workbook_is_a_job_too_and_its_page_says_what_the_request_said(
    director_client, director, castigos_tournament, django_capture_on_commit_callbacks
):
    t = castigos_tournament
    data = workbook([CASTIGOS, (1, "ana sol", 10, "Tarde")])

    with forbidden(*IN_A_REQUEST), django_capture_on_commit_callbacks() as queued:
        response = upload(director_client, t, data, kind="castigos", name="castigos.xlsx")

    job = ImportJob.objects.get()
    assert (job.status, job.kind) == ("queued", "castigos")
    assert not Castigo.objects.exists()
    queued[0]()

    job.refresh_from_db()
    loose = (
        "Línea 2: «ana sol» se tomó como «Ana Sol», que solo difiere en mayúsculas, acentos o "
        "espacios."
    )
    assert (job.status, job.report) == (
        "done",
        {"created": 1, "notes": [SHEET_NOTE], "warnings": [loose]},
    )
    assert list(Castigo.objects.values_list("player__full_name", "tantos")) == [("Ana Sol", 10)]
    page = director_client.get(response.url)
    assert page.context["report_messages"] == [
        ("success", "Castigos importados: 1."),
        ("info", SHEET_NOTE),
        ("warning", loose),
    ]
    assert "Castigos importados: 1." in page.content.decode()


def test_a_refused_castigos_workbook_lists_its_lines_on_the_job_page(
    director_client, director, castigos_tournament, django_capture_on_commit_callbacks
):
    t = castigos_tournament
    data = workbook([CASTIGOS, (1, "Nadie Conocido", 10, "Tarde"), (7, "Ana Sol", 5, "Habló")])

    with django_capture_on_commit_callbacks(execute=True):
        response = upload(director_client, t, data, kind="castigos", name="castigos.xlsx")

    job = ImportJob.objects.get()
    assert job.status == "failed" and not Castigo.objects.exists()
    assert job.refusal["summary"] == (
        "No se importó nada: 2 línea(s) con errores. Corrige el archivo y vuelve a importarlo."
    )
    assert [line for line, _message in job.refusal["errors"]] == [2, 3]
    assert job.refusal["notes"] == [SHEET_NOTE]
    body = director_client.get(response.url).content.decode()
    assert "No hay ningún jugador llamado «Nadie Conocido»." in body


def test_a_stalled_workbook_job_runs_again_with_its_workbook_and_kind(
    director, castigos_tournament, django_capture_on_commit_callbacks
):
    t = castigos_tournament
    data = workbook([CASTIGOS, (1, "Ana Sol", 10, "Tarde")])
    with django_capture_on_commit_callbacks():  # queued, never run: its worker stopped
        job = jobs.start_import(
            acting_user=director,
            tournament=t,
            kind="castigos",
            file_name="castigos.xlsx",
            workbook=data,
            language="es",
        )
    ImportJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - dt.timedelta(hours=1))

    with django_capture_on_commit_callbacks(execute=True):
        new = jobs.retry_import(ImportJob.objects.get(pk=job.pk), acting_user=director)

    new.refresh_from_db()
    assert (new.kind, new.status, new.report["created"]) == ("castigos", "done", 1)
    old = ImportJob.objects.get(pk=job.pk)
    assert (old.status, bytes(old.workbook), old.data) == ("failed", b"", "")


# --- the commands: the same bounds -------------------------------------------------------------


def test_a_command_refuses_a_workbook_beyond_the_bounds_in_words(director, tmp_path):
    t = builders.tournament(COPA, acting_user=director)
    path = tmp_path / "castigos.xlsx"
    path.write_bytes(workbook(parts={SHEET: sheet_xml('<row r="4"><c r="XFD4"/></row>')}))

    with pytest.raises(CommandError) as caught:
        call_command("import_castigos", t.slug, str(path), stdout=StringIO(), stderr=StringIO())

    assert str(caught.value) == WIDE.format(row=4)
