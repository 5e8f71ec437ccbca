"""Shared fixtures: users with each role, built with the project's own services."""

import contextlib
import functools

import pytest
from django.db import transaction
from django.test import override_settings

from tests import builders

# The shared helpers' asserts (tests/helpers.py, tests/browser/helpers.py) explain a failure
# with the values compared, as the test modules' own asserts do.
pytest.register_assert_rewrite("tests.helpers", "tests.browser.helpers")

# What the autouse fixtures below set for every test; ``module_data`` sets it too while it builds.
TEST_SETTINGS = {"AXES_ENABLED": False, "PAGE_CACHE": False}


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """On SQLite the test database is a file, not memory: the browser tests' live server answers
    the page's requests in threads of its own, and an in-memory database is one connection
    shared by every thread, so two requests at once (a live page refreshes two parts together)
    could collide in it ("bad parameter or other API misuse"). With a file, each thread has its
    own connection and SQLite's locks keep them apart."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"] == "django.db.backends.sqlite3":
        db.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("db") / "test.sqlite3")


@contextlib.contextmanager
def task_backend(path: str):
    """Run background tasks on the ``django.tasks`` backend ``path`` inside the block (the
    backends are built anew on entry and on exit: Django caches them)."""
    from asgiref.local import Local
    from django.tasks import task_backends

    def reset():
        task_backends.__dict__.pop("settings", None)
        task_backends._connections = Local(task_backends.thread_critical)

    with override_settings(TASKS={"default": {"BACKEND": path}}):
        reset()
        try:
            yield
        finally:
            reset()


@pytest.fixture(scope="session", autouse=True)
def tasks_run_at_once():
    """Background tasks (ledger replays, long imports) run inside the request in tests, on
    Django's immediate backend, so a test sees the ranking of what it just saved. The tests of
    the real worker (tests/rankings/test_worker.py) start ``manage.py db_worker`` in a process
    of its own, with the database backend (``database_tasks``)."""
    with task_backend("django.tasks.backends.immediate.ImmediateBackend"):
        yield


@pytest.fixture
def database_tasks():
    """Tasks wait in django-tasks-db's queue (the test enqueues; a worker, if any, runs them)."""
    with task_backend("django_tasks_db.DatabaseBackend"):
        yield


@pytest.fixture(scope="session", autouse=True)
def compiled_translations():
    """The .mo files are build output: compile locale/*/django.po once per run (polib), so
    ``pytest`` alone works on a fresh checkout, then drop any catalogue Django cached before."""
    from django.core.management import call_command
    from django.utils.translation import trans_real

    call_command("compile_translations", verbosity=0)
    trans_real._translations.clear()
    trans_real._default = None


@pytest.fixture(scope="session", autouse=True)
def fast_password_hasher():
    """Passwords are hashed with MD5 in tests: the production hasher (PBKDF2, over a million
    iterations) costs about a third of a second per ``create_user`` or login attempt, which
    added minutes to the suite. Session-wide, so data built once per module uses it too."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(scope="session")
def module_data(django_db_setup, django_db_blocker):
    """Data built once and shared by the tests of one module, for a module-scoped fixture::

        @pytest.fixture(scope="module")
        def demo_loaded(module_data):
            yield from module_data(load_the_demo)

    ``build()`` runs (with the settings every test gets) inside a transaction on the default
    database that stays open until the module's last test ends and is then rolled back; the
    fixture's value is what ``build`` returns. Each test's own transaction (``django_db``) is a
    savepoint inside it, so a test that writes still leaves the next test the data exactly as
    built. Only for modules whose tests all use the non-transactional ``db``: a
    ``transactional_db`` test or a live server would commit or flush it."""
    return functools.partial(_module_data, django_db_blocker)


def _module_data(django_db_blocker, build):
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic._from_testcase = True  # durable=True blocks nest in it as in a TestCase's
        atomic.__enter__()
        try:
            with override_settings(**TEST_SETTINGS):
                value = build()
        except BaseException:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)
            raise
    try:
        yield value
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


@pytest.fixture(autouse=True)
def replay_look_just_done(monkeypatch):
    """The ranking pages' look for a stale replay (``rankings.tasks.watches_replay``, at most
    every 30 s per process) counts as just done, so a page runs the same queries whichever
    test comes first; tests/rankings/test_pending.py sets it due on purpose."""
    import time

    from rankings import tasks

    monkeypatch.setattr(tasks, "_checked_at", time.monotonic())


@pytest.fixture(autouse=True)
def axes_off(settings):
    """django-axes needs the request in ``authenticate()``; ``client.login()`` does not pass one.
    Login throttling is off by default in tests and on in tests/test_login_throttling.py."""
    settings.AXES_ENABLED = False


@pytest.fixture(autouse=True)
def page_cache(request, settings):
    """The public pages' cache (clubsite.pagecache) is off in tests, so that a test that writes
    inside its one rolled-back transaction reads fresh pages, except in tests marked
    ``page_cache`` (its own tests, the browser tests), which start from an empty cache."""
    from clubsite import pagecache

    pagecache.clear_local()
    if request.node.get_closest_marker("page_cache") is None:
        settings.PAGE_CACHE = False
        return
    settings.PAGE_CACHE = True
    request.getfixturevalue("db")  # transactional_db instead when the test asks for it
    from django.core.cache import cache

    cache.delete(pagecache.GENERATION_KEY)
    # no heavy output's slot left taken by an earlier test ("Preparando el archivo")
    cache.delete_many([f"{pagecache.HEAVY_SLOT_PREFIX}{n}" for n in range(64)])


@pytest.fixture
def director(db):
    """A staff user in the "Directores" group."""
    return builders.director()


@pytest.fixture
def director_client(client, director):
    client.force_login(director)
    return client
