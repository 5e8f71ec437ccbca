"""Settings of the club site: one module, driven by environment variables (DESIGN.md, Settings).

With no variable set it runs in debug mode on SQLite in the checkout. Production sets at least
DATABASE_URL (PostgreSQL through psycopg 3), DJANGO_SECRET_KEY, DJANGO_DEBUG=0 and
DJANGO_ALLOWED_HOSTS.
"""

import datetime
import os
import tempfile
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from clubsite.env import (
    env_bool,
    env_cache,
    env_choice,
    env_database,
    env_email_address,
    env_float,
    env_host,
    env_hosts,
    env_int,
    env_log_level,
    env_origins,
    env_site_url,
    env_time_zone,
)

BASE_DIR = Path(__file__).resolve().parent.parent

# Every variable is read through clubsite/env.py: a malformed value (an empty DATABASE_URL, an
# unknown scheme, DJANGO_DEBUG=maybe, a port that is not a number ...) stops the start-up with
# an ImproperlyConfigured that names the variable and gives an example of a valid value.
DEBUG = env_bool("DJANGO_DEBUG", True)
# The site is served over https (behind the TLS proxy) exactly when debug is off: every
# https-only setting below (Secure cookies, HSTS, the redirect) follows this one switch.
HTTPS = not DEBUG
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "Set DJANGO_SECRET_KEY when DJANGO_DEBUG is off: 50 or more random characters, made "
            "once and kept, for example the output of "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
        )
    SECRET_KEY = "django-insecure-development-only-key-not-for-production"

ALLOWED_HOSTS = env_hosts(
    "DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver" if DEBUG else ""
)
CSRF_TRUSTED_ORIGINS = env_origins("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "simple_history",
    "axes",
    "django_tasks_db",
    "tournaments",
    "rankings",
    # Last: the admin's ready() reads every app's admin module, and the tournaments' admin
    # registers one result admin per storage model of the scoring systems, which the
    # tournaments app registers in its own ready() (docs/ARCHITECTURE.md, "Layers").
    "django.contrib.admin",
]

MIDDLEWARE = [
    "clubsite.http.HeadWithoutBodyMiddleware",  # HEAD: GET's headers, no body (any server)
    "django.middleware.security.SecurityMiddleware",
    "clubsite.http.PrivatePagesMiddleware",  # /gestion/ and /admin/: Cache-Control private, no-store
    "clubsite.compression.CompressionMiddleware",  # gzip/br of large answers without secrets
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "clubsite.http.FormOnlyAddressMiddleware",  # a GET on a form-only address: the page above
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "clubsite.http.RefusedFormMiddleware",  # a refused form: its page at its own address (PRG)
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    "clubsite.routers.ReplicaMiddleware",  # public GET pages may read the replica (routers.py)
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks: turns a lockout into its page
]

# django-axes first: it refuses a locked-out login before the password is even checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "clubsite.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "tournaments.context_processors.navigation",
                "rankings.context_processors.ledger_health",
            ],
        },
    },
]

WSGI_APPLICATION = "clubsite.wsgi.application"
ASGI_APPLICATION = "clubsite.asgi.application"

CONN_MAX_AGE = env_int("DJANGO_CONN_MAX_AGE", 60, example="60")
DATABASES = {
    "default": env_database(
        "DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}", conn_max_age=CONN_MAX_AGE
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    # Every transaction takes SQLite's write lock when it begins (BEGIN IMMEDIATE) and waits
    # up to 20 s for it: two writes at the same moment queue instead of failing with
    # "database is locked" when a reading transaction tries to become a writing one.
    DATABASES["default"].setdefault("OPTIONS", {}).update(timeout=20, transaction_mode="IMMEDIATE")

# --- scale-out (docs/scale-out.md): nothing lives in the app server's process -------------------
# A PostgreSQL streaming replica for the public read pages: clubsite/routers.py sends their reads
# there; writes, the directors' pages, services, the admin and anything in a transaction use
# "default". Unset: one database.
_replica = env_database("DATABASE_REPLICA_URL", default=None, conn_max_age=CONN_MAX_AGE)
if _replica:
    DATABASES["replica"] = _replica
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
DATABASE_ROUTERS = ["clubsite.routers.PrimaryReplicaRouter"]

# The public pages' cache (clubsite/pagecache.py, docs/performance.md "Page cache"): on unless
# DJANGO_PAGE_CACHE=0.
PAGE_CACHE = env_bool("DJANGO_PAGE_CACHE", True)
# How many heavy outputs (PDFs, workbooks) the whole site makes at once (clubsite/pagecache.py,
# "Heavy outputs"): the others answer "Preparando el archivo" and retry by themselves.
HEAVY_AT_ONCE = env_int("DJANGO_HEAVY_AT_ONCE", 1, minimum=1, maximum=64, example="2")

# Sessions in the database (Django's default engine, stated here on purpose): a login made
# through one app server is valid on every other.
SESSION_ENGINE = "django.contrib.sessions.backends.db"

# The cache is shared by every app server: the database (table made by `manage.py
# createcachetable`) unless DJANGO_CACHE_URL names a Redis server (pip install '.[redis]').
CACHES = {"default": env_cache("DJANGO_CACHE_URL")}

# Background work (Django's tasks framework): ledger replays and long imports are tasks, run by
# `manage.py db_worker` (django-tasks-db: the tasks wait in this same database, no broker).
# DJANGO_TASKS_BACKEND=immediate runs them inside the request instead (no worker needed);
# docs/scale-out.md says how to run them on Celery or RQ.
TASKS_BACKENDS = {
    "database": "django_tasks_db.DatabaseBackend",
    "immediate": "django.tasks.backends.immediate.ImmediateBackend",
}
TASKS = {
    "default": {
        "BACKEND": TASKS_BACKENDS[
            env_choice("DJANGO_TASKS_BACKEND", "database", list(TASKS_BACKENDS), example="database")
        ]
    }
}

# Where a running import writes its progress on SQLite (tournaments/progress.py: the import holds
# the database's write lock, so the count goes to a small JSON file per job that the import
# page reads). The web server and `manage.py db_worker` must see the same directory: set
# DJANGO_TASK_PROGRESS_DIR when they run with private temporary directories (systemd PrivateTmp).
# PostgreSQL keeps the count in the job's row instead.
TASK_PROGRESS_DIR = Path(
    os.environ.get("DJANGO_TASK_PROGRESS_DIR") or Path(tempfile.gettempdir()) / "clubsite-progress"
)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGES = [("es", "Español"), ("en", "English"), ("ru", "Русский")]
LANGUAGE_CODE = env_choice(
    "DJANGO_LANGUAGE_CODE", "es", [code for code, _name in LANGUAGES], example="es"
)
# The site speaks Spanish (the source language of every msgid, and the default when the browser
# asks for nothing we have), English and Russian: locale/<lang>/LC_MESSAGES/django.po, compiled
# by "manage.py compile_translations" (make demo / make test run it). LocaleMiddleware picks the
# language from the django_language cookie (set by the switcher, /idioma/), else from
# Accept-Language; URLs carry no language prefix.
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60  # the switcher's choice is remembered for a year
# The site's own catalogs first (makemessages writes there), then the overrides of Django's
# and its apps' own strings: the informal "tú" in Spanish, Django 6's strings its catalogs miss,
# Russian phrasings that keep a model's name in the nominative (clubsite/locale_django).
LOCALE_PATHS = [BASE_DIR / "locale", BASE_DIR / "clubsite" / "locale_django"]
TIME_ZONE = env_time_zone("DJANGO_TIME_ZONE", "America/Mexico_City")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if not DEBUG
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

LOGIN_URL = "login"
# After login each role lands on a page it may see (clubsite/login.py: directors → /gestion/,
# others → the public home); this is only Django's fallback (the admin's own login).
LOGIN_REDIRECT_URL = "manage:home"
LOGOUT_REDIRECT_URL = "public:home"

# --- mail (README "Production"): password resets, the claim links, the notices to players ------
# Django's mailers (MAILERS, Django 6.1). Without DJANGO_EMAIL_HOST every message is written on
# the console, readable (the demo, development); with it, they go through that SMTP server.
# Both build messages in whole lines (clubsite/mail.py: links never broken by encodings). Notices and
# claim links are sent by the background worker (tournaments/notices/tasks.py), never inside a
# request; Django's password reset sends its own.
_email_host = env_host("DJANGO_EMAIL_HOST")
_email_port = env_int("DJANGO_EMAIL_PORT", 587, minimum=1, maximum=65535, example="587")
_email_tls = env_bool("DJANGO_EMAIL_USE_TLS", True)
_email_user = os.environ.get("DJANGO_EMAIL_HOST_USER", "").strip()
_email_password = os.environ.get("DJANGO_EMAIL_HOST_PASSWORD", "")
DEFAULT_FROM_EMAIL = env_email_address("DJANGO_DEFAULT_FROM_EMAIL", "club@localhost")
# In debug the console shows each message readable (clubsite/mail.py); in production without a
# mail server, Django's own console backend, which `check --deploy` reports as no mail server.
MAILERS = {
    "default": {
        "BACKEND": "clubsite.mail.ReadableConsoleBackend"
        if DEBUG
        else "django.core.mail.backends.console.EmailBackend"
    }
}
if _email_host:
    if bool(_email_user) != bool(_email_password):
        raise ImproperlyConfigured(
            "Set both DJANGO_EMAIL_HOST_USER and DJANGO_EMAIL_HOST_PASSWORD (the SMTP server's "
            "login), or neither: for example DJANGO_EMAIL_HOST_USER=avisos@club.example.org."
        )
    if not os.environ.get("DJANGO_DEFAULT_FROM_EMAIL", "").strip():
        raise ImproperlyConfigured(
            "Set DJANGO_DEFAULT_FROM_EMAIL when DJANGO_EMAIL_HOST is set: the address the "
            "messages come from, for example "
            "DJANGO_DEFAULT_FROM_EMAIL='Club de dominó <avisos@club.example.org>'."
        )
    MAILERS["default"] = {
        "BACKEND": "clubsite.mail.SMTPBackend",
        "OPTIONS": {
            "host": _email_host,
            "port": _email_port,
            "username": _email_user,
            "password": _email_password,
            "use_tls": _email_tls,
            "timeout": 20,  # seconds: a mail server that does not answer never holds a worker
        },
    }
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# The site's address for the links of messages sent without a request (the notices' "your
# table" and unsubscribe links): DJANGO_SITE_URL, else https:// and the first allowed host in
# production, the demo's address in debug.
SITE_URL = env_site_url(
    "DJANGO_SITE_URL",
    f"https://{ALLOWED_HOSTS[0].lstrip('.')}"
    if not DEBUG and ALLOWED_HOSTS and ALLOWED_HOSTS[0] != "*"
    else "http://127.0.0.1:8000",
)

# Upload limits: a results CSV of a large tournament is well below this.
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# The ranking (SCORING.md §2): a player's first ever rating.
ELO_INITIAL_RATING = env_float("CLUB_ELO_INITIAL_RATING", 1500.0, example="1500")

# --- security (README "Production"); `manage.py check --deploy` reports nothing in production --
SESSION_COOKIE_HTTPONLY = True
# Session, CSRF and language cookies: SameSite=Lax always, Secure under https (below).
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_HTTPONLY = False  # the pages send the token from the page (hx-headers), not the cookie
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
# Content-Security-Policy on every response, in debug too (so the tests see it): the pages load
# only their own scripts and stylesheets; no inline <script>, no style="..." in templates.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
    "base-uri": [CSP.SELF],
}
# Read (and checked) in debug too, so a malformed value is found before production.
_ssl_redirect = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
_hsts_seconds = env_int("DJANGO_HSTS_SECONDS", 365 * 24 * 60 * 60, example="31536000")
if HTTPS:
    # Behind a TLS-terminating proxy that sends X-Forwarded-Proto: https.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = _ssl_redirect
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = _hsts_seconds  # one year unless set
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# --- login throttling (django-axes) ----------------------------------------------------------------
# Five failed logins for the same username from the same address lock that pair out for 15
# minutes (counted from the fifth failure), even with the right password; a success resets the
# count. The lockout page is templates/registration/lockout.html (HTTP 429).
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = datetime.timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_TEMPLATE = "registration/lockout.html"
# The client's address: REMOTE_ADDR, or behind N proxies the N-th address from the right of
# X-Forwarded-For (the one our own proxy appended); see clubsite/client_ip.py.
TRUSTED_PROXY_COUNT = env_int("DJANGO_TRUSTED_PROXY_COUNT", 0 if DEBUG else 1, example="1")
AXES_CLIENT_IP_CALLABLE = "clubsite.client_ip.client_ip"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_log_level("DJANGO_LOG_LEVEL", "WARNING")},
}
