"""Production settings (README "Production"): with DJANGO_DEBUG=0, a strong DJANGO_SECRET_KEY and
DJANGO_ALLOWED_HOSTS, ``manage.py check --deploy`` reports nothing, and the security settings
have the values the README promises."""

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def production_env(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    env.update(
        DJANGO_SETTINGS_MODULE="clubsite.settings",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(64),  # 86 random characters
        DJANGO_ALLOWED_HOSTS="club.example.org",
        DATABASE_URL=f"sqlite:///{tmp_path / 'prod.sqlite3'}",
        DJANGO_EMAIL_HOST="smtp.example.org",
        DJANGO_DEFAULT_FROM_EMAIL="Club de dominó <avisos@club.example.org>",
    )
    return env


def test_check_deploy_reports_nothing(tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert "WARNING" not in result.stderr and "ERROR" not in result.stderr, result.stderr


def test_check_deploy_asks_for_a_mail_server(tmp_path):
    """Without DJANGO_EMAIL_HOST the messages (password resets, notices) would only be written
    on the console: Django's deploy check says so (mail.E001)."""
    env = production_env(tmp_path)
    del env["DJANGO_EMAIL_HOST"]
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "mail.E001" in result.stderr, result.stderr


def test_production_security_settings(tmp_path):
    code = (
        "import django, json; django.setup(); from django.conf import settings as s; print(json.dumps({"
        "k: getattr(s, k) for k in ('DEBUG', 'SESSION_COOKIE_SECURE', 'SESSION_COOKIE_HTTPONLY',"
        " 'CSRF_COOKIE_SECURE', 'SECURE_HSTS_SECONDS', 'SECURE_HSTS_INCLUDE_SUBDOMAINS',"
        " 'SECURE_HSTS_PRELOAD', 'X_FRAME_OPTIONS', 'SECURE_CONTENT_TYPE_NOSNIFF',"
        " 'SECURE_REFERRER_POLICY', 'SECURE_SSL_REDIRECT', 'SECURE_PROXY_SSL_HEADER',"
        " 'AXES_FAILURE_LIMIT', 'TRUSTED_PROXY_COUNT', 'LANGUAGE_COOKIE_SECURE',"
        " 'SESSION_COOKIE_SAMESITE', 'CSRF_COOKIE_SAMESITE', 'LANGUAGE_COOKIE_SAMESITE')}"
        " | {'MIDDLEWARE': s.MIDDLEWARE, 'AUTHENTICATION_BACKENDS': s.AUTHENTICATION_BACKENDS,"
        " 'AXES_COOLOFF_SECONDS': s.AXES_COOLOFF_TIME.total_seconds()}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=production_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    s = json.loads(result.stdout)
    assert s["DEBUG"] is False
    assert s["SESSION_COOKIE_SECURE"] and s["SESSION_COOKIE_HTTPONLY"] and s["CSRF_COOKIE_SECURE"]
    assert s["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600
    assert s["SECURE_HSTS_INCLUDE_SUBDOMAINS"] and s["SECURE_HSTS_PRELOAD"]
    assert s["X_FRAME_OPTIONS"] == "DENY" and s["SECURE_CONTENT_TYPE_NOSNIFF"]
    assert s["SECURE_REFERRER_POLICY"] == "same-origin"
    assert s["SECURE_SSL_REDIRECT"] and s["SECURE_PROXY_SSL_HEADER"] == [
        "HTTP_X_FORWARDED_PROTO",
        "https",
    ]
    assert "django.middleware.csp.ContentSecurityPolicyMiddleware" in s["MIDDLEWARE"]
    assert s["MIDDLEWARE"][-1] == "axes.middleware.AxesMiddleware"
    assert s["AUTHENTICATION_BACKENDS"][0] == "axes.backends.AxesStandaloneBackend"
    assert s["AXES_FAILURE_LIMIT"] == 5 and s["AXES_COOLOFF_SECONDS"] == 15 * 60
    assert s["TRUSTED_PROXY_COUNT"] == 1
    assert s["LANGUAGE_COOKIE_SECURE"] is True
    assert s["SESSION_COOKIE_SAMESITE"] == s["CSRF_COOKIE_SAMESITE"] == "Lax"
    assert s["LANGUAGE_COOKIE_SAMESITE"] == "Lax"
    assert s["MIDDLEWARE"][:3] == [
        "clubsite.http.HeadWithoutBodyMiddleware",  # outermost: every answer, errors included
        "django.middleware.security.SecurityMiddleware",
        "clubsite.http.PrivatePagesMiddleware",
    ]


def test_production_cookies_are_secure_and_samesite_lax(tmp_path):
    """Over https in production, the language switcher's cookie is Secure and SameSite=Lax
    (the session and CSRF cookies follow the same settings, checked above)."""
    code = (
        "import django; django.setup(); from django.test import Client;"
        " r = Client().get('/idioma/?language=ru&next=/', secure=True,"
        " headers={'host': 'club.example.org'});"
        " c = r.cookies['django_language'];"
        " print(r.status_code, r['Location'], c.value, c['samesite'], bool(c['secure']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=production_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["302", "/", "ru", "Lax", "True"]


def test_production_refuses_to_start_without_a_secret_key(tmp_path):
    env = production_env(tmp_path)
    del env["DJANGO_SECRET_KEY"]
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0 and "DJANGO_SECRET_KEY" in result.stderr
