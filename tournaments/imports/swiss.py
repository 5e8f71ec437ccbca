"""The match-play results file of a Swiss tournament (seed 000, SCORING.md §3): one line per
match or per bye.

Header exactly ``MATCH_HEADER``::

    round,table,player_a,player_b,games_a,games_b,games_drawn,drop
    1,1,Ana Ruiz,Beto Gil,2,1,,
    1,2,Carla Paz,Dani Sol,1,1,1,b
    1,,Eva Mar,,,,,

Each match is checked here with ``scoring.swiss.validate_match`` against the tournament's
best-of (so that every bad line is listed) and recorded through ``services.record_result``; a
line with ``player_b`` and the three games columns empty is a bye; ``drop`` (``a``, ``b``,
``both`` or empty) drops that side's entry after the line's round (``services.drop_entry``).

This module reads the format and plans; ``apply`` writes.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from tournaments import services
from tournaments.errors import MESSAGES, DomainError, ResultError
from tournaments.imports import apply
from tournaments.imports.formats import FileFormat
from tournaments.imports.plan import (
    Plan,
    PlannedBye,
    PlannedDrop,
    PlannedTable,
    entries_of,
    plan_side_lines,
)
from tournaments.imports.reading import (
    MAX_ROUND,
    MAX_TABLE,
    Directory,
    EntryRef,
    field_count,
    names,
    positive,
)
from tournaments.models import Bye, Seat, Tournament
from tournaments.scoring import swiss

#: The columns of a Swiss results file.
MATCH_HEADER = (
    "round",
    "table",
    "player_a",
    "player_b",
    "games_a",
    "games_b",
    "games_drawn",
    "drop",
)

#: Messages of the codes only the match-play import uses (the others are in errors.MESSAGES).
MATCH_MESSAGES = {
    "import_not_swiss": gettext_noop(
        "Este torneo no es suizo (match play): este archivo de encuentros solo se importa en "
        "torneos suizos."
    ),
    "games_missing": gettext_noop(
        "Faltan las partidas ganadas por el lado {side}; solo una ronda libre (player_b vacío) "
        "deja vacías las partidas."
    ),
    "bad_drop": gettext_noop(
        "«drop» debe estar vacío o ser «a», «b» o «both»; se recibió «{value}»."
    ),
    "bye_drop": gettext_noop(
        "En una ronda libre solo puede retirarse player_a («drop» vacío o «a»); "
        "se recibió «{value}»."
    ),
    "bye_line_games": gettext_noop(
        "Una ronda libre (player_b vacío) no lleva partidas: cuenta siempre como un encuentro "
        "ganado por el mínimo del formato (1–0, 2–0 o 3–0 al mejor de 1, 3 o 5). Borra las "
        "partidas o escribe el rival."
    ),
    "drop_before_later_round": gettext_noop(
        "«{name}» no puede retirarse después de la ronda {round}: ya juega o descansa en la "
        "ronda {later}."
    ),
}
_DROPS = {"": (), "a": ("A",), "b": ("B",), "both": ("A", "B")}
_GAMES = re.compile(r"[0-9]{1,3}")


def match_error(code: str, **params) -> DomainError:
    """A DomainError with the match-play import's own message for ``code``, if it has one."""
    return DomainError(code, message=MATCH_MESSAGES.get(code), **params)


@dataclass
class MatchImportReport(services.ImportReport):
    """``services.ImportReport`` plus ``drops``: entries whose drop round the file set."""

    drops: int = 0


def import_results(system, *, acting_user, tournament: Tournament, data, progress=None):
    """Import match-play results of a Swiss tournament from a CSV file (bytes or text) into
    ``tournament`` of ``system`` (its Swiss adapter); all or nothing (SCORING.md §3).

    A side is one player (mano a mano or individual) or a pair "Ana & Beto" (pairs
    tournament) — one entry per side. ``games_a``/``games_b`` are required, ``games_drawn``
    empty means 0, and each match must be possible in the tournament's best-of
    (``scoring.swiss.validate_match``). A line with ``player_b`` and the three games columns
    empty is a bye of ``player_a`` (its table may be empty and is ignored). ``drop`` empty,
    ``a``, ``b`` or ``both`` (``a`` only on a bye): that side's entry is dropped after the
    line's round (``services.drop_entry``); an entry cannot play after its drop
    (``check_drops``).

    Like the dominó import: players matched by name (``reading.Directory``: exactly, else up to
    case, accents and spacing when only one player fits, with a warning) and created if unknown
    (by a club director or a command only), entries registered if missing, missing rounds (in
    order, within ``rounds_planned``) and tables created; a round/table already in the
    tournament is corrected (its version grows, history keeps the old values), the same entries
    on swapped sides are the same match (the games follow their entries), and a table with a
    result and other entries is refused ("seats_differ").

    Returns ``MatchImportReport`` (a ``services.ImportReport`` plus ``drops`` set). Raises
    ``ImportRefused`` (file-level codes as the dominó import; per line ``validate_match``
    codes "above_wins_needed", "too_many_games", "empty_match", "not_integer";
    "games_missing", "bad_drop", "bye_drop", "bye_line_games", "entry_dropped",
    "drop_before_later_round", "entry_twice_in_round", "table_twice", "round_closed",
    "round_out_of_order", "round_beyond_planned", "seats_differ", "entry_elsewhere" ...).
    Nothing is stored on error.
    """
    return apply.run(
        system,
        acting_user=acting_user,
        tournament=tournament,
        data=data,
        header=MATCH_HEADER,
        make_plan=plan,
        report=MatchImportReport(),
        progress=progress,
    )


def plan(t: Tournament, rows: list[tuple[int, list[str]]]) -> Plan:
    """Every line read (``parse_line``), checked against the file and the database, and the
    drops checked (``check_drops``)."""
    result = plan_side_lines(t, rows, parse_line)
    check_drops(t, result)
    return result


def _games(value: str, side: str) -> int:
    if value == "":
        raise match_error("games_missing", side=side)
    if not _GAMES.fullmatch(value):
        raise ResultError("not_integer", message=MESSAGES["not_integer_games"], value=value[:20])
    return int(value)


def _match_side(who: Directory, value: str, side: str) -> EntryRef:
    """The one entry of a match side: a pair "Ana & Beto" in a pairs tournament, else a player."""
    parts = names(value)
    size = who.t.players_per_entry
    if len(parts) != size or not all(parts):
        raise DomainError("side_names", side=side, size=size, value=value)
    return who.entry([who.player(n) for n in parts])


def parse_line(t: Tournament, who: Directory, line: int, f: list[str]):
    """One match-play line → ``PlannedTable`` (a match) or ``PlannedBye``; raises DomainError
    for the first problem. The entries it drops ride on the item (``drops``)."""
    field_count(f, MATCH_HEADER)
    rnd_s, table_s, name_a, name_b, ga, gb, gd, drop_s = f
    number = positive(rnd_s, "bad_round", MAX_ROUND)
    drop = unicodedata.normalize("NFC", drop_s).casefold()
    if drop not in _DROPS:
        raise match_error("bad_drop", value=drop_s[:20])
    if name_b == "":
        if ga or gb or gd:
            raise match_error("bye_line_games")
        if drop not in ("", "a"):
            raise match_error("bye_drop", value=drop_s)
        if table_s:
            positive(table_s, "bad_table", MAX_TABLE)
        entry = _match_side(who, name_a, "A")
        return PlannedBye(line, number, [entry], drops=[entry] if drop else [])
    if table_s == "":
        raise DomainError("table_required")
    table = positive(table_s, "bad_table", MAX_TABLE)
    a, b = _match_side(who, name_a, "A"), _match_side(who, name_b, "B")
    if a.key == b.key:
        raise DomainError("player_twice_in_row", name=a.name)
    games_a, games_b = _games(ga, "A"), _games(gb, "B")
    drawn = _games(gd, "empates") if gd else 0
    swiss.validate_match(games_a, games_b, drawn, best_of=t.best_of)
    return PlannedTable(
        number,
        table,
        [line],
        side_a=[a],
        side_b=[b],
        values={"games_a": games_a, "games_b": games_b, "games_drawn": drawn},
        flipped={"games_a": games_b, "games_b": games_a, "games_drawn": drawn},
        drops=[e for side, e in (("A", a), ("B", b)) if side in _DROPS[drop]],
    )


def check_drops(t: Tournament, plan: Plan) -> None:
    """Drops against the rounds played; sets ``plan.drops`` (entry → the round the file drops
    it after) and refuses lines.

    An entry dropped after round r (by this file, else already in the database) cannot play or
    rest a later round of the file ("entry_dropped"), nor be dropped before a later round it
    already has in the database that the file does not name ("drop_before_later_round"). If
    the file drops an entry twice the earlier round counts (the later line is then refused).
    A file never takes a drop back: that is ``services.undrop_entry``.
    """
    items = sorted([*plan.tables, *plan.byes], key=lambda i: i.line)
    dropped: dict[tuple, tuple[int, int, EntryRef]] = {}  # entry key -> (round, line, entry)
    for item in items:
        for e in item.drops:
            if e.key not in dropped or item.round < dropped[e.key][0]:
                dropped[e.key] = (item.round, item.line, e)
    in_file = set()
    for item in items:
        for e in entries_of(item):
            in_file.add((item.round, e.key))
            if e.key in dropped:
                after = dropped[e.key][0]
            elif e.entry is not None and e.entry.dropped_after_round is not None:
                after = e.entry.dropped_after_round
            else:
                continue
            if item.round > after:
                plan.errors.add(item.line, DomainError("entry_dropped", name=e.name, round=after))
                break
    known = {e.entry.pk: e for _r, _l, e in dropped.values() if e.entry is not None}
    later: dict[tuple, int] = {}
    for model in (Seat, Bye):
        for entry_id, number in model.objects.filter(
            round__tournament=t, entry_id__in=known
        ).values_list("entry_id", "round__number"):
            e = known[entry_id]
            if number > dropped[e.key][0] and (number, e.key) not in in_file:
                later[e.key] = max(later.get(e.key, 0), number)
    for key, number in later.items():
        after, line, e = dropped[key]
        plan.errors.add(
            line,
            match_error("drop_before_later_round", name=e.name, round=after, later=number),
        )
    plan.drops = [PlannedDrop(line, after, e) for after, line, e in dropped.values()]


class MatchFile(FileFormat):
    """The Swiss match-play results file (``MATCH_HEADER``): one line per match or bye, with
    drops; ``import_results`` returns a ``MatchImportReport``."""

    header = MATCH_HEADER
    hint = _(
        "Resultados (encuentros): <code>round,table,player_a,player_b,games_a,games_b,"
        "games_drawn,drop</code>. Ronda libre: <code>player_b</code> y las partidas vacías; "
        "<code>drop</code>: vacío, <code>a</code>, <code>b</code> o <code>both</code> (se "
        "retira después de esa ronda)."
    )

    def import_results(self, system, *, acting_user, tournament, data, progress=None):
        return import_results(
            system, acting_user=acting_user, tournament=tournament, data=data, progress=progress
        )


__all__ = [
    "MATCH_HEADER",
    "MatchFile",
    "MATCH_MESSAGES",
    "MatchImportReport",
    "check_drops",
    "import_results",
    "match_error",
    "parse_line",
    "plan",
]
