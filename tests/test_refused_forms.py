"""A refused form sent by a browser without JavaScript is answered at the page's own address
(clubsite.http.RefusedFormMiddleware): a 303 to the page it came from, that page once with the
refusal and the typed values, then the page as it is now; a reload never sends it again."""

import pytest
from django.urls import reverse

from tests.tournaments import test_no_js_forms
from tests.tournaments.test_no_js_forms import HTMX, input_value, row_html, text
from tournaments.models import Result

pytestmark = pytest.mark.django_db

club = test_no_js_forms.club  # the fixture: a round of two tables, table 1 saved 100–20

BROWSER = {"HTTP_ACCEPT": "text/html,application/xhtml+xml,*/*;q=0.8"}


def refused_post(client, t, table, round_url, **extra):
    return client.post(
        reverse("manage:result_save", args=[t.slug, table.pk]),
        {"tantos_a": "80", "tantos_b": "61", "version": "1", "action": "save"},
        HTTP_REFERER=f"http://testserver{round_url}",
        **BROWSER,
        **extra,
    )


def test_a_refused_save_is_shown_once_at_the_rounds_address(director_client, club):
    t, (first, _second) = club["t"], club["tables"]
    round_url = f"/gestion/torneos/{t.slug}/ronda/1/"
    moved = refused_post(director_client, t, first, round_url)
    assert moved.status_code == 303
    assert moved["Location"] == round_url
    cookie = moved.cookies["clubsite_refused"]
    assert cookie["path"] == round_url and cookie["httponly"] and cookie["samesite"] == "Lax"

    shown = director_client.get(round_url, **BROWSER)
    assert shown.status_code == 400
    assert shown["Cache-Control"] == "private, no-store"
    body = text(shown)
    assert "Ningún lado llegó a 100 tantos (80–61)" in body
    assert input_value(row_html(body, 1), "tantos_a") == "80"
    assert shown.cookies["clubsite_refused"].value == ""  # the cookie is gone with it

    again = director_client.get(round_url, **BROWSER)  # a reload: the page as it is now
    assert again.status_code == 200
    assert "Ningún lado llegó" not in text(again)
    result = Result.objects.get(table=first)
    assert (result.tantos_a, result.tantos_b) == (100, 20)


def test_the_kept_page_is_served_only_at_its_address_and_once(director_client, club):
    t, (first, _second) = club["t"], club["tables"]
    round_url = f"/gestion/torneos/{t.slug}/ronda/1/"
    refused_post(director_client, t, first, round_url)
    elsewhere = director_client.get(f"/gestion/torneos/{t.slug}/", **BROWSER)
    assert "Ningún lado llegó" not in text(elsewhere)
    assert director_client.get(round_url, **BROWSER).status_code == 400
    assert director_client.get(round_url, **BROWSER).status_code == 200


def test_htmx_scripts_and_good_saves_are_answered_in_place(director_client, club):
    t, (first, second) = club["t"], club["tables"]
    round_url = f"/gestion/torneos/{t.slug}/ronda/1/"
    assert refused_post(director_client, t, first, round_url, **HTMX).status_code == 400
    no_html = director_client.post(
        reverse("manage:result_save", args=[t.slug, first.pk]),
        {"tantos_a": "80", "tantos_b": "61", "version": "1", "action": "save"},
    )
    assert no_html.status_code == 400  # a client that did not ask for a page (a script)
    good = director_client.post(
        reverse("manage:result_save", args=[t.slug, second.pk]),
        {"tantos_a": "100", "tantos_b": "31", "version": "0", "action": "save"},
        HTTP_REFERER=f"http://testserver{round_url}",
        **BROWSER,
    )
    assert good.status_code == 302 and "clubsite_refused" not in good.cookies


def test_without_a_referer_the_forms_own_address_shows_it(director_client, club):
    t, (first, _second) = club["t"], club["tables"]
    url = reverse("manage:result_save", args=[t.slug, first.pk])
    moved = director_client.post(
        url, {"tantos_a": "80", "tantos_b": "61", "version": "1", "action": "save"}, **BROWSER
    )
    assert moved.status_code == 303 and moved["Location"] == url
    assert director_client.get(url, **BROWSER).status_code == 400
    # reloaded: the address only takes a form, so the page above it (FormOnlyAddressMiddleware)
    assert director_client.get(url, **BROWSER).status_code == 303


def test_a_foreign_referer_is_not_followed(director_client, club):
    t, (first, _second) = club["t"], club["tables"]
    moved = director_client.post(
        reverse("manage:result_save", args=[t.slug, first.pk]),
        {"tantos_a": "80", "tantos_b": "61", "version": "1", "action": "save"},
        HTTP_REFERER="https://elsewhere.example/gestion/",
        **BROWSER,
    )
    assert moved["Location"] == reverse("manage:result_save", args=[t.slug, first.pk])


def test_a_refused_public_sign_up_is_shown_at_its_page_and_a_reload_resends_nothing(
    client, director
):
    import re

    from tests import builders
    from tournaments import services
    from tournaments.models import SignUp

    t = builders.signup_tournament(acting_user=director)
    services.create_player(acting_user=director, full_name="Elvira Fuentes", member_number="S-1")
    url = reverse("public:signup", args=[t.slug])
    moved = client.post(
        url,
        {"name": "Elvira Fuentes", "member_number": "S-9", "email": ""},
        HTTP_REFERER=f"http://testserver{url}",
        **BROWSER,
    )
    assert moved.status_code == 303 and moved["Location"] == url
    shown = client.get(url, **BROWSER)
    assert shown.status_code == 400
    assert re.search(r'name="member_number"[^>]*value="S-9"', text(shown))
    assert "El club ya tiene un jugador llamado «Elvira Fuentes»" in text(shown)
    reloaded = client.get(url, **BROWSER)
    assert reloaded.status_code == 200
    assert "El club ya tiene un jugador" not in text(reloaded)
    assert not SignUp.objects.exists()


def test_a_refused_login_is_shown_at_the_login_page_and_a_reload_sends_no_password(client):
    for url in (reverse("login"), "/admin/login/"):
        moved = client.post(
            url,
            {"username": "nadie", "password": "mal"},
            HTTP_REFERER=f"http://testserver{url}",
            **BROWSER,
        )
        assert moved.status_code == 303 and moved["Location"] == url, url
        shown = client.get(url, **BROWSER)
        assert shown.status_code == 400
        assert 'value="nadie"' in text(shown)
        reloaded = client.get(url, **BROWSER)  # a reload: the empty form, no password sent
        assert reloaded.status_code == 200 and 'value="nadie"' not in text(reloaded)
