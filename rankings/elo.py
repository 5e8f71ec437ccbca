"""Yearly Elo ledger: one rated dominó game's rating update (seed 002, SCORING.md §2).

Pure Python, no Django. Ratings are plain ``float`` (IEEE double) throughout, as SCORING.md §2
says ("Store full precision (double) in the ledger; display one decimal"); this overrides the
page's general "keep exact values" note for this system. Nothing here rounds.

Where SCORING.md §2 settles a point the seed ("Ranking Net Dominó 2006") leaves open, §2 is the
decision and is relied on here:

- the winner's obtained score is clamped, ``S = min(1, 0.55 + 0.45 · d / 100)``, so margins over
  100 (games to 200) keep S within 0..1; ``d`` is the raw recorded margin, not capped;
- NG counts the player's rated games completed earlier in the same calendar year;
- the worked example is computed with the unrounded SE (0.456934…), which gives JB 1733.17,
  JC 1705.73 and JD 1691.26 (the seed rounds SE to 0.457 first and shows 1733.2, 1705.7, 1691.3).

Ordering games, year boundaries, the first rating setting and replays belong to the ledger, not to
this module: :func:`game_update` is the single step the ledger applies to each game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "INITIAL_RATING",
    "PlayerBefore",
    "PlayerUpdate",
    "expected_score",
    "game_update",
    "k_factor",
    "obtained_scores",
    "team_rating",
]

INITIAL_RATING = 1500.0
"""A player's first ever rating, in rating points (SCORING.md §2: 1500, a setting)."""

_K_NEW = 32.0  # K while NG < 20 (seed 002)
_K_NEW_GAMES = 20  # NG from which the sliding K applies


def team_rating(ratings: Sequence[float]) -> float:
    """Rating of one side: mean of its players' pre-game ratings (seed 002, SCORING.md §2).

    ``ratings``: the pre-game ratings (rating points) of the side's 1 player (mano a mano) or 2
    players (parejas). Returns a float; a one-player side gets that player's rating.
    Raises ``ValueError`` for an empty side or one of more than 2 players.
    """
    ratings = list(ratings)
    if not 1 <= len(ratings) <= 2:
        raise ValueError(f"a side has 1 or 2 players, got {len(ratings)}")
    return sum(float(r) for r in ratings) / len(ratings)


def expected_score(own: float, other: float) -> float:
    """Expected score SE of a side (seed 002, SCORING.md §2).

    ``own``/``other``: the team ratings (rating points) of this side and of the opposing side.
    Returns ``1 / (1 + 10 ** ((other − own) / 400))``, a float strictly between 0 and 1;
    ``expected_score(a, b) + expected_score(b, a) == 1`` up to rounding.
    """
    return 1.0 / (1.0 + 10.0 ** ((float(other) - float(own)) / 400.0))


def obtained_scores(winner_tantos: int, loser_tantos: int) -> tuple[float, float]:
    """Obtained scores S of the winning and losing side (seed 002, SCORING.md §2).

    ``winner_tantos``/``loser_tantos``: the tantos recorded on the sheet (raw, not capped at the
    target). With ``d = winner_tantos − loser_tantos``, returns ``(S_winner, S_loser)`` where
    ``S_winner = min(1, 0.55 + 0.45 · d / 100)`` and ``S_loser = 1 − S_winner``
    (e.g. 120–80 → (0.73, 0.27); 180–30 → (1.0, 0.0)). The clamp is SCORING.md §2's decision
    for margins over 100.
    Raises ``ValueError`` if ``d <= 0`` (a tie, or the sides given the wrong way round) or if a
    tally is negative.
    """
    if winner_tantos < 0 or loser_tantos < 0:
        raise ValueError(f"tantos cannot be negative: {winner_tantos}–{loser_tantos}")
    d = winner_tantos - loser_tantos
    if d <= 0:
        raise ValueError(
            f"the winner must have more tantos than the loser: {winner_tantos}–{loser_tantos}"
        )
    winner = min(1.0, 0.55 + 0.45 * d / 100)
    return winner, 1.0 - winner


def k_factor(ng: int) -> float:
    """K factor of a player (seed 002, SCORING.md §2).

    ``ng``: the rated games the player completed earlier in the same calendar year (NG, ≥ 0).
    Returns 32.0 if ``ng < 20``, else ``5 + 4000 / (130 + ng)`` (NG 20 → 31.67, 70 → 25,
    120 → 21). Raises ``ValueError`` for a negative ``ng``.
    """
    if ng < 0:
        raise ValueError(f"NG (games this year) cannot be negative, got {ng}")
    if ng < _K_NEW_GAMES:
        return _K_NEW
    return 5.0 + 4000.0 / (130 + ng)


@dataclass(frozen=True)
class PlayerBefore:
    """A player's state before a game (seed 002, SCORING.md §2).

    ``player_id``: the player's id; ``rating``: rating before the game (rating points, float);
    ``ng``: rated games completed earlier in the same calendar year.
    """

    player_id: int
    rating: float
    ng: int


@dataclass(frozen=True)
class PlayerUpdate:
    """One player's update from one game, with each intermediate figure (seed 002, SCORING.md §2).

    ``ng_before``: NG used for K; ``rating_before``/``rating_after``: R and R' (rating points);
    ``team_rating``/``opponent_rating``: the mean ratings of the player's side and of the other
    side; ``expected_score``: SE of the player's side; ``score``: S of the player's side;
    ``k_factor``: K. ``rating_after = rating_before + k_factor · (score − expected_score)``;
    :attr:`change` is R' − R.
    """

    player_id: int
    ng_before: int
    rating_before: float
    team_rating: float
    opponent_rating: float
    expected_score: float
    score: float
    k_factor: float
    rating_after: float

    @property
    def change(self) -> float:
        """Rating points gained (positive) or lost (negative) in this game: R' − R."""
        return self.rating_after - self.rating_before


def game_update(
    side_a: Sequence[PlayerBefore],
    side_b: Sequence[PlayerBefore],
    tantos_a: int,
    tantos_b: int,
) -> list[PlayerUpdate]:
    """Rating updates of the 2 or 4 players of one rated game (seed 002, SCORING.md §2).

    ``side_a``/``side_b``: the players of each side with their pre-game rating and NG; both sides
    have the same size, 1 (mano a mano) or 2 (parejas). ``tantos_a``/``tantos_b``: the raw tantos
    recorded for each side; the side with more tantos won. Each player gets
    ``R' = R + K · (S − SE)`` with SE from the two team means, S from the recorded margin and K
    from the player's own NG.

    Returns one :class:`PlayerUpdate` per player: side A's players then side B's, each side in
    the order given. Raises ``ValueError`` if a side is empty or has more than 2 players, the
    sides differ in size, a player appears twice (on both sides or twice on one), the game is a
    tie, a tally is negative, or an NG is negative.
    """
    side_a, side_b = list(side_a), list(side_b)
    for name, side in (("A", side_a), ("B", side_b)):
        if not 1 <= len(side) <= 2:
            raise ValueError(f"side {name} must have 1 or 2 players, got {len(side)}")
    if len(side_a) != len(side_b):
        raise ValueError(
            f"both sides must have the same number of players, got {len(side_a)} and {len(side_b)}"
        )
    ids = [p.player_id for p in side_a + side_b]
    if len(set(ids)) != len(ids):
        raise ValueError(f"a player cannot sit twice in one game: {ids}")
    if tantos_a == tantos_b:
        raise ValueError(f"a tie is not a result: {tantos_a}–{tantos_b}")

    if tantos_a > tantos_b:
        score_a, score_b = obtained_scores(tantos_a, tantos_b)
    else:
        score_b, score_a = obtained_scores(tantos_b, tantos_a)
    rating_a = team_rating([p.rating for p in side_a])
    rating_b = team_rating([p.rating for p in side_b])
    expected_a = expected_score(rating_a, rating_b)
    expected_b = expected_score(rating_b, rating_a)

    updates: list[PlayerUpdate] = []
    for side, own, other, expected, score in (
        (side_a, rating_a, rating_b, expected_a, score_a),
        (side_b, rating_b, rating_a, expected_b, score_b),
    ):
        for player in side:
            k = k_factor(player.ng)
            rating = float(player.rating)
            updates.append(
                PlayerUpdate(
                    player_id=player.player_id,
                    ng_before=player.ng,
                    rating_before=rating,
                    team_rating=own,
                    opponent_rating=other,
                    expected_score=expected,
                    score=score,
                    k_factor=k,
                    rating_after=rating + k * (score - expected),
                )
            )
    return updates
