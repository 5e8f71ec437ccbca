"""Swiss match-play: match/game points, MWP, GWP, OMW, OGW and standings (seed 000, SCORING.md §3).

Pure Python, exact arithmetic: points are ``int``, percentages are ``fractions.Fraction``
(the 0.33 floor is ``Fraction(33, 100)``); round only for display. Where SCORING.md §3 settles
a point the seed leaves open (the order of the tiebreakers, the shared position
and the sorteo, a dropped entry's rounds), SCORING.md is the decision. Points §3 is silent on
are decided here and said so in the docstring that relies on them:

- an entry with no opponents (nothing but byes, or no rounds at all) has OMW = OGW = 0.33, and
  an entry with no rounds (no games) has MWP (GWP) = 0.33: the floor, the lowest figure anyone
  can have, so such an entry never outranks one that played on these figures;
- ``wins`` counts byes, as the seed does ("3–2–0 including a round-1 bye"); ``byes`` says how
  many of those wins were byes, so ``rounds_played == wins + losses + draws``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from tournaments.errors import MESSAGES, DomainError, ResultError
from tournaments.scoring import StandingRow
from tournaments.scoring.domino import _count_map
from tournaments.scoring.ordering import by_figure, rank

FLOOR = Fraction(33, 100)  # minimum MWP/GWP of SCORING.md §3 ("if below 0.33, use 0.33")
BEST_OF = (1, 3, 5)
BYE_GAMES_WON = 2  # a bye is a match won 2–0 at best of 3 (SCORING.md §3; §9: bye_games_won)
# Tiebreakers after match points, in order (SCORING.md §3); each is also its figure's key
# and the ``decided_by`` name it gives.
_CRITERIA = ("omw", "gwp", "ogw")


@dataclass(frozen=True)
class Match:
    """One round's match between two entries, or a bye (seed 000, SCORING.md §3).

    ``round_number``: 1–99. ``entry_a``/``entry_b``: entry ids; ``entry_b`` ``None`` means
    ``entry_a`` had a bye (the games fields then stay 0: a bye always counts as a match won
    2–0 — 3 match points, 6 game points, 2 games played — and is ignored in the opponents'
    averages). ``games_a``/``games_b``: games won by A/B; ``games_drawn``: drawn games,
    unfinished games included (unplayed games are not recorded at all).
    """

    round_number: int
    entry_a: int
    entry_b: int | None
    games_a: int = 0
    games_b: int = 0
    games_drawn: int = 0

    @property
    def is_bye(self) -> bool:
        """True when ``entry_b`` is ``None``: ``entry_a`` had a bye this round."""
        return self.entry_b is None


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_counts(*values) -> None:
    """Raise ``ResultError("not_integer")`` unless every value is an ``int`` ≥ 0 (not ``bool``)."""
    for value in values:
        if not _is_int(value) or value < 0:
            raise ResultError("not_integer", message=MESSAGES["not_integer_games"], value=value)


def match_points(wins: int, losses: int, draws: int) -> int:
    """Match points of a W–L–D record: 3 per win, 1 per draw, 0 per loss (seed 000, SCORING.md §3).

    Counts are matches (``int`` ≥ 0); a bye counts as a win. 6–2–0 → 18; 4–2–2 → 14.
    Raises ``ResultError("not_integer")`` for a count that is not an ``int`` ≥ 0.
    """
    _check_counts(wins, losses, draws)
    return 3 * wins + draws


def game_points(won: int, lost: int, drawn: int) -> int:
    """Game points from games won/lost/drawn: 3, 0 and 1 each (seed 000, SCORING.md §3).

    Counts are games (``int`` ≥ 0); unfinished games are drawn, unplayed ones count nothing.
    A 2–0–1 match gives the winner ``game_points(2, 0, 1) == 7`` and the loser
    ``game_points(0, 2, 1) == 1``. Raises ``ResultError("not_integer")`` like ``match_points``.
    """
    _check_counts(won, lost, drawn)
    return 3 * won + drawn


def mwp(points: int, rounds_played: int) -> Fraction:
    """Match-win % as a ``Fraction`` in [0.33, 1] (seed 000, SCORING.md §3).

    ``points / (3 × rounds_played)`` (match points) with byes among the rounds; below 0.33 gives
    ``FLOOR`` (33/100). 16 points over 8 rounds → 2/3; 3 over 4 → 1/4 → 33/100. With no
    rounds played it is ``FLOOR`` (§3 is silent; decided here). Raises
    ``ResultError("not_integer")`` for an argument that is not an ``int`` ≥ 0.
    """
    return _percentage(points, rounds_played)


def gwp(points: int, games_played: int) -> Fraction:
    """Game-win % as a ``Fraction`` in [0.33, 1] (seed 000, SCORING.md §3).

    ``points / (3 × games_played)`` (game points), below 0.33 → ``FLOOR``; 21 over 10 games → 7/10,
    9 over 11 → 3/11 → 33/100. No games played → ``FLOOR`` (decided here). Errors as ``mwp``.
    """
    return _percentage(points, games_played)


def _percentage(points: int, played: int) -> Fraction:
    _check_counts(points, played)
    if not played:
        return FLOOR
    return max(Fraction(points, 3 * played), FLOOR)


def _opponents_mean(values: Iterable[Fraction]) -> Fraction:
    values = list(values)
    if not values:
        return FLOOR
    return sum(values, Fraction(0)) / len(values)


def omw(opponent_mwps: Iterable[Fraction]) -> Fraction:
    """Opponents' match-win %: the mean of the given MWPs (seed 000, SCORING.md §3).

    ``opponent_mwps``: one already-floored MWP (``Fraction``, as from ``mwp``) per match played
    against an opponent — an opponent met twice appears twice; byes are simply not in it.
    Returns a ``Fraction``; an empty input (no opponents: only byes, or nothing played) gives
    ``FLOOR`` (§3 is silent; the floor is decided here for consistency with MWP/GWP).
    E.g. the §3 example's eight opponents give 0.6164 (4 decimals). Raises nothing.
    """
    return _opponents_mean(opponent_mwps)


def ogw(opponent_gwps: Iterable[Fraction]) -> Fraction:
    """Opponents' game-win %: the mean of the opponents' floored GWPs, as ``omw`` (seed 000,
    SCORING.md §3). Empty input gives ``FLOOR``. Returns a ``Fraction``; raises nothing.
    """
    return _opponents_mean(opponent_gwps)


def bye_games_won(best_of: int | None) -> int:
    """The games a bye wins: the smallest winning score of the format, ⌈best_of/2⌉ to 0 (1–0 at
    best of 1, 2–0 at best of 3, 3–0 at best of 5; SCORING.md §9 "Swiss byes"); 2 when the
    format is not given (seed 000's best of 3)."""
    return BYE_GAMES_WON if best_of is None else (best_of + 1) // 2


def validate_match(games_a: int, games_b: int, games_drawn: int, *, best_of: int) -> None:
    """Reject a match result that cannot happen in a best-of-``best_of`` match (seed 000,
    SCORING.md §3).

    ``games_a``/``games_b``: games won by side A/B; ``games_drawn``: drawn (or unfinished)
    games; ``best_of``: 1, 3 or 5. The match winner is never recorded separately: it is
    derived from the games (``games_a > games_b`` is a win for A, equal is a draw — 1–1–1,
    1–1–0, 0–0–1 — and ``games_a < games_b`` a win for B), so a result claiming a "win" that
    the games do not show cannot be entered at all.

    Returns ``None``; raises ``ResultError`` with code ``invalid_best_of`` (not 1, 3 or 5),
    ``not_integer`` (a count that is not an ``int`` ≥ 0 — ``bool`` rejected),
    ``negative_games``, ``empty_match`` (0–0–0: nothing was played), ``above_wins_needed``
    (a side above the ⌈best_of/2⌉ wins that end the match, e.g. 3–0 in a best of 3) or
    ``too_many_games`` (``games_a + games_b + games_drawn > best_of``, e.g. 2–1–1 in a best
    of 3).
    """
    if not _is_int(best_of) or best_of not in BEST_OF:
        raise ResultError("invalid_best_of", best_of=best_of)
    for value in (games_a, games_b, games_drawn):
        if not _is_int(value):
            raise ResultError("not_integer", message=MESSAGES["not_integer_games"], value=value)
    games = {"games_a": games_a, "games_b": games_b, "games_drawn": games_drawn}
    if min(games_a, games_b, games_drawn) < 0:
        raise ResultError("negative_games", **games)
    total = games_a + games_b + games_drawn
    if total == 0:
        raise ResultError("empty_match", **games)
    wins_needed = (best_of + 1) // 2
    if max(games_a, games_b) > wins_needed:
        raise ResultError("above_wins_needed", best_of=best_of, wins_needed=wins_needed, **games)
    if total > best_of:
        raise ResultError("too_many_games", best_of=best_of, total=total, **games)


def _check_structure(match: Match) -> None:
    """What holds whatever the best-of: whole, non-negative, non-empty games (byes: none)."""
    values = (match.games_a, match.games_b, match.games_drawn)
    for value in values:
        if not _is_int(value):
            raise ResultError("not_integer", message=MESSAGES["not_integer_games"], value=value)
    if match.is_bye:
        if any(values):
            raise ResultError("bye_with_games", entry_id=match.entry_a, round=match.round_number)
        return
    games = dict(zip(("games_a", "games_b", "games_drawn"), values, strict=True))
    if min(values) < 0:
        raise ResultError("negative_games", **games)
    if not any(values):
        raise ResultError("empty_match", **games)


def standings(
    entry_ids: list[int],
    matches: list[Match],
    *,
    sorteo: dict[int, int] | None = None,
    best_of: int | None = None,
    bye_best_of: int | None = None,
) -> list[StandingRow]:
    """Swiss standings (seed 000, SCORING.md §3).

    Inputs: ``entry_ids`` (every entry, including those that never played or dropped);
    ``matches`` (``Match`` objects, byes included); ``sorteo`` entry id → lot number (``int``
    ≥ 0, lower ranks higher); ``best_of`` 1, 3 or 5 to check every match with
    ``validate_match``; with ``None`` (the default) only what holds for any best-of is checked
    (whole, non-negative, non-empty games). A bye is a match won by ``bye_games_won`` of the
    format (``bye_best_of``, else ``best_of``; neither: 2–0, SCORING.md §9).

    Figures per entry (``StandingRow.figures``): ``wins``, ``losses``, ``draws`` (matches,
    ``wins`` including byes, as in the seed), ``byes``, ``match_points``, ``game_points``,
    ``games_played`` (byes: 2 each), ``rounds_played`` (matches + byes) — all ``int`` — and
    ``mwp``, ``gwp``, ``omw``, ``ogw`` (``Fraction``). MWP and GWP carry the 0.33 floor and it
    is these floored values that OMW/OGW average, over every match played against an opponent
    (byes ignored). No opponents → OMW = OGW = 0.33; no rounds → MWP = GWP = 0.33 (§3 is
    silent; decided here, see the module docstring). A dropped entry needs nothing special: it
    keeps its matches and its MWP uses the rounds it actually played.

    Order: match points, then OMW, then GWP, then OGW, all high to low; then the sorteo, only
    if every member of the still-tied group has a lot. Entries still level share the position
    (``shared=True``; 1, 2, 2, 4) and are listed by entry id. ``decided_by`` is the last
    criterion that split the group the entry was level in: ``None`` (never level on match
    points, or no criterion split its group), ``"omw"``, ``"gwp"``, ``"ogw"`` or ``"sorteo"``.

    Raises ``DomainError`` ``duplicate_entry`` or ``invalid_count`` (a bad lot), or
    ``ResultError`` ``unknown_entry``, ``invalid_sides`` (an entry against itself),
    ``invalid_round_number`` (not 1–99), ``round_entry_twice`` (two matches or byes of one
    entry in one round), ``bye_with_games``, ``not_integer``, ``negative_games``,
    ``empty_match`` and, with ``best_of``, any other ``validate_match`` code.
    """
    if best_of is not None and (not _is_int(best_of) or best_of not in BEST_OF):
        raise ResultError("invalid_best_of", best_of=best_of)
    known: set[int] = set()
    for entry_id in entry_ids:
        if entry_id in known:
            raise DomainError("duplicate_entry", entry_id=entry_id)
        known.add(entry_id)
    sorteo = _count_map(sorteo, "Sorteo", known)

    bye_games = bye_games_won(bye_best_of if bye_best_of is not None else best_of)
    names = ("wins", "losses", "draws", "byes", "game_points", "games_played")
    figures = {e: dict.fromkeys(names, 0) for e in entry_ids}
    opponents: dict[int, list[int]] = {e: [] for e in entry_ids}  # one id per match played
    seen: set[tuple[int, int]] = set()  # (round, entry)
    for match in matches:
        rnd = match.round_number
        if not _is_int(rnd) or not 1 <= rnd <= 99:
            raise ResultError("invalid_round_number", number=rnd)
        sides = (match.entry_a,) if match.is_bye else (match.entry_a, match.entry_b)
        if len(set(sides)) < len(sides):
            raise ResultError("invalid_sides", side_a=[match.entry_a], side_b=[match.entry_b])
        for entry_id in sides:
            if entry_id not in known:
                raise ResultError("unknown_entry", entry_id=entry_id)
            if (rnd, entry_id) in seen:
                raise ResultError("round_entry_twice", entry_id=entry_id, round=rnd)
            seen.add((rnd, entry_id))
        _check_structure(match)
        if match.is_bye:
            f = figures[match.entry_a]
            f["wins"] += 1
            f["byes"] += 1
            f["game_points"] += game_points(bye_games, 0, 0)
            f["games_played"] += bye_games
            continue
        if best_of is not None:
            validate_match(match.games_a, match.games_b, match.games_drawn, best_of=best_of)
        a, b = match.entry_a, match.entry_b
        for me, other, won, lost in (
            (a, b, match.games_a, match.games_b),
            (b, a, match.games_b, match.games_a),
        ):
            f = figures[me]
            f["wins" if won > lost else "losses" if won < lost else "draws"] += 1
            f["game_points"] += game_points(won, lost, match.games_drawn)
            f["games_played"] += won + lost + match.games_drawn
            opponents[me].append(other)
    for f in figures.values():
        f["match_points"] = match_points(f["wins"], f["losses"], f["draws"])
        f["rounds_played"] = f["wins"] + f["losses"] + f["draws"]
        f["mwp"] = mwp(f["match_points"], f["rounds_played"])
        f["gwp"] = gwp(f["game_points"], f["games_played"])
    for entry_id, f in figures.items():
        f["omw"] = omw(figures[o]["mwp"] for o in opponents[entry_id])
        f["ogw"] = ogw(figures[o]["gwp"] for o in opponents[entry_id])

    tiebreaks = [by_figure(name, figures) for name in _CRITERIA]
    return rank(entry_ids, figures, first="match_points", tiebreaks=tiebreaks, sorteo=sorteo)
