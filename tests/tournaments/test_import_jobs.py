"""Results imports in the background (tournaments/imports/jobs.py, tournaments/progress.py): the import
page queues a job and shows its progress, then its outcome; the command shows a progress bar.

The tasks run on the immediate backend (tests/conftest.py ``tasks_run_at_once``): the job is
enqueued when its row commits, so a test that posts the form runs the task inside
``django_capture_on_commit_callbacks(execute=True)``. The running worker (``manage.py
db_worker``) is checked by hand in a browser (see the report of the change)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import threading
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection, connections, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests import builders
from tournaments import progress, services
from tournaments.imports import RESULTS_HEADER, ImportRefused, import_domino_results
from tournaments.imports import jobs as tasks
from tournaments.management.commands._common import ProgressBar
from tournaments.models import ImportJob, Player, Result, Table

pytestmark = pytest.mark.django_db

HEADER = ",".join(RESULTS_HEADER)
P1 = "Aurora Blanco & Bruno Castillo"
P2 = "Carmen Dávila & Diego Esparza"
P3 = "Elena Fuentes & Fabián Garza"
P4 = "Gloria Hinojosa & Héctor Ibáñez"


def csv_text(*lines: str) -> str:
    return "\n".join([HEADER, *lines]) + "\n"


ROUND_ONE = csv_text(f"1,1,{P1},{P2},100,0,no,no,", f"1,2,{P3},{P4},45,100,no,no,")
NEW_PLAYERS = [name for pair in (P1, P2, P3, P4) for name in pair.split(" & ")]
REFUSED = csv_text(f"1,1,{P1},{P2},100,0,no,no,", f"1,2,{P3},{P4},99,98,no,no,")
LINE_3 = "Ningún lado llegó a 100 tantos (99–98); si la partida terminó por tiempo, márcalo."
SUMMARY = "No se importó nada: 1 línea(s) con errores. Corrige el archivo y vuelve a importarlo."
STOPPED = (
    "La importación parece detenida: no avanza desde hace más de 5 minutos. No se ha guardado "
    "nada (se guarda todo o nada)."
)


#: The tournament the uploads go to: a running dominó of pairs to 100.
COPA = {
    "name": "Copa Importada",
    "date": dt.date(2026, 3, 7),
    "mode": "pairs",
    "target": 100,
    "status": "running",
}


def upload(client, t, text: str, name="resultados.csv"):
    return client.post(
        reverse("manage:import", args=[t.slug]),
        {"kind": "results", "file": SimpleUploadedFile(name, text.encode())},
    )


def job_url(job) -> str:
    return reverse("manage:import_job", args=[job.tournament.slug, job.pk])


def stored() -> tuple[int, int, int]:
    return Result.objects.count(), Table.objects.count(), Player.objects.count()


@pytest.fixture
def progress_files(settings, tmp_path, monkeypatch):
    """Progress in files under ``tmp_path`` whatever the database: a job made in a test's own
    transaction is invisible to PostgreSQL's second connection (its path is tested apart,
    with committed rows, below)."""
    settings.TASK_PROGRESS_DIR = tmp_path
    monkeypatch.setattr(progress, "in_database", lambda: False)
    return tmp_path


# --- the page ----------------------------------------------------------------------------------


def test_a_file_imported_through_the_page_is_done_with_the_same_report_as_before(
    director_client, director, django_capture_on_commit_callbacks, progress_files
):
    t = builders.tournament(COPA, acting_user=director)
    # The report the page gave before (the import in the request), in a twin, rolled back.
    twin = builders.tournament(COPA, acting_user=director, name="Copa Gemela")
    with transaction.atomic():
        before = import_domino_results(acting_user=director, tournament=twin, data=ROUND_ONE)
        transaction.set_rollback(True)

    with django_capture_on_commit_callbacks(execute=True):
        response = upload(director_client, t, ROUND_ONE)

    job = ImportJob.objects.get()
    assert response.status_code == 302
    assert response.url == job_url(job) == f"/gestion/torneos/{t.slug}/importar/{job.pk}/"
    assert (job.status, job.done, job.total, job.file_name) == ("done", 2, 2, "resultados.csv")
    assert job.report == {
        "created": 2,
        "changed": 0,
        "unchanged": 0,
        "byes": 0,
        "players_created": 8,
        "entries_created": 4,
        "warnings": [],
        "new_players": NEW_PLAYERS,
        "notes": [],
        "published": False,
    }
    assert job.refusal is None and job.data == "" and job.requested_by == director
    assert job.started_at <= job.finished_at
    assert stored() == (2, 2, 8)
    assert list(progress_files.iterdir()) == []  # the progress file went with the job's end
    assert {**dataclasses.asdict(before), "published": False} == job.report
    # The page shows the outcome at once, without polling.
    page = director_client.get(response.url)
    body = page.content.decode()
    assert page.context["state"] == "done"
    assert page.context["report_messages"] == [
        ("success", "Resultados importados: creados 2, cambiados 0, sin cambios 0."),
        (
            "info",
            "Jugadores nuevos (8): «Aurora Blanco», «Bruno Castillo», «Carmen Dávila», "
            "«Diego Esparza», «Elena Fuentes», «Fabián Garza», «Gloria Hinojosa» y "
            "«Héctor Ibáñez».",
        ),
    ]
    assert "hx-trigger" not in body and "<progress" not in body
    assert 'href="/gestion/torneos/copa-importada-2026/"' in body


def test_an_import_that_starts_a_draft_says_it_is_now_public(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(COPA, acting_user=director, status="draft")
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(director_client, t, ROUND_ONE)

    assert ImportJob.objects.get().report["published"] is True
    assert director_client.get(response.url).context["report_messages"][2:] == [
        (
            "info",
            "«Copa Importada» estaba en borrador y ahora está en curso: ya se ve en las páginas "
            "públicas.",
        )
    ]


def test_a_refused_file_stores_nothing_and_its_job_shows_every_refused_line(
    director_client, director, django_capture_on_commit_callbacks
):
    t = builders.tournament(COPA, acting_user=director)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(director_client, t, REFUSED)

    job = ImportJob.objects.get()
    assert (job.status, job.report, job.data) == ("failed", None, "")
    assert job.refusal == {"summary": SUMMARY, "errors": [[3, LINE_3]]}
    assert stored() == (0, 0, 0)
    with pytest.raises(ImportRefused) as caught:  # as the page said it before
        import_domino_results(acting_user=director, tournament=t, data=REFUSED)
    assert (caught.value.summary, caught.value.errors) == (SUMMARY, [(3, LINE_3)])
    page = director_client.get(response.url)
    body = page.content.decode()
    assert page.status_code == 200 and page.context["state"] == "failed"
    assert f"<li>Línea 3: {LINE_3}</li>" in body
    assert f'<div class="error" role="alert"><p>{SUMMARY}</p></div>' in body
    assert f'action="{reverse("manage:import", args=[t.slug])}"' in body  # send it corrected
    assert "hx-trigger" not in body


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"round,table\n1,2\n",
            "La primera línea debe ser exactamente «round,table,side_a,side_b,tantos_a,"
            "tantos_b,ended_by_time,forfeit,played_at» (separada por comas, puntos y comas o "
            "tabuladores); se encontró «round,table».",
        ),
        (
            HEADER.encode() + b"\n1,1,Mar\x81a,Jos\xe9,100,0,no,no,\n",
            "El archivo no está en UTF-8 ni en Windows-1252 (hay un carácter no válido en la "
            "línea 2). Guárdalo desde la hoja de cálculo como «CSV UTF-8» o como .xlsx y vuelve "
            "a importarlo.",
        ),
    ],
    ids=["header", "encoding"],
)
def test_a_file_refused_for_its_form_answers_at_once_and_queues_nothing(
    director_client, director, django_capture_on_commit_callbacks, data, message
):
    t = builders.tournament(COPA, acting_user=director)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = director_client.post(
            reverse("manage:import", args=[t.slug]),
            {"kind": "results", "file": SimpleUploadedFile("r.csv", data)},
        )

    assert response.status_code == 400
    assert callbacks == [] and not ImportJob.objects.exists()
    assert response.context["import_form"].non_field_errors() == [message]


def test_the_progress_part_polls_every_second_until_the_job_ends(
    director_client, director, progress_files
):
    t = builders.tournament(COPA, acting_user=director)
    job = ImportJob.objects.create(
        tournament=t,
        requested_by=director,
        file_name="grande.csv",
        data=ROUND_ONE,
        status="running",
        started_at=timezone.now(),
    )
    url = job_url(job)
    htmx = {"HX-Request": "true"}

    preparing = director_client.get(url, headers=htmx).content.decode()
    assert preparing.count('hx-trigger="every 1s"') == 1
    assert "Leyendo y comprobando el archivo…" in preparing
    assert '<progress class="import-bar" aria-labelledby="import-label"></progress>' in preparing

    progress.report(job.pk, 123, 2560)
    response = director_client.get(url, headers=htmx)
    part = response.content.decode()
    assert "<html" not in part and "Vary" in response and "HX-Request" in response["Vary"]
    assert f'hx-get="{url}" hx-trigger="every 1s" hx-swap="outerHTML"' in part
    assert (
        '<progress class="import-bar" aria-labelledby="import-label" max="2560" value="123" '
        'aria-describedby="import-count">4 %</progress>'
    ) in part
    assert '<p id="import-count" class="import-count">123 de 2560 mesas (4 %)</p>' in part
    # The whole page (no JavaScript) has the same part, a status region and a reload link.
    page = director_client.get(url).content.decode()
    assert '<p id="import-status" class="sr-only" role="status"></p>' in page
    assert "123 de 2560 mesas (4 %)" in page and f'<a href="{url}">Actualizar</a>' in page

    ImportJob.objects.filter(pk=job.pk).update(
        status="done",
        done=2560,
        total=2560,
        finished_at=timezone.now(),
        report={"created": 2560, "changed": 0, "unchanged": 0, "warnings": []},
    )
    done = director_client.get(url, headers=htmx).content.decode()
    assert "hx-trigger" not in done and "<progress" not in done
    assert (
        '<p id="import-status" hx-swap-oob="innerHTML">Resultados importados: creados 2560, '
        "cambiados 0, sin cambios 0.</p>"
    ) in done


def test_a_queued_job_says_it_waits(director_client, director):
    t = builders.tournament(COPA, acting_user=director)
    job = ImportJob.objects.create(tournament=t, requested_by=director, file_name="r.csv")
    part = director_client.get(job_url(job), headers={"HX-Request": "true"}).content.decode()
    assert "En cola: la importación empieza en cuanto el servidor quede libre." in part
    assert 'hx-trigger="every 1s"' in part


# --- who may see a job ---------------------------------------------------------------------------


@pytest.fixture
def other_director(db):
    """A director of the club's group who directs another tournament only."""
    return builders.director("otro", password=None)


def test_only_who_may_import_into_the_tournament_sees_its_jobs(director, other_director):
    t = builders.tournament(COPA, acting_user=director)
    theirs = builders.tournament(COPA, acting_user=other_director, name="Copa Ajena")
    job = ImportJob.objects.create(tournament=t, requested_by=director, file_name="r.csv")
    other_job = ImportJob.objects.create(
        tournament=theirs, requested_by=other_director, file_name="r.csv"
    )
    client = Client()
    client.force_login(other_director)

    assert client.get(job_url(job)).status_code == 403
    assert client.get(job_url(job), headers={"HX-Request": "true"}).status_code == 403
    retry = reverse("manage:import_retry", args=[t.slug, job.pk])
    assert client.post(retry).status_code == 403
    # Their own job under another tournament's address is nobody's.
    mixed = reverse("manage:import_job", args=[theirs.slug, job.pk])
    assert client.get(mixed).status_code == 404
    assert client.get(job_url(other_job)).status_code == 200
    anonymous = Client().get(job_url(job))
    assert anonymous.status_code == 302 and anonymous.url.startswith(reverse("login"))
    # A director listed later may see it: the same check as the import form's.
    services.set_tournament_directors(
        acting_user=director, tournament=t, directors=[director, other_director]
    )
    assert client.get(job_url(job)).status_code == 200


def test_the_task_refuses_a_requester_who_may_no_longer_import(director, other_director):
    t = builders.tournament(COPA, acting_user=director)
    job = ImportJob.objects.create(
        tournament=t, requested_by=other_director, file_name="r.csv", data=ROUND_ONE
    )
    assert tasks.import_results_task.call(job.pk) == "failed"
    job.refresh_from_db()
    assert job.refusal == {
        "summary": "Ya no puedes gestionar este torneo: no se importó nada.",
        "errors": [],
    }
    assert stored() == (0, 0, 0)


def test_a_job_runs_once(director, progress_files):
    t = builders.tournament(COPA, acting_user=director)
    job = ImportJob.objects.create(
        tournament=t, requested_by=director, file_name="r.csv", data=ROUND_ONE
    )
    assert tasks.import_results_task.call(job.pk) == "done"
    assert tasks.import_results_task.call(job.pk) == "skipped"
    assert stored() == (2, 2, 8)
    if connection.vendor == "sqlite":  # the import kept its pages in memory, then gave it back
        with connection.cursor() as cursor:
            assert cursor.execute("PRAGMA cache_spill").fetchone()[0] != 0


def test_an_unexpected_error_fails_the_job_in_words_and_reaches_the_worker_log(
    director, monkeypatch, progress_files
):
    from tournaments import imports

    def broken(**kwargs):
        raise RuntimeError("disco lleno")

    monkeypatch.setattr(imports, "import_results", broken)
    t = builders.tournament(COPA, acting_user=director)
    job = ImportJob.objects.create(
        tournament=t, requested_by=director, file_name="r.csv", data=ROUND_ONE
    )
    with pytest.raises(RuntimeError, match="disco lleno"):
        tasks.import_results_task.call(job.pk)
    job.refresh_from_db()
    assert (job.status, job.data) == ("failed", "")
    assert job.refusal == {
        "summary": "La importación falló por un error del servidor y no se guardó nada. "
        "Vuelve a intentarlo; si vuelve a fallar, avisa a quien administra el sitio.",
        "errors": [],
    }


# --- a worker that died --------------------------------------------------------------------------


def test_a_job_whose_worker_died_says_it_stopped_and_runs_again(
    director_client, director, django_capture_on_commit_callbacks, progress_files
):
    t = builders.tournament(COPA, acting_user=director)
    six_minutes_ago = timezone.now() - dt.timedelta(minutes=6)
    job = ImportJob.objects.create(
        tournament=t,
        requested_by=director,
        file_name="r.csv",
        data=ROUND_ONE,
        status="running",
        started_at=six_minutes_ago,
    )
    ImportJob.objects.filter(pk=job.pk).update(created_at=six_minutes_ago)
    (progress_files / f"import-{job.pk}.json").write_text(
        json.dumps({"done": 1, "total": 2, "at": six_minutes_ago.isoformat()})
    )
    page = director_client.get(job_url(job))
    body = page.content.decode()
    assert page.context["state"] == "stalled"
    assert f'<div class="error" role="alert"><p>{STOPPED}</p></div>' in body
    assert "hx-trigger" not in body
    retry = reverse("manage:import_retry", args=[t.slug, job.pk])
    assert f'action="{retry}"' in body and "Volver a intentarlo" in body
    # Four minutes without news is not stalled yet.
    (progress_files / f"import-{job.pk}.json").write_text(
        json.dumps(
            {"done": 1, "total": 2, "at": (six_minutes_ago + dt.timedelta(minutes=2)).isoformat()}
        )
    )
    assert director_client.get(job_url(job)).context["state"] == "running"
    (progress_files / f"import-{job.pk}.json").unlink()

    with django_capture_on_commit_callbacks(execute=True):
        response = director_client.post(retry)

    new = ImportJob.objects.exclude(pk=job.pk).get()
    job.refresh_from_db()
    assert response.url == job_url(new)
    assert (new.status, new.report["created"], new.requested_by) == ("done", 2, director)
    assert (job.status, job.data) == ("failed", "")
    assert job.refusal == {
        "summary": "La importación se detuvo sin terminar y no se guardó nada: se volvió a "
        "intentar.",
        "errors": [],
        "retried_as": new.pk,
    }
    old_page = director_client.get(job_url(job)).content.decode()
    assert f'<a href="{job_url(new)}">Ver el nuevo intento</a>' in old_page
    assert stored() == (2, 2, 8)
    # Once retried (or for a job that moves), the button starts nothing more.
    again = director_client.post(retry, follow=True)
    assert ImportJob.objects.count() == 2
    assert [m.message for m in again.context["messages"]] == [
        "Esa importación no está detenida: no se volvió a empezar."
    ]


def test_a_job_queued_for_long_says_no_worker_seems_to_run(director_client, director):
    t = builders.tournament(COPA, acting_user=director)
    job = ImportJob.objects.create(tournament=t, requested_by=director, file_name="r.csv")
    ImportJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - dt.timedelta(minutes=6))
    body = director_client.get(job_url(job)).content.decode()
    assert (
        "La importación lleva más de 5 minutos en cola sin empezar: parece que el proceso de "
        "tareas del servidor no está en marcha. No se ha guardado nada."
    ) in body


def test_the_tournament_page_links_to_an_unfinished_import(director_client, director):
    t = builders.tournament(COPA, acting_user=director)
    job = ImportJob.objects.create(tournament=t, requested_by=director, file_name="r.csv")
    body = director_client.get(reverse("manage:tournament", args=[t.slug])).content.decode()
    assert (
        f'Importación de «r.csv» sin terminar: <a href="{job_url(job)}">ver el progreso</a>'
    ) in body


# --- the progress module -------------------------------------------------------------------------


def test_progress_goes_to_a_file_per_job_and_reads_back(settings, tmp_path, monkeypatch):
    settings.TASK_PROGRESS_DIR = tmp_path / "progreso"
    monkeypatch.setattr(progress, "in_database", lambda: False)
    assert progress.read(7) is None

    progress.report(7, 5, 10)

    written = json.loads((tmp_path / "progreso" / "import-7.json").read_text())
    assert (written["done"], written["total"]) == (5, 10)
    seen = progress.read(7)
    assert (seen.done, seen.total) == (5, 10)
    assert abs((timezone.now() - seen.at).total_seconds()) < 60
    assert [p.name for p in (tmp_path / "progreso").iterdir()] == ["import-7.json"]  # no leftovers
    (tmp_path / "progreso" / "import-8.json").write_text("{not json")
    assert progress.read(8) is None
    progress.discard(7)
    assert progress.read(7) is None


def test_progress_writes_are_throttled_but_the_last_is_always_written(monkeypatch):
    written = []
    monkeypatch.setattr(progress, "report", lambda job_id, d, t: written.append((job_id, d, t)))
    tracker = progress.throttled(3, min_interval=3600)
    for done in range(1, 11):
        tracker(done, 10)
    assert written == [(3, 1, 10), (3, 10, 10)]
    assert (tracker.done, tracker.total) == (10, 10)
    every_call = progress.throttled(4, min_interval=0)
    every_call(1, 2)
    every_call(2, 2)
    assert written[2:] == [(4, 1, 2), (4, 2, 2)]


def _in_another_thread(func):
    """``func()`` run in a thread of its own (its own database connection), returned."""
    box = {}

    def run():
        try:
            box["value"] = func()
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)
    return box["value"]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's write lock")
@pytest.mark.django_db(transaction=True)
def test_on_sqlite_progress_is_readable_while_the_import_holds_the_write_lock(settings, tmp_path):
    settings.TASK_PROGRESS_DIR = tmp_path
    assert not progress.in_database()
    with transaction.atomic():  # BEGIN IMMEDIATE: the database's write lock, as an import
        services.create_player(acting_user=None, full_name="Escritora Ocupada")
        progress.report(11, 3, 8)
        seen = _in_another_thread(lambda: progress.read(11))
        assert (seen.done, seen.total) == (3, 8)
        transaction.set_rollback(True)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's second connection")
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_progress_is_readable_while_the_import_transaction_is_open(director):
    t = builders.tournament(COPA, acting_user=director)
    job = ImportJob.objects.create(
        tournament=t, requested_by=director, file_name="r.csv", data=ROUND_ONE, status="running"
    )
    assert progress.in_database()
    try:
        with transaction.atomic():
            services.create_player(acting_user=None, full_name="Escritora Ocupada")
            progress.report(job.pk, 3, 8)
            seen = _in_another_thread(lambda: progress.read(job.pk))
            assert (seen.done, seen.total) == (3, 8)
            assert _in_another_thread(lambda: Player.objects.count()) == 0  # still open
            transaction.set_rollback(True)
    finally:
        progress.close()
    job.refresh_from_db()  # the count was committed on its own, the transaction rolled back
    assert (job.done, job.total, job.progress_at is not None) == (3, 8, True)
    assert not Player.objects.filter(full_name="Escritora Ocupada").exists()


@pytest.mark.django_db(transaction=True)
def test_a_running_import_shows_its_count_to_another_connection_before_it_commits(
    director, settings, tmp_path, monkeypatch
):
    """The real task, with the progress read from another connection in the middle of the
    import (its transaction open: no result visible there yet)."""
    settings.TASK_PROGRESS_DIR = tmp_path
    seen = []
    real_report = progress.report

    def report_and_look(job_id, done, total):
        real_report(job_id, done, total)
        if done == 1 and connection.vendor == "sqlite":  # no spilling: readers read on
            with connection.cursor() as cursor:
                assert cursor.execute("PRAGMA cache_spill").fetchone()[0] == 0
        if done == 1:
            seen.append(_in_another_thread(lambda: (progress.read(job_id), Result.objects.count())))

    monkeypatch.setattr(progress, "report", report_and_look)
    t = builders.tournament(COPA, acting_user=director)
    job = ImportJob.objects.create(
        tournament=t, requested_by=director, file_name="r.csv", data=ROUND_ONE
    )

    assert tasks.import_results_task.call(job.pk) == "done"

    [(middle, results_then)] = seen
    assert (middle.done, middle.total, results_then) == (1, 2, 0)
    assert Result.objects.count() == 2
    job.refresh_from_db()
    assert (job.status, job.done, job.total) == ("done", 2, 2)


# --- the command line ----------------------------------------------------------------------------


class Terminal(StringIO):
    def isatty(self):
        return True


def test_the_command_draws_a_bar_on_a_terminal(director, tmp_path):
    t = builders.tournament(COPA, acting_user=director)
    path = tmp_path / "r.csv"
    path.write_text(ROUND_ONE, encoding="utf-8")
    out, err = StringIO(), Terminal()

    call_command("import_results", t.slug, str(path), stdout=out, stderr=err)

    assert err.getvalue() == (
        "\r[###############---------------] 1 de 2 mesas (50 %)"
        "\r[##############################] 2 de 2 mesas (100 %)\n"
    )
    assert out.getvalue().startswith("creados: 2, cambiados: 0, sin cambios: 0\n")


def test_the_command_writes_every_ten_percent_to_a_log_once_it_runs_long(monkeypatch):
    ticks = iter([0.0, 1.0, 2.5, 2.6, 2.7, 3.0])
    out = StringIO()
    from django.core.management.base import OutputWrapper

    bar = ProgressBar(OutputWrapper(out), clock=lambda: next(ticks))
    bar(1, 20)  # 5 %, at 1 s
    bar(2, 20)  # 10 %, at 2.5 s: the first line
    bar(3, 20)  # 15 %
    bar(20, 20)  # 100 %
    bar.finish()
    assert out.getvalue() == "2 de 20 mesas (10 %)\n20 de 20 mesas (100 %)\n"


def test_a_quick_command_import_writes_no_progress_to_a_log(director, tmp_path):
    t = builders.tournament(COPA, acting_user=director)
    path = tmp_path / "r.csv"
    path.write_text(ROUND_ONE, encoding="utf-8")
    err = StringIO()
    call_command("import_results", t.slug, str(path), stdout=StringIO(), stderr=err)
    assert err.getvalue() == ""
