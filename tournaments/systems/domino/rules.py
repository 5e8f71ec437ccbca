"""Dominó's rules (seed 003, SCORING.md §1): pairs, individual with rotating partners, mano a
mano. A table's result is its score sheet (``Result``: tantos of side A and B, ended by time,
no show); the pure rules are ``tournaments.scoring.domino``. The only system whose games are
rated.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from tournaments.errors import DomainError, ResultError
from tournaments.models import Castigo, Result, Seat, Sorteo
from tournaments.scoring import domino as scoring
from tournaments.systems.base import SORTEO, Outcome, Tiebreak, counted_byes_of
from tournaments.systems.domino.presentation import DominoPresentation
from tournaments.systems.registry import CASTIGOS, ROUND_ROBIN, SEATING_PROPOSAL, SWISS_PROPOSAL
from tournaments.systems.rules import ScoringSystem
from tournaments.timing import check_played_at, default_played_at
from tournaments.writing import audit, entered_by, parse_int


class Domino(ScoringSystem):
    presentation_class = DominoPresentation
    key = "domino"
    label = _("Dominó")
    result_relation = "result"
    modes = ("pairs", "individual", "single")
    settings_fields = (
        "target",
        "time_limit",
        "bye_rule",
        "forfeit_winner_tantos",
        "forfeit_loser_tantos",
        "rated",
        "forfeits_rated",
    )
    tiebreaks = (
        Tiebreak("won", _("por juegos ganados"), _("JG")),
        Tiebreak("efectividad", _("por efectividad"), _("Efectividad")),
        Tiebreak("tantos_a_favor", _("por tantos a favor"), _("TF")),
        Tiebreak("diferencial", _("por diferencial"), _("Dif.")),
        SORTEO,
    )
    rated = True
    has_forfeits = True
    required_settings = ("mode", "target")

    result_model = Result

    def actions(self, tournament) -> frozenset[str]:
        if tournament.mode == "individual":
            return frozenset({SEATING_PROPOSAL, CASTIGOS})
        return frozenset({ROUND_ROBIN, SWISS_PROPOSAL, CASTIGOS})

    def check_settings(self, tournament) -> None:
        winner, loser = tournament.forfeit_score
        try:
            scoring.validate_result(winner, loser, target=tournament.target, ended_by_time=False)
        except ResultError as exc:
            raise DomainError("invalid_forfeit_score", score=f"{winner}-{loser}") from exc

    def check_change(self, tournament, key, value) -> None:
        """The target cannot change once there are results (they were validated against it),
        the time limit cannot go while a result ended by time, nor the forfeit score change
        while a forfeit is recorded with it. Raises DomainError "target_locked",
        "time_limit_locked", "forfeit_score_locked"."""

        results = Result.objects.filter(table__round__tournament=tournament)
        if key == "target" and results.exists():
            raise DomainError("target_locked")
        if key == "time_limit" and not value and results.filter(ended_by_time=True).exists():
            raise DomainError("time_limit_locked")
        if key in ("forfeit_winner_tantos", "forfeit_loser_tantos") and (
            results.filter(forfeit=True).exists()
        ):
            raise DomainError("forfeit_score_locked")

    def move_games(self, tournament, shift, *, acting_user) -> None:
        """Each game keeps its time of day and moves by ``shift``."""

        for result in Result.objects.filter(
            table__round__tournament=tournament, played_at__isnull=False
        ):
            result.played_at += shift
            audit(result, acting_user).save(update_fields=["played_at"])

    def game_times(self, tournament):
        return Result.objects.filter(
            table__round__tournament=tournament, played_at__isnull=False
        ).values_list("played_at", flat=True)

    def gather_many(self, tournaments, *, entries):
        """Games, byes, castigos per entry and sorteo of each tournament: five queries
        whatever the size or the number of tournaments."""

        by_pk = {t.pk: t for t in tournaments}
        pks = list(by_pk)
        inputs = {
            pk: {
                "entry_ids": list(entries[pk]),
                "games": [],
                "byes": {},
                "castigos": {},
                "sorteo": {},
                "needs_correction": {},
            }
            for pk in pks
        }
        sides: dict[int, dict[str, list[int]]] = {}
        for table_id, entry_id, side in (
            Seat.objects.filter(round__tournament__in=pks, table__result__isnull=False)
            .order_by("table_id", "side", "position")
            .values_list("table_id", "entry_id", "side")
        ):
            sides.setdefault(table_id, {"A": [], "B": []})[side].append(entry_id)
        for pk, table_id, a, b, by_time in (
            Result.objects.filter(table__round__tournament__in=pks)
            .order_by("table__round__tournament_id", "table__round__number", "table__number")
            .values_list(
                "table__round__tournament_id", "table_id", "tantos_a", "tantos_b", "ended_by_time"
            )
        ):
            # a table whose seats were left half-made (only the admin can) is not a game
            if not (
                table_id in sides
                and sides[table_id]["A"]
                and len(sides[table_id]["A"]) == len(sides[table_id]["B"])
            ):
                continue
            problem = self.stored_problem(by_pk[pk], tantos_a=a, tantos_b=b, ended_by_time=by_time)
            if problem is not None:
                inputs[pk]["needs_correction"][table_id] = problem
                continue
            inputs[pk]["games"].append(
                scoring.Game(
                    side_a=tuple(sides[table_id]["A"]),
                    side_b=tuple(sides[table_id]["B"]),
                    tantos_a=a,
                    tantos_b=b,
                    ended_by_time=by_time,
                )
            )
        for pk, entry_id in counted_byes_of(tournaments).values_list(
            "round__tournament_id", "entry_id"
        ):
            byes = inputs[pk]["byes"]
            byes[entry_id] = byes.get(entry_id, 0) + 1
        entry_of_player = {
            (pk, pid): e.pk for pk in pks for e in entries[pk].values() for pid in e.player_ids()
        }
        for pk, player_id, tantos in Castigo.objects.filter(tournament__in=pks).values_list(
            "tournament_id", "player_id", "tantos"
        ):
            entry_id = entry_of_player.get((pk, player_id))
            if entry_id is not None:
                castigos = inputs[pk]["castigos"]
                castigos[entry_id] = castigos.get(entry_id, 0) + tantos
        for pk, entry_id, lot in Sorteo.objects.filter(tournament__in=pks).values_list(
            "tournament_id", "entry_id", "lot"
        ):
            inputs[pk]["sorteo"][entry_id] = lot
        return inputs

    def outcomes(self, table_ids) -> dict:
        """Each side's tantos a favor as the standings count them (capped at the target on a
        normal end, SCORING.md §1) and the zapato, of the tables with a result that is not a
        no-show (a forfeit is no game played; its target–0 would read as a zapato) and still
        holds under the target. One query."""

        out = {}
        for table_id, a, b, by_time, target in Result.objects.filter(
            table_id__in=table_ids, forfeit=False
        ).values_list(
            "table_id", "tantos_a", "tantos_b", "ended_by_time", "table__round__tournament__target"
        ):
            try:
                side_a, side_b = scoring.game_figures(a, b, target=target, ended_by_time=by_time)
            except ResultError:
                continue
            out[table_id] = Outcome(
                sides={"A": side_a.tantos_a_favor, "B": side_b.tantos_a_favor},
                zapato="A" if side_a.zapato else "B" if side_b.zapato else "",
            )
        return out

    def stored_values(self, table, result) -> dict:
        return {
            "tantos_a": result.tantos_a,
            "tantos_b": result.tantos_b,
            "ended_by_time": result.ended_by_time,
            "forfeit": result.forfeit,
        }

    def validate_values(self, tournament, *, tantos_a, tantos_b, ended_by_time, **_):
        """A score sheet under the tournament's target and time limit (SCORING.md §1, "Valid
        results"). Raises ResultError "no_time_limit" (by time without a time limit) or the
        codes of ``scoring.domino.validate_result``."""
        if ended_by_time and not tournament.time_limit:
            raise ResultError("no_time_limit")
        scoring.validate_result(
            tantos_a, tantos_b, target=tournament.target, ended_by_time=ended_by_time
        )

    def rank(self, tournament, inputs) -> list:
        return scoring.standings(
            inputs["entry_ids"],
            inputs["games"],
            target=tournament.target,
            castigos=inputs["castigos"],
            byes=inputs["byes"],
            bye_rule=tournament.bye_rule,
            sorteo=inputs["sorteo"],
        )

    def first_figure(self) -> str:
        return "puntos"

    def value_names(self) -> tuple[str, ...]:
        return ("tantos_a", "tantos_b", "ended_by_time", "forfeit", "forfeiting_side")

    def record(self, *, acting_user, table, tournament, values, played_at=None):
        """A dominó score sheet (SCORING.md §1, "Valid results"): ``tantos_a``/``tantos_b``
        (whole numbers as typed), ``ended_by_time``, ``forfeiting_side`` ("A"/"B": a no-show
        scored with the tournament's forfeit score). ``played_at`` (aware datetime) orders
        the game in the ranking; default: kept, else the round's, else
        ``timing.default_played_at``; it must lie within the tournament's days
        (``timing.check_played_at``: DomainError "played_at_outside"). Raises ResultError
        ("tantos_missing", "not_integer", "value_too_large", "forfeit_by_time",
        "no_time_limit", the codes of ``scoring.domino.validate_result``)."""

        t, rnd = tournament, table.round
        ended_by_time = bool(values.get("ended_by_time"))
        forfeiting_side = values.get("forfeiting_side") or None
        forfeit = bool(values.get("forfeit"))
        tantos_a, tantos_b = values.get("tantos_a"), values.get("tantos_b")
        if forfeiting_side:
            if forfeiting_side not in ("A", "B"):
                raise ResultError("invalid_side")
            if ended_by_time:
                raise ResultError("forfeit_by_time")
            winner, loser = t.forfeit_score
            tantos_a, tantos_b = (loser, winner) if forfeiting_side == "A" else (winner, loser)
            forfeit = True
        a = parse_int(tantos_a, "A")
        b = parse_int(tantos_b, "B")
        self.validate_values(t, tantos_a=a, tantos_b=b, ended_by_time=ended_by_time)
        result = self.result_of(table) or Result(table=table)
        result.tantos_a, result.tantos_b = a, b
        result.ended_by_time, result.forfeit = ended_by_time, forfeit
        result.played_at = check_played_at(
            played_at or result.played_at or rnd.played_at or default_played_at(t.date, rnd.number),
            t.date,
            t.end_date,
        )
        result.entered_by = entered_by(acting_user)
        audit(result, acting_user).save()
        return result
