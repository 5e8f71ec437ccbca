"""Start-up errors of the settings (clubsite/env.py): a malformed environment variable stops
``django.setup()`` with an ImproperlyConfigured whose one sentence names the variable and gives
an example of a valid value; never a KeyError or ValueError from inside a library, and never
the password of a URL. Each case runs ``python -c "import django; django.setup()"`` in a
subprocess with the variable set."""

from __future__ import annotations

import json

import pytest

from tests.helpers import ROOT, SETUP, run_python

DB_EXAMPLE = "postgres://club:PASSWORD@db-host:5432/club"

CASES = [
    # (variable, value, the sentence's start, the example it gives)
    ("DATABASE_URL", "", "DATABASE_URL is set but empty", DB_EXAMPLE),
    ("DATABASE_URL", "   ", "DATABASE_URL is set but empty", DB_EXAMPLE),
    (
        "DATABASE_URL",
        "mysql2://club:s3creto@db-host/club",
        "DATABASE_URL starts with mysql2://",
        DB_EXAMPLE,
    ),
    ("DATABASE_URL", "redis://db-host:6379/0", "DATABASE_URL starts with redis://", DB_EXAMPLE),
    ("DATABASE_URL", "club.sqlite3", "DATABASE_URL is not a URL", DB_EXAMPLE),
    (
        "DATABASE_URL",
        "postgres://club:s3creto@db-host:port/club",
        "DATABASE_URL is not a valid database URL",
        DB_EXAMPLE,
    ),
    (
        "DATABASE_URL",
        "postgres://club:s3creto@db-host:5432/",
        "DATABASE_URL names no database",
        DB_EXAMPLE,
    ),
    (
        "DATABASE_REPLICA_URL",
        "ftp://replica/club",
        "DATABASE_REPLICA_URL starts with ftp://",
        DB_EXAMPLE,
    ),
    (
        "DJANGO_CACHE_URL",
        "memcached://127.0.0.1:11211",
        "DJANGO_CACHE_URL must be a redis://",
        "DJANGO_CACHE_URL=redis://127.0.0.1:6379/0",
    ),
    (
        "DJANGO_CACHE_URL",
        "redis://",
        "DJANGO_CACHE_URL must be a redis://",
        "DJANGO_CACHE_URL=redis://127.0.0.1:6379/0",
    ),
    (
        "DJANGO_CACHE_URL",
        "redis://:s3creto@cache:port/0",
        "DJANGO_CACHE_URL must be a redis://",
        "DJANGO_CACHE_URL=redis://127.0.0.1:6379/0",
    ),
    ("DJANGO_DEBUG", "maybe", "DJANGO_DEBUG='maybe' is neither on nor off", "DJANGO_DEBUG=0"),
    (
        "DJANGO_PAGE_CACHE",
        "nope",
        "DJANGO_PAGE_CACHE='nope' is neither on nor off",
        "DJANGO_PAGE_CACHE=0",
    ),
    (
        "DJANGO_SECURE_SSL_REDIRECT",
        "si",
        "DJANGO_SECURE_SSL_REDIRECT='si' is neither",
        "DJANGO_SECURE_SSL_REDIRECT=0",
    ),
    (
        "DJANGO_CONN_MAX_AGE",
        "1m",
        "DJANGO_CONN_MAX_AGE='1m' is not a whole number",
        "DJANGO_CONN_MAX_AGE=60",
    ),
    (
        "DJANGO_HSTS_SECONDS",
        "un año",
        "DJANGO_HSTS_SECONDS='un año' is not a whole number",
        "DJANGO_HSTS_SECONDS=31536000",
    ),
    (
        "DJANGO_TRUSTED_PROXY_COUNT",
        "-1",
        "DJANGO_TRUSTED_PROXY_COUNT='-1' is not a whole number of at least 0",
        "DJANGO_TRUSTED_PROXY_COUNT=1",
    ),
    (
        "CLUB_ELO_INITIAL_RATING",
        "mil",
        "CLUB_ELO_INITIAL_RATING='mil' is not a number above zero",
        "CLUB_ELO_INITIAL_RATING=1500",
    ),
    (
        "CLUB_ELO_INITIAL_RATING",
        "nan",
        "CLUB_ELO_INITIAL_RATING='nan' is not a number above zero",
        "CLUB_ELO_INITIAL_RATING=1500",
    ),
    (
        "DJANGO_TIME_ZONE",
        "Marte/Olimpo",
        "DJANGO_TIME_ZONE='Marte/Olimpo' is not a known time zone",
        "DJANGO_TIME_ZONE=America/Mexico_City",
    ),
    (
        "DJANGO_LANGUAGE_CODE",
        "fr",
        "DJANGO_LANGUAGE_CODE='fr' is not one of es, en, ru",
        "DJANGO_LANGUAGE_CODE=es",
    ),
    (
        "DJANGO_LOG_LEVEL",
        "LOUD",
        "DJANGO_LOG_LEVEL='LOUD' is not a log level",
        "DJANGO_LOG_LEVEL=WARNING",
    ),
    (
        "DJANGO_ALLOWED_HOSTS",
        "https://club.example.org",
        "DJANGO_ALLOWED_HOSTS holds 'https://club.example.org', which is not a host name",
        "DJANGO_ALLOWED_HOSTS=club.example.org",
    ),
    (
        "DJANGO_CSRF_TRUSTED_ORIGINS",
        "club.example.org",
        "DJANGO_CSRF_TRUSTED_ORIGINS holds 'club.example.org', which is not an origin",
        "DJANGO_CSRF_TRUSTED_ORIGINS=https://club.example.org",
    ),
]


@pytest.mark.parametrize(
    "name, value, start, example", CASES, ids=[f"{c[0]}={c[1]!r}" for c in CASES]
)
def test_a_malformed_variable_stops_the_start_up_with_a_clear_sentence(name, value, start, example):
    result = run_python(SETUP, **{name: value})
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("django.core.exceptions.ImproperlyConfigured: " + start), last
    assert example in last, last
    for noise in ("KeyError", "ValueError", "ParseError", "During handling", "s3creto"):
        assert noise not in result.stderr, result.stderr


def test_production_without_a_secret_key_says_how_to_make_one(tmp_path):
    result = run_python(SETUP, DJANGO_DEBUG="0", DATABASE_URL=f"sqlite:///{tmp_path / 'p.sqlite3'}")
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "django.core.exceptions.ImproperlyConfigured: Set DJANGO_SECRET_KEY when DJANGO_DEBUG is off"
    )
    assert "secrets.token_urlsafe(50)" in last


SHOW = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "d = s.DATABASES; print(json.dumps({'engine': d['default']['ENGINE'], "
    "'name': d['default']['NAME'], 'replica': 'replica' in d, 'age': d['default']['CONN_MAX_AGE'], "
    "'cache': s.CACHES['default']['BACKEND'], 'debug': s.DEBUG, 'page_cache': s.PAGE_CACHE, "
    "'tz': s.TIME_ZONE, 'lang': s.LANGUAGE_CODE, 'elo': s.ELO_INITIAL_RATING, "
    "'log': s.LOGGING['root']['level'], 'hosts': s.ALLOWED_HOSTS}))"
)


def test_valid_values_start_as_before():
    result = run_python(
        SHOW,
        DATABASE_URL="Postgres://club:clave@db-host:5432/club",
        DATABASE_REPLICA_URL="",  # empty: no replica (the optional database)
        DJANGO_CONN_MAX_AGE="0",
        DJANGO_CACHE_URL="redis://127.0.0.1:6379/0",
        DJANGO_DEBUG="Yes",
        DJANGO_PAGE_CACHE="off",
        DJANGO_TIME_ZONE="Europe/Madrid",
        DJANGO_LANGUAGE_CODE="ru",
        CLUB_ELO_INITIAL_RATING="1400.5",
        DJANGO_LOG_LEVEL="error",
        DJANGO_ALLOWED_HOSTS="club.example.org, [::1]",
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "engine": "django.db.backends.postgresql",
        "name": "club",
        "replica": False,
        "age": 0,
        "cache": "django.core.cache.backends.redis.RedisCache",
        "debug": True,
        "page_cache": False,
        "tz": "Europe/Madrid",
        "lang": "ru",
        "elo": 1400.5,
        "log": "ERROR",
        "hosts": ["club.example.org", "[::1]"],
    }


def test_nothing_set_runs_on_sqlite_in_the_checkout_in_debug():
    result = run_python(SHOW)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["engine"] == "django.db.backends.sqlite3"
    assert shown["name"] == str(ROOT / "db.sqlite3")
    assert shown["debug"] is True and shown["page_cache"] is True and shown["age"] == 0
    assert shown["cache"] == "django.core.cache.backends.db.DatabaseCache"
    assert (shown["tz"], shown["lang"], shown["elo"], shown["log"]) == (
        "America/Mexico_City",
        "es",
        1500.0,
        "WARNING",
    )
