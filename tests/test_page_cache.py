"""The public pages' cache (clubsite.pagecache, docs/performance.md "Page cache"): a page is
computed once per change of the data and served from the shared cache to every anonymous
reader in one query; any save, whatever its path, is seen by the next request; logged-in users
and pages that would differ per reader are never served from it."""

import re
import threading
import time
import types

import pytest
from django.db import connection, connections, transaction
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone

from clubsite import pagecache
from rankings import ledger
from rankings import queries as ranking_queries
from tests import builders
from tournaments import services
from tournaments.models import Player, Round, Table, Tournament

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


def paired(director, name, *, rated=True):
    """A tournament of four pairs (the eight players of ``NAMES``, made once), round 1 open
    with two tables; table 1 already has 100–40. Returns (tournament, round)."""
    t = builders.tournament(
        acting_user=director, name=name, date=timezone.localdate(), mode="pairs", rated=rated
    )
    players = [
        Player.objects.filter(full_name=n).first() or builders.player(n, acting_user=director)
        for n in NAMES
    ]
    entries = builders.entries(t, players, acting_user=director)
    tables = [(entries[0], entries[1]), (entries[2], entries[3])]
    rnd = builders.pair(t, 1, tables, acting_user=director)
    builders.record(
        rnd.tables.get(number=1), acting_user=director, version=0, tantos_a=100, tantos_b=40
    )
    t.refresh_from_db()
    return t, rnd


@pytest.fixture
def running(director):
    """Four pairs, round 1 open with two tables; table 1 already has 100–40."""
    return paired(director, "Copa Caché")


@pytest.fixture
def two(director):
    """Two such tournaments, unrated (their results start no ledger replay, whose new
    generation is the ranking's business)."""
    return paired(director, "Copa Norte", rated=False), paired(director, "Copa Sur", rated=False)


@pytest.fixture
def drawn(monkeypatch):
    """The scopes of each draw of new generations, in order (one set per committed
    transaction that changed something). The players' stories refreshed after a commit
    (``rankings.tasks.refresh_stories``: their own draw of ``player:<id>`` scopes) are left
    out: tests/rankings/test_stored_stories.py has them."""
    draws = []
    real = pagecache._draw

    def spy(scopes):
        shown = {s for s in scopes if not s.startswith("player:")}
        if shown:
            draws.append(shown)
        real(scopes)

    monkeypatch.setattr(pagecache, "_draw", spy)
    return draws


@pytest.fixture
def signalled(monkeypatch):
    """The scopes the model signals asked for (``pagecache.scopes_of``), one set per call of
    the returned function, which runs a change: what the page cache maps the written rows to,
    apart from what other code (the ledger) asks for itself."""
    asked = []
    real = pagecache.scopes_of

    def spy(*args, **kwargs):
        scopes = real(*args, **kwargs)
        asked.extend(scopes)
        return scopes

    monkeypatch.setattr(pagecache, "scopes_of", spy)

    def during(change) -> set[str]:
        asked.clear()
        change()
        return set(asked)

    return during


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
        hooks = [h for h in connection.run_on_commit if isinstance(h[1], pagecache._Draw)]
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


# --- scopes: a change renews the generations of the pages that show it, and only those --------


def tournament_urls(t):
    return [
        reverse("public:tournament", args=[t.slug]),
        standings_url(t),
        reverse("public:standings_csv", args=[t.slug]),
        reverse("public:round", args=[t.slug, 1]),
        reverse("public:round_print", args=[t.slug, 1]),
        reverse("public:find_table", args=[t.slug]),
    ]


def etags(client, urls) -> dict[str, str]:
    """Each page's ETag, after a first request that stored it."""
    found = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        found[url] = response["ETag"]
    return found


def still(client, tags) -> dict[str, bool]:
    """Whether each page still has its ETag (a conditional GET answers 304)."""
    return {
        url: client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
        for url, etag in tags.items()
    }


def test_a_result_in_one_tournament_leaves_the_other_tournaments_pages_cached(
    client, director, two, django_assert_num_queries
):
    (a, rnd_a), (b, _) = two
    b_first = client.get(standings_url(b))
    a_first = client.get(standings_url(a))
    b_tags = etags(client, tournament_urls(b))
    a_tags = etags(client, tournament_urls(a))
    services.record_result(
        acting_user=director, table=rnd_a.tables.get(number=2), tantos_a=100, tantos_b=60, version=0
    )
    with django_assert_num_queries(1):  # the generations of "all" and B's scope, in one read
        b_again = client.get(standings_url(b))
    assert b_again.content == b_first.content and b_again["ETag"] == b_first["ETag"]
    assert still(client, b_tags) == dict.fromkeys(b_tags, True)
    a_again = client.get(standings_url(a))
    assert a_again["ETag"] != a_first["ETag"]
    assert ">60<" in a_again.content.decode().replace(" ", "")
    assert still(client, a_tags) == dict.fromkeys(a_tags, False)


def test_a_players_new_name_changes_every_page(client, director, two):
    (a, _), (b, _) = two
    ledger.replay_from(None)
    aurora = Player.objects.get(full_name="Aurora Bastida")
    urls = [
        *tournament_urls(a),
        *tournament_urls(b),
        "/",
        "/torneos/",
        reverse("rankings:ranking"),
        reverse("rankings:player", args=[aurora.pk]),
        "/glosario/",
    ]
    tags = etags(client, urls)
    assert still(client, tags) == dict.fromkeys(tags, True)
    services.update_player(acting_user=director, player=aurora, full_name="Aurora Bastida Ruiz")
    assert still(client, tags) == dict.fromkeys(tags, False)


def test_a_new_ranking_generation_changes_the_ranking_pages_and_home_not_a_tournaments(
    client, director, running, django_assert_num_queries
):
    t, _ = running
    ledger.replay_from(None)
    aurora = Player.objects.get(full_name="Aurora Bastida")
    year = timezone.localdate().year
    ranking_pages = [
        "/",
        reverse("rankings:ranking"),
        reverse("rankings:ranking_csv", args=[year]),
        reverse("rankings:player", args=[aurora.pk]),
        reverse("rankings:player_csv", args=[aurora.pk]),
    ]
    ranked = etags(client, ranking_pages)
    others = etags(client, [*tournament_urls(t), "/torneos/", "/glosario/"])
    pagecache.changed(pagecache.RANKING)
    assert still(client, ranked) == dict.fromkeys(ranked, False)
    assert still(client, others) == dict.fromkeys(others, True)
    with django_assert_num_queries(1):
        assert client.get(standings_url(t))["ETag"] == others[standings_url(t)]


def test_the_lists_change_with_the_club_scope_only(client, running):
    t, _ = running
    lists = etags(client, ["/", "/torneos/"])
    others = etags(client, [standings_url(t), reverse("rankings:ranking")])
    pagecache.changed(pagecache.CLUB)
    assert still(client, lists) == dict.fromkeys(lists, False)
    assert still(client, others) == dict.fromkeys(others, True)


def test_a_rolled_back_transaction_draws_nothing(director, two, drawn):
    (a, rnd_a), (b, _) = two
    scopes = [pagecache.ALL, pagecache.CLUB, pagecache.RANKING, pagecache.tournament_scope(a.slug)]
    before = pagecache.generations(scopes)
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        services.record_result(
            acting_user=director,
            table=rnd_a.tables.get(number=2),
            tantos_a=100,
            tantos_b=60,
            version=0,
        )
        services.update_tournament(acting_user=director, tournament=a, name="Copa Otra")
        pagecache.changed(pagecache.RANKING)
        raise ZeroDivisionError
    assert drawn == [] and pagecache.generations(scopes) == before
    assert not connection.run_on_commit


def test_scopes_changed_in_one_transaction_are_drawn_once_each_at_its_commit(director, two, drawn):
    (a, rnd_a), (b, _) = two
    in_a, in_b = pagecache.tournament_scope(a.slug), pagecache.tournament_scope(b.slug)
    scopes = [pagecache.ALL, pagecache.CLUB, pagecache.RANKING, in_a, in_b]
    before = pagecache.generations(scopes)
    with transaction.atomic():
        pagecache.changed(pagecache.CLUB)
        pagecache.changed(pagecache.RANKING, pagecache.CLUB)
        services.record_result(  # a result (and its table's version) in A: A's scope and CLUB
            acting_user=director,
            table=rnd_a.tables.get(number=2),
            tantos_a=100,
            tantos_b=60,
            version=0,
        )
        pagecache.changed(pagecache.RANKING)
        hooks = [h for h in connection.run_on_commit if isinstance(h[1], pagecache._Draw)]
        assert len(hooks) == 1 and hooks[0][1].scopes == {pagecache.CLUB, pagecache.RANKING, in_a}
        assert pagecache.generations(scopes) == before  # nothing drawn before the commit
    assert drawn == [{pagecache.CLUB, pagecache.RANKING, in_a}]
    after = pagecache.generations(scopes)
    assert {s for s in scopes if after[s] != before[s]} == {pagecache.CLUB, pagecache.RANKING, in_a}


def test_each_kind_of_change_asks_for_the_scopes_of_the_pages_that_show_it(
    director, two, signalled
):
    (a, rnd_a), (b, _) = two
    in_a = pagecache.tournament_scope(a.slug)
    club, ranking = pagecache.CLUB, pagecache.RANKING
    table = rnd_a.tables.get(number=2)
    e = list(a.entries.order_by("pk"))

    def result(version, tantos_b):
        return lambda: services.record_result(
            acting_user=director, table=table, tantos_a=100, tantos_b=tantos_b, version=version
        )

    # A first result at a table: the home page's current round may move on.
    assert signalled(result(0, 60)) == {in_a, club}
    assert signalled(result(1, 70)) == {in_a}  # a correction: counts and rounds unchanged
    castigo = lambda: services.add_castigo(  # noqa: E731
        acting_user=director,
        tournament=a,
        round=rnd_a,
        player=e[0].player1,
        tantos=5,
        reason="Hablar durante la mano",
    )
    assert signalled(castigo) == {in_a}
    # A sorteo waits for the final order (SCORING.md §9): round 1, complete, is the last one.
    a = services.update_tournament(acting_user=director, tournament=a, rounds_planned=1)
    sorteo = lambda: services.record_sorteo(  # noqa: E731
        acting_user=director, tournament=a, entries_in_order=[e[1], e[0]]
    )
    assert signalled(sorteo) == {in_a}
    # Closing a round: the home page's current round may move on.
    assert signalled(lambda: services.close_round(acting_user=director, round=rnd_a)) == {
        in_a,
        club,
    }
    # The lists show the venue; the player pages show the name.
    assert signalled(
        lambda: services.update_tournament(acting_user=director, tournament=a, venue="Casino")
    ) == {in_a, club}
    assert signalled(
        lambda: services.update_tournament(acting_user=director, tournament=a, name="Copa Este")
    ) == {in_a, club, ranking}
    players = []
    assert signalled(
        lambda: players.extend(
            services.create_player(acting_user=director, full_name=name)
            for name in ("Íñigo Alcázar", "Julia Lanza")
        )
    ) == {pagecache.ALL}  # a player's name: every page
    assert signalled(
        lambda: services.register_entry(acting_user=director, tournament=b, players=players)
    ) == {pagecache.tournament_scope(b.slug), club, ranking}


def test_a_new_slug_changes_the_pages_at_the_old_and_the_new_address(director, two, drawn):
    (a, _), _ = two
    old = a.slug
    a.slug = "copa-norte-nueva"  # as the admin does: no service changes a slug
    a.save(update_fields=["slug", "updated_at"])
    assert drawn == [
        {
            pagecache.tournament_scope(old),
            pagecache.tournament_scope("copa-norte-nueva"),
            pagecache.CLUB,
            pagecache.RANKING,
        }
    ]


def test_a_table_moved_to_another_tournament_changes_every_page(director, two, drawn):
    (a, rnd_a), (b, rnd_b) = two
    table = Table.objects.get(round=rnd_a, number=2)  # loaded as a form would
    table.round = rnd_b
    table.number = 9
    table.save()
    assert drawn == [{pagecache.ALL}]  # which tournament it left is not known without a query


def test_the_hot_path_finds_the_tournament_without_a_query(director, two, signalled, monkeypatch):
    """A result saved through the service: the rows its signals see carry their round and
    tournament, so the page cache asks the database nothing."""
    (a, rnd_a), _ = two

    def no_query(*args, **kwargs):
        raise AssertionError("the page cache looked a tournament up")

    monkeypatch.setattr(pagecache._Slugs, "_look_up", no_query)
    saved = lambda: services.record_result(  # noqa: E731
        acting_user=director, table=rnd_a.tables.get(number=2), tantos_a=100, tantos_b=60, version=0
    )
    assert signalled(saved) == {pagecache.tournament_scope(a.slug), pagecache.CLUB}


def test_deleting_a_round_looks_its_tournament_up_twice_not_once_a_row(
    director, two, drawn, monkeypatch
):
    """A cascade (the round's tables, seats, byes and results, none carrying its round): one
    query finds the tournament of every table of the round (and the round), one that of its
    rounds: not one per row."""
    (a, rnd_a), _ = two
    calls = []
    real = pagecache._Slugs._look_up

    def counted(self, model, hop, pk):
        calls.append((model.__name__, hop))
        return real(self, model, hop, pk)

    monkeypatch.setattr(pagecache._Slugs, "_look_up", counted)
    Round.objects.get(pk=rnd_a.pk).delete()
    assert drawn == [{pagecache.tournament_scope(a.slug), pagecache.CLUB, pagecache.RANKING}]
    assert sorted(calls) == [("Round", "round"), ("Table", "table")]


def test_a_deleted_tournament_changes_its_pages_the_lists_and_the_ranking(director, drawn):
    t = services.create_tournament(
        acting_user=director, name="Copa Breve", date=timezone.localdate(), mode="pairs"
    )
    slug = t.slug
    drawn.clear()
    Tournament.objects.get(pk=t.pk).delete()
    assert drawn == [{pagecache.tournament_scope(slug), pagecache.CLUB, pagecache.RANKING}]


def test_an_address_typed_at_random_adds_nothing_to_the_cache(client):
    def rows():
        with connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM django_cache")
            return cursor.fetchone()[0]

    client.get("/glosario/")  # the generation of "all" exists
    before = rows()
    for slug in ("no-existe", "x" * 300):
        assert client.get(reverse("public:standings", args=[slug])).status_code == 404
    assert rows() == before


def test_every_public_page_names_its_scopes():
    from rankings import stories
    from rankings import views as ranking_views
    from tournaments import leagues
    from tournaments.views import calendar as calendar_views
    from tournaments.views import glossary, public
    from tournaments.views import leagues as league_views

    T = pagecache.tournament_pages
    expected = {
        public.home: [pagecache.CLUB, pagecache.RANKING],
        public.tournament_list: [pagecache.CLUB],
        public.tournament_detail: T,
        public.standings: T,
        public.standings_csv: T,
        public.standings_xlsx: T,
        public.round_detail: T,
        public.round_print: T,
        public.find_table: T,
        glossary.glossary: [],
        ranking_views.ranking: [pagecache.RANKING],
        ranking_views.ranking_csv: [pagecache.RANKING],
        ranking_views.ranking_xlsx: [pagecache.RANKING],
        ranking_views.ledger_csv: [pagecache.RANKING],
        ranking_views.ledger_xlsx: [pagecache.RANKING],
        ranking_views.player: ranking_views.player_pages,
        league_views.league_list: [leagues.LEAGUES, pagecache.CLUB],
        league_views.league_detail: league_views.league_pages,
        league_views.league_csv: league_views.league_pages,
        league_views.league_xlsx: league_views.league_pages,
        ranking_views.player_csv: [pagecache.RANKING],
        ranking_views.head_to_head: stories.meeting_pages,
        calendar_views.calendar_page: [pagecache.CLUB],
        calendar_views.calendar_ics: [pagecache.CLUB],
        ranking_views.calculator: [pagecache.RANKING],
        ranking_views.player_search: [pagecache.RANKING],
    }
    for view, scopes in expected.items():
        assert view.page_scopes == scopes, view.__name__
    # none with the bare decorator
    for module in (public, glossary, ranking_views, league_views, calendar_views):
        for name, value in vars(module).items():
            if hasattr(value, "page_scopes"):
                assert value in expected, name


def test_what_a_savepoint_looked_up_is_trusted_only_while_it_is_open():
    """A row read in a savepoint that rolled back may be replaced by another with its id."""
    with transaction.atomic():
        outer = pagecache._Slugs(None)
        outer.note("table", 999, 1)
        with transaction.atomic():
            inner = pagecache._Slugs(None)
            assert inner.get("table", 999) == 1  # read before: still true inside
            inner.note("table", 998, 2)
            assert pagecache._Slugs(None).get("table", 998) == 2
        assert pagecache._Slugs(None).get("table", 998) is None
        assert pagecache._Slugs(None).get("table", 999) == 1


# --- herd protection: a page that many readers miss at once is computed once --------------------


def anonymous_get(path):
    from django.contrib.auth.models import AnonymousUser

    request = RequestFactory().get(path)
    request.user = AnonymousUser()
    return request


def together(count, work):
    """``work(i)`` in ``count`` threads started together (a barrier), each with its own
    database connection, closed when it ends. Returns their results in order; a thread's
    exception is raised here."""
    barrier = threading.Barrier(count)
    results, errors = [None] * count, []

    def run(i):
        try:
            barrier.wait(10)
            results[i] = work(i)
        except BaseException as error:  # noqa: BLE001 - handed to the test
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not any(thread.is_alive() for thread in threads)
    if errors:
        raise errors[0]
    return results


def in_thread(work):
    """``work()`` in a thread of its own (its own connection); returns the thread and a list
    that receives the result."""
    out = []

    def run():
        try:
            out.append(work())
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def lock_rows(delete=False) -> list[str]:
    """The compute locks (and markers) in the shared cache (the database cache's table, which
    outlives a test: it is no model's, so no flush empties it); ``delete``: remove them."""
    pattern = [f"%{pagecache.LOCK_KEY_PREFIX}%"]
    with connection.cursor() as cursor:
        if delete:
            cursor.execute("DELETE FROM django_cache WHERE cache_key LIKE %s", pattern)
            return []
        cursor.execute("SELECT cache_key FROM django_cache WHERE cache_key LIKE %s", pattern)
        return [row[0] for row in cursor.fetchall()]


@pytest.fixture
def polls(monkeypatch):
    """The waits between two looks at the cache (``POLL_INTERVAL`` each), counted: an Event set
    at the first one, and the list of them."""
    waited = []
    first = threading.Event()
    real = pagecache.time

    def sleep(seconds):
        waited.append(seconds)
        first.set()
        real.sleep(seconds)

    monkeypatch.setattr(
        pagecache, "time", types.SimpleNamespace(monotonic=real.monotonic, sleep=sleep)
    )
    return first, waited


def current_generations():
    """Draw the generations of ``ALL`` and ``RANKING`` (a page's key then exists before it is
    computed: the lock needs it), with no lock left by an earlier test."""
    lock_rows(delete=True)
    pagecache.generation()
    pagecache.generation(pagecache.RANKING)


UPDATING = b"Actualizando el ranking desde las"


def test_six_concurrent_misses_of_the_ranking_page_compute_it_once(running, monkeypatch):
    ledger.replay_from(None)
    lock_rows(delete=True)
    url = reverse("rankings:ranking")
    old = Client().get(url)  # the generations and the page exist, as on a running site
    assert UPDATING not in old.content
    computed = []
    real = ranking_queries.ranking_years

    def slow_years():
        computed.append(threading.get_ident())
        time.sleep(0.3)  # a page that takes a while: the others arrive while it is computed
        return real()

    monkeypatch.setattr(ranking_queries, "ranking_years", slow_years)
    pagecache.changed(pagecache.RANKING)  # a ledger replay committed: every reader misses
    responses = together(6, lambda i: Client().get(url))
    assert len(computed) == 1
    assert [r.status_code for r in responses] == [200] * 6
    # The one that computed gets the new page; the five others, at once, the earlier page of
    # the same address with the "updating" notice (only the ranking is older), and no ETag.
    new = [r for r in responses if r.has_header("ETag")]
    earlier = [r for r in responses if not r.has_header("ETag")]
    assert len(new) == 1 and new[0]["ETag"] != old["ETag"] and UPDATING not in new[0].content
    assert len(earlier) == 5 and len({r.content for r in earlier}) == 1
    assert UPDATING in earlier[0].content
    notice = re.compile(rb'\s*<p class="notice" role="status" id="ledger-pending">.*?</p>', re.S)
    assert notice.sub(b"", earlier[0].content) == old.content
    assert new[0].content.decode().count('href="/ranking/jugador/') == 4
    assert lock_rows() == []  # released once the page was stored
    again = Client().get(url)
    assert again["ETag"] == new[0]["ETag"] and again.content == new[0].content
    assert len(computed) == 1


def test_concurrent_misses_compute_once_however_long_the_computing_takes(monkeypatch, polls):
    # The lock lives 2 s unless renewed (1 to 2 s: the database cache keeps whole seconds);
    # the page takes 3 s: under the old fixed bound (LOCK_TIMEOUT = WAIT_LIMIT) every waiter
    # would have computed it too.
    monkeypatch.setattr(pagecache, "LOCK_TIMEOUT", 2)
    monkeypatch.setattr(pagecache, "LOCK_RENEW", 0.3)
    _, waited = polls
    current_generations()
    pagecache.generation(pagecache.CLUB)
    calls = []

    @pagecache.cached_page(scopes=[pagecache.CLUB])  # no notice: the others wait
    def view(request):
        calls.append(1)
        time.sleep(3)
        return HttpResponse(f"torneos {len(calls)}")

    started = time.monotonic()
    responses = together(4, lambda i: view(anonymous_get("/torneos/")))
    elapsed = time.monotonic() - started
    assert calls == [1] and elapsed < 5
    assert {r.content for r in responses} == {b"torneos 1"}
    assert len({r["ETag"] for r in responses}) == 1
    assert lock_rows() == []
    # three waiters polled, each wait half as long again up to POLL_MAX: ~35 looks each, not 200
    assert 3 <= len(waited) <= 3 * 45 and max(waited) <= pagecache.POLL_MAX


def test_a_waiter_gets_the_earlier_page_with_the_notice_only_when_the_notice_covers_it(polls):
    polled, waited = polls
    current_generations()
    computing, finish = threading.Event(), threading.Event()
    calls = []

    @pagecache.cached_page(scopes=[pagecache.RANKING])
    def view(request):
        calls.append(1)
        if len(calls) > 1:  # the recomputations are slow
            computing.set()
            finish.wait(10)
        marker = pagecache.notice_marker(request, pagecache.RANKING)
        return HttpResponse(f"<main>{marker}cifras {len(calls)}</main>")

    first = view(anonymous_get("/ranking/"))
    assert first.content == b"<main>cifras 1</main>"  # nothing waits: no notice
    pagecache.changed(pagecache.RANKING)  # a replay committed: the page is computed again
    thread, out = in_thread(lambda: view(anonymous_get("/ranking/")))
    assert computing.wait(10)
    stale = view(anonymous_get("/ranking/"))  # at once: the earlier page, with the notice
    assert waited == [] and not stale.has_header("ETag")
    assert stale.content.startswith(b'<main>\n<p class="notice"') and UPDATING in stale.content
    assert stale.content.endswith(b"</p>\ncifras 1</main>")
    finish.set()
    thread.join(30)
    assert out[0].content == b"<main>cifras 2</main>" and len(calls) == 2
    # A new name (``ALL``) is not what the notice covers: a waiter waits for the new page.
    computing.clear()
    finish.clear()
    pagecache.changed(pagecache.ALL)
    thread, out = in_thread(lambda: view(anonymous_get("/ranking/")))
    assert computing.wait(10)
    waiter, waiter_out = in_thread(lambda: view(anonymous_get("/ranking/")))
    assert polled.wait(10)  # it waits
    finish.set()
    thread.join(30)
    waiter.join(30)
    assert out[0].content == waiter_out[0].content == b"<main>cifras 3</main>"
    assert waiter_out[0]["ETag"] == out[0]["ETag"] and len(calls) == 3


def etag_key(response) -> str:
    """The page key part of an ETag (without the digest of a notice shown)."""
    return response["ETag"].strip('"').split(".")[0]


def test_a_save_queues_a_replay_without_renewing_the_ranking_pages_but_they_say_updating(
    director, running, database_tasks, monkeypatch
):
    from rankings import tasks

    t, rnd = running
    ledger.replay_from(None)
    computed = []
    real = ranking_queries.ranking_years

    def years():
        computed.append(1)
        return real()

    monkeypatch.setattr(ranking_queries, "ranking_years", years)
    client = Client()
    url = reverse("rankings:ranking")
    player = reverse("rankings:player", args=[t.entries.order_by("pk").first().player1_id])
    home = reverse("public:home")
    before = {u: client.get(u) for u in (url, player, home)}
    assert all(UPDATING not in r.content for r in before.values()) and computed == [1]
    services.record_result(
        acting_user=director, table=rnd.tables.get(number=2), tantos_a=100, tantos_b=60, version=0
    )  # a rated result: a replay is queued (the worker would run it), nothing replayed yet
    waiting = {u: client.get(u) for u in (url, player, home)}
    for u, response in waiting.items():
        assert UPDATING in response.content, u
        assert response["ETag"] != before[u]["ETag"]  # a browser's copy is not "not modified"
    # The ranking and the player page: the same stored pages (the player's figures come with
    # the replay, their story with the worker's refresh, which draws their own scope; the
    # tournament is in no league); home is new at once (the round now complete).
    assert etag_key(waiting[url]) == etag_key(before[url])
    assert etag_key(waiting[player]) == etag_key(before[player])
    assert etag_key(waiting[home]) != etag_key(before[home])
    assert computed == [1]  # served from the cache, the notice put in when served
    assert waiting[url].content.decode().count('href="/ranking/jugador/') == 4  # old figures
    conditional = client.get(url, HTTP_IF_NONE_MATCH=before[url]["ETag"])
    assert conditional.status_code == 200 and UPDATING in conditional.content
    assert client.get(url, HTTP_IF_NONE_MATCH=waiting[url]["ETag"]).status_code == 304
    tasks.replay_ledger.call()  # the worker's replay commits the new figures
    after = {u: client.get(u) for u in (url, player, home)}
    for u, response in after.items():
        assert UPDATING not in response.content, u
        assert etag_key(response) != etag_key(waiting[u]), u  # the replay's new figures
    assert after[url].content.decode().count('href="/ranking/jugador/') == 8
    assert computed == [1, 1]


@pytest.mark.parametrize("outcome", ["raises", "not found"])
def test_a_waiter_computes_at_once_when_the_computing_request_fails_or_cannot_store(
    monkeypatch, polls, outcome
):
    monkeypatch.setattr(pagecache, "WAIT_LIMIT", 30)  # only the lock's holder ends the wait
    polled, waited = polls
    current_generations()
    computing, finish = threading.Event(), threading.Event()
    events = []

    @pagecache.cached_page(scopes=[pagecache.RANKING])
    def view(request):
        if not events:
            events.append("first computes")
            computing.set()
            finish.wait(10)
            events.append("first ends")
            if outcome == "raises":
                raise RuntimeError("la consulta falló")
            return HttpResponse("no existe", status=404)
        events.append("waiter computes")
        if outcome == "raises":
            return HttpResponse("clasificación")
        return HttpResponse("no existe", status=404)

    def first():
        try:
            return view(anonymous_get("/ranking/"))
        except RuntimeError as error:
            return error

    first_thread, first_out = in_thread(first)
    assert computing.wait(10)
    waiter_thread, waiter_out = in_thread(lambda: view(anonymous_get("/ranking/")))
    assert polled.wait(10)  # the waiter found the lock and waits
    started = time.monotonic()
    finish.set()
    waiter_thread.join(30)
    first_thread.join(30)
    assert time.monotonic() - started < 3  # at once, not after the 30 s bound
    assert events == ["first computes", "first ends", "waiter computes"]
    waiter = waiter_out[0]
    if outcome == "raises":
        assert isinstance(first_out[0], RuntimeError)
        assert waiter.status_code == 200 and waiter.content == "clasificación".encode()
        assert waiter.has_header("ETag")  # stored by the waiter: the next request is a hit
        again = view(anonymous_get("/ranking/"))
        assert again["ETag"] == waiter["ETag"] and events.count("waiter computes") == 1
        assert lock_rows() == []
    else:
        assert first_out[0].status_code == waiter.status_code == 404
        before = len(waited)
        third = view(anonymous_get("/ranking/"))  # the marker: computed at once, no wait
        assert third.status_code == 404 and len(waited) == before
        assert events.count("waiter computes") == 2
        assert len(lock_rows()) == 1  # the marker, until LOCK_TIMEOUT


def test_a_lock_left_by_a_killed_process_expires(monkeypatch):
    monkeypatch.setattr(pagecache, "WAIT_LIMIT", 30)  # only the lock's expiry ends the wait
    current_generations()
    calls = []

    @pagecache.cached_page(scopes=[pagecache.RANKING])
    def view(request):
        calls.append(1)
        return HttpResponse("clasificación")

    key = pagecache.page_key(
        anonymous_get("/ranking/"), pagecache.generations([pagecache.ALL, pagecache.RANKING])
    )
    from django.core.cache import cache

    assert cache.add(pagecache.LOCK_KEY_PREFIX + key, "de un proceso muerto", 2)
    started = time.monotonic()
    response = view(anonymous_get("/ranking/"))
    elapsed = time.monotonic() - started
    assert response.status_code == 200 and calls == [1]
    assert 0.5 < elapsed < 5  # waited until the lock expired (expiries are whole seconds)
    assert response["ETag"] == f'"{key[:40]}"'
    assert lock_rows() == []  # the expired lock is gone
    assert view(anonymous_get("/ranking/"))["ETag"] == response["ETag"] and calls == [1]


def test_a_save_while_a_page_is_computed_is_seen_by_every_request_that_starts_after_it(director):
    aurora = services.create_player(acting_user=director, full_name="Aurora Bastida")
    current_generations()
    reading, resume = threading.Event(), threading.Event()
    calls = []

    @pagecache.cached_page(scopes=[pagecache.RANKING])
    def view(request):
        calls.append(1)
        body = ", ".join(Player.objects.order_by("full_name").values_list("full_name", flat=True))
        if len(calls) == 1:  # the first one read the data, holds the lock, and is slow
            reading.set()
            resume.wait(10)
        return HttpResponse(body)

    first_thread, first_out = in_thread(lambda: view(anonymous_get("/ranking/")))
    assert reading.wait(10)
    services.update_player(acting_user=director, player=aurora, full_name="Aurora Bastida Ruiz")
    after = view(anonymous_get("/ranking/"))  # starts after the save: another key, no wait
    assert first_thread.is_alive()  # answered while the older page is still being computed
    assert after.content == b"Aurora Bastida Ruiz"
    resume.set()
    first_thread.join(30)
    older = first_out[0]
    assert older.content == b"Aurora Bastida" and older["ETag"] != after["ETag"]
    pagecache.clear_local()  # as another server would: from the shared cache
    later = view(anonymous_get("/ranking/"))
    assert later.content == b"Aurora Bastida Ruiz" and later["ETag"] == after["ETag"]
    assert len(calls) == 2 and lock_rows() == []


def test_a_cache_error_on_the_lock_computes_the_page(monkeypatch):
    current_generations()
    real = pagecache._cache()

    class NoLocks:
        """The shared cache, failing on the compute locks only."""

        def __getattr__(self, name):
            return getattr(real, name)

        def add(self, key, *args, **kwargs):
            if key.startswith(pagecache.LOCK_KEY_PREFIX):
                raise ConnectionError("caído")
            return real.add(key, *args, **kwargs)

    monkeypatch.setattr(pagecache, "_cache", NoLocks)
    calls = []

    @pagecache.cached_page(scopes=[pagecache.RANKING])
    def view(request):
        calls.append(1)
        return HttpResponse("clasificación")

    first = view(anonymous_get("/ranking/"))
    second = view(anonymous_get("/ranking/"))
    assert first.status_code == 200 and first["ETag"] == second["ETag"] and calls == [1]
