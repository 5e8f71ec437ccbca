"""Table victory points: 5/4/3/2/1 tournament points, VP and VP percentages, standings
(seed 004, SCORING.md §4).

Three or four players sit at a table; each ends the game with an in-game score (victory
points, VP, a whole number ≥ 0; the figure and tiebreak ``victory_points``). Pure Python,
exact arithmetic: points and VP are ``int``; percentages are ``Decimal`` with exactly 2
decimals, rounded half up (``ROUND_HALF_UP``) once per game, as the seed's own example does,
and then summed exactly. Where SCORING.md §4 settles a point the Russian seed leaves open or
states differently, SCORING.md is the decision:

- the seed gives "2 points to the sole 3rd place or to every shared 2nd place" and "1 to all
  others"; §4's table (dense places; 1st shared 4 each, 2nd alone 3 / shared 2 each, 3rd alone
  2 / shared 1 each, lower 1) is what is implemented;
- the seed rounds the neutral fourth player's mean ".3 down, .6 up"; §4 says the nearest whole
  number (a mean of three integers ends in .00, .33 or .67; .5 cannot occur but rounds up);
- the bye of the 5-player case (one table of 4 and a bye): 3 tournament points, 0 VP, and a
  percentage of 0 for that round (§4; the seed is silent).

Points §4 is silent on, decided here and said so where relied on: a game ended by time is
valid whatever its scores (ties included); an entry with no games and no byes has every figure
0 (``pct_sum`` ``Decimal("0.00")``); the rotation of the bye ("a different player each round")
belongs to the seating, so ``standings`` does not check it.

Every competitor is an entry of one player (a tournament ``Entry``): the ids taken and returned
here (``entry_ids``, ``TableGame.entry_ids``, ``TableBye.entry_id``, ``StandingRow.entry_id``)
are entry ids, never ``Player`` ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from tournaments.errors import MESSAGES, DomainError, ResultError
from tournaments.scoring import StandingRow
from tournaments.scoring.domino import _count_map
from tournaments.scoring.ordering import by_figure, rank
from tournaments.scoring.swiss import _is_int

TABLE_SIZES = (3, 4)
BYE_POINTS = 3  # a bye in the 5-player case: 3 tournament points, no VP, 0 % (SCORING.md §4)
# Tournament points by dense place (index 0 = 1st) for a place held alone / shared
# (SCORING.md §4); places past the 3rd take LOWER_PLACE_POINTS. 1st alone on a time end: 4.
_ALONE = (5, 3, 2)
_SHARED = (4, 2, 1)
FIRST_ALONE_BY_TIME = 4
LOWER_PLACE_POINTS = 1
# Tiebreakers after tournament points, in order (SCORING.md §4); each is also its figure's key
# and the ``decided_by`` name it gives.
_CRITERIA = ("victory_points", "pct_sum")
_CENT = Decimal("0.01")


def validate_table(scores: Sequence[int], *, ended_by_time: bool = False) -> None:
    """Reject the in-game scores of one table that are not a valid result (seed 004,
    SCORING.md §4).

    ``scores``: the VP of each seated player (``int`` ≥ 0; ``bool`` rejected), 3 or 4 of them.
    ``ended_by_time``: accepted for symmetry with the other systems; it changes nothing here,
    since any scores are a valid end either way, ties included (§4 is silent; decided here).

    Returns ``None``; raises ``ResultError`` with code ``table_size`` (fewer than 3 or more
    than 4 scores), ``score_missing`` (a score is ``None``; ``seat`` is 1-based),
    ``not_integer`` (a score that is not an ``int``) or ``negative_score``.
    """
    scores = tuple(scores)
    if len(scores) not in TABLE_SIZES:
        raise ResultError("table_size", count=len(scores))
    _check_scores(scores)


def _check_scores(scores: tuple) -> None:
    for seat, value in enumerate(scores, start=1):
        if value is None:
            raise ResultError("score_missing", seat=seat)
        if not _is_int(value):
            raise ResultError("not_integer", message=MESSAGES["not_integer_vp"], value=value)
        if value < 0:
            raise ResultError("negative_score", seat=seat, value=value)


def tournament_points(scores: Sequence[int], *, ended_by_time: bool) -> list[int]:
    """Tournament points of each player at one table, in the input order (seed 004,
    SCORING.md §4).

    ``scores``: 3 or 4 in-game VP (validated as in ``validate_table``). Places are dense: equal
    scores share a place and the next distinct score takes the next place. 1st alone 5 (4 when
    the game ended by time), 1st shared 4 each; 2nd alone 3, shared 2 each (even when 1st is
    shared); 3rd alone 2, shared 1 each; any lower place 1. Returns a ``list[int]``, each 1–5.

    10, 8, 7, 5 → 5, 3, 2, 1; by time 9, 8, 7, 5 → 4, 3, 2, 1; 10, 10, 8, 6 → 4, 4, 3, 2;
    10, 8, 8, 6 → 5, 2, 2, 2; 10, 8, 6, 6 → 5, 3, 1, 1. Raises ``validate_table``'s codes.
    """
    validate_table(scores, ended_by_time=ended_by_time)
    scores = tuple(scores)
    distinct = sorted(set(scores), reverse=True)
    place = {score: index for index, score in enumerate(distinct)}  # 0 = 1st
    points = []
    for score in scores:
        index = place[score]
        alone = scores.count(score) == 1
        if index >= len(_ALONE):
            points.append(LOWER_PLACE_POINTS)
        elif index == 0 and alone and ended_by_time:
            points.append(FIRST_ALONE_BY_TIME)
        else:
            points.append((_ALONE if alone else _SHARED)[index])
    return points


def neutral_score(scores3: Sequence[int]) -> int:
    """The neutral fourth score of a 3-player table: the mean of the three, rounded to the
    nearest whole number (seed 004, SCORING.md §4).

    ``scores3``: exactly 3 in-game VP (``int`` ≥ 0). A mean ending in .33 rounds down, .67
    up (.5 cannot occur with three integers; it would round half up). Returns an ``int`` VP,
    used only in the table total for the percentages; the neutral player takes no points and no
    place. 10, 7, 6 → 8 (23/3 = 7.67); 10, 7, 5 → 7 (22/3 = 7.33).

    Raises ``ResultError`` ``table_size`` (not exactly 3 scores), ``score_missing``,
    ``not_integer`` or ``negative_score``.
    """
    scores3 = tuple(scores3)
    if len(scores3) != 3:
        raise ResultError("table_size", message=MESSAGES["neutral_table_size"], count=len(scores3))
    _check_scores(scores3)
    # The mean truncated to 1 decimal keeps the digit that decides the rounding, so
    # ROUND_HALF_UP on it is exact (everything here is ≥ 0).
    tenths = Decimal(10 * sum(scores3) // 3).scaleb(-1)
    return int(tenths.quantize(Decimal(1), rounding=ROUND_HALF_UP))


#: Each seat's percentage at a table whose scores are all 0 (SCORING.md §9): 100 / 4 seats.
ALL_ZERO_SHARE = Decimal("25.00")


def _percentage(own: int, total: int) -> Decimal:
    """100 × own / total as a ``Decimal`` with 2 decimals, half up; total 0 → 0.00."""
    if total == 0:
        return Decimal("0.00")
    # Truncated to 3 decimals, then ROUND_HALF_UP to 2: exact, since the 3rd decimal alone
    # decides the rounding of a value ≥ 0.
    thousandths = Decimal(100_000 * own // total).scaleb(-3)
    return thousandths.quantize(_CENT, rounding=ROUND_HALF_UP)


def table_total(scores: Sequence[int]) -> int:
    """The table's total VP for the percentages (seed 004, SCORING.md §4): the sum of the 3 or
    4 scores, plus ``neutral_score`` at a 3-player table. 10, 7, 6 → 31; 10, 7, 5 → 29.
    Raises ``validate_table``'s codes.
    """
    validate_table(scores)
    scores = tuple(scores)
    return sum(scores) + (neutral_score(scores) if len(scores) == 3 else 0)


def game_percentages(scores: Sequence[int]) -> list[Decimal]:
    """Each player's percentage of the table's VP, in the input order (seed 004,
    SCORING.md §4).

    ``scores``: 3 or 4 in-game VP. Each is ``100 × own / table_total(scores)`` rounded to
    2 decimals half up, as a ``Decimal`` (e.g. ``Decimal("31.25")``); a 3-player table adds the
    neutral fourth score to the total only. A table whose scores are all 0 shares the table
    equally among its four seats, the neutral one included: ``Decimal("25.00")`` each
    (SCORING.md §9).
    10 of 32 → 31.25; 8 of 30 → 26.67; 10 of 33 → 30.30. Raises ``validate_table``'s codes.
    """
    total = table_total(scores)
    if total == 0:  # SCORING.md §9: an equal share of a table of four seats
        return [ALL_ZERO_SHARE] * len(scores)
    return [_percentage(own, total) for own in scores]


@dataclass(frozen=True)
class TableGame:
    """One table's result for ``standings`` (seed 004, SCORING.md §4).

    ``round_number``: 1–99. ``entry_ids``: the entry ids of the 3 or 4 seated players;
    ``scores``: their in-game VP, same order and length. ``ended_by_time``: the time limit
    ended the game (the sole 1st place then takes 4, not 5).
    """

    round_number: int
    entry_ids: tuple[int, ...]
    scores: tuple[int, ...]
    ended_by_time: bool = False


@dataclass(frozen=True)
class TableBye:
    """A bye of the entry ``entry_id`` in round ``round_number`` (the 5-player case: one table
    of 4 and a bye; seed 004, SCORING.md §4): 3 tournament points, no VP, 0 for the percentage
    sum, and not a game played.
    """

    round_number: int
    entry_id: int


def _check_round(round_number) -> None:
    if not _is_int(round_number) or not 1 <= round_number <= 99:
        raise ResultError("invalid_round_number", number=round_number)


def standings(
    entry_ids: Iterable[int],
    games: Iterable[TableGame],
    *,
    byes: Iterable[TableBye] = (),
    sorteo: dict[int, int] | None = None,
) -> list[StandingRow]:
    """Table-game standings (seed 004, SCORING.md §4).

    Inputs: ``entry_ids`` (every entry, including those without games); ``games``
    (``TableGame`` objects, each validated as in ``validate_table``); ``byes`` (``TableBye``
    objects); ``sorteo`` entry id → lot number (``int`` ≥ 0, lower ranks higher).

    Figures per entry (``StandingRow.figures``): ``games`` (tables played; byes not counted),
    ``points`` (tournament points, byes included), ``victory_points`` (total in-game VP),
    ``byes`` — all ``int`` —, ``pct_sum`` (``Decimal``, the sum of the per-game percentages,
    each already rounded to 2 decimals; a bye adds 0) and ``per_round`` (``dict`` round number
    → tournament points that round, a bye's 3 included).

    Order: points, then ``victory_points``, then ``pct_sum``, all high to low; then the sorteo, only if every
    member of the still-tied group has a lot. Entries still level share the position
    (``shared=True``; 1, 2, 2, 4) and are listed by entry id. ``decided_by`` is the last
    criterion that split the group the entry was level in: ``None`` (never level on points, or
    nothing split its group), ``"victory_points"``, ``"pct_sum"`` or ``"sorteo"``.

    Raises ``DomainError`` ``duplicate_entry`` or ``invalid_count`` (a bad lot), or
    ``ResultError`` ``unknown_entry``, ``invalid_round_number`` (not 1–99), ``table_seats``
    (entry ids and scores differ in number), ``round_entry_twice`` (an entry seated twice in
    one round, at one table or two, or with a game and a bye) and ``validate_table``'s codes.
    """
    entry_ids = list(entry_ids)
    known: set[int] = set()
    for entry_id in entry_ids:
        if entry_id in known:
            raise DomainError("duplicate_entry", entry_id=entry_id)
        known.add(entry_id)
    sorteo = _count_map(sorteo, "Sorteo", known)

    figures = {
        e: {
            "games": 0,
            "points": 0,
            "victory_points": 0,
            "pct_sum": Decimal("0.00"),
            "byes": 0,
            "per_round": {},
        }
        for e in entry_ids
    }
    seen: set[tuple[int, int]] = set()  # (round, entry id)

    def seat(round_number: int, entry_id: int) -> dict:
        if entry_id not in known:
            raise ResultError("unknown_entry", entry_id=entry_id)
        if (round_number, entry_id) in seen:
            raise ResultError(
                "round_entry_twice",
                message=MESSAGES["table_round_twice"],
                entry_id=entry_id,
                round=round_number,
            )
        seen.add((round_number, entry_id))
        return figures[entry_id]

    for game in games:
        _check_round(game.round_number)
        ids, scores = tuple(game.entry_ids), tuple(game.scores)
        if len(ids) != len(scores):
            raise ResultError(
                "table_seats", round=game.round_number, players=len(ids), scores=len(scores)
            )
        points = tournament_points(scores, ended_by_time=game.ended_by_time)
        percentages = game_percentages(scores)
        for entry_id, score, pts, pct in zip(ids, scores, points, percentages, strict=True):
            f = seat(game.round_number, entry_id)
            f["games"] += 1
            f["points"] += pts
            f["victory_points"] += score
            f["pct_sum"] += pct
            f["per_round"][game.round_number] = pts
    for bye in byes:
        _check_round(bye.round_number)
        f = seat(bye.round_number, bye.entry_id)
        f["byes"] += 1
        f["points"] += BYE_POINTS
        f["per_round"][bye.round_number] = BYE_POINTS
    for f in figures.values():
        f["per_round"] = dict(sorted(f["per_round"].items()))

    tiebreaks = [by_figure(name, figures) for name in _CRITERIA]
    return rank(entry_ids, figures, first="points", tiebreaks=tiebreaks, sorteo=sorteo)
