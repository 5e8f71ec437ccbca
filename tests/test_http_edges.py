"""HTTP edges of every URL (clubsite/http.py, clubsite/login.py, clubsite/numbers.py):

1. every read page answers HEAD like GET (``require_safe``) and refuses POST with 405;
2. every number in a URL is bounded: 0, a round number above 32767, a year above 9999, an id
   above 2**63 − 1 are 404s, never a 500 (and never reach a view); query-string numbers
   (``?year=``, ``?page=``) never give a 500;
3. after login each role lands on a page it may see, whatever ``next`` says;
4. the directors' pages and the admin answer ``Cache-Control: private, no-store``;
5. the session, CSRF and language cookies are SameSite=Lax;
6. a number reads the same in the rating chart as in the tables (one rounding).

The URLs are found by walking the URLconf, so a URL added later is checked too.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from fractions import Fraction

import pytest
from django.contrib.auth.models import Group, User
from django.http import HttpResponse
from django.template import Context, Template
from django.test import Client, RequestFactory
from django.urls import (
    NoReverseMatch,
    Resolver404,
    URLPattern,
    URLResolver,
    get_resolver,
    resolve,
    reverse,
)
from django.urls.converters import IntConverter
from django.utils import timezone, translation

from clubsite import pagecache
from clubsite.http import (
    MAX_ID,
    MAX_NUMBER,
    MAX_YEAR,
    BoundedIntConverter,
    IdConverter,
    NumberConverter,
    YearConverter,
)
from clubsite.numbers import format_number, rounded
from rankings import queries
from rankings.models import LedgerRow
from tournaments import services
from tournaments.permissions import DIRECTORS_GROUP

PASSWORD = "clave-de-prueba-1"

# --- walking the URLconf -------------------------------------------------------------------------


def all_urls(patterns=None, namespace="", prefix=""):
    """(key, converters by kwarg name, namespace) of every URL pattern, recursively; the key is
    the namespaced name ("public:round") or "<unnamed> route"."""
    if patterns is None:
        patterns = get_resolver().url_patterns
    for p in patterns:
        converters = dict(getattr(p.pattern, "converters", {}))
        if isinstance(p, URLResolver):
            ns = f"{namespace}:{p.namespace}" if namespace and p.namespace else p.namespace
            for key, inner, inner_ns in all_urls(
                p.url_patterns, ns or namespace, prefix + str(p.pattern)
            ):
                yield key, {**converters, **inner}, inner_ns
        elif isinstance(p, URLPattern):
            key = f"{namespace}:{p.name}" if namespace and p.name else p.name
            yield key or f"<unnamed> {prefix}{p.pattern}", converters, namespace


def site_urls():
    """The project's own URLs: everything but the Django admin's."""
    return [(k, c, ns) for k, c, ns in all_urls() if not (ns or "").startswith("admin")]


#: Read pages open to everyone: HEAD as GET, POST refused (405).
READ_PAGES = {
    "public:home",
    "public:tournaments",
    "public:calendar",
    "public:calendar_ics",
    "public:tournament",
    "public:find_table",
    "public:standings",
    "public:standings_csv",
    "public:standings_xlsx",
    "public:round",
    "public:round_print",
    "public:qr",
    "public:poster",
    "public:round_by_name",
    "public:round_by_name_pdf",
    "public:standings_pdf",
    "public:clock",
    "public:clock_state",
    "rankings:ranking",
    "rankings:ranking_csv",
    "rankings:ranking_xlsx",
    "rankings:ledger_csv",
    "rankings:ledger_xlsx",
    "rankings:player",
    "rankings:player_csv",
    "rankings:head_to_head",
    "rankings:player_search",
    "public:leagues",
    "public:league",
    "public:league_csv",
    "public:league_xlsx",
    "glossary",
    "set_language",
    "password_reset_done",
    "password_reset_complete",
}
#: Public URLs that are not read pages: forms that also take a POST, and the POST-only logout.
FORM_PAGES = {
    "rankings:calculator",
    "login",
    "public:check_in",
    "public:signup",
    "public:partner",  # a partner's yes or no, from the link mailed to them
    # accounts (never cached: they carry a form, or the player's contact details)
    "password_reset",
    "password_reset_confirm",
    "account:home",
    "account:claim",
    "account:claim_link",
    "account:unsubscribe",
}
POST_ONLY = {"logout", "account:partner_answer"}


# --- the world -----------------------------------------------------------------------------------


def _staff(username, *, group=None, superuser=False):
    if superuser:
        return User.objects.create_superuser(username, password=PASSWORD)
    user = User.objects.create_user(username, password=PASSWORD, is_staff=True)
    if group is not None:
        user.groups.add(group)
    return user


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    """Tournament "Copa Xochitl" (running, dominó pairs to 100, round 1 with two tables and a
    result, a castigo) directed by "directora-x" and "apoyo-x"; "Copa Yautepec" directed by
    "director-y"; a player account, a staff account that directs nothing, a superuser; the
    ledger has rows (so the player and ranking pages have figures)."""
    group, _ = Group.objects.get_or_create(name=DIRECTORS_GROUP)
    users = {
        "player": User.objects.create_user("jugadora", password=PASSWORD),
        "idle_staff": _staff("staff-sin-torneos"),
        "director_x": _staff("directora-x", group=group),
        "director_y": _staff("director-y", group=group),
        "listed_in_x": _staff("apoyo-x"),
        "superuser": _staff("admin", superuser=True),
    }
    dx = users["director_x"]
    with django_capture_on_commit_callbacks(execute=True):
        x = services.create_tournament(
            acting_user=dx,
            name="Copa Xochitl",
            date=dt.date(2025, 9, 19),
            mode="pairs",
            target=100,
            time_limit=30,
            status="running",
        )
        services.set_tournament_directors(
            acting_user=dx, tournament=x, directors=[dx, users["listed_in_x"]]
        )
        players = [
            services.create_player(acting_user=dx, full_name=f"Jugadora {i} Quintana")
            for i in range(8)
        ]
        entries = [
            services.register_entry(
                acting_user=dx, tournament=x, players=players[2 * i : 2 * i + 2]
            )
            for i in range(4)
        ]
        rnd = services.set_pairings(
            acting_user=dx,
            tournament=x,
            round_number=1,
            tables=[([entries[0]], [entries[1]]), ([entries[2]], [entries[3]])],
        )
        table = rnd.tables.order_by("number").first()
        services.record_result(acting_user=dx, table=table, tantos_a=100, tantos_b=40, version=None)
        castigo = services.add_castigo(
            acting_user=dx, tournament=x, player=players[0], tantos=5, reason="Tarde", round=rnd
        )
        y = services.create_tournament(
            acting_user=users["director_y"],
            name="Copa Yautepec",
            date=dt.date(2025, 10, 3),
            mode="single",
            target=200,
            status="running",
        )
        league = services.create_league(
            acting_user=dx, name="Liga Xochitl", season=2025, tournaments=[x, y]
        )
    assert LedgerRow.objects.filter(player=players[0]).count() == 1
    kwargs = {
        "slug": x.slug,
        "number": rnd.number,
        "table_id": table.pk,
        "entry_id": entries[0].pk,
        "castigo_id": castigo.pk,
        "pk": players[0].pk,
        "other": players[2].pk,  # head to head: they met at table 1
        "year": 2025,
        "league": league.slug,
    }
    return {"users": users, "x": x, "y": y, "kwargs": kwargs, "players": players}


def _url(key, converters, kwargs):
    return reverse(key, kwargs={name: kwargs[name] for name in converters})


# --- 1. HEAD and POST on read pages --------------------------------------------------------------


def test_every_public_url_is_classified():
    public = {k for k, _c, ns in site_urls() if not (ns or "").startswith("manage")}
    assert public == READ_PAGES | FORM_PAGES | POST_ONLY


def test_every_read_page_answers_head_as_get_and_refuses_post(world, client):
    walked = []
    for key, converters, _ns in site_urls():
        if key not in READ_PAGES:
            continue
        url = _url(key, converters, world["kwargs"])
        if key == "set_language":
            url += "?language=es&next=/"
        got = client.get(url)
        head = client.head(url)
        assert got.status_code == (302 if key == "set_language" else 200), (url, got.status_code)
        assert head.status_code == got.status_code, (url, head.status_code)
        assert head.content == b"", url
        assert head["Content-Type"] == got["Content-Type"], url
        assert client.post(url).status_code == 405, url
        walked.append(key)
    assert sorted(walked) == sorted(READ_PAGES)


def test_forms_answer_head_and_still_take_their_post(world, client):
    for name in ("rankings:calculator", "login"):  # the calculator: a GET form
        url = reverse(name)
        assert client.get(url).status_code == 200
        head = client.head(url)
        assert head.status_code == 200 and head.content == b""
    # logging out only takes a form: a plain visit goes to the page above (FormOnlyAddressMiddleware)
    out = client.head(reverse("logout"))
    assert (out.status_code, out["Location"]) == (303, "/")
    a, b = world["players"][0], world["players"][2]
    answer = client.get(
        reverse("rankings:calculator"), {"a1": a.pk, "b1": b.pk, "tantos_a": 100, "tantos_b": 60}
    )
    assert answer.status_code == 200 and answer.context["outcome"]
    assert client.post(reverse("rankings:calculator")).status_code == 405
    assert client.post(reverse("login")).status_code == 400  # the form, with its errors


def test_a_logged_in_reader_gets_head_too(world):
    client = Client()
    client.force_login(world["users"]["player"])
    for name, args in (("public:tournament", [world["x"].slug]), ("rankings:ranking", [])):
        response = client.head(reverse(name, args=args))
        assert response.status_code == 200 and response.content == b""


@pytest.mark.page_cache
def test_head_then_get_through_the_page_cache(world, client):
    url = reverse("public:standings", args=[world["x"].slug])
    head = client.head(url)
    assert head.status_code == 200 and head.content == b""
    page = client.get(url)
    assert page.status_code == 200 and b"Copa Xochitl" in page.content
    assert page["ETag"] == head["ETag"]


# --- 2. numbers in URLs --------------------------------------------------------------------------


def test_every_number_in_a_url_uses_a_bounded_converter():
    found = {}
    for key, converters, _ns in site_urls():
        for name, converter in converters.items():
            assert not isinstance(converter, IntConverter) or isinstance(
                converter, BoundedIntConverter
            ), f"{key}: <int:{name}> is unbounded; use <id:>, <number:> or <year:>"
            if isinstance(converter, BoundedIntConverter):
                found.setdefault(name, set()).add(type(converter))
    assert found == {
        "pk": {IdConverter},
        "other": {IdConverter},
        "entry_id": {IdConverter},
        "castigo_id": {IdConverter},
        "table_id": {IdConverter},
        "job_id": {IdConverter},
        "number": {NumberConverter},
        "year": {YearConverter},
    }


@pytest.mark.parametrize(
    "converter, last",
    [(IdConverter, 9223372036854775807), (NumberConverter, 32767), (YearConverter, 9999)],
)
def test_converters_accept_1_to_their_last_value_only(converter, last):
    c = converter()
    assert c.maximum == last and (MAX_ID, MAX_NUMBER, MAX_YEAR).count(last) == 1
    assert c.to_python("1") == 1 and c.to_python(str(last)) == last
    assert c.to_url(last) == str(last)
    for bad in (str(last + 1), "0", "99999999999999999999"):
        with pytest.raises(ValueError):
            c.to_python(bad)
    for bad in (0, -1, last + 1, True):
        with pytest.raises(ValueError):
            c.to_url(bad)
    pattern = re.compile(rf"^(?:{c.regex})$")
    for refused in ("-1", "+1", "007", "0", "1.0", "١٢", " 1", "1e3", ""):
        assert not pattern.match(refused), refused


MARK = 4321  # valid for every converter, and found nowhere else in the URLs built below

BAD_VALUES = {
    IdConverter: ["0", "9223372036854775808", "99999999999999999999", "-1", "01"],
    NumberConverter: ["0", "32768", "99999999999999999999", "-1", "01"],
    YearConverter: ["0", "10000", "32768", "99999999999999999999", "-2025", "02025"],
}


def _numeric_cases(kwargs):
    """(key, numeric kwarg name, converter class, URL with MARK in that place) for every URL
    of the site with a number in it."""
    for key, converters, _ns in site_urls():
        for name, converter in converters.items():
            if isinstance(converter, BoundedIntConverter):
                url = reverse(key, kwargs={n: MARK if n == name else kwargs[n] for n in converters})
                assert url.count(str(MARK)) == 1, url
                yield key, name, type(converter), url


def test_out_of_range_numbers_match_no_url(world):
    cases = list(_numeric_cases(world["kwargs"]))
    assert len(cases) >= 17  # at the time of writing: 17 numbers in 16 URLs
    for key, name, converter, url in cases:
        assert resolve(url).kwargs[name] == MARK, key
        for bad in BAD_VALUES[converter]:
            with pytest.raises(Resolver404):
                resolve(url.replace(str(MARK), bad))


@pytest.mark.parametrize("role", [None, "superuser"])
def test_out_of_range_numbers_are_404_for_every_method(world, role):
    client = Client()
    if role:
        client.force_login(world["users"][role])
    wrong = []
    for key, _name, converter, url in _numeric_cases(world["kwargs"]):
        for bad in BAD_VALUES[converter][:3]:
            target = url.replace(str(MARK), bad)
            for method in (client.get, client.head, client.post):
                status = method(target).status_code
                if status != 404:
                    wrong.append(f"{method.__name__.upper()} {target} ({key}): {status}")
    assert wrong == []


def test_the_largest_numbers_that_match_are_404_without_overflow(world, client):
    slug = world["x"].slug
    for url in (
        reverse("rankings:player", args=[MAX_ID]),
        reverse("rankings:player_csv", args=[MAX_ID]),
        reverse("rankings:head_to_head", args=[MAX_ID, 1]),
        reverse("rankings:head_to_head", args=[1, MAX_ID]),
        reverse("public:round", args=[slug, MAX_NUMBER]),
        reverse("public:round_print", args=[slug, MAX_NUMBER]),
    ):
        assert client.get(url).status_code == 404, url
    empty = client.get(reverse("rankings:ranking_csv", args=[MAX_YEAR]))
    assert empty.status_code == 200
    assert empty.content.decode() == "\ufeffposition,player,rating,games,change\n"
    assert client.get("/ranking/32768.csv").status_code == 404


def test_reverse_refuses_out_of_range_numbers(world):
    for name, kwargs in (
        ("rankings:ranking_csv", {"year": 0}),
        ("rankings:ranking_csv", {"year": 10000}),
        ("rankings:player", {"pk": MAX_ID + 1}),
        ("public:round", {"slug": world["x"].slug, "number": 32768}),
    ):
        with pytest.raises(NoReverseMatch):
            reverse(name, kwargs=kwargs)


@pytest.mark.parametrize(
    "query",
    [
        "year=99999999999999999999",
        "year=32768",
        "year=0",
        "year=-5",
        "year=abc",
        "year=1e5",
        "year=%D9%A3",
        "year=",
        "page=99999999999999999999",
        "page=-1",
        "year=2025&page=0",
    ],
)
def test_query_string_numbers_never_fail(world, client, query):
    response = client.get(reverse("rankings:ranking") + "?" + query)
    assert response.status_code == 200
    expected = 2025 if query.startswith("year=2025") else timezone.localdate().year
    assert response.context["year"] == expected


# --- 3. where each role lands after login --------------------------------------------------------


def _login(world, role, next_url=None):
    client = Client()
    data = {"username": world["users"][role].username, "password": PASSWORD}
    if next_url is not None:
        data["next"] = next_url
    response = client.post(reverse("login"), data)
    assert response.status_code == 302, response.content.decode()[:500]
    return client, response["Location"]


@pytest.mark.parametrize(
    "role, landing",
    [
        ("player", "/"),
        ("idle_staff", "/"),
        ("director_x", "/gestion/"),
        ("director_y", "/gestion/"),
        ("listed_in_x", "/gestion/"),
        ("superuser", "/gestion/"),
    ],
)
def test_each_role_lands_on_a_page_it_may_see(world, role, landing):
    client, location = _login(world, role)
    assert location == landing
    assert client.get(location).status_code == 200


def _manage_x(world, suffix=""):
    return f"/gestion/torneos/{world['x'].slug}/{suffix}"


NEXT_CASES = [
    # (role, next, where they land; None: next itself)
    ("player", "/gestion/", "/"),
    ("player", "/gestion/torneos/{x}/", "/"),
    ("player", "/admin/", "/"),
    ("player", "/torneos/{x}/clasificacion/", None),
    ("player", "/ranking/?year=2025", None),
    ("idle_staff", "/gestion/", "/"),
    ("idle_staff", "/admin/", None),  # the admin's index: any active staff user
    ("idle_staff", "/admin/tournaments/tournament/", "/"),  # no model permission
    ("director_y", "/gestion/torneos/{x}/", "/gestion/"),
    ("director_y", "/gestion/torneos/{x}/ronda/1/", "/gestion/"),
    ("director_y", "/gestion/torneos/no-existe/", "/gestion/"),
    ("director_y", "/gestion/jugadores/", None),
    ("director_x", "/gestion/torneos/{x}/ronda/1/", None),
    ("director_x", "/admin/tournaments/tournament/", "/gestion/"),
    ("listed_in_x", "/gestion/jugadores/", "/gestion/"),
    ("listed_in_x", "/gestion/torneos/nuevo/", "/gestion/"),
    ("listed_in_x", "/gestion/torneos/{x}/", None),
    ("superuser", "/gestion/torneos/{y}/", None),
    ("superuser", "/admin/tournaments/tournament/", None),
    ("superuser", "/no-existe/", "/gestion/"),
    ("superuser", "/entrar/", "/gestion/"),
    ("superuser", "/salir/", "/gestion/"),
    ("player", "/salir/", "/"),
    ("player", "/idioma/", "/"),
    ("player", "/torneos/no-existe/", "/"),
    ("superuser", "https://evil.example/gestion/", "/gestion/"),
    ("superuser", "//evil.example/gestion/", "/gestion/"),
    ("player", "http://evil.example/", "/"),
    ("player", "https://testserver.evil.example/", "/"),
    ("player", "javascript:alert(1)", "/"),
]


@pytest.mark.parametrize("role, next_url, landing", NEXT_CASES)
def test_next_is_followed_only_to_a_local_page_the_user_may_see(world, role, next_url, landing):
    next_url = next_url.format(x=world["x"].slug, y=world["y"].slug)
    client, location = _login(world, role, next_url)
    assert location == (next_url if landing is None else landing)
    assert client.get(location).status_code == 200


def test_next_from_the_login_page_query_is_checked_too(world):
    client = Client()
    page = client.get(reverse("login") + "?next=/gestion/")
    assert 'name="next" value="/gestion/"' in page.content.decode()
    response = client.post(
        reverse("login") + "?next=/gestion/",
        {"username": "jugadora", "password": PASSWORD, "next": "/gestion/"},
    )
    assert response["Location"] == "/"


def test_a_wrong_password_still_shows_the_form(world, client):
    response = client.post(reverse("login"), {"username": "jugadora", "password": "otra-cosa"})
    assert response.status_code == 400  # refused: shown at its own address to a browser
    assert "Usuario o contraseña incorrectos." in response.content.decode()


# --- 4. no caching of the directors' pages --------------------------------------------------------


def test_directors_pages_and_admin_are_private_no_store(world):
    anonymous, director, superuser = Client(), Client(), Client()
    director.force_login(world["users"]["director_x"])
    superuser.force_login(world["users"]["superuser"])
    slug = world["x"].slug
    answers = [
        director.get("/gestion/"),
        director.get(f"/gestion/torneos/{slug}/"),
        director.get(f"/gestion/torneos/{slug}/ronda/1/"),
        director.get("/gestion/jugadores/"),
        director.post("/gestion/jugadores/"),  # 405 (a read page)
        director.get("/gestion/no-existe/"),  # 404
        director.get(f"/gestion/torneos/{world['y'].slug}/"),  # 403
        director.post(f"/gestion/torneos/{slug}/sorteo/"),
        anonymous.get("/gestion/"),  # the redirect to the login page
        anonymous.get("/admin/login/"),
        superuser.get("/admin/"),
        superuser.get("/admin/tournaments/player/"),
        superuser.get("/admin/no-existe/"),
    ]
    statuses = [a.status_code for a in answers]
    assert statuses[:7] == [200, 200, 200, 200, 405, 404, 403]
    assert statuses[8:12] == [302, 200, 200, 200]
    for answer in answers:
        assert answer["Cache-Control"] == "private, no-store", answer.wsgi_request.path


def test_public_pages_keep_their_revalidating_cache_control(world, client):
    for url in ("/", f"/torneos/{world['x'].slug}/", "/ranking/"):
        value = client.get(url)["Cache-Control"]
        assert "no-store" not in value and "public" in value and "max-age=0" in value, url


def test_the_page_cache_never_stores_a_private_page():
    factory = RequestFactory()
    ok = HttpResponse("página")
    assert pagecache._storable(factory.get("/torneos/"), ok)
    for path in ("/gestion/", "/gestion/torneos/copa/", "/admin/", "/admin/login/"):
        assert not pagecache._storable(factory.get(path), ok), path
    private = HttpResponse("página")
    private["Cache-Control"] = "private, no-store"
    assert not pagecache._storable(factory.get("/torneos/"), private)


# --- 5. cookies ----------------------------------------------------------------------------------


def test_language_csrf_and_session_cookies_are_samesite_lax(world):
    client = Client()
    language = client.get(reverse("set_language") + "?language=en&next=/").cookies[
        "django_language"
    ]
    assert language.value == "en" and language["samesite"] == "Lax"
    assert language["secure"] == ""  # debug: plain http (production: tests/test_deploy_settings)
    login_page = Client(enforce_csrf_checks=True).get(reverse("login"))
    assert login_page.cookies["csrftoken"]["samesite"] == "Lax"
    response = client.post(reverse("login"), {"username": "jugadora", "password": PASSWORD})
    session = response.cookies["sessionid"]
    assert session["samesite"] == "Lax" and session["httponly"] is True


# --- 6. one formatting of numbers ----------------------------------------------------------------


@pytest.mark.parametrize(
    "value, decimals, es, en",
    [
        (1531.25, 1, "1531,3", "1531.3"),
        (1531.249999, 1, "1531,2", "1531.2"),
        (-0.05, 1, "-0,1", "-0.1"),
        (-0.04, 1, "0,0", "0.0"),
        (0.15, 1, "0,2", "0.2"),
        (2.675, 2, "2,68", "2.68"),
        (1512.345, 2, "1512,35", "1512.35"),
        (0.5, 0, "1", "1"),
        (-0.5, 0, "-1", "-1"),
        (1500, 1, "1500,0", "1500.0"),
        (Decimal("-0.125"), 2, "-0,13", "-0.13"),
        (Fraction(1, 8), 2, "0,13", "0.13"),
        (Fraction(-1, 3), 3, "-0,333", "-0.333"),
    ],
)
def test_format_number_rounds_half_away_from_zero_in_the_language(value, decimals, es, en):
    with translation.override("es"):
        assert format_number(value, decimals) == es
    with translation.override("ru"):
        assert format_number(value, decimals) == es
    with translation.override("en"):
        assert format_number(value, decimals) == en


def test_signed_changes_and_empty_values():
    with translation.override("es"):
        assert format_number(12.46, 1, signed=True) == "+12,5"
        assert format_number(-3, 1, signed=True) == "-3,0"
        assert format_number(0.04, 1, signed=True) == "0,0"
        assert format_number(-0.04, 1, signed=True) == "0,0"
        assert format_number(None, 1) == "" and format_number("", 1) == ""
        assert format_number("1531.25", 1) == "1531,3"
    assert str(rounded(-0.04, 1)) == "0.0" and str(rounded(1531.25, 1)) == "1531.3"
    with pytest.raises(ValueError):
        rounded(float("nan"), 1)
    with pytest.raises(TypeError):
        rounded(True, 1)


def test_filters_agree_with_floatformat_everywhere():
    values = [1531.25, 1531.249999, -0.05, 0.15, 2.675, 1e-7, -1234.5, 99.995, 0.0, 17]
    template = Template(
        "{% load club %}{% for v in values %}{{ v|floatformat:1 }} {{ v|num:1 }} "
        "{{ v|floatformat:3 }} {{ v|num:3 }}|{% endfor %}"
    )
    for language in ("es", "en", "ru"):
        with translation.override(language):
            for chunk in template.render(Context({"values": values})).split("|")[:-1]:
                a1, b1, a3, b3 = chunk.split()
                assert (a1, a3) == (b1, b3), (language, chunk)


def test_signed_filter_and_bad_input():
    template = Template("{% load club %}{{ a|signed:1 }} {{ b|signed:1 }} {{ c|num:1 }}.")
    with translation.override("es"):
        assert template.render(Context({"a": 31.25, "b": -1531.299999, "c": "x"})) == (
            "+31,3 -1531,3 ."
        )


@pytest.fixture
def history(db, django_capture_on_commit_callbacks):
    """Two players, three rated games in 2025; then the first player's ledger rows are given
    ratings that sit on rounding edges: 1500 → 1531.25 → 1531.249999 → -0.05."""
    a = services.create_player(acting_user=None, full_name="Albina Ocotlán")
    b = services.create_player(acting_user=None, full_name="Baltasar Zapotitlán")
    with django_capture_on_commit_callbacks(execute=True):
        t = services.create_tournament(
            acting_user=None,
            name="Liga Redondeo",
            date=dt.date(2025, 6, 1),
            system="domino",
            mode="single",
            target=100,
            status="running",
        )
        ea, eb = (
            services.register_entry(acting_user=None, tournament=t, players=[p]) for p in (a, b)
        )
        for number in (1, 2, 3):
            rnd = services.set_pairings(
                acting_user=None, tournament=t, round_number=number, tables=[([ea], [eb])]
            )
            services.record_result(
                acting_user=None, table=rnd.tables.get(), tantos_a=100, tantos_b=50, version=None
            )
    rows = list(LedgerRow.objects.filter(player=a).order_by("order_key"))
    assert len(rows) == 3
    ratings = [1500.0, 1531.25, 1531.249999, -0.05]
    for row, before, after in zip(rows, ratings[:-1], ratings[1:], strict=True):
        LedgerRow.objects.filter(pk=row.pk).update(rating_before=before, rating_after=after)
    from rankings.ledger import refresh_year_ratings

    refresh_year_ratings([a.pk])  # the year figures the ranking reads, from the edited rows
    return a


CHART_LABEL = re.compile(r'class="dot"><title>([^<]*)</title>')
RATING_CELL = re.compile(r'<td class="num strong">([^<]*)</td></tr>')
CHANGE_CELL = re.compile(r'<td class="num">([^<]*)</td>\s*<td class="num strong">')


@pytest.mark.parametrize(
    "language, chart, table, changes, headline",
    [
        (
            "es",
            ["1500,0", "1531,3", "1531,2", "-0,1"],
            ["-0,1", "1531,2", "1531,3"],
            ["-1531,3", "0,0", "+31,3"],
            "-0,1",
        ),
        (
            "en",
            ["1500.0", "1531.3", "1531.2", "-0.1"],
            ["-0.1", "1531.2", "1531.3"],
            ["-1531.3", "0.0", "+31.3"],
            "-0.1",
        ),
        (
            "ru",
            ["1500,0", "1531,3", "1531,2", "-0,1"],
            ["-0,1", "1531,2", "1531,3"],
            ["-1531,3", "0,0", "+31,3"],
            "-0,1",
        ),
    ],
)
def test_chart_labels_equal_the_table_cells(
    client, history, language, chart, table, changes, headline
):
    headers = {"HTTP_ACCEPT_LANGUAGE": language}
    page = client.get(reverse("rankings:player", args=[history.pk]), **headers).content.decode()
    assert CHART_LABEL.findall(page) == chart
    assert RATING_CELL.findall(page) == table
    assert CHART_LABEL.findall(page)[1:] == list(reversed(RATING_CELL.findall(page)))
    assert CHANGE_CELL.findall(page) == changes
    assert f"<strong>{headline}</strong>" in page
    ranking = client.get(reverse("rankings:ranking") + "?year=2025", **headers).content.decode()
    row = re.search(r"Albina Ocotlán.*?</tr>", ranking, re.S).group(0)
    assert f'<td class="num strong">{headline}</td>' in row
    minus = "-1500,1" if language != "en" else "-1500.1"  # -0.05 - 1500.0 = -1500.05
    assert f'<td class="num">{minus}</td>' in row


def test_rating_chart_labels_use_the_shared_rounding(history):
    lines = queries.player_history(history)
    with translation.override("es"):
        labels = [label for _x, _y, label in queries.rating_chart(lines).dots]
    assert labels == ["1500,0", "1531,3", "1531,2", "-0,1"]


def test_next_to_a_draft_is_followed_only_by_those_who_manage_it(world):
    draft = services.create_tournament(
        acting_user=world["users"]["director_x"],
        name="Copa Oculta",
        date=dt.date(2026, 6, 6),
        status="draft",
    )
    page = f"/torneos/{draft.slug}/"
    assert _login(world, "player", page)[1] == "/"
    assert _login(world, "director_y", page)[1] == "/gestion/"
    assert _login(world, "director_x", page)[1] == page


def test_the_charts_axis_holds_the_peak_and_the_lowest_rating():
    from rankings import queries

    lines = [(1500.0, 1531.25, 2026), (1531.25, 1562.7, 2026), (1562.7, 1488.2, 2026)]
    for options in ({}, queries.PHONE_CHART):
        chart = queries.rating_chart(lines, **options)
        values = [v for _y, v in chart.y_ticks]
        assert values == [1475, 1500, 1525, 1550, 1575]  # a tick below the lowest, above the peak
        assert values[0] <= 1488.2 and values[-1] >= 1562.7
        assert chart.y_ticks[-1][0] >= chart.label_size / 2  # the top label inside the drawing
    assert len(queries.rating_chart(lines).dots) == 4
    assert queries.rating_chart(lines, **queries.PHONE_CHART).dots == []
