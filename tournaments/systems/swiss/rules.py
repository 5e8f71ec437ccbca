"""Swiss match play's rules (seed 000, SCORING.md §3): best-of-N matches, match points,
OMW/GWP/OGW. A table's result is a ``MatchResult`` (games won by A, by B, drawn); the pure
rules are ``tournaments.scoring.swiss``. Never rated, no castigos (they are in tantos).
"""

from __future__ import annotations

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournaments.errors import DomainError
from tournaments.models import MatchResult, Seat, Sorteo
from tournaments.scoring import swiss as scoring
from tournaments.systems.base import SORTEO, Outcome, Tiebreak, counted_byes_of
from tournaments.systems.registry import ROUND_ROBIN, SWISS_PROPOSAL
from tournaments.systems.rules import ScoringSystem
from tournaments.systems.swiss.presentation import SwissPresentation
from tournaments.writing import audit, entered_by, parse_int


class Swiss(ScoringSystem):
    presentation_class = SwissPresentation
    key = "swiss"
    label = _("Suizo (match play)")
    result_relation = "match_result"
    modes = ("single", "pairs")
    settings_fields = ("best_of",)
    tiebreaks = (
        Tiebreak("omw", _("por OMW"), "OMW %"),
        Tiebreak("gwp", _("por GWP"), "GWP %"),
        Tiebreak("ogw", _("por OGW"), "OGW %"),
        SORTEO,
    )

    result_model = MatchResult

    def actions(self, tournament) -> frozenset[str]:
        return frozenset({ROUND_ROBIN, SWISS_PROPOSAL})

    def check_change(self, tournament, key, value) -> None:
        """The best-of cannot change once a match is recorded (the results were checked
        against it). Raises DomainError "best_of_locked"."""

        if (
            key == "best_of"
            and MatchResult.objects.filter(table__round__tournament=tournament).exists()
        ):
            raise DomainError("best_of_locked")

    def gather_many(self, tournaments, *, entries):
        """Matches (byes as matches without opponent) and sorteo of each tournament: four
        queries whatever the number of tournaments."""

        by_pk = {t.pk: t for t in tournaments}
        pks = list(by_pk)
        inputs = {
            pk: {
                "entry_ids": list(entries[pk]),
                "matches": [],
                "sorteo": {},
                "needs_correction": {},
            }
            for pk in pks
        }
        seats: dict[int, dict[str, int]] = {}
        for table_id, entry_id, side in Seat.objects.filter(
            round__tournament__in=pks, table__match_result__isnull=False
        ).values_list("table_id", "entry_id", "side"):
            seats.setdefault(table_id, {})[side] = entry_id
        for pk, table_id, number, a, b, d in MatchResult.objects.filter(
            table__round__tournament__in=pks
        ).values_list(
            "table__round__tournament_id",
            "table_id",
            "table__round__number",
            "games_a",
            "games_b",
            "games_drawn",
        ):
            if len(seats.get(table_id, {})) != 2:
                continue
            problem = self.stored_problem(by_pk[pk], games_a=a, games_b=b, games_drawn=d)
            if problem is not None:
                inputs[pk]["needs_correction"][table_id] = problem
                continue
            inputs[pk]["matches"].append(
                scoring.Match(
                    round_number=number,
                    entry_a=seats[table_id]["A"],
                    entry_b=seats[table_id]["B"],
                    games_a=a,
                    games_b=b,
                    games_drawn=d,
                )
            )
        for pk, entry_id, number in counted_byes_of(tournaments).values_list(
            "round__tournament_id", "entry_id", "round__number"
        ):
            inputs[pk]["matches"].append(
                scoring.Match(round_number=number, entry_a=entry_id, entry_b=None)
            )
        for pk, entry_id, lot in Sorteo.objects.filter(tournament__in=pks).values_list(
            "tournament_id", "entry_id", "lot"
        ):
            inputs[pk]["sorteo"][entry_id] = lot
        return inputs

    def outcomes(self, table_ids) -> dict:
        """Each side's games won (the drawn games count for neither): the side that won more
        won the match, equal is a drawn match (SCORING.md §3). One query."""

        return {
            table_id: Outcome(sides={"A": a, "B": b})
            for table_id, a, b in MatchResult.objects.filter(table_id__in=table_ids).values_list(
                "table_id", "games_a", "games_b"
            )
        }

    def stored_values(self, table, result) -> dict:
        return {
            "games_a": result.games_a,
            "games_b": result.games_b,
            "games_drawn": result.games_drawn,
        }

    def validate_values(self, tournament, *, games_a, games_b, games_drawn, **_):
        """A match under the tournament's best-of (SCORING.md §3). Raises the ResultError codes
        of ``scoring.swiss.validate_match``."""
        scoring.validate_match(games_a, games_b, games_drawn, best_of=tournament.best_of)

    def rank(self, tournament, inputs) -> list:
        return scoring.standings(
            inputs["entry_ids"],
            inputs["matches"],
            sorteo=inputs["sorteo"],
            bye_best_of=tournament.best_of,
        )

    def first_figure(self) -> str:
        return "match_points"

    def value_names(self) -> tuple[str, ...]:
        return ("games_a", "games_b", "games_drawn")

    def record(self, *, acting_user, table, tournament, values, played_at=None):
        """A best-of-N match (SCORING.md §3): ``games_a``, ``games_b``, ``games_drawn`` (whole
        numbers as typed; drawn may be empty = 0), checked by ``scoring.swiss.validate_match``
        against the tournament's best-of. Raises ResultError ("not_integer",
        "too_many_games", "above_wins_needed", "empty_match" ...)."""

        drawn = values.get("games_drawn")
        a = parse_int(values.get("games_a"), "A", kind="games")
        b = parse_int(values.get("games_b"), "B", kind="games")
        d = parse_int(drawn if drawn not in (None, "") else 0, gettext("empates"), kind="games")
        self.validate_values(tournament, games_a=a, games_b=b, games_drawn=d)
        result = self.result_of(table) or MatchResult(table=table)
        result.games_a, result.games_b, result.games_drawn = a, b, d
        result.entered_by = entered_by(acting_user)
        audit(result, acting_user).save()
        return result
