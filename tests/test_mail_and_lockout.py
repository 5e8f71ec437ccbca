"""Mail and accounts (issue 25, point 5) and the lockout's way back (point 9), written as the
attacker would.

- Changing the account's email on "Mi página" needs the current password (the tries are
  limited per account) and warns the old address, the new one half hidden.
- Anonymising a player erases their email from the background tasks' queue: the waiting claim
  link, reset mail and warning send nothing when they run.
- Task rows a killed worker left running are recovered (``manage.py recover_tasks``): back in
  the queue once, failed when two workers stopped with them; a real worker killed mid-task on
  PostgreSQL, then recovered, runs it to the end.
- A lockout is not a trap: the lockout page offers the reset by email; a stranger asking for a
  reset lifts nothing; the director saving a new password from the mailed link is logged in and
  unlocked, from every address; the README says how a superuser lifts one.

The limiter and the forms' refusals: tests/test_limits.py.
"""

from __future__ import annotations

import datetime as dt
import html
import re
import signal
from io import StringIO
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.core import mail
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from clubsite import taskqueue
from clubsite.limits import LIMITS
from tournaments import services
from tournaments.models import Player
from tournaments.notices import tasks as notice_tasks

PASSWORD = "clave-de-prueba-1"


@pytest.fixture(autouse=True)
def _fresh_cache(db):
    cache.clear()


def text(response) -> str:
    return html.unescape(response.content.decode())


# --- mail and accounts ------------------------------------------------------------------------


@pytest.fixture
def ana_account(director):
    ana = services.create_player(
        acting_user=director, full_name="Ana Arroyo", email="ana.arroyo@example.org"
    )
    user = User.objects.create_user("ana", password=PASSWORD)
    services.claim_player(user=user, player=ana)
    return user, ana


def test_changing_the_email_needs_the_current_password_and_tells_the_old_address(
    client, ana_account, django_capture_on_commit_callbacks
):
    user, ana = ana_account
    client.force_login(user)
    new = {"email": "ladron@example.org", "phone": "", "notices_consent": ""}
    for password in ("", "clave-equivocada"):
        refused = client.post(reverse("account:home"), {**new, "current_password": password})
        assert refused.status_code == 400
        assert (
            "Para cambiar tu correo, escribe tu contraseña actual: la que usas para entrar."
            in text(refused)
        )
    ana.refresh_from_db()
    user.refresh_from_db()
    assert ana.email == user.email == "ana.arroyo@example.org" and mail.outbox == []
    # the phone alone changes without the password
    phone = {"email": "ana.arroyo@example.org", "phone": "555 0101", "notices_consent": ""}
    assert client.post(reverse("account:home"), phone).status_code == 302
    with django_capture_on_commit_callbacks(execute=True):
        saved = client.post(
            reverse("account:home"),
            {**new, "email": "ana@nuevo.example.org", "current_password": PASSWORD},
        )
    assert saved.status_code == 302
    ana.refresh_from_db()
    user.refresh_from_db()
    assert ana.email == user.email == "ana@nuevo.example.org"
    (warning,) = mail.outbox
    assert warning.to == ["ana.arroyo@example.org"]
    assert warning.subject == "Club de dominó: el correo de tu cuenta cambió"
    assert "«ana»" in warning.body and "a…@nuevo.example.org" in warning.body
    assert "ana@nuevo.example.org" not in warning.body


def test_guessing_the_password_on_my_page_stops_at_its_limit(client, ana_account):
    user, ana = ana_account
    client.force_login(user)
    new = {"email": "ladron@example.org", "phone": "", "notices_consent": ""}
    for n in range(LIMITS["password-check"].count):
        wrong = {**new, "current_password": f"intento-{n}"}
        assert client.post(reverse("account:home"), wrong).status_code == 400
    right = client.post(reverse("account:home"), {**new, "current_password": PASSWORD})
    assert right.status_code == 429
    assert "restablécela por correo" in text(right)
    assert Player.objects.get(pk=ana.pk).email == "ana.arroyo@example.org"


def test_anonymising_erases_the_email_from_the_queued_tasks(director, database_tasks):
    ana = services.create_player(
        acting_user=director, full_name="Ana Arroyo", email="Ana.Arroyo@example.org"
    )
    Client().post(reverse("account:claim"), {"email": "ana.arroyo@EXAMPLE.org"})
    Client().post(reverse("password_reset"), {"email": "ana.arroyo@example.org"})
    notice_tasks.send_email_changed.enqueue("ana.arroyo@example.org", "x@example.org", "ana")
    other = notice_tasks.send_claim_link.enqueue("beto@example.org", "http://testserver/", "es")
    assert DBTaskResult.objects.filter(args_kwargs__icontains="ana.arroyo").count() == 3
    services.anonymise_player(acting_user=director, player=ana)
    assert not DBTaskResult.objects.filter(args_kwargs__icontains="arroyo").exists()
    emails = sorted(r.args_kwargs["args"][0] for r in DBTaskResult.objects.all())
    assert emails == ["", "", "", "beto@example.org"]
    assert DBTaskResult.objects.get(pk=other.id).args_kwargs["args"][0] == "beto@example.org"
    # the scrubbed tasks, when the worker runs them, send nothing
    for row in DBTaskResult.objects.exclude(pk=other.id):
        assert row.task.call(*row.args_kwargs["args"], **row.args_kwargs["kwargs"]) == 0
    assert mail.outbox == []


def _running(task, *args, workers=("w1",), started=None):
    result = task.enqueue(*args)
    row = DBTaskResult.objects.get(pk=result.id)
    for worker in workers:
        row.claim(worker)
    if started is not None:
        DBTaskResult.objects.filter(pk=row.pk).update(started_at=started)
    return row


def test_rows_left_running_are_requeued_once_then_failed(database_tasks):
    hour_ago = timezone.now() - dt.timedelta(hours=2)
    once = _running(notice_tasks.send_reminders, "2026-05-01", started=hour_ago)
    twice = _running(
        notice_tasks.send_reminders, "2026-05-02", workers=("w1", "w2"), started=hour_ago
    )
    recent = _running(notice_tasks.send_reminders, "2026-05-03")
    waiting = notice_tasks.send_reminders.enqueue("2026-05-04")
    out = StringIO()
    call_command("recover_tasks", "--older-than", "60", stdout=out)
    assert "Tareas recuperadas: 1 de vuelta en la cola, 1 fallidas." in out.getvalue()
    rows = {r.pk: r for r in DBTaskResult.objects.all()}
    assert (rows[once.pk].status, rows[once.pk].started_at) == ("READY", None)
    assert rows[twice.pk].status == "FAILED"
    assert rows[twice.pk].exception_class_path == taskqueue.WORKER_LOST
    assert "w1, w2" in rows[twice.pk].traceback
    assert rows[recent.pk].status == "RUNNING"  # younger than 60 minutes: left alone
    assert DBTaskResult.objects.get(pk=waiting.id).status == "READY"
    call_command("recover_tasks", stdout=StringIO())  # at the only worker's start: all
    assert DBTaskResult.objects.get(pk=recent.pk).status == "READY"


@pytest.mark.parametrize("bad", ["-1", "abc", "nan", "99999"])
def test_recover_tasks_refuses_a_wrong_age_in_words(bad):
    with pytest.raises(CommandError, match="no es un número de minutos entre 0 y 10080"):
        call_command("recover_tasks", "--older-than", bad)


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="holds a row lock from another connection while the worker runs (PostgreSQL)",
)
@pytest.mark.django_db(transaction=True)
def test_a_task_a_killed_worker_left_running_runs_again_after_recovery(database_tasks):
    from rankings.models import LedgerStatus, ReplayRequest
    from tests import workers as w
    from tests.builders import club_tournament

    t = club_tournament(n_entries=4, rounds=2)
    w.drain()
    holder = connections.create_connection("default")
    holder.set_autocommit(False)
    with holder.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {LedgerStatus._meta.db_table} WHERE id = 1 FOR UPDATE")
    w.correct_first_game(t)
    worker = w.start_worker()
    try:
        w.wait_until(w.someone_waits_for_a_lock)
        w.stop(worker, signal.SIGKILL)
    finally:
        holder.rollback()
        holder.close()
    (left,) = w.replay_tasks().filter(status="RUNNING")
    call_command("recover_tasks", stdout=StringIO())
    left.refresh_from_db()
    assert left.status == "READY" and left.started_at is None
    w.drain()
    left.refresh_from_db()
    assert left.status == "SUCCESSFUL" and len(left.worker_ids) == 2
    assert not ReplayRequest.objects.exists()


# --- a lockout is not a trap ------------------------------------------------------------------

VENUE = "203.0.113.99"


def _login(client, password, username="directora"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=VENUE
    )


def test_a_reset_by_email_lifts_the_lockout_and_asking_alone_does_not(settings, director):
    settings.AXES_ENABLED = True
    director.email = "directora@example.org"
    director.save()
    stranger = Client()
    for _ in range(4):  # anyone at the venue's connection
        assert _login(stranger, "adivinando").status_code == 400
    assert _login(stranger, "adivinando").status_code == 429  # the fifth locks
    locked = _login(Client(), PASSWORD)
    assert locked.status_code == 429
    page = text(locked)
    assert "Acceso bloqueado por 15 minutos" in page
    assert "Para entrar ya: pide una contraseña nueva por correo." in page
    assert "el bloqueo se levanta y entras" in page
    assert f'href="{reverse("password_reset")}"' in page
    # the stranger asks for a reset: a mail goes to the director, the lock stays
    stranger.post(reverse("password_reset"), {"email": "directora@example.org"}, REMOTE_ADDR=VENUE)
    assert _login(Client(), PASSWORD).status_code == 429
    (message,) = mail.outbox
    # the director opens the link from the mail and saves a new password: in, and unlocked
    director_phone = Client()
    link = re.search(r"https?://[^/\s]+(/\S*)", message.body).group(1)
    form_url = director_phone.get(link, REMOTE_ADDR=VENUE)["Location"]
    new = "ficha-azul-del-doble-seis"
    done = director_phone.post(
        form_url, {"new_password1": new, "new_password2": new}, REMOTE_ADDR=VENUE
    )
    assert done.status_code == 302
    assert director_phone.session["_auth_user_id"] == str(director.pk)
    assert "ya entraste con ella" in text(director_phone.get(done["Location"]))
    assert not AccessAttempt.objects.filter(username="directora").exists()
    assert _login(Client(), new).status_code == 302  # from the venue, at once


def test_the_readme_says_how_a_superuser_lifts_a_lockout():
    readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text().split())
    assert "manage.py axes_reset_username USERNAME" in readme
    assert "a successful password reset by email lifts it" in readme
