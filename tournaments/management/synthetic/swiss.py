"""Invented Swiss match play (seed 000): best-of-3 matches and a few drops."""

from __future__ import annotations

from tournaments.management.synthetic.base import Synthetic, SyntheticTable


class SwissSynthetic(Synthetic):
    def mix(self) -> tuple[tuple[str, int], ...]:
        return (("single", 5),)

    def rounds(self, rng, size: int) -> int:
        # About log2(size) rounds ((size − 1).bit_length() is its ceiling), 4 to 9.
        return max(4, min(9, (size - 1).bit_length() + rng.choice((0, 0, 1))))

    def drops(self, rng, size: int, rounds: int) -> dict[int, int]:
        drops = {}
        for e in range(size):
            if rng.random() < 0.04:
                drops[e] = rng.randint(1, max(1, rounds - 1))
        return drops

    def table(self, rng, strengths, settings):
        """A best-of-3 match: 2–0, 2–1, or (rarely) a drawn or unfinished one; 3 match points
        for a win, 1 each for a draw."""

        sa, sb = strengths
        p_a = 1 / (1 + 10 ** ((sb - sa) / 400))
        k = rng.random()
        if k < 0.04:
            result = (1, 1, 1)
        elif k < 0.07:
            result = (1, 1, 0)
        elif k < 0.09:
            result = (2, 0, 1) if rng.random() < p_a else (0, 2, 1)
        else:
            a_wins = rng.random() < p_a
            lost = 1 if rng.random() < 0.45 else 0
            result = (2, lost, 0) if a_wins else (lost, 2, 0)
        ga, gb, _gd = result
        points = [3, 0] if ga > gb else [0, 3] if gb > ga else [1, 1]
        return SyntheticTable(
            seats=[(0, "A", 1, None), (1, "B", 1, None)], result=result, points=points
        )

    def row(self, table_id, result, *, played_at, settings, tally):
        ga, gb, gd = result
        tally["results"] += 1
        return self.system.result_model(table_id=table_id, games_a=ga, games_b=gb, games_drawn=gd)

    def summary(self, tally) -> str:
        return f"encuentros suizos: {tally['results']}"
