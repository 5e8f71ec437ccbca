"""Table games' rules (seed 004, SCORING.md §4): tables of 3–4 players, 5/4/3/2/1 points, VP,
percentages. A table's result is a ``TableResult`` (ended by time) plus each seat's VP
(``Seat.victory_points``); the pure rules are ``tournaments.scoring.table``. Single-player
entries only, no sides, never rated.

Inside, the figure is ``victory_points`` (DESIGN.md, Names); the formats people use keep
``vp``: the results CSV column, the standings CSV column and the round page's boxes
(``vp_<entry id>``).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from tournaments.errors import DomainError, ResultError
from tournaments.models import Seat, Sorteo, TableResult
from tournaments.scoring import table as scoring
from tournaments.systems.base import SORTEO, Outcome, Tiebreak, counted_byes_of
from tournaments.systems.registry import SEATING_PROPOSAL
from tournaments.systems.rules import ScoringSystem
from tournaments.systems.table.presentation import TableGamePresentation
from tournaments.writing import audit, entered_by, parse_int


class TableGame(ScoringSystem):
    presentation_class = TableGamePresentation
    key = "table"
    label = _("Mesa de 3–4 jugadores")
    result_relation = "table_result"
    modes = ("single",)
    settings_fields = ("time_limit",)
    tiebreaks = (
        Tiebreak("victory_points", _("por VP"), _("VP")),
        Tiebreak("pct_sum", _("por suma de %"), _("Suma %")),
        SORTEO,
    )
    has_sides = False

    result_model = TableResult

    def actions(self, tournament) -> frozenset[str]:
        return frozenset({SEATING_PROPOSAL})

    def gather_many(self, tournaments, *, entries):
        """Tables with every seat's VP, byes and sorteo of each tournament: four queries
        whatever the number of tournaments."""

        by_pk = {t.pk: t for t in tournaments}
        pks = list(by_pk)
        inputs = {
            pk: {
                "entry_ids": list(entries[pk]),
                "games": [],
                "byes": [],
                "sorteo": {},
                "needs_correction": {},
            }
            for pk in pks
        }
        seated: dict[int, list[tuple[int, int, int]]] = {}
        for table_id, entry_id, position, victory_points in Seat.objects.filter(
            round__tournament__in=pks, table__table_result__isnull=False
        ).values_list("table_id", "entry_id", "position", "victory_points"):
            seated.setdefault(table_id, []).append((position, entry_id, victory_points))
        for pk, table_id, number, by_time in TableResult.objects.filter(
            table__round__tournament__in=pks
        ).values_list(
            "table__round__tournament_id", "table_id", "table__round__number", "ended_by_time"
        ):
            seats = sorted(seated.get(table_id, []))
            # a seat without VP or a table of the wrong size (only the admin can leave one)
            problem = self.stored_problem(
                by_pk[pk], scores=[v for _, _, v in seats], ended_by_time=by_time
            )
            if problem is not None:
                inputs[pk]["needs_correction"][table_id] = problem
                continue
            inputs[pk]["games"].append(
                scoring.TableGame(
                    number,
                    tuple(e for _, e, _ in seats),
                    tuple(v for _, _, v in seats),
                    by_time,
                )
            )
        for pk, entry_id, number in counted_byes_of(tournaments).values_list(
            "round__tournament_id", "entry_id", "round__number"
        ):
            inputs[pk]["byes"].append(scoring.TableBye(number, entry_id))
        for pk, entry_id, lot in Sorteo.objects.filter(tournament__in=pks).values_list(
            "tournament_id", "entry_id", "lot"
        ):
            inputs[pk]["sorteo"][entry_id] = lot
        return inputs

    def outcomes(self, table_ids) -> dict:
        """Each seat's VP at the tables with a result whose every seat has its VP (no sides:
        between two players at one table, the higher VP won, equal VP drew). One query."""

        seats: dict[int, dict[int, int | None]] = {}
        for table_id, entry_id, victory_points in Seat.objects.filter(
            table_id__in=table_ids, table__table_result__isnull=False
        ).values_list("table_id", "entry_id", "victory_points"):
            seats.setdefault(table_id, {})[entry_id] = victory_points
        return {
            table_id: Outcome(seats=figures)
            for table_id, figures in seats.items()
            if None not in figures.values()
        }

    def stored_values(self, table, result) -> dict:
        seats = sorted(table.seats.all(), key=lambda seat: seat.position)
        return {
            "scores": [seat.victory_points for seat in seats],
            "ended_by_time": result.ended_by_time,
        }

    def validate_values(self, tournament, *, scores, ended_by_time=False, **_):
        """A table game's VP, one per seat, 3–4 seats (SCORING.md §4). Raises the ResultError
        codes of ``scoring.table.validate_table``."""
        scoring.validate_table(scores, ended_by_time=ended_by_time)

    def rank(self, tournament, inputs) -> list:
        return scoring.standings(
            inputs["entry_ids"], inputs["games"], byes=inputs["byes"], sorteo=inputs["sorteo"]
        )

    def first_figure(self) -> str:
        return "points"

    def value_names(self) -> tuple[str, ...]:
        return ("scores", "ended_by_time")

    def record(self, *, acting_user, table, tournament, values, played_at=None):
        """A 3–4 player game (SCORING.md §4): ``scores`` maps each seated entry id to its VP
        (a whole number ≥ 0 as typed), every seat included; ``ended_by_time``. Checked by
        ``scoring.table.validate_table``. Raises ResultError ("score_missing",
        "negative_score", "not_integer", "value_too_large", "table_size") or DomainError
        "foreign_entry" (a score for an entry not at the table)."""

        scores = dict(values.get("scores") or {})
        ended_by_time = bool(values.get("ended_by_time"))
        seats = list(table.seats.select_related("entry__player1").order_by("position"))
        unknown = set(scores) - {s.entry_id for s in seats}
        if unknown:
            raise DomainError("foreign_entry", name=", ".join(str(x) for x in sorted(unknown)))
        numbers = []
        for seat in seats:
            raw = scores.get(seat.entry_id)
            if raw is None or (isinstance(raw, str) and raw.strip() == ""):
                raise ResultError("score_missing", seat=seat.position, name=seat.entry.name)
            try:
                numbers.append(parse_int(raw, seat.entry.name, kind="victory_points"))
            except ResultError as exc:  # the same error, told which seat it is
                params = {**exc.params, "seat": seat.position, "name": seat.entry.name}
                raise ResultError(exc.code, message=exc.template, **params) from exc
        self.validate_values(tournament, scores=numbers, ended_by_time=ended_by_time)
        for seat, value in zip(seats, numbers, strict=True):
            if seat.victory_points != value:
                seat.victory_points = value
                audit(seat, acting_user).save(update_fields=["victory_points"])
        result = self.result_of(table) or TableResult(table=table)
        result.ended_by_time = ended_by_time
        result.entered_by = entered_by(acting_user)
        audit(result, acting_user).save()
        return result

    def delete(self, *, acting_user, table, result) -> None:
        """Remove the result and every seat's VP (history keeps both)."""

        for seat in table.seats.exclude(victory_points=None):
            seat.victory_points = None
            audit(seat, acting_user).save(update_fields=["victory_points"])
        audit(result, acting_user).delete()

    def check_byes(self, tournament, *, seated: int, resting: int) -> None:
        """Everyone plays: tables of 3 or 4 seat any number of players but 5, and with 5, one
        table of 4 and one bye (SCORING.md §4, Seating). Raises DomainError "table_byes"."""
        allowed = 1 if seated + resting == 5 else 0
        if resting > allowed:
            raise DomainError("table_byes", count=resting, allowed=allowed)
