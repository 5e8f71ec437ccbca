"""Shared fixtures: users with each role, built with the project's own services."""
import pytest
from django.contrib.auth.models import Group, User

from tournaments.permissions import DIRECTORS_GROUP


@pytest.fixture(scope="session", autouse=True)
def compiled_translations():
    """The .mo files are build output: compile locale/*/django.po once per run (polib), so
    ``pytest`` alone works on a fresh checkout, then drop any catalogue Django cached before."""
    from django.core.management import call_command
    from django.utils.translation import trans_real

    call_command("compile_translations", verbosity=0)
    trans_real._translations.clear()
    trans_real._default = None


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


@pytest.fixture
def director(db):
    """A staff user in the "Directores" group."""
    user = User.objects.create_user("directora", password="clave-de-prueba-1", is_staff=True)
    group, _ = Group.objects.get_or_create(name=DIRECTORS_GROUP)
    user.groups.add(group)
    return user


@pytest.fixture
def director_client(client, director):
    client.force_login(director)
    return client
