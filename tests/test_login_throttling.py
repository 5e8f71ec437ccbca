"""Login throttling with django-axes (clubsite/settings.py, "login throttling"): five failed
logins for one username from one address lock that pair out for 15 minutes, even with the right
password, with a Spanish lockout page; tests that log in with force_login/login keep working."""

import datetime as dt

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import RequestFactory
from django.urls import reverse

from clubsite.client_ip import client_ip

pytestmark = pytest.mark.django_db

RIGHT = "la-clave-correcta-7"


@pytest.fixture
def axes_on(settings):
    """Throttling as in production (tests/conftest.py turns it off for the other tests)."""
    settings.AXES_ENABLED = True


@pytest.fixture
def user(db):
    return User.objects.create_user("directora", password=RIGHT, is_staff=True)


def attempt(client, password, username="directora", **extra):
    return client.post(reverse("login"), {"username": username, "password": password}, **extra)


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_four_failures_still_let_the_right_password_in(axes_on, user, client):
    for _ in range(4):
        response = attempt(client, "mala")
        assert response.status_code == 400 and "incorrectos" in response.content.decode()
    assert attempt(client, RIGHT).status_code == 302 and logged_in(client)


def test_the_sixth_attempt_is_refused_even_with_the_right_password(axes_on, user, client):
    for _ in range(5):
        attempt(client, "mala")
    response = attempt(client, RIGHT)
    assert response.status_code == 429
    page = response.content.decode()
    assert "Acceso bloqueado por 15 minutos" in page
    assert "ni siquiera con la contraseña correcta" in page
    assert not logged_in(client)


def test_the_lock_is_per_username_and_address(axes_on, user, client):
    User.objects.create_user("otro", password=RIGHT, is_staff=True)
    for _ in range(5):
        attempt(client, "mala")
    assert attempt(client, RIGHT, REMOTE_ADDR="10.0.0.9").status_code == 302  # another address
    client.logout()
    assert attempt(client, RIGHT, username="otro").status_code == 302  # another user


def test_the_lock_ends_after_15_minutes(axes_on, user, client):
    for _ in range(5):
        attempt(client, "mala")
    assert attempt(client, RIGHT).status_code == 429
    for row in AccessAttempt.objects.all():
        row.attempt_time -= dt.timedelta(minutes=15, seconds=1)
        row.save(update_fields=["attempt_time"])
    assert attempt(client, RIGHT).status_code == 302 and logged_in(client)


def test_a_success_resets_the_count(axes_on, user, client):
    for _ in range(4):
        attempt(client, "mala")
    assert attempt(client, RIGHT).status_code == 302
    client.logout()
    for _ in range(4):
        attempt(client, "mala")
    assert attempt(client, RIGHT).status_code == 302 and logged_in(client)


def test_force_login_works_with_throttling_on(axes_on, user, client):
    client.force_login(user)
    assert logged_in(client)


def test_client_login_works_in_the_other_tests(user, client):
    assert client.login(username="directora", password=RIGHT)


def test_behind_one_proxy_the_address_is_the_one_the_proxy_appended(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    request = RequestFactory().get(
        "/", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7", REMOTE_ADDR="127.0.0.1"
    )
    assert client_ip(request) == "203.0.113.7"  # the forged left part is ignored
    assert client_ip(RequestFactory().get("/", REMOTE_ADDR="127.0.0.1")) == "127.0.0.1"
    settings.TRUSTED_PROXY_COUNT = 0
    assert client_ip(request) == "127.0.0.1"


def test_behind_a_proxy_clients_are_locked_out_one_by_one(axes_on, user, client, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    for _ in range(5):
        attempt(client, "mala", HTTP_X_FORWARDED_FOR="198.51.100.1")
    assert attempt(client, RIGHT, HTTP_X_FORWARDED_FOR="198.51.100.1").status_code == 429
    assert attempt(client, RIGHT, HTTP_X_FORWARDED_FOR="198.51.100.2").status_code == 302
