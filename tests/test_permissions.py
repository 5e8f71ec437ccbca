"""Who may open what: every URL pattern of the project, with every role and both methods, against
ONE table (issue "reliability and security", point 1; tournaments/permissions.py).

Roles: anonymous visitors and logged-in players read the public pages only; directors (staff in
the "Directores" group) manage players, create tournaments and manage the tournaments they
direct (``Tournament.directors``); a staff user listed as a director of tournament X (outside
the group) manages X only; superusers manage everything. All the URLs are built for tournament
X, so "director_y" (a director in the group who directs another tournament) must be refused on
every manage URL of X.

A URL name without a row in ``PERMISSIONS`` fails the walk: add its row when adding a URL.
"""

import datetime as dt
import re
from fnmatch import fnmatchcase

import pytest
from django.contrib.auth.models import Group, User
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from clubsite.http import page_above
from tournaments import services
from tournaments.errors import DomainError
from tournaments.forms import TournamentForm
from tournaments.models import ImportJob
from tournaments.permissions import DIRECTORS_GROUP, can_enter_manage_area, can_manage, is_director

ROLES = ("anonymous", "player", "director_x", "director_y", "listed_in_x", "superuser")

# --- the table -----------------------------------------------------------------------------------

OK = "ok"  # the view ran: 2xx, a redirect that is not to a login page, or a 400/409 form refusal
LOGIN = "login"  # redirected to a login page (the site's or the admin's)
FORBIDDEN = 403
NOT_ALLOWED = 405
ABOVE = "above"  # a plain visit to a form-only address: 303 to the page above (clubsite.http)


def outcomes(anonymous, player, director_x, director_y, listed_in_x, superuser) -> dict:
    return {
        "anonymous": anonymous,
        "player": player,
        "director_x": director_x,
        "director_y": director_y,
        "listed_in_x": listed_in_x,
        "superuser": superuser,
    }


#: Who gets through, per kind of page.
EVERYONE = outcomes(OK, OK, OK, OK, OK, OK)
#: A player's own page (/cuenta/): anyone logged in.
LOGGED_IN = outcomes(LOGIN, OK, OK, OK, OK, OK)
#: manage:home: anyone who directs something (the group, a tournament's list, superusers).
MANAGE_AREA = outcomes(LOGIN, FORBIDDEN, OK, OK, OK, OK)
#: Players and new tournaments: the "Directores" group and superusers.
DIRECTORS = outcomes(LOGIN, FORBIDDEN, OK, OK, FORBIDDEN, OK)
#: Anything of tournament X: its directors and superusers.
TOURNAMENT_X = outcomes(LOGIN, FORBIDDEN, OK, FORBIDDEN, OK, OK)
#: The Django admin's index: any active staff user (it lists what their model permissions allow).
ADMIN_INDEX = outcomes(LOGIN, LOGIN, OK, OK, OK, OK)
#: A model of the admin: model permissions, which the test users (and the group) do not have.
ADMIN_MODEL = outcomes(LOGIN, LOGIN, FORBIDDEN, FORBIDDEN, FORBIDDEN, OK)


def refused(gate: dict) -> dict:
    """A method the view does not accept: 405 for whoever passes the checks made before the
    method check (``gate``); the others get that refusal first (login / 403)."""
    return {role: NOT_ALLOWED if out == OK else out for role, out in gate.items()}


# ``gate``: who gets past the checks made before the method's (for /gestion/: director_required,
# i.e. MANAGE_AREA; the object check — this tournament, players — comes after the method check).
def sent_above(gate: dict) -> dict:
    """A plain visit (GET) to an address that only takes a form: whoever passes ``gate`` is
    sent to the page above (303, ``FormOnlyAddressMiddleware``) where a 405 would be; the
    others get the gate's refusal first."""
    return {role: ABOVE if out == OK else out for role, out in gate.items()}


def get_only(access, *, gate=None):
    return {"GET": access, "POST": refused(gate or access)}


def post_only(access, *, gate=None):
    return {"GET": sent_above(gate or access), "POST": access}


def get_and_post(access):
    return {"GET": access, "POST": access}


class Excluded:
    """A URL left out of the walk, with the reason."""

    def __init__(self, reason: str):
        self.reason = reason


PERMISSIONS = {
    # public pages: no login (DESIGN.md: players read pairings and standings from their phones)
    "public:home": get_only(EVERYONE),
    "public:tournaments": get_only(EVERYONE),
    "public:calendar": get_only(EVERYONE),  # the coming months (tournaments/views/calendar.py)
    "public:calendar_ics": get_only(EVERYONE),  # their iCalendar feed
    "public:tournament": get_only(EVERYONE),
    "public:find_table": get_only(EVERYONE),
    "public:check_in": get_and_post(EVERYONE),  # a player's own check-in with the day's code
    "public:signup": get_and_post(EVERYONE),  # the public sign-up form
    "public:partner": get_and_post(EVERYONE),  # a partner's yes or no: a bad link, 400
    "public:standings": get_only(EVERYONE),
    "public:standings_csv": get_only(EVERYONE),
    "public:standings_xlsx": get_only(EVERYONE),
    "public:round": get_only(EVERYONE),
    "public:round_print": get_only(EVERYONE),
    # paper for the venue (tournaments/views/paper.py)
    "public:qr": get_only(EVERYONE),
    "public:poster": get_only(EVERYONE),
    "public:round_by_name": get_only(EVERYONE),
    "public:round_by_name_pdf": get_only(EVERYONE),
    "public:standings_pdf": get_only(EVERYONE),
    "public:clock": get_only(EVERYONE),  # the round clock, full screen
    "public:clock_state": get_only(EVERYONE),  # its state (JSON) for static/js/clock.js
    "rankings:ranking": get_only(EVERYONE),
    "rankings:ranking_csv": get_only(EVERYONE),
    "rankings:ranking_xlsx": get_only(EVERYONE),
    "rankings:ledger_csv": get_only(EVERYONE),
    "rankings:ledger_xlsx": get_only(EVERYONE),
    "rankings:player": get_only(EVERYONE),
    "rankings:player_csv": get_only(EVERYONE),
    "rankings:head_to_head": get_only(EVERYONE),  # two players' games against each other
    "rankings:calculator": get_only(EVERYONE),  # a GET form: it computes, it stores nothing
    "rankings:player_search": get_only(EVERYONE),  # the calculator's players as one types
    "public:leagues": get_only(EVERYONE),  # leagues (tournaments/views/leagues.py)
    "public:league": get_only(EVERYONE),
    "public:league_csv": get_only(EVERYONE),
    "public:league_xlsx": get_only(EVERYONE),
    "glossary": get_only(EVERYONE),
    "set_language": get_only(EVERYONE),  # the switcher: a GET form that sets the language cookie
    "login": get_and_post(EVERYONE),
    "logout": post_only(EVERYONE),  # Django's LogoutView: POST only
    # accounts: Django's password reset, a player's own page, claiming a record, unsubscribing
    "password_reset": get_and_post(EVERYONE),
    "password_reset_done": get_only(EVERYONE),
    "password_reset_confirm": get_and_post(EVERYONE),  # a bad link: the page says so (200)
    "password_reset_complete": get_only(EVERYONE),
    "account:home": get_and_post(LOGGED_IN),
    "account:partner_answer": post_only(LOGGED_IN),  # a partner's yes or no from /cuenta/
    "account:claim": get_and_post(EVERYONE),
    "account:claim_link": get_and_post(EVERYONE),  # a bad link: 400, the page says so
    "account:unsubscribe": get_and_post(EVERYONE),  # a bad link: 400, the page says so
    # the directors' pages
    "manage:home": get_only(MANAGE_AREA),
    "manage:players": get_only(DIRECTORS, gate=MANAGE_AREA),
    "manage:player_add": get_and_post(DIRECTORS),
    "manage:player_edit": get_and_post(DIRECTORS),
    "manage:player_set_active": post_only(DIRECTORS, gate=MANAGE_AREA),
    "manage:player_delete": post_only(DIRECTORS, gate=MANAGE_AREA),
    "manage:player_anonymise": post_only(DIRECTORS, gate=MANAGE_AREA),
    "manage:leagues": get_only(DIRECTORS, gate=MANAGE_AREA),  # leagues: club directors
    "manage:league_add": get_and_post(DIRECTORS),
    "manage:league_edit": get_and_post(DIRECTORS),
    "manage:tournament_add": get_and_post(DIRECTORS),
    "manage:tournament": get_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:tournament_edit": get_and_post(TOURNAMENT_X),
    "manage:entry_add": post_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:entry_remove": post_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:entry_drop": post_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:round_robin": post_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:check_in": get_and_post(TOURNAMENT_X),
    "manage:signups": get_and_post(TOURNAMENT_X),
    "manage:import": post_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:import_job": get_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:import_retry": post_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:sorteo": post_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:tournament_step": post_only(TOURNAMENT_X, gate=MANAGE_AREA),  # lifecycle steps
    "manage:round": get_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:pairings": get_and_post(TOURNAMENT_X),
    "manage:round_close": post_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:clock": post_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:castigo_add": post_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:castigo_remove": post_only(TOURNAMENT_X, gate=MANAGE_AREA),
    "manage:result_save": post_only(TOURNAMENT_X, gate=MANAGE_AREA),
    # the Django admin: its own permission system (is_staff + model permissions, Django's tests)
    "admin:index": get_and_post(ADMIN_INDEX),
    "admin:tournaments_tournament_changelist": get_and_post(ADMIN_MODEL),
    "admin:*": Excluded(
        "the rest of the Django admin (login, logout, password change, app lists, every model's "
        "add/change/delete/history pages, autocomplete, jsi18n, view_on_site, catch-all): "
        "guarded by Django's own admin_view (is_staff) and model permissions, not by this "
        "project's rules; the index and one changelist above check that it is wired in"
    ),
}


# --- walking the URLconf ---------------------------------------------------------------------------


def _kwarg_names(pattern) -> list[str]:
    converters = getattr(pattern, "converters", None)
    if converters is not None:
        return list(converters)
    return list(pattern.regex.groupindex)


def all_urls(patterns=None, namespace="", route="", kwargs=()):
    """(key, route, kwarg names) of every URL pattern, recursively; the key is the namespaced
    name ("manage:round"), or "<unnamed> route" for a pattern without a name."""
    if patterns is None:
        patterns = get_resolver().url_patterns
    for p in patterns:
        names = (*kwargs, *_kwarg_names(p.pattern))
        if isinstance(p, URLResolver):
            ns = (
                f"{namespace}:{p.namespace}"
                if namespace and p.namespace
                else (p.namespace or namespace)
            )
            yield from all_urls(p.url_patterns, ns, route + str(p.pattern), names)
        elif isinstance(p, URLPattern):
            full = route + str(p.pattern)
            if p.name:
                yield (f"{namespace}:{p.name}" if namespace else p.name), full, names
            else:
                yield f"<unnamed> {full}", full, names


def row_for(key: str, route: str):
    """The table's row for a URL: its own, or a wildcard row ("admin:*") for the admin's URLs,
    named or not; None when the table has none."""
    if key in PERMISSIONS:
        return PERMISSIONS[key]
    for pattern, row in PERMISSIONS.items():
        if "*" in pattern and (
            fnmatchcase(key, pattern)
            or (key.startswith("<unnamed>") and route.startswith(pattern.split(":")[0] + "/"))
        ):
            return row
    return None


def test_every_url_has_a_permissions_row_and_every_row_a_url():
    urls = list(all_urls())
    missing = [key for key, route, _ in urls if row_for(key, route) is None]
    assert not missing, f"new URL without a permissions row: {missing}"
    keys = {key for key, _, _ in urls}
    stale = [k for k in PERMISSIONS if "*" not in k and k not in keys]
    assert not stale, f"permissions rows for URLs that no longer exist: {stale}"
    for row in PERMISSIONS.values():
        if not isinstance(row, Excluded):
            assert set(row) == {"GET", "POST"} and all(set(r) == set(ROLES) for r in row.values())


# --- the world the URLs are built from -------------------------------------------------------------


@pytest.fixture
def world(db):
    """Tournament X (running, 4 pairs, round 1 with two tables, a castigo) directed by director_x
    and listed_in_x; tournament Y directed by director_y; a spare player; a user per role."""
    group, _ = Group.objects.get_or_create(name=DIRECTORS_GROUP)

    def staff(username, *, in_group):
        user = User.objects.create_user(username, password=None, is_staff=True)
        if in_group:
            user.groups.add(group)
        return user

    users = {
        "anonymous": None,
        "player": User.objects.create_user("jugadora", password=None),
        "director_x": staff("directora-x", in_group=True),
        "director_y": staff("director-y", in_group=True),
        "listed_in_x": staff("apoyo-x", in_group=False),
        "superuser": User.objects.create_superuser("admin", password=None),
    }
    dx, dy = users["director_x"], users["director_y"]
    x = services.create_tournament(
        acting_user=dx,
        name="Copa X",
        date=dt.date(2026, 9, 19),
        mode="pairs",
        target=100,
        time_limit=30,
        status="running",
    )
    services.set_tournament_directors(
        acting_user=dx, tournament=x, directors=[dx, users["listed_in_x"]]
    )
    players = [
        services.create_player(acting_user=dx, full_name=f"Jugador {i} Pérez") for i in range(8)
    ]
    entries = [
        services.register_entry(acting_user=dx, tournament=x, players=players[2 * i : 2 * i + 2])
        for i in range(4)
    ]
    rnd = services.set_pairings(
        acting_user=dx,
        tournament=x,
        round_number=1,
        tables=[([entries[0]], [entries[1]]), ([entries[2]], [entries[3]])],
    )
    castigo = services.add_castigo(
        acting_user=dx, tournament=x, player=players[0], tantos=5, reason="Llegó tarde", round=rnd
    )
    y = services.create_tournament(
        acting_user=dy,
        name="Copa Y",
        date=dt.date(2026, 10, 3),
        mode="single",
        target=200,
        status="running",
    )
    spare = services.create_player(acting_user=dx, full_name="Tadeo Tovar")
    league = services.create_league(
        acting_user=dx, name="Liga X", season=2026, planned_tournaments=4, tournaments=[x, y]
    )
    job = ImportJob.objects.create(tournament=x, requested_by=dx, file_name="r.csv")
    kwargs = {
        "job_id": job.pk,
        "slug": x.slug,
        "number": rnd.number,
        "table_id": rnd.tables.order_by("number").first().pk,
        "entry_id": entries[0].pk,
        "castigo_id": castigo.pk,
        "pk": spare.pk,
        "other": players[0].pk,  # head to head: the spare player against a player of X
        "year": timezone.localdate().year,
        "league": league.slug,
        "token": "not-a-signed-token",  # claim, unsubscribe and password reset links
        "uidb64": "MQ",
    }
    return {"users": users, "x": x, "y": y, "kwargs": kwargs}


def _outcome(response):
    status = response.status_code
    if status in (301, 302, 303):
        location = response["Location"].split("?")[0]
        if location in (reverse("login"), reverse("admin:login")):
            return LOGIN
        if status == 303 and location == page_above(response.wsgi_request.path):
            return ABOVE
        return OK
    if status in (200, 204, 400, 409):
        return OK
    return status


def _request(user, method: str, url: str):
    """One request with a fresh client, rolled back afterwards (a POST may delete the player the
    next URL needs, or log the client out)."""
    client = Client()
    with transaction.atomic():
        if user is not None:
            client.force_login(user)
        response = client.get(url) if method == "GET" else client.post(url)
        transaction.set_rollback(True)
    return response


@pytest.mark.parametrize("role", ROLES)
def test_every_url_answers_each_method_as_the_table_says(world, role):
    user = world["users"][role]
    wrong, walked = [], 0
    for key, route, names in all_urls():
        row = row_for(key, route)
        assert row is not None, f"new URL without a permissions row: {key}"
        if isinstance(row, Excluded):
            continue
        unknown = [n for n in names if n not in world["kwargs"]]
        assert not unknown, f"{key}: no fixture value for {unknown}; add one to the world fixture"
        url = reverse(key, kwargs={n: world["kwargs"][n] for n in names})
        for method, expected_by_role in row.items():
            got = _outcome(_request(user, method, url))
            walked += 1
            if got != expected_by_role[role]:
                wrong.append(
                    f"{method} {url} ({key}): expected {expected_by_role[role]}, got {got}"
                )
    assert walked >= 2 * 40
    assert not wrong, f"{role}:\n" + "\n".join(wrong)


# --- the rules themselves --------------------------------------------------------------------------


def test_group_director_manages_only_the_tournaments_they_direct(world):
    u, x, y = world["users"], world["x"], world["y"]
    assert is_director(u["director_y"])
    assert not can_manage(u["director_y"], x) and can_manage(u["director_y"], y)
    assert can_manage(u["director_x"], x) and not can_manage(u["director_x"], y)


def test_listed_director_outside_the_group_manages_that_tournament_only(world):
    u, x, y = world["users"], world["x"], world["y"]
    assert can_manage(u["listed_in_x"], x) and not can_manage(u["listed_in_x"], y)
    assert not is_director(u["listed_in_x"]) and can_enter_manage_area(u["listed_in_x"])


def test_players_and_inactive_directors_manage_nothing(world):
    u, x = world["users"], world["x"]
    assert not can_manage(u["player"], x) and not can_enter_manage_area(u["player"])
    u["director_x"].is_active = False
    assert not can_manage(u["director_x"], x) and not can_enter_manage_area(u["director_x"])


def test_superuser_manages_every_tournament(world):
    assert can_manage(world["users"]["superuser"], world["x"])
    assert can_manage(world["users"]["superuser"], world["y"])


def test_manage_home_lists_only_the_tournaments_the_user_directs(world, client):
    client.force_login(world["users"]["director_y"])
    names = [t.name for t in client.get(reverse("manage:home")).context["tournaments"]]
    assert names == ["Copa Y"]
    client.force_login(world["users"]["listed_in_x"])
    page = client.get(reverse("manage:home"))
    assert [t.name for t in page.context["tournaments"]] == ["Copa X"]
    assert reverse("manage:players") not in page.content.decode()  # outside the group
    client.force_login(world["users"]["superuser"])
    assert {t.name for t in client.get(reverse("manage:home")).context["tournaments"]} == {
        "Copa X",
        "Copa Y",
    }


# --- the tournament's directors: settings page and service ------------------------------------------


def _settings_data(t, directors) -> dict:
    form = TournamentForm(instance=t)
    data = {name: form[name].value() for name in form.fields if name != "directors"}
    data = {k: v for k, v in data.items() if v is not None and v is not False}
    data["directors"] = [u.pk for u in directors]
    return data


def test_settings_page_offers_staff_users_only(world, client):
    u = world["users"]
    client.force_login(u["director_x"])
    field = client.get(reverse("manage:tournament_edit", args=[world["x"].slug])).context["form"][
        "directors"
    ]
    choices = {int(str(c.data["value"])) for c in field.subwidgets}
    assert choices == {
        u["director_x"].pk,
        u["director_y"].pk,
        u["listed_in_x"].pk,
        u["superuser"].pk,
    }
    assert set(field.value()) == {u["director_x"].pk, u["listed_in_x"].pk}


def test_director_adds_another_director_on_the_settings_page(world, client):
    u, x = world["users"], world["x"]
    client.force_login(u["director_x"])
    response = client.post(
        reverse("manage:tournament_edit", args=[x.slug]),
        _settings_data(x, [u["director_x"], u["director_y"]]),
    )
    assert response.status_code == 302
    assert set(x.directors.all()) == {u["director_x"], u["director_y"]}
    assert can_manage(u["director_y"], x) and not can_manage(u["listed_in_x"], x)
    assert x.history.first().history_user == u["director_x"]
    other = Client()
    other.force_login(u["director_y"])
    assert other.get(reverse("manage:tournament", args=[x.slug])).status_code == 200


def test_a_non_staff_user_cannot_be_chosen_as_director(world, client):
    u, x = world["users"], world["x"]
    client.force_login(u["director_x"])
    response = client.post(
        reverse("manage:tournament_edit", args=[x.slug]),
        _settings_data(x, [u["director_x"], u["player"]]),
    )
    assert response.status_code == 400
    assert response.context["form"].errors["directors"]
    assert u["player"] not in x.directors.all()


def test_a_director_cannot_remove_themselves_and_nothing_is_saved(world, client):
    u, x = world["users"], world["x"]
    client.force_login(u["director_x"])
    data = _settings_data(x, [u["listed_in_x"]])
    data["name"] = "Copa X renombrada"
    response = client.post(reverse("manage:tournament_edit", args=[x.slug]), data)
    assert response.status_code == 400
    assert "No puedes quitarte" in response.content.decode()
    x.refresh_from_db()
    assert x.name == "Copa X" and u["director_x"] in x.directors.all()


def test_superuser_may_replace_every_director(world):
    u, x = world["users"], world["x"]
    services.set_tournament_directors(
        acting_user=u["superuser"], tournament=x, directors=[u["director_y"]]
    )
    assert list(x.directors.all()) == [u["director_y"]]


def test_service_refuses_to_add_a_non_staff_director(world):
    u = world["users"]
    with pytest.raises(DomainError) as exc:
        services.set_tournament_directors(
            acting_user=u["superuser"],
            tournament=world["x"],
            directors=[u["director_x"], u["player"]],
        )
    assert exc.value.code == "director_not_staff"


def test_service_refuses_a_director_removing_themselves(world):
    u = world["users"]
    with pytest.raises(DomainError) as exc:
        services.set_tournament_directors(
            acting_user=u["director_x"], tournament=world["x"], directors=[]
        )
    assert exc.value.code == "director_self_removal"


def test_creating_a_tournament_makes_the_creator_its_director(world, client):
    u = world["users"]
    client.force_login(u["director_y"])
    data = _settings_data(world["x"], [])
    del data["directors"]
    data["name"] = "Copa Nueva"
    data["status"] = "registration"  # a new tournament starts in draft, sign-up or ready
    response = client.post(reverse("manage:tournament_add"), data)
    assert response.status_code == 302
    from tournaments.models import Tournament

    t = Tournament.objects.get(name="Copa Nueva")
    assert list(t.directors.all()) == [u["director_y"]]
    assert not can_manage(u["director_x"], t)


def test_the_header_links_to_the_directors_pages_only_for_those_who_may_open_them(world):
    expected = {
        "anonymous": False,
        "player": False,
        "director_x": True,
        "director_y": True,
        "listed_in_x": True,
        "superuser": True,
    }
    for role, shown in expected.items():
        client = Client()
        if world["users"][role] is not None:
            client.force_login(world["users"][role])
        body = client.get(reverse("public:home")).content.decode()
        assert ('href="/gestion/"' in body) is shown, role
        assert client.get("/gestion/").status_code == (
            200 if shown else 302 if role == "anonymous" else 403
        ), role


def test_a_new_tournament_form_sent_twice_creates_one_tournament(world, client):
    """A double click (or a reload of the answer) sends the same form twice: the token the form
    page handed out lets only the first create; a refused first send frees it again."""
    from tournaments.models import Tournament

    client.force_login(world["users"]["director_y"])
    page = client.get(reverse("manage:tournament_add")).content.decode()
    token = re.search(r'name="form_token" value="([0-9a-f]{32})"', page).group(1)
    data = _settings_data(world["x"], [])
    del data["directors"]
    data.update(name="Copa Doble", form_token=token, target="0", status="registration")
    refused = client.post(reverse("manage:tournament_add"), data)
    assert refused.status_code == 400 and f'value="{token}"' in refused.content.decode()
    data["target"] = "100"
    first = client.post(reverse("manage:tournament_add"), data)
    second = client.post(reverse("manage:tournament_add"), data)
    assert first.status_code == 302 and first["Location"].startswith("/gestion/torneos/copa-doble")
    assert second.status_code == 302 and second["Location"] == first["Location"]
    assert Tournament.objects.filter(name="Copa Doble").count() == 1
    followed = client.get(second["Location"]).content.decode()
    assert (
        "Ya se había guardado: el formulario llegó dos veces y se guardó una sola vez." in followed
    )
