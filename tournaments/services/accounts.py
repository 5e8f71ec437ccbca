"""A player's own account: claiming their player record (through the link sent to the email the
club holds, ``tournaments.notices.claim_token``), their contact details and consent to notices,
and the unsubscribe link of every notice.

Only the person does these (the views check the link or the login); the director's side
(anonymising a record) is ``services.players.anonymise_player``.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from tournaments import events
from tournaments.errors import DomainError
from tournaments.models import Player
from tournaments.writing import audit


def _lock_claimable(player: Player) -> Player:
    """``player`` again, locked; raises DomainError "claim_taken" when it belongs to an account
    or was anonymised meanwhile."""
    locked = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
    if locked.user_id is not None or locked.anonymised_at is not None:
        raise DomainError("claim_taken")
    return locked


@transaction.atomic
def claim_player(*, user, player: Player) -> Player:
    """Join ``player`` (a record the claim link named) to ``user``'s account. The account takes
    the record's email when it has none (so the password reset reaches it).

    Raises DomainError "claim_taken" (the record has an account, or was anonymised),
    "claim_own_player" (``user`` already has a record)."""
    player = _lock_claimable(player)
    own = Player.objects.filter(user=user).first()
    if own is not None:
        raise DomainError("claim_own_player", name=own.full_name)
    player.user = user
    audit(player, user).save()
    if not user.email and player.email:
        user.email = player.email
        user.save(update_fields=["email"])
    return player


@transaction.atomic
def create_account_and_claim(*, player: Player, username: str, password: str):
    """Create an account (``username``, ``password``: already checked by the form, Django's
    validators included) with the record's email, and join ``player`` to it. Returns the user.
    Raises DomainError "claim_taken"."""
    player = _lock_claimable(player)
    user = get_user_model().objects.create_user(username, email=player.email, password=password)
    player.user = user
    audit(player, user).save()
    return user


@transaction.atomic
def update_contact(
    *,
    acting_user,
    player: Player,
    email: str,
    phone: str,
    notices_consent: bool,
    current_password: str = "",
) -> Player:
    """A player's own contact details and consent to notices (their page, /cuenta/;
    ``acting_user`` is the account joined to ``player``). The account's email follows the
    record's when it was the same (or empty).

    Changing the email (adding, changing or removing it; case and spaces aside) needs the
    account's ``current_password``: the email is where a password reset goes, so someone at an
    unattended session cannot take the account with it. Once committed, each old address (the
    record's and the account's) is warned (``events.email_changed``).

    Raises DomainError "consent_needs_email" (consent without an email),
    "email_change_password" (the email changes and ``current_password`` is not the account's
    password)."""
    player = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
    email = (email or "").strip()
    if notices_consent and not email:
        raise DomainError("consent_needs_email")
    old = player.email
    user = player.user
    changed = email.lower() != old.strip().lower()
    if changed and (
        acting_user is None
        or not acting_user.is_authenticated
        or not acting_user.check_password(current_password or "")
    ):
        raise DomainError("email_change_password")
    player.email = email
    player.phone = (phone or "").strip()[:40]
    player.notices_consent = bool(notices_consent)
    audit(player, acting_user).save()
    told = {old.strip().lower(): old.strip()} if old.strip() else {}
    if user is not None and email and (not user.email or user.email.lower() == old.lower()):
        if user.email:
            told.setdefault(user.email.strip().lower(), user.email.strip())
        user.email = email
        user.save(update_fields=["email"])
    if changed and told:
        events.send_after_commit(
            events.email_changed,
            old=[told[key] for key in sorted(told)],
            new=email,
            username=(user or acting_user).get_username(),
        )
    return player


@transaction.atomic
def unsubscribe(*, player: Player) -> Player:
    """Stop the notices to ``player`` (the link at the foot of every notice; no login)."""
    player = Player.objects.select_for_update(no_key=True).get(pk=player.pk)
    if player.notices_consent:
        player.notices_consent = False
        player.save()
    return player
