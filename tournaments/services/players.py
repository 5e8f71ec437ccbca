"""Players: register, change, (de)activate, delete; the duplicate-name warning."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from clubsite import taskqueue
from tournaments import names
from tournaments.errors import DomainError, gettext_noop
from tournaments.models import Entry, Player, SignUp, name_key
from tournaments.permissions import is_director
from tournaments.writing import audit, clean_name


def similar_players(full_name: str, *, exclude_id: int | None = None) -> list[Player]:
    """The players whose name is ``full_name`` up to case, accents, spacing and invisible
    characters (equal ``names.key``: "José Pérez", "JOSE  PEREZ" and "Jose Perez" with a
    zero-width space), in the players' order (name, id), without ``exclude_id``: the player
    form's duplicate warning. One query on the indexed ``name_key``; [] for a name whose key is
    empty."""
    wanted = names.key(full_name)
    if not wanted:
        return []
    qs = Player.objects.filter(name_key=name_key(full_name))
    if exclude_id:
        qs = qs.exclude(pk=exclude_id)
    return [p for p in qs if names.key(p.full_name) == wanted]


def _check_member_number(
    member_number: str | None, exclude_id: int | None, *, drop_taken: bool = False
) -> str | None:
    """The member number trimmed (None if empty). Raises DomainError "member_number_too_long",
    "member_number_taken" (another player has it, ignoring case), or with ``drop_taken``
    returns None for a taken one (the same one query either way)."""
    member_number = (member_number or "").strip() or None
    if member_number is None:
        return None
    if len(member_number) > 20:
        raise DomainError("member_number_too_long")
    qs = Player.objects.filter(member_number__iexact=member_number)
    if exclude_id:
        qs = qs.exclude(pk=exclude_id)
    if qs.exists():
        if drop_taken:
            return None
        raise DomainError("member_number_taken", number=member_number)
    return member_number


@transaction.atomic
def create_player(
    *,
    acting_user,
    full_name: str,
    nickname: str = "",
    member_number: str | None = None,
    email: str = "",
    phone: str = "",
    notices_consent: bool = False,
    drop_taken_member_number: bool = False,
) -> Player:
    """Register a player. The name and nickname are stored cleaned (``clean_name``: invisible
    and control characters dropped, spaces collapsed, NFC). ``notices_consent``: the player
    agreed to notices by email (told the club in person or in writing); kept only with an
    email. ``drop_taken_member_number``: a member number another player has is left out
    instead of refused (the public sign-up: its answer must not tell which numbers exist).

    Only a club director may add players to the club (``permissions.is_director``: the player
    form's rule, here once for every path, CSV imports included); ``acting_user`` None (a
    management command, a script) may too. A director of one tournament only may not.

    Raises DomainError "import_cannot_create_players" (not a club director), "name_required",
    "name_too_long", "member_number_taken". Duplicate names are allowed (see
    ``similar_players`` for the warning).
    """
    name = clean_name(full_name, field=gettext_noop("nombre"))
    if acting_user is not None and not is_director(acting_user):
        raise DomainError("import_cannot_create_players", name=name)
    player = Player(
        full_name=name,
        nickname=clean_name(nickname, field=gettext_noop("apodo"), required=False, max_length=60),
        member_number=_check_member_number(
            member_number, None, drop_taken=drop_taken_member_number
        ),
        email=(email or "").strip(),
        phone=(phone or "").strip()[:40],
    )
    player.notices_consent = bool(notices_consent and player.email)
    audit(player, acting_user).save()
    return player


@transaction.atomic
def update_player(
    *,
    acting_user,
    player: Player,
    full_name: str,
    nickname: str = "",
    member_number: str | None = None,
    email: str = "",
    phone: str = "",
    active: bool = True,
    notices_consent: bool | None = None,
) -> Player:
    """Change a player's data; same validation as ``create_player``. ``notices_consent``
    None leaves the consent as it is (it is dropped with the email all the same)."""
    player = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
    player.full_name = clean_name(full_name, field=gettext_noop("nombre"))
    player.nickname = clean_name(
        nickname, field=gettext_noop("apodo"), required=False, max_length=60
    )
    player.member_number = _check_member_number(member_number, player.pk)
    player.email = (email or "").strip()
    player.phone = (phone or "").strip()[:40]
    player.active = active
    if notices_consent is not None:
        player.notices_consent = bool(notices_consent)
    player.notices_consent = player.notices_consent and bool(player.email)
    audit(player, acting_user).save()
    return player


@transaction.atomic
def set_player_active(*, acting_user, player: Player, active: bool) -> Player:
    """Activate or deactivate a player (deactivated players are hidden from new registrations)."""
    player = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
    player.active = active
    audit(player, acting_user).save()
    return player


@transaction.atomic
def delete_player(*, acting_user, player: Player) -> None:
    """Delete a player who never played. Raises DomainError "player_has_results" otherwise."""
    player = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
    if (
        player.has_results()
        or Entry.objects.filter(player1=player).exists()
        or Entry.objects.filter(player2=player).exists()
    ):
        raise DomainError("player_has_results", name=player.full_name)
    audit(player, acting_user).delete()


def anonymous_name(player: Player) -> str:
    """ "Jugador 123": the name an anonymised record takes (its id), in the club's words."""
    return f"Jugador {player.pk}"


@transaction.atomic
def anonymise_player(*, acting_user, player: Player) -> Player:
    """Anonymise a player on their request: the name becomes "Jugador <id>"; nickname, member
    number, email and phone are erased, also from the record's history and from the sign-up
    requests that name them (and their history); consent to notices goes, the account is
    unlinked (the account itself stays: it may be a director's) and the record is deactivated.
    Results, castigos and the ranking stay, under the new name. Audited: the history keeps
    who anonymised it and when (``anonymised_at``). The emails (the record's, and those its
    sign-up requests were made with) are erased from the background tasks' queue too (``clubsite.taskqueue.scrub``: a claim link or a reset mail still
    waiting sends nothing).

    The page that calls it is a club director's (``permissions.is_director``). Raises
    DomainError "player_anonymised" (already done)."""
    player = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
    if player.anonymised_at is not None:
        raise DomainError("player_anonymised", name=player.full_name)
    name = anonymous_name(player)
    typed = SignUp.objects.filter(player=player).exclude(email="").values_list("email", flat=True)
    for email in {e.strip().lower() for e in [player.email, *typed] if e.strip()}:
        taskqueue.scrub(email)
    erased = {"nickname": "", "member_number": None, "email": "", "phone": ""}
    Player.history.filter(id=player.pk).update(full_name=name, name_key=name_key(name), **erased)
    for field, value in erased.items():
        setattr(player, field, value)
    player.full_name = name
    player.notices_consent = False
    player.user = None
    player.active = False
    player.anonymised_at = timezone.now()
    audit(player, acting_user).save()
    # The sign-up requests keep what was typed (name, contact): erased the same way.
    requests = list(SignUp.objects.filter(Q(player=player) | Q(partner=player)))
    for signup in requests:
        if signup.player_id == player.pk:
            signup.name, signup.member_number, signup.email, signup.phone = name, "", "", ""
        if signup.partner_id == player.pk:
            signup.partner_name = name
        audit(signup, acting_user).save()
    own = [s.pk for s in requests if s.player_id == player.pk]
    partnered = [s.pk for s in requests if s.partner_id == player.pk]
    SignUp.history.filter(id__in=own).update(name=name, member_number="", email="", phone="")
    SignUp.history.filter(id__in=partnered).update(partner_name=name)
    return player
