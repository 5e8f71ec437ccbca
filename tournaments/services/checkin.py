"""Check-in on the day (tournament day, part 2): who is present.

A director marks each entry present or absent (``set_present``); a player may mark their own
entry present from their phone with the day's short code shown at the venue
(``check_in_self``, when the tournament allows it). Once some entry is present, every pairing
of the tournament uses the present entries only (``Tournament.entries_to_pair``).
"""

from __future__ import annotations

import secrets
import unicodedata

from django.db import transaction

from tournaments.errors import DomainError
from tournaments.models import Entry, Tournament
from tournaments.writing import audit, lock_entry, lock_tournament

#: The day's code: four characters a person reads off a poster and types on a phone, without
#: the look-alikes 0/O, 1/I/L.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 4


def _check_open(t: Tournament) -> None:
    if t.status == Tournament.Status.FINISHED:
        raise DomainError("check_in_finished")


@transaction.atomic
def set_present(*, acting_user, entry: Entry, present: bool) -> Entry:
    """Mark ``entry`` present (True) or not (False), audited. Returns the entry.
    Raises DomainError "check_in_finished" (the tournament is finished)."""
    entry = lock_entry(entry)
    _check_open(entry.tournament)
    if entry.present != bool(present):
        entry.present = bool(present)
        audit(entry, acting_user).save()
    return entry


@transaction.atomic
def new_check_in_code(*, acting_user, tournament: Tournament) -> Tournament:
    """Draw a new code of the day (``CODE_LENGTH`` characters of ``CODE_ALPHABET``) and allow
    players to check themselves in with it. Returns the tournament.
    Raises DomainError "check_in_finished"."""
    t = lock_tournament(tournament)
    _check_open(t)
    t.check_in_code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    t.self_check_in = True
    audit(t, acting_user).save()
    return t


@transaction.atomic
def stop_self_check_in(*, acting_user, tournament: Tournament) -> Tournament:
    """Players can no longer check themselves in (the code is forgotten). Returns the
    tournament."""
    t = lock_tournament(tournament)
    if t.self_check_in or t.check_in_code:
        t.self_check_in = False
        t.check_in_code = ""
        audit(t, acting_user).save()
    return t


def same_code(typed: str, code: str) -> bool:
    """Whether ``typed`` is the day's ``code``: case, spaces, dashes and full-width forms do
    not matter (NFKC); any other character, accented letters included, is simply not the
    code."""
    normal = unicodedata.normalize("NFKC", typed or "").upper()
    cleaned = "".join(ch for ch in normal if ch.isalnum())
    return bool(code) and secrets.compare_digest(cleaned.encode(), code.upper().encode())


@transaction.atomic
def check_in_self(*, entry: Entry, code: str) -> Entry:
    """A player marks their own ``entry`` present with the day's ``code`` (``same_code``).
    Returns the entry (already present: nothing changes).
    Raises DomainError "check_in_finished", "self_check_in_off" (the tournament does not allow
    it), "check_in_code_wrong"."""
    entry = lock_entry(entry)
    t = entry.tournament
    _check_open(t)
    if not t.self_check_in or not t.check_in_code:
        raise DomainError("self_check_in_off")
    if not same_code(code, t.check_in_code):
        raise DomainError("check_in_code_wrong")
    if not entry.present:
        entry.present = True
        audit(entry, None).save()
    return entry
