"""Heavy outputs (the PDFs and the workbooks: seconds of CPU each for a large tournament) are
made once per change of the data and at most ``HEAVY_AT_ONCE`` at once on the whole farm; a
visitor never waits for one nor starts a second copy (clubsite.pagecache, "Heavy outputs").
And the calculator's page is cached like the others (its answers are computed).

Then what a second attack on the production set-up tried, written as the attacker would: a
forged messages cookie against the page cache, heavy outputs asked as HTMX or by a logged-in
reader, HEAD bodies on the wire, malformed proxy headers and over-long usernames at the login,
a draft's management pages guessed by another director, reset links on a forged Host, and the
calculator's computed answers."""

import threading
import time

import pytest
from django.core import mail
from django.core.cache import cache
from django.http import HttpResponse, StreamingHttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone

from clubsite import pagecache
from clubsite.http import HeadWithoutBodyMiddleware
from clubsite.limits import LIMITS
from tests import builders
from tournaments.models import Player
from tournaments.views import paper

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.page_cache]

NAMES = ["Aurora Bastida", "Bruno Calleja", "Celia Dorado", "Darío Espejo"]
PDF = b"%PDF-1.7 made in a test\n"


@pytest.fixture
def running(director):
    """Two pairs, round 1 paired, no result yet."""
    t = builders.tournament(
        acting_user=director, name="Copa Pesada", date=timezone.localdate(), mode="pairs"
    )
    players = [builders.player(n, acting_user=director) for n in NAMES]
    entries = builders.entries(t, players, acting_user=director)
    rnd = builders.pair(t, 1, [(entries[0], entries[1])], acting_user=director)
    return t, rnd


@pytest.fixture
def made(monkeypatch):
    """The PDFs made (``paper.render_pdf`` records each call's HTML; ``made.started`` is set
    when one begins, and it waits for ``made.go`` while that is cleared)."""

    class Calls(list):
        pass

    calls = Calls()
    started = threading.Event()
    go = threading.Event()
    go.set()

    def render(html):
        calls.append(html)
        started.set()
        go.wait(timeout=30)
        return PDF

    monkeypatch.setattr(paper, "render_pdf", render)
    calls.started, calls.go = started, go
    return calls


def pdf_url(t):
    return reverse("public:standings_pdf", args=[t.slug])


def test_a_pdf_is_made_once_per_change_of_the_data(running, made, director):
    t, rnd = running
    visitors = [Client() for _ in range(3)]
    answers = [v.get(pdf_url(t)) for v in visitors]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert all(a.content == PDF for a in answers)
    assert len(made) == 1
    builders.record(rnd.tables.get(), acting_user=director, version=0, tantos_a=100, tantos_b=40)
    assert Client().get(pdf_url(t)).status_code == 200
    assert len(made) == 2  # the new result: a new PDF, once
    assert Client().get(pdf_url(t)).status_code == 200
    assert len(made) == 2


def test_with_every_slot_taken_a_heavy_output_says_preparing_at_once(running, made, director):
    t, _ = running
    cache.add(f"{pagecache.HEAVY_SLOT_PREFIX}0", "another request", 60)
    anonymous, logged_in = Client(), Client()
    logged_in.force_login(director)
    for client in (anonymous, logged_in):
        began = time.monotonic()
        answer = client.get(pdf_url(t))
        assert time.monotonic() - began < 2  # no wait
        assert answer.status_code == 503
        assert answer["Retry-After"] == str(pagecache.HEAVY_RETRY)
        assert "no-store" in answer["Cache-Control"]
        body = answer.content.decode()
        assert "Preparando el archivo" in body
        assert f'<meta http-equiv="refresh" content="{pagecache.HEAVY_RETRY}">' in body
    workbook = anonymous.get(reverse("public:standings_xlsx", args=[t.slug]))
    assert workbook.status_code == 503
    assert made == []
    cache.delete(f"{pagecache.HEAVY_SLOT_PREFIX}0")
    answer = anonymous.get(pdf_url(t))
    assert answer.status_code == 200 and answer.content == PDF
    assert len(made) == 1
    assert cache.get(f"{pagecache.HEAVY_SLOT_PREFIX}0") is None  # freed after use


def test_one_heavy_output_at_a_time_and_the_same_one_never_twice(running, made, settings):
    """While a PDF is being made: the same PDF asked again, and another heavy output, answer
    "preparing" at once; once it is made, it is served from the cache."""
    t, _ = running
    made.go.clear()
    first = {}

    def ask():
        first["answer"] = Client().get(pdf_url(t))

    thread = threading.Thread(target=ask)
    thread.start()
    try:
        assert made.started.wait(timeout=30)
        began = time.monotonic()
        same = Client().get(pdf_url(t))
        other = Client().get(reverse("public:standings_xlsx", args=[t.slug]))
        waited = time.monotonic() - began
    finally:
        made.go.set()
        thread.join(timeout=30)
    assert (same.status_code, other.status_code) == (503, 503)
    assert waited < 2
    assert first["answer"].status_code == 200 and len(made) == 1
    again = Client().get(pdf_url(t))
    assert again.status_code == 200 and again.content == PDF and len(made) == 1
    # two slots: another output is made beside a first one
    settings.HEAVY_AT_ONCE = 2
    cache.add(f"{pagecache.HEAVY_SLOT_PREFIX}0", "another request", 60)
    assert Client().get(reverse("public:standings_xlsx", args=[t.slug])).status_code == 200
    cache.delete(f"{pagecache.HEAVY_SLOT_PREFIX}0")


def test_the_calculators_page_is_cached_and_its_answers_are_computed(
    running, django_assert_num_queries
):
    t, _ = running
    url = reverse("rankings:calculator")
    first = Client().get(url)
    assert first.status_code == 200 and first.has_header("ETag")
    with django_assert_num_queries(1):  # the generations: a hit
        again = Client().get(url + "?utm_source=cartel")
    assert again["ETag"] == first["ETag"]
    a, b = Player.objects.filter(full_name__in=NAMES[:2]).order_by("full_name")
    query = f"?a1={a.pk}&b1={b.pk}&tantos_a=100&tantos_b=50"
    answer = Client().get(url + query)
    assert answer.status_code == 200 and not answer.has_header("ETag")
    assert "Aurora Bastida" in answer.content.decode()
    assert '<td class="num">0,500</td>' in answer.content.decode()  # both at 1500: expected ½


# --- the second attack -----------------------------------------------------------------------


def test_a_forged_messages_cookie_does_not_switch_the_page_cache_off(running, made):
    t, _ = running
    url = reverse("public:standings_pdf", args=[t.slug])
    first = Client().get(url)
    forged = Client()
    forged.cookies["messages"] = "x"
    again = [forged.get(url) for _ in range(3)]
    assert [a.status_code for a in again] == [200, 200, 200]
    assert {a["ETag"] for a in again} == {first["ETag"]}
    assert len(made) == 1
    page = forged.get(reverse("public:standings", args=[t.slug]))
    assert page.has_header("ETag")  # stored and served like any anonymous page


def test_a_heavy_output_is_one_file_for_htmx_and_once_per_logged_in_reader(running, made, director):
    t, _ = running
    url = reverse("public:standings_pdf", args=[t.slug])
    plain = Client().get(url)
    htmx = Client().get(url, HTTP_HX_REQUEST="true")
    assert htmx["ETag"] == plain["ETag"] and len(made) == 1
    logged = Client()
    logged.force_login(director)
    answers = [logged.get(url) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert len(made) == 2  # once for them (a director may see more), then from the cache
    assert "private" in answers[0]["Cache-Control"]


def test_a_head_answer_leaves_without_its_body():
    factory = RequestFactory()
    middleware = HeadWithoutBodyMiddleware(lambda request: HttpResponse(b"x" * 1234))
    answer = middleware(factory.head("/"))
    assert (answer.content, answer["Content-Length"]) == (b"", "1234")
    assert middleware(factory.get("/")).content == b"x" * 1234
    streaming = HeadWithoutBodyMiddleware(lambda request: StreamingHttpResponse(iter([b"ab"])))
    assert b"".join(streaming(factory.head("/")).streaming_content) == b""


@pytest.mark.parametrize(
    "hop", ["1.2.3.4:5555", "[2001:db8::3]", "[2001:db8::3]:443", "unknown", "2001:db8::/64"]
)
def test_a_malformed_proxy_hop_is_no_500_at_the_login(settings, hop):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.AXES_ENABLED = True
    for url in (reverse("login"), "/admin/login/"):
        answer = Client().post(
            url, {"username": "nadie", "password": "mal"}, HTTP_X_FORWARDED_FOR=hop
        )
        assert answer.status_code == 400, (url, hop)  # refused in words, no 500


def test_a_username_longer_than_any_account_is_refused_in_words(settings):
    settings.AXES_ENABLED = True
    for url in (reverse("login"), "/admin/login/"):
        answer = Client().post(url, {"username": "a" * 300, "password": "x"})
        assert answer.status_code == 400
        assert "El nombre de usuario tiene como mucho 150 caracteres." in answer.content.decode()


def test_another_director_cannot_tell_a_draft_exists(director, running):
    draft = builders.tournament(
        acting_user=director, name="Copa Secreta", date=timezone.localdate(), status="draft"
    )
    other = builders.director("otra-directora")
    client = Client()
    client.force_login(other)
    for name in ("manage:tournament", "manage:tournament_edit", "manage:signups"):
        assert client.get(reverse(name, args=[draft.slug])).status_code == 404, name
        assert client.get(reverse(name, args=["no-existe-2026"])).status_code == 404, name
    # a published tournament she does not direct: refused, as before
    assert client.get(reverse("manage:tournament", args=[running[0].slug])).status_code == 403


def test_a_reset_link_is_on_the_sites_address_whatever_the_host_asked(settings, director):
    settings.SITE_URL = "https://club.example.org"
    settings.ALLOWED_HOSTS = ["club.example.org", "otro.example.org"]
    director.email = "directora@example.org"
    director.save()
    Client().post(
        reverse("password_reset"), {"email": director.email}, HTTP_HOST="otro.example.org"
    )
    (message,) = mail.outbox
    assert "https://club.example.org/cuenta/contrasena/" in message.body
    assert "otro.example.org" not in message.body


def test_the_calculators_answers_are_limited_per_network(running):
    cache.clear()
    url = reverse("rankings:calculator")
    first, second = Player.objects.filter(full_name__in=NAMES[:2]).order_by("pk")
    query = {"a1": first.pk, "b1": second.pk, "tantos_a": 100, "tantos_b": 50}
    limit = LIMITS["calculator"].count
    answers = [Client().get(url, query, REMOTE_ADDR="198.51.100.7") for _ in range(limit + 1)]
    assert [a.status_code for a in answers[:limit]] == [200] * limit
    assert answers[-1].status_code == 429
    assert Client().get(url, REMOTE_ADDR="198.51.100.7").status_code == 200  # the empty form
    assert Client().get(url, query, REMOTE_ADDR="198.51.100.8").status_code == 200
