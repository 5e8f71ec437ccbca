"""Repeated posts never create twice (tournaments/views/manage/access.py ``one_submission``; the
admin's ``SubmittedOnceAdmin``).

Every create form carries a one-time ``form_token``: the first copy of a post claims it in the
shared cache, a second copy (a double tap, a resend, the same page posted twice at once)
creates nothing and answers as the first did, with "Ya se había guardado"; a refused copy, or
one that failed with an exception, releases it so the corrected form can be sent.

The sequential tests run on SQLite and PostgreSQL; the races (two copies at the same moment,
threads with their own connections, as in tests/test_concurrency.py) on PostgreSQL only.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import Group, User
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

from tests import builders
from tournaments import services
from tournaments.forms import TournamentForm
from tournaments.models import Castigo, Entry, Player, Round, Sorteo, Table, Tournament
from tournaments.views.manage import access

REPEATED = "Ya se había guardado: el formulario llegó dos veces y se guardó una sola vez."
OTHER_DATA = (
    "Ese formulario ya se había enviado y no se ha vuelto a guardar. Si quieres añadir otro, "
    "rellena el formulario de nuevo."
)
STILL_SAVING = "Ese formulario todavía se está guardando: comprueba en unos segundos que aparece."
HTMX = {"HTTP_HX_REQUEST": "true"}
TOKEN = re.compile(r'name="form_token" value="([0-9a-f]{32})"')


# --- helpers -----------------------------------------------------------------------------------


def token_in(body: str, action: str | None = None) -> str:
    """The form_token of the form posting to ``action`` (the first form's without one)."""
    if action is not None:
        body = body[body.index(f'action="{action}"') :]
    return TOKEN.search(body).group(1)


def page_token(client, url: str, action: str | None = None) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return token_in(response.content.decode(), action)


def said(response) -> list[str]:
    """The messages this request added (not those still unread from the request before)."""
    return [str(m) for m in get_messages(response.wsgi_request)._queued_messages]


class _AdminFormValues(HTMLParser):
    """What a browser posts for the admin's add / change form (``id="..._form"``)."""

    def __init__(self):
        super().__init__()
        self.values: dict[str, str] = {}
        self._select = None
        self._in_form = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("id") or "").endswith("_form"):
            self._in_form = True
        name = a.get("name")
        if not self._in_form or not name or "__prefix__" in name:
            if tag == "option" and self._select and "selected" in a:
                self.values[self._select] = a.get("value", "")
            return
        if tag == "input" and a.get("type", "text") not in ("submit", "button", "file"):
            if a.get("type") in ("checkbox", "radio"):
                if "checked" in a:
                    self.values[name] = a.get("value", "on")
            else:
                self.values[name] = a.get("value", "")
        elif tag == "select":
            self._select = name
            self.values.setdefault(name, "")

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "form":
            self._in_form = False


def admin_form(client, url) -> dict:
    response = client.get(url)
    assert response.status_code == 200
    parser = _AdminFormValues()
    parser.feed(response.content.decode())
    return parser.values


def make_club(user, name="Copa Repetida", *, rounds=True):
    """A pairs dominó tournament to 100: four entries (players "<name> A. Zubiri" ...), round 1
    paired (A–B, C–D) when ``rounds``, and two players not entered ("Leonor Arriaga",
    "Basilio Arriaga")."""
    t = builders.tournament(
        acting_user=user,
        name=name,
        date=dt.date(2026, 5, 9),
        system="domino",
        mode="pairs",
        target=100,
        rounds_planned=3,
        status="running",
    )
    players = builders.players(
        [f"{name} {chr(65 + i)}. Zubiri" for i in range(8)], acting_user=user
    )
    entries = builders.entries(t, players, acting_user=user)
    rnd = None
    if rounds:
        rnd = builders.pair(
            t, 1, [(entries[0], entries[1]), (entries[2], entries[3])], acting_user=user
        )
    spare = builders.players(
        [f"{first} Arriaga {name}" for first in ("Leonor", "Basilio")], acting_user=user
    )
    return {"t": t, "players": players, "entries": entries, "round": rnd, "spare": spare}


def make_tied_club(user, name="Copa Sorteada"):
    """``make_club`` with round 1 played (A beat B, C beat D, both 100–50) and closed, and the
    tournament finished: A and C share the 1st place, B and D the 3rd, and the order is final,
    so the tournament's page offers a sorteo for each pair (SCORING.md §9)."""
    club = make_club(user, name)
    builders.record_round(club["t"], 1, acting_user=user, tantos_a=100, tantos_b=50)
    builders.close(club["round"], acting_user=user)
    club["t"] = builders.finish(club["t"], acting_user=user)
    return club


@pytest.fixture
def club(db, director):
    return make_club(director)


@pytest.fixture
def logged(client, director):
    client.force_login(director)
    return client


# --- every create form carries a token ---------------------------------------------------------


def test_every_create_form_of_the_directors_pages_carries_its_own_token(logged, club, director):
    t = club["t"]
    tournament_page = logged.get(reverse("manage:tournament", args=[t.slug])).content.decode()
    tied = make_tied_club(director)["t"]  # a sorteo is offered once the order is final
    tied_page = logged.get(reverse("manage:tournament", args=[tied.slug])).content.decode()
    tokens = [
        token_in(tournament_page, reverse("manage:entry_add", args=[t.slug])),
        token_in(tournament_page, reverse("manage:import", args=[t.slug])),
        token_in(tied_page, reverse("manage:sorteo", args=[tied.slug])),
        page_token(
            logged,
            reverse("manage:round", args=[t.slug, 1]),
            reverse("manage:castigo_add", args=[t.slug, 1]),
        ),
        page_token(logged, reverse("manage:player_add")),
        page_token(logged, reverse("manage:tournament_add")),
        page_token(logged, reverse("manage:pairings", args=[t.slug, 2]) + "?igualmente=1"),
    ]
    assert len(set(tokens)) == len(tokens)  # one per form, each page a new one
    # A tournament without rounds offers the todos-con-todos buttons, each with its token (and
    # no sorteo: nothing is tied before the first result).
    bare = make_club(director, "Copa Sin Rondas", rounds=False)["t"]
    page = logged.get(reverse("manage:tournament", args=[bare.slug])).content.decode()
    action = f'action="{reverse("manage:round_robin", args=[bare.slug])}"'
    assert page.count(action) == 2
    assert reverse("manage:sorteo", args=[bare.slug]) not in page
    assert page.count(f'action="{reverse("manage:tournament_step", args=[bare.slug])}"') == 2
    assert len(set(TOKEN.findall(page))) == len(TOKEN.findall(page)) == 6  # + the two steps
    # Edit forms carry none: saving the same values twice changes nothing.
    edit = logged.get(reverse("manage:player_edit", args=[club["spare"][0].pk])).content.decode()
    assert 'name="form_token"' not in edit
    settings_page = logged.get(reverse("manage:tournament_edit", args=[t.slug])).content
    assert b'name="form_token"' not in settings_page


# --- the same post twice: one row, and a friendly second answer --------------------------------


def test_player_form_sent_twice_registers_one_player(logged, club):
    token = page_token(logged, reverse("manage:player_add"))
    data = {"full_name": "Leocadia Urrutia", "active": "on", "form_token": token}

    first = logged.post(reverse("manage:player_add"), data)
    second = logged.post(reverse("manage:player_add"), data)

    assert Player.objects.filter(full_name="Leocadia Urrutia").count() == 1
    assert (first.status_code, first["Location"]) == (302, reverse("manage:players"))
    assert (second.status_code, second["Location"]) == (302, reverse("manage:players"))
    assert said(first) == ["Jugador «Leocadia Urrutia» registrado."]
    assert said(second) == [REPEATED]


def test_entry_form_sent_twice_registers_one_entry(logged, club):
    t, (leonor, basilio) = club["t"], club["spare"]
    url = reverse("manage:entry_add", args=[t.slug])
    token = page_token(logged, reverse("manage:tournament", args=[t.slug]), url)
    data = {"player1": leonor.pk, "player2": basilio.pk, "form_token": token}

    first = logged.post(url, data)
    second = logged.post(url, data)  # the form would now refuse them: already entered

    assert Entry.objects.filter(tournament=t, player1=leonor, player2=basilio).count() == 1
    assert Entry.objects.filter(tournament=t).count() == 5
    page = reverse("manage:tournament", args=[t.slug])
    assert (first.status_code, first["Location"]) == (302, page)
    assert (second.status_code, second["Location"]) == (302, page)
    assert said(second) == [REPEATED]


def test_castigo_form_sent_twice_without_javascript_charges_once(logged, club):
    t, player = club["t"], club["players"][2]
    url = reverse("manage:castigo_add", args=[t.slug, 1])
    token = page_token(logged, reverse("manage:round", args=[t.slug, 1]), url)
    data = {"player": player.pk, "tantos": "15", "reason": "Fichas a la vista", "form_token": token}

    first = logged.post(url, data)
    second = logged.post(url, data)

    assert list(Castigo.objects.values_list("player_id", "tantos")) == [(player.pk, 15)]
    round_page = reverse("manage:round", args=[t.slug, 1])
    assert (first.status_code, first["Location"]) == (302, round_page)
    assert (second.status_code, second["Location"]) == (302, round_page)
    assert said(first) == ["Castigo registrado."]
    assert said(second) == [REPEATED]


def test_castigo_form_sent_twice_through_htmx_charges_once(logged, club):
    t, player = club["t"], club["players"][2]
    url = reverse("manage:castigo_add", args=[t.slug, 1])
    token = page_token(logged, reverse("manage:round", args=[t.slug, 1]), url)
    data = {"player": player.pk, "tantos": "15", "reason": "Fichas a la vista", "form_token": token}

    first = logged.post(url, data, **HTMX)
    second = logged.post(url, data, **HTMX)

    assert Castigo.objects.count() == 1
    assert first.status_code == second.status_code == 200
    body = second.content.decode()
    assert f'<p class="msg info" role="status">{REPEATED}</p>' in body
    assert body.count("Fichas a la vista") == 1  # the panel lists the one castigo
    assert REPEATED not in first.content.decode()
    # each answer's fresh form has a new token: the next castigo is a new submission
    assert token not in body and token_in(body) != token_in(first.content.decode())


def test_sorteo_sent_twice_is_recorded_once(logged, director):
    tied = make_tied_club(director)
    t, entries = tied["t"], tied["entries"]
    url = reverse("manage:sorteo", args=[t.slug])
    token = page_token(logged, reverse("manage:tournament", args=[t.slug]), url)
    data = {"entry": [entries[3].pk, entries[1].pk], "form_token": token}

    first = logged.post(url, data)
    lots = list(Sorteo.objects.order_by("lot").values_list("pk", "entry_id", "lot"))
    second = logged.post(url, data)

    assert lots == list(Sorteo.objects.order_by("lot").values_list("pk", "entry_id", "lot"))
    assert [(e, lot) for _pk, e, lot in lots] == [(entries[3].pk, 1), (entries[1].pk, 2)]
    assert Sorteo.history.count() == 2  # two rows saved once; nothing deleted and saved again
    assert first["Location"] == second["Location"] == reverse("manage:tournament", args=[t.slug])
    assert said(first) == ["Sorteo registrado."]
    assert said(second) == [REPEATED]


def test_castigos_file_sent_twice_is_imported_once(logged, club):
    from django.core.files.uploadedfile import SimpleUploadedFile

    t = club["t"]
    url = reverse("manage:import", args=[t.slug])
    token = page_token(logged, reverse("manage:tournament", args=[t.slug]), url)
    text = (
        "round,player,tantos,reason\n"
        f"1,{club['players'][0].full_name},20,Habló durante la mano\n"
        f",{club['players'][5].full_name},5,Llegó tarde\n"
    ).encode()

    def post():
        upload = SimpleUploadedFile("castigos.csv", text, content_type="text/csv")
        return logged.post(url, {"kind": "castigos", "file": upload, "form_token": token})

    first, second = post(), post()

    assert sorted(Castigo.objects.values_list("tantos", flat=True)) == [5, 20]
    assert Castigo.history.count() == 2
    assert first["Location"] == second["Location"] == reverse("manage:tournament", args=[t.slug])
    assert said(first) == ["Castigos importados: 2."]
    assert said(second) == [REPEATED]


def test_next_round_robin_round_sent_twice_creates_one_round(logged, director):
    t = make_club(director, "Copa Liguilla", rounds=False)["t"]
    url = reverse("manage:round_robin", args=[t.slug])
    page = logged.get(reverse("manage:tournament", args=[t.slug])).content.decode()
    next_form = next(f for f in page.split("<form") if 'name="next" value="1"' in f)
    token = TOKEN.search(next_form).group(1)
    data = {"next": "1", "form_token": token}

    first = logged.post(url, data)
    second = logged.post(url, data)

    assert list(Round.objects.filter(tournament=t).values_list("number", flat=True)) == [1]
    round_one = reverse("manage:round", args=[t.slug, 1])
    assert first["Location"] == second["Location"] == round_one
    assert said(first) == ["Rondas creadas: 1."]
    assert said(second) == [REPEATED]


def test_pairings_sent_twice_write_the_round_once(logged, club):
    t, e = club["t"], club["entries"]
    url = reverse("manage:pairings", args=[t.slug, 2])
    token = page_token(logged, url + "?igualmente=1")  # round 1 has no result yet
    data = {
        "anyway": "1",
        "t0_a1": e[0].pk,
        "t0_b1": e[2].pk,
        "t1_a1": e[1].pk,
        "t1_b1": e[3].pk,
        "seed": "",
        "form_token": token,
    }

    first = logged.post(url, data)
    tables = list(Table.objects.filter(round__number=2).order_by("number").values_list("pk"))
    second = logged.post(url, data)

    assert len(tables) == 2
    assert list(Table.objects.filter(round__number=2).order_by("number").values_list("pk")) == (
        tables
    )
    assert Table.history.filter(round__number=2).count() == 2  # written once, not replaced
    round_two = reverse("manage:round", args=[t.slug, 2])
    assert first["Location"] == second["Location"] == round_two
    assert said(second) == [REPEATED]


def _new_tournament_data(name: str) -> dict:
    form = TournamentForm(initial={"status": "registration"})
    data = {n: form[n].value() for n in form.fields}
    data = {k: v for k, v in data.items() if v is not None and v is not False}
    data.update(name=name, date="2026-06-13", target="100")
    return data


def test_new_tournament_form_sent_twice_creates_one_and_shows_it(logged, director):
    token = page_token(logged, reverse("manage:tournament_add"))
    data = _new_tournament_data("Copa Doble Toque") | {"form_token": token}

    first = logged.post(reverse("manage:tournament_add"), data)
    second = logged.post(reverse("manage:tournament_add"), data)

    t = Tournament.objects.get(name="Copa Doble Toque")
    assert first["Location"] == second["Location"] == reverse("manage:tournament", args=[t.slug])
    assert said(second) == [REPEATED]


# --- refused, then corrected with the same token: one row --------------------------------------


def test_a_refused_player_form_corrected_with_the_same_token_registers_once(logged, club):
    services.create_player(acting_user=None, full_name="Eulalia Paredes", member_number="S-7")
    token = page_token(logged, reverse("manage:player_add"))
    data = {"full_name": "Ismael Paredes", "member_number": "s-7", "form_token": token}

    refused = logged.post(reverse("manage:player_add"), data)  # the service refuses the number

    assert refused.status_code == 400
    assert token_in(refused.content.decode()) == token  # the form shown again keeps it
    assert not Player.objects.filter(full_name="Ismael Paredes").exists()
    data["member_number"] = "S-8"
    corrected = logged.post(reverse("manage:player_add"), data)
    again = logged.post(reverse("manage:player_add"), data)
    assert corrected.status_code == 302 and said(corrected) == [
        "Jugador «Ismael Paredes» registrado."
    ]
    assert said(again) == [REPEATED]
    assert list(Player.objects.filter(full_name="Ismael Paredes").values_list("member_number")) == [
        ("S-8",)
    ]


def test_the_duplicate_name_question_keeps_the_token_and_the_confirmation_saves_once(logged, club):
    token = page_token(logged, reverse("manage:player_add"))
    data = {"full_name": club["spare"][0].full_name.upper(), "form_token": token}

    asked = logged.post(reverse("manage:player_add"), data)

    assert asked.status_code == 200 and "¿Duplicado?" in asked.content.decode()
    assert token_in(asked.content.decode()) == token
    data["confirm_duplicate"] = "on"
    first = logged.post(reverse("manage:player_add"), data)
    second = logged.post(reverse("manage:player_add"), data)
    assert Player.objects.filter(full_name=data["full_name"]).count() == 1
    assert said(first) == [f"Jugador «{data['full_name']}» registrado."]
    assert said(second) == [REPEATED]


def test_a_refused_castigo_corrected_with_the_same_token_charges_once(logged, club):
    t, player = club["t"], club["players"][4]
    url = reverse("manage:castigo_add", args=[t.slug, 1])
    token = page_token(logged, reverse("manage:round", args=[t.slug, 1]), url)
    data = {"player": player.pk, "tantos": "0", "reason": "Renuncio", "form_token": token}

    refused = logged.post(url, data, **HTMX)

    assert refused.status_code == 400 and token_in(refused.content.decode()) == token
    assert not Castigo.objects.exists()
    data["tantos"] = "30"
    corrected = logged.post(url, data, **HTMX)
    again = logged.post(url, data, **HTMX)
    assert corrected.status_code == 200 and REPEATED not in corrected.content.decode()
    assert REPEATED in again.content.decode()
    assert list(Castigo.objects.values_list("tantos", flat=True)) == [30]


# --- failures, other data, a copy still saving, no token ---------------------------------------


def test_a_post_that_fails_with_an_exception_releases_its_token(logged, club, monkeypatch):
    token = page_token(logged, reverse("manage:player_add"))
    data = {"full_name": "Nicasio Bermejo", "form_token": token}
    real = services.create_player

    def broken(**kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(services, "create_player", broken)
    with pytest.raises(RuntimeError):
        logged.post(reverse("manage:player_add"), data)
    monkeypatch.setattr(services, "create_player", real)

    retried = logged.post(reverse("manage:player_add"), data)

    assert said(retried) == ["Jugador «Nicasio Bermejo» registrado."]
    assert Player.objects.filter(full_name="Nicasio Bermejo").count() == 1


def test_a_failure_after_the_save_keeps_the_token_used(logged, club, monkeypatch):
    """The player is stored, then the answer fails (its message here): the token stays used, so
    sending the form again does not register the player a second time."""
    from tournaments.views.manage import players

    token = page_token(logged, reverse("manage:player_add"))
    data = {"full_name": "Rosendo Tapia", "form_token": token}

    def broken(request, message):
        raise RuntimeError("the answer could not be written")

    monkeypatch.setattr(players.messages, "success", broken)
    with pytest.raises(RuntimeError):
        logged.post(reverse("manage:player_add"), data)
    monkeypatch.undo()

    again = logged.post(reverse("manage:player_add"), data)

    assert said(again) == [REPEATED]
    assert Player.objects.filter(full_name="Rosendo Tapia").count() == 1


def test_a_used_token_sent_with_other_data_saves_nothing_and_says_so(logged, club):
    token = page_token(logged, reverse("manage:player_add"))
    logged.post(reverse("manage:player_add"), {"full_name": "Olegario Vidal", "form_token": token})

    # the browser's back button: the old form, typed again with another player
    other = logged.post(
        reverse("manage:player_add"), {"full_name": "Perpetua Vidal", "form_token": token}
    )

    assert (other.status_code, other["Location"]) == (302, reverse("manage:players"))
    assert said(other) == [OTHER_DATA]
    assert not Player.objects.filter(full_name="Perpetua Vidal").exists()
    assert Player.objects.filter(full_name="Olegario Vidal").count() == 1


@pytest.fixture
def local_cache(settings):
    """A cache every thread of this process shares at once (the database cache would keep a
    claim made in the test's transaction from another thread's connection)."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    cache.clear()
    yield
    cache.clear()


def _claim_as_another_copy(token: str, data: dict) -> str:
    """Claim ``token`` as a first copy still running would (same data): returns the cache key."""
    key = f"clubsite:form:{token}"
    fingerprint = access._fingerprint(_FakePost(data))
    assert cache.add(key, {"fp": fingerprint}, 60)
    return key


class _FakePost:
    def __init__(self, data):
        from django.http import QueryDict
        from django.utils.datastructures import MultiValueDict

        self.POST = QueryDict(mutable=True)
        for k, v in data.items():
            self.POST[k] = v
        self.FILES = MultiValueDict()


def _later(seconds, action):
    thread = threading.Timer(seconds, action)
    thread.start()
    return thread


def test_a_copy_waits_for_the_first_and_answers_with_its_outcome(logged, club, local_cache):
    token = page_token(logged, reverse("manage:player_add"))
    data = {"full_name": "Saturnino Lobo", "form_token": token}
    key = _claim_as_another_copy(token, data)
    fingerprint = cache.get(key)["fp"]
    created_at = reverse("manage:player_edit", args=[club["spare"][1].pk])
    timer = _later(0.3, lambda: cache.set(key, {"fp": fingerprint, "url": created_at}, 60))

    started = time.monotonic()
    second = logged.post(reverse("manage:player_add"), data)
    timer.join()

    assert time.monotonic() - started >= 0.3  # it waited for the first copy's outcome
    assert (second.status_code, second["Location"]) == (302, created_at)
    assert said(second) == [REPEATED]
    assert not Player.objects.filter(full_name="Saturnino Lobo").exists()


def test_a_copy_whose_first_was_refused_meanwhile_saves_itself(logged, club, local_cache):
    token = page_token(logged, reverse("manage:player_add"))
    data = {"full_name": "Wenceslao Lobo", "form_token": token}
    key = _claim_as_another_copy(token, data)
    timer = _later(0.3, lambda: cache.delete(key))  # the first copy was refused: released

    second = logged.post(reverse("manage:player_add"), data)
    timer.join()

    assert said(second) == ["Jugador «Wenceslao Lobo» registrado."]
    assert Player.objects.filter(full_name="Wenceslao Lobo").count() == 1


def test_a_copy_still_unanswered_after_the_wait_saves_nothing(
    logged, club, local_cache, monkeypatch
):
    monkeypatch.setattr(access, "FORM_TOKEN_WAIT_SECONDS", 0.3)
    token = page_token(logged, reverse("manage:player_add"))
    data = {"full_name": "Zoilo Lobo", "form_token": token}
    _claim_as_another_copy(token, data)

    second = logged.post(reverse("manage:player_add"), data)

    assert (second.status_code, second["Location"]) == (302, reverse("manage:players"))
    assert said(second) == [STILL_SAVING]
    assert not Player.objects.filter(full_name="Zoilo Lobo").exists()


def test_a_post_without_a_token_is_always_a_first_copy(logged, club):
    """Scripts and older pages post no token: nothing to recognise a copy by (the player form
    then asks about the duplicate name, as before)."""
    first = logged.post(reverse("manage:player_add"), {"full_name": "Ulpiano Roca"})
    second = logged.post(reverse("manage:player_add"), {"full_name": "Ulpiano Roca"})

    assert said(first) == ["Jugador «Ulpiano Roca» registrado."]
    assert second.status_code == 200 and "¿Duplicado?" in second.content.decode()


# --- the Django admin's forms ------------------------------------------------------------------


def _admin_url(model, action, *args):
    opts = model._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_{action}", args=args)


def test_admin_add_form_sent_twice_adds_one_player_and_shows_it(admin_client, db):
    url = _admin_url(Player, "add")
    data = admin_form(admin_client, url) | {"full_name": "Gumersinda Prieto", "active": "on"}
    assert re.fullmatch(r"[0-9a-f]{32}", data["form_token"])

    first = admin_client.post(url, data)
    second = admin_client.post(url, data)

    player = Player.objects.get(full_name="Gumersinda Prieto")
    assert first.status_code == 302 and first["Location"] == _admin_url(Player, "changelist")
    assert (second.status_code, second["Location"]) == (
        302,
        _admin_url(Player, "change", player.pk),
    )
    assert said(second) == [REPEATED]
    assert Player.history.filter(full_name="Gumersinda Prieto").count() == 1


def test_admin_castigo_form_sent_twice_charges_once(admin_client, admin_user):
    club = make_club(admin_user)
    url = _admin_url(Castigo, "add")
    data = admin_form(admin_client, url) | {
        "tournament": club["t"].pk,
        "round": club["round"].pk,
        "player": club["players"][1].pk,
        "tantos": "12",
        "reason": "Pasó con ficha",
    }

    first = admin_client.post(url, data)
    second = admin_client.post(url, data)

    castigo = Castigo.objects.get()
    assert first.status_code == 302 and castigo.tantos == 12
    assert second["Location"] == _admin_url(Castigo, "change", castigo.pk)
    assert said(second) == [REPEATED]


def test_admin_change_form_whose_inline_adds_a_round_sent_twice_adds_it_once(
    admin_client, admin_user
):
    club = make_club(admin_user)
    t = club["t"]
    builders.record_round(t, 1, acting_user=admin_user, tantos_a=100, tantos_b=50)
    url = _admin_url(Tournament, "change", t.pk)
    data = admin_form(admin_client, url)
    assert data["rounds-TOTAL_FORMS"] == "1"
    data |= {"rounds-TOTAL_FORMS": "2", "rounds-1-number": "2", "rounds-1-tournament": str(t.pk)}

    first = admin_client.post(url, data)
    second = admin_client.post(url, data)

    assert first.status_code == 302, first.content.decode()[:2000]
    assert list(t.rounds.order_by("number").values_list("number", flat=True)) == [1, 2]
    assert (second.status_code, second["Location"]) == (302, url)
    assert said(second) == [REPEATED]


def test_a_refused_admin_form_corrected_with_the_same_token_adds_once(admin_client, db):
    services.create_player(acting_user=None, full_name="Anacleta Soler", member_number="C-1")
    url = _admin_url(Player, "add")
    data = admin_form(admin_client, url) | {
        "full_name": "Bonifacio Soler",
        "member_number": "c-1",
        "active": "on",
    }

    refused = admin_client.post(url, data)

    assert refused.status_code == 200 and "errornote" in refused.content.decode()
    assert token_in(refused.content.decode()) == data["form_token"]
    data["member_number"] = "C-2"
    corrected = admin_client.post(url, data)
    again = admin_client.post(url, data)
    assert corrected.status_code == 302 and said(again) == [REPEATED]
    assert list(
        Player.objects.filter(full_name="Bonifacio Soler").values_list("member_number")
    ) == [("C-2",)]


# --- two copies at the same moment (PostgreSQL) ------------------------------------------------

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="races need PostgreSQL (real parallel connections); SQLite serialises writes",
)
RACES = 4


def race(clients, post):
    """``post(client)`` in one thread per client, all released at once by a barrier; returns
    (status, Location, messages or HTMX body) per client. Each thread closes its connections."""
    barrier = threading.Barrier(len(clients))
    outcomes: list = [None] * len(clients)

    def run(i, client):
        try:
            barrier.wait(timeout=30)
            response = post(client)
            body = response.content.decode() if response.status_code == 200 else ""
            outcomes[i] = (response.status_code, response.get("Location"), said(response), body)
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            barrier.abort()
            outcomes[i] = ("crash", repr(exc), [], "")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads), "a thread is stuck"
    assert not [o for o in outcomes if o[0] == "crash"], outcomes
    return outcomes


def _two_clients(user):
    clients = [Client(), Client()]
    for c in clients:
        c.force_login(user)
    return clients


def _race_case(form: str, i: int, user, club) -> tuple:
    """(url, data, headers, the rows the post creates, the first copy's message) of race ``i``."""
    t = club["t"]
    if form == "player":
        name = f"Fermina Carrera {i}"
        rows = Player.objects.filter(full_name=name)
        return reverse("manage:player_add"), {"full_name": name}, {}, rows, None
    if form == "entry":
        north, south = (
            services.create_player(acting_user=user, full_name=f"Pareja {i} {side}")
            for side in ("Norte", "Sur")
        )
        data = {"player1": north.pk, "player2": south.pk}
        rows = Entry.objects.filter(player1=north, player2=south)
        return reverse("manage:entry_add", args=[t.slug]), data, {}, rows, None
    if form in ("castigo", "castigo_htmx"):
        data = {"player": club["players"][i].pk, "tantos": "7", "reason": f"Carrera {i}"}
        headers = HTMX if form == "castigo_htmx" else {}
        rows = Castigo.objects.filter(reason=f"Carrera {i}")
        url = reverse("manage:castigo_add", args=[t.slug, 1])
        return url, data, headers, rows, "Castigo registrado."
    name = f"Fermina Admin {i}"
    data = {"full_name": name, "active": "on", "_save": "Guardar"}
    return _admin_url(Player, "add"), data, {}, Player.objects.filter(full_name=name), None


@on_postgresql
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("form", ["player", "entry", "castigo", "castigo_htmx", "admin_player"])
def test_two_copies_at_the_same_moment_create_one_row(form):
    """Two copies of one post (same token, same data) reach two app threads at once, each with
    its own database connection: one creates, the other waits for its outcome and says "Ya se
    había guardado"; exactly one row."""
    user = builders.director("carmela")
    user.is_superuser = True
    user.save()
    club = make_club(user, "Copa Carrera", rounds=True)
    for i in range(RACES):
        url, data, headers, rows, first_message = _race_case(form, i, user, club)
        data["form_token"] = access.form_token_for()

        outcomes = race(_two_clients(user), lambda c, u=url, d=data, h=headers: c.post(u, d, **h))

        assert rows.count() == 1, outcomes
        if headers:  # HTMX: both answers are the castigos panel, one says it was saved already
            assert [o[0] for o in outcomes] == [200, 200]
            assert sorted(REPEATED in o[3] for o in outcomes) == [False, True], outcomes
            assert all(o[3].count(f"Carrera {i}") == 1 for o in outcomes), outcomes
            continue
        assert [o[0] for o in outcomes] == [302, 302], outcomes
        messages = sorted((m for o in outcomes for m in o[2]), key=lambda m: m == REPEATED)
        created = rows.get()
        if form == "player":
            first_message = f"Jugador «{created.full_name}» registrado."
        elif form == "entry":
            first_message = f"Inscrito: {created.name}."
        if form == "admin_player":
            change = _admin_url(Player, "change", created.pk)
            assert sorted(o[1] for o in outcomes) == sorted(
                [_admin_url(Player, "changelist"), change]
            )
            assert messages[-1] == REPEATED and messages.count(REPEATED) == 1, messages
        else:
            assert outcomes[0][1] == outcomes[1][1], outcomes  # both shown the same page
            assert messages == [first_message, REPEATED], messages


def test_admin_user_and_group_add_forms_sent_twice_add_once(admin_client, db):
    url = _admin_url(User, "add")
    data = admin_form(admin_client, url) | {
        "username": "nueva-directora",
        "password1": "una-clave-larga-42",
        "password2": "una-clave-larga-42",
        "usable_password": "true",
    }
    assert re.fullmatch(r"[0-9a-f]{32}", data["form_token"])
    first = admin_client.post(url, data)
    second = admin_client.post(url, data)
    user = User.objects.get(username="nueva-directora")
    assert first.status_code == 302
    assert (second.status_code, second["Location"]) == (302, _admin_url(User, "change", user.pk))
    assert said(second) == [REPEATED]

    url = _admin_url(Group, "add")
    data = admin_form(admin_client, url) | {"name": "Árbitros"}
    data.pop("permissions", None)  # none chosen
    first, second = admin_client.post(url, data), admin_client.post(url, data)
    assert first.status_code == 302
    assert Group.objects.filter(name="Árbitros").count() == 1
    assert said(second) == [REPEATED]
