"""The writing helpers under every writer: audit trail, name and number checks, locks and versions.

A layer of its own between the models and the writers (docs/ARCHITECTURE.md, "Layers"): the
services, the scoring systems' ``record`` and the admin use them to write the way the services
do; ``tournaments.services`` re-exports them. It imports only the models and the pure modules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tournaments import names
from tournaments.errors import MESSAGES, DomainError, ResultError
from tournaments.models import MAX_SCORE, Entry, Round, Table, Tournament

#: The longest name (player, tournament) a person may type.
MAX_NAME = 120

# Row locks are ``select_for_update(no_key=True)`` (PostgreSQL FOR NO KEY UPDATE): they serialise
# the writers among themselves exactly as FOR UPDATE would, but do not block the foreign-key
# checks (FOR KEY SHARE) of a ledger replay inserting rows that point at the same tournament,
# table or player; with plain FOR UPDATE, a replay and a writer could deadlock.
#
# ONE LOCK ORDER (docs/ARCHITECTURE.md, "Locks"): every service that changes a tournament's
# data locks the tournament first, then the round, then the table, each in a query of its own
# (``lock_tournament`` → ``lock_round`` → ``lock_table``). Two writers of one tournament
# therefore queue on its row before touching anything else, so they can never deadlock (a
# re-pair and a result save, a round closing and a result save), and every result is
# validated against settings nobody can change until it has committed (a settings change
# holds the same tournament lock).


def lock_tournament(tournament) -> Tournament:
    """``tournament`` (a Tournament or its pk) read again and locked: step 1 of the lock order.
    Raises Tournament.DoesNotExist."""
    pk = getattr(tournament, "pk", tournament)
    return Tournament.objects.select_for_update(no_key=True).get(pk=pk)


def _lock_tournament_of(**lookup) -> Tournament | None:
    """The tournament that ``lookup`` reaches (``rounds=pk``, ``entries=pk``,
    ``rounds__tables=pk``), locked (only its row), or None: one query."""
    return Tournament.objects.select_for_update(no_key=True, of=("self",)).filter(**lookup).first()


def lock_round(rnd) -> Round:
    """``rnd`` (a Round or its pk) locked after its tournament (steps 1–2 of the lock order),
    with ``round.tournament`` the locked tournament. Two queries. Raises Round.DoesNotExist."""
    pk = getattr(rnd, "pk", rnd)
    t = _lock_tournament_of(rounds=pk)
    locked = Round.objects.select_for_update(no_key=True).get(pk=pk)
    locked.tournament = t
    return locked


def lock_entry(entry) -> Entry:
    """``entry`` (an Entry or its pk) locked after its tournament (the lock order's step 1,
    then the entry), with ``entry.tournament`` the locked tournament. Two queries. Raises
    Entry.DoesNotExist."""
    pk = getattr(entry, "pk", entry)
    t = _lock_tournament_of(entries=pk)
    locked = Entry.objects.select_for_update(no_key=True).get(pk=pk)
    locked.tournament = t
    return locked


def lock_table(table: Table) -> Table:
    """``table`` again, locked after its tournament (the lock order's step 1), then with its
    round (one statement: once the tournament is held nobody else can be waiting for either),
    with ``table.round`` and ``table.round.tournament`` the locked rows. Two queries.

    Raises DomainError "table_removed" when the table no longer exists (the round was paired
    again, or the table deleted, while the director was looking at it)."""
    number = getattr(table, "number", "")
    t = _lock_tournament_of(rounds__tables=table.pk)
    locked = (
        Table.objects.select_for_update(no_key=True, of=("self", "round"))
        .select_related("round")
        .filter(pk=table.pk)
        .first()
    )
    if t is None or locked is None:  # removed, maybe while this writer waited for the lock
        raise DomainError("table_removed", table=number)
    locked.round.tournament = t
    return locked


def entered_by(acting_user):
    """The user to store as author (``entered_by``, ``recorded_by``): ``acting_user`` if it is an
    authenticated user, else None (a script, the anonymous user)."""
    return acting_user if getattr(acting_user, "is_authenticated", False) else None


def audit(instance, acting_user):
    """Tell simple-history who made the change being saved; returns ``instance``, so that
    ``audit(obj, user).save()`` reads as one step."""
    user = entered_by(acting_user)
    if user is not None:
        instance._history_user = user
    return instance


def clean_name(value: str, *, field: str, required: bool = True, max_length: int = MAX_NAME) -> str:
    """A name or short text typed by a person, as it is stored: ``tournaments.names.clean``
    (invisible and control characters dropped, every run of whitespace one space, NFC,
    trimmed), then checked.

    ``field`` names it in the error (a ``gettext_noop`` text). Raises DomainError
    "name_required" (empty after cleaning — only spaces or invisible characters — and
    ``required``), "name_too_long" (above ``max_length`` characters after cleaning).
    """
    value = names.clean(value)
    if required and not value:
        raise DomainError("name_required", field=field)
    if len(value) > max_length:
        raise DomainError("name_too_long", field=field, max=max_length)
    return value


#: The messages of ``parse_int`` by what the box holds: (empty box, not a whole number).
NUMBER_MESSAGES = {
    "tantos": ("tantos_missing", "not_integer"),
    "games": ("games_missing", "not_integer_games"),
    "victory_points": ("score_missing", "not_integer_vp"),
}


def _quoted(text: str) -> str:
    """Typed text for a message: as typed, or its first 20 characters and "…" when longer."""
    return text if len(text) <= 20 else text[:20] + "…"


def parse_int(value, field: str, *, kind: str = "tantos") -> int:
    """A whole number typed by a person: "120", " 120 ", "-5" (later refused as negative).

    ``field`` names the box in the messages (a side, "A"/"B", or a seat); ``kind`` says what
    it holds, so the message names the right quantity: "tantos" (dominó), "games" (Swiss) or
    "victory_points" (table games) — ``NUMBER_MESSAGES``.

    Raises ResultError "tantos_missing" (empty; its message by ``kind``), "not_integer" (text,
    decimals, "1e3", NaN, "--5", "²") or "value_too_large" (above ``MAX_SCORE``).
    """
    missing, not_integer = NUMBER_MESSAGES[kind]
    if isinstance(value, bool):
        raise ResultError("not_integer", message=MESSAGES[not_integer], value=value)
    if isinstance(value, int):
        if abs(value) > MAX_SCORE:
            raise ResultError("value_too_large", value=value, max=MAX_SCORE)
        return value
    text = str(value).strip() if value is not None else ""
    if text == "":
        raise ResultError("tantos_missing", message=MESSAGES[missing], side=field, seat=field)
    digits = text[1:] if text.startswith("-") else text
    if digits.isascii() and digits.isdigit():  # not "--5", "²" (int() fails)
        if len(digits) > 5 or int(digits) > MAX_SCORE:
            raise ResultError("value_too_large", value=_quoted(text), max=MAX_SCORE)
        return int(text)
    raise ResultError("not_integer", message=MESSAGES[not_integer], value=_quoted(text))


def check_writable(tbl: Table, version) -> None:
    """Refuse a change to a table of a closed round, a stale version, or an empty table.

    ``version`` is the table version the user saw (None: no check). Raises DomainError
    "round_closed", "stale_version", "table_empty".
    """
    if tbl.round.closed:
        raise DomainError("round_closed", number=tbl.round.number)
    if version is not None and int(version) != tbl.version:
        raise DomainError("stale_version", table=tbl.number)
    if not tbl.seats.exists():
        raise DomainError("table_empty", table=tbl.number)


def bump_version(tbl: Table, acting_user) -> None:
    """A table's result changed: its version grows by one (DESIGN.md, Concurrency), audited.

    The ranking ledger needs nothing more: its replay is scheduled by the model signals of
    ``rankings.signals`` whatever wrote the result."""
    tbl.version += 1
    audit(tbl, acting_user).save()


@dataclass
class ImportReport:
    """What an import did: counts of results created, changed and left unchanged.

    ``warnings``: sentences in Spanish for people, e.g. a name of the file taken as a player
    whose name differs from it only in case, accents or spacing ("Línea 3: «jose perez» se
    tomó como «José Pérez» …", ``imports.reading.Directory``); the import still went through.
    ``new_players``: the full names of the players the import created, in the file's order.
    ``notes``: how the file was read when it was not UTF-8 text ("Leído como Windows-1252 (no
    era UTF-8).", ``imports.reading.FileText.notes``).
    """

    created: int = 0
    changed: int = 0
    unchanged: int = 0
    byes: int = 0
    players_created: int = 0
    entries_created: int = 0
    warnings: list[str] = field(default_factory=list)
    new_players: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
