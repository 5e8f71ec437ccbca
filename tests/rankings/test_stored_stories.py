"""Players' stories kept by the background worker (rankings/stories.py, ``PlayerStory``): a
change of a tournament's games writes a ``StoryRequest`` per player of the tournament in the
changing transaction (``tournaments.events.games_changed``, ``rankings.signals``), the task
(``rankings.tasks.refresh_stories``, run on commit by the immediate backend in tests) stores
the figures again; the page reads the stored row, says "Actualizando…" while a request waits
and shows the names as they are now."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from clubsite import pagecache
from rankings import ledger, stories, tasks
from rankings.models import PlayerStory, StoryRequest
from tests import builders
from tournaments import services
from tournaments.models import FinalPlace, Player, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):  # the commits: the worker's tasks
        p = builders.stories_club()
    assert not StoryRequest.objects.exists()
    return p


def _rival(player_id: int, other_id: int) -> list:
    row = PlayerStory.objects.get(player_id=player_id)
    return next(r for r in row.figures["rivals"] if r[0] == other_id)


def _requested() -> set[int]:
    return set(StoryRequest.objects.values_list("player_id", flat=True))


def test_a_save_asks_for_its_players_stories_and_the_worker_stores_them(
    club, django_capture_on_commit_callbacks, monkeypatch
):
    ana, beto = club["ana"], club["beto"]
    drawn = []
    monkeypatch.setattr(pagecache, "_draw", lambda scopes: drawn.append(set(scopes)))
    story = PlayerStory.objects.get(player=ana)
    assert story.as_of > 0  # stored by the worker
    # Ana against Beto: 6 games, 3 won, 1 drawn, 2 lost (tantos, Swiss games and VP summed)
    assert _rival(ana.pk, beto.pk) == [beto.pk, "Beto Bravo", 6, 3, 1, 2, 212, 260]
    table = Tournament.objects.get(name="Suizo de Marzo").rounds.get(number=2).tables.get()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.record_result(
            acting_user=None, table=table, version=None, games_a=2, games_b=0, games_drawn=0
        )
        # the Swiss's two players (Ana and Beto) asked for, once for the whole save
        assert sorted(StoryRequest.objects.values_list("player_id", flat=True)) == sorted(
            [ana.pk, beto.pk]
        )
        # not refreshed yet: the page shows the stored figures, "updating"
        s = stories.player_stories(ana.pk)
        assert s.updating is True
        assert [(c.name, c.tally.wins, c.tally.draws) for c in s.rivals][:1] == [
            ("Beto Bravo", 3, 1)
        ]
    last = StoryRequest.objects.filter(player=ana).latest("id").pk
    with django_capture_on_commit_callbacks(execute=True):  # and what they leave for after
        for callback in callbacks:  # the commit: the refresh task runs (immediate backend)
            callback()
    assert not StoryRequest.objects.exists()
    assert PlayerStory.objects.get(player=ana).as_of == last
    # the two players' pages renewed in one draw, after the refresh's commits
    assert {f"player:{ana.pk}", f"player:{beto.pk}"} in drawn
    # the drawn 1–1 is now a 2–0 win: 4 won, 0 drawn, figures 2 for → 3, 3 against → 2
    assert _rival(ana.pk, beto.pk) == [beto.pk, "Beto Bravo", 6, 4, 0, 2, 213, 259]
    assert _rival(beto.pk, ana.pk) == [ana.pk, "Ana Arenas", 6, 2, 0, 4, 259, 213]
    s = stories.player_stories(ana.pk)
    assert s.updating is False and (s.rivals[0].tally.wins, s.rivals[0].tally.draws) == (4, 0)


def test_a_reader_never_overwrites_a_newer_story(club, monkeypatch):
    ana, beto = club["ana"], club["beto"]
    PlayerStory.objects.filter(player=ana).delete()
    newer = {"partners": [], "rivals": [], "zapatos_given": 7, "zapatos_received": 8}
    computed = stories.story_figures

    def slow(player_id):  # the worker stores a newer story while the reader computes
        figures = computed(player_id)
        PlayerStory.objects.create(player_id=player_id, figures=newer, as_of=99)
        return figures

    monkeypatch.setattr(stories, "story_figures", slow)
    s = stories.player_stories(ana.pk)
    assert (s.zapatos_given, s.zapatos_received) == (1, 1)  # what the reader computed
    row = PlayerStory.objects.get(player=ana)
    assert (row.as_of, row.figures) == (99, newer)  # kept: readers only insert
    # a reader with a stored row reads it, whatever it holds
    assert stories.player_stories(ana.pk).zapatos_given == 7
    # a request committed late (its id 5 below the 99 already stored) is not lost: the next
    # run, under the player's lock, reads the games as they are and stores them
    monkeypatch.setattr(stories, "story_figures", computed)
    StoryRequest.objects.create(id=5, player=ana)
    assert tasks.refresh_stories.call() == {"players": 1, "more": False}
    row = PlayerStory.objects.get(player=ana)
    assert row.as_of == 5 and (row.figures["zapatos_given"], row.figures["zapatos_received"]) == (
        1,
        1,
    )
    assert not StoryRequest.objects.exists()
    beto_before = PlayerStory.objects.get(player=beto).figures
    stories.player_stories(beto.pk)
    assert PlayerStory.objects.get(player=beto).figures == beto_before


def test_a_deleted_tournament_asks_for_its_players_stories(
    club, django_capture_on_commit_callbacks
):
    ana, beto, carla, dani = (club[k] for k in ("ana", "beto", "carla", "dani"))
    assert _rival(ana.pk, dani.pk)[2:4] == [4, 3]  # 4 games, 3 won (1 of them at the table)
    with django_capture_on_commit_callbacks(execute=True):
        Tournament.objects.get(name="Mesa de Marzo").delete()
        assert _requested() == {ana.pk, beto.pk, carla.pk, dani.pk}
    assert not StoryRequest.objects.exists()
    # the table game's meetings are gone from the stored stories
    assert _rival(ana.pk, dani.pk)[2:4] == [3, 2]
    assert _rival(ana.pk, beto.pk)[2:8] == [5, 2, 1, 2, 202, 252]


def test_an_entry_whose_players_change_asks_for_the_old_players_too(club):
    fede = club["fede"]
    t = builders.tournament(name="Parejas de Abril", date=dt.date(2025, 4, 5), mode="pairs")
    e = builders.entry(t, [club["eva"], fede])
    StoryRequest.objects.all().delete()
    gil = builders.player("Gil Gómez")
    StoryRequest.objects.all().delete()
    e.player2 = gil
    e.save()
    assert _requested() == {club["eva"].pk, fede.pk, gil.pk}


def test_a_renamed_partner_shows_the_new_name(club, client):
    ana, beto = club["ana"], club["beto"]
    url = reverse("rankings:player", args=[ana.pk])
    assert "Beto Bravo" in client.get(url).content.decode()
    # a rename that bypasses the signals: the names shown are read when the page is
    Player.objects.filter(pk=beto.pk).update(full_name="Beto Barrios")
    body = client.get(url).content.decode()
    assert "Beto Barrios" in body and "Beto Bravo" not in body
    assert PlayerStory.objects.get(player=ana).figures["partners"][0][1] == "Beto Bravo"
    # a rename through the model: every stored story goes (their names order the lists)
    beto.full_name = "Beto Benítez"
    beto.save()
    assert not PlayerStory.objects.exists()
    body = client.get(url).content.decode()
    assert "Beto Benítez" in body and "Beto Barrios" not in body
    assert PlayerStory.objects.get(player=ana).figures["partners"][0][1] == "Beto Benítez"


@pytest.mark.parametrize(
    "language, updating", [("es", "Actualizando…"), ("en", "Updating…"), ("ru", "Обновляется…")]
)
def test_the_page_says_updating_while_a_request_waits(club, client, language, updating):
    ana = club["ana"]
    url = reverse("rankings:player", args=[ana.pk])
    PlayerStory.objects.filter(player=ana).update(
        figures={"partners": [], "rivals": [], "zapatos_given": 7, "zapatos_received": 8}
    )
    body = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert updating not in body
    StoryRequest.objects.create(player=ana)
    body = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'<p class="hint updating" role="status">{updating}</p>' in body
    if language == "es":  # the stored figures, not computed again
        assert '<dd class="zapatos">dados: 7 · recibidos: 8</dd>' in body
        assert 'class="data partners"' not in body


def _pairs_games(names: list[str], games: int) -> Player:
    """A finished pairs tournament of ``games`` rounds between two new pairs; its first
    player."""
    first, *others = builders.players(names)
    t = builders.tournament(
        name=f"Parejas de {games}",
        date=dt.date(2025, 5, 1),
        status="running",
        mode="pairs",
        rounds_planned=games,
    )
    ab = builders.entry(t, [first, others[0]])
    cd = builders.entry(t, others[1:])
    for number in range(1, games + 1):
        builders.play(t, number, [(ab, cd)], [builders.tantos(100, number)])
    builders.finish(t, open_rounds_ok=True)
    return first


def test_the_page_takes_the_same_queries_with_5_and_with_50_games(client):
    few = _pairs_games(["Ada Uno", "Bea Uno", "Cid Uno", "Dora Uno"], 5)
    many = _pairs_games(["Ada Dos", "Bea Dos", "Cid Dos", "Dora Dos"], 50)
    ledger.rebuild()
    FinalPlace.objects.store_all()
    tasks.refresh_stories.call()  # both stories stored

    def count(player):
        url = reverse("rankings:player", args=[player.pk])
        with CaptureQueriesContext(connection) as ctx:
            body = client.get(url).content.decode()
        return len(ctx.captured_queries), body

    (n_few, few_body), (n_many, many_body) = count(few), count(many)
    assert n_few == n_many
    assert ">5</td>" in few_body and ">50</td>" in many_body  # the partner's games
