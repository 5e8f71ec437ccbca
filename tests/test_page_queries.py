"""Every public page takes the same number of SQL queries whatever the size of the club.

Two generated clubs (``generate_club --seed 1``: 40 players and 6 tournaments, then 120 players
and 18 tournaments, each with a league: ``ensure_league``), one after the other in a transaction
rolled back after each; in each, every variant of every public page of the URL resolver, chosen
by the benchmarks' walker (bench/_pages.py: the largest tournament, a finished one, its busiest
round, the player with most games, the two players who met most often, the league, the year,
the calculator empty and with a game), is requested once anonymously with the page cache off
(as tests run), its queries counted. Each test compares one URL pattern's pages at the two
sizes: 200 at both, the same number of queries.

A new public URL pattern gets no test until the walker has a rule for it, and then the walker
fails first (``test_a_public_pattern_without_a_rule_fails_the_walk``). The pages whose count
still grows with the club are marked ``xfail(strict=True)`` in ``GROWS``, naming the page: when
the change that bounds one is merged, its test passes, the strict mark fails, and the mark is
removed.
"""

from __future__ import annotations

import importlib.util
import io
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.http import HttpResponse
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings
from django.urls import path

import clubsite.urls
from rankings import tasks
from tournaments.views import paper

# bench/_pages.py, the benchmarks' walker (bench/ is no package)
_spec = importlib.util.spec_from_file_location(
    "_pages", Path(__file__).resolve().parent.parent / "bench" / "_pages.py"
)
pages = sys.modules.setdefault("_pages", importlib.util.module_from_spec(_spec))
if not hasattr(pages, "RULES"):
    _spec.loader.exec_module(pages)

pytestmark = pytest.mark.django_db

SIZES = {"small": (40, 6), "large": (120, 18)}
END = "2026-11-30"

#: Pages whose query count still grows with the club (others are bounding them): none now.
GROWS: dict[str, str] = {}


def measure() -> dict[str, list[tuple[str, int, int]]]:
    """In the current database: {pattern name: [(variant, HTTP status, queries), ...]}, each
    page counted on its second request: the first fills what is kept for it (a finished
    tournament's final places, a player's story: the writers and the worker keep them so;
    generate_club writes none)."""
    client = Client()
    out: dict[str, list[tuple[str, int, int]]] = {}
    for page in pages.public_pages():
        tasks._checked_at = time.monotonic()  # the stale-replay look: just done (conftest)
        client.get(page.path)
        tasks._checked_at = time.monotonic()
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(page.path)
        variant = page.label.removeprefix(page.name)
        out.setdefault(page.name, []).append((variant, response.status_code, len(ctx)))
    return out


@pytest.fixture(scope="module")
def counts(django_db_setup, django_db_blocker):
    """The figures of ``measure`` at each size of ``SIZES``."""
    found = {}
    patch = pytest.MonkeyPatch()
    patch.setattr(paper, "render_pdf", lambda html: b"%PDF-from-html\n" + html.encode())
    patch.setattr(tasks, "_checked_at", time.monotonic())
    try:
        with (
            django_db_blocker.unblock(),
            override_settings(AXES_ENABLED=False, PAGE_CACHE=False),
        ):
            for size, (players, tournaments) in SIZES.items():
                with transaction.atomic():
                    call_command(
                        "generate_club",
                        f"--players={players}",
                        f"--tournaments={tournaments}",
                        "--seed=1",
                        f"--end={END}",
                        stdout=io.StringIO(),
                    )
                    pages.ensure_league()
                    found[size] = measure()
                    transaction.set_rollback(True)
    finally:
        patch.undo()
    return found


def _case(name: str):
    if name in GROWS:
        return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=GROWS[name]))
    return name


@pytest.mark.parametrize("name", [_case(n) for n in pages.public_names()])
def test_a_public_page_takes_the_same_queries_at_both_sizes(counts, name):
    small, large = counts["small"][name], counts["large"][name]
    assert [(v, status) for v, status, _ in small] == [(v, 200) for v, _, _ in small]
    assert [(v, status) for v, status, _ in large] == [(v, 200) for v, _, _ in large]
    assert [(v, q) for v, _, q in large] == [(v, q) for v, _, q in small]


def test_the_walk_covers_the_public_patterns_and_no_other():
    names = pages.public_names()
    assert "public:home" in names and "rankings:calculator" in names and "glossary" in names
    assert not [n for n in names if n.split(":")[0] in ("manage", "admin", "account")]
    assert "login" not in names and "public:partner" not in names
    assert len(names) == len(pages.RULES) == 35


def _new_page(request):
    return HttpResponse("nuevo")


urlpatterns = [*clubsite.urls.urlpatterns, path("nuevo/", _new_page, name="nuevo")]


def test_a_public_pattern_without_a_rule_fails_the_walk():
    with override_settings(ROOT_URLCONF=__name__):
        with pytest.raises(pages.NoRule, match=r"without a rule.*\['nuevo'\]"):
            pages.public_names()


def test_a_rule_without_its_pattern_fails_the_walk(monkeypatch):
    monkeypatch.setitem(pages.RULES, "public:gone", pages.RULES["glossary"])
    with pytest.raises(pages.NoRule, match=r"rules without a pattern: \['public:gone'\]"):
        pages.public_names()
