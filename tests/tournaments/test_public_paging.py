"""The public pages stay bounded at federation size: the tournament list is a yearly archive in
pages, and a very large standings is paged (positions over the whole field, live refresh of the
page shown, the CSV and the director's pages whole)."""

import csv
import datetime as dt
import io
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests import builders
from tournaments import services
from tournaments.models import Tournament
from tournaments.views import public

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
LIST_ROW = re.compile(r'<th scope="row" class="name"><a href="/torneos/[^/]+/">([^<]+)</a>')
YEAR_LINK = re.compile(r'<a href="\?year=(\d+)"( aria-current="page")?>')
CARD = re.compile(r'<li class="card">\s*<a href="/torneos/[^/]+/"><strong>([^<]+)</strong>')


# --- the tournament list -----------------------------------------------------------------------


def add(name: str, date: dt.date, status: str = "finished") -> Tournament:
    t = builders.tournament(name=name, date=date)
    Tournament.objects.filter(pk=t.pk).update(status=status)  # past the services: no rounds
    return t


@pytest.fixture
def archive():
    """Seven tournaments this year (one of them open for registration), a draft this year, two
    last year, one the year before, one open for registration next year, and a year (four years
    ago) that has only a draft. Returns this year."""
    y = timezone.localdate().year
    for month in (1, 2, 3, 4, 5, 6):
        add(f"Liga {y} mes {month:02d}", dt.date(y, month, 10))
    add(f"Abierto {y}", dt.date(y, 12, 28), "registration")
    add(f"Borrador {y}", dt.date(y, 7, 1), "draft")
    add(f"Liga {y - 1} otoño", dt.date(y - 1, 10, 1))
    add(f"Liga {y - 1} primavera", dt.date(y - 1, 4, 1))
    add(f"Liga {y - 2}", dt.date(y - 2, 5, 5))
    add(f"Copa {y + 1}", dt.date(y + 1, 1, 15), "registration")
    add(f"Borrador {y - 4}", dt.date(y - 4, 3, 3), "draft")
    return y


def listing(client, **params):
    response = client.get(reverse("public:tournaments"), params)
    assert response.status_code == 200, params
    return response.content.decode()


def test_the_list_shows_the_current_year_newest_first_in_pages(client, archive, monkeypatch):
    monkeypatch.setattr(public, "TOURNAMENTS_PAGE_SIZE", 3)
    y = archive
    first = listing(client)
    assert LIST_ROW.findall(first) == [f"Abierto {y}", f"Liga {y} mes 06", f"Liga {y} mes 05"]
    assert f"<h1>Torneos {y}</h1>" in first
    assert "Página 1 de 3" in first and f'rel="next" href="?year={y}&amp;page=2"' in first
    assert 'rel="prev"' not in first
    second = listing(client, page=2)
    assert LIST_ROW.findall(second) == [
        f"Liga {y} mes 04",
        f"Liga {y} mes 03",
        f"Liga {y} mes 02",
    ]
    # Asked without a year, the links name it; the other parameters keep their place.
    assert f'rel="prev" href="?page=1&amp;year={y}"' in second
    assert f'rel="next" href="?page=3&amp;year={y}"' in second
    third = listing(client, year=y, page=3)
    assert LIST_ROW.findall(third) == [f"Liga {y} mes 01"]
    assert 'rel="next"' not in third
    # No draft on any page.
    assert all("Borrador" not in page for page in (first, second, third))


def test_the_year_links_name_the_years_that_have_published_tournaments_newest_first(
    client, archive
):
    y = archive
    body = listing(client)
    assert YEAR_LINK.findall(body) == [
        (str(y + 1), ""),
        (str(y), ' aria-current="page"'),
        (str(y - 1), ""),
        (str(y - 2), ""),
    ]
    older = listing(client, year=y - 1)
    assert LIST_ROW.findall(older) == [f"Liga {y - 1} otoño", f"Liga {y - 1} primavera"]
    assert f"<h1>Torneos {y - 1}</h1>" in older
    assert (str(y - 1), ' aria-current="page"') in YEAR_LINK.findall(older)
    assert "Página" not in older  # one page: no pager
    assert LIST_ROW.findall(listing(client, year=y + 1)) == [f"Copa {y + 1}"]


def test_next_years_upcoming_tournament_heads_the_first_page_of_the_default_year(
    client, archive, monkeypatch
):
    """This year's upcoming one already heads the year's list; next year's would be out of
    sight, so the default year's first page shows it above the list."""
    monkeypatch.setattr(public, "TOURNAMENTS_PAGE_SIZE", 3)
    y = archive
    body = listing(client)
    assert CARD.findall(body) == [f"Copa {y + 1}"]
    assert '<h2 id="upcoming-h">Próximos</h2>' in body and 'id="running-h"' not in body
    assert body.index(f"Copa {y + 1}") < body.index(f"Abierto {y}")
    # Not on the next page nor on another year's list.
    assert CARD.findall(listing(client, page=2)) == []
    assert CARD.findall(listing(client, year=y - 1)) == []
    # A running tournament begun last year is shown as running, first.
    add(f"Maratón {y - 1}", dt.date(y - 1, 12, 30), "running")
    body = listing(client)
    assert CARD.findall(body) == [f"Maratón {y - 1}", f"Copa {y + 1}"]
    assert '<h2 id="running-h">En curso</h2>' in body


@pytest.mark.parametrize("year", ["abc", "-1", "99999", "", "1999", "2.5", "9" * 30])
def test_a_year_that_is_not_a_number_or_has_no_tournament_shows_the_default_year(
    client, archive, year
):
    body = listing(client, year=year)
    assert f"<h1>Torneos {archive}</h1>" in body
    assert f"Liga {archive} mes 06" in body


@pytest.mark.parametrize(
    "page, expected",
    [("abc", 1), ("", 1), ("-1", 3), ("0", 3), ("99999", 3), ("2", 2), ("9" * 30, 3)],
)
def test_a_bad_page_shows_the_first_or_the_last_page_never_an_error(
    client, archive, monkeypatch, page, expected
):
    monkeypatch.setattr(public, "TOURNAMENTS_PAGE_SIZE", 3)
    body = listing(client, year=archive, page=page)
    assert f"Página {expected} de 3" in body


def test_without_tournaments_this_year_the_newest_year_that_has_them_is_shown(client):
    y = timezone.localdate().year
    add(f"Liga {y - 3}", dt.date(y - 3, 6, 1))
    add(f"Liga {y - 2}", dt.date(y - 2, 6, 1))
    add(f"Borrador {y}", dt.date(y, 6, 1), "draft")
    body = listing(client)
    assert f"<h1>Torneos {y - 2}</h1>" in body
    assert LIST_ROW.findall(body) == [f"Liga {y - 2}"]
    assert [year for year, _ in YEAR_LINK.findall(body)] == [str(y - 2), str(y - 3)]


def test_an_empty_club_lists_no_tournament(client):
    body = listing(client, year="abc", page="9")
    assert f"<h1>Torneos {timezone.localdate().year}</h1>" in body
    assert "No hay torneos publicados." in body
    assert 'class="years"' not in body and "Página" not in body


def test_the_list_runs_the_same_queries_for_a_few_tournaments_and_for_many(
    client, archive, monkeypatch
):
    monkeypatch.setattr(public, "TOURNAMENTS_PAGE_SIZE", 3)

    def count(**params):
        with CaptureQueriesContext(connection) as ctx:
            listing(client, **params)
        return len(ctx.captured_queries)

    few = count(), count(page=2), count(year=archive - 1)
    y = archive
    for i in range(40):
        add(f"Torneo extra {i:02d}", dt.date(y - 1 - i % 8, 1 + i % 12, 1 + i % 28))
    assert (count(), count(page=2), count(year=archive - 1)) == few


# --- paged standings ---------------------------------------------------------------------------

NAMES = [
    "Ana Uno",
    "Blas Dos",
    "Cora Tres",
    "Dino Cuatro",
    "Eva Cinco",
    "Fidel Seis",
    "Gala Siete",
    "Hugo Ocho",
]
#: The whole field's standings after round 1 (each table 100 against 0, 10, 20, 30).
WHOLE = [
    ("1", "Ana Uno"),
    ("2", "Cora Tres"),
    ("3", "Eva Cinco"),
    ("4", "Gala Siete"),
    ("5", "Hugo Ocho"),
    ("6", "Fidel Seis"),
    ("7", "Dino Cuatro"),
    ("8", "Blas Dos"),
]
STANDING_ROW = re.compile(
    r'<td class="pos">=?(\d+)</td>\s*<th scope="row" class="name">([^<]+?)(?: <span|</th>)'
)


@pytest.fixture
def field(director):
    """A running mano a mano of eight; round 1 closed, round 2 open (no result yet)."""
    t = services.create_tournament(
        acting_user=director,
        name="Abierto Grande",
        date=timezone.localdate(),
        mode="single",
        status="running",
    )
    players = [services.create_player(acting_user=director, full_name=n) for n in NAMES]
    e = [services.register_entry(acting_user=director, tournament=t, players=[p]) for p in players]
    r1 = services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=1,
        tables=[([e[2 * i]], [e[2 * i + 1]]) for i in range(4)],
    )
    for i, table in enumerate(r1.tables.order_by("number")):
        services.record_result(
            acting_user=director, table=table, tantos_a=100, tantos_b=10 * i, version=0
        )
    services.close_round(acting_user=director, round=r1)
    services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=2,
        tables=[([e[0]], [e[2]]), ([e[4]], [e[6]]), ([e[1]], [e[3]]), ([e[5]], [e[7]])],
    )
    return t


@pytest.fixture
def small_pages(monkeypatch):
    """Three lines a page, no orphans: the eight of ``field`` on pages of 3, 3 and 2."""
    monkeypatch.setattr(public, "STANDINGS_PAGE_SIZE", 3)
    monkeypatch.setattr(public, "STANDINGS_ORPHANS", 0)


def standings(client, t, **params):
    headers = HTMX if params.pop("htmx", False) else {}
    response = client.get(reverse("public:standings", args=[t.slug]), params, **headers)
    assert response.status_code == 200, params
    return response.content.decode()


def test_a_field_that_fits_renders_whole_without_a_pager(client, field):
    body = standings(client, field)
    assert STANDING_ROW.findall(body) == WHOLE
    assert 'class="pager"' not in body
    assert f'hx-get="/torneos/{field.slug}/clasificacion/"' in body  # no page in the refresh
    assert body.count('class="table-card') == 4  # the open round's tables, below
    assert STANDING_ROW.findall(standings(client, field, page="2")) == WHOLE


def test_a_large_field_is_paged_and_page_two_continues_the_positions(client, field, small_pages):
    first = standings(client, field)
    assert STANDING_ROW.findall(first) == WHOLE[:3]
    assert "Página 1 de 3" in first and 'rel="next" href="?page=2"' in first
    second = standings(client, field, page="2")
    assert STANDING_ROW.findall(second) == WHOLE[3:6]
    assert 'rel="prev" href="?page=1"' in second and 'rel="next" href="?page=3"' in second
    last = standings(client, field, page="3")
    assert STANDING_ROW.findall(last) == WHOLE[6:]
    # The open round is a link to its page: a large round's tables would unbound the page.
    for body in (first, second, last):
        assert 'class="table-card' not in body
        assert f'<a href="/torneos/{field.slug}/ronda/2/">Mesas de la ronda 2</a>' in body


def test_the_live_refresh_of_a_page_asks_for_that_page(client, field, small_pages):
    second = standings(client, field, page="2")
    assert f'hx-get="/torneos/{field.slug}/clasificacion/?page=2"' in second
    partial = standings(client, field, page="2", htmx=True)
    assert "<html" not in partial and 'id="standings"' in partial
    assert STANDING_ROW.findall(partial) == WHOLE[3:6]
    assert f'hx-get="/torneos/{field.slug}/clasificacion/?page=2"' in partial
    assert "Página 2 de 3" in partial


def test_the_tournament_page_of_a_field_that_fits_keeps_every_line(client, field):
    page = client.get(reverse("public:tournament", args=[field.slug])).content.decode()
    assert STANDING_ROW.findall(page) == WHOLE and 'class="pager"' not in page
    assert f'hx-get="/torneos/{field.slug}/clasificacion/"' in page
    assert page.count('class="table-card') == 8  # both rounds' tables
    assert "<h2>Inscritos (8)</h2>" in page and page.count("<li>") >= 8
    # Its refresh asks without a page and gets every line, as the page shows.
    assert STANDING_ROW.findall(standings(client, field, htmx=True)) == WHOLE


def test_the_tournament_page_of_a_large_field_is_bounded(client, field, small_pages):
    url = reverse("public:tournament", args=[field.slug])
    page = client.get(url).content.decode()
    assert STANDING_ROW.findall(page) == WHOLE[:3]
    assert "Página 1 de 3" in page and 'rel="next" href="?page=2"' in page
    assert f'hx-get="/torneos/{field.slug}/clasificacion/?page=1"' in page
    # Rounds as links with their counts, no table cards; the entries' count, not their list.
    assert 'class="table-card' not in page
    assert "4 de 4 mesas con resultado" in page and "0 de 4 mesas con resultado" in page
    assert "<h2>Inscritos (8)</h2>" in page
    assert "La clasificación, arriba, nombra a todos los inscritos." in page
    second = client.get(url, {"page": "2"}).content.decode()
    assert STANDING_ROW.findall(second) == WHOLE[3:6]
    assert client.get(url, {"page": "abc"}).status_code == 200


@pytest.mark.parametrize(
    "page, shown", [("abc", WHOLE[:3]), ("", WHOLE[:3]), ("-1", WHOLE[6:]), ("99999", WHOLE[6:])]
)
def test_a_bad_standings_page_shows_the_first_or_the_last_never_an_error(
    client, field, small_pages, page, shown
):
    assert STANDING_ROW.findall(standings(client, field, page=page)) == shown
    assert STANDING_ROW.findall(standings(client, field, page=page, htmx=True)) == shown


def test_a_last_page_of_orphans_joins_the_page_before(client, field, monkeypatch):
    monkeypatch.setattr(public, "STANDINGS_PAGE_SIZE", 3)
    monkeypatch.setattr(public, "STANDINGS_ORPHANS", 2)
    assert STANDING_ROW.findall(standings(client, field, page="2")) == WHOLE[3:]
    assert "Página 2 de 2" in standings(client, field, page="2")
    monkeypatch.setattr(public, "STANDINGS_PAGE_SIZE", 6)
    body = standings(client, field)
    assert STANDING_ROW.findall(body) == WHOLE and 'class="pager"' not in body


def test_the_csv_and_the_directors_round_page_stay_whole(
    client, director_client, field, small_pages
):
    response = client.get(reverse("public:standings_csv", args=[field.slug]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert len(rows) == 1 + len(WHOLE)
    manage = director_client.get(reverse("manage:round", args=[field.slug, 2])).content.decode()
    assert STANDING_ROW.findall(manage) == WHOLE and 'class="pager"' not in manage


def test_every_page_of_the_standings_runs_the_same_queries(client, field, monkeypatch):
    def count(**params):
        with CaptureQueriesContext(connection) as ctx:
            standings(client, field, **params)
        return len(ctx.captured_queries)

    whole, whole_refresh = count(), count(htmx=True)
    monkeypatch.setattr(public, "STANDINGS_PAGE_SIZE", 3)
    monkeypatch.setattr(public, "STANDINGS_ORPHANS", 0)
    pages = [count(page=str(n)) for n in (1, 2, 3)]
    refreshes = [count(page=str(n), htmx=True) for n in (1, 2, 3)]
    assert pages == [pages[0]] * 3 and pages[0] < whole  # the round's tables are not read
    assert refreshes == [whole_refresh] * 3
