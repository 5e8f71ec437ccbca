"""The calculator's players picked by name (rankings/forms.py ``PlayerNameField``): the search
as one types (``rankings:player_search``: at most ten, names matched as the site matches them,
visible players only, limited per network), and the plain form without JavaScript (one match
taken; several or none refused with the candidates in words, the text kept). The page itself
lists no player."""

import html
import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from clubsite.limits import LIMITS
from rankings import queries
from tournaments import services

pytestmark = pytest.mark.django_db

NAMES = [
    "Amparo Quiroga",
    "Amparo Quirós",
    "Bruno Saldívar",
    "Brunilda Sáez",
    "Cira Talamantes",
]


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


@pytest.fixture
def players():
    return {n: services.create_player(acting_user=None, full_name=n) for n in NAMES}


def options(response) -> list[str]:
    body = response.content.decode()
    assert body.startswith("<datalist") or "<datalist" in body
    return [html.unescape(v) for v in re.findall(r'<option value="([^"]*)">', body)]


def search(text, field="a1", **extra):
    return Client().get(reverse("rankings:player_search"), {field: text}, **extra)


def calculate(**fields):
    query = {"tantos_a": "100", "tantos_b": "50", **fields}
    return Client().get(reverse("rankings:calculator"), query)


def text_of(response) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())))


def test_the_search_offers_the_players_whose_name_contains_the_text(players):
    # case, accents and spacing ignored (tournaments.names.key), by name
    assert options(search("QUIRO")) == ["Amparo Quiroga", "Amparo Quirós"]
    assert options(search("bru", field="b2")) == ["Brunilda Sáez", "Bruno Saldívar"]
    assert options(search("saldivar", field="q")) == ["Bruno Saldívar"]
    assert options(search("zz")) == []
    empty = Client().get(reverse("rankings:player_search"))
    assert options(empty) == [] and empty.status_code == 200


def test_the_search_offers_ten_players_the_whole_name_first_in_two_queries(players):
    for i in range(12):
        services.create_player(acting_user=None, full_name=f"Amparo Quirogas {i:02}")
    with CaptureQueriesContext(connection) as ctx:
        found = options(search("amparo quiroga"))
    assert found == ["Amparo Quiroga"] + [f"Amparo Quirogas {i:02}" for i in range(9)]
    # the whole names, then the others (each stopping at ten: bounded on any club's size)
    assert len([q for q in ctx.captured_queries if "tournaments_player" in q["sql"]]) == 2


def test_the_search_offers_only_active_players_anyone_may_see(players):
    quiet = players["Cira Talamantes"]
    services.set_player_active(acting_user=None, player=quiet, active=False)
    assert options(search("cira")) == []
    assert queries.players_named("cira") == []


def test_two_players_of_one_name_are_told_apart_by_their_number(players):
    twin = services.create_player(acting_user=None, full_name="Cira Talamantes")
    first = players["Cira Talamantes"]
    assert options(search("cira")) == [
        f"Cira Talamantes #{first.pk}",
        f"Cira Talamantes #{twin.pk}",
    ]
    answer = calculate(a1="Cira Talamantes", b1="Bruno")
    assert answer.status_code == 400
    assert (
        "«Cira Talamantes» es el nombre de varios jugadores; elige uno: "
        f"Cira Talamantes #{first.pk}; Cira Talamantes #{twin.pk}."
    ) in text_of(answer)
    answer = calculate(a1=f"Cira Talamantes #{twin.pk}", b1="Bruno Saldívar")
    assert answer.status_code == 200
    assert "Cira Talamantes" in text_of(answer)


def test_without_javascript_one_match_is_taken(players):
    answer = calculate(a1="saldivar", b1="Cira")
    assert answer.status_code == 200
    result = text_of(answer)
    assert "Bruno Saldívar" in result and "Cira Talamantes" in result
    # the whole name wins over the names that contain it
    services.create_player(acting_user=None, full_name="Bruno Saldívar Ruiz")
    assert calculate(a1="Bruno Saldivar", b1="Cira").status_code == 200


def test_without_javascript_several_or_no_matches_answer_400_with_the_candidates(players):
    answer = calculate(a1="amparo", b1="Xavier")
    assert answer.status_code == 400
    body = answer.content.decode()
    assert 'name="a1" value="amparo"' in body and 'name="b1" value="Xavier"' in body
    words = text_of(answer)
    assert (
        "«amparo» es el nombre de varios jugadores; elige uno: Amparo Quiroga; Amparo Quirós."
        in words
    )
    assert "Ningún jugador se llama «Xavier»." in words


def test_more_than_ten_matches_ask_for_more_letters(players):
    for i in range(11):
        services.create_player(acting_user=None, full_name=f"Dora Vidal {i:02}")
    words = text_of(calculate(a1="dora", b1="Cira"))
    assert "«dora» es el nombre de más de 10 jugadores; escribe más letras. Algunos: " in words
    assert "Dora Vidal 09." in words and "Dora Vidal 10" not in words


def test_the_page_lists_no_player_and_each_box_searches_as_one_types(players):
    body = Client().get(reverse("rankings:calculator")).content.decode()
    assert "Amparo" not in body and "<select" not in body
    search_url = reverse("rankings:player_search")
    for name in ("a1", "a2", "b1", "b2"):
        box = re.search(rf'<input [^>]*name="{name}"[^>]*>', body).group(0)
        assert 'list="calculator-players"' in box and f'hx-get="{search_url}"' in box
        assert 'hx-target="#calculator-players"' in box
    assert body.count('<datalist id="calculator-players"></datalist>') == 1


def test_the_search_is_limited_per_network(players):
    limit = LIMITS["player-search"].count
    answers = [search("am", REMOTE_ADDR="198.51.100.9").status_code for _ in range(limit + 1)]
    assert answers == [200] * limit + [429]
    assert search("am", REMOTE_ADDR="198.51.100.10").status_code == 200
