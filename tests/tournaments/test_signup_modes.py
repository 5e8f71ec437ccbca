"""Sign-up in every mode (issue 26, point 1): one count of free places
(``Tournament.places_left``) and one rule of where a request goes (``services.signups``): with
approval a full tournament puts a request on the waiting list, in order, and a pending request
holds its place; the director moves a request between approval and the waiting list
(``move_signup``); a place freed or a higher maximum moves the first waiting request up in
either mode (``promote_waiting``); the answer page says which list the request is on, and the
truth to two people told "1 place left" at once."""

from __future__ import annotations

import html
import re

import pytest
from django.core import signing
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from tests import builders
from tests.helpers import race, refused
from tournaments import services
from tournaments.errors import DomainError
from tournaments.models import Entry, SignUp
from tournaments.services.signups import waiting_place
from tournaments.views.signups import DONE_SALT

pytestmark = pytest.mark.django_db

REPEATED = "Ya se había guardado: el formulario llegó dos veces y se guardó una sola vez."
TOKEN = re.compile(r'name="form_token" value="([0-9a-f]{32})"')
LAST_PLACE_TAKEN = (
    "Mientras enviabas la solicitud se ocupó la última plaza: estás en la lista de espera, "
    "puesto 1."
)


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


def text(response) -> str:
    return html.unescape(response.content.decode())


def known(director, name: str):
    """A club player ``name`` whose email is their first name at example.org."""
    return services.create_player(
        acting_user=director, full_name=name, email=f"{name.split()[0].lower()}@example.org"
    )


def ask(t, name: str) -> SignUp:
    """``name`` (a club player made by ``known``) asks to play ``t``."""
    return services.sign_up(tournament=t, name=name, email=f"{name.split()[0].lower()}@example.org")


def fresh(signup: SignUp) -> SignUp:
    return SignUp.objects.get(pk=signup.pk)


def statuses(*signups: SignUp) -> list[tuple[str, int | None]]:
    """Each request's status and place in the waiting list, as stored now."""
    rows = [fresh(s) for s in signups]
    return [(s.status, waiting_place(s)) for s in rows]


def players(director, *names: str) -> list[str]:
    for name in names:
        known(director, name)
    return list(names)


NAMES = ("Abel Ayala", "Berta Bueno", "Ciro Cano", "Dalia Díez", "Elio Espejo")


def entered(t, director, *, approval: bool) -> SignUp:
    """The first request of ``t`` (max 1), entered: at once without approval, accepted by the
    director with it."""
    first = ask(t, NAMES[0])
    if approval:
        first = services.decide_signup(acting_user=director, signup=first, accept=True)
    assert first.status == "accepted"
    return first


# --- where a request goes ----------------------------------------------------------------------


def test_with_approval_a_full_tournament_puts_requests_on_the_waiting_list_in_order(director):
    t = builders.signup_tournament(acting_user=director, approval=True, max_entries=2)
    players(director, *NAMES[:4])
    asked = [ask(t, name) for name in NAMES[:4]]
    assert [(s.status, s.place) for s in asked] == [
        ("pending", None),
        ("pending", None),
        ("waiting", 1),
        ("waiting", 2),
    ]
    assert (t.places_left(), Entry.objects.filter(tournament=t).count()) == (0, 0)
    # someone new, too, goes to the end of the list: the tournament is full
    newcomer = services.sign_up(tournament=t, name="Fausto Frías", phone="555 100 2000")
    assert (newcomer.status, newcomer.place, newcomer.player) == ("waiting", 3, None)


def test_without_approval_someone_new_in_a_full_tournament_waits_too(director):
    t = builders.signup_tournament(acting_user=director, max_entries=1)
    players(director, NAMES[0])
    assert ask(t, NAMES[0]).status == "accepted"
    newcomer = services.sign_up(tournament=t, name="Fausto Frías", phone="555 100 2000")
    assert (newcomer.status, newcomer.place) == ("waiting", 1)
    # a place freed: someone new still needs a club director, and holds no place meanwhile
    services.remove_entry(acting_user=director, entry=Entry.objects.get(tournament=t))
    assert statuses(newcomer) == [("pending", None)]
    assert t.places_left() == 1


def test_with_approval_the_places_left_count_the_requests_waiting_for_approval(director):
    t = builders.signup_tournament(acting_user=director, approval=True, max_entries=3)
    players(director, *NAMES[:2])
    first = ask(t, NAMES[0])
    assert t.places_left() == 2
    ask(t, NAMES[1])
    assert (t.places_left(), t.places_left(but=first.pk)) == (1, 2)
    services.decide_signup(acting_user=director, signup=first, accept=True)
    assert t.places_left() == 1  # the place went from the request to its entry


# --- the director moves a request --------------------------------------------------------------


def test_the_director_moves_a_request_between_pending_and_waiting(director):
    t = builders.signup_tournament(acting_user=director, approval=True, max_entries=1)
    players(director, *NAMES[:3])
    holder, second, third = (ask(t, name) for name in NAMES[:3])
    assert statuses(holder, second, third) == [("pending", None), ("waiting", 1), ("waiting", 2)]

    moved = services.move_signup(acting_user=director, signup=third, to="pending")
    assert (moved.status, moved.place) == ("pending", None)
    assert statuses(holder, second, third) == [("pending", None), ("waiting", 1), ("pending", None)]
    moved = services.move_signup(acting_user=director, signup=third, to="waiting")
    assert (moved.status, moved.place) == ("waiting", 2)  # by arrival, after the second
    assert statuses(holder, second, third) == [("pending", None), ("waiting", 1), ("waiting", 2)]

    history = list(third.history.order_by("history_date", "history_id"))
    assert [(h.status, h.history_user) for h in history] == [
        ("waiting", None),  # the anonymous request
        ("pending", director),
        ("waiting", director),
    ]
    assert Entry.objects.filter(tournament=t).count() == 0


def test_a_move_that_does_not_apply_is_refused_in_words(director):
    t = builders.signup_tournament(acting_user=director, approval=True, max_entries=1)
    players(director, *NAMES[:2])
    holder, second = ask(t, NAMES[0]), ask(t, NAMES[1])
    # the holder of the one place would be given it straight back
    with pytest.raises(DomainError) as caught:
        services.move_signup(acting_user=director, signup=holder, to="waiting")
    assert (caught.value.code, caught.value.message) == (
        "signup_room_left",
        "La solicitud de Abel Ayala tiene plaza: no va a la lista de espera. Acéptala o recházala.",
    )
    with pytest.raises(DomainError) as caught:
        services.move_signup(acting_user=director, signup=second, to="waiting")
    assert (caught.value.code, caught.value.message) == (
        "signup_already_there",
        "La solicitud de Berta Bueno ya está «en lista de espera».",
    )
    holder = services.decide_signup(acting_user=director, signup=holder, accept=True)
    with pytest.raises(DomainError) as caught:
        services.move_signup(acting_user=director, signup=holder, to="waiting")
    assert (caught.value.code, caught.value.message) == (
        "signup_not_movable",
        "La solicitud de Abel Ayala está «aceptada»: solo una solicitud por aprobar o en lista "
        "de espera pasa de una lista a la otra.",
    )
    with pytest.raises(ValueError):
        services.move_signup(acting_user=director, signup=second, to="accepted")
    assert statuses(holder, second) == [("accepted", None), ("waiting", 1)]


def test_a_request_left_for_approval_in_a_full_tournament_goes_to_the_waiting_list(director):
    """The issue's case: a request stored pending although the tournament was full (as the
    sign-up stored it before issue 26) is moved to the waiting list, and moves up from it."""
    t = builders.signup_tournament(acting_user=director, approval=True, max_entries=1)
    players(director, *NAMES[:3])
    first = services.decide_signup(acting_user=director, signup=ask(t, NAMES[0]), accept=True)
    waiting = ask(t, NAMES[1])
    stale = SignUp.objects.create(
        tournament=t, name=NAMES[2], email="ciro@example.org", status="pending"
    )
    moved = services.move_signup(acting_user=director, signup=stale, to="waiting")
    assert (moved.status, moved.place) == ("waiting", 2)
    services.remove_entry(acting_user=director, entry=first.entry)
    assert statuses(waiting, stale) == [("pending", None), ("waiting", 1)]


def test_the_directors_page_shows_each_move_where_it_applies(director_client, director):
    t = builders.signup_tournament(acting_user=director, approval=True, max_entries=1)
    players(director, *NAMES[:3])
    holder, second, third = (ask(t, name) for name in NAMES[:3])
    url = reverse("manage:signups", args=[t.slug])
    page = director_client.get(url).content.decode()

    def row(signup) -> str:
        start = page.index(f'id="solicitud-{signup.pk}"')
        return page[start : page.index("</li>", start)]

    assert "Pasar a" not in row(holder)  # it holds the one place
    assert 'value="pending" class="secondary">Pasar a por aprobar</button>' in row(second)
    assert 'value="pending" class="secondary">Pasar a por aprobar</button>' in row(third)
    token = TOKEN.search(row(third)).group(1)
    data = {"action": "move", "signup": third.pk, "to": "pending", "form_token": token}
    first_copy = director_client.post(url, data, follow=True)
    assert "Ciro Cano: por aprobar." in text(first_copy)
    again = director_client.post(url, data, follow=True)  # the same form twice: one move
    assert REPEATED in text(again)
    assert statuses(third) == [("pending", None)]
    page = director_client.get(url).content.decode()
    # the tournament is over its places: either pending request may wait
    assert 'value="waiting" class="secondary">Pasar a la lista de espera</button>' in row(holder)
    token = TOKEN.search(row(holder)).group(1)
    data = {"action": "move", "signup": holder.pk, "to": "waiting", "form_token": token}
    answer = text(director_client.post(url, data, follow=True))
    assert "Abel Ayala: a la lista de espera, en el puesto 1." in answer
    assert statuses(holder, second, third) == [("waiting", 1), ("waiting", 2), ("pending", None)]
    assert fresh(holder).history.first().history_user == director


# --- a place freed, a higher maximum -----------------------------------------------------------


@pytest.mark.parametrize(("approval", "moved_up"), [(False, "accepted"), (True, "pending")])
def test_withdrawing_an_entry_before_the_start_moves_the_first_waiting_up(
    director, approval, moved_up
):
    t = builders.signup_tournament(acting_user=director, approval=approval, max_entries=1)
    players(director, *NAMES[:3])
    first = entered(t, director, approval=approval)
    second, third = ask(t, NAMES[1]), ask(t, NAMES[2])
    assert statuses(second, third) == [("waiting", 1), ("waiting", 2)]
    services.drop_entry(acting_user=director, entry=first.entry)
    assert statuses(second, third) == [(moved_up, None), ("waiting", 1)]
    assert (fresh(second).entry is not None) == (moved_up == "accepted")
    undrop = lambda: services.undrop_entry(acting_user=director, entry=first.entry)  # noqa: E731
    if not approval:  # the withdrawn entry cannot come back over the maximum
        assert refused(undrop) == "undrop_full"
    else:  # it comes back; the request that holds its place is then refused a place
        undrop()
        accept = lambda: services.decide_signup(acting_user=director, signup=second, accept=True)  # noqa: E731
        assert refused(accept) == "signup_full"


@pytest.mark.parametrize(("approval", "moved_up"), [(False, "accepted"), (True, "pending")])
def test_removing_an_entry_moves_the_first_waiting_up(director, approval, moved_up):
    t = builders.signup_tournament(acting_user=director, approval=approval, max_entries=1)
    players(director, *NAMES[:3])
    first = entered(t, director, approval=approval)
    second, third = ask(t, NAMES[1]), ask(t, NAMES[2])
    services.remove_entry(acting_user=director, entry=first.entry)
    assert statuses(second, third) == [(moved_up, None), ("waiting", 1)]


def test_refusing_a_request_that_holds_a_place_moves_the_first_waiting_up(director):
    t = builders.signup_tournament(acting_user=director, approval=True, max_entries=1)
    players(director, *NAMES[:3])
    holder, second, third = (ask(t, name) for name in NAMES[:3])
    services.decide_signup(acting_user=director, signup=holder, accept=False)
    assert statuses(holder, second, third) == [("refused", None), ("pending", None), ("waiting", 1)]
    # refusing a waiting request frees no place
    services.decide_signup(acting_user=director, signup=third, accept=False)
    assert statuses(second, third) == [("pending", None), ("refused", None)]


def test_a_waiting_request_is_accepted_only_with_a_place_nobody_holds(director):
    t = builders.signup_tournament(acting_user=director, approval=True, max_entries=1)
    players(director, *NAMES[:2])
    holder, second = ask(t, NAMES[0]), ask(t, NAMES[1])
    code = refused(lambda: services.decide_signup(acting_user=director, signup=second, accept=True))
    assert code == "signup_places_held"
    services.decide_signup(acting_user=director, signup=holder, accept=True)
    code = refused(lambda: services.decide_signup(acting_user=director, signup=second, accept=True))
    assert code == "signup_full"


@pytest.mark.parametrize(("approval", "moved_up"), [(False, "accepted"), (True, "pending")])
def test_raising_the_maximum_moves_up_exactly_the_new_places(director, approval, moved_up):
    t = builders.signup_tournament(acting_user=director, approval=approval, max_entries=1)
    players(director, *NAMES)
    entered(t, director, approval=approval)
    waiting = [ask(t, name) for name in NAMES[1:]]
    assert statuses(*waiting) == [("waiting", n) for n in (1, 2, 3, 4)]
    services.update_signup_settings(
        acting_user=director,
        tournament=t,
        signup_open=True,
        max_entries=3,
        signup_closes_at=None,
        signup_needs_approval=approval,
    )
    assert statuses(*waiting) == [
        (moved_up, None),
        (moved_up, None),
        ("waiting", 1),
        ("waiting", 2),
    ]
    assert Entry.objects.filter(tournament=t).count() == (3 if moved_up == "accepted" else 1)


def test_nobody_moves_up_once_the_tournament_has_started(director):
    t = builders.signup_tournament(acting_user=director, max_entries=2)
    players(director, *NAMES[:3])
    first, other = entered(t, director, approval=False), ask(t, NAMES[1])
    second = ask(t, NAMES[2])
    assert statuses(other, second) == [("accepted", None), ("waiting", 1)]
    t = services.update_tournament(acting_user=director, tournament=t, status="running")
    services.drop_entry(acting_user=director, entry=first.entry)
    assert statuses(second) == [("waiting", 1)]


# --- the answer page ---------------------------------------------------------------------------


def sign_up_on_the_page(client, t, name: str, **posted) -> str:
    """The answer page after ``name`` (a ``known`` player) sends the form of ``t``."""
    url = reverse("public:signup", args=[t.slug])
    data = {"name": name, "email": f"{name.split()[0].lower()}@example.org", **posted}
    return text(client.post(url, data, follow=True))


def test_the_answer_says_which_list_the_request_is_on(client, director):
    t = builders.signup_tournament(acting_user=director, approval=True, max_entries=1)
    players(director, *NAMES[:2])
    assert (
        "Solicitud recibida, Abel Ayala: tu solicitud espera la aprobación de un director del "
        "torneo."
    ) in sign_up_on_the_page(client, t, NAMES[0], plazas="1")
    page = text(client.get(reverse("public:signup", args=[t.slug])))
    assert "El torneo está completo: tu solicitud irá a la lista de espera." in page
    assert 'name="plazas" value="0"' in page
    assert (
        "El torneo está completo: Berta Bueno, estás en la lista de espera, en el puesto 1. Si "
        "queda sitio, tu solicitud pasa por orden de llegada a la aprobación de un director."
    ) in sign_up_on_the_page(client, t, NAMES[1], plazas="0")


def test_the_answer_says_plainly_that_the_last_place_went_while_sending(client, director):
    t = builders.signup_tournament(acting_user=director, max_entries=1)
    players(director, *NAMES[:3])
    url = reverse("public:signup", args=[t.slug])
    page = text(client.get(url))
    assert "Queda 1 plaza." in page and 'name="plazas" value="1"' in page
    ask(t, NAMES[0])  # someone else takes it meanwhile
    answer = sign_up_on_the_page(client, t, NAMES[1], plazas="1")
    assert LAST_PLACE_TAKEN in answer
    assert "El torneo está completo" not in answer
    # two places shown, both gone
    answer = sign_up_on_the_page(client, t, NAMES[2], plazas="2")
    assert (
        "Mientras enviabas la solicitud se ocuparon las plazas que quedaban: estás en la lista de "
        "espera, puesto 2."
    ) in answer
    # once moved up, the same address says so
    services.remove_entry(acting_user=director, entry=Entry.objects.get(tournament=t))
    (second,) = SignUp.objects.filter(name=NAMES[1])
    token = signing.dumps([second.pk, 1], salt=DONE_SALT)
    later = text(client.get(f"{url}?hecho={token}"))
    assert "Listo: Berta Bueno, estás inscrito en «Copa Abierta»." in later
    # an answer's address signed before the places were carried still opens
    (third,) = SignUp.objects.filter(name=NAMES[2])
    old = text(client.get(f"{url}?hecho={signing.dumps(third.pk, salt=DONE_SALT)}"))
    assert "El torneo está completo: Ciro Cano, estás en la lista de espera, en el puesto 1." in old


def test_places_a_form_cannot_have_shown_are_ignored(client, director):
    t = builders.signup_tournament(acting_user=director, max_entries=1)
    players(director, *NAMES[:2])
    ask(t, NAMES[0])
    for junk in ("", "-1", "uno", "99999999", "١"):
        cache.clear()  # the limit per name
        answer = sign_up_on_the_page(client, t, NAMES[1], plazas=junk)
        assert "El torneo está completo: Berta Bueno, estás en la lista de espera" in answer
        SignUp.objects.filter(name=NAMES[1]).delete()


# --- at the same moment ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("approval", "first_answer"),
    [
        (False, "estás inscrito en «Copa del Último Sitio»."),
        (True, "tu solicitud espera la aprobación de un director del torneo."),
    ],
)
@pytest.mark.parametrize("attempt", range(3))
@pytest.mark.django_db(transaction=True)
def test_two_people_told_one_place_left_are_told_the_truth_after_sending(
    approval, first_answer, attempt
):
    """Two forms that showed "Queda 1 plaza." sent at the same moment (threads with their own
    connections): the tournament's lock lets one take the place; the other is told it went."""
    director = builders.director(f"directora-{attempt}")
    t = builders.signup_tournament(
        acting_user=director, name="Copa del Último Sitio", approval=approval, max_entries=1
    )
    players(director, *NAMES[:2])
    url = reverse("public:signup", args=[t.slug])

    def prepare(name):
        def shown():
            client = Client()
            assert "Queda 1 plaza." in text(client.get(url))
            return client

        def send(client):
            return sign_up_on_the_page(client, t, name, plazas="1")

        return shown, send

    outcomes = race(prepare(NAMES[0]), prepare(NAMES[1]))
    pages = [page for _, page in outcomes]
    assert sorted(LAST_PLACE_TAKEN in page for page in pages) == [False, True]
    assert sorted(first_answer in page for page in pages) == [False, True]
    stored = sorted(SignUp.objects.filter(tournament=t).values_list("status", flat=True))
    assert stored == sorted(["accepted" if not approval else "pending", "waiting"])
    assert Entry.objects.filter(tournament=t).count() == (0 if approval else 1)
