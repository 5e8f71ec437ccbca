"""Notices by email (issue part 5, tournaments/notices/): a round's
table to the players with an email and consent, once per round however often it is published;
the reminder the day before, once per tournament; an unsubscribe link in every message; sent by
the background worker, never inside the director's request. Django's in-memory mail backend
(``mail.outbox``)."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
from django.core import mail
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from tests import builders
from tournaments import notices, services
from tournaments.models import Notice, Player, Round
from tournaments.notices.tasks import send_pairings_notices

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(director):
    """A pairs tournament tomorrow, open for sign-up: four pairs; Ana (email and consent),
    Bruno (email, no consent), Carla (consent given, then her email erased: no consent left),
    Dora and the rest (no email); Elena and Fausto, of the second table, with email and
    consent."""
    t = services.create_tournament(
        acting_user=director,
        name="Copa Avisos",
        date=timezone.localdate() + dt.timedelta(days=1),
        mode="pairs",
        target=100,
        venue="Casino del Pueblo",
        status="registration",
    )
    people = {
        "ana": builders.player(
            "Ana Avila", acting_user=director, email="ana@example.org", notices_consent=True
        ),
        "bruno": builders.player("Bruno Bernal", acting_user=director, email="bruno@example.org"),
        "carla": builders.player(
            "Carla Cano", acting_user=director, email="carla@example.org", notices_consent=True
        ),
        "dora": builders.player("Dora Díaz", acting_user=director),
        "elena": builders.player(
            "Elena Esteban", acting_user=director, email="elena@example.org", notices_consent=True
        ),
        "fausto": builders.player(
            "Fausto Fierro", acting_user=director, email="fausto@example.org", notices_consent=True
        ),
        "gabi": builders.player("Gabi Gil", acting_user=director),
        "hugo": builders.player("Hugo Haro", acting_user=director),
    }
    Player.objects.filter(pk=people["carla"].pk).update(email="")  # consent without an email
    pairs = [("ana", "bruno"), ("carla", "dora"), ("elena", "gabi"), ("fausto", "hugo")]
    entries = [
        services.register_entry(acting_user=director, tournament=t, players=[people[a], people[b]])
        for a, b in pairs
    ]
    return {"t": t, "p": people, "e": entries}


def by_recipient():
    return {m.to[0]: m for m in mail.outbox}


def run_queued() -> int:
    """What ``manage.py db_worker`` does with each task waiting in django-tasks-db's queue."""
    ran = 0
    for row in DBTaskResult.objects.ready().order_by("enqueued_at"):
        result = row.task_result
        row.set_successful(row.task.call(*result.args, **result.kwargs))
        ran += 1
    return ran


# --- pairings --------------------------------------------------------------------------------


def test_a_published_round_tells_each_player_with_email_and_consent_their_table(
    director, club, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        rnd = builders.pair(club["t"], 1, [(0, 1), (2, 3)], entries=club["e"], acting_user=director)
    sent = by_recipient()
    assert set(sent) == {"ana@example.org", "elena@example.org", "fausto@example.org"}
    ana = sent["ana@example.org"]
    assert ana.subject == "Club de dominó: «Copa Avisos», ronda 1: mesa 1"
    body = ana.body
    assert "Hola, Ana Avila:" in body
    assert "En la ronda 1 de «Copa Avisos» juegas en la mesa 1." in body
    assert "Lado A\n" in body
    assert "Con: Bruno Bernal\n" in body
    assert "Contra: Carla Cano & Dora Díaz\n" in body
    assert "http://testserver/torneos/copa-avisos" not in body  # SITE_URL, not a request's host
    assert reverse("public:find_table", args=[club["t"].slug]) in body
    unsubscribe = notices.unsubscribe_url(club["p"]["ana"])
    assert f"Para no recibir más avisos: {unsubscribe}" in body
    assert ana.extra_headers["List-Unsubscribe"] == f"<{unsubscribe}>"
    fausto = sent["fausto@example.org"].body
    assert "juegas en la mesa 2." in fausto and "Lado B\n" in fausto
    assert "Con: Hugo Haro\n" in fausto and "Contra: Elena Esteban & Gabi Gil\n" in fausto
    assert Notice.objects.filter(round=rnd, kind=Notice.Kind.PAIRINGS).count() == 3


def test_pairings_published_twice_are_sent_once_even_when_they_changed(
    director, club, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        builders.pair(club["t"], 1, [(0, 1), (2, 3)], entries=club["e"], acting_user=director)
    assert len(mail.outbox) == 3
    with django_capture_on_commit_callbacks(execute=True):
        # the same again
        builders.pair(club["t"], 1, [(0, 1), (2, 3)], entries=club["e"], acting_user=director)
        # changed: still told once (the site has them)
        builders.pair(club["t"], 1, [(0, 2), (1, 3)], entries=club["e"], acting_user=director)
    assert len(mail.outbox) == 3
    rnd = Round.objects.get(tournament=club["t"], number=1)
    assert send_pairings_notices.call(rnd.pk) == 0  # a task run twice: nothing either
    assert len(mail.outbox) == 3
    # the next round is another notice
    with django_capture_on_commit_callbacks(execute=True):
        builders.pair(
            club["t"], 2, [(0, 3), (1, 2)], entries=club["e"], acting_user=director, anyway=True
        )
    assert len(mail.outbox) == 6


def test_a_player_seated_only_when_the_round_is_paired_again_is_told_then(
    director, club, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        # Elena's and Fausto's pairs rest
        builders.pair(club["t"], 1, [(0, 1)], entries=club["e"], acting_user=director)
    rests = by_recipient()["elena@example.org"]
    assert rests.subject == "Club de dominó: «Copa Avisos», ronda 1: descansas"
    assert "descansas: no juegas esta ronda." in rests.body
    assert len(mail.outbox) == 3
    Notice.objects.filter(player=club["p"]["elena"]).delete()  # as if she had not been told
    with django_capture_on_commit_callbacks(execute=True):
        builders.pair(club["t"], 1, [(0, 1), (2, 3)], entries=club["e"], acting_user=director)
    assert [m.to for m in mail.outbox[3:]] == [["elena@example.org"]]
    assert "juegas en la mesa 2." in mail.outbox[3].body


def test_the_notices_wait_for_the_worker_never_inside_the_directors_request(
    director_client, club, django_capture_on_commit_callbacks, database_tasks
):
    e = club["e"]
    url = reverse("manage:pairings", args=[club["t"].slug, 1])
    with django_capture_on_commit_callbacks(execute=True):
        response = director_client.post(
            url, {"t0_a1": e[0].pk, "t0_b1": e[1].pk, "t1_a1": e[2].pk, "t1_b1": e[3].pk}
        )
    assert response.status_code == 302
    assert mail.outbox == []  # the director's answer came first
    waiting = DBTaskResult.objects.ready().filter(task_path=send_pairings_notices.module_path)
    assert waiting.count() == 1
    assert run_queued() >= 1  # the worker (the ranking's replay waits there too)
    assert len(mail.outbox) == 3


def test_no_task_when_nobody_is_to_be_told(
    director, club, django_capture_on_commit_callbacks, database_tasks
):
    Player.objects.update(notices_consent=False)
    with django_capture_on_commit_callbacks(execute=True):
        rnd = builders.pair(club["t"], 1, [(0, 1), (2, 3)], entries=club["e"], acting_user=director)
    assert not notices.pairings_pending(rnd.pk)
    assert not DBTaskResult.objects.filter(task_path=send_pairings_notices.module_path).exists()


def test_a_closed_round_or_a_round_gone_sends_nothing(director, club):
    rnd = builders.pair(club["t"], 1, [(0, 1), (2, 3)], entries=club["e"], acting_user=director)
    Round.objects.filter(pk=rnd.pk).update(closed=True)
    assert send_pairings_notices.call(rnd.pk) == 0
    assert send_pairings_notices.call(rnd.pk + 1000) == 0
    assert mail.outbox == []


def test_individual_dominó_names_the_seat_partner_and_the_other_two(director):
    t = services.create_tournament(
        acting_user=director,
        name="Individual Avisos",
        date=timezone.localdate(),
        mode="individual",
        target=100,
        status="running",
    )
    people = [
        builders.player(
            f"{name} Ibarra",
            acting_user=director,
            email=f"{name.lower()}@example.org",
            notices_consent=True,
        )
        for name in ("Iris", "Jaime", "Karen", "Luis")
    ]
    e = [services.register_entry(acting_user=director, tournament=t, players=[p]) for p in people]
    rnd = services.set_pairings(
        acting_user=director, tournament=t, round_number=1, tables=[([e[0], e[1]], [e[2], e[3]])]
    )
    assert send_pairings_notices.call(rnd.pk) == 4
    jaime = by_recipient()["jaime@example.org"].body
    assert "Lado A · asiento 3\n" in jaime
    assert "Con: Iris Ibarra\n" in jaime and "Contra: Karen Ibarra & Luis Ibarra\n" in jaime


def test_a_message_that_fails_leaves_the_player_to_be_told_later(director, club, monkeypatch):
    rnd = builders.pair(club["t"], 1, [(0, 1), (2, 3)], entries=club["e"], acting_user=director)
    real = notices.pairings_message

    def broken(place, rnd):
        if place.player.email == "elena@example.org":
            raise ConnectionError("the mail server hung up")
        return real(place, rnd)

    monkeypatch.setattr(notices, "pairings_message", broken)
    from tournaments.notices.tasks import NoticesFailed

    with pytest.raises(NoticesFailed):
        send_pairings_notices.call(rnd.pk)
    assert sorted(m.to[0] for m in mail.outbox) == ["ana@example.org", "fausto@example.org"]
    assert not Notice.objects.filter(player=club["p"]["elena"]).exists()
    monkeypatch.setattr(notices, "pairings_message", real)
    assert send_pairings_notices.call(rnd.pk) == 1  # the next run tells her, and only her
    assert mail.outbox[-1].to == ["elena@example.org"]


# --- reminders -------------------------------------------------------------------------------


def test_the_reminder_goes_the_day_before_once_per_tournament(director, club):
    t = club["t"]
    type(t).objects.filter(pk=t.pk).update(start_time=dt.time(18, 30))
    out = call_command_output("send_reminders")
    assert f"torneos del {t.date.isoformat()}" in out
    sent = by_recipient()
    assert set(sent) == {"ana@example.org", "elena@example.org", "fausto@example.org"}
    body = sent["ana@example.org"].body
    assert sent["ana@example.org"].subject == "Club de dominó: mañana juegas «Copa Avisos»"
    assert "juegas «Copa Avisos»." in body and "Hora: 18:30" in body
    assert "Lugar: Casino del Pueblo" in body
    assert notices.unsubscribe_url(club["p"]["ana"]) in body
    call_command_output("send_reminders")  # cron ran twice
    assert len(mail.outbox) == 3
    assert Notice.objects.filter(kind=Notice.Kind.REMINDER).count() == 3


def test_reminders_skip_drafts_finished_tournaments_and_other_days(director, club):
    t = club["t"]
    for status in ("draft", "finished"):
        type(t).objects.filter(pk=t.pk).update(status=status)
        call_command_output("send_reminders")
        assert mail.outbox == []
    type(t).objects.filter(pk=t.pk).update(status="running")
    call_command_output("send_reminders", "--date", (t.date + dt.timedelta(days=1)).isoformat())
    assert mail.outbox == []
    call_command_output("send_reminders", "--date", t.date.isoformat())
    assert len(mail.outbox) == 3


def test_an_accepted_sign_up_is_reminded_too(director, club):
    t = club["t"]
    services.update_signup_settings(
        acting_user=director,
        tournament=t,
        signup_open=True,
        max_entries=None,
        signup_closes_at=None,
        signup_needs_approval=False,
    )
    s = services.sign_up(
        tournament=t, name="Nora Nieto", email="nora@example.org", partner_name="Olga Ortiz"
    )
    assert s.status == "pending"  # two people new to the club: a club director adds them
    s = services.decide_signup(acting_user=director, signup=s, accept=True)
    assert s.status == "accepted"
    Player.objects.filter(pk=s.player_id).update(notices_consent=True)
    call_command_output("send_reminders")
    assert "nora@example.org" in by_recipient()


def call_command_output(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_the_reminders_command_refuses_a_date_it_cannot_read():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no es una fecha"):
        call_command_output("send_reminders", "--date", "mañana")


# --- unsubscribe -----------------------------------------------------------------------------


def test_the_unsubscribe_link_asks_then_stops_the_notices_without_login(
    client, director, club, django_capture_on_commit_callbacks
):
    ana = club["p"]["ana"]
    url = notices.unsubscribe_url(ana).removeprefix("http://127.0.0.1:8000")
    page = client.get(url)
    assert page.status_code == 200
    assert "Sí, no quiero más avisos" in page.content.decode()
    assert Player.objects.get(pk=ana.pk).notices_consent  # opening the link changes nothing
    done = client.post(url)
    assert done.status_code == 200
    assert "ya no recibirá avisos" in html.unescape(done.content.decode())
    assert not Player.objects.get(pk=ana.pk).notices_consent
    assert client.post(url).status_code == 200  # again: still off, no error
    with django_capture_on_commit_callbacks(execute=True):
        builders.pair(club["t"], 1, [(0, 1), (2, 3)], entries=club["e"], acting_user=director)
    assert "ana@example.org" not in by_recipient()
    forged = re.sub(r":[^:/]+/$", ":forjado/", url)
    assert client.get(forged).status_code == 400
    assert client.post(forged).status_code == 400


def test_the_unsubscribe_page_is_never_cached(client, club):
    url = notices.unsubscribe_url(club["p"]["ana"]).removeprefix("http://127.0.0.1:8000")
    assert "no-store" in client.get(url)["Cache-Control"]
