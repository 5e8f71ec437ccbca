"""Top-level URLs: public pages, the directors' pages under /gestion/, the Django admin, and
/idioma/ (the language switcher, clubsite.views.set_language, which stores the choice in the
django_language cookie). URLs carry no language prefix.

Every number in a path uses a bounded converter of clubsite/http.py (``<id:pk>``,
``<number:number>``, ``<year:year>``): out of range is a 404. After login each role lands on a
page it may see (clubsite/login.py)."""

import os

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from clubsite import http  # noqa: F401  (registers the <id:>, <number:> and <year:> converters)
from clubsite.login import LandingLoginView, SayingLogoutView
from clubsite.views import set_language
from tournaments.views.glossary import glossary

urlpatterns = [
    path("", include("tournaments.urls_public")),
    path("ranking/", include("rankings.urls")),
    path("glosario/", glossary, name="glossary"),
    path("gestion/", include("tournaments.urls_manage")),
    path("entrar/", LandingLoginView.as_view(), name="login"),
    path("salir/", SayingLogoutView.as_view(), name="logout"),
    # Password reset by email (Django's own views, templates/registration/): directors and
    # players with an account; the page answers the same whether the email has an account.
    path("cuenta/contrasena/", auth_views.PasswordResetView.as_view(), name="password_reset"),
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
        auth_views.PasswordResetConfirmView.as_view(),
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
