"""Public sign-up (tournament day, part 1): the players' page
(``/torneos/<slug>/inscribirse/``), the page where a player named as partner says yes or no
(``/torneos/<slug>/companero/<token>/``, the link mailed to them) and the director's requests
(``/gestion/torneos/<slug>/solicitudes/``). The rule and the writes are
``services.signups``'."""

from __future__ import annotations

from django.contrib import messages
from django.core import signing
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from clubsite.http import form_page
from clubsite.limits import LIMITS, limited, take, too_many
from tournaments import names, notices, services
from tournaments.errors import DomainError
from tournaments.forms import SignUpForm, SignUpSettingsForm
from tournaments.models import Player, SignUp, Tournament
from tournaments.permissions import is_director
from tournaments.services.signups import (
    OPEN,
    move_refusal,
    signup_closed_reason,
    waiting_place,
    who_plays,
)
from tournaments.views import sharing
from tournaments.views.manage.access import (
    director_required,
    managed_tournament,
    one_submission,
    posted_object,
)
from tournaments.views.manage.confirm import place_error
from tournaments.views.visibility import tournament_or_404

#: Where a refusal of ``services.sign_up`` shows on the form.
SIGNUP_FIELDS = {
    "signup_contact": "email",
    "signup_identify": "member_number",
    "signup_partner_required": "partner_name",
    "signup_no_partner": "partner_name",
    "signup_same_partner": "partner_name",
    "player_inactive": "name",
}


@never_cache
@form_page
@limited("signup")
def signup(request, slug):
    """The sign-up form of tournament ``slug`` while it takes sign-ups
    (``signup_closed_reason``; otherwise the page says why), with the places left
    (``Tournament.places_left``), which the form carries back (hidden ``plazas``). A request
    taken goes (303) to the answer, ``?hecho=<signed [id, places shown]>``: which list it is
    on — entered, waiting for a director's approval, or on the waiting list with its place,
    saying so plainly when the form had shown places that others took while it was sent
    (``_signed_signup``); reloading it sends nothing again. A refused form comes back
    with what was typed and the message beside its field (400). Contact details are never
    shown back. A filled trap field (``SignUpForm.website``) is answered as received and
    stores nothing.

    Limits (``clubsite.limits``): every POST counts against the connection ("signup"), and
    every request naming a player against that name, from anywhere ("signup-name": the
    proof of who one is, the member number, email or phone, cannot be guessed by trying).
    A draft's page is its directors' only (``visibility.tournament_or_404``)."""
    t = tournament_or_404(request, slug)
    pairs = t.players_per_entry == 2
    closed = signup_closed_reason(t)
    form = SignUpForm(request.POST or None, pairs=pairs)
    done = _signed_signup(t, request.GET.get("hecho", "")) if request.method != "POST" else None
    status = 200
    if request.method == "POST" and not closed:
        if form.is_valid():
            data = form.cleaned_data
            if data["website"]:
                return render(request, "tournaments/signup.html", {"t": t, "robot": True})
            if take(LIMITS["signup-name"], f"name:{names.key(data['name'])}") is None:
                return too_many(request, LIMITS["signup-name"])
            try:
                done = services.sign_up(
                    tournament=t,
                    name=data["name"],
                    member_number=data["member_number"],
                    email=data["email"],
                    phone=data["phone"],
                    partner_name=data.get("partner_name", ""),
                )
                # The answer is a page of its own (a reload shows it again, never sends the
                # form twice): the request's id, signed, in the address, with the places its
                # form showed when it found none left (the answer then says they went).
                waiting = done.status == SignUp.Status.WAITING
                shown = _places_shown(request.POST.get("plazas", "")) if waiting else None
                token = signing.dumps([done.pk, shown], salt=DONE_SALT)
                return redirect(f"{reverse('public:signup', args=[t.slug])}?hecho={token}")
            except DomainError as exc:
                place_error(form, exc, SIGNUP_FIELDS, by_name={"nombre": "name"})
        if done is None:
            status = 400
    if request.method == "POST" and closed:
        status = 400
    context = {
        "t": t,
        "og": sharing.signup_card(t),
        "form": form,
        "done": done,
        "closed": DomainError(closed).message if closed else None,
        "room": t.places_left(),
    }
    return render(request, "tournaments/signup.html", context, status=status)


DONE_SALT = "tournaments.signup.done"
#: How long the answer page of a request can be opened again (seconds).
DONE_MAX_AGE = 7 * 24 * 60 * 60


#: The most places a form may say it showed (``max_entries`` is a small positive integer).
MOST_PLACES_SHOWN = 32767


def _places_shown(value: str) -> int | None:
    """The places left the sign-up form showed (its hidden ``plazas``: a whole number from 0
    to ``MOST_PLACES_SHOWN``), None when it showed none (no maximum) or sent anything else."""
    value = value.strip()
    if not (value.isascii() and value.isdigit()) or len(value) > 5:
        return None
    shown = int(value)
    return shown if shown <= MOST_PLACES_SHOWN else None


def _signed_signup(t: Tournament, token: str) -> SignUp | None:
    """The request of ``t`` that ``token`` names (``signing.dumps`` of ``[id, places shown]``,
    or of the id alone, as answers were signed before), with ``place``, its place in the
    waiting list (``waiting_place``), and ``shown``, the places left that its form had shown
    (None: unknown or no maximum); None for a missing, forged or expired token."""
    if not token:
        return None
    try:
        signed = signing.loads(token, salt=DONE_SALT, max_age=DONE_MAX_AGE)
    except signing.BadSignature:
        return None
    pk, shown = signed if isinstance(signed, list) and len(signed) == 2 else (signed, None)
    if not isinstance(pk, int) or not (shown is None or isinstance(shown, int)):
        return None
    done = t.signups.select_related("entry__player1", "entry__player2").filter(pk=pk).first()
    if done is not None:
        done.place = waiting_place(done)
        done.shown = shown
    return done


def answered(signup: SignUp) -> str:
    """What the partner's answer to ``signup`` did, in words (the partner's page and the
    account's page say it)."""
    if signup.status == SignUp.Status.DECLINED:
        return _("Hecho: no juegas con {name}; su solicitud no sigue adelante.").format(
            name=signup.name
        )
    if signup.status == SignUp.Status.ACCEPTED:
        return _("Listo: {entry}, inscritos en «{tournament}».").format(
            entry=signup.entry.name, tournament=signup.tournament.name
        )
    if signup.status == SignUp.Status.WAITING:
        return _(
            "Confirmado. El torneo está completo: la pareja con {name} queda en la lista de "
            "espera, en el puesto {place}."
        ).format(name=signup.name, place=waiting_place(signup))
    return _("Confirmado. Un director del torneo revisará la solicitud de {name}.").format(
        name=signup.name
    )


@never_cache
@form_page
def partner(request, slug, token):
    """The page the link mailed to a player named as partner opens
    (``notices.partner_url``): the requests of tournament ``slug`` naming them, those still
    waiting for their word with "Sí, juego" and "No juego" (``action=confirm|decline``,
    ``signup``; ``services.answer_partner``), then the answer in words (redirected here). No
    login: the link is the proof (signed, 30 days, for the email the club holds). A link that
    does not work: 400 and the page says why. Contact details are never shown."""
    t = tournament_or_404(request, slug)
    player = notices.partner_of_token(token, t)
    if player is None:
        return render(request, "tournaments/partner.html", {"t": t, "invalid": True}, status=400)
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action in ("confirm", "decline"):
            asked = posted_object(request, SignUp, "signup", tournament=t, partner=player)
            try:
                done = services.answer_partner(
                    acting_user=None, signup=asked, player=player, confirm=action == "confirm"
                )
                messages.success(request, answered(done))
            except DomainError as exc:
                messages.error(request, exc.message)
        return redirect(request.path)
    asking = list(SignUp.asking(player, t))
    context = {
        "t": t,
        "player": player,
        "asking": asking,
        "others": t.signups.filter(partner=player).exclude(pk__in=[s.pk for s in asking]),
    }
    return render(request, "tournaments/partner.html", context)


def _picked(request, field: str) -> Player | None:
    """The player a director picked in the select ``field`` of a request's row (None when the
    field is absent or empty); 404 for an id that is no player."""
    if not request.POST.get(field, ""):
        return None
    return posted_object(request, Player, field)


@director_required
@form_page
def signups(request, slug):
    """The director's sign-up page: the settings (open, maximum, closing time, approval) and
    the requests (waiting for the partner's word, waiting for approval, the waiting list in
    order, the decided ones), each open one with "accept" and "refuse"
    (``action=accept|refuse``, ``signup``) and what accepting does (``who_plays``: someone new
    to add — a club director's act —, a partner to confirm, a name the club has more than once,
    with its select: ``player_choice``, ``partner_choice``); a request waiting for approval or
    on the waiting list with the button that moves it to the other list where the move
    applies (``services.signups.move_refusal``; ``action=move``, ``signup``, ``to=waiting|pending``,
    ``services.move_signup``), its form with a one-time token (``access.one_submission``: a
    second copy moves nothing and says so). Contact details are shown here only."""
    t = managed_tournament(request, slug)
    settings_form = SignUpSettingsForm(instance=t, prefix="s")
    status = 200
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action == "settings":
            settings_form = SignUpSettingsForm(request.POST, instance=t, prefix="s")
            if settings_form.is_valid():
                data = settings_form.cleaned_data
                try:
                    t = services.update_signup_settings(
                        acting_user=request.user, tournament=Tournament.objects.get(pk=t.pk), **data
                    )
                    messages.success(request, _("Inscripción pública guardada."))
                    return redirect("manage:signups", slug=t.slug)
                except DomainError as exc:
                    place_error(settings_form, exc, {"max_entries_below": "max_entries"})
            status = 400
        elif action in ("accept", "refuse"):
            request_ = posted_object(request, SignUp, "signup", tournament=t)
            try:
                decided = services.decide_signup(
                    acting_user=request.user,
                    signup=request_,
                    accept=action == "accept",
                    player=_picked(request, "player_choice"),
                    partner=_picked(request, "partner_choice"),
                )
                text = (
                    _("{name}: aceptada.")
                    if decided.status == SignUp.Status.ACCEPTED
                    else _("{name}: rechazada.")
                )
                messages.success(request, text.format(name=decided.name))
            except DomainError as exc:
                messages.error(request, exc.message)
            return redirect("manage:signups", slug=t.slug)
        elif action == "move":
            return _move(request, t)
    rows = list(t.signups.select_related("player", "partner").order_by("created_at", "id"))
    for place, row in enumerate((r for r in rows if r.status == SignUp.Status.WAITING), start=1):
        row.place = place
    for row in rows:
        row.tournament = t
        row.who = who_plays(row) if row.status in OPEN else None
        row.moves_to = next((to for to in MOVES.values() if move_refusal(row, to) is None), None)
    context = {
        "t": Tournament.objects.get(pk=t.pk),
        "settings_form": settings_form,
        "club_director": is_director(request.user),
        "unconfirmed": [r for r in rows if r.status == SignUp.Status.UNCONFIRMED],
        "pending": [r for r in rows if r.status == SignUp.Status.PENDING],
        "waiting": [r for r in rows if r.status == SignUp.Status.WAITING],
        "decided": [r for r in rows if r.status not in OPEN],
        "room": t.places_left(),
        "closed": signup_closed_reason(t),
    }
    return render(request, "tournaments/manage/signups.html", context, status=status)


#: The lists the director's page moves a request to (``to``), by the value its button posts.
MOVES = {"waiting": SignUp.Status.WAITING, "pending": SignUp.Status.PENDING}


def _move(request, t: Tournament):
    """The director's move of a request between approval and the waiting list
    (``services.move_signup``), from the sign-up page (``signups``): once per form (its
    one-time token, ``access.one_submission``), then back to the page with what happened, or
    the refusal, in words. A ``to`` other than those of ``MOVES`` moves nothing."""
    page = reverse("manage:signups", args=[t.slug])
    with one_submission(request) as sub:
        if sub.repeated:
            return sub.answer(request, page)
        moving = posted_object(request, SignUp, "signup", tournament=t)
        to = MOVES.get(request.POST.get("to", ""))
        if to is None:
            return redirect(page)
        try:
            moved = services.move_signup(acting_user=request.user, signup=moving, to=to)
        except DomainError as exc:
            messages.error(request, exc.message)
            return redirect(page)
        sub.saved(page)
        if moved.status == SignUp.Status.WAITING:
            text = _("{name}: a la lista de espera, en el puesto {place}.")
        else:
            text = _("{name}: por aprobar.")
        messages.success(request, text.format(name=moved.name, place=moved.place))
    return redirect(page)
