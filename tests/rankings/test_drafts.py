"""Drafts are private: a draft tournament's games are unrated until it is published, and no
public page or file names the draft or a player who only plays in it (rankings.ledger,
rankings.signals, Player.objects.public; tournaments.views.visibility for the draft's
own pages)."""

import csv
import datetime as dt
import io
from types import SimpleNamespace

import pytest
from django.test import Client
from django.urls import reverse

from rankings import ledger
from rankings.models import LedgerRow
from tests import builders
from tests.helpers import ledger_snapshot
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

DRAFT = "Torneo Reservado"
HIDDEN = "Gaspar Olvera"  # plays only in the draft

# Published game: Emilio 100–40 Fabiola, both 1500 and NG 0 (K 32, S 0.82): ±10.24.
EMILIO_PUBLISHED_ONLY = 1510.24
FABIOLA = 1489.76
# Once the draft is published: Gaspar (1500, NG 0) beats Emilio (1510.24, NG 1) 100–60.
GASPAR_PUBLISHED = 1507.8314329295042
EMILIO_PUBLISHED = 1502.4085670704958


def last_rating(player) -> float | None:
    return (
        LedgerRow.objects.filter(player=player)
        .order_by("-order_key")
        .values_list("rating_after", flat=True)
        .first()
    )


@pytest.fixture
def club(django_capture_on_commit_callbacks, director):
    emilio, fabiola, gaspar = builders.players(["Emilio Roldán", "Fabiola Sarmiento", HIDDEN])
    builders.player("Hilario Sinmesa")  # no entry at all

    def play(name, date, a, b, score, user=None):
        t = builders.tournament(
            acting_user=user,
            name=name,
            date=date,
            system="domino",
            mode="single",
            target=100,
            status="registration",
        )
        ea, eb = builders.entries(t, [a, b], acting_user=user)
        builders.play(t, 1, [(ea, eb)], [builders.tantos(*score)], acting_user=user)
        return t

    with django_capture_on_commit_callbacks(execute=True):
        league = play("Liga Otoño", dt.date(2026, 10, 3), emilio, fabiola, (100, 40))
        draft = play(DRAFT, dt.date(2026, 10, 10), gaspar, emilio, (100, 60), user=director)
    assert last_rating(gaspar) == pytest.approx(GASPAR_PUBLISHED, abs=1e-9)
    # The director takes it back to draft (pairing a round had started it).
    with django_capture_on_commit_callbacks(execute=True):
        services.update_tournament(
            acting_user=director, tournament=draft, status="draft", reason="Aún no es oficial"
        )
    return SimpleNamespace(
        emilio=emilio, fabiola=fabiola, gaspar=gaspar, league=league, draft=draft
    )


def test_a_drafts_game_changes_nobodys_rating(club):
    assert last_rating(club.gaspar) is None
    assert last_rating(club.emilio) == pytest.approx(EMILIO_PUBLISHED_ONLY, abs=1e-9)
    assert last_rating(club.fabiola) == pytest.approx(FABIOLA, abs=1e-9)
    assert not LedgerRow.objects.filter(tournament=club.draft).exists()
    assert [g.tournament_id for g in ledger.rated_games()] == [club.league.pk]
    before = ledger_snapshot()
    ledger.rebuild()
    assert ledger_snapshot() == before


def test_publishing_replays_and_the_ratings_then_equal_a_rebuild(
    club, director, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        services.update_tournament(
            acting_user=director, tournament=club.draft, status="finished", open_rounds_ok=True
        )
    assert last_rating(club.gaspar) == pytest.approx(GASPAR_PUBLISHED, abs=1e-9)
    assert last_rating(club.emilio) == pytest.approx(EMILIO_PUBLISHED, abs=1e-9)
    assert LedgerRow.objects.filter(tournament=club.draft).count() == 2
    before = ledger_snapshot()
    ledger.rebuild()
    assert ledger_snapshot() == before


def test_unpublishing_by_a_plain_save_removes_the_games_again(
    club, director, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        services.update_tournament(acting_user=director, tournament=club.draft, status="running")
    assert LedgerRow.objects.filter(tournament=club.draft).count() == 2
    draft = Tournament.objects.get(pk=club.draft.pk)
    draft.status = Tournament.Status.DRAFT
    with django_capture_on_commit_callbacks(execute=True):
        draft.save()  # the shell's (or any other) path: the model signal sees it
    assert not LedgerRow.objects.filter(tournament=club.draft).exists()
    assert last_rating(club.emilio) == pytest.approx(EMILIO_PUBLISHED_ONLY, abs=1e-9)


def test_a_status_change_between_published_states_does_not_replay(
    club, django_capture_on_commit_callbacks, monkeypatch
):
    calls = []
    monkeypatch.setattr(ledger, "replay_from", lambda key, **kw: calls.append(key))
    with django_capture_on_commit_callbacks(execute=True):
        services.update_tournament(
            acting_user=None, tournament=club.league, status="finished", open_rounds_ok=True
        )
    assert calls == []


def _public_texts(client, club) -> dict[str, str]:
    emilio = club.emilio.pk
    return {
        "ranking": client.get(reverse("rankings:ranking") + "?year=2026").content.decode(),
        "ranking.csv": client.get(
            reverse("rankings:ranking_csv", args=[2026]) + "?precision=full"
        ).content.decode("utf-8-sig"),
        "home": client.get(reverse("public:home")).content.decode(),
        "player": client.get(reverse("rankings:player", args=[emilio])).content.decode(),
        "player.csv": client.get(reverse("rankings:player_csv", args=[emilio])).content.decode(),
        "calculator": client.get(reverse("rankings:calculator")).content.decode(),
        "calculator search": client.get(
            reverse("rankings:player_search"), {"q": HIDDEN.split()[0]}
        ).content.decode(),
        "tournaments": client.get(reverse("public:tournaments")).content.decode(),
    }


def test_no_public_page_or_file_names_the_draft_or_its_own_players(client, club):
    texts = _public_texts(client, club)
    for page, text in texts.items():
        assert DRAFT not in text, page
        assert HIDDEN not in text, page
        assert club.draft.slug not in text, page
    # The published game is there, with its figures.
    rows = list(csv.reader(io.StringIO(texts["ranking.csv"])))
    assert [r[1] for r in rows[1:]] == ["Emilio Roldán", "Fabiola Sarmiento"]
    assert rows[1][2] == repr(EMILIO_PUBLISHED_ONLY)
    history = list(csv.reader(io.StringIO(texts["player.csv"])))
    assert [r[1] for r in history[1:]] == ["Liga Otoño"]
    # The calculator's search offers the club's players, a member without entries too, never
    # Gaspar (the search is one of the public texts above).
    for name in ("Hilario Sinmesa", "Fabiola Sarmiento"):
        found = client.get(reverse("rankings:player_search"), {"q": name}).content.decode()
        assert f'<option value="{name}">' in found


def test_the_calculator_refuses_a_player_who_only_plays_in_a_draft(client, club):
    r = client.get(
        reverse("rankings:calculator"),
        {"a1": club.gaspar.pk, "b1": club.fabiola.pk, "tantos_a": "100", "tantos_b": "50"},
    )
    assert r.status_code == 400
    assert HIDDEN not in r.content.decode()


def test_a_draft_only_players_page_and_csv_are_404_except_for_directors(director_client, club):
    for name in ("rankings:player", "rankings:player_csv"):
        url = reverse(name, args=[club.gaspar.pk])
        assert Client().get(url).status_code == 404, name
        assert director_client.get(url).status_code == 200, name
    body = director_client.get(reverse("rankings:player", args=[club.gaspar.pk])).content.decode()
    assert "Todavía no tiene partidas con ranking." in body  # a preview, still unrated


def test_the_drafts_own_pages_are_404_for_visitors_and_open_to_its_director(director_client, club):
    slug = club.draft.slug
    urls = [
        reverse("public:tournament", args=[slug]),
        reverse("public:find_table", args=[slug]),
        reverse("public:standings", args=[slug]),
        reverse("public:standings_csv", args=[slug]),
        reverse("public:standings_xlsx", args=[slug]),
        reverse("public:round", args=[slug, 1]),
        reverse("public:round_print", args=[slug, 1]),
    ]
    for url in urls:
        assert Client().get(url).status_code == 404, url
        assert director_client.get(url).status_code == 200, url


def test_once_published_its_players_and_games_appear(
    client, club, director, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        services.update_tournament(
            acting_user=director, tournament=club.draft, status="finished", open_rounds_ok=True
        )
    texts = _public_texts(client, club)
    assert HIDDEN in texts["ranking"] and HIDDEN in texts["calculator search"]
    assert DRAFT in texts["player"] and DRAFT in texts["player.csv"]
    rows = list(csv.reader(io.StringIO(texts["ranking.csv"])))
    assert [(r[1], r[2]) for r in rows[1:]] == [
        ("Gaspar Olvera", repr(GASPAR_PUBLISHED)),
        ("Emilio Roldán", repr(EMILIO_PUBLISHED)),
        ("Fabiola Sarmiento", repr(FABIOLA)),
    ]
    assert client.get(reverse("rankings:player", args=[club.gaspar.pk])).status_code == 200


@pytest.mark.django_db(transaction=True)  # real commits: each draws a new page generation
@pytest.mark.page_cache
def test_with_the_page_cache_on_publishing_shows_at_once(client, club, director):
    url = reverse("rankings:ranking") + "?year=2026"
    assert HIDDEN not in client.get(url).content.decode()
    assert client.get(url, HTTP_IF_NONE_MATCH=client.get(url)["ETag"]).status_code == 304
    services.update_tournament(
        acting_user=director, tournament=club.draft, status="finished", open_rounds_ok=True
    )
    assert HIDDEN in client.get(url).content.decode()
