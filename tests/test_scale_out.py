"""Scale-out on PostgreSQL (issue "fast at federation scale", point 4; docs/scale-out.md).

- Nothing in the process: sessions and the cache live in the database (or Redis).
- The read replica: public GET pages read the "replica" alias, everything else "default"
  (clubsite/routers.py). Here "replica" is a TEST MIRROR of default: the same test database
  through its own connection, so the queries each alias runs can be captured apart.
- Two ledger replays started at once in two OS processes run one after the other
  (pg_advisory_xact_lock), and leave exactly the ledger a full rebuild gives.

The routing tests run on SQLite and PostgreSQL; the two-process test needs PostgreSQL.
"""

from __future__ import annotations

import multiprocessing
import queue
import re
import runpy
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.db import connection, connections, router, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from clubsite import routers
from rankings import ledger
from rankings.models import LedgerRow
from tests import builders
from tests.helpers import ledger_snapshot
from tournaments import services
from tournaments.models import Result, Tournament

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", routers.REPLICA])

HTMX = {"HTTP_HX_REQUEST": "true"}
WORKER = Path(__file__).with_name("scale_out_worker.py")


# --- helpers -----------------------------------------------------------------------------------


def is_write(sql: str) -> bool:
    return sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE", "COPY", "TRUNCATE"))


def tables_touched(queries) -> set[str]:
    """Names of the project's tables (tournaments_*, rankings_*) that ``queries`` mention."""
    return {
        m for q in queries for m in re.findall(r'"((?:tournaments|rankings)_[a-z_]+)"', q["sql"])
    }


@pytest.fixture(scope="module", autouse=True)
def replica(django_db_setup):
    """The "replica" alias: a TEST MIRROR of "default" (same test database, its own connection).

    When DATABASE_REPLICA_URL is set the settings already define it (as a mirror). Otherwise it
    is added here, for this module only, before its tests' test cases are set up (so the
    ``databases`` of ``pytestmark`` may name it), and removed afterwards. The tests commit
    their data (``transaction=True``), so the replica's own connection reads it."""
    added = routers.REPLICA not in connections.settings
    if added:
        primary = connections["default"].settings_dict  # already names the test database
        connections.settings[routers.REPLICA] = {
            **primary,
            "TEST": {**primary.get("TEST", {}), "MIRROR": "default"},
        }
    yield connections[routers.REPLICA]
    connections[routers.REPLICA].close()
    if added:
        del connections[routers.REPLICA]
        del connections.settings[routers.REPLICA]


def capture_both():
    """Query capture on the primary and on the replica connection."""
    return (
        CaptureQueriesContext(connections["default"]),
        CaptureQueriesContext(connections[routers.REPLICA]),
    )


# --- no state in the process ----------------------------------------------------------------------


def test_sessions_and_cache_live_outside_the_process():
    """Sessions: Django's database engine. Cache: the database cache (or Redis when
    DJANGO_CACHE_URL is set); never the per-process local-memory cache."""
    from django.core.cache import cache

    assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.db"
    backend = settings.CACHES["default"]["BACKEND"]
    assert backend in (
        "django.core.cache.backends.db.DatabaseCache",
        "django.core.cache.backends.redis.RedisCache",
    )
    cache.set("scale-out-probe", {"ok": 1}, 30)
    assert cache.get("scale-out-probe") == {"ok": 1}
    cache.delete("scale-out-probe")


def test_a_login_is_stored_in_the_database_session_table(director):
    client = Client()
    assert client.login(username="directora", password="clave-de-prueba-1")
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert Session.objects.filter(session_key=key).exists()
    # Any other client (any other app server) holding the cookie is the same logged-in user.
    other = Client()
    other.cookies[settings.SESSION_COOKIE_NAME] = key
    assert other.get(reverse("manage:home")).status_code == 200


# --- read replica ---------------------------------------------------------------------------------


def test_public_standings_and_ranking_read_the_replica_only(replica):
    t = builders.club_tournament(rounds=2)
    anonymous = Client()
    for url in (reverse("public:standings", args=[t.slug]), reverse("rankings:ranking")):
        on_default, on_replica = capture_both()
        with on_default, on_replica:
            response = anonymous.get(url)
        assert response.status_code == 200, url
        read = tables_touched(on_replica.captured_queries)
        assert read, f"{url} read nothing from the replica"
        assert tables_touched(on_default.captured_queries) == set(), url
        assert not [q["sql"] for q in on_replica.captured_queries if is_write(q["sql"])]


@pytest.mark.page_cache
def test_with_the_page_cache_on_a_public_page_is_computed_from_the_primary(replica):
    """A page stored under the current data generation must not come from a lagging replica:
    with the page cache on, the replica is not read at all; the second request is a hit."""
    t = builders.club_tournament(rounds=2)
    anonymous = Client()
    url = reverse("public:standings", args=[t.slug])
    read_from_primary = []
    for _ in range(2):
        on_default, on_replica = capture_both()
        with on_default, on_replica:
            assert anonymous.get(url).status_code == 200
        assert on_replica.captured_queries == []
        read_from_primary.append(tables_touched(on_default.captured_queries))
    assert "tournaments_tournament" in read_from_primary[0]  # computed once, from the primary
    assert read_from_primary[1] == set()  # then served from the cache


def test_a_directors_result_post_writes_and_reads_default_and_never_touches_the_replica(
    replica,
    director,
    director_client,
):
    t = builders.club_tournament(acting_user=director, rounds=1)
    e = list(t.entries.order_by("pk"))
    rnd = services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=2,
        tables=[([e[0]], [e[1]]), ([e[2]], [e[3]])],
    )
    table = rnd.tables.order_by("number").first()
    on_default, on_replica = capture_both()
    with on_default, on_replica:
        response = director_client.post(
            reverse("manage:result_save", args=[t.slug, table.pk]),
            {"tantos_a": "100", "tantos_b": "35", "version": str(table.version)},
            **HTMX,
        )
    assert response.status_code == 200
    assert Result.objects.filter(table=table, tantos_a=100, tantos_b=35).exists()
    assert on_replica.captured_queries == []
    writes = [q["sql"] for q in on_default.captured_queries if is_write(q["sql"])]
    assert any('"tournaments_result"' in sql for sql in writes)
    # The ledger replay after the commit wrote the primary too, and the ledger is right.
    before = ledger_snapshot()
    assert LedgerRow.objects.filter(table=table).count() == 4
    ledger.rebuild()
    assert ledger_snapshot() == before


def test_a_logged_in_reader_and_the_directors_pages_stay_on_the_primary(
    replica,
    director,
    director_client,
):
    """Whoever is logged in may just have written: they read their own writes, never the replica."""
    t = builders.club_tournament(acting_user=director)
    urls = (reverse("public:standings", args=[t.slug]), reverse("manage:tournament", args=[t.slug]))
    for url in urls:
        on_default, on_replica = capture_both()
        with on_default, on_replica:
            assert director_client.get(url).status_code == 200
        assert on_replica.captured_queries == [], url
        assert tables_touched(on_default.captured_queries), url


def test_router_reads_the_replica_only_when_the_request_allows_it_and_outside_transactions(replica):
    assert router.db_for_read(Tournament) == "default"
    with routers.use_replica():
        assert router.db_for_read(Tournament) == "replica"
        assert router.db_for_read(LedgerRow) == "replica"
        assert router.db_for_read(User) == "default"  # auth, sessions, cache: primary
        assert router.db_for_read(Session) == "default"
        assert router.db_for_write(Tournament) == "default"
        with transaction.atomic():
            assert router.db_for_read(Tournament) == "default"
    assert router.db_for_read(Tournament) == "default"
    assert router.allow_migrate("default", "tournaments")
    assert not router.allow_migrate("replica", "tournaments")


def test_without_a_replica_alias_everything_uses_default(monkeypatch, rf):
    monkeypatch.setattr(routers, "replica_configured", lambda: False)
    with routers.use_replica():
        assert router.db_for_read(Tournament) == "default"
    assert not routers.replica_ok_for(rf.get(reverse("rankings:ranking")))


def test_post_and_non_public_urls_are_not_replica_ok(replica, rf):
    assert routers.replica_ok_for(rf.get(reverse("rankings:ranking")))
    assert routers.replica_ok_for(rf.head(reverse("public:home")))
    assert not routers.replica_ok_for(rf.post(reverse("rankings:calculator")))
    assert not routers.replica_ok_for(rf.get(reverse("manage:home")))
    assert not routers.replica_ok_for(rf.get("/admin/"))
    assert not routers.replica_ok_for(rf.get("/no-such-page/"))
    with_session = rf.get(reverse("rankings:ranking"))
    with_session.COOKIES[settings.SESSION_COOKIE_NAME] = "abc"
    assert not routers.replica_ok_for(with_session)


# --- two replays at once, in two processes --------------------------------------------------------


def database_url(settings_dict) -> str:
    """A DATABASE_URL naming the database of ``settings_dict`` (the test database)."""
    user = quote(settings_dict.get("USER") or "", safe="")
    password = settings_dict.get("PASSWORD") or ""
    auth = f"{user}:{quote(password, safe='')}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or "localhost"
    port = settings_dict.get("PORT") or "5432"
    return f"postgres://{auth}{host}:{port}/{quote(settings_dict['NAME'], safe='')}"


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="two processes replaying at once need PostgreSQL (pg_advisory_xact_lock); SQLite "
    "serialises every write itself. Run with DATABASE_URL=postgres://...",
)
def test_two_processes_replaying_the_ledger_at_once_run_one_after_the_other(monkeypatch):
    builders.club_tournament(n_entries=8, rounds=7)  # 28 rated games, 112 ledger rows
    keys = sorted(set(LedgerRow.objects.values_list("order_key", flat=True)))
    assert len(keys) == 28
    mid_key = keys[len(keys) // 2]

    monkeypatch.setenv("DATABASE_URL", database_url(connection.settings_dict))
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "clubsite.settings")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    results = ctx.Queue()
    children = [
        ctx.Process(
            target=runpy.run_path,
            args=(str(WORKER),),
            kwargs={
                "run_name": "__replay_child__",
                "init_globals": {
                    "CHILD_ARGS": {
                        "name": name,
                        "from_key": from_key,
                        "barrier": barrier,
                        "results": results,
                        "pause": 0.03,
                        "batch": 4,
                    }
                },
            },
        )
        for name, from_key in (("rebuild", None), ("from-middle", mid_key))
    ]
    for child in children:
        child.start()

    # While they run, watch for a backend waiting on the replay's advisory lock.
    waiting_pids: set[int] = set()
    outcomes: list[dict] = []
    deadline = time.monotonic() + 120
    with connection.cursor() as cursor:
        while len(outcomes) < 2 and time.monotonic() < deadline:
            cursor.execute(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                "AND classid = 0 AND objid = %s AND database = "
                "(SELECT oid FROM pg_database WHERE datname = current_database())",
                [ledger.ADVISORY_LOCK_ID],
            )
            waiting_pids.update(pid for (pid,) in cursor.fetchall())
            try:
                outcomes.append(results.get(timeout=0.01))
            except queue.Empty:
                pass
    for child in children:
        child.join(timeout=30)
        if child.is_alive():
            child.kill()
    assert len(outcomes) == 2, f"children did not report in time: {outcomes}"
    assert not [o for o in outcomes if "error" in o], outcomes
    by_name = {o["name"]: o for o in outcomes}

    # One after the other: their locked sections do not overlap, and one really waited.
    first, second = sorted(outcomes, key=lambda o: o["start"])
    assert first["end"] <= second["start"], outcomes
    assert waiting_pids & {o["backend_pid"] for o in outcomes}, (waiting_pids, outcomes)
    assert by_name["rebuild"]["written"] == 112
    assert by_name["from-middle"]["written"] == 4 * (len(keys) - len(keys) // 2)
    assert all(o["calls"] >= 5 for o in outcomes)

    # The ledger both left is exactly what a full rebuild gives.
    after = ledger_snapshot()
    assert len(after) == 112
    ledger.rebuild()
    assert ledger_snapshot() == after
