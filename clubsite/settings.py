"""Settings of the club site: one module, driven by environment variables (DESIGN.md, Settings).

With no variable set it runs in debug mode on SQLite in the checkout. Production sets at least
DATABASE_URL (PostgreSQL through psycopg 3), DJANGO_SECRET_KEY, DJANGO_DEBUG=0 and
DJANGO_ALLOWED_HOSTS.
"""

import datetime
import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("Set DJANGO_SECRET_KEY when DJANGO_DEBUG is off.")
    SECRET_KEY = "django-insecure-development-only-key-not-for-production"

ALLOWED_HOSTS = env_list(
    "DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver" if DEBUG else ""
)
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "simple_history",
    "axes",
    "tournaments",
    "rankings",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
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
            ],
        },
    },
]

WSGI_APPLICATION = "clubsite.wsgi.application"
ASGI_APPLICATION = "clubsite.asgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20

# --- scale-out (docs/scale-out.md): nothing lives in the app server's process -------------------
# A PostgreSQL streaming replica for the public read pages: clubsite/routers.py sends their reads
# there; writes, the directors' pages, services, the admin and anything in a transaction use
# "default". Unset: one database.
if os.environ.get("DATABASE_REPLICA_URL"):
    DATABASES["replica"] = dj_database_url.parse(
        os.environ["DATABASE_REPLICA_URL"],
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "60")),
    )
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
DATABASE_ROUTERS = ["clubsite.routers.PrimaryReplicaRouter"]

# The public pages' cache (clubsite/pagecache.py, docs/performance.md "Page cache"): on unless
# DJANGO_PAGE_CACHE=0.
PAGE_CACHE = os.environ.get("DJANGO_PAGE_CACHE", "1") != "0"

# Sessions in the database (Django's default engine, stated here on purpose): a login made
# through one app server is valid on every other.
SESSION_ENGINE = "django.contrib.sessions.backends.db"

# The cache is shared by every app server: the database (table made by `manage.py
# createcachetable`) unless DJANGO_CACHE_URL names a Redis server (pip install '.[redis]').
cache_url = os.environ.get("DJANGO_CACHE_URL", "").strip()
if not cache_url:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "django_cache",
        }
    }
elif cache_url.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": cache_url,
        }
    }
else:
    raise ImproperlyConfigured(
        "DJANGO_CACHE_URL must be a redis://, rediss:// or unix:// URL (or unset)."
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = os.environ.get("DJANGO_LANGUAGE_CODE", "es")
# The site speaks Spanish (the source language of every msgid, and the default when the browser
# asks for nothing we have), English and Russian: locale/<lang>/LC_MESSAGES/django.po, compiled
# by "manage.py compile_translations" (make demo / make test run it). LocaleMiddleware picks the
# language from the django_language cookie (set by the switcher, /idioma/), else from
# Accept-Language; URLs carry no language prefix.
LANGUAGES = [("es", "Español"), ("en", "English"), ("ru", "Русский")]
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60  # the switcher's choice is remembered for a year
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "America/Mexico_City")
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
LOGIN_REDIRECT_URL = "manage:home"
LOGOUT_REDIRECT_URL = "public:home"

# Upload limits: a results CSV of a large tournament is well below this.
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# The ranking (SCORING.md §2): a player's first ever rating.
ELO_INITIAL_RATING = float(os.environ.get("CLUB_ELO_INITIAL_RATING", "1500"))

# --- security (README "Production"); `manage.py check --deploy` reports nothing in production --
SESSION_COOKIE_HTTPONLY = True
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
if not DEBUG:
    # Behind a TLS-terminating proxy that sends X-Forwarded-Proto: https.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000"))  # one year
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
TRUSTED_PROXY_COUNT = int(os.environ.get("DJANGO_TRUSTED_PROXY_COUNT", "0" if DEBUG else "1"))
AXES_CLIENT_IP_CALLABLE = "clubsite.client_ip.client_ip"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}
