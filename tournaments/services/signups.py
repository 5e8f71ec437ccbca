"""Public sign-up (tournament day, part 1): players ask to play from
``/torneos/<slug>/inscribirse/``; the tournament's settings say whether it is open, until when,
for how many entries and whether a director approves each request.

The rule (one place, here):

* A request names one player, or a pair in a pairs tournament (the partner by name only).
* A known player is recognised by name (``names.key``: case, accents and spacing aside) plus
  their member number, email or phone as the club has them; a name the club already has without a
  matching number or email is refused (nobody signs up in someone else's name, and the club
  gets no duplicate). Someone new leaves a name and a contact (email or phone).
* No answer tells whether a member number, email or phone belongs to someone: the refusal of a
  known name is one sentence whatever was typed, and a newcomer's member number that another
  player has is simply not given to the new player (``_accept``). The page limits the tries
  (``clubsite.limits``: per connection, and per name from anywhere).
* The partner is the club's player of that name when there is exactly one, else a new player.
* Accepted at once when the tournament needs no approval and has room (``max_entries``); with
  no room the request waits (``WAITING``, first come first served, moved up by
  ``promote_waiting`` when room appears); with approval on it waits for a director
  (``PENDING``). Accepting creates the players that are new and the ``Entry``.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from tournaments import names
from tournaments.errors import DomainError
from tournaments.models import Entry, Player, SignUp, Tournament, name_key
from tournaments.services.players import create_player
from tournaments.services.tournaments import register_entry
from tournaments.writing import audit, clean_name, lock_entry, lock_tournament

OPEN_STATUSES = (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION)
LIVE = (SignUp.Status.PENDING, SignUp.Status.WAITING, SignUp.Status.ACCEPTED)


def signup_closed_reason(t: Tournament, now=None) -> str | None:
    """Why ``t`` takes no sign-up now (a DomainError code), or None when it does:
    "signup_off" (not open), "signup_started" (already running or finished),
    "signup_deadline" (past ``signup_closes_at``)."""
    if not t.signup_open:
        return "signup_off"
    if t.status not in OPEN_STATUSES:
        return "signup_started"
    if t.signup_closes_at is not None and (now or timezone.now()) >= t.signup_closes_at:
        return "signup_deadline"
    return None


def room_left(t: Tournament) -> int | None:
    """How many more entries ``t`` takes (never below 0), None without a maximum."""
    if t.max_entries is None:
        return None
    return max(0, t.max_entries - t.entries.count())


def _digits(phone: str) -> str:
    """A phone number's digits only ("+52 55 1234-5678" → "525512345678")."""
    return "".join(ch for ch in phone if ch.isdigit())


def _same_phone(a: str, b: str) -> bool:
    """Whether two phones' digits are the same number: equal, or one the other with a country
    or area prefix in front; the shorter has at least 8 digits."""
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 8 and long_.endswith(short)


def _known_player(name: str, member_number: str, email: str, phone: str = "") -> Player | None:
    """The club's player called ``name`` whose member number, email or phone (``_same_phone``)
    is the one given; None when the club has nobody of that name. Raises
    "signup_identify" when it has someone of that name but nothing given matches."""
    same = list(Player.objects.filter(name_key=name_key(name)))
    if not same:
        return None
    number, mail, digits = member_number.strip().upper(), email.strip().lower(), _digits(phone)
    for p in same:
        if number and (p.member_number or "").upper() == number:
            return p
        if mail and p.email.lower() == mail:
            return p
        if _same_phone(digits, _digits(p.phone)):
            return p
    raise DomainError("signup_identify", name=name)


def _partner(name: str) -> Player | None:
    """The club's only player called ``name`` (up to case, accents, spacing), else None."""
    same = list(Player.objects.filter(name_key=name_key(name))[:2])
    return same[0] if len(same) == 1 else None


def _already(t: Tournament, player: Player | None, name: str) -> None:
    key = names.key(name)
    if player is not None and (
        t.entries.filter(player1=player).exists() or t.entries.filter(player2=player).exists()
    ):
        raise DomainError("signup_already_entered", name=player.full_name)
    for s in t.signups.filter(status__in=LIVE):
        if key in (names.key(s.name), names.key(s.partner_name)):
            raise DomainError("signup_already_requested", name=name)


@transaction.atomic
def sign_up(
    *,
    tournament: Tournament,
    name: str,
    member_number: str = "",
    email: str = "",
    phone: str = "",
    partner_name: str = "",
    now=None,
) -> SignUp:
    """Record a request to play ``tournament`` (see the module's rule) and, when it needs no
    approval and there is room, accept it at once. Returns the ``SignUp`` (its ``status``
    says what happened; ``place`` its place in the waiting list, when waiting).

    Raises DomainError "signup_off", "signup_started", "signup_deadline", "name_required",
    "name_too_long", "signup_contact" (someone new without email or phone), "signup_identify",
    "signup_partner_required" / "signup_no_partner" (pairs or not), "signup_same_partner",
    "signup_already_entered", "signup_already_requested", "player_inactive"."""
    t = lock_tournament(tournament)
    reason = signup_closed_reason(t, now)
    if reason:
        raise DomainError(reason)
    name = clean_name(name, field=gettext_noop("nombre"))
    pairs = t.players_per_entry == 2
    partner_name = clean_name(partner_name, field=gettext_noop("compañero"), required=False)
    if pairs and not partner_name:
        raise DomainError("signup_partner_required")
    if not pairs and partner_name:
        raise DomainError("signup_no_partner")
    if partner_name and names.key(partner_name) == names.key(name):
        raise DomainError("signup_same_partner")
    member_number = member_number.strip()[:20]
    email = email.strip()[:254]
    phone = clean_name(phone, field=gettext_noop("teléfono"), required=False, max_length=40)
    player = _known_player(name, member_number, email, phone)
    if player is None and not (email or phone):
        raise DomainError("signup_contact")
    partner = _partner(partner_name) if partner_name else None
    for p in (player, partner):
        if p is not None and not p.active:
            raise DomainError("player_inactive", name=p.full_name)
    _already(t, player, name)
    if partner_name:
        _already(t, partner, partner_name)
    signup = SignUp(
        tournament=t,
        name=player.full_name if player else name,
        partner_name=partner.full_name if partner else partner_name,
        member_number=member_number,
        email=email,
        phone=phone,
        player=player,
        partner=partner,
    )
    if t.signup_needs_approval:
        signup.status = SignUp.Status.PENDING
    elif room_left(t) == 0:
        signup.status = SignUp.Status.WAITING
    else:
        _accept(signup, None)
    audit(signup, None).save()
    signup.place = waiting_place(signup)
    return signup


def waiting_place(signup: SignUp) -> int | None:
    """``signup``'s place in its tournament's waiting list (1 = next), None unless waiting."""
    if signup.status != SignUp.Status.WAITING:
        return None
    return (
        signup.tournament.signups.filter(
            status=SignUp.Status.WAITING, created_at__lte=signup.created_at
        )
        .exclude(pk=signup.pk)
        .count()
        + 1
    )


def _accept(signup: SignUp, acting_user) -> None:
    """Create the new players and the entry of ``signup`` (not saved yet); the tournament is
    locked by the caller. A new player's member number is the one typed unless another player
    has it: then the new player gets none (the request keeps what was typed, for the
    director), never a refusal that would tell a stranger which member numbers exist."""
    t = signup.tournament
    if signup.player is None:
        signup.player = create_player(
            acting_user=None,
            full_name=signup.name,
            member_number=signup.member_number or None,
            email=signup.email,
            phone=signup.phone,
            drop_taken_member_number=True,
        )
    if signup.partner_name and signup.partner is None:
        signup.partner = create_player(acting_user=None, full_name=signup.partner_name)
    players = [signup.player] + ([signup.partner] if signup.partner_name else [])
    signup.entry = register_entry(acting_user=acting_user, tournament=t, players=players)
    signup.status = SignUp.Status.ACCEPTED
    signup.decided_at = timezone.now()
    signup.decided_by = acting_user if getattr(acting_user, "pk", None) else None


@transaction.atomic
def decide_signup(*, acting_user, signup: SignUp, accept: bool) -> SignUp:
    """A director accepts (creating the entry) or refuses a pending or waiting request.
    Returns it. Raises DomainError "signup_decided" (already accepted or refused),
    "signup_full" (accepting with no room left: raise the maximum first), and those of
    ``register_entry`` and ``create_player``."""
    t = lock_tournament(signup.tournament)
    signup = SignUp.objects.select_for_update().get(pk=signup.pk)
    signup.tournament = t
    if signup.status not in (SignUp.Status.PENDING, SignUp.Status.WAITING):
        raise DomainError("signup_decided", name=signup.name)
    if accept:
        if room_left(t) == 0:
            raise DomainError("signup_full", most=t.max_entries)
        _accept(signup, acting_user)
    else:
        signup.status = SignUp.Status.REFUSED
        signup.decided_at = timezone.now()
        signup.decided_by = acting_user
    audit(signup, acting_user).save()
    return signup


@transaction.atomic
def promote_waiting(*, acting_user, tournament: Tournament) -> list[SignUp]:
    """Accept the waiting requests, oldest first, while there is room (a tournament without
    approval only: with approval the director decides). Returns those accepted."""
    t = lock_tournament(tournament)
    accepted = []
    if t.signup_needs_approval:
        return accepted
    for signup in t.signups.filter(status=SignUp.Status.WAITING).order_by("created_at", "id"):
        if room_left(t) == 0:
            break
        signup.tournament = t
        _accept(signup, acting_user)
        audit(signup, acting_user).save()
        accepted.append(signup)
    return accepted


@transaction.atomic
def update_signup_settings(
    *,
    acting_user,
    tournament: Tournament,
    signup_open: bool,
    max_entries: int | None,
    signup_closes_at,
    signup_needs_approval: bool,
) -> Tournament:
    """Change the sign-up settings of ``tournament``; room that appears moves the waiting list
    up (``promote_waiting``). Returns the tournament. Raises DomainError
    "max_entries_below" (a maximum below the entries already accepted)."""
    t = lock_tournament(tournament)
    if max_entries is not None and max_entries < t.entries.count():
        raise DomainError("max_entries_below", most=max_entries, count=t.entries.count())
    t.signup_open = bool(signup_open)
    t.max_entries = max_entries
    t.signup_closes_at = signup_closes_at
    t.signup_needs_approval = bool(signup_needs_approval)
    audit(t, acting_user).save()
    promote_waiting(acting_user=acting_user, tournament=t)
    return t


@transaction.atomic
def remove_entry(*, acting_user, entry: Entry) -> None:
    """Remove an entry that has not played (seated or rested); the room it leaves goes to the
    waiting list (``promote_waiting``). Raises "entry_has_results" otherwise."""
    entry = lock_entry(entry)
    if entry.seats.exists() or entry.byes.exists():
        raise DomainError("entry_has_results", name=entry.name)
    audit(entry, acting_user).delete()
    promote_waiting(acting_user=acting_user, tournament=entry.tournament)
