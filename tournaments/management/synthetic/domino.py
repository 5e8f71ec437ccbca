"""Invented dominó (seed 003): pairs, rotating partners, mano a mano; zapatos, games by time, no-shows."""

from __future__ import annotations

from tournaments.management.synthetic.base import Synthetic, SyntheticTable


class DominoSynthetic(Synthetic):
    def mix(self) -> tuple[tuple[str, int], ...]:
        return (("pairs", 40), ("individual", 25), ("single", 25))

    def rounds(self, rng, size: int) -> int:
        return rng.choice([5, 5, 6, 6, 7, 7, 7, 8, 9] if size < 65 else [7, 8, 9, 9, 10, 11])

    def grouping(self, mode: str) -> str | None:
        return "partners" if mode == "individual" else None

    def bye_points(self, settings: dict) -> float:
        return 1 if settings["bye_rule"] == "win" else 0

    def castigo_rate(self) -> float:
        return 0.33

    def table(self, rng, strengths, settings):
        """Head to head (pairs, mano a mano; a rare no-show), or a table of four with rotating
        partners (seats 1 & 3 against 2 & 4, no no-shows). The winners get their puntos."""

        target, time_limit = settings["target"], settings["time_limit"]
        if len(strengths) == 2:
            seats = [(0, "A", 1, None), (1, "B", 1, None)]
            sa, sb = strengths
            sides = ([0], [1])
        else:
            seats = [(0, "A", 1, None), (2, "A", 2, None), (1, "B", 1, None), (3, "B", 2, None)]
            sa = (strengths[0] + strengths[2]) / 2
            sb = (strengths[1] + strengths[3]) / 2
            sides = ([0, 2], [1, 3])
        p_a = 1 / (1 + 10 ** ((sb - sa) / 400))
        result = self._game(rng, p_a, target, time_limit, len(strengths) == 2)
        ta, tb, by_time, _forfeit = result
        points = [0] * len(strengths)
        for k in sides[0] if ta > tb else sides[1]:
            points[k] = self._puntos(min(ta, tb), target, by_time)
        return SyntheticTable(seats=seats, result=result, points=points)

    @staticmethod
    def _puntos(loser: int, target: int, by_time: bool) -> int:
        if by_time:
            return 1
        return 3 if loser == 0 else 2 if loser * 2 <= target else 1

    @staticmethod
    def _game(rng, p_a, target, time_limit, forfeits) -> tuple[int, int, bool, bool]:
        """(tantos A, tantos B, ended by time, forfeit): a valid score sheet (SCORING.md §1)."""
        a_wins = rng.random() < p_a
        k = rng.random()
        if forfeits and k < 0.004:  # a no-show
            w, lo = target, 0
            return (w, lo, False, True) if a_wins else (lo, w, False, True)
        if time_limit and k < 0.08:  # time ran out: both below the target, different
            w = rng.randint(int(target * 0.35), target - 1)
            lo = rng.randint(max(0, w - target // 2), w - 1)
            return (w, lo, True, False) if a_wins else (lo, w, True, False)
        # The winning hand adds the opponents' remaining tiles: past the target by 0–45,
        # skewed low; the loser 0 (a zapato, about 5 %) to target − 1, skewed high.
        w = target + min(int(rng.expovariate(1 / 9)), 45)
        if rng.random() < 0.05:
            lo = 0
        else:
            lo = min(target - 1, max(1, int(target * rng.betavariate(2.4, 1.5))))
        return (w, lo, False, False) if a_wins else (lo, w, False, False)

    def row(self, table_id, result, *, played_at, settings, tally):
        a, b, by_time, forfeit = result
        tally["results"] += 1
        tally["zapatos"] += min(a, b) == 0 and not by_time and not forfeit
        tally["by_time"] += by_time
        tally["forfeits"] += forfeit
        tally["rated_games"] += settings["rated"] and (not forfeit or settings["forfeits_rated"])
        return self.system.result_model(
            table_id=table_id,
            tantos_a=a,
            tantos_b=b,
            ended_by_time=by_time,
            forfeit=forfeit,
            played_at=played_at,
        )

    def summary(self, tally) -> str:
        return (
            f"Resultados dominó: {tally['results']} (zapatos {tally['zapatos']}, "
            f"por tiempo {tally['by_time']}, no presentaciones {tally['forfeits']})"
        )
