"""A director runs a Swiss match-play event through the real pages (issue: swiss match play)."""

import html
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests import builders
from tournaments import services
from tournaments.models import Bye, MatchResult, Round, Table, Tournament

pytestmark = pytest.mark.django_db

NAMES = ["Abril Zamora", "Bernardo Yáñez", "Candela Ximénez", "Darío Wolff", "Elena Vidal"]


def htmx_post(client, url, data):
    return client.post(url, data, HTTP_HX_REQUEST="true")


def test_director_runs_two_swiss_rounds_with_a_bye_a_refusal_and_a_drop(director_client):
    client = director_client
    r = client.post(
        reverse("manage:tournament_add"),
        {
            "name": "Suizo de Prueba",
            "date": "2026-11-21",
            "venue": "",
            "system": "swiss",
            "mode": "single",
            "target": "100",
            "time_limit": "",
            "bye_rule": "rest",
            "forfeit_winner_tantos": "",
            "forfeit_loser_tantos": "0",
            "rounds_planned": "3",
            "status": "registration",
            "best_of": "3",
        },
    )
    assert r.status_code == 302, r.content.decode()[:1500]
    t = Tournament.objects.get(name="Suizo de Prueba")
    assert (t.system, t.best_of) == ("swiss", 3)
    for name in NAMES:
        player = services.create_player(acting_user=None, full_name=name)
        assert (
            client.post(
                reverse("manage:entry_add", args=[t.slug]), {"player1": player.pk}
            ).status_code
            == 302
        )

    # Round 1 proposed at random from a seed, then published as proposed.
    page = client.get(reverse("manage:pairings", args=[t.slug, 1]) + "?proponer=1")
    assert page.status_code == 200
    body = page.content.decode()
    seed = re.search(r'name="seed" value="(\d+)"', body).group(1)
    chosen = dict(
        re.findall(r'<select id="(t\d_[ab]1)"[^>]*>.*?<option value="(\d+)" selected', body, re.S)
    )
    assert len(chosen) == 4  # two tables of two; the fifth rests
    r = client.post(reverse("manage:pairings", args=[t.slug, 1]), {"seed": seed, **chosen})
    assert r.status_code == 302
    rnd1 = Round.objects.get(tournament=t, number=1)
    assert rnd1.seed == int(seed)
    assert Bye.objects.filter(round=rnd1).count() == 1

    tables = list(Table.objects.filter(round=rnd1).order_by("number"))
    url = lambda table: reverse("manage:result_save", args=[t.slug, table.pk])  # noqa: E731
    # Refused: 3 wins in a best of 3 (only 2 are needed), nothing stored.
    r = htmx_post(
        client, url(tables[0]), {"games_a": "3", "games_b": "0", "games_drawn": "", "version": "0"}
    )
    assert r.status_code == 400
    assert MatchResult.objects.count() == 0
    assert 'value="3"' in r.content.decode()
    r = htmx_post(
        client, url(tables[0]), {"games_a": "2", "games_b": "1", "games_drawn": "", "version": "0"}
    )
    assert r.status_code == 200 and "puntos de encuentro 3–0" in r.content.decode()
    r = htmx_post(
        client, url(tables[1]), {"games_a": "1", "games_b": "1", "games_drawn": "1", "version": "0"}
    )
    assert r.status_code == 200 and "Empate" in r.content.decode()
    assert client.post(reverse("manage:round_close", args=[t.slug, 1])).status_code == 302

    # The round-1 loser of table 1 drops; round 2 pairs the other four, nobody meets again.
    loser = tables[0].seats.get(side="B").entry
    assert client.post(reverse("manage:entry_drop", args=[t.slug, loser.pk])).status_code == 302
    page = client.get(reverse("manage:pairings", args=[t.slug, 2]) + "?proponer=1").content.decode()
    chosen = dict(
        re.findall(r'<select id="(t\d_[ab]1)"[^>]*>.*?<option value="(\d+)" selected', page, re.S)
    )
    assert str(loser.pk) not in chosen.values()
    assert len(chosen) == 4
    met = {frozenset(s.entry_id for s in table.seats.all()) for table in tables}
    proposed = {
        frozenset((chosen["t0_a1"], chosen["t0_b1"])),
        frozenset((chosen["t1_a1"], chosen["t1_b1"])),
    }
    assert not {frozenset(int(x) for x in pair) for pair in proposed} & met

    # Public standings: the bye (3 points, GWP 6/6) and the 2–1 winner (3 points, GWP 6/9) lead,
    # both with OMW at the 0.33 floor, so GWP puts the bye first; the dropped entry is still listed.
    client.logout()
    page = client.get(reverse("public:standings", args=[t.slug])).content.decode()
    names = [
        html.unescape(n).split(" <span")[0]
        for n in re.findall(r'<th scope="row" class="name">(.*?)</th>', page)
    ]
    winner = tables[0].seats.get(side="A").entry
    rested = Bye.objects.get(round=rnd1).entry
    assert names[:2] == [rested.name, winner.name]
    assert len(names) == 5 and loser.name in names
    assert "retirado" in page
    assert "1–0–0 (1)" in page  # the bye is a match won (2–0 in games), shown with its bye count
    assert "%" in page and "OMW" in page


def test_swiss_standings_queries_do_not_grow(director):
    def build(n):
        t = builders.tournament(
            name=f"Suizo {n}",
            date=__import__("datetime").date(2026, 5, 5),
            system="swiss",
            mode="single",
            target=100,
            best_of=3,
            status="running",
        )
        entries = [builders.new_entry(t, [f"S{n}-{i}"]) for i in range(n)]
        for number in (1, 2):
            pairs = [([entries[i]], [entries[(i + number) % n]]) for i in range(0, n - 1, 2)][
                : n // 2
            ]
            seen, tables = set(), []
            for a, b in pairs:
                if a[0].pk in seen or b[0].pk in seen:
                    continue
                seen |= {a[0].pk, b[0].pk}
                tables.append((a, b))
            rnd = builders.pair(t, number, tables)
            for table in rnd.tables.all():
                builders.record(table, games_a=2, games_b=1)
        with CaptureQueriesContext(connection) as ctx:
            t.standings()
        return len(ctx.captured_queries)

    assert build(8) == build(40) == 5
