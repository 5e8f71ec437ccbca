"""Invented table games (seed 004): VP per seat around 60."""

from __future__ import annotations

from tournaments.management.synthetic.base import Synthetic, SyntheticTable


class TableSynthetic(Synthetic):
    def mix(self) -> tuple[tuple[str, int], ...]:
        return (("single", 5),)

    def rounds(self, rng, size: int) -> int:
        return rng.choice([3, 4, 4, 5, 6])

    def grouping(self, mode: str) -> str | None:
        return "table"

    def table(self, rng, strengths, settings):
        """VP per seat around 60 (+1 per 8 points of strength), spread 18; a tenth of the
        tables end by time when there is a time limit. A seat's points: the seats it beat."""

        victory_points = [max(0, round(rng.gauss(60 + (s - 1500) / 8, 18))) for s in strengths]
        seats = [(k, "A", k + 1, v) for k, v in enumerate(victory_points)]
        result = (bool(settings["time_limit"]) and rng.random() < 0.1,)
        points = [sum(1 for other in victory_points if other < v) for v in victory_points]
        return SyntheticTable(seats=seats, result=result, points=points)

    def row(self, table_id, result, *, played_at, settings, tally):
        tally["results"] += 1
        return self.system.result_model(table_id=table_id, ended_by_time=result[0])

    def summary(self, tally) -> str:
        return f"mesas de 3–4: {tally['results']}"
