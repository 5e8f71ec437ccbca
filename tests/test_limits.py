"""Guard rails on every public door (issue 25, points 3, 5 and 9), written as the attacker would.

- One limiter (``clubsite.limits``) for every public form and identity proof, counting every
  try before it is evaluated, per IPv4 address and per IPv6 /64: a walk over every URL pattern
  finds the forms an anonymous visitor can post to, and each must be limited (or declared here
  with the reason it need not be); each limited door refuses the try after its limit, from the
  same /64 too, and not from another network.
- At once: 200 tries arriving together are evaluated at most the limit's number of times
  (threads on PostgreSQL).
- Refusals reveal nothing: the sign-up answers a member number that exists and one that does
  not with the same words and the same queries; the reset and claim forms do the same work
  (the same queries, one task) for a known and an unknown address; 30 resets send at most the
  limit; guessing a member number stops after the name's limit, from any number of addresses.

Mail and accounts, and the lockout's way back: tests/test_mail_and_lockout.py.
"""

from __future__ import annotations

import datetime as dt
import html
import re
import threading

import pytest
from django.core import mail
from django.core.cache import cache
from django.db import connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from clubsite import limits
from clubsite.limits import LIMITS
from tournaments import services
from tournaments.models import Entry, Player, SignUp

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="real parallel connections and row locks: run with DATABASE_URL=postgres://...",
)


@pytest.fixture(autouse=True)
def _fresh_cache(db):
    cache.clear()


def text(response) -> str:
    return html.unescape(response.content.decode())


def tournament(director, *, name="Copa Abierta", approval=False, code=True):
    """A single-player dominó tournament a week ahead taking sign-ups, with two entries and
    (``code``) the players' own check-in on."""
    t = services.create_tournament(
        acting_user=director,
        name=name,
        date=timezone.localdate() + dt.timedelta(days=7),
        system="domino",
        mode="single",
        target=100,
        status="registration",
    )
    t = services.update_signup_settings(
        acting_user=director,
        tournament=t,
        signup_open=True,
        max_entries=None,
        signup_closes_at=None,
        signup_needs_approval=approval,
    )
    for who in ("Úrsula Vega", "Víctor Zamora"):
        player = services.create_player(acting_user=director, full_name=who)
        services.register_entry(acting_user=director, tournament=t, players=[player])
    if code:
        t = services.new_check_in_code(acting_user=director, tournament=t)
    return t


# --- the limiter itself -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "address, counted_as",
    [
        ("203.0.113.7", "203.0.113.7"),
        (" 203.0.113.7 ", "203.0.113.7"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("", "unknown"),
        (None, "unknown"),
        ("203.0.113.7, 10.0.0.1", "unknown"),
        ("no-es-una-dirección", "unknown"),
    ],
)
def test_an_attempt_is_counted_per_ipv4_address_and_per_ipv6_64(address, counted_as):
    assert limits.network(address) == counted_as


def test_a_limit_gives_its_slots_then_refuses_until_the_next_window():
    limit = limits.Limit("prueba", 3, 600)
    now = 1_800_000_000.0  # 50 s into a window (1_800_000_000 // 600 * 600 + 600 is the end)
    slots = [limits.take(limit, "203.0.113.7", now=now) for _ in range(3)]
    assert all(slots) and len({s.key for s in slots}) == 3
    assert limits.take(limit, "203.0.113.7", now=now + 1) is None
    assert limits.take(limit, "203.0.113.8", now=now + 1) is not None  # another subject
    slots[1].release()  # a success gives its slot back
    assert limits.take(limit, "203.0.113.7", now=now + 2) is not None
    assert limits.take(limit, "203.0.113.7", now=now + 2) is None
    end = (now // 600 + 1) * 600
    assert limits.seconds_left(limit, now=now) == int(end - now)
    assert limits.take(limit, "203.0.113.7", now=end) is not None  # a new window, new slots


# --- every public form is limited: the walk --------------------------------------------------

#: The public forms and identity proofs, and their limit (``clubsite.limits.LIMITS``).
LIMITED = {
    "public:signup": "signup",
    "public:check_in": "check-in",
    "account:claim": "claim",
    "login": "login",
    "/admin/login/": "login",
    "password_reset": "reset",
}

#: The forms an anonymous visitor may post to that need no limit, and why.
NOT_LIMITED = {
    "logout": "proves nothing and stores nothing: it ends the visitor's own session",
    "account:claim_link": "the address carries a signed, timestamped token (HMAC): trying "
    "tokens is hopeless, and the form works once per record",
    "account:unsubscribe": "the address carries a signed token (HMAC); it only stops notices",
    "public:partner": "the address carries a signed token (HMAC) of one player and one "
    "tournament: it only confirms or declines a request naming that player",
    "password_reset_confirm": "the address carries Django's reset token (HMAC, one use): a "
    "limit here would only let someone at the same connection block the way back from a "
    "lockout",
}


def _patterns(resolver=None, prefix="", namespaces=()):
    """Every URL pattern: ``(route, pattern, namespaces)``; regex routes (the admin's) too."""
    resolver = resolver or get_resolver()
    for p in resolver.url_patterns:
        if isinstance(p, URLResolver):
            inner = namespaces + ((p.namespace,) if p.namespace else ())
            yield from _patterns(p, prefix + str(p.pattern), inner)
        elif isinstance(p, URLPattern):
            yield prefix + str(p.pattern), p, namespaces


def _address(route: str, values: dict) -> str:
    """A path for ``route`` (``path()`` syntax) with each ``<converter:name>`` given a value:
    ``values`` by name, else by converter."""
    by_converter = {"slug": values["slug"], "id": "1", "number": "1", "year": "2026", "int": "1"}

    def fill(match):
        converter, name = match.group(1) or "str", match.group(2)
        return str(values.get(name, by_converter.get(converter, "x")))

    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", fill, route)


def _door_name(route: str, pattern: URLPattern, namespaces) -> str:
    if not pattern.name:
        return "/" + route
    return ":".join([*namespaces, pattern.name])


def test_every_public_form_is_limited_or_declared(director):
    t = tournament(director)
    anonymous = Client()
    found = {}
    for route, pattern, namespaces in _patterns():
        if "admin" in namespaces:  # the admin's pages: staff only (its login is below)
            continue
        if route.startswith("^") or "(?P" in route:
            pytest.fail(f"a regex URL outside the admin cannot be walked: {route}")
        url = _address(route, {"slug": t.slug})
        response = anonymous.post(url, {}, REMOTE_ADDR="192.0.2.200")
        location = response.get("Location", "")
        if response.status_code == 405:
            continue  # reads only (GET and HEAD)
        if response.status_code in (301, 302, 303) and location.startswith(
            (reverse("login"), "/admin/login/")
        ):
            continue  # needs a login: not public
        if response.status_code == 403:
            continue
        assert response.status_code != 404, f"{url}: the walk needs an object for {route}"
        found[_door_name(route, pattern, namespaces)] = resolve(url).func
    # the admin's login shares the site's
    found["/admin/login/"] = resolve("/admin/login/").func
    assert set(found) == set(LIMITED) | set(NOT_LIMITED)
    for name, view in found.items():
        if name in LIMITED:
            assert getattr(view, "limit", None) == LIMITED[name], name
        else:
            assert getattr(view, "limit", None) is None, f"{name} is limited: move it to LIMITED"


def _door_url(name: str, t) -> str:
    if name.startswith("/"):
        return name
    return reverse(name, args=[t.slug]) if name.startswith("public:") else reverse(name)


@pytest.mark.parametrize("name", sorted(LIMITED))
def test_every_limited_door_counts_failures_per_network_and_then_refuses(director, name):
    t = tournament(director)
    url = _door_url(name, t)
    limit = LIMITS[LIMITED[name]]
    client = Client()
    for _ in range(limit.count):  # empty forms: each is a failure, and each counts
        assert client.post(url, {}, REMOTE_ADDR="2001:db8:7:7::1").status_code != 429
    refused = client.post(url, {}, REMOTE_ADDR="2001:db8:7:7::1")
    assert refused.status_code == 429
    body = text(refused)
    assert "Demasiados intentos seguidos: espera" in body and "y vuelve a intentarlo." in body
    assert 0 < int(refused["Retry-After"]) <= limit.window
    # another address of the same /64 is the same client; another /64 or IPv4 is not
    assert client.post(url, {}, REMOTE_ADDR="2001:db8:7:7:ffff::9").status_code == 429
    assert client.post(url, {}, REMOTE_ADDR="2001:db8:7:8::1").status_code != 429
    assert client.post(url, {}, REMOTE_ADDR="198.51.100.7").status_code != 429


def test_the_admins_login_and_the_sites_share_one_count(director):
    for _ in range(LIMITS["login"].count):
        Client().post(reverse("login"), {"username": "x", "password": "y"})
    assert Client().post("/admin/login/", {"username": "x", "password": "y"}).status_code == 429


def test_the_refusal_is_the_same_page_whatever_was_typed(director):
    t = tournament(director)
    url = reverse("public:signup", args=[t.slug])
    for n in range(LIMITS["signup"].count):
        Client().post(url, {"name": f"Persona {n}", "phone": "5550001"})
    known = Client().post(url, {"name": "Úrsula Vega", "member_number": "S-1"})
    unknown = Client().post(url, {"name": "Nadie Nunca", "member_number": "S-999"})
    assert known.status_code == unknown.status_code == 429
    assert text(known) == text(unknown)


# --- at once: 200 tries, at most the limit evaluated (PostgreSQL) ----------------------------


def _together(n_threads: int, per_thread: int, act) -> list:
    """``act(i)`` ``n_threads × per_thread`` times, from ``n_threads`` threads that start
    together (a barrier); each thread closes its connections. The outcomes, in no order."""
    barrier = threading.Barrier(n_threads)
    outcomes: list = []
    lock = threading.Lock()

    def run(k):
        try:
            barrier.wait(timeout=60)
            for j in range(per_thread):
                outcome = act(k * per_thread + j)
                with lock:
                    outcomes.append(outcome)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=300)
    assert not any(th.is_alive() for th in threads)
    return outcomes


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_hundred_takes_at_once_get_exactly_the_limits_slots():
    limit = limits.Limit("prueba-a-la-vez", 10, 600)
    outcomes = _together(40, 5, lambda i: limits.take(limit, "203.0.113.50") is not None)
    assert len(outcomes) == 200 and sum(outcomes) == limit.count


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_hundred_wrong_codes_at_once_are_evaluated_at_most_the_limit(director, monkeypatch):
    t = tournament(director)
    ursula = Entry.objects.get(tournament=t, player1__full_name="Úrsula Vega")
    evaluated = []
    real = services.check_in_self

    def counting(**kwargs):
        evaluated.append(kwargs["code"])
        return real(**kwargs)

    monkeypatch.setattr(services, "check_in_self", counting)
    url = reverse("public:check_in", args=[t.slug])
    wrong = "ZZZZ" if t.check_in_code != "ZZZZ" else "YYYY"
    statuses = _together(
        40,
        5,
        lambda i: (
            Client()
            .post(url, {"name": "Úrsula Vega", "code": wrong}, REMOTE_ADDR="203.0.113.60")
            .status_code
        ),
    )
    assert len(statuses) == 200
    assert len(evaluated) == statuses.count(400) == LIMITS["check-in"].count
    assert statuses.count(429) == 200 - LIMITS["check-in"].count
    # the right code, now, from that connection: refused without being looked at
    right = Client().post(
        url, {"name": "Úrsula Vega", "code": t.check_in_code}, REMOTE_ADDR="203.0.113.60"
    )
    assert right.status_code == 429 and not Entry.objects.get(pk=ursula.pk).present


# --- refusals reveal nothing ------------------------------------------------------------------


def _shape(queries) -> list[str]:
    """The statements run, without their values (quoted strings, numbers, NULL and savepoint
    names): the work a request did, whatever it was about."""
    shapes = []
    for q in queries:
        sql = re.sub(r'"s\d+_x\d+"', "SP", q["sql"])
        sql = re.sub(r"'(?:[^']|'')*'", "?", sql)
        sql = re.sub(r"\b\d+(?:\.\d+)?\b|\bNULL\b", "?", sql)
        shapes.append(sql)
    return shapes


def _page(response, *typed: str) -> str:
    """The page's text without what differs by design: the signed token of an answer's
    address, the form's CSRF token, and ``typed`` (what the visitor typed, shown back)."""
    page = re.sub(r"hecho=[\w:.-]+", "hecho=?", text(response))
    page = re.sub(r'name="csrfmiddlewaretoken" value="\w+"', "csrf", page)
    for value in typed:
        page = page.replace(value, "?")
    return page


def _measured(client, url, data, **extra):
    with CaptureQueriesContext(connection) as queries:
        response = client.post(url, data, **extra)
    return response, _shape(queries.captured_queries)


def test_a_newcomers_member_number_is_answered_alike_whether_it_exists(director):
    t = tournament(director)
    services.create_player(acting_user=director, full_name="Elvira Fuentes", member_number="S-7")
    url = reverse("public:signup", args=[t.slug])
    client = Client()
    client.post(url, {"name": "Calentando Motores", "phone": "5550000"})  # first-request work
    taken, taken_work = _measured(
        client, url, {"name": "Nadia Nueva", "member_number": "S-7", "phone": "5550001"}
    )
    free, free_work = _measured(
        client, url, {"name": "Nora Nueva", "member_number": "S-8", "phone": "5550002"}
    )
    assert taken.status_code == free.status_code == 302
    assert taken_work == free_work
    for name in ("Nadia Nueva", "Nora Nueva"):  # someone new is added when a director accepts
        services.decide_signup(
            acting_user=director, signup=SignUp.objects.get(name=name), accept=True
        )
    nadia, nora = (
        Player.objects.get(full_name="Nadia Nueva"),
        Player.objects.get(full_name="Nora Nueva"),
    )
    assert (nadia.member_number, nora.member_number) == (None, "S-8")
    assert SignUp.objects.get(name="Nadia Nueva").member_number == "S-7"  # for the director
    assert _page(client.get(taken["Location"]), "Nadia") == _page(
        client.get(free["Location"]), "Nora"
    )


def test_a_wrong_member_number_is_refused_alike_whether_it_is_someone_elses(director):
    t = tournament(director)
    services.create_player(acting_user=director, full_name="Elvira Fuentes", member_number="S-1")
    services.create_player(acting_user=director, full_name="Otra Persona", member_number="S-7")
    url = reverse("public:signup", args=[t.slug])
    client = Client()
    client.post(url, {"name": "Elvira Fuentes", "member_number": "S-0"})  # first-request work
    other, other_work = _measured(client, url, {"name": "Elvira Fuentes", "member_number": "S-7"})
    nobody, nobody_work = _measured(client, url, {"name": "Elvira Fuentes", "member_number": "S-9"})
    assert other.status_code == nobody.status_code == 400
    assert other_work == nobody_work
    assert _page(other, "S-7") == _page(nobody, "S-9")
    assert "El club ya tiene un jugador llamado «Elvira Fuentes»" in text(other)
    assert not SignUp.objects.exists()


def test_guessing_a_member_number_stops_at_the_names_limit_from_any_address(director):
    t = tournament(director)
    elvira = services.create_player(
        acting_user=director, full_name="Elvira Fuentes", member_number="137"
    )
    url = reverse("public:signup", args=[t.slug])
    tries = LIMITS["signup-name"].count
    for n in range(tries):  # a new address each time: the per-connection limit never bites
        wrong = Client().post(
            url, {"name": "ELVIRA  fuentes", "member_number": str(n)}, REMOTE_ADDR=f"10.9.0.{n}"
        )
        assert wrong.status_code == 400
    right = Client().post(
        url, {"name": "Elvira Fuentes", "member_number": "137"}, REMOTE_ADDR="10.9.1.1"
    )
    assert right.status_code == 429
    assert "un director puede inscribirte en persona" in text(right)
    assert not SignUp.objects.exists()
    assert not t.entries.filter(player1=elvira).exists()


@pytest.mark.parametrize(
    "name, data",
    [
        ("password_reset", lambda email: {"email": email}),
        ("account:claim", lambda email: {"email": email}),
    ],
)
def test_a_known_and_an_unknown_address_get_the_same_work_and_answer(
    director, database_tasks, name, data
):
    director.email = "directora@example.org"
    director.save()
    services.create_player(acting_user=director, full_name="Ana Arroyo", email="ana@example.org")
    known = "directora@example.org" if name == "password_reset" else "ana@example.org"
    url = reverse(name)
    client = Client()
    client.post(url, data("calentando@example.org"))  # first-request work
    yes, yes_work = _measured(client, url, data(known))
    no, no_work = _measured(client, url, data("nadie@example.org"))
    assert (yes.status_code, yes["Location"]) == (no.status_code, no["Location"])
    assert yes.status_code == 302
    assert yes_work == no_work
    rows = list(DBTaskResult.objects.order_by("enqueued_at"))
    assert [(r.task_path.rsplit(".", 1)[1], r.status) for r in rows] == [
        ("send_password_reset" if name == "password_reset" else "send_claim_link", "READY")
    ] * 3
    assert mail.outbox == []  # the request mailed nothing: the worker does
    for row in rows:
        row.task.call(*row.args_kwargs["args"], **row.args_kwargs["kwargs"])
    assert [m.to for m in mail.outbox] == [[known]]


def test_thirty_resets_from_one_address_send_at_most_the_limit(director):
    director.email = "directora@example.org"
    director.save()
    answers = [
        Client().post(reverse("password_reset"), {"email": "directora@example.org"}).status_code
        for _ in range(30)
    ]
    assert answers == [302] * LIMITS["reset"].count + [429] * (30 - LIMITS["reset"].count)
    assert len(mail.outbox) == LIMITS["reset-mailbox"].count
    # one mailbox from many addresses: still at most its own limit an hour
    for n in range(10):
        Client().post(
            reverse("password_reset"), {"email": "directora@example.org"}, REMOTE_ADDR=f"10.8.0.{n}"
        )
    assert len(mail.outbox) == LIMITS["reset-mailbox"].count
