"""Nobody is entered or created without consent (issue 25, point 4), tried as an attacker would:
naming a stranger as partner, a tournament-only director accepting someone new, two players of
one name, a waiting request promoted when a place frees, the same request sent twice. The rule
is ``tournaments.services.signups``; the partner's link is ``tournaments.notices``'."""

import html
import re
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.cache import cache
from django.db import connection
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from tests import builders
from tests.helpers import race, refused
from tournaments import notices, services
from tournaments.models import Entry, Notice, Player, SignUp

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


def text(response) -> str:
    return html.unescape(response.content.decode())


def known(director, name, **contact):
    """A club player ``name`` with ``contact`` (email, phone, member_number)."""
    return services.create_player(acting_user=director, full_name=name, **contact)


def entries_of(player) -> int:
    return Entry.objects.filter(Q(player1=player) | Q(player2=player)).count()


def link_in(message) -> str:
    """The path of the partner's link in a mailed ``message``."""
    (url,) = re.findall(r"https?://\S+/companero/\S+/", message.body)
    return urlsplit(url).path


def fresh(signup) -> SignUp:
    return SignUp.objects.get(pk=signup.pk)


# --- a stranger named as partner -------------------------------------------------------------


def test_naming_a_stranger_enters_nobody_and_tells_them_only_by_mail(
    client, director, django_capture_on_commit_callbacks
):
    t = builders.signup_tournament(acting_user=director, mode="pairs")
    stranger = known(director, "Samuel Trejo", email="samuel@example.org")
    known(director, "Ramona Ruiz", email="ramona@example.org")
    url = reverse("public:signup", args=[t.slug])
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            url,
            {"name": "Ramona Ruiz", "email": "ramona@example.org", "partner_name": "samuel trejo"},
            follow=True,
        )
    body = text(answer)
    assert (
        "Solicitud recibida, Ramona Ruiz: falta que Samuel Trejo confirme que juega contigo, y "
        "hasta entonces nadie queda inscrito." in body
    )
    assert "samuel@example.org" not in body
    s = SignUp.objects.get()
    assert (s.status, s.entry, s.partner_id, s.partner_confirmed_at) == (
        "unconfirmed",
        None,
        stranger.pk,
        None,
    )
    assert (Entry.objects.filter(tournament=t).count(), entries_of(stranger)) == (0, 0)
    # Told by mail only, and only the stranger: once, with the link that answers.
    ((message),) = mail.outbox
    assert message.to == ["samuel@example.org"]
    assert message.subject == "Club de dominó: ¿juegas «Copa Abierta» con Ramona Ruiz?"
    assert "te apuntó como su compañero" in message.body
    assert "No quedas inscrito hasta que lo confirmes." in message.body
    assert "List-Unsubscribe" not in message.extra_headers
    assert list(Notice.objects.values_list("kind", "player_id", "tournament_id", "round")) == [
        ("partner", stranger.pk, t.pk, None)
    ]
    # A second request naming them (another requester) mails nobody again.
    known(director, "Urbano Vela", phone="555 222 3333")
    with django_capture_on_commit_callbacks(execute=True):
        other = services.sign_up(
            tournament=t, name="Urbano Vela", phone="555 222 3333", partner_name="Samuel Trejo"
        )
    assert other.status == "unconfirmed" and len(mail.outbox) == 1
    # The link lists both; "No juego" ends one, and still nobody is entered.
    page = client.get(link_in(message))
    assert page.status_code == 200
    assert "<strong>Ramona Ruiz</strong> quiere jugar contigo" in text(page)
    assert "<strong>Urbano Vela</strong> quiere jugar contigo" in text(page)
    no = client.post(link_in(message), {"action": "decline", "signup": s.pk}, follow=True)
    assert "Hecho: no juegas con Ramona Ruiz; su solicitud no sigue adelante." in text(no)
    assert fresh(s).status == "declined" and entries_of(stranger) == 0


def test_a_name_typed_by_someone_else_does_not_stop_the_stranger_signing_up(director):
    t = builders.signup_tournament(acting_user=director, mode="pairs")
    stranger = known(director, "Samuel Trejo", email="samuel@example.org")
    known(director, "Ramona Ruiz", email="ramona@example.org")
    friend = known(director, "Tomasa Ugarte", phone="555 444 5555")
    services.sign_up(
        tournament=t, name="Ramona Ruiz", email="ramona@example.org", partner_name="Samuel Trejo"
    )
    own = services.sign_up(
        tournament=t, name="Samuel Trejo", email="samuel@example.org", partner_name="Tomasa Ugarte"
    )
    assert (own.status, own.player_id, own.partner_id) == ("unconfirmed", stranger.pk, friend.pk)
    own = services.answer_partner(acting_user=None, signup=own, player=friend, confirm=True)
    assert own.entry.name == "Samuel Trejo & Tomasa Ugarte"
    # Ramona's request can no longer take him: he plays with someone else.
    ramona = SignUp.objects.get(name="Ramona Ruiz")
    code = refused(
        lambda: services.answer_partner(
            acting_user=None, signup=ramona, player=stranger, confirm=True
        )
    )
    assert code == "signup_already_entered"
    assert entries_of(stranger) == 1


def test_the_partner_says_yes_through_the_link_and_the_pair_is_entered(
    client, director, django_capture_on_commit_callbacks
):
    t = builders.signup_tournament(acting_user=director, mode="pairs", max_entries=4)
    partner = known(director, "Vilma Yáñez", email="vilma@example.org")
    requester = known(director, "Xavier Zúñiga", member_number="S-31")
    with django_capture_on_commit_callbacks(execute=True):
        s = services.sign_up(
            tournament=t, name="Xavier Zúñiga", member_number="S-31", partner_name="Vilma Yáñez"
        )
    path = link_in(mail.outbox[0])
    yes = client.post(path, {"action": "confirm", "signup": s.pk}, follow=True)
    assert "Listo: Xavier Zúñiga & Vilma Yáñez, inscritos en «Copa Abierta»." in text(yes)
    s = fresh(s)
    assert s.status == "accepted" and s.partner_confirmed_at is not None
    assert (s.entry.player1_id, s.entry.player2_id) == (requester.pk, partner.pk)
    # Answered: the link shows it decided, and a second "yes" is refused in words.
    again = client.post(path, {"action": "confirm", "signup": s.pk}, follow=True)
    assert "La solicitud de Xavier Zúñiga ya no espera tu respuesta" in text(again)
    assert Entry.objects.filter(tournament=t).count() == 1


def test_a_partner_link_works_only_for_its_player_tournament_and_email(client, director):
    t = builders.signup_tournament(acting_user=director, mode="pairs", name="Copa Uno")
    other_t = builders.signup_tournament(acting_user=director, mode="pairs", name="Copa Dos")
    partner = known(director, "Vilma Yáñez", email="vilma@example.org")
    known(director, "Xavier Zúñiga", member_number="S-31")
    s = services.sign_up(
        tournament=t, name="Xavier Zúñiga", member_number="S-31", partner_name="Vilma Yáñez"
    )
    token = notices.partner_token(partner, t)
    forged = client.post(
        reverse("public:partner", args=[t.slug, token[:-2] + "xx"]),
        {"action": "confirm", "signup": s.pk},
    )
    assert forged.status_code == 400 and "Este enlace ya no sirve" in text(forged)
    elsewhere = client.get(reverse("public:partner", args=[other_t.slug, token]))
    assert elsewhere.status_code == 400
    # Another player's link cannot answer this request (it is not theirs): 404.
    intruder = known(director, "Yolanda Abad", email="yolanda@example.org")
    theirs = reverse("public:partner", args=[t.slug, notices.partner_token(intruder, t)])
    assert client.post(theirs, {"action": "confirm", "signup": s.pk}).status_code == 404
    # The email changed since the link was sent: it no longer works.
    services.update_player(
        acting_user=director, player=partner, full_name="Vilma Yáñez", email="vy@example.org"
    )
    late = client.post(
        reverse("public:partner", args=[t.slug, token]), {"action": "confirm", "signup": s.pk}
    )
    assert late.status_code == 400
    assert (fresh(s).status, Entry.objects.count()) == ("unconfirmed", 0)


def test_a_partner_answers_from_their_account_page(client, director):
    t = builders.signup_tournament(acting_user=director, mode="pairs")
    partner = known(director, "Zoe Arce", email="zoe@example.org")
    known(director, "Bruno Cid", email="bruno@example.org")
    user = User.objects.create_user("zoe", password="clave-de-prueba-1")
    Player.objects.filter(pk=partner.pk).update(user=user)
    s = services.sign_up(
        tournament=t, name="Bruno Cid", email="bruno@example.org", partner_name="Zoe Arce"
    )
    client.force_login(user)
    page = text(client.get(reverse("account:home")))
    assert "Bruno Cid te nombró como compañero: no estás inscrito hasta que lo confirmes" in page
    done = client.post(
        reverse("account:partner_answer"), {"action": "confirm", "signup": s.pk}, follow=True
    )
    assert "Listo: Bruno Cid & Zoe Arce, inscritos en «Copa Abierta»." in text(done)
    assert fresh(s).status == "accepted"
    # Someone else's account cannot answer a request that does not name them.
    known(director, "Ciro Duque", email="ciro@example.org")
    known(director, "Dalia Estrada", email="dalia@example.org")
    other = services.sign_up(
        tournament=t, name="Ciro Duque", email="ciro@example.org", partner_name="Dalia Estrada"
    )
    answer = client.post(
        reverse("account:partner_answer"), {"action": "confirm", "signup": other.pk}
    )
    assert answer.status_code == 404 and fresh(other).status == "unconfirmed"


def test_a_director_accepting_confirms_for_the_partner(director_client, director):
    t = builders.signup_tournament(acting_user=director, mode="pairs")
    partner = known(director, "Dalia Estrada", email="dalia@example.org")
    known(director, "Efrén Flores", email="efren@example.org")
    s = services.sign_up(
        tournament=t, name="Efrén Flores", email="efren@example.org", partner_name="Dalia Estrada"
    )
    url = reverse("manage:signups", args=[t.slug])
    page = text(director_client.get(url))
    assert "Esperan al compañero" in page
    assert "Dalia Estrada aún no confirmó: aceptarla lo confirma" in page
    done = director_client.post(url, {"action": "accept", "signup": s.pk}, follow=True)
    assert "Efrén Flores: aceptada." in text(done)
    s = fresh(s)
    assert (s.status, s.entry.player2_id, s.decided_by) == ("accepted", partner.pk, director)
    assert s.partner_confirmed_at is not None


def test_confirming_after_the_tournament_started_is_refused(director):
    t = builders.signup_tournament(acting_user=director, mode="pairs")
    partner = known(director, "Dalia Estrada", email="dalia@example.org")
    known(director, "Efrén Flores", email="efren@example.org")
    s = services.sign_up(
        tournament=t, name="Efrén Flores", email="efren@example.org", partner_name="Dalia Estrada"
    )
    type(t).objects.filter(pk=t.pk).update(status="running")
    code = refused(
        lambda: services.answer_partner(acting_user=None, signup=s, player=partner, confirm=True)
    )
    assert code == "signup_started"
    assert (fresh(s).status, Entry.objects.count()) == ("unconfirmed", 0)


# --- new people: a club director's act --------------------------------------------------------


@pytest.fixture
def tournament_only(director):
    """A staff user who directs one tournament (listed in it) but is not a club director."""
    return User.objects.create_user("apoyo", password="clave-de-prueba-1", is_staff=True)


def test_a_tournament_only_director_cannot_add_new_players_by_accepting(
    client, director, tournament_only
):
    t = builders.signup_tournament(acting_user=director, mode="pairs")
    services.set_tournament_directors(
        acting_user=director, tournament=t, directors=[director, tournament_only]
    )
    known(director, "Fausto Gil", email="fausto@example.org")
    players_before = Player.objects.count()
    s = services.sign_up(
        tournament=t, name="Fausto Gil", email="fausto@example.org", partner_name="Gala Hoyos"
    )
    assert (s.status, s.partner_id) == ("pending", None)  # a partner new to the club
    assert Player.objects.count() == players_before
    code = refused(
        lambda: services.decide_signup(acting_user=tournament_only, signup=s, accept=True)
    )
    assert code == "signup_needs_club_director"
    assert (fresh(s).status, Player.objects.count()) == ("pending", players_before)
    # The page says so before and after the try, in words.
    client.force_login(tournament_only)
    url = reverse("manage:signups", args=[t.slug])
    assert "la acepta un director del club" in text(client.get(url))
    answer = client.post(url, {"action": "accept", "signup": s.pk}, follow=True)
    assert (
        "Esta solicitud añade al registro del club a alguien nuevo (Gala Hoyos): solo un "
        "director del club (grupo «Directores») puede aceptarla. Queda pendiente para él."
    ) in text(answer)
    assert (fresh(s).status, Player.objects.count()) == ("pending", players_before)
    # A club director accepts: the partner is added then, once.
    s = services.decide_signup(acting_user=director, signup=s, accept=True)
    assert s.entry.name == "Fausto Gil & Gala Hoyos"
    assert Player.objects.filter(full_name="Gala Hoyos").count() == 1


def test_a_tournament_only_director_accepts_requests_of_known_players(director, tournament_only):
    t = builders.signup_tournament(acting_user=director, approval=True)
    services.set_tournament_directors(
        acting_user=director, tournament=t, directors=[director, tournament_only]
    )
    player = known(director, "Fausto Gil", email="fausto@example.org")
    s = services.sign_up(tournament=t, name="Fausto Gil", email="fausto@example.org")
    s = services.decide_signup(acting_user=tournament_only, signup=s, accept=True)
    assert (s.status, s.entry.player1_id) == ("accepted", player.pk)


def test_an_anonymous_request_adds_nobody_to_the_register(client, director):
    t = builders.signup_tournament(
        acting_user=director, mode="pairs"
    )  # no approval: the most open door
    before = Player.objects.count()
    for n in range(3):
        answer = client.post(
            reverse("public:signup", args=[t.slug]),
            {"name": f"Nadie {n} Real", "phone": f"555 100 000{n}", "partner_name": f"Otro {n}"},
        )
        assert answer.status_code == 302
    assert Player.objects.count() == before
    assert list(SignUp.objects.values_list("status", flat=True)) == ["pending"] * 3
    assert not Entry.objects.filter(tournament=t).exists()


# --- two people of one name -------------------------------------------------------------------


def test_two_players_of_one_name_are_never_resolved_by_a_third(director_client, director):
    t = builders.signup_tournament(acting_user=director, mode="pairs")
    first = known(director, "Juan Pérez", member_number="S-1")
    second = known(director, "Juan Pérez", member_number="S-2")
    stranger = known(director, "Inés Jara", email="ines@example.org")
    known(director, "Karla Luna", email="karla@example.org")
    s = services.sign_up(
        tournament=t, name="Karla Luna", email="karla@example.org", partner_name="juan perez"
    )
    assert (s.status, s.partner_id, s.partner_name) == ("pending", None, "juan perez")
    assert Player.objects.filter(full_name="Juan Pérez").count() == 2
    # The director must choose; not a third Juan, and not someone of another name.
    assert refused(lambda: services.decide_signup(acting_user=director, signup=s, accept=True)) == (
        "signup_choose"
    )
    code = refused(
        lambda: services.decide_signup(
            acting_user=director, signup=s, accept=True, partner=stranger
        )
    )
    assert code == "signup_not_a_choice"
    url = reverse("manage:signups", args=[t.slug])
    page = director_client.get(url).content.decode()
    select = re.search(r'<select name="partner_choice">(.*?)</select>', page).group(1)
    options = re.findall(r'<option value="(\d*)"', select)
    assert options == ["", str(first.pk), str(second.pk)]  # nobody chosen beforehand
    assert "socio S-2" in select
    unchosen = director_client.post(
        url, {"action": "accept", "signup": s.pk, "partner_choice": ""}, follow=True
    )
    assert (
        "El club tiene más de un jugador llamado «juan perez»: elige cuál es antes de aceptar."
        in text(unchosen)
    )
    done = director_client.post(
        url, {"action": "accept", "signup": s.pk, "partner_choice": second.pk}, follow=True
    )
    assert "Karla Luna: aceptada." in text(done)
    s = fresh(s)
    assert (s.status, s.entry.player2_id, s.partner_id) == ("accepted", second.pk, second.pk)
    assert Player.objects.filter(full_name="Juan Pérez").count() == 2


def test_a_requester_of_a_name_the_club_has_twice_must_prove_which(director):
    t = builders.signup_tournament(acting_user=director)
    known(director, "Juan Pérez", member_number="S-1")
    second = known(director, "Juan Pérez", member_number="S-2")
    code = refused(lambda: services.sign_up(tournament=t, name="Juan Pérez", phone="555 777 8888"))
    assert code == "signup_identify"
    assert not SignUp.objects.exists()
    s = services.sign_up(tournament=t, name="JUAN PEREZ", member_number="s-2")
    assert (s.status, s.entry.player1_id) == ("accepted", second.pk)
    assert Player.objects.filter(full_name="Juan Pérez").count() == 2


def test_a_namesake_added_after_the_request_is_chosen_by_the_director(director):
    t = builders.signup_tournament(acting_user=director, approval=True)
    s = services.sign_up(tournament=t, name="Lucía Mora", email="lucia@example.org")
    namesake = known(director, "Lucía Mora", email="otra@example.org")  # another Lucía
    code = refused(lambda: services.decide_signup(acting_user=director, signup=s, accept=True))
    assert code == "signup_choose"
    s = services.decide_signup(acting_user=director, signup=s, accept=True, player=namesake)
    assert (s.status, s.entry.player1_id) == ("accepted", namesake.pk)
    assert Player.objects.filter(full_name="Lucía Mora").count() == 1


# --- the waiting list --------------------------------------------------------------------------


def test_a_waiting_request_promoted_when_a_place_frees_makes_no_duplicate(director):
    t = builders.signup_tournament(acting_user=director, max_entries=1)
    bruno = known(director, "Bruno Cid", email="bruno@example.org")
    carla = known(director, "Carla Díaz", email="carla@example.org")
    first = services.sign_up(tournament=t, name="Bruno Cid", email="bruno@example.org")
    waiting = services.sign_up(tournament=t, name="carla diaz", email="carla@example.org")
    assert (first.entry.player1_id, waiting.status, waiting.place) == (bruno.pk, "waiting", 1)
    before = Player.objects.count()
    services.remove_entry(acting_user=director, entry=first.entry)
    waiting = fresh(waiting)
    assert (waiting.status, waiting.entry.player1_id) == ("accepted", carla.pk)
    assert Player.objects.count() == before


def test_a_waiting_request_of_someone_added_since_takes_their_record(director):
    """A request stored waiting for someone new (as the sign-up stored them before issue 25),
    who was added to the register meanwhile: promoted, it takes that record."""
    t = builders.signup_tournament(acting_user=director, max_entries=1)
    first = services.sign_up(tournament=t, name="Bruno Cid", email="bruno@example.org")
    first = services.decide_signup(acting_user=director, signup=first, accept=True)
    old = SignUp.objects.create(
        tournament=t, name="Delia Eche", email="delia@example.org", status="waiting"
    )
    newcomer = SignUp.objects.create(
        tournament=t, name="Elena Fajardo", phone="555 999 0000", status="waiting"
    )
    delia = known(director, "Delia Eche", email="DELIA@example.org")
    before = Player.objects.count()
    services.update_signup_settings(
        acting_user=director,
        tournament=t,
        signup_open=True,
        max_entries=3,
        signup_closes_at=None,
        signup_needs_approval=False,
    )
    old, newcomer = fresh(old), fresh(newcomer)
    assert (old.status, old.player_id, old.entry.player1_id) == ("accepted", delia.pk, delia.pk)
    # Someone still new is not added by a place freeing: a club director's act.
    assert (newcomer.status, newcomer.player_id, newcomer.entry) == ("pending", None, None)
    assert Player.objects.count() == before


def test_a_waiting_request_whose_player_left_the_club_is_left_for_a_director(director):
    t = builders.signup_tournament(acting_user=director, max_entries=1)
    for name in ("Bruno Cid", "Carla Díaz", "Delia Eche"):
        known(director, name, email=f"{name.split()[0].lower()}@example.org")
    first = services.sign_up(tournament=t, name="Bruno Cid", email="bruno@example.org")
    gone = services.sign_up(tournament=t, name="Carla Díaz", email="carla@example.org")
    next_ = services.sign_up(tournament=t, name="Delia Eche", email="delia@example.org")
    services.set_player_active(acting_user=director, player=gone.player, active=False)
    services.remove_entry(acting_user=director, entry=first.entry)  # frees the place
    assert (fresh(gone).status, fresh(gone).entry) == ("pending", None)
    assert (fresh(next_).status, fresh(next_).entry.player1_id) == ("accepted", next_.player_id)


def test_a_waiting_pair_whose_partner_is_now_a_club_player_asks_them_first(
    director, django_capture_on_commit_callbacks
):
    t = builders.signup_tournament(acting_user=director, mode="pairs", max_entries=1)
    services.register_entry(
        acting_user=director,
        tournament=t,
        players=[known(director, "Aldo Bea"), known(director, "Berta Coll")],
    )
    requester = known(director, "Ciro Duque", email="ciro@example.org")
    old = SignUp.objects.create(
        tournament=t,
        name="Ciro Duque",
        email="ciro@example.org",
        player=requester,
        partner_name="Dora Elías",
        status="waiting",
    )
    dora = known(director, "Dora Elías", email="dora@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        services.remove_entry(acting_user=director, entry=Entry.objects.get(tournament=t))
    old = fresh(old)
    assert (old.status, old.partner_id, old.entry) == ("unconfirmed", dora.pk, None)
    assert entries_of(dora) == 0
    assert [m.to for m in mail.outbox] == [["dora@example.org"]]


# --- the same request twice ---------------------------------------------------------------------


def test_the_same_request_twice_is_one_request(
    client, director, django_capture_on_commit_callbacks
):
    t = builders.signup_tournament(acting_user=director, mode="pairs")
    known(director, "Samuel Trejo", email="samuel@example.org")
    url = reverse("public:signup", args=[t.slug])
    data = {"name": "Fidel Gómez", "phone": "555 303 4040", "partner_name": "Samuel Trejo"}
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(url, data).status_code == 302
        again = client.post(url, data)
    assert again.status_code == 400
    assert "Ya hay una solicitud de inscripción con «Fidel Gómez» en este torneo." in text(again)
    assert SignUp.objects.count() == 1
    assert not Player.objects.filter(full_name="Fidel Gómez").exists()
    assert len(mail.outbox) == 1
    # A partner's yes twice is one entry.
    s = SignUp.objects.get()
    partner = s.partner
    services.answer_partner(acting_user=None, signup=s, player=partner, confirm=True)
    assert refused(
        lambda: services.answer_partner(acting_user=None, signup=s, player=partner, confirm=True)
    ) == ("signup_not_asking")
    assert fresh(s).status == "pending"  # the requester is new: a club director adds them
    assert Entry.objects.filter(tournament=t).count() == 0


def test_the_requester_sees_the_state_of_a_request_waiting_for_its_partner(client, director):
    t = builders.signup_tournament(acting_user=director, mode="pairs")
    known(director, "Samuel Trejo", email="samuel@example.org")
    known(director, "Ramona Ruiz", email="ramona@example.org")
    answer = client.post(
        reverse("public:signup", args=[t.slug]),
        {"name": "Ramona Ruiz", "email": "ramona@example.org", "partner_name": "Samuel Trejo"},
    )
    s = SignUp.objects.get()
    services.answer_partner(acting_user=None, signup=s, player=s.partner, confirm=False)
    later = text(client.get(answer["Location"]))
    assert "Samuel Trejo no confirmó que juega contigo: la solicitud no sigue adelante." in later
    assert timezone.now() >= fresh(s).decided_at


# --- at the same moment (PostgreSQL: real parallel transactions) -------------------------------

needs_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="races need PostgreSQL (row locks, parallel connections); run with DATABASE_URL",
)


@pytest.mark.parametrize("attempt", range(5))
@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_the_same_request_sent_twice_at_once_is_one_request(attempt):
    director = builders.director(f"directora-{attempt}")
    t = builders.signup_tournament(
        acting_user=director, mode="pairs", name=f"Copa Simultánea {attempt}"
    )
    known(director, "Samuel Trejo", email="samuel@example.org")

    def send(_):
        return services.sign_up(
            tournament=t, name="Fidel Gómez", phone="555 303 4040", partner_name="Samuel Trejo"
        ).status

    outcomes = race((lambda: None, send), (lambda: None, send))
    assert sorted(outcomes) == [("error", "signup_already_requested"), ("ok", "unconfirmed")]
    assert SignUp.objects.filter(tournament=t).count() == 1
    assert not Player.objects.filter(full_name="Fidel Gómez").exists()


@pytest.mark.parametrize("attempt", range(5))
@needs_postgresql
@pytest.mark.django_db(transaction=True)
def test_a_partner_saying_yes_to_two_requests_at_once_is_entered_once(attempt):
    director = builders.director(f"directora-{attempt}")
    t = builders.signup_tournament(acting_user=director, mode="pairs", name=f"Copa Doble {attempt}")
    partner = known(director, "Samuel Trejo", email="samuel@example.org")
    asking = []
    for name, phone in (("Ramona Ruiz", "555 111 2222"), ("Urbano Vela", "555 222 3333")):
        known(director, name, phone=phone)
        asking.append(
            services.sign_up(tournament=t, name=name, phone=phone, partner_name="Samuel Trejo")
        )

    def yes(signup):
        return lambda _: (
            services.answer_partner(
                acting_user=None, signup=signup, player=partner, confirm=True
            ).status
        )

    outcomes = race((lambda: None, yes(asking[0])), (lambda: None, yes(asking[1])))
    assert sorted(outcomes) == [("error", "signup_already_entered"), ("ok", "accepted")]
    assert entries_of(partner) == 1
