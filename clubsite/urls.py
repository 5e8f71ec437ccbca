"""Top-level URLs: public pages, the directors' pages under /gestion/, the Django admin, and
/idioma/ (the language switcher, clubsite.views.set_language, which stores the choice in the
django_language cookie). URLs carry no language prefix.

Every number in a path uses a bounded converter of clubsite/http.py (``<id:pk>``,
``<number:number>``, ``<year:year>``): out of range is a 404. After login each role lands on a
page it may see (clubsite/login.py).

Every public form and identity proof is ``clubsite.limits.limited`` (the login, the admin's
login and the password reset here; the others where their views are defined):
tests/test_limits.py walks these patterns and fails for a form that is not."""

import os

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from clubsite import http  # noqa: F401  (registers the <id:>, <number:> and <year:> converters)
from clubsite.limits import limited
from clubsite.login import (
    AdminLoginForm,
    LandingLoginView,
    SayingLogoutView,
    refused_login_is_400,
)
from clubsite.views import set_language
from tournaments.views.account import PasswordResetConfirmView, PasswordResetView
from tournaments.views.glossary import glossary

# The admin's own login form shares the login's limit: its view, limited, before the admin
# builds its URLs (once, should this module be imported again).
admin.site.login_form = AdminLoginForm  # a username longer than any account's: refused in words
admin.site.login = refused_login_is_400(admin.site.login)  # a reload never resends a password
if getattr(admin.site.login, "limit", None) is None:
    admin.site.login = limited("login")(admin.site.login)

urlpatterns = [
    path("", include("tournaments.urls_public")),
    path("ranking/", include("rankings.urls")),
    path("glosario/", glossary, name="glossary"),
    path("gestion/", include("tournaments.urls_manage")),
    path("entrar/", limited("login")(LandingLoginView.as_view()), name="login"),
    path("salir/", SayingLogoutView.as_view(), name="logout"),
    # Password reset by email (Django's views, templates/registration/; the mail goes from the
    # worker, and a reset lifts the login lockout: tournaments/views/account.py): directors
    # and players with an account; the page answers the same whether the email has an account.
    path(
        "cuenta/contrasena/",
        limited("reset")(PasswordResetView.as_view()),
        name="password_reset",
    ),
    path(
        "cuenta/contrasena/enviada/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "cuenta/contrasena/lista/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path(
        "cuenta/contrasena/<str:uidb64>/<str:token>/",
        PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    # a player's own pages: /cuenta/ (their page), /cuenta/jugador/ (claiming their record),
    # /avisos/baja/<token>/ (the notices' unsubscribe link)
    path("", include("tournaments.urls_account")),
    path("admin/", admin.site.urls),
    path("idioma/", set_language, name="set_language"),
]

# bench/throughput.sh only: a trivial page to compare real pages with (docs/performance.md).
if os.environ.get("CLUB_BENCH_VIEWS") == "1":
    from clubsite.bench_views import trivial

    urlpatterns.append(path("bench/trivial/", trivial, name="bench_trivial"))
