"""The public pages' cache (clubsite.pagecache, docs/performance.md "Page cache"): a page is
computed once per change of the data and served from the shared cache to every anonymous
reader in one query; any save, whatever its path, is seen by the next request; logged-in users
and pages that would differ per reader are never served from it."""

import re

import pytest
from django.db import connection, transaction
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone

from clubsite import pagecache
from rankings import ledger
from tournaments import services
from tournaments.models import Player

# Real commits (transaction=True): the new data generation is drawn when a write commits.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.page_cache]

HTMX = {"HTTP_HX_REQUEST": "true"}
NAMES = [
    "Aurora Bastida",
    "Bruno Calleja",
    "Celia Dorado",
    "Darío Espejo",
    "Elena Fuster",
    "Fermín Galán",
    "Gloria Herrán",
    "Hugo Ibarra",
]


@pytest.fixture
def running(director):
    """Four pairs, round 1 open with two tables; table 1 already has 100–40."""
    t = services.create_tournament(
        acting_user=director, name="Copa Caché", date=timezone.localdate(), mode="pairs"
    )
    players = [services.create_player(acting_user=director, full_name=n) for n in NAMES]
    entries = [
        services.register_entry(acting_user=director, tournament=t, players=players[i : i + 2])
        for i in range(0, 8, 2)
    ]
    rnd = services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=1,
        tables=[([entries[0]], [entries[1]]), ([entries[2]], [entries[3]])],
    )
    services.record_result(
        acting_user=director, table=rnd.tables.get(number=1), tantos_a=100, tantos_b=40, version=0
    )
    t.refresh_from_db()
    return t, rnd


def standings_url(t):
    return reverse("public:standings", args=[t.slug])


def test_the_second_anonymous_request_is_served_from_the_cache_in_one_query(
    client, running, django_assert_num_queries
):
    t, _ = running
    first = client.get(standings_url(t))
    assert first.status_code == 200
    with django_assert_num_queries(1):  # the data generation; the page itself is in memory
        second = client.get(standings_url(t))
    assert second.status_code == 200 and second.content == first.content
    assert second["ETag"] == first["ETag"]
    assert {"public", "max-age=0", "must-revalidate"} <= {
        p.strip() for p in second["Cache-Control"].split(",")
    }


def test_another_app_server_reads_the_page_from_the_shared_cache(
    client, running, django_assert_num_queries
):
    t, _ = running
    first = client.get(standings_url(t))
    pagecache.clear_local()  # as a second process that never served this page
    with django_assert_num_queries(2):  # the generation and the page, both from django_cache
        second = client.get(standings_url(t))
    assert second.content == first.content


def test_a_result_saved_through_the_round_page_is_on_the_next_public_request(
    client, director, running
):
    t, rnd = running
    before = client.get(standings_url(t)).content.decode()
    assert ">95<" not in before.replace(" ", "")  # a figure cell (a time stamp may hold "95")
    table = rnd.tables.get(number=2)
    director_client = Client()
    director_client.force_login(director)
    saved = director_client.post(
        reverse("manage:result_save", args=[t.slug, table.pk]),
        {"tantos_a": "95", "tantos_b": "100", "version": "0"},
        **HTMX,
    )
    assert saved.status_code == 200
    after = client.get(standings_url(t))
    assert after.content.decode() != before and ">95<" in after.content.decode().replace(" ", "")


def test_the_ranking_page_follows_a_ledger_replay(client, director, running):
    t, rnd = running
    ledger.replay_from(None)
    url = reverse("rankings:ranking")
    before = client.get(url).content.decode()
    assert before.count('href="/ranking/jugador/') == 4  # the four players of table 1
    services.record_result(
        acting_user=director, table=rnd.tables.get(number=2), tantos_a=100, tantos_b=60, version=0
    )
    # No explicit replay: the commit ran it (rankings.signals), and the replay drew a new generation.
    after = client.get(url).content.decode()
    assert after.count('href="/ranking/jugador/') == 8


def test_a_players_new_name_shows_on_every_page(client, director, running):
    t, _ = running
    assert "Aurora Bastida" in client.get(standings_url(t)).content.decode()
    services.update_player(
        acting_user=director,
        player=Player.objects.get(full_name="Aurora Bastida"),
        full_name="Aurora Bastida Ruiz",
    )
    assert "Aurora Bastida Ruiz" in client.get(standings_url(t)).content.decode()


def test_logged_in_users_are_never_served_the_anonymous_page(director_client, running):
    t, _ = running
    anonymous = Client().get(standings_url(t))
    assert "Gestión" not in anonymous.content.decode()
    logged_in = director_client.get(standings_url(t))
    assert "Gestión" in logged_in.content.decode() and not logged_in.has_header("ETag")
    assert "private" in logged_in["Cache-Control"]


def test_languages_and_partials_are_kept_apart(client, running, django_assert_num_queries):
    t, _ = running
    url = standings_url(t)
    spanish = client.get(url, HTTP_ACCEPT_LANGUAGE="es")
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    partial = client.get(url, HTTP_ACCEPT_LANGUAGE="es", **HTMX)
    assert re.search(r'<html lang="es"', spanish.content.decode())
    assert re.search(r'<html lang="en"', english.content.decode())
    assert "<html" not in partial.content.decode()
    assert len({spanish["ETag"], english["ETag"], partial["ETag"]}) == 3
    with django_assert_num_queries(1):
        again = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert again.content == english.content


def test_public_pages_set_no_cookie_and_carry_no_csrf_token(client, running):
    t, _ = running
    ledger.replay_from(None)
    for url in (
        "/",
        "/torneos/",
        standings_url(t),
        reverse("public:find_table", args=[t.slug]),
        reverse("rankings:ranking"),
        "/glosario/",
    ):
        response = client.get(url)
        body = response.content.decode()
        assert response.status_code == 200, url
        assert not response.cookies, url
        assert "csrfmiddlewaretoken" not in body and "X-CSRFToken" not in body, url
        assert response.has_header("ETag"), url


def test_a_not_found_page_and_a_page_that_sets_a_cookie_are_not_stored():
    calls = []

    @pagecache.cached_page
    def view(request, status=200, cookie=False):
        calls.append(status)
        response = HttpResponse("página", status=status)
        if cookie:
            response.set_cookie("x", "1")
        return response

    from django.contrib.auth.models import AnonymousUser

    def get(path):
        request = RequestFactory().get(path)
        request.user = AnonymousUser()
        return request

    for kwargs in ({"status": 404}, {"cookie": True}):
        view(get("/a/"), **kwargs)
        view(get("/a/"), **kwargs)
    assert len(calls) == 4
    first = view(get("/b/"))
    second = view(get("/b/"))
    assert len(calls) == 5 and first["ETag"] == second["ETag"]


def test_changed_draws_one_new_generation_when_the_transaction_commits():
    start = pagecache.generation()
    with transaction.atomic():
        pagecache.changed()
        pagecache.changed()
        pagecache.changed()
        hooks = [h for h in connection.run_on_commit if h[1] is pagecache._new_generation]
        assert len(hooks) == 1  # one draw at commit, however many changes
        assert pagecache.generation() == start  # the old rows and the old generation agree
    after = pagecache.generation()
    assert after != start
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        pagecache.changed()
        raise ZeroDivisionError
    assert pagecache.generation() == after  # rolled back: nothing changed, nothing drawn
    assert not connection.run_on_commit
    pagecache.changed()  # outside a transaction: at once
    assert pagecache.generation() != after


def test_a_committed_save_through_a_real_transaction_changes_the_page(client, director):
    t = services.create_tournament(
        acting_user=director,
        name="Copa Real",
        date=timezone.localdate(),
        mode="pairs",
        status="running",
    )
    url = reverse("public:tournament", args=[t.slug])
    first = client.get(url)
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    services.update_tournament(acting_user=director, tournament=t, venue="Casino del Puerto")
    second = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert second.status_code == 200 and "Casino del Puerto" in second.content.decode()


def test_a_new_deploy_changes_every_key(client, running, monkeypatch):
    t, _ = running
    etag = client.get(standings_url(t))["ETag"]
    monkeypatch.setattr(pagecache, "_deploy", "another-deploy")
    monkeypatch.setattr(pagecache.settings, "DEBUG", False)
    assert client.get(standings_url(t))["ETag"] != etag


def test_with_the_cache_server_down_pages_are_computed_and_saves_still_work(
    client, director, running, settings
):
    t, rnd = running
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",
        }
    }  # nothing listens there
    response = client.get(standings_url(t))
    assert response.status_code == 200 and "Copa Caché" in response.content.decode()
    assert not response.has_header("ETag")
    services.record_result(
        acting_user=director, table=rnd.tables.get(number=2), tantos_a=100, tantos_b=60, version=0
    )
    assert ">60<" in client.get(standings_url(t)).content.decode().replace(" ", "")
