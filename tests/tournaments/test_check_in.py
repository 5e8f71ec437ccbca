"""Check-in on the day (tournament day, part 2): absent entries are never paired nor given a
bye; the director's list marks entries in one tap (with and without JavaScript); a player
checks in with the day's code."""

import html
import re

import pytest
from django.core.cache import cache
from django.urls import reverse

from tests import builders
from tests.helpers import byes, layout, refused
from tournaments import services
from tournaments.models import Bye, Entry, Tournament

pytestmark = pytest.mark.django_db


def mark(director, *entries, present=True):
    for e in entries:
        services.set_present(acting_user=director, entry=e, present=present)


def proposed(pairing) -> set[int]:
    return {x for table in pairing.tables for x in table} | ({pairing.bye} - {None})


# --- pairing ---------------------------------------------------------------------------------


def test_without_check_in_every_entry_is_paired(director):
    t, e = builders.running_tournament(acting_user=director, system="swiss", mode="single", n=6)
    assert not t.checking_in()
    pairing, _ = t.propose_pairings(1, seed=3)
    assert proposed(pairing) == {x.pk for x in e}


def test_swiss_and_dominó_proposals_pair_the_present_only(director):
    for system in ("swiss", "domino"):
        t, e = builders.running_tournament(
            acting_user=director,
            system=system,
            mode="single" if system == "swiss" else "pairs",
            n=6,
        )
        mark(director, *e[:4])  # 4 and 5 have not arrived
        assert t.checking_in()
        pairing, _ = t.propose_pairings(1, seed=3)
        assert proposed(pairing) == {x.pk for x in e[:4]}, system
        assert pairing.bye is None


def test_seating_proposals_seat_the_present_only(director):
    for system, mode in (("table", "single"), ("domino", "individual")):
        t, e = builders.running_tournament(acting_user=director, system=system, mode=mode, n=9)
        mark(director, *e[:8])
        seating, _ = t.propose_seating(1, seed=5)
        seated = {x for table in seating.tables for x in table} | set(seating.byes)
        assert seated == {x.pk for x in e[:8]}, system
        assert e[8].pk not in seated


def test_an_absent_entry_left_unseated_gets_no_bye(director):
    t, e = builders.running_tournament(acting_user=director, system="swiss", mode="single", n=6)
    mark(director, *e[:5])  # 5 absent
    # 4 present and unseated: a bye; 5: nothing
    builders.pair(t, 1, [(0, 1), (2, 3)], entries=e, acting_user=director)
    assert byes(t, 1, e) == [4]
    assert not Bye.objects.filter(entry=e[5]).exists()


def test_the_director_may_still_seat_an_absent_entry_by_hand(director):
    t, e = builders.running_tournament(acting_user=director, system="swiss", mode="single", n=4)
    mark(director, *e[:3])
    # 3 is absent but the director seats it
    builders.pair(t, 1, [(0, 1), (2, 3)], entries=e, acting_user=director)
    assert layout(t, 1, e) == {1: ((0,), (1,)), 2: ((2,), (3,))}
    assert byes(t, 1, e) == []


def test_round_robin_is_among_the_present_entries(director):
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="pairs", n=6)
    mark(director, *e[:3])  # 3, 4 and 5 absent: a round robin of three, one rests each round
    rounds = services.generate_round_robin(acting_user=director, tournament=t, anyway=True)
    assert [r.number for r in rounds] == [1, 2, 3]
    met = set()
    for number in (1, 2, 3):
        tables = layout(t, number, e)
        assert len(tables) == 1
        ((a,), (b,)) = tables[1]
        met.add(frozenset((a, b)))
        assert byes(t, number, e) == sorted({0, 1, 2} - {a, b})
    assert met == {frozenset(p) for p in ((0, 1), (0, 2), (1, 2))}
    assert not Bye.objects.filter(entry__in=e[3:]).exists()


def test_a_scheduled_game_of_an_entry_absent_later_is_left_out(director):
    t, e = builders.running_tournament(acting_user=director, system="domino", mode="pairs", n=4)
    services.generate_round_robin(acting_user=director, tournament=t, next_only=True, anyway=True)
    mark(director, *e[:3])  # check-in starts after round 1; 3 is not here
    services.generate_round_robin(acting_user=director, tournament=t, next_only=True, anyway=True)
    seated = {i for sides in layout(t, 2, e).values() for side in sides for i in side}
    assert 3 not in seated and len(seated) == 2
    assert byes(t, 2, e) == sorted({0, 1, 2} - seated)


def test_check_in_refuses_a_finished_tournament(director):
    t, e = builders.running_tournament(acting_user=director, system="swiss", mode="single", n=2)
    Tournament.objects.filter(pk=t.pk).update(status="finished")
    assert (
        refused(lambda: services.set_present(acting_user=director, entry=e[0], present=True))
        == "check_in_finished"
    )
    assert not Entry.objects.get(pk=e[0].pk).present


# --- the director's list -----------------------------------------------------------------------


def text(response) -> str:
    return html.unescape(response.content.decode())


def test_the_directors_list_marks_in_one_tap_without_javascript(director_client, director):
    t, e = builders.running_tournament(acting_user=director, system="swiss", mode="single", n=4)
    url = reverse("manage:check_in", args=[t.slug])
    page = text(director_client.get(url))
    assert "<strong>0 presentes · faltan 4</strong>" in page
    assert page.count('value="present"') == 4
    done = director_client.post(url, {"action": "present", "entry": e[2].pk})
    assert (done.status_code, done["Location"]) == (302, f"{url}#entrada-{e[2].pk}")
    assert Entry.objects.get(pk=e[2].pk).present
    page = text(director_client.get(url))
    assert "<strong>1 presente · faltan 3</strong>" in page
    assert f"{e[2].name}: presente." in page
    director_client.post(url, {"action": "absent", "entry": e[2].pk})
    assert not Entry.objects.get(pk=e[2].pk).present


def test_the_directors_list_through_htmx_answers_the_list_with_its_counts(
    director_client, director
):
    t, e = builders.running_tournament(acting_user=director, system="swiss", mode="single", n=4)
    url = reverse("manage:check_in", args=[t.slug])
    mark(director, e[0], e[1], e[3])
    answer = director_client.post(
        url, {"action": "present", "entry": e[2].pk}, HTTP_HX_REQUEST="true"
    )
    body = text(answer)
    assert body.lstrip().startswith('<section id="roll"')
    assert "<strong>4 presentes · faltan 0</strong>" in body
    assert body.count('aria-pressed="true"') == 4


def test_the_directors_list_searches_as_you_type(director_client, director):
    t, e = builders.running_tournament(acting_user=director, system="swiss", mode="single", n=4)
    url = reverse("manage:check_in", args=[t.slug])
    wanted = e[1].name
    found = text(director_client.get(url, {"q": wanted.upper()}, HTTP_HX_REQUEST="true"))
    assert re.findall(r'<span class="roll-name">([^<]*)</span>', found) == [wanted]
    assert "<strong>0 presentes · faltan 4</strong>" in found  # counts over everyone


def test_a_withdrawn_entry_is_not_on_the_list(director_client, director):
    t, e = builders.running_tournament(acting_user=director, system="swiss", mode="single", n=3)
    services.drop_entry(acting_user=director, entry=e[0])
    page = text(director_client.get(reverse("manage:check_in", args=[t.slug])))
    assert e[0].name not in page
    assert "<strong>0 presentes · faltan 2</strong>" in page


# --- the players' own check-in ----------------------------------------------------------------


@pytest.fixture
def with_code(director):
    t, e = builders.running_tournament(acting_user=director, system="swiss", mode="single", n=3)
    t = services.new_check_in_code(acting_user=director, tournament=t)
    assert re.fullmatch(r"[2-9A-HJKMNP-Z]{4}", t.check_in_code)
    cache.clear()
    return t, e


def test_a_player_checks_in_with_the_days_code(client, with_code):
    t, e = with_code
    url = reverse("public:check_in", args=[t.slug])
    code = t.check_in_code.lower()[:2] + " " + t.check_in_code.lower()[2:]
    answer = client.post(url, {"name": e[1].name.upper(), "code": code})
    assert answer.status_code == 200
    assert f"Listo: {e[1].name}, estás presente." in text(answer)
    assert Entry.objects.get(pk=e[1].pk).present
    assert answer["Cache-Control"].startswith("max-age=0")


def test_a_wrong_code_comes_back_beside_its_field_with_the_name_kept(client, with_code):
    t, e = with_code
    answer = client.post(
        reverse("public:check_in", args=[t.slug]), {"name": e[0].name, "code": "XXXX"}
    )
    assert answer.status_code == 400
    body = text(answer)
    assert re.search(r'<input id="id_name" name="name" value="([^"]*)"', body).group(1) == e[0].name
    error = re.search(r'id="id_code_error"><p class="error" role="alert">([^<]*)<', body)
    assert error.group(1) == (
        "Ese no es el código del día: búscalo en el local (lo tiene el director)."
    )
    assert 'aria-describedby="id_code_error" autofocus' in body
    assert not Entry.objects.get(pk=e[0].pk).present


def test_an_unknown_name_is_said_beside_the_name(client, with_code):
    t, _e = with_code
    answer = client.post(
        reverse("public:check_in", args=[t.slug]), {"name": "Nadie Así", "code": t.check_in_code}
    )
    assert answer.status_code == 400
    assert "Ningún jugador del torneo se llama «Nadie Así»." in text(answer)


def test_wrong_codes_stop_the_address_for_a_while_right_ones_do_not(client, with_code):
    from clubsite.limits import LIMITS

    t, e = with_code
    url = reverse("public:check_in", args=[t.slug])
    # a right code gives its try back: the players at one connection do not use it up
    for _ in range(LIMITS["check-in"].count + 5):
        assert client.post(url, {"name": e[1].name, "code": t.check_in_code}).status_code == 200
    for _ in range(LIMITS["check-in"].count):
        assert client.post(url, {"name": e[0].name, "code": "ZZZZ"}).status_code == 400
    blocked = client.post(url, {"name": e[0].name, "code": t.check_in_code})
    assert blocked.status_code == 429
    assert "Demasiados intentos seguidos" in text(blocked)
    assert not Entry.objects.get(pk=e[0].pk).present


def test_without_self_check_in_the_page_says_to_tell_the_director(client, director):
    t, e = builders.running_tournament(acting_user=director, system="swiss", mode="single", n=2)
    page = text(client.get(reverse("public:check_in", args=[t.slug])))
    assert "el director pasa lista en el local" in page
    refused_post = client.post(
        reverse("public:check_in", args=[t.slug]), {"name": e[0].name, "code": "ABCD"}
    )
    assert refused_post.status_code == 400
    assert not Entry.objects.get(pk=e[0].pk).present


def test_find_my_table_offers_im_here_while_self_check_in_is_on(client, with_code, director):
    t, _e = with_code
    link = f'href="/torneos/{t.slug}/presente/">Estoy aquí</a>'
    assert link in text(client.get(reverse("public:find_table", args=[t.slug])))
    services.stop_self_check_in(acting_user=director, tournament=t)
    assert link not in text(client.get(reverse("public:find_table", args=[t.slug])))


@pytest.mark.parametrize("typed", ["EYGÑ", "ＥＹＧ６", "çódigo", "💡💡💡💡"])
def test_a_code_with_any_character_is_refused_in_words(client, with_code, typed):
    t, e = with_code
    answer = client.post(
        reverse("public:check_in", args=[t.slug]), {"name": e[0].name, "code": typed}
    )
    assert answer.status_code == 400
    assert "Ese no es el código del día" in text(answer)


def test_the_full_width_form_of_the_code_is_the_code(client, with_code):
    t, e = with_code
    wide = "".join(chr(ord(ch) + 0xFEE0) for ch in t.check_in_code)  # Ａ… and ２…
    answer = client.post(
        reverse("public:check_in", args=[t.slug]), {"name": e[0].name, "code": wide}
    )
    assert answer.status_code == 200
    assert Entry.objects.get(pk=e[0].pk).present


@pytest.mark.parametrize("entry", ["abc", "", "-1", "99999999999999999999"])
def test_a_forged_entry_on_the_directors_list_is_404(director_client, director, entry):
    t, _e = builders.running_tournament(acting_user=director, system="swiss", mode="single", n=2)
    answer = director_client.post(
        reverse("manage:check_in", args=[t.slug]), {"action": "present", "entry": entry}
    )
    assert answer.status_code == 404
