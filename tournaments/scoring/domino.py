"""Dominó table order: per-game figures and tournament standings (seed 003, SCORING.md §1).

Pure Python, exact integer arithmetic throughout. Where SCORING.md §1 settles a point the
Spanish seed leaves open (a win on time takes 1 punto; the capped winner's tantos; the
recursive diferencial; the sorteo; byes), SCORING.md is the decision.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tournaments.errors import DomainError, ResultError, gettext_noop
from tournaments.scoring import StandingRow
from tournaments.scoring.ordering import Tiebreak, by_figure, rank

TARGETS = (100, 200)
BYE_RULES = ("rest", "win")
# Tiebreakers for steps 2–4 of SCORING.md §1 (juegos ganados, efectividad, tantos a favor);
# each is also its figure's key and the ``decided_by`` name it gives. Puntos (step 1) gives
# decided_by None; step 5, the diferencial, has no single figure (it is computed inside the
# level group) and is added in ``standings``.
_FIXED_CRITERIA = ("won", "efectividad", "tantos_a_favor")


def _check_target(target) -> None:
    if isinstance(target, bool) or target not in TARGETS:
        raise ResultError("invalid_target", target=target)


def validate_result(tantos_a: int, tantos_b: int, *, target: int, ended_by_time: bool) -> None:
    """Reject a score-sheet result that is not a valid dominó game (seed 003, SCORING.md §1).

    ``tantos_a``/``tantos_b``: the raw tantos written on the sheet for side A and side B
    (whole numbers ≥ 0, a side past the target keeps its raw tally). ``target``: 100 or 200.
    ``ended_by_time``: the time limit expired before anyone reached the target.

    Valid: on a normal end exactly one side has ≥ target; by time both are below the target
    and differ. Returns ``None``; raises ``ResultError`` with code
    ``invalid_target`` (target not 100/200), ``not_integer`` (a tally is not an ``int``, or is a
    ``bool``), ``negative_tantos``, ``both_reached_target`` (e.g. 100–100, 100–120),
    ``no_side_reached_target`` (e.g. 99–98 not by time), ``tie_by_time`` (e.g. 60–60 by time)
    or ``time_but_target_reached`` (e.g. 100–40 marked by time).
    """
    _check_target(target)
    for value in (tantos_a, tantos_b):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ResultError("not_integer", value=value)
    scores = {"tantos_a": tantos_a, "tantos_b": tantos_b, "target": target}
    if tantos_a < 0 or tantos_b < 0:
        raise ResultError("negative_tantos", **scores)
    reached = (tantos_a >= target) + (tantos_b >= target)
    if ended_by_time:
        if reached:
            raise ResultError("time_but_target_reached", **scores)
        if tantos_a == tantos_b:
            raise ResultError("tie_by_time", **scores)
    elif reached == 2:
        raise ResultError("both_reached_target", **scores)
    elif reached == 0:
        raise ResultError("no_side_reached_target", **scores)


#: The most tantos one hand can add to a tally: every pip of a double-six set (168). A raw
#: tally beyond the target by more than this cannot come from the last hand of a game.
MOST_IN_ONE_HAND = 168


def far_above_target(tantos: int, target: int) -> bool:
    """Whether a raw tally of ``tantos`` (whole tantos) to ``target`` (100 or 200) is beyond
    what the last hand of a game can bring (more than ``target + MOST_IN_ONE_HAND``): valid by
    SCORING.md §1 (a side past the target keeps its raw tally, any size), but almost always a
    slip of the keyboard (9999 for 99, 1500 for 150), so the result pages ask once before
    saving it. Never raises; a value that is not a whole number is not a slip (the result's
    own check refuses it)."""
    if isinstance(tantos, bool) or not isinstance(tantos, int):
        return False
    return tantos > target + MOST_IN_ONE_HAND


@dataclass(frozen=True)
class SideFigures:
    """What one side takes from one game (seed 003, SCORING.md §1, "Per game").

    ``won``: 1 or 0 juegos ganados; ``puntos``: 0–3; ``tantos_a_favor``/``tantos_en_contra``:
    tantos, with the winner's tally capped at the target on a normal end; ``zapato``: the side
    won a normal-end game with the loser on 0 tantos.
    """

    won: int
    puntos: int
    tantos_a_favor: int
    tantos_en_contra: int
    zapato: bool


def _winner_puntos(loser_tantos: int, target: int, ended_by_time: bool) -> int:
    """Puntos tiers of SCORING.md §1: 3 zapato, 2 for 1 ≤ L ≤ T/2, 1 for T/2 < L < T or by time."""
    if ended_by_time:
        return 1
    if loser_tantos == 0:
        return 3
    return 2 if 2 * loser_tantos <= target else 1


def game_figures(
    tantos_a: int, tantos_b: int, *, target: int, ended_by_time: bool
) -> tuple[SideFigures, SideFigures]:
    """Figures of side A and side B for one game (seed 003, SCORING.md §1).

    Validates first (``validate_result``; same ``ResultError`` codes). Winner: 1 game won,
    puntos by tier; tantos a favor = the target on a normal end (capped: 112–0 gives 100),
    its recorded tantos when ended by time; en contra = the loser's tantos. Loser: 0 and 0;
    a favor = its recorded tantos; en contra = the target on a normal end, the winner's
    recorded tantos by time. Returns ``(side_a, side_b)``.
    """
    validate_result(tantos_a, tantos_b, target=target, ended_by_time=ended_by_time)
    a_wins = tantos_a > tantos_b
    win_t, lose_t = (tantos_a, tantos_b) if a_wins else (tantos_b, tantos_a)
    win_for = win_t if ended_by_time else target
    puntos = _winner_puntos(lose_t, target, ended_by_time)
    winner = SideFigures(1, puntos, win_for, lose_t, zapato=not ended_by_time and lose_t == 0)
    loser = SideFigures(0, 0, lose_t, win_for, zapato=False)
    return (winner, loser) if a_wins else (loser, winner)


@dataclass(frozen=True)
class Game:
    """One recorded game for ``standings``.

    ``side_a``/``side_b``: the entry ids sitting on each side — one id per side for pairs or
    mano a mano, two ids per side for individual play with rotating partners (each entry takes
    its side's figures). ``tantos_a``/``tantos_b``: raw tantos from the sheet.
    """

    side_a: tuple[int, ...]
    side_b: tuple[int, ...]
    tantos_a: int
    tantos_b: int
    ended_by_time: bool = False


def _count_map(values: dict[int, int] | None, field: str, known: set[int]) -> dict[int, int]:
    values = dict(values or {})
    for entry_id, value in values.items():
        if entry_id not in known:
            raise ResultError("unknown_entry", entry_id=entry_id)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise DomainError("invalid_count", field=field, entry_id=entry_id, value=value)
    return values


def standings(
    entry_ids: list[int],
    games: list[Game],
    *,
    target: int,
    castigos: dict[int, int] | None = None,
    byes: dict[int, int] | None = None,
    bye_rule: str = "rest",
    sorteo: dict[int, int] | None = None,
) -> list[StandingRow]:
    """Dominó standings (seed 003, SCORING.md §1, "Standings" and "Byes").

    Inputs: ``entry_ids`` (every entry, including those without games); ``games`` (``Game``
    objects, each validated as in ``validate_result``); ``target`` 100 or 200; ``castigos``
    entry id → total castigo tantos (≥ 0); ``byes`` entry id → number of byes; ``bye_rule``
    "rest" (a bye adds nothing) or "win" (each bye: +1 juego ganado, +1 punto, 0 tantos, not
    counted in ``played``); ``sorteo`` entry id → lot number (lower ranks higher).

    Figures per entry (ints, in ``StandingRow.figures``): played, won, puntos, tantos_a_favor,
    tantos_en_contra, castigos, efectividad (= a favor − en contra − castigos), byes.

    Order: puntos, juegos ganados, efectividad, tantos a favor (all high to low); then the
    diferencial among the still-tied group only (for − against, capped, over the games where
    two of its members sat on opposite sides), applied again inside any smaller group left
    level, while it splits; then the sorteo, only if every member of the still-tied group has
    a lot. Entries still level share the position (``shared=True``; 1, 2, 2, 4) and are listed
    by entry id. ``decided_by`` is the last criterion that split the group the entry was level
    in: ``None`` (never level on puntos with anyone, or no criterion split its group),
    ``"won"``, ``"efectividad"``, ``"tantos_a_favor"`` (the figure keys), ``"diferencial"`` or
    ``"sorteo"``.

    Raises ``ResultError`` (any ``validate_result`` code, ``invalid_sides``, ``unknown_entry``)
    or ``DomainError`` (``duplicate_entry``, ``invalid_count``, ``invalid_bye_rule``).
    """
    _check_target(target)
    if bye_rule not in BYE_RULES:
        raise DomainError("invalid_bye_rule", bye_rule=bye_rule)
    known: set[int] = set()
    for entry_id in entry_ids:
        if entry_id in known:
            raise DomainError("duplicate_entry", entry_id=entry_id)
        known.add(entry_id)
    castigos = _count_map(castigos, gettext_noop("Castigos"), known)
    byes = _count_map(byes, gettext_noop("Descansos"), known)
    sorteo = _count_map(sorteo, gettext_noop("Sorteo"), known)

    names = ("played", "won", "puntos", "tantos_a_favor", "tantos_en_contra")
    figures = {e: dict.fromkeys(names, 0) for e in entry_ids}
    # Each game as ((ids, for − against) for side A, same for side B), for the diferencial.
    margins: list[tuple[tuple[tuple[int, ...], int], tuple[tuple[int, ...], int]]] = []
    for game in games:
        a, b = tuple(game.side_a), tuple(game.side_b)
        if not a or not b or set(a) & set(b) or len(set(a)) < len(a) or len(set(b)) < len(b):
            raise ResultError("invalid_sides", side_a=list(a), side_b=list(b))
        for entry_id in a + b:
            if entry_id not in known:
                raise ResultError("unknown_entry", entry_id=entry_id)
        fig_a, fig_b = game_figures(
            game.tantos_a, game.tantos_b, target=target, ended_by_time=game.ended_by_time
        )
        for ids, fig in ((a, fig_a), (b, fig_b)):
            for entry_id in ids:
                f = figures[entry_id]
                f["played"] += 1
                f["won"] += fig.won
                f["puntos"] += fig.puntos
                f["tantos_a_favor"] += fig.tantos_a_favor
                f["tantos_en_contra"] += fig.tantos_en_contra
        margins.append(
            (
                (a, fig_a.tantos_a_favor - fig_a.tantos_en_contra),
                (b, fig_b.tantos_a_favor - fig_b.tantos_en_contra),
            )
        )
    for entry_id, f in figures.items():
        f["byes"] = byes.get(entry_id, 0)
        if bye_rule == "win":
            f["won"] += f["byes"]
            f["puntos"] += f["byes"]
        f["castigos"] = castigos.get(entry_id, 0)
        f["efectividad"] = f["tantos_a_favor"] - f["tantos_en_contra"] - f["castigos"]

    def diferencial(group: Iterable[int]) -> dict[int, int]:
        members = set(group)
        totals = dict.fromkeys(members, 0)
        for (a, margin_a), (b, margin_b) in margins:
            if members.intersection(a) and members.intersection(b):
                for ids, margin in ((a, margin_a), (b, margin_b)):
                    for entry_id in members.intersection(ids):
                        totals[entry_id] += margin
        return totals

    tiebreaks = [by_figure(name, figures) for name in _FIXED_CRITERIA]
    tiebreaks.append(
        Tiebreak("diferencial", lambda group: diferencial(group).__getitem__, repeat=True)
    )
    return rank(entry_ids, figures, first="puntos", tiebreaks=tiebreaks, sorteo=sorteo)
