"""Invented data for ``manage.py generate_club`` and the benchmarks: the part of a scoring
system that only the generator asks (docs/ARCHITECTURE.md, "Registry"; docs/performance.md).

The generator invents finished tournaments of every registered system from hidden player
strengths (Elo-like numbers around 1500), as plain data first (entry indices, tuples), then
writes them with ``bulk_create``. It asks the system's ``Synthetic`` only what follows; every
random choice comes from the ``random.Random`` it passes (``rng``), so a seed always gives the
same club. ``settings`` is the dict of the generated tournament's fields (``mode``,
``target``, ``time_limit``, ``bye_rule``, ``best_of``, ``rated``, ``forfeits_rated`` ...). A
system whose ``mix`` is empty is never picked for the random tournaments; ``--system`` can
still ask for one once it implements ``table`` and ``row``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass
class SyntheticTable:
    """One simulated table of ``manage.py generate_club`` (``Synthetic.table``).

    ``seats``: (index in the table's group, side, position, victory_points) of each seat, as
    ``Seat`` rows take them; ``result``: the drawn result as a plain tuple, which only the same
    system reads back (``row``); ``points``: what each member of the group (same
    order as the strengths given) adds to the running score the generator pairs the next round
    by."""

    seats: list[tuple[int, str, int, int | None]]
    result: tuple
    points: list[float]


class Synthetic:
    """One scoring system's invented data; ``system``: its ``ScoringSystem``."""

    def __init__(self, system):
        self.system = system

    def mix(self) -> tuple[tuple[str, int], ...]:
        """(mode, weight) of this system's share of the random tournaments; the weights are
        relative over all the systems (the built-in ones add up to 100). Default: none."""
        return ()

    def rounds(self, rng, size: int) -> int:
        """Rounds of a random tournament of ``size`` entries."""
        return rng.choice([4, 5, 6])

    def rated(self, rng) -> bool:
        """Whether a generated tournament counts for the ranking: about nine in ten when the
        system is ``rated`` (no draw otherwise)."""
        return self.system.rated and rng.random() < 0.9

    def grouping(self, mode: str) -> str | None:
        """How a round is seated: None for head to head (two entries a table, side A and side
        B, paired down the running standings, one bye for an odd count), otherwise the
        ``tournaments.pairing.seating.seating_plan`` mode ("table": 3–4 seats; "partners":
        tables of four, seats 1 & 3 against 2 & 4) of a fresh random seating each round."""
        return None if self.system.has_sides else "table"

    def drops(self, rng, size: int, rounds: int) -> dict[int, int]:
        """Entries that withdraw: entry index → the last round it plays. Default: none."""
        return {}

    def bye_points(self, settings: dict) -> float:
        """What a bye adds to the running score the generator pairs by."""
        return 0

    def castigo_rate(self) -> float:
        """The share of generated tournaments with castigos (penalties in tantos); 0: never."""
        return 0.0

    def table(self, rng, strengths: Sequence[float], settings: dict) -> SyntheticTable:
        """Draw one table's result from the hidden ``strengths`` of the entries at it: head to
        head (side A then side B), or the group in seat order when ``synthetic_grouping``
        seats tables. A valid result by the system's rules, plausible for the strengths."""
        raise NotImplementedError

    def row(self, table_id: int, result: tuple, *, played_at, settings: dict, tally):
        """The unsaved ``result_model`` instance of a drawn ``result`` for ``bulk_create``
        (no history row, no signal), counted in ``tally`` (a ``collections.Counter``): at least
        "results", and "rated_games" for the games the ranking will count."""
        raise NotImplementedError

    def summary(self, tally) -> str:
        """The generator's report of this system's results (``tally`` as ``synthetic_row``
        filled it, maybe empty)."""
        return f"{self.system.label}: {tally['results']}"
