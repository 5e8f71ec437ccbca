"""Heavy outputs (the PDFs and the workbooks: seconds of CPU each for a large tournament) are
made once per change of the data and at most ``HEAVY_AT_ONCE`` at once on the whole farm; a
visitor never waits for one nor starts a second copy (clubsite.pagecache, "Heavy outputs").
And the calculator's page is cached like the others (its answers are computed)."""

import threading
import time

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from clubsite import pagecache
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
