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
  player has is simply not given to the new player (``decide_signup``). The page limits the
  tries (``clubsite.limits``: per connection, and per name from anywhere).
* The partner is the club's player of that name when there is exactly one; with two or more
  a director chooses which (never a third); with none, someone new.
* Nobody is entered without consent: a partner who is the club's player is asked
  (``UNCONFIRMED``: the link mailed to them, ``answer_partner``, or their account's page) and
  no ``Entry`` exists until they say yes or a director accepts the request for them. A name
  typed by someone else blocks nobody: the partner may still sign up on their own.
* Nobody is added to the club's register by an anonymous request: the people it names who
  are not in the register stay names and contacts on the request until a club director
  (``permissions.is_director``) accepts it; a director of this tournament only is refused in
  words ("signup_needs_club_director"), the request staying for a club director.
* With all that settled (``_settle``, the one path of every request that nobody decides: the
  sign-up itself, the partner's yes, a place freed by ``promote_waiting``), where it goes, in
  either mode, under the tournament's lock (``writing.lock_tournament``: two requests for the
  last place queue on it, and the second finds the place taken): with no place left
  (``Tournament.places_left``, the one count of free places) it waits (``WAITING``, in order
  of arrival, ``created_at``); with a place, approval on (or new people to add, a name to
  choose) it waits for a director (``PENDING``: with approval on it holds its place, so the
  next request finds one fewer); without approval it is entered (``ACCEPTED``).
* A place freed — an entry removed or withdrawn, a request holding one refused or declined —
  or a higher maximum moves the first waiting request up (``promote_waiting``, the one path
  of every such change, until the tournament starts): entered without approval, waiting for
  the director's approval with it. A director moves a request between approval and the
  waiting list (``move_signup``). Whoever accepts, the people are recognised again at that
  moment (``who_plays``), so a request never makes a duplicate of someone added meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from tournaments import events, names
from tournaments.errors import DomainError
from tournaments.models import Entry, Player, SignUp, Tournament, name_key
from tournaments.permissions import is_director
from tournaments.services.players import create_player, similar_players
from tournaments.services.tournaments import register_entry
from tournaments.writing import audit, clean_name, lock_entry, lock_tournament

OPEN_STATUSES = (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION)
#: The requests on their way to an entry (nobody has decided them yet).
OPEN = (SignUp.Status.UNCONFIRMED, SignUp.Status.PENDING, SignUp.Status.WAITING)
#: The requests that keep a name from being asked twice.
LIVE = (*OPEN, SignUp.Status.ACCEPTED)


def signup_closed_reason(t: Tournament, now=None) -> str | None:
    """Why ``t`` takes no sign-up now (a DomainError code), or None when it does:
    "signup_off" (not open), "signup_closed_ready" (sign-up closed, ready to start),
    "signup_started" (already running or finished), "signup_deadline" (past
    ``signup_closes_at``)."""
    if not t.signup_open:
        return "signup_off"
    if t.status == Tournament.Status.READY:
        return "signup_closed_ready"
    if t.status not in OPEN_STATUSES:
        return "signup_started"
    if t.signup_closes_at is not None and (now or timezone.now()) >= t.signup_closes_at:
        return "signup_deadline"
    return None


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


def _asks_partner(s: SignUp) -> bool:
    """Whether ``s`` still waits for the word of the club's player it names as partner."""
    return s.partner_id is not None and s.partner_confirmed_at is None and s.status in OPEN


def _entered(t: Tournament, player: Player) -> bool:
    return t.entries.filter(player1=player).exists() or t.entries.filter(player2=player).exists()


def _already(t: Tournament, player: Player | None, name: str, *, exclude: int | None = None):
    """Refuse a second request for ``player`` (or ``name``) in ``t``: "signup_already_entered"
    (they have an entry), "signup_already_requested" (a live request names them, but for a
    partner's name that still waits for that partner's consent: a name typed by someone else
    blocks nobody). ``exclude``: a request not to count (the one being answered)."""
    key = names.key(name)
    if player is not None and _entered(t, player):
        raise DomainError("signup_already_entered", name=player.full_name)
    for s in t.signups.filter(status__in=LIVE).exclude(pk=exclude):
        named = [names.key(s.name)]
        if s.partner_name and not _asks_partner(s):
            named.append(names.key(s.partner_name))
        if key in named:
            raise DomainError("signup_already_requested", name=name)


@dataclass
class Who:
    """Who a request would enter, as the club's register stands now (``who_plays``).

    ``player`` / ``partner``: their records, when known; ``player_choices``: the club has the
    requester's name but nothing the request gives matches (the name appeared after the
    request), ``partner_choices``: the club has two or more players of the partner's name — in
    both a director picks one, never a new record; ``new_player`` / ``new_partner``: not in the
    register (a club director adds them on accepting); ``partner_unconfirmed``: the partner is
    the club's player and has not said yes."""

    player: Player | None = None
    partner: Player | None = None
    player_choices: list[Player] = field(default_factory=list)
    partner_choices: list[Player] = field(default_factory=list)
    new_player: bool = False
    new_partner: bool = False
    partner_unconfirmed: bool = False

    @property
    def needs_choice(self) -> bool:
        return bool(self.player_choices or self.partner_choices)

    @property
    def adds_people(self) -> bool:
        return self.new_player or self.new_partner


def who_plays(signup: SignUp) -> Who:
    """Who ``signup`` would enter now (``Who``): the records it holds, else the requester
    recognised again by the sign-up's rule (``_known_player``) and the partner by name
    (``similar_players``: one player of that name is them, two or more a director's choice).
    Reads only; a few queries."""
    who = Who(player=signup.player, partner=signup.partner)
    if who.player is None:
        try:
            who.player = _known_player(
                signup.name, signup.member_number, signup.email, signup.phone
            )
        except DomainError:
            who.player_choices = similar_players(signup.name)
        who.new_player = who.player is None and not who.player_choices
    if signup.partner_name:
        if who.partner is None:
            same = similar_players(signup.partner_name)
            if len(same) == 1:
                who.partner = same[0]
            else:
                who.partner_choices = same
                who.new_partner = not same
        who.partner_unconfirmed = who.partner is not None and signup.partner_confirmed_at is None
    return who


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
    """Record a request to play ``tournament`` (see the module's rule) and take it as far as
    it goes by itself (``_settle``, under the tournament's lock): on the waiting list when no
    place is left, else accepted at once when nobody's word is missing and the tournament
    needs no approval, or waiting for a director. Creates no player. Returns the ``SignUp``
    (its ``status`` says what happened: accepted, waiting for the partner, for a director or
    on the waiting list; ``place`` its place in the waiting list, 1 = next, when waiting). A
    partner asked for their word is told once the transaction commits
    (``events.partner_named``).

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
    same = similar_players(partner_name) if partner_name else []
    partner = same[0] if len(same) == 1 else None
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
    _settle(signup, None)
    _save(signup, None, was=None)
    signup.place = waiting_place(signup)
    return signup


def waiting_place(signup: SignUp) -> int | None:
    """``signup``'s place in its tournament's waiting list (1 = next; the list is in order of
    arrival, ``created_at``), None unless waiting. One query."""
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


def _save(signup: SignUp, acting_user, *, was: str | None) -> None:
    """Save ``signup`` (audited) and, when it has just come to wait for its partner (from
    ``was``), tell the partner once the transaction commits (``events.partner_named``)."""
    audit(signup, acting_user).save()
    if signup.status == SignUp.Status.UNCONFIRMED and was != SignUp.Status.UNCONFIRMED:
        events.send_after_commit(events.partner_named, signup_id=signup.pk)


def _enter(signup: SignUp, acting_user, players: list[Player]) -> None:
    """Make the entry of ``signup`` (not saved yet) for ``players``; accepted."""
    signup.entry = register_entry(
        acting_user=acting_user, tournament=signup.tournament, players=players
    )
    signup.status = SignUp.Status.ACCEPTED
    signup.decided_at = timezone.now()
    signup.decided_by = acting_user if getattr(acting_user, "pk", None) else None


def _settle(signup: SignUp, acting_user) -> None:
    """Where ``signup`` goes (not saved; its tournament locked by the caller, so the count of
    places cannot change meanwhile) with nobody deciding — the sign-up itself, the partner's
    yes, a place freed (``promote_waiting``) — never creating a player nor entering anyone who
    has not said yes. The one rule, the same in both modes:

    a partner who is the club's player and has not confirmed → ``UNCONFIRMED`` (no place
    taken); no place left (``Tournament.places_left``) → ``WAITING``; new people to add, a name
    to choose, a player who is inactive or entered meanwhile, or approval on → ``PENDING`` (a
    director decides; with approval on it now holds a place); else the entry (``ACCEPTED``).
    Records recognised since the request are taken (``who_plays``), never duplicated."""
    t = signup.tournament
    who = who_plays(signup)
    signup.player = signup.player or who.player
    signup.partner = signup.partner or who.partner
    players = [who.player] + ([who.partner] if signup.partner_name else [])
    if who.partner_unconfirmed:
        signup.status = SignUp.Status.UNCONFIRMED
    elif t.places_left(but=signup.pk) == 0:
        signup.status = SignUp.Status.WAITING
    elif (
        who.adds_people
        or who.needs_choice
        or t.signup_needs_approval
        or any(not p.active or _entered(t, p) for p in players)
    ):
        signup.status = SignUp.Status.PENDING
    else:
        _enter(signup, acting_user, players)


def _chosen(chosen: Player | None, choices: list[Player], name: str) -> Player | None:
    """The director's pick ``chosen`` when it is one of ``choices`` (None: no pick). Raises
    "signup_not_a_choice" for a player that is not one of them."""
    if chosen is None:
        return None
    if chosen.pk not in {p.pk for p in choices}:
        raise DomainError("signup_not_a_choice", player=chosen.full_name, name=name)
    return chosen


@transaction.atomic
def decide_signup(
    *,
    acting_user,
    signup: SignUp,
    accept: bool,
    player: Player | None = None,
    partner: Player | None = None,
) -> SignUp:
    """A director accepts (creating the entry) or refuses a request that nobody has decided
    (waiting for its partner, for a director or on the waiting list). Returns it.

    Accepting takes the people as the register has them now (``who_plays``: someone added
    since the request is taken, not duplicated); ``player`` / ``partner`` are the director's
    pick when the club has that name more than once (``Who.player_choices`` /
    ``partner_choices``). The director's acceptance is the partner's confirmation. The people
    not in the register are added (``create_player``) only by a club director
    (``permissions.is_director``). Accepting needs a place: the request's own when it holds
    one (waiting for approval, approval on), else one nobody holds
    (``Tournament.places_left``). Refusing frees the place of a request that held one: the
    waiting list moves up (``promote_waiting``).

    Raises DomainError "signup_decided" (already accepted or refused), "signup_choose" (a
    name the club has more than once, no pick), "signup_not_a_choice" (a pick of another
    name), "signup_needs_club_director" (new people, a director of this tournament only),
    "signup_full" (the entries fill the maximum: raise it first), "signup_places_held" (the
    places left are held by requests waiting for approval), and those of ``register_entry``
    and ``create_player``."""
    t = lock_tournament(signup.tournament)
    signup = SignUp.objects.select_for_update().get(pk=signup.pk)
    signup.tournament = t
    if signup.status not in OPEN:
        raise DomainError("signup_decided", name=signup.name)
    if accept:
        who = who_plays(signup)
        who.player = _chosen(player, who.player_choices, signup.name) or who.player
        who.partner = _chosen(partner, who.partner_choices, signup.partner_name) or who.partner
        if who.player is None and who.player_choices:
            raise DomainError("signup_choose", name=signup.name)
        if signup.partner_name and who.partner is None and who.partner_choices:
            raise DomainError("signup_choose", name=signup.partner_name)
        if who.adds_people and not is_director(acting_user):
            new = [signup.name] if who.new_player else []
            new += [signup.partner_name] if who.new_partner else []
            raise DomainError("signup_needs_club_director", names=" & ".join(new))
        if t.max_entries is not None and t.entries_in_places().count() >= t.max_entries:
            raise DomainError("signup_full", most=t.max_entries)
        holds_place = t.signup_needs_approval and signup.status == SignUp.Status.PENDING
        if not holds_place and t.places_left(but=signup.pk) == 0:
            raise DomainError("signup_places_held", name=signup.name)
        if who.new_player:
            # a member number another player has is left off, never refused: a refusal would
            # tell a stranger which numbers exist (the request keeps what was typed)
            who.player = create_player(
                acting_user=acting_user,
                full_name=signup.name,
                member_number=signup.member_number or None,
                email=signup.email,
                phone=signup.phone,
                drop_taken_member_number=True,
            )
        if who.new_partner:
            who.partner = create_player(acting_user=acting_user, full_name=signup.partner_name)
        signup.player = who.player
        if signup.partner_name:
            signup.partner = who.partner
            signup.partner_confirmed_at = signup.partner_confirmed_at or timezone.now()
        players = [who.player] + ([who.partner] if signup.partner_name else [])
        _enter(signup, acting_user, players)
    else:
        signup.status = SignUp.Status.REFUSED
        signup.decided_at = timezone.now()
        signup.decided_by = acting_user
    audit(signup, acting_user).save()
    if not accept:
        promote_waiting(acting_user=acting_user, tournament=t)
    return signup


@transaction.atomic
def answer_partner(*, acting_user, signup: SignUp, player: Player, confirm: bool) -> SignUp:
    """The club's player ``player``, named as partner by ``signup``, says yes (``confirm``) or
    no: from the link mailed to them (``acting_user`` None) or their account's page. Yes: the
    request goes on its way (``_settle``: accepted when there is room and no approval, else
    waiting or for a director); no: ``DECLINED``, nobody is entered (a place the request held
    goes to the waiting list, ``promote_waiting``). The closing time is for
    new requests: a request made in time may be answered until the tournament starts. Returns
    the request.

    Raises DomainError "signup_not_asking" (the request does not name them, or no longer waits
    for their word), "signup_started" (the tournament is running or over), and, to a yes,
    "signup_already_entered" / "signup_already_requested" (they play it already, or asked
    with someone else)."""
    t = lock_tournament(signup.tournament)
    signup = SignUp.objects.select_for_update().get(pk=signup.pk)
    signup.tournament = t
    if signup.partner_id != player.pk or not _asks_partner(signup):
        raise DomainError("signup_not_asking", name=signup.name)
    if t.status not in OPEN_STATUSES:
        raise DomainError("signup_started")
    was = signup.status
    user = acting_user if getattr(acting_user, "pk", None) else None
    if confirm:
        _already(t, player, player.full_name, exclude=signup.pk)
        signup.partner_confirmed_at = timezone.now()
        if signup.status == SignUp.Status.UNCONFIRMED:
            _settle(signup, None)  # accepted by the rule, not decided by anyone
    else:
        signup.status = SignUp.Status.DECLINED
        signup.decided_at = timezone.now()
        signup.decided_by = user
    _save(signup, user, was=was)
    if not confirm:
        promote_waiting(acting_user=user, tournament=t)
    return signup


@transaction.atomic
def promote_waiting(*, acting_user, tournament: Tournament) -> list[SignUp]:
    """The one path of a place freed or added — an entry removed (``remove_entry``) or
    withdrawn (``services.drop_entry``, through ``events.place_freed``), a request holding a
    place refused or declined, a higher maximum (``update_signup_settings``): while the
    tournament has places left (``Tournament.places_left``) and has not started, the first
    waiting request (in order of arrival) goes where the one rule sends it (``_settle``):
    without approval entered (``ACCEPTED``, its entry made), with approval to the director
    (``PENDING``, holding the place). One that now needs someone's word first (a partner
    found in the register: ``UNCONFIRMED``, asked once the transaction commits) or a club
    director's act (new people, a name to choose: ``PENDING`` without approval) takes no
    place, and the next goes up. Never creates a player. Returns the requests moved, in
    order, with their new status."""
    t = lock_tournament(tournament)
    moved: list[SignUp] = []
    if t.status not in OPEN_STATUSES:
        return moved
    for signup in t.signups.filter(status=SignUp.Status.WAITING).order_by("created_at", "id"):
        if t.places_left() == 0:
            break
        signup.tournament = t
        _settle(signup, acting_user)
        _save(signup, acting_user, was=SignUp.Status.WAITING)
        moved.append(signup)
    return moved


def place_freed(sender, *, tournament: Tournament, acting_user, **kwargs) -> None:
    """Listener of ``events.place_freed`` (an entry withdrawn, ``services.drop_entry``;
    connected by ``tournaments.apps``): the waiting list moves up (``promote_waiting``), in
    the withdrawal's transaction, before the tournament starts (``tournament`` is the row the
    withdrawal locked: no query after it)."""
    if tournament.status in OPEN_STATUSES:
        promote_waiting(acting_user=acting_user, tournament=tournament)


#: The lists a director moves a request between (``move_signup``).
MOVABLE = (SignUp.Status.PENDING, SignUp.Status.WAITING)


def move_refusal(signup: SignUp, to: str) -> DomainError | None:
    """Why ``signup`` (with its tournament as the caller read or locked it) cannot move to
    ``to`` (``SignUp.Status.PENDING`` or ``WAITING``), or None when it can:
    "signup_not_movable" (neither waiting for approval nor on the waiting list),
    "signup_already_there", and, to the waiting list, "signup_room_left" (a place is left
    for it, ``Tournament.places_left``: the list would give it straight back). No query but
    the count of places; the director's page asks it of each row to show only the moves that
    apply."""
    if signup.status not in MOVABLE:
        return DomainError(
            "signup_not_movable", name=signup.name, status=signup.get_status_display()
        )
    if signup.status == to:
        return DomainError(
            "signup_already_there", name=signup.name, status=signup.get_status_display()
        )
    if to == SignUp.Status.WAITING and signup.tournament.places_left(but=signup.pk) != 0:
        return DomainError("signup_room_left", name=signup.name)
    return None


@transaction.atomic
def move_signup(*, acting_user, signup: SignUp, to: str) -> SignUp:
    """A director moves ``signup`` between the two lists that wait for a place: waiting for
    approval (``PENDING``) → the waiting list (``WAITING``), or back (``to``). Under the
    tournament's lock, audited (its history names the director).

    To the waiting list only when no place is left for it (a request left for approval
    although the tournament was full, as before this rule; one the director would rather
    have wait): it takes its place there by arrival (``created_at``), like every waiting
    request, and moves up with them (``promote_waiting``). Back to approval at any time: with
    approval on it holds a place again, beyond the maximum if need be (nobody else is let in
    meanwhile; accepting it still needs the entries below the maximum, "signup_full"). A
    move frees no place, so nobody else moves. Returns the request (``place``: its place in
    the waiting list, when waiting).

    Raises ValueError for a ``to`` other than those two; DomainError as ``move_refusal``
    says ("signup_not_movable", "signup_already_there", "signup_room_left")."""
    if to not in MOVABLE:
        raise ValueError(f"a request moves to one of {MOVABLE}, not {to!r}")
    t = lock_tournament(signup.tournament)
    signup = SignUp.objects.select_for_update().get(pk=signup.pk)
    signup.tournament = t
    refusal = move_refusal(signup, to)
    if refusal is not None:
        raise refusal
    signup.status = to
    audit(signup, acting_user).save()
    signup.place = waiting_place(signup)
    return signup


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
    """Change the sign-up settings of ``tournament``; places that appear (a higher maximum, or
    none) move the waiting list up (``promote_waiting``: as many requests as new places).
    Returns the tournament. Raises DomainError "max_entries_below" (a maximum below the
    entries already in places, ``Tournament.entries_in_places``)."""
    t = lock_tournament(tournament)
    count = t.entries_in_places().count()
    if max_entries is not None and max_entries < count:
        raise DomainError("max_entries_below", most=max_entries, count=count)
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
