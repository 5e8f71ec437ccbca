"""The Django admin speaks the site's languages everywhere (issue "words", point 4): the index,
every model's list, a change page and a history page of each model, in Spanish and in Russian,
show none of the English words that used to leak through (django-axes' and django-tasks-db's
pages, django-simple-history's history page, Django's own strings missing from its Spanish
catalogue, fields without labels, raw stored values), and the history page keeps to the
Content-Security-Policy (no inline style)."""

import datetime as dt
import html
import re
from html.parser import HTMLParser

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.contrib import admin
from django.urls import reverse
from django.utils import timezone, translation
from django_tasks_db.models import DBTaskResult

from tournaments import services

pytestmark = pytest.mark.django_db

#: Words that showed in English on the Spanish or Russian admin before, each as a pattern of
#: the visible text (text and the alt, title, placeholder, aria-label and button values).
ENGLISH = [
    r"\bRun\b",
    r"- Select an option -",
    r"\bSearch\b",
    r"\bPagination\b",
    r"\bFilter by\b",
    r"\bChange history\b",
    r"\bChanges\b",
    r"\bChanged by\b",
    r"\bChange reason\b",
    r"\bComment\b",
    r"\bObject\b",
    r"\bChoose a date\b",
    r"\bRevert\b",
    r"\b[Aa]ccess (attempts?|logs?|failures?)\b",
    r"\bAccess Log for\b",
    r"\bAttempted Access\b",
    r"\bAxes\b",
    r"\bTask Results?\b",
    r"\bTasks Database Backend\b",
    r"\bLocked Out\b",
    r"\bAttempt Time\b",
    r"\bLogout Time\b",
    r"\bUser Agent\b",
    r"\bIP Address\b",
    r"\bPlayed at\b",
    r"\bRating (before|after)\b",
    r"\bExpected score\b",
    r"\bK factor\b",
    r"\bNg before\b",
    r"\bOrder key\b",
    r"\bPosition\b",
    r"\bSide\b",
    r"\bVersion\b",
    r"\bUpdated at\b",
    r"\bqueue name\b",
    r"\bpriority\b",
    r"\bAre you sure\b",
    r"\bYes, I.m sure\b",
    r"\bAll of the following related items\b",
    r"\bCan (add|change|delete|view)\b",
    r"\b[Hh]istorical\b",
    r"\bEnter times in\b",
]
#: The formal "usted" of Django's own Spanish, which the site does not use (it says "tú").
USTED = [
    r"\b(Introduzca|Asegúrese|Seleccione|Escoja|Mantenga|Empiece|Elija|Escriba)\b",
    r"\busted\b",
    r"\b[Ss]u (contraseña|cuenta)\b",
    r"\bfichero\b",
]
#: Raw stored values the history page used to print, looked for in the text only (Django's
#: yes/no icons keep "True"/"False" as their alt text).
RAW_VALUES = [r"^None$", r"^(True|False)$", r"\bregistration\b", r"(None|True|False)\s*→"]


class _Visible(HTMLParser):
    """The text a person meets on a page: text outside <script>/<style>, and the alt, title,
    placeholder and aria-label attributes and the value of buttons."""

    def __init__(self):
        super().__init__()
        self.texts: list[str] = []
        self.attributes: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "template"):
            self._hidden += 1
        a = dict(attrs)
        for name in ("alt", "title", "placeholder", "aria-label"):
            if a.get(name):
                self.attributes.append(a[name])
        if tag == "input" and a.get("type") in ("submit", "button") and a.get("value"):
            self.attributes.append(a["value"])

    def handle_endtag(self, tag):
        if tag in ("script", "style", "template"):
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden and data.strip():
            self.texts.append(" ".join(data.split()))


def english_on(html: str) -> list[str]:
    """The pieces of ``html`` a person reads that hold one of the ``ENGLISH`` words or a raw
    value (``RAW_VALUES``)."""
    page = _Visible()
    page.feed(html)
    # Permission names ("Torneos | torneo | Can add torneo") are rows Django stores in English
    # when the tables are made: data, not words of the pages.
    texts = [text for text in page.texts if " | Can " not in text]
    found = [text for text in texts + page.attributes if any(re.search(rx, text) for rx in ENGLISH)]
    found += [text for text in texts if any(re.search(rx, text) for rx in RAW_VALUES)]
    return found


@pytest.fixture
def club(admin_user):
    """A running individual dominó (a result, a castigo, its history), a Swiss match, a table
    game, the ledger it rates, and a row of each login and task table."""
    t = services.create_tournament(
        acting_user=admin_user,
        name="Copa Otoño",
        date=dt.date(2026, 10, 3),
        mode="individual",
        status="registration",
    )
    players = [
        services.create_player(acting_user=admin_user, full_name=n)
        for n in ("Ana Ruiz", "Beto Sanz", "Carla Vela", "Dani Yuste")
    ]
    e = [
        services.register_entry(acting_user=admin_user, tournament=t, players=[p]) for p in players
    ]
    services.update_tournament(acting_user=admin_user, tournament=t, status="running")
    rnd = services.set_pairings(
        acting_user=admin_user, tournament=t, round_number=1, tables=[([e[0], e[1]], [e[2], e[3]])]
    )
    table = rnd.tables.get()
    services.record_result(
        acting_user=admin_user, table=table, version=0, tantos_a=100, tantos_b=30
    )
    services.record_result(
        acting_user=admin_user, table=table, version=1, tantos_a=100, tantos_b=40
    )
    services.add_castigo(
        acting_user=admin_user,
        tournament=t,
        player=players[0],
        tantos=20,
        reason="Hablar",
        round=rnd,
    )
    services.update_tournament(acting_user=admin_user, tournament=t, venue="Casino")
    swiss = services.create_tournament(
        acting_user=admin_user, name="Suizo", date=dt.date(2026, 10, 4), system="swiss"
    )
    s = [
        services.register_entry(
            acting_user=admin_user,
            tournament=swiss,
            players=[services.create_player(acting_user=admin_user, full_name=f"Suiza {i}")],
        )
        for i in (1, 2)
    ]
    srnd = services.set_pairings(
        acting_user=admin_user, tournament=swiss, round_number=1, tables=[([s[0]], [s[1]])]
    )
    services.record_result(
        acting_user=admin_user, table=srnd.tables.get(), version=0, games_a=2, games_b=1
    )
    game = services.create_tournament(
        acting_user=admin_user, name="Mesa", date=dt.date(2026, 10, 5), system="table"
    )
    g = [
        services.register_entry(
            acting_user=admin_user,
            tournament=game,
            players=[services.create_player(acting_user=admin_user, full_name=f"Mesa {i}")],
        )
        for i in (1, 2, 3)
    ]
    grnd = services.set_seating(acting_user=admin_user, tournament=game, round_number=1, tables=[g])
    services.record_result(
        acting_user=admin_user,
        table=grnd.tables.get(),
        version=0,
        scores={g[0].pk: 45, g[1].pk: 30, g[2].pk: 20},
    )
    now = timezone.now()
    for model in (AccessAttempt, AccessLog, AccessFailureLog):
        extra = {"get_data": "", "post_data": "", "failures_since_start": 5}
        model.objects.create(
            username="intruso",
            ip_address="192.0.2.7",
            user_agent="Navegador de prueba",
            http_accept="text/html",
            path_info="/entrar/",
            **(extra if model is AccessAttempt else {}),
        )
    DBTaskResult.objects.create(
        args_kwargs={"args": [], "kwargs": {}},
        task_path="rankings.tasks.replay_ledger",
        backend_name="default",
        run_after=now,
        exception_class_path="",
        traceback="",
    )
    return t


def admin_pages(client) -> list[str]:
    """The admin index and its password change, then for every registered model its list,
    its add page (where adding is allowed) and, for its newest row, its change page, its
    history page and its delete confirmation (where deleting is allowed)."""
    urls = [reverse("admin:index"), reverse("admin:password_change")]
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        name = f"admin:{opts.app_label}_{opts.model_name}"
        urls.append(reverse(f"{name}_changelist"))
        if model_admin.has_add_permission(_superuser_request()):
            urls.append(reverse(f"{name}_add"))
        row = model._default_manager.order_by("-pk").first()
        if row is not None:
            urls.append(reverse(f"{name}_change", args=[row.pk]))
            urls.append(reverse(f"{name}_history", args=[row.pk]))
            if model_admin.has_delete_permission(_superuser_request(), row):
                urls.append(reverse(f"{name}_delete", args=[row.pk]))
    return urls


def _superuser_request():
    from django.contrib.auth.models import User
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = User(is_superuser=True, is_staff=True, is_active=True)
    return request


@pytest.mark.parametrize("language", ["es", "ru"])
def test_no_english_is_left_on_any_admin_page(admin_client, club, language):
    admin_client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    leaks = {}
    for url in admin_pages(admin_client):
        response = admin_client.get(url)
        assert response.status_code == 200, url
        found = english_on(response.content.decode())
        if language == "es":
            found += [t for t in _texts(response.content.decode()) if _usted(t)]
        if found:
            leaks[url] = found
    assert leaks == {}


def _usted(text: str) -> bool:
    return any(re.search(rx, text) for rx in USTED)


@pytest.mark.parametrize("language", ["es", "ru"])
def test_the_bulk_delete_confirmation_and_the_permissions_are_in_the_language(
    admin_client, club, language, admin_user
):
    from django.contrib.auth.models import Group

    admin_client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    spare = services.create_player(acting_user=admin_user, full_name="Sin Torneo")
    asked = admin_client.post(
        reverse("admin:tournaments_player_changelist"),
        {"action": "delete_selected", "_selected_action": [spare.pk]},
    )
    assert asked.status_code == 200
    body = asked.content.decode()
    assert english_on(body) == []
    group = Group.objects.create(name="Árbitros")
    for url in (
        reverse("admin:auth_group_change", args=[group.pk]),
        reverse("admin:auth_user_change", args=[admin_user.pk]),
    ):
        page = admin_client.get(url).content.decode()
        assert english_on(page) == [], url
        words = {
            "es": "Torneos | torneo | puede ver",
            "ru": "Турниры | турнир | может просматривать",
        }
        assert words[language] in html.unescape(page), url
    if language == "es":
        assert [t for t in _texts(body) if _usted(t)] == []
        assert "¿Seguro que quieres eliminar" in html.unescape(body)


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("es", ["Historial de cambios: Copa Otoño", "Qué cambió", "Lugar:", "— → Casino"]),
        ("ru", ["Сохранить", "Турнир"]),
    ],
)
def test_the_admin_speaks_the_chosen_language(admin_client, club, language, words):
    admin_client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    page = admin_client.get(reverse("admin:tournaments_tournament_history", args=[club.pk]))
    text = " ".join(_texts(page.content.decode()))
    change = admin_client.get(reverse("admin:tournaments_tournament_change", args=[club.pk]))
    text += " " + " ".join(_texts(change.content.decode()))
    for word in words:
        assert word in text, word


def _texts(html: str) -> list[str]:
    page = _Visible()
    page.feed(html)
    return page.texts + page.attributes


def test_the_history_page_keeps_to_the_content_security_policy(admin_client, club):
    result = club.rounds.get().tables.get().result
    page = admin_client.get(reverse("admin:tournaments_result_history", args=[result.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert re.findall(r"""\sstyle\s*=\s*["']""", html) == []
    assert '<th scope="col">Qué cambió</th>' in html
    # what changed: side B's tantos as stored before and after
    assert "<strong>Tantos B:</strong> 30&nbsp;→&nbsp;40" in html


def test_admin_pages_link_the_site_icon(admin_client, club):
    for url in (
        reverse("admin:index"),
        reverse("admin:tournaments_tournament_change", args=[club.pk]),
    ):
        html = admin_client.get(url).content.decode()
        assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in html, url


def test_other_apps_rows_are_titled_in_the_active_language(club):
    log = AccessLog.objects.get()
    with translation.override("es"):
        assert str(log).startswith("Entrada de «intruso» el ")
        assert str(AccessAttempt.objects.get()) == "Intentos fallidos de «intruso» desde 192.0.2.7"
        assert str(DBTaskResult.objects.get()) == "Tarea replay_ledger (en cola)"
