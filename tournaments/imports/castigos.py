"""The castigos file (SCORING.md §1, Castigos): one castigo per line, all or nothing.

Header exactly ``CASTIGOS_HEADER``::

    round,player,tantos,reason
    1,Bruno Castillo,25,Habló durante la mano
    ,Gloria Hinojosa,10,Llegó tarde

Each line is read here (its round and player); each castigo is charged through
``services.add_castigo``, whose rules are the castigo form's (tantos 1–``MAX_SCORE``, a reason),
and whose refusals are listed with their line.
"""

from __future__ import annotations

from collections import Counter

from django.db import transaction
from django.utils.translation import gettext_noop, ngettext

from tournaments import names, services, systems
from tournaments.errors import DomainError
from tournaments.imports.reading import (
    MAX_ROUND,
    Errors,
    choose_player,
    field_count,
    loose_warning,
    open_file,
    player_candidates,
    positive,
    read_rows,
)
from tournaments.models import Castigo, Player, Round, Tournament

CASTIGOS_HEADER = ("round", "player", "tantos", "reason")


def _whole(value: str) -> int | None:
    """The tantos of a line as a number, to compare with the castigos already recorded (None
    when it is not one: ``add_castigo`` then refuses it)."""
    return int(value) if value.isascii() and value.isdigit() else None


def import_castigos(
    *,
    acting_user,
    tournament: Tournament,
    data: bytes | str,
    warnings: list[str] | None = None,
    notes: list[str] | None = None,
) -> int:
    """Import castigos from a CSV file (bytes or text) or an .xlsx workbook, read as the
    results files are (``reading.open_file``, ``read_rows``: commas, semicolons or tabs; UTF-8,
    UTF-16 or Windows-1252; how it was read, when not UTF-8, is appended to ``notes`` if
    given); all or nothing.

    ``round`` may be empty (the castigo belongs to no round) or name an existing, open round;
    ``player`` names a player entered in the tournament (``reading.choose_player`` with
    ``entered_only``: the exact name, cleaned, else a name that differs only in case, accents or
    spacing from one entered player's — a sentence is then appended to ``warnings``, if given,
    once per spelling with the line naming it first); ``tantos`` a whole number
    1–``MAX_SCORE`` and ``reason`` required (``services.add_castigo``'s rules). Importing the
    same file again creates nothing: a castigo identical to one already recorded (player,
    round, tantos, reason as stored, cleaned) counts as present, as many times as it is
    recorded, and ``notes`` (if given) says how many lines were so. Returns the number of
    castigos created.

    Raises DomainError "castigos_not_applicable" (a system without castigos) or
    ``ImportRefused`` (file-level codes as the results imports, "no_castigo_rows" for a file
    with the header alone; per line "field_count",
    "bad_round", "round_missing", "round_closed", "player_unknown", "player_not_entered",
    "ambiguous_player", "ambiguous_player_similar", "castigo_tantos", "name_required" ...).
    Nothing is stored on error.
    """
    source = open_file(data)
    if notes is not None:
        notes.extend(source.notes)
    rows = read_rows(source.text, CASTIGOS_HEADER, empty="no_castigo_rows")
    with transaction.atomic():
        t = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
        system = systems.of(t)
        if systems.CASTIGOS not in system.actions(t):
            raise DomainError("castigos_not_applicable", system=system.label)
        rounds = {r.number: r for r in t.rounds.all()}
        entered = {pid for e in t.entries.all() for pid in e.player_ids()}
        players: dict[str, tuple[Player, bool]] = {}  # cleaned name -> (player, loosely)
        loose: list[str] = []
        wanted: list[tuple[int, Player, Round | None, str, str]] = []
        errors = Errors()
        for line, f in rows:
            try:
                field_count(f, CASTIGOS_HEADER)
                round_s, name, tantos_s, reason = f
                rnd = None
                if round_s:
                    number = positive(round_s, "bad_round", MAX_ROUND)
                    rnd = rounds.get(number)
                    if rnd is None:
                        raise DomainError("round_missing", number=number)
                    if rnd.closed:
                        raise DomainError("round_closed", number=number)
                name = services.clean_name(name, field=gettext_noop("jugador"))
                if name not in players:
                    exact, similar = player_candidates(name)
                    players[name] = choose_player(name, exact, similar, entered, entered_only=True)
                    player, loosely = players[name]
                    if loosely:
                        loose.append(loose_warning(line, name, player.full_name))
                player = players[name][0]
            except DomainError as exc:
                errors.add(line, exc)
                continue
            wanted.append((line, player, rnd, tantos_s, reason))

        present = Counter(
            Castigo.objects.filter(tournament=t).values_list(
                "player_id", "round_id", "tantos", "reason"
            )
        )
        created = already = 0
        for line, player, rnd, tantos, reason in wanted:
            key = (player.pk, rnd.pk if rnd else None, _whole(tantos), names.clean(reason))
            if present[key] > 0:
                present[key] -= 1
                already += 1
                continue
            try:
                services.add_castigo(
                    acting_user=acting_user,
                    tournament=t,
                    player=player,
                    tantos=tantos,
                    reason=reason,
                    round=rnd,
                )
            except DomainError as exc:
                errors.add(line, exc)
                continue
            created += 1
        if errors:
            raise errors.refusal()
        if warnings is not None:
            warnings.extend(loose)
        if already and notes is not None:
            notes.append(
                ngettext(
                    "{count} castigo del archivo ya estaba anotado: no se repitió.",
                    "{count} castigos del archivo ya estaban anotados: no se repitieron.",
                    already,
                ).format(count=already)
            )
        return created


__all__ = ["CASTIGOS_HEADER", "import_castigos"]
