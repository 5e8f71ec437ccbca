"""Players: register, change, (de)activate, delete; the duplicate-name warning."""

from __future__ import annotations

from django.db import transaction

from tournaments import names
from tournaments.errors import DomainError, gettext_noop
from tournaments.models import Entry, Player, name_key
from tournaments.permissions import is_director
from tournaments.services.common import audit, clean_name


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


def _check_member_number(member_number: str | None, exclude_id: int | None) -> str | None:
    """The member number trimmed (None if empty). Raises DomainError "member_number_too_long",
    "member_number_taken" (another player has it, ignoring case)."""
    member_number = (member_number or "").strip() or None
    if member_number is None:
        return None
    if len(member_number) > 20:
        raise DomainError("member_number_too_long")
    qs = Player.objects.filter(member_number__iexact=member_number)
    if exclude_id:
        qs = qs.exclude(pk=exclude_id)
    if qs.exists():
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
) -> Player:
    """Register a player. The name and nickname are stored cleaned (``clean_name``: invisible
    and control characters dropped, spaces collapsed, NFC).

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
        member_number=_check_member_number(member_number, None),
        email=(email or "").strip(),
        phone=(phone or "").strip()[:40],
    )
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
) -> Player:
    """Change a player's data; same validation as ``create_player``."""
    player = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
    player.full_name = clean_name(full_name, field=gettext_noop("nombre"))
    player.nickname = clean_name(
        nickname, field=gettext_noop("apodo"), required=False, max_length=60
    )
    player.member_number = _check_member_number(member_number, player.pk)
    player.email = (email or "").strip()
    player.phone = (phone or "").strip()[:40]
    player.active = active
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
