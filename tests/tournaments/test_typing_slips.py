"""A tally the rules allow but that is almost always a slip (SCORING.md §1: a side past the
target keeps its raw tally): asked once before saving, with and without JavaScript, never
refused (tournaments.scoring.domino.far_above_target, Presentation.slips)."""

import re

import pytest
from django.urls import reverse

from tests.tournaments import test_no_js_forms
from tests.tournaments.test_no_js_forms import HTMX, said, text
from tournaments.models import Result
from tournaments.scoring.domino import MOST_IN_ONE_HAND, far_above_target

pytestmark = pytest.mark.django_db

club = test_no_js_forms.club  # the fixture: a round of two tables, table 1 saved 100–20


def test_far_above_target_is_beyond_what_one_hand_can_bring():
    assert MOST_IN_ONE_HAND == 168
    assert not far_above_target(268, 100)
    assert far_above_target(269, 100)
    assert not far_above_target(368, 200)
    assert far_above_target(9999, 100)
    assert not far_above_target("9999", 100)  # not a number: the result's own check refuses it
    assert not far_above_target(True, 100)


def hidden_fields(body: str) -> dict:
    form = re.search(
        r'<form method="post" action="[^"]*" class="confirm-actions">(.*?)</form>', body, re.S
    )
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form.group(1)))
    fields.pop("csrfmiddlewaretoken")
    return fields


def test_a_tally_far_above_the_target_is_asked_once_then_saved(director_client, club):
    t, (_first, second) = club["t"], club["tables"]
    url = reverse("manage:result_save", args=[t.slug, second.pk])
    asked = director_client.post(
        url, {"tantos_a": "9999", "tantos_b": "50", "version": "0", "action": "save"}
    )
    assert asked.status_code == 200
    body = text(asked)
    assert '<h1 id="confirm-h">9999 tantos con meta 100: ¿seguro?</h1>' in body
    assert "<li>Mesa 2: 9999–50.</li>" in body
    assert '<button type="submit" class="danger">Sí, guardar</button>' in body
    assert f'href="/gestion/torneos/{t.slug}/ronda/1/#mesa-2">Cancelar</a>' in body
    assert not Result.objects.filter(table=second).exists()
    fields = hidden_fields(body)
    assert fields == {
        "tantos_a": "9999",
        "tantos_b": "50",
        "version": "0",
        "action": "save",
        "confirm": "1",
    }

    done = director_client.post(url, fields)
    assert done.status_code == 302
    assert said(done) == ["Mesa 2 guardada."]
    assert Result.objects.get(table=second).tantos_a == 9999


def test_through_htmx_the_question_takes_the_page_and_nothing_is_stored(director_client, club):
    t, (_first, second) = club["t"], club["tables"]
    url = reverse("manage:result_save", args=[t.slug, second.pk])
    asked = director_client.post(
        url, {"tantos_a": "40", "tantos_b": "1500", "version": "0", "action": "save"}, **HTMX
    )
    assert asked.status_code == 200
    assert (asked["HX-Retarget"], asked["HX-Reswap"]) == ("body", "innerHTML")
    assert "1500 tantos con meta 100: ¿seguro?" in text(asked)
    assert not Result.objects.filter(table=second).exists()


def test_an_ordinary_overshoot_is_saved_at_once(director_client, club):
    t, (_first, second) = club["t"], club["tables"]
    done = director_client.post(
        reverse("manage:result_save", args=[t.slug, second.pk]),
        {"tantos_a": "268", "tantos_b": "50", "version": "0", "action": "save"},
    )
    assert done.status_code == 302
    assert Result.objects.get(table=second).tantos_a == 268


def test_a_slip_the_rules_refuse_anyway_is_refused_without_asking(director_client, club):
    t, (_first, second) = club["t"], club["tables"]
    refused = director_client.post(
        reverse("manage:result_save", args=[t.slug, second.pk]),
        {"tantos_a": "9999", "tantos_b": "9999", "version": "0", "action": "save"},
    )
    assert refused.status_code == 400
    assert "¿seguro?" not in text(refused)
    assert not Result.objects.filter(table=second).exists()


def test_cancelling_the_htmx_question_loads_the_round_page_again(director_client, club):
    t, (_first, second) = club["t"], club["tables"]
    asked = director_client.post(
        reverse("manage:result_save", args=[t.slug, second.pk]),
        {"tantos_a": "9999", "tantos_b": "50", "version": "0", "action": "save"},
        **HTMX,
    )
    # the address bar still shows the round page: a fragment-only link would not load it
    assert f'href="/gestion/torneos/{t.slug}/ronda/1/?#mesa-2">Cancelar</a>' in text(asked)
