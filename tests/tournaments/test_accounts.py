"""Accounts (issue part 4): the password reset by email, end to end (Django's views, the site's
pages); a player claiming their record through a link sent to the email the club holds; their
page (entries, sign-ups, contact details); a director anonymising a player ("Jugador 123") with
results and ratings kept; email and phone never on a public page; the mail settings read from
the environment (clubsite/env.py's checks)."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.cache import cache
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from rankings.models import LedgerRow
from tests.helpers import SETUP, run_python
from tournaments import notices, services
from tournaments.models import Player, Result, SignUp

pytestmark = pytest.mark.django_db

PASSWORD = "clave-de-prueba-1"
NEW_PASSWORD = "ficha-azul-del-doble-seis"


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()  # the claim form's counters


def text(response) -> str:
    return html.unescape(response.content.decode())


def link_in(message) -> str:
    """The path of the one link to this site in ``message``'s body."""
    found = re.findall(r"https?://[^/\s]+(/\S*)", message.body)
    assert found, message.body
    return found[0]


# --- password reset ------------------------------------------------------------------------------


def test_password_reset_end_to_end(client, director):
    director.email = "directora@example.org"
    director.save()
    login_page = text(client.get(reverse("login")))
    assert f'href="{reverse("password_reset")}"' in login_page
    assert "¿Olvidaste tu contraseña?" in login_page

    form = client.get(reverse("password_reset"))
    assert form.status_code == 200 and "¿Olvidaste tu contraseña?" in text(form)
    asked = client.post(reverse("password_reset"), {"email": "DIRECTORA@example.org"})
    assert asked.status_code == 302 and asked["Location"] == reverse("password_reset_done")
    assert "Revisa tu correo" in text(client.get(asked["Location"]))
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["directora@example.org"]
    assert message.subject == "Club de dominó: tu contraseña nueva"
    assert "«directora»" in message.body and "Si no lo pediste tú" in message.body

    opened = client.get(link_in(message))  # Django hides the token: a redirect to set-password
    assert opened.status_code == 302
    page = client.get(opened["Location"])
    assert page.status_code == 200 and "Contraseña nueva" in text(page)
    done = client.post(
        opened["Location"], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302 and done["Location"] == reverse("password_reset_complete")
    # who proved their mailbox is in (a lockout is lifted too: tests/test_limits.py)
    assert "ya entraste con ella" in text(client.get(done["Location"]))
    assert client.session["_auth_user_id"] == str(director.pk)

    fresh = Client()
    old = fresh.post(reverse("login"), {"username": "directora", "password": PASSWORD})
    assert old.status_code == 400  # refused: the form again
    new = fresh.post(reverse("login"), {"username": "directora", "password": NEW_PASSWORD})
    assert new.status_code == 302 and new["Location"] == reverse("manage:home")
    # the link works once
    again = client.get(link_in(message), follow=True)
    assert "Este enlace ya no vale" in text(again)


def test_password_reset_answers_the_same_for_an_unknown_email(client):
    asked = client.post(reverse("password_reset"), {"email": "nadie@example.org"})
    assert asked.status_code == 302 and asked["Location"] == reverse("password_reset_done")
    assert mail.outbox == []


# --- claiming a player record --------------------------------------------------------------------


@pytest.fixture
def ana(director):
    return services.create_player(
        acting_user=director, full_name="Ana Arroyo", email="ana.arroyo@example.org"
    )


def ask_for_the_link(client, email):
    response = client.post(reverse("account:claim"), {"email": email})
    assert response.status_code == 302
    assert response["Location"] == reverse("account:claim") + "?enviado=1"
    return response


def test_claiming_a_record_end_to_end(client, ana):
    assert reverse("account:claim") in text(client.get(reverse("login")))
    ask_for_the_link(client, "Ana.Arroyo@EXAMPLE.org")
    answer = text(client.get(reverse("account:claim") + "?enviado=1"))
    assert "Si el club tiene ese correo en la ficha de un jugador" in answer
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ana.arroyo@example.org"]
    assert "Ana Arroyo:" in message.body and "próximos 2 días" in message.body
    # asked for, not a notice: no "you accepted notices" footer and no unsubscribe link
    assert (
        "aceptaste los avisos" not in message.body
        and "List-Unsubscribe" not in message.extra_headers
    )
    url = link_in(message)
    assert url.startswith("/cuenta/jugador/")

    page = client.get(url)
    assert page.status_code == 200 and "Ana Arroyo" in text(page)
    created = client.post(
        url, {"username": "ana", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )
    assert created.status_code == 302 and created["Location"] == reverse("account:home")
    user = User.objects.get(username="ana")
    assert user.email == "ana.arroyo@example.org" and user.check_password(NEW_PASSWORD)
    assert Player.objects.get(pk=ana.pk).user == user
    home = client.get(reverse("account:home"))  # logged in
    assert home.status_code == 200 and "Ana Arroyo" in text(home)
    assert "tu ficha de jugador" in text(home).lower()
    # one time: the link of a claimed record no longer works
    Client().get(url)
    assert Client().get(url).status_code == 400
    # the password reset now reaches the player too
    Client().post(reverse("password_reset"), {"email": "ana.arroyo@example.org"})
    assert mail.outbox[-1].to == ["ana.arroyo@example.org"] and "«ana»" in mail.outbox[-1].body


def test_the_claim_form_answers_the_same_whoever_asks(client, ana):
    ask_for_the_link(client, "quien@example.org")  # the club has no such email
    assert mail.outbox == []
    claimed = User.objects.create_user("otra", password=PASSWORD)
    services.claim_player(user=claimed, player=ana)
    ask_for_the_link(client, "ana.arroyo@example.org")  # claimed already: no link either
    assert mail.outbox == []
    robot = client.post(
        reverse("account:claim"), {"email": "ana.arroyo@example.org", "website": "spam"}
    )
    assert robot.status_code == 302 and mail.outbox == []


def test_a_mailbox_gets_three_links_an_hour_at_most(client, ana):
    for _ in range(5):
        ask_for_the_link(client, "ana.arroyo@example.org")
    assert len(mail.outbox) == 3


def test_a_connection_asking_too_often_is_told_to_wait(client, ana):
    from clubsite.limits import LIMITS

    for n in range(LIMITS["claim"].count):
        ask_for_the_link(client, f"persona{n}@example.org")
    refused = client.post(reverse("account:claim"), {"email": "ana.arroyo@example.org"})
    assert refused.status_code == 429
    assert "Demasiados intentos seguidos" in text(refused)
    assert mail.outbox == []


def test_a_claim_link_expires_and_follows_the_records_email(client, ana, monkeypatch):
    token = notices.claim_token(ana)
    url = reverse("account:claim_link", args=[token])
    assert client.get(url).status_code == 200
    monkeypatch.setattr(notices, "CLAIM_MAX_AGE", -1)
    expired = client.get(url)
    assert expired.status_code == 400 and "Este enlace ya no vale" in text(expired)
    monkeypatch.undo()
    Player.objects.filter(pk=ana.pk).update(email="nuevo@example.org")
    assert client.get(url).status_code == 400
    assert client.get(reverse("account:claim_link", args=["falso"])).status_code == 400


def test_a_logged_in_user_joins_the_record_to_their_account(client, ana, director):
    user = User.objects.create_user("ana-cuenta", password=PASSWORD)
    client.force_login(user)
    url = reverse("account:claim_link", args=[notices.claim_token(ana)])
    page = text(client.get(url))
    assert "¿Unir la ficha de jugador de Ana Arroyo a tu cuenta «ana-cuenta»?" in page
    joined = client.post(url)
    assert joined.status_code == 302 and joined["Location"] == reverse("account:home")
    ana.refresh_from_db()
    user.refresh_from_db()
    assert ana.user == user and user.email == "ana.arroyo@example.org"
    # an account joins one record only
    other = services.create_player(
        acting_user=director, full_name="Ana Arroyo Hija", email="ana.arroyo@example.org"
    )
    second = client.post(reverse("account:claim_link", args=[notices.claim_token(other)]))
    assert second.status_code == 400
    assert Player.objects.get(pk=other.pk).user is None


# --- the player's page ---------------------------------------------------------------------------


@pytest.fixture
def claimed(director, ana):
    """Ana, claimed by the account "ana", entered in a running tournament (with Beto) and
    signed up (accepted) in another that takes sign-ups."""
    user = User.objects.create_user("ana", password=PASSWORD)
    services.claim_player(user=user, player=ana)
    beto = services.create_player(acting_user=director, full_name="Beto Bravo")
    running = services.create_tournament(
        acting_user=director,
        name="Copa de Otoño",
        date=timezone.localdate(),
        mode="pairs",
        target=100,
        status="running",
    )
    services.register_entry(acting_user=director, tournament=running, players=[ana, beto])
    later = services.create_tournament(
        acting_user=director,
        name="Copa de Invierno",
        date=timezone.localdate() + dt.timedelta(days=30),
        mode="single",
        target=100,
        status="registration",
    )
    services.update_signup_settings(
        acting_user=director,
        tournament=later,
        signup_open=True,
        max_entries=None,
        signup_closes_at=None,
        signup_needs_approval=True,
    )
    services.sign_up(tournament=later, name="Ana Arroyo", email="ana.arroyo@example.org")
    return user


def test_my_page_shows_entries_and_sign_ups_and_edits_the_contact(
    client, claimed, ana, django_capture_on_commit_callbacks
):
    client.force_login(claimed)
    page = client.get(reverse("account:home"))
    body = text(page)
    assert "Copa de Otoño" in body and "Ana Arroyo & Beto Bravo" in body
    assert "Copa de Invierno" in body and "por aprobar" in body
    assert "no-store" in page["Cache-Control"]
    with django_capture_on_commit_callbacks(execute=True):
        saved = client.post(
            reverse("account:home"),
            {
                "email": "ana@nuevo.example.org",
                "phone": "+52 55 1234 5678",
                "notices_consent": "on",
                "current_password": PASSWORD,  # the email changes (tests/test_limits.py)
            },
        )
    assert saved.status_code == 302
    assert [m.to for m in mail.outbox] == [["ana.arroyo@example.org"]]  # the old one is told
    ana.refresh_from_db()
    claimed.refresh_from_db()
    assert (ana.email, ana.phone, ana.notices_consent) == (
        "ana@nuevo.example.org",
        "+52 55 1234 5678",
        True,
    )
    assert claimed.email == "ana@nuevo.example.org"  # the account's followed (it was the same)
    assert "Tus datos se guardaron." in text(client.get(reverse("account:home")))
    refused = client.post(reverse("account:home"), {"email": "", "notices_consent": "on"})
    assert refused.status_code == 400
    assert "Para recibir avisos por correo, escribe tu correo." in text(refused)
    assert Player.objects.get(pk=ana.pk).notices_consent


def test_my_page_asks_to_log_in_and_offers_the_claim_without_a_record(client):
    anonymous = client.get(reverse("account:home"))
    assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("login"))
    client.force_login(User.objects.create_user("sin-ficha", password=PASSWORD))
    page = client.get(reverse("account:home"))
    assert page.status_code == 200
    assert reverse("account:claim") in text(page)


def test_the_footer_links_a_logged_in_user_to_their_page(client, claimed):
    client.force_login(claimed)
    assert f'href="{reverse("account:home")}"' in text(client.get(reverse("public:home")))


# --- anonymising ---------------------------------------------------------------------------------


@pytest.fixture
def played(director, django_capture_on_commit_callbacks, claimed, ana):
    """Ana (nickname, member number, phone, consent, account) has played a rated game: a
    result and ledger rows."""
    services.update_player(
        acting_user=director,
        player=ana,
        full_name="Ana Arroyo",
        nickname="La Tía",
        member_number="S-314",
        email="ana.arroyo@example.org",
        phone="+52 55 1234 5678",
        notices_consent=True,
    )
    t = services.create_tournament(
        acting_user=director,
        name="Copa del Anonimato",
        date=timezone.localdate() - dt.timedelta(days=1),
        mode="pairs",
        target=100,
        status="running",
    )
    others = [
        services.create_player(acting_user=director, full_name=name)
        for name in ("Beto Bravo Dos", "Carla Cruz", "Dani Duarte")
    ]
    e1 = services.register_entry(acting_user=director, tournament=t, players=[ana, others[0]])
    e2 = services.register_entry(acting_user=director, tournament=t, players=others[1:])
    with django_capture_on_commit_callbacks(execute=True):
        rnd = services.set_pairings(
            acting_user=director, tournament=t, round_number=1, tables=[([e1], [e2])]
        )
        services.record_result(
            acting_user=director, table=rnd.tables.get(), tantos_a=100, tantos_b=60, version=None
        )
    assert LedgerRow.objects.filter(player=ana).count() == 1
    return t


def test_anonymising_keeps_results_and_ratings_under_jugador_and_its_id(
    director_client, ana, played, claimed, django_capture_on_commit_callbacks
):
    url = reverse("manage:player_anonymise", args=[ana.pk])
    edit = text(director_client.get(reverse("manage:player_edit", args=[ana.pk])))
    assert f'action="{url}"' in edit and "Unida a la cuenta «ana»." in edit
    asked = director_client.post(url)
    assert asked.status_code == 200 and "¿Anonimizar a Ana Arroyo?" in text(asked)
    assert f"«Jugador {ana.pk}»" in text(asked)
    assert Player.objects.get(pk=ana.pk).anonymised_at is None  # nothing yet
    rating = LedgerRow.objects.get(player=ana).rating_after
    with django_capture_on_commit_callbacks(execute=True):
        done = director_client.post(url, {"confirm": "1"})
    assert done.status_code == 302
    ana.refresh_from_db()
    assert ana.full_name == f"Jugador {ana.pk}"
    assert (ana.nickname, ana.member_number, ana.email, ana.phone) == ("", None, "", "")
    assert not ana.notices_consent and ana.user is None and ana.anonymised_at is not None
    assert not ana.active
    assert User.objects.filter(pk=claimed.pk).exists()  # the account itself stays
    assert Result.objects.filter(table__round__tournament=played).count() == 1
    assert LedgerRow.objects.get(player=ana).rating_after == rating
    standings = text(director_client.get(reverse("public:standings", args=[played.slug])))
    assert f"Jugador {ana.pk} & Beto Bravo Dos" in standings and "Ana Arroyo" not in standings
    ranking = text(Client().get(reverse("rankings:player", args=[ana.pk])))
    assert f"Jugador {ana.pk}" in ranking and "Ana Arroyo" not in ranking
    # nothing left of the old name or contact in the history or the sign-up requests
    for row in Player.history.filter(id=ana.pk):
        assert "Ana" not in row.full_name and row.email == "" and row.phone == ""
        assert row.nickname == "" and not row.member_number
    for signup in SignUp.objects.filter(player=ana):
        assert (signup.name, signup.email) == (f"Jugador {ana.pk}", "")
        for row in signup.history.all():
            assert (row.name, row.email, row.phone) == (f"Jugador {ana.pk}", "", "")
    assert Player.history.filter(id=ana.pk).first().history_user.username == "directora"
    # twice: said in words
    again = director_client.post(url, {"confirm": "1"}, follow=True)
    assert f"Esta ficha ya está anonimizada (Jugador {ana.pk})." in text(again)


def test_an_anonymised_player_gets_no_notices_and_cannot_be_claimed(client, played, ana):
    services.anonymise_player(acting_user=None, player=ana)
    assert notices.claimable_player(notices.claim_token(ana)) is None
    assert not notices.recipients().filter(pk=ana.pk).exists()


# --- email and phone are never public -----------------------------------------------------------


def _public_urls(kwargs):
    """Every URL of the site outside /gestion/ and the admin whose arguments ``kwargs`` has."""

    def walk(patterns, prefix_ns=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                ns = p.namespace or ""
                if ns in ("manage", "admin"):
                    continue
                yield from walk(p.url_patterns, f"{prefix_ns}{ns}:" if ns else prefix_ns)
            elif isinstance(p, URLPattern) and p.name:
                names = list(getattr(p.pattern, "converters", {}))
                yield f"{prefix_ns}{p.name}", names

    for name, names in walk(get_resolver().url_patterns):
        try:
            yield reverse(name, kwargs={n: kwargs[n] for n in names})
        except KeyError:
            continue


def test_email_and_phone_never_appear_on_a_public_page(client, played, ana, claimed):
    services.update_player(
        acting_user=None,
        player=ana,
        full_name="Ana Arroyo",
        email="ana.secreta@example.org",
        phone="+52 55 9876 5432",
    )
    kwargs = {
        "slug": played.slug,
        "number": 1,
        "pk": ana.pk,
        "year": timezone.localdate().year,
    }
    extra = [
        reverse("public:find_table", args=[played.slug]) + "?q=Ana",
        reverse("public:round_by_name", args=[played.slug, 1]),
    ]
    secrets = ("ana.secreta", "9876", "98 76", "+52 55")
    looked = 0
    for url in [*_public_urls(kwargs), *extra]:
        response = client.get(url)
        if response.status_code != 200 or response.get("Content-Type", "").startswith(
            ("application/pdf", "image/", "application/vnd")
        ):
            continue
        body = response.content.decode("utf-8", "replace")
        for secret in secrets:
            assert secret not in body, (url, secret)
        looked += 1
    assert looked >= 15


# --- the mail settings ----------------------------------------------------------------------------

SHOW_MAIL = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'mailers': s.MAILERS, 'from': s.DEFAULT_FROM_EMAIL, 'site': s.SITE_URL}))"
)


def test_mail_goes_to_the_console_unless_an_smtp_server_is_set():
    import json

    result = run_python(SHOW_MAIL)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["mailers"] == {"default": {"BACKEND": "clubsite.mail.ReadableConsoleBackend"}}
    assert shown["site"] == "http://127.0.0.1:8000"
    result = run_python(
        SHOW_MAIL,
        DJANGO_EMAIL_HOST="smtp.example.org",
        DJANGO_EMAIL_PORT="465",
        DJANGO_EMAIL_HOST_USER="avisos@club.example.org",
        DJANGO_EMAIL_HOST_PASSWORD="s3creto",
        DJANGO_EMAIL_USE_TLS="no",
        DJANGO_DEFAULT_FROM_EMAIL="Club de dominó <avisos@club.example.org>",
        DJANGO_SITE_URL="https://club.example.org/",
    )
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["mailers"]["default"] == {
        "BACKEND": "clubsite.mail.SMTPBackend",
        "OPTIONS": {
            "host": "smtp.example.org",
            "port": 465,
            "username": "avisos@club.example.org",
            "password": "s3creto",
            "use_tls": False,
            "timeout": 20,
        },
    }
    assert shown["from"] == "Club de dominó <avisos@club.example.org>"
    assert shown["site"] == "https://club.example.org"


@pytest.mark.parametrize(
    "variables, start, example",
    [
        ({"DJANGO_EMAIL_PORT": "70000"}, "DJANGO_EMAIL_PORT='70000' is not a whole number", "587"),
        (
            {"DJANGO_EMAIL_HOST": "smtp://smtp.example.org"},
            "DJANGO_EMAIL_HOST='smtp://smtp.example.org' is not a host name",
            "DJANGO_EMAIL_HOST=smtp.example.org",
        ),
        (
            {"DJANGO_EMAIL_USE_TLS": "quizá"},
            "DJANGO_EMAIL_USE_TLS='quizá' is neither on nor off",
            "DJANGO_EMAIL_USE_TLS=0",
        ),
        (
            {"DJANGO_DEFAULT_FROM_EMAIL": "el club"},
            "DJANGO_DEFAULT_FROM_EMAIL='el club' is not an email address",
            "avisos@club.example.org",
        ),
        (
            {"DJANGO_SITE_URL": "club.example.org"},
            "DJANGO_SITE_URL='club.example.org' is not the site's address",
            "DJANGO_SITE_URL=https://club.example.org",
        ),
        (
            {"DJANGO_EMAIL_HOST": "smtp.example.org"},
            "Set DJANGO_DEFAULT_FROM_EMAIL when DJANGO_EMAIL_HOST is set",
            "avisos@club.example.org",
        ),
        (
            {
                "DJANGO_EMAIL_HOST": "smtp.example.org",
                "DJANGO_DEFAULT_FROM_EMAIL": "avisos@club.example.org",
                "DJANGO_EMAIL_HOST_PASSWORD": "s3creto",
            },
            "Set both DJANGO_EMAIL_HOST_USER and DJANGO_EMAIL_HOST_PASSWORD",
            "DJANGO_EMAIL_HOST_USER=",
        ),
    ],
)
def test_a_malformed_mail_variable_stops_the_start_up(variables, start, example):
    result = run_python(SETUP, **variables)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("django.core.exceptions.ImproperlyConfigured: " + start), last
    assert example in last, last
    assert "s3creto" not in result.stderr and "During handling" not in result.stderr
