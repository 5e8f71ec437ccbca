"""The public site on phones: "find my table", the home page, live refresh markers and the cache
validators of a tournament's pages (ETag, 304, Cache-Control; with the page cache on)."""

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from rankings import ledger
from tests import builders
from tournaments import services
from tournaments.models import Castigo, Round, Tournament, pick_current_round
from tournaments.views.public import fold

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
LIVE = re.compile(r"\bdata-live[ >]")


NAMES = [
    "Íñigo Alcázar",
    "Berta Lunares",
    "Ciro Montes",
    "Dalia Peñas",
    "Elio Serrano",
    "Fabia Tordo",
    "Gael Urdiales",
    "Hilda Vidal",
    "Iker Zamora",
    "Julia Ybarra",
]


@pytest.fixture
def running(director):
    """Five pairs; round 1 closed, round 2 open: tables 1 and 2, the fifth pair rests."""
    t, e = builders.field(
        acting_user=director, name="Copa Faro", date=timezone.localdate(), mode="pairs", names=NAMES
    )
    r1 = services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=1,
        tables=[([e[0]], [e[1]]), ([e[2]], [e[3]])],
    )
    for table in r1.tables.all():
        services.record_result(
            acting_user=director, table=table, tantos_a=100, tantos_b=40, version=0
        )
    services.close_round(acting_user=director, round=r1)
    services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=2,
        tables=[([e[0]], [e[2]]), ([e[1]], [e[3]])],
    )
    t.refresh_from_db()
    return t, e


# --- find my table -------------------------------------------------------------------------------


def test_fold_ignores_case_accents_and_extra_spaces():
    assert fold("  ÍÑIGO   Alcázar ") == "inigo alcazar"


def test_find_my_table_shows_table_side_partner_and_opponents_of_the_current_round(client, running):
    t, e = running
    response = client.get(reverse("public:find_table", args=[t.slug]), {"q": "inigo"})
    body = response.content.decode()
    assert response.status_code == 200
    finding = re.search(r'<li class="finding">(.*?)</li>', body, re.S).group(1)
    assert "Íñigo Alcázar" in finding and "Mesa 1" in finding
    assert "<dt>Lado</dt><dd>A</dd>" in finding  # one entry a side: no seat to choose
    assert "<dt>Con</dt><dd>Berta Lunares</dd>" in finding
    assert "<dt>Contra</dt><dd>Elio Serrano & Fabia Tordo</dd>" in finding
    assert "<dt>Resultado</dt><dd>pendiente</dd>" in finding
    assert "Ronda 2" in body


def test_find_my_table_says_descansa_for_a_resting_player(client, running):
    t, _ = running
    body = client.get(reverse("public:find_table", args=[t.slug]), {"q": "ybarra"}).content.decode()
    assert '<li class="finding rests">' in body and "descansa" in body and "Julia Ybarra" in body


def test_find_my_table_every_word_must_match_and_no_match_says_so(client, running):
    t, _ = running
    body = client.get(
        reverse("public:find_table", args=[t.slug]), {"q": "tordo FABIA"}
    ).content.decode()
    assert body.count('<li class="finding">') == 1 and "Mesa 1" in body
    body = client.get(reverse("public:find_table", args=[t.slug]), {"q": "Nadia"}).content.decode()
    assert "Nadie con «Nadia» en la ronda 2" in body


def test_find_my_table_without_a_query_lists_every_table_of_the_current_round(client, running):
    t, _ = running
    body = client.get(reverse("public:find_table", args=[t.slug])).content.decode()
    assert body.count('class="table-card') == 2
    assert "Mesas de la ronda 2" in body and "Descansa" in body and "Julia Ybarra" in body
    # The search works without JavaScript (a real GET form) and as you type with HTMX.
    assert 'method="get" action="/torneos/' in body
    assert 'hx-trigger="input changed delay:250ms, search"' in body


def test_find_my_table_answers_htmx_with_the_results_partial_only(client, running):
    t, _ = running
    response = client.get(reverse("public:find_table", args=[t.slug]), {"q": "Vidal"}, **HTMX)
    body = response.content.decode()
    assert body.lstrip().startswith('<section id="find-results"') and "<html" not in body
    assert "Hilda Vidal" in body and "Mesa 2" in body


def test_find_my_table_in_individual_mode_names_the_partner_at_the_same_side(client, director):
    t, e = builders.field(
        acting_user=director,
        name="Abierto Individual",
        date=timezone.localdate(),
        mode="individual",
        names=NAMES[:4],
    )
    services.set_pairings(
        acting_user=director, tournament=t, round_number=1, tables=[([e[0], e[1]], [e[2], e[3]])]
    )
    body = client.get(reverse("public:find_table", args=[t.slug]), {"q": "berta"}).content.decode()
    # seats 1 & 3 (side A) against 2 & 4 (side B), as the pairings page numbers them
    assert "<dt>Lado</dt><dd>A · asiento 3</dd>" in body
    assert "<dt>Con</dt><dd>Íñigo Alcázar</dd>" in body
    assert "<dt>Contra</dt><dd>Ciro Montes & Dalia Peñas</dd>" in body


def test_find_my_table_before_the_first_round(client, director):
    t, _ = builders.field(
        acting_user=director,
        name="Copa Faro",
        date=timezone.localdate(),
        mode="pairs",
        names=NAMES[:4],
    )
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.REGISTRATION)
    body = client.get(reverse("public:find_table", args=[t.slug]), {"q": "berta"}).content.decode()
    assert "Todavía no hay rondas" in body


def test_find_my_table_is_linked_from_the_tournament_page_and_the_home_page(client, running):
    t, _ = running
    link = f'href="{reverse("public:find_table", args=[t.slug])}"'
    assert link in client.get(reverse("public:tournament", args=[t.slug])).content.decode()
    home = client.get(reverse("public:home")).content.decode()
    assert link in home
    assert (
        f'href="{reverse("public:round", args=[t.slug, 2])}"' in home
    )  # the current round's tables


# --- the current round -----------------------------------------------------------------------------


class R:
    def __init__(self, pk, closed=False):
        self.pk, self.closed = pk, closed


def test_current_round_is_the_first_open_round_still_missing_results():
    r1, r2, r3 = R(1, closed=True), R(2), R(3)
    assert pick_current_round([r1, r2, r3], complete_ids={1}) is r2  # a round robin made in advance
    assert (
        pick_current_round([r1, r2, r3], complete_ids={1, 2}) is r3
    )  # round 2 left open by mistake
    assert pick_current_round([r1, r2, r3], complete_ids={1, 2, 3}) is r3  # waiting to be closed
    assert pick_current_round([r1, R(2, closed=True)], complete_ids=set()).pk == 2
    assert pick_current_round([], complete_ids=set()) is None


def test_current_round_of_a_round_robin_made_in_advance_is_the_one_being_played(director):
    t, e = builders.field(
        acting_user=director,
        name="Copa Faro",
        date=timezone.localdate(),
        mode="pairs",
        names=NAMES[:8],
    )
    services.generate_round_robin(acting_user=director, tournament=t)
    assert t.rounds.count() == 3 and t.current_round().number == 1
    for table in Round.objects.get(tournament=t, number=1).tables.all():
        services.record_result(
            acting_user=director, table=table, tantos_a=100, tantos_b=10, version=0
        )
    assert t.current_round().number == 2


# --- live refresh ----------------------------------------------------------------------------------


def test_open_round_pages_are_marked_live_and_refresh_through_their_partials(client, running):
    t, _ = running
    page = client.get(reverse("public:tournament", args=[t.slug])).content.decode()
    assert len(LIVE.findall(page)) == 2  # the standings and round 2's tables, not closed round 1
    assert (
        f'hx-get="{reverse("public:standings", args=[t.slug])}" hx-trigger="refresh" hx-swap="outerHTML"'
        in page
    )
    assert f'hx-get="{reverse("public:round", args=[t.slug, 2])}" hx-trigger="refresh"' in page
    assert "Actualizado a las" in page
    assert re.search(
        r'<script src="[^"]*htmx-2\.min\.js" defer></script>\s*<script src="[^"]*js/live\.js" defer>',
        page,
    )
    standings = client.get(reverse("public:standings", args=[t.slug])).content.decode()
    assert len(LIVE.findall(standings)) == 2 and "Actualizado a las" in standings
    partial = client.get(reverse("public:round", args=[t.slug, 2]), **HTMX).content.decode()
    assert partial.lstrip().startswith('<div id="ronda-2-mesas"') and LIVE.search(partial)
    partial = client.get(reverse("public:standings", args=[t.slug]), **HTMX).content.decode()
    assert partial.lstrip().startswith('<section id="standings"') and LIVE.search(partial)


def test_between_rounds_the_pages_keep_refreshing_and_a_finished_tournament_stops(
    client, director, running
):
    t, e = running
    rnd = t.rounds.get(number=2)
    for table in rnd.tables.all():
        services.record_result(
            acting_user=director, table=table, tantos_a=100, tantos_b=70, version=0
        )
    services.close_round(acting_user=director, round=rnd)
    standings_url = reverse("public:standings", args=[t.slug])
    find_url = reverse("public:find_table", args=[t.slug])
    body = client.get(standings_url).content.decode()
    # The standings refresh (the next round may be paired any moment); closed round 2's tables do not.
    assert (
        len(LIVE.findall(body)) == 1
        and '<section id="standings"' in body.split("data-live")[0][-300:]
    )
    finding = client.get(find_url, {"q": "ybarra"}).content.decode()
    assert LIVE.search(finding) and "Ronda 2" in finding
    services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=3,
        tables=[([e[4]], [e[0]]), ([e[1]], [e[2]])],
    )
    refreshed = client.get(find_url, {"q": "ybarra"}, **HTMX).content.decode()
    assert "Ronda 3" in refreshed and "Mesa 1" in refreshed  # the live partial shows the new round
    services.update_tournament(  # round 3 is left open: the director said to finish anyway
        acting_user=director, tournament=t, status=Tournament.Status.FINISHED, open_rounds_ok=True
    )
    for url in (reverse("public:tournament", args=[t.slug]), standings_url, find_url):
        body = client.get(url).content.decode()
        assert not LIVE.search(body) and "Actualizado a las" not in body, url


def test_live_js_has_no_inline_code_and_no_eval():
    from pathlib import Path

    from django.conf import settings

    source = Path(settings.BASE_DIR, "static/js/live.js").read_text()
    assert 'htmx.trigger(el, "refresh")' in source and "visibilityState" in source
    assert "15000" in source
    assert "eval(" not in source and "new Function" not in source


# --- cache validators ------------------------------------------------------------------------------


def public_urls(t):
    return [
        reverse("public:tournament", args=[t.slug]),
        reverse("public:standings", args=[t.slug]),
        reverse("public:round", args=[t.slug, 2]),
        reverse("public:find_table", args=[t.slug]),
    ]


@pytest.mark.page_cache
@pytest.mark.django_db(transaction=True)
def test_public_tournament_pages_send_an_etag_and_answer_304_to_a_matching_conditional_get(
    client, running
):
    t, _ = running
    for url in public_urls(t):
        first = client.get(url)
        assert first.status_code == 200
        cache_control = {part.strip() for part in first["Cache-Control"].split(",")}
        assert {"public", "max-age=0", "must-revalidate"} <= cache_control
        assert "HX-Request" in first["Vary"] and "Cookie" in first["Vary"]
        etag = first["ETag"]
        again = client.get(url, HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 304, url
        assert again["ETag"] == etag and not again.content
        assert client.get(url, HTTP_IF_NONE_MATCH='"something-else"').status_code == 200


@pytest.mark.page_cache
@pytest.mark.django_db(transaction=True)
def test_a_saved_result_changes_the_etag(client, director, running):
    t, _ = running
    url = reverse("public:standings", args=[t.slug])
    client.get(url)
    etag = client.get(url)["ETag"]
    table = t.rounds.get(number=2).tables.get(number=1)
    services.record_result(acting_user=director, table=table, tantos_a=100, tantos_b=20, version=0)
    response = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200 and response["ETag"] != etag
    assert client.get(url, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304


@pytest.mark.page_cache
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "change", ["castigo", "close", "sorteo", "settings", "player_name", "delete_result"]
)
def test_every_kind_of_change_changes_the_etag(client, director, running, change):
    t, e = running
    rnd = t.rounds.get(number=2)
    table = rnd.tables.get(number=1)
    services.record_result(acting_user=director, table=table, tantos_a=100, tantos_b=20, version=0)
    if change == "sorteo":  # a sorteo waits for the final order (SCORING.md §9)
        t = builders.finish(t, acting_user=director, open_rounds_ok=True)
    url = reverse("public:tournament", args=[t.slug])
    client.get(url)
    etag = client.get(url)["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    if change == "castigo":
        services.add_castigo(
            acting_user=director,
            tournament=t,
            round=rnd,
            player=e[0].player1,
            tantos=5,
            reason="Hablar durante la mano",
        )
    elif change == "close":
        other = rnd.tables.get(number=2)
        services.record_result(
            acting_user=director, table=other, tantos_a=100, tantos_b=90, version=0
        )
        etag = client.get(url)["ETag"]
        services.close_round(acting_user=director, round=rnd)
    elif change == "sorteo":
        services.record_sorteo(acting_user=director, tournament=t, entries_in_order=[e[1], e[0]])
    elif change == "settings":
        services.update_tournament(acting_user=director, tournament=t, venue="Casino del Puerto")
    elif change == "player_name":
        services.update_player(
            acting_user=director, player=e[0].player1, full_name="Íñigo Alcázar Ruiz"
        )
    elif change == "delete_result":
        services.delete_result(acting_user=director, table=table, version=1)
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 200, change


@pytest.mark.page_cache
@pytest.mark.django_db(transaction=True)
def test_a_change_committed_late_with_an_older_date_still_changes_the_etag(
    client, director, running
):
    """A transaction that began earlier can commit after a later one, with an older history
    date than the newest one: the page still changes (the data generation does not depend on
    dates)."""
    t, e = running
    url = reverse("public:standings", args=[t.slug])
    client.get(url)
    etag = client.get(url)["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    castigo = Castigo(tournament=t, player=e[0].player1, tantos=3, reason="Tarde")
    castigo._history_date = timezone.now() - dt.timedelta(hours=1)
    castigo.save()
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 200


@pytest.mark.page_cache
@pytest.mark.django_db(transaction=True)
def test_the_htmx_partial_and_the_page_have_different_etags(client, running):
    t, _ = running
    url = reverse("public:standings", args=[t.slug])
    client.get(url)
    page, partial = client.get(url), client.get(url, **HTMX)
    assert page["ETag"] != partial["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=partial["ETag"]).status_code == 200


@pytest.mark.page_cache
@pytest.mark.django_db(transaction=True)
def test_logged_in_users_get_private_pages_without_validators(director_client, running):
    t, _ = running
    response = director_client.get(reverse("public:tournament", args=[t.slug]))
    assert response.status_code == 200
    assert "private" in response["Cache-Control"] and not response.has_header("ETag")


@pytest.mark.page_cache
@pytest.mark.django_db(transaction=True)
def test_a_draft_stays_hidden_from_the_public_with_no_etag(client, director):
    t, _ = builders.field(
        acting_user=director,
        name="Borrador Secreto",
        date=timezone.localdate(),
        mode="pairs",
        names=NAMES[:4],
    )
    for url in (
        reverse("public:tournament", args=[t.slug]),
        reverse("public:find_table", args=[t.slug]),
    ):
        response = client.get(url)
        assert response.status_code == 404 and not response.has_header("ETag")


# --- home ------------------------------------------------------------------------------------------


def test_home_shows_running_upcoming_finished_and_the_top_of_this_years_ranking(
    client, director, running
):
    t, _ = running
    upcoming = services.create_tournament(
        acting_user=director,
        name="Copa Invierno",
        date=timezone.localdate() + dt.timedelta(days=20),
    )
    Tournament.objects.filter(pk=upcoming.pk).update(status=Tournament.Status.REGISTRATION)
    done = services.create_tournament(
        acting_user=director, name="Copa Otoño", date=timezone.localdate() - dt.timedelta(days=20)
    )
    Tournament.objects.filter(pk=done.pk).update(status=Tournament.Status.FINISHED)
    ledger.replay_from(None)
    response = client.get(reverse("public:home"))
    body = response.content.decode()
    assert "Copa Faro" in body and "Copa Invierno" in body and "Copa Otoño" in body
    assert f"Ranking {timezone.localdate().year}" in body
    assert len(re.findall(r'href="/ranking/jugador/\d+/"', body)) == 8  # round 1: eight players
    assert '<form method="get" action="/ranking/"' in body and 'name="q"' in body
    assert {"max-age=0", "must-revalidate"} <= {
        p.strip() for p in response["Cache-Control"].split(",")
    }


def test_home_search_box_leads_to_the_ranking_filtered_by_name(client, director, running):
    ledger.replay_from(None)
    body = client.get(reverse("rankings:ranking"), {"q": "berta"}).content.decode()
    assert "Berta Lunares" in body and "Ciro Montes" not in body


def test_the_score_sheet_names_each_sides_partners_with_one_separator(client, director):
    t, e = builders.field(
        acting_user=director,
        name="Copa Hojas",
        date=timezone.localdate(),
        mode="individual",
        names=NAMES[:8],
    )
    services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=1,
        tables=[([e[0], e[1]], [e[2], e[3]]), ([e[4], e[5]], [e[6], e[7]])],
    )
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.RUNNING)
    body = client.get(reverse("public:round_print", args=[t.slug, 1])).content.decode()
    assert "<th>Lado A: Íñigo Alcázar &amp; Berta Lunares</th>" in body
    assert "<th>Lado B: Ciro Montes &amp; Dalia Peñas</th>" in body
