"""Positions in the ranking are by the rating as shown (1 decimal): two players who both show
1514,9 share a position on the ranking page, its later pages, the home page's top ten, the
player page and the CSV (rankings.queries.shown_rating)."""

import datetime as dt

import pytest
from django.utils import timezone

from rankings import queries
from rankings.models import YearRating
from tournaments.models import Player

pytestmark = pytest.mark.django_db

#: (name, rating): 1514.94 and 1514.86 both show 1514,9; 1514.85 shows 1514,9 too (half away
#: from zero); 1514.849999 shows 1514,8.
RATINGS = [
    ("Alba Quintero", 1600.0),
    ("Bruno Saldaña", 1514.94),
    ("Ciro Tapia", 1514.86),
    ("Delia Ureña", 1514.85),
    ("Elio Varela", 1514.849999),
    ("Flor Zamudio", 1400.0),
]


@pytest.fixture
def year():
    when = timezone.make_aware(dt.datetime(2026, 6, 1, 12))
    for name, rating in RATINGS:
        p = Player.objects.create(full_name=name)
        YearRating.objects.create(
            player=p,
            year=2026,
            rating=rating,
            games=3,
            start_rating=1500.0,
            last_played=when,
            last_key=f"k{name}",
        )
    return 2026


def positions(lines):
    return [(ln.name, ln.position) for ln in lines]


EXPECTED = [
    ("Alba Quintero", 1),
    ("Bruno Saldaña", 2),
    ("Ciro Tapia", 2),
    ("Delia Ureña", 2),
    ("Elio Varela", 5),
    ("Flor Zamudio", 6),
]


def test_ratings_that_show_the_same_share_a_position(year):
    assert positions(queries.year_ranking(year)) == EXPECTED
    assert positions(queries.top_of_year(year, 3)) == EXPECTED[:3]


def test_every_page_and_the_player_page_agree(year):
    lines = []
    for number in (1, 2, 3):
        lines += queries.ranking_page(year, number, 2).object_list
    assert positions(lines) == EXPECTED
    by_name = {p.full_name: p.pk for p in Player.objects.all()}
    assert [queries.year_position(by_name[name], year) for name, _ in RATINGS] == [
        pos for _, pos in EXPECTED
    ]


def test_the_shown_figure_and_its_threshold():
    assert str(queries.shown_rating(1514.85)) == "1514.9"
    assert str(queries.shown_rating(1514.849999)) == "1514.8"
    assert queries._above(queries.shown_rating(1514.86)) == 1514.95
