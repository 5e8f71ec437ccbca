"""Reading the settings' environment variables (clubsite/settings.py), with clear start-up errors.

Each reader returns the value the settings need, or raises ``ImproperlyConfigured`` with one
sentence that names the variable, says what is wrong and gives an example of a valid value,
e.g. ``DATABASE_URL is set but empty: set it to a database URL such as
postgres://club:PASSWORD@db-host:5432/club, or unset it to use SQLite in the checkout.`` The
error is raised ``from None``: the start-up traceback shows this message, not a ``KeyError`` or
``ValueError`` from deep inside a library.

An unset variable, or (except for ``DATABASE_URL``) an empty one, takes the default. Values that
may hold a password (database and cache URLs) are never repeated in a message.
"""

from __future__ import annotations

import math
import os
import zoneinfo
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off"})
#: Database URL schemes of the engines the site runs on (dj-database-url's names).
DATABASE_SCHEMES = {
    "postgres": "django.db.backends.postgresql",
    "postgresql": "django.db.backends.postgresql",
    "pgsql": "django.db.backends.postgresql",
    "sqlite": "django.db.backends.sqlite3",
}
DATABASE_EXAMPLE = "postgres://club:PASSWORD@db-host:5432/club"
CACHE_SCHEMES = ("redis", "rediss", "unix")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _raw(name: str) -> str | None:
    """The variable's value stripped, or None when unset or empty."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return None
    return value.strip()


def env_bool(name: str, default: bool) -> bool:
    """``1/true/yes/on`` → True, ``0/false/no/off`` → False (any case); unset or empty →
    ``default``. Raises ImproperlyConfigured for anything else (``DJANGO_DEBUG=maybe``)."""
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in TRUE:
        return True
    if value.lower() in FALSE:
        return False
    raise ImproperlyConfigured(
        f"{name}={value!r} is neither on nor off: set it to 1 or 0 (also true/false, yes/no, "
        f"on/off), for example {name}=0."
    ) from None


def env_int(
    name: str, default: int, *, minimum: int = 0, maximum: int | None = None, example: str
) -> int:
    """A whole number ≥ ``minimum`` (and ≤ ``maximum`` when given); unset or empty →
    ``default``. Raises ImproperlyConfigured otherwise (``DJANGO_CONN_MAX_AGE=1m``,
    ``DJANGO_TRUSTED_PROXY_COUNT=-1``, ``DJANGO_EMAIL_PORT=70000``)."""
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or number < minimum or (maximum is not None and number > maximum):
        bounds = f"from {minimum} to {maximum}" if maximum is not None else f"of at least {minimum}"
        raise ImproperlyConfigured(
            f"{name}={value!r} is not a whole number {bounds}: for example {name}={example}."
        ) from None
    return number


def env_float(name: str, default: float, *, example: str) -> float:
    """A finite number above zero (``1500``, ``1500.5``); unset or empty → ``default``. Raises
    ImproperlyConfigured otherwise (``CLUB_ELO_INITIAL_RATING=abc``, ``nan``, ``-1``)."""
    value = _raw(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number <= 0:
        raise ImproperlyConfigured(
            f"{name}={value!r} is not a number above zero: for example {name}={example}."
        ) from None
    return number


def env_list(name: str, default: str = "") -> list[str]:
    """A comma-separated list, items stripped, empty items dropped."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_hosts(name: str, default: str) -> list[str]:
    """Host names (``DJANGO_ALLOWED_HOSTS``): a URL or a path in the list is refused
    (``https://club.example.org`` → "club.example.org" was meant)."""
    hosts = env_list(name, default)
    for host in hosts:
        if "://" in host or "/" in host or " " in host:
            raise ImproperlyConfigured(
                f"{name} holds {host!r}, which is not a host name: list host names only, "
                f"comma-separated, for example {name}=club.example.org,www.club.example.org."
            )
    return hosts


def env_origins(name: str) -> list[str]:
    """Origins (``DJANGO_CSRF_TRUSTED_ORIGINS``): each a scheme and a host, nothing else."""
    origins = env_list(name)
    for origin in origins:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
            raise ImproperlyConfigured(
                f"{name} holds {origin!r}, which is not an origin: give the scheme and the host, "
                f"comma-separated, for example {name}=https://club.example.org."
            )
    return origins


def env_choice(name: str, default: str, choices, *, example: str) -> str:
    """One of ``choices`` (compared as given); unset or empty → ``default``."""
    value = _raw(name)
    if value is None:
        return default
    if value not in choices:
        raise ImproperlyConfigured(
            f"{name}={value!r} is not one of {', '.join(choices)}: for example {name}={example}."
        )
    return value


def env_log_level(name: str, default: str) -> str:
    """A logging level name (any case): DEBUG, INFO, WARNING, ERROR or CRITICAL."""
    value = _raw(name)
    if value is None:
        return default
    if value.upper() not in LOG_LEVELS:
        raise ImproperlyConfigured(
            f"{name}={value!r} is not a log level: use one of {', '.join(LOG_LEVELS)}, "
            f"for example {name}=WARNING."
        )
    return value.upper()


def env_time_zone(name: str, default: str) -> str:
    """An IANA time zone name (``America/Mexico_City``, ``Europe/Madrid``, ``UTC``)."""
    value = _raw(name)
    if value is None:
        return default
    try:
        zoneinfo.ZoneInfo(value)
        known = True
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        known = False
    if not known:
        raise ImproperlyConfigured(
            f"{name}={value!r} is not a known time zone: use an IANA name, "
            f"for example {name}=America/Mexico_City."
        ) from None
    return value


def env_database(name: str, *, default: str | None, conn_max_age: int) -> dict | None:
    """The ``DATABASES`` entry of the URL in ``name`` (dj-database-url syntax), for PostgreSQL
    (``postgres://``, ``postgresql://``, ``pgsql://``) or SQLite (``sqlite:///path``).

    Unset → the URL ``default`` (None: return None, no database). Set but empty: an error when
    ``default`` is given (the main database: empty is a mistake, not a choice), else None (an
    optional database such as the replica). Raises ImproperlyConfigured for an unknown scheme,
    a URL that does not parse (a port that is not a number, an unquoted "@" or "/" in the
    password) or a PostgreSQL URL without a database name. The URL itself is never quoted in
    the message (it may hold a password)."""
    value = os.environ.get(name)
    if value is None:
        if default is None:
            return None
        value = default
    elif not value.strip():
        if default is None:
            return None
        raise ImproperlyConfigured(
            f"{name} is set but empty: set it to a database URL such as {DATABASE_EXAMPLE} "
            f"(or sqlite:////srv/club/db.sqlite3), or unset it to use SQLite in the checkout."
        )
    value = value.strip()
    scheme = value.split("://", 1)[0].lower() if "://" in value else ""
    if not scheme:
        raise ImproperlyConfigured(
            f"{name} is not a URL (it has no scheme such as postgres://): give a database URL "
            f"such as {DATABASE_EXAMPLE} (or sqlite:////srv/club/db.sqlite3 for SQLite)."
        )
    if scheme not in DATABASE_SCHEMES:
        raise ImproperlyConfigured(
            f"{name} starts with {scheme}://, a scheme this site does not run on: give a "
            f"PostgreSQL URL such as {DATABASE_EXAMPLE} (or sqlite:////srv/club/db.sqlite3 for "
            f"SQLite)."
        )
    try:
        config = dj_database_url.parse(value, conn_max_age=conn_max_age)
    except ValueError:
        config = None
    if not config or config.get("ENGINE") != DATABASE_SCHEMES[scheme]:
        raise ImproperlyConfigured(
            f"{name} is not a valid database URL (check the port and quote special characters "
            f"of the password, '@' as %40): for example {DATABASE_EXAMPLE}."
        ) from None
    if config["ENGINE"] != DATABASE_SCHEMES["sqlite"] and not config.get("NAME"):
        raise ImproperlyConfigured(
            f"{name} names no database after the host: for example {DATABASE_EXAMPLE}."
        )
    return config


def env_cache(name: str) -> dict:
    """The ``CACHES["default"]`` entry: the database table ``django_cache`` when ``name`` is
    unset or empty, else Django's Redis cache at that URL (``redis://``, ``rediss://`` or
    ``unix://``, with a host or a socket path)."""
    value = _raw(name)
    if value is None:
        return {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "django_cache",
            # pages, their generations and the one-time form tokens (kept a day) share it: the
            # default of 300 entries would cull tokens still in use
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        }
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in CACHE_SCHEMES
        or not (parts.hostname if parts.scheme != "unix" else parts.path)
    ):
        raise ImproperlyConfigured(
            f"{name} must be a redis://, rediss:// or unix:// URL (or unset): "
            f"for example {name}=redis://127.0.0.1:6379/0."
        ) from None
    return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": value}


def env_host(name: str) -> str | None:
    """A server's host name or address (``DJANGO_EMAIL_HOST=smtp.example.org``), or None when
    unset or empty. A URL, a path, a port or spaces are refused (``smtp://smtp.example.org``,
    ``smtp.example.org:587``: the port has a variable of its own)."""
    value = _raw(name)
    if value is None:
        return None
    if "://" in value or "/" in value or " " in value or value.count(":") == 1:
        raise ImproperlyConfigured(
            f"{name}={value!r} is not a host name: give the name alone (the port has its own "
            f"variable), for example {name}=smtp.example.org."
        )
    return value


def env_email_address(name: str, default: str) -> str:
    """An email address, alone or with a display name (``avisos@club.example.org``,
    ``Club de dominó <avisos@club.example.org>``); unset or empty → ``default``."""
    # Inside: the settings read this before Django is configured; load it only when used.
    from email.utils import parseaddr

    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    value = _raw(name)
    if value is None:
        return default
    _display, address = parseaddr(value)
    try:
        validate_email(address)
    except ValidationError:
        raise ImproperlyConfigured(
            f"{name}={value!r} is not an email address: for example "
            f"{name}='Club de dominó <avisos@club.example.org>' or "
            f"{name}=avisos@club.example.org."
        ) from None
    return value


def env_site_url(name: str, default: str) -> str:
    """The site's own address as its readers reach it, for the links of the messages sent
    without a request (``DJANGO_SITE_URL=https://club.example.org``): a scheme and a host, an
    optional port, no path; unset or empty → ``default``. Returned without a final "/"."""
    value = _raw(name)
    if value is None:
        return default
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        raise ImproperlyConfigured(
            f"{name}={value!r} is not the site's address: give the scheme and the host, "
            f"for example {name}=https://club.example.org."
        ) from None
    return value.rstrip("/")


#: Host parts that mean "every address of this machine": no phone can open a link to them.
ANY_ADDRESS = frozenset({"0.0.0.0", "::", "[::]", ""})


def served_site_url(host: str, *, local_address=None) -> str:
    """The site's address for the links in messages when the development server listens on
    ``host`` ("ADDRESS:PORT" or "PORT", as ``runserver`` takes it; ``make demo HOST=…``):
    ``http://ADDRESS:PORT``, except that an address that means every address of the machine
    (0.0.0.0, ::) becomes the machine's own address on its network (``local_address()``, e.g.
    192.168.1.20), so that a claim link mailed to a phone opens. ``local_address``: a callable
    for tests. Never raises: without a network it falls back to 127.0.0.1."""
    address, sep, port = host.rpartition(":")
    if not sep:
        address, port = "", host
    if address in ANY_ADDRESS:
        address = (local_address or machine_address)()
    return f"http://{address}:{port}" if port else f"http://{address}"


def machine_address() -> str:
    """This machine's address on its network (the one its default route leaves from), found by
    connecting a UDP socket to a documentation address (nothing is sent); 127.0.0.1 when
    there is no network."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def demo_exports(host: str, environ=os.environ) -> list[str]:
    """Shell lines ``export NAME='value'`` for ``make demo`` serving on ``host``: the site's
    address for the links in messages (``served_site_url``) unless DJANGO_SITE_URL is set, and,
    when that address is not a local name, DJANGO_ALLOWED_HOSTS with the local names and that
    address (so a phone on the same network is served, not refused as a bad host) unless it is
    set."""
    from urllib.parse import urlsplit as split

    lines = []
    url = environ.get("DJANGO_SITE_URL") or served_site_url(host)
    if not environ.get("DJANGO_SITE_URL"):
        lines.append(f"export DJANGO_SITE_URL='{url}'")
    name = split(url).hostname or ""
    local = ["localhost", "127.0.0.1", "[::1]", "testserver"]
    if not environ.get("DJANGO_ALLOWED_HOSTS") and name and name not in local:
        lines.append(f"export DJANGO_ALLOWED_HOSTS='{','.join([*local, name])}'")
    return lines


if __name__ == "__main__":  # make demo: python -m clubsite.env HOST
    import sys

    print("\n".join(demo_exports(sys.argv[1])))
