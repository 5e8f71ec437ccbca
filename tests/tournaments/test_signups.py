"""Public sign-up (tournament day, part 1): who is recognised, accepted, put on the waiting
list or left for a director; the page's refusals beside their fields; the trap for robots and
the rate limit; contact details never public. Consent (issue 25, point 4): nobody is entered
without their word or a director's, nobody is added to the register but by a club director,
and no request makes a duplicate player."""

import datetime as dt
import html
import re
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from tests import builders
from tests.helpers import refused
from tournaments import services
from tournaments.models import Entry, Player, SignUp

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()


def test_someone_new_waits_for_a_club_director_who_adds_them_on_accepting(director):
    t = builders.signup_tournament(
        acting_user=director
    )  # no approval, room: a known player would be in at once
    s = services.sign_up(tournament=t, name="Rosalía  Quintero", email="rosalia@example.org")
    assert (s.status, s.entry, s.player) == ("pending", None, None)
    assert not Player.objects.filter(full_name="Rosalía Quintero").exists()
    s = services.decide_signup(acting_user=director, signup=s, accept=True)
    assert (s.status, s.entry.name) == ("accepted", "Rosalía Quintero")
    player = Player.objects.get(full_name="Rosalía Quintero")
    assert (player.email, s.entry.player1_id, s.player_id) == (
        "rosalia@example.org",
        player.pk,
        player.pk,
    )


def known(director, name, **contact):
    """A club player ``name`` with ``contact`` (email, phone, member_number)."""
    return services.create_player(acting_user=director, full_name=name, **contact)


def test_someone_new_must_leave_a_contact(director):
    t = builders.signup_tournament(acting_user=director)
    assert refused(lambda: services.sign_up(tournament=t, name="Sin Contacto")) == "signup_contact"
    assert not SignUp.objects.exists()


def test_a_known_player_is_recognised_by_member_number_or_email_only(director):
    t = builders.signup_tournament(acting_user=director)
    known = services.create_player(
        acting_user=director, full_name="Teodoro Ulloa", member_number="S-07", email="t@example.org"
    )
    code = refused(
        lambda: services.sign_up(tournament=t, name="teodoro ulloa", email="otro@example.org")
    )
    assert code == "signup_identify"
    s = services.sign_up(tournament=t, name="TEODORO ULLOA", member_number="s-07")
    assert (s.player_id, s.entry.player1_id, s.name) == (known.pk, known.pk, "Teodoro Ulloa")
    assert Player.objects.filter(name_key=known.name_key).count() == 1
    again = refused(
        lambda: services.sign_up(tournament=t, name="Teodoro Ulloa", email="t@example.org")
    )
    assert again == "signup_already_entered"


def test_a_pair_signs_up_with_the_partner_by_name(director):
    t = builders.signup_tournament(acting_user=director, mode="pairs")
    partner = services.create_player(acting_user=director, full_name="Úrsula Vidal")
    known(director, "Víctor Zea", phone="555 010 1010")
    assert (
        refused(lambda: services.sign_up(tournament=t, name="Víctor Zea", phone="555 010 1010"))
        == "signup_partner_required"
    )
    s = services.sign_up(
        tournament=t, name="Víctor Zea", phone="555 010 1010", partner_name="ursula vidal"
    )
    assert (s.status, s.entry, s.partner_id) == ("unconfirmed", None, partner.pk)
    s = services.answer_partner(acting_user=None, signup=s, player=partner, confirm=True)
    assert s.entry.name == "Víctor Zea & Úrsula Vidal"
    assert s.entry.player2_id == partner.pk
    code = refused(
        lambda: services.sign_up(
            tournament=t, name="Wenceslao Yuste", phone="1", partner_name="Úrsula Vidal"
        )
    )
    assert code == "signup_already_entered"


def test_a_full_tournament_puts_requests_on_the_waiting_list_in_order(director):
    t = builders.signup_tournament(acting_user=director, max_entries=2)
    for n in ("Uno", "Dos", "Tres", "Cuatro"):
        known(director, f"Jugador {n}", email=f"j{n}@example.org")
    first = [
        services.sign_up(tournament=t, name=f"Jugador {n}", email=f"j{n}@example.org")
        for n in ("Uno", "Dos", "Tres", "Cuatro")
    ]
    assert [s.status for s in first] == ["accepted", "accepted", "waiting", "waiting"]
    assert [s.place for s in first] == [None, None, 1, 2]
    assert Entry.objects.filter(tournament=t).count() == 2
    services.remove_entry(acting_user=director, entry=first[0].entry)  # room for the first waiting
    assert SignUp.objects.get(pk=first[2].pk).status == "accepted"
    assert SignUp.objects.get(pk=first[3].pk).status == "waiting"
    services.update_signup_settings(
        acting_user=director,
        tournament=t,
        signup_open=True,
        max_entries=3,
        signup_closes_at=None,
        signup_needs_approval=False,
    )
    assert SignUp.objects.get(pk=first[3].pk).status == "accepted"
    assert Entry.objects.filter(tournament=t).count() == 3


def test_with_approval_a_director_accepts_or_refuses(director):
    t = builders.signup_tournament(acting_user=director, approval=True, max_entries=1)
    a = services.sign_up(tournament=t, name="Ana Alba", email="a@example.org")
    b = services.sign_up(tournament=t, name="Blas Bravo", email="b@example.org")
    # a holds the one place while a director decides: b finds the tournament full (issue 26)
    assert (a.status, b.status, a.entry, b.place) == ("pending", "waiting", None, 1)
    assert not Player.objects.filter(full_name="Ana Alba").exists()
    a = services.decide_signup(acting_user=director, signup=a, accept=True)
    assert (a.status, a.entry.name, a.decided_by) == ("accepted", "Ana Alba", director)
    full = refused(lambda: services.decide_signup(acting_user=director, signup=b, accept=True))
    assert full == "signup_full"
    b = services.decide_signup(acting_user=director, signup=b, accept=False)
    assert b.status == "refused"
    twice = refused(lambda: services.decide_signup(acting_user=director, signup=b, accept=True))
    assert twice == "signup_decided"


def test_sign_up_closes_at_its_time_and_when_the_tournament_starts(director):
    closes = timezone.now() + dt.timedelta(hours=1)
    t = builders.signup_tournament(acting_user=director, closes=closes)
    late = closes + dt.timedelta(seconds=1)
    code = refused(lambda: services.sign_up(tournament=t, name="Tardío", phone="1", now=late))
    assert code == "signup_deadline"
    t.status = "running"
    t.save()
    assert refused(lambda: services.sign_up(tournament=t, name="Otro", phone="1")) == (
        "signup_started"
    )


# --- the pages -----------------------------------------------------------------------------


def text(response) -> str:
    return html.unescape(response.content.decode())


def test_the_page_signs_up_and_never_shows_the_contact(client, director):
    t = builders.signup_tournament(acting_user=director, max_entries=1)
    known(director, "Celia Duarte", email="celia@example.org")
    known(director, "Dora Espina", phone="+52 555 123 4567")
    url = reverse("public:signup", args=[t.slug])
    page = text(client.get(url))
    assert "Queda 1 plaza." in page
    answer = client.post(url, {"name": "Celia Duarte", "email": "celia@example.org"}, follow=True)
    ((went, status),) = answer.redirect_chain
    assert status == 302 and went.startswith(f"{url}?hecho=")
    body = text(answer)
    again = text(client.get(went))  # a reload shows the answer again and sends nothing
    assert "Listo: Celia Duarte, estás inscrito en «Copa Abierta»." in again
    assert SignUp.objects.count() == 1
    assert "Listo" not in text(client.get(url + "?hecho=forged:token"))
    assert "Listo: Celia Duarte, estás inscrito en «Copa Abierta»." in body
    assert "celia@example.org" not in body
    waiting = text(client.post(url, {"name": "Dora Espina", "phone": "555 123 4567"}, follow=True))
    assert "estás en la lista de espera, en el puesto 1" in waiting
    assert "555 123 4567" not in waiting
    public = text(client.get(reverse("public:tournament", args=[t.slug])))
    assert "celia@example.org" not in public and "555 123 4567" not in public


def test_a_refused_sign_up_comes_back_typed_with_the_error_beside_its_field(client, director):
    t = builders.signup_tournament(acting_user=director)
    services.create_player(acting_user=director, full_name="Elvira Fuentes", member_number="S-1")
    answer = client.post(
        reverse("public:signup", args=[t.slug]),
        {"name": "Elvira Fuentes", "member_number": "S-9", "email": ""},
    )
    assert answer.status_code == 400
    body = text(answer)
    error = re.search(r'id="id_member_number_error"><p class="error" role="alert">([^<]*)<', body)
    assert error.group(1) == (
        "El club ya tiene un jugador llamado «Elvira Fuentes»: escribe tu número de socio, tu "
        "correo o tu teléfono tal como los tiene el club."
    )
    assert re.search(r'name="member_number"[^>]*value="S-9"', body)
    assert "autofocus" in re.search(r'<input[^>]*name="member_number"[^>]*>', body).group(0)
    assert not SignUp.objects.exists()


def test_the_trap_field_stores_nothing(client, director):
    t = builders.signup_tournament(acting_user=director)
    answer = client.post(
        reverse("public:signup", args=[t.slug]),
        {"name": "Robot", "email": "r@example.org", "website": "http://spam.example"},
    )
    assert answer.status_code == 200
    assert "Solicitud recibida." in text(answer)
    assert not SignUp.objects.exists() and not Player.objects.filter(full_name="Robot").exists()


def test_too_many_requests_from_one_address_are_refused(client, director):
    from clubsite.limits import LIMITS

    t = builders.signup_tournament(acting_user=director)
    url = reverse("public:signup", args=[t.slug])
    allowed = LIMITS["signup"].count
    for n in range(allowed):
        assert client.post(url, {"name": f"Persona {n}", "phone": "1"}).status_code == 302
    refused = client.post(url, {"name": "Persona Otra", "phone": "1"})
    assert refused.status_code == 429
    assert "Demasiados intentos seguidos" in text(refused)
    assert SignUp.objects.count() == allowed


def test_a_closed_sign_up_says_why(client, director):
    t = builders.signup_tournament(acting_user=director)
    services.update_signup_settings(
        acting_user=director,
        tournament=t,
        signup_open=False,
        max_entries=None,
        signup_closes_at=None,
        signup_needs_approval=False,
    )
    page = text(client.get(reverse("public:signup", args=[t.slug])))
    assert "Este torneo no tiene abierta la inscripción desde la web." in page
    assert "<form" not in page.split("<main", 1)[1].split("</main>")[0]


def test_the_directors_page_lists_requests_with_contacts_and_decides(director_client, director):
    t = builders.signup_tournament(acting_user=director, approval=True)
    s = services.sign_up(tournament=t, name="Fermina Gil", email="fermina@example.org")
    url = reverse("manage:signups", args=[t.slug])
    page = text(director_client.get(url))
    assert "fermina@example.org" in page.replace("<wbr>", "") and "jugador nuevo" in page
    done = director_client.post(url, {"action": "accept", "signup": s.pk}, follow=True)
    assert "Fermina Gil: aceptada." in text(done)
    assert SignUp.objects.get(pk=s.pk).entry.name == "Fermina Gil"


def test_the_directors_settings_refuse_a_maximum_below_the_entries(director_client, director):
    t = builders.signup_tournament(acting_user=director)
    for n in (1, 2):
        known(director, f"Persona {n}", phone=f"555 000 00{n}")
        services.sign_up(tournament=t, name=f"Persona {n}", phone=f"555 000 00{n}")
    answer = director_client.post(
        reverse("manage:signups", args=[t.slug]),
        {"action": "settings", "s-signup_open": "on", "s-max_entries": "1"},
    )
    assert answer.status_code == 400
    assert "El máximo (1) no puede ser menor que las inscripciones que ya hay (2)." in text(answer)


def test_a_newcomer_who_left_only_a_phone_is_recognised_by_it_next_time(director):
    first = builders.signup_tournament(acting_user=director, name="Primera Copa")
    s = services.sign_up(tournament=first, name="Hilario Ibáñez", phone="+52 55 1234-5678")
    services.decide_signup(acting_user=director, signup=s, accept=True)
    second = builders.signup_tournament(acting_user=director, name="Segunda Copa")
    s = services.sign_up(tournament=second, name="hilario ibanez", phone="55-1234-5678")
    assert s.status == "accepted"
    assert Player.objects.filter(full_name="Hilario Ibáñez").count() == 1


def test_a_closing_time_the_calendar_cannot_hold_is_refused_in_words(director_client, director):
    t = builders.signup_tournament(acting_user=director)
    answer = director_client.post(
        reverse("manage:signups", args=[t.slug]),
        {"action": "settings", "s-signup_open": "on", "s-signup_closes_at": "9999-12-31T23:59"},
    )
    assert answer.status_code == 400
    assert "Escribe una fecha entre los años 2000 y 2999." in text(answer)


def test_the_tournament_page_offers_sign_up_only_while_it_is_taken(client, director):
    t = builders.signup_tournament(
        acting_user=director, closes=timezone.now() + dt.timedelta(hours=1)
    )
    link = f'href="/torneos/{t.slug}/inscribirse/">Inscribirse</a>'
    assert link in text(client.get(reverse("public:tournament", args=[t.slug])))
    t.signup_closes_at = timezone.now() - dt.timedelta(minutes=1)
    t.save()
    assert link not in text(client.get(reverse("public:tournament", args=[t.slug])))
    page = text(client.get(reverse("public:signup", args=[t.slug])))
    assert "La inscripción de este torneo ya cerró." in page
    assert '<meta property="og:title" content="Inscripción · Copa Abierta">' in page


@pytest.mark.parametrize(
    ("names", "said"),
    [
        (("Celia Duarte",), "Listo: Celia Duarte, estás inscrito en «Copa Abierta»."),
        (
            ("Celia Duarte", "Dora Elizondo"),
            "Listo: Celia Duarte &amp; Dora Elizondo, estáis inscritos en «Copa Abierta».",
        ),
    ],
)
def test_the_accepted_answer_speaks_to_one_player_or_to_a_pair(rf, director, names, said):
    from django.template.loader import render_to_string

    t = builders.signup_tournament(
        acting_user=director, mode="pairs" if len(names) == 2 else "single"
    )
    players = [services.create_player(acting_user=director, full_name=n) for n in names]
    entry = services.register_entry(acting_user=director, tournament=t, players=players)
    request = rf.get("/")
    request.user = AnonymousUser()
    page = render_to_string(
        "tournaments/signup.html",
        {"t": t, "done": SimpleNamespace(status="accepted", entry=entry)},
        request=request,
    )
    assert said in page
