"""Dominó (seed 003, SCORING.md §1): pairs, individual with rotating partners, mano a mano.

A table's result is its score sheet (``Result``: tantos of side A and B, ended by time, no
show); the rules are ``tournaments.scoring.domino``. The only system whose games are rated.
"""

from __future__ import annotations

from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

from tournaments.errors import ResultError
from tournaments.scoring import domino as rules
from tournaments.systems.base import (
    CASTIGOS,
    ROUND_ROBIN,
    SEATING_PROPOSAL,
    SORTEO,
    SWISS_PROPOSAL,
    Card,
    Column,
    RowField,
    ScoringSystem,
    Tiebreak,
    checked,
    counted_byes_of,
    outcome,
    own_first,
)


class Domino(ScoringSystem):
    key = "domino"
    label = _("Dominó")
    label_plural = _("de dominó")
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
    order_hint = _(
        "Orden: puntos, juegos ganados, efectividad (TF − TC − castigos), tantos a favor, "
        "diferencial entre los empatados, sorteo."
    )
    rated = True
    has_forfeits = True
    required_settings = ("mode", "target")
    score_quantity = _("tantos")
    import_header = (
        "round",
        "table",
        "side_a",
        "side_b",
        "tantos_a",
        "tantos_b",
        "ended_by_time",
        "forfeit",
        "played_at",
    )
    import_hint = _(
        "Resultados: <code>round,table,side_a,side_b,tantos_a,tantos_b,ended_by_time,forfeit,"
        "played_at</code>."
    )
    sheet_lines = 12

    @property
    def result_model(self):
        from tournaments.models import Result

        return Result

    # --- settings ---------------------------------------------------------------------------

    def actions(self, tournament) -> frozenset[str]:
        if tournament.mode == "individual":
            return frozenset({SEATING_PROPOSAL, CASTIGOS})
        return frozenset({ROUND_ROBIN, SWISS_PROPOSAL, CASTIGOS})

    def summary(self, tournament) -> str:
        return gettext("%(mode)s a %(target)s") % {
            "mode": tournament.get_mode_display(),
            "target": tournament.target,
        }

    def rules(self, tournament) -> list[tuple[str, str]]:
        t = tournament
        winner, loser = t.forfeit_score
        return [
            (gettext("Meta"), gettext("{target} tantos").format(target=t.target)),
            (
                gettext("Tiempo límite"),
                gettext("{minutes} min").format(minutes=t.time_limit)
                if t.time_limit
                else gettext("sin límite"),
            ),
            (gettext("Descanso"), str(t.get_bye_rule_display())),
            (gettext("No presentación"), f"{winner}–{loser}"),
            (gettext("Ranking"), gettext("cuenta") if t.rated else gettext("no cuenta")),
        ]

    def check_settings(self, tournament) -> None:
        from tournaments.errors import DomainError

        winner, loser = tournament.forfeit_score
        try:
            rules.validate_result(winner, loser, target=tournament.target, ended_by_time=False)
        except ResultError as exc:
            raise DomainError("invalid_forfeit_score", score=f"{winner}-{loser}") from exc

    def check_change(self, tournament, key, value) -> None:
        """The target cannot change once there are results (they were validated against it),
        the time limit cannot go while a result ended by time, nor the forfeit score change
        while a forfeit is recorded with it. Raises DomainError "target_locked",
        "time_limit_locked", "forfeit_score_locked"."""
        from tournaments.errors import DomainError
        from tournaments.models import Result

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
        from tournaments.models import Result
        from tournaments.services.common import audit

        for result in Result.objects.filter(
            table__round__tournament=tournament, played_at__isnull=False
        ):
            result.played_at += shift
            audit(result, acting_user).save(update_fields=["played_at"])

    def game_times(self, tournament):
        from tournaments.models import Result

        return Result.objects.filter(
            table__round__tournament=tournament, played_at__isnull=False
        ).values_list("played_at", flat=True)

        # --- standings --------------------------------------------------------------------------

    def gather_many(self, tournaments, *, entries):
        """Games, byes, castigos per entry and sorteo of each tournament: five queries
        whatever the size or the number of tournaments."""
        from tournaments.models import Castigo, Result, Seat, Sorteo

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
                rules.Game(
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
        from tournaments.models import Result
        from tournaments.systems.base import Outcome

        out = {}
        for table_id, a, b, by_time, target in Result.objects.filter(
            table_id__in=table_ids, forfeit=False
        ).values_list(
            "table_id", "tantos_a", "tantos_b", "ended_by_time", "table__round__tournament__target"
        ):
            try:
                side_a, side_b = rules.game_figures(a, b, target=target, ended_by_time=by_time)
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
        rules.validate_result(
            tantos_a, tantos_b, target=tournament.target, ended_by_time=ended_by_time
        )

    def rank(self, tournament, inputs) -> list:
        return rules.standings(
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

    def columns(self, lines) -> list[Column]:
        def fig(key):
            return lambda line: line.row.figures[key]

        return [
            Column("played", _("PJ"), _("Partidas jugadas"), fig("played")),
            Column("won", _("JG"), _("Juegos ganados"), fig("won")),
            Column("puntos", _("Puntos"), _("Puntos"), fig("puntos"), strong=True),
            Column("tantos_a_favor", _("TF"), _("Tantos a favor"), fig("tantos_a_favor")),
            Column("tantos_en_contra", _("TC"), _("Tantos en contra"), fig("tantos_en_contra")),
            Column("castigos", _("Castigos"), _("Castigos"), fig("castigos")),
            Column("efectividad", _("Efectividad"), _("Efectividad"), fig("efectividad")),
            Column("byes", _("Descansos"), _("Descansos"), fig("byes")),
        ]

    # --- one table's result -----------------------------------------------------------------

    def value_names(self) -> tuple[str, ...]:
        return ("tantos_a", "tantos_b", "ended_by_time", "forfeit", "forfeiting_side")

    def values_from_post(self, post, table) -> dict:
        return {
            "tantos_a": post.get("tantos_a", ""),
            "tantos_b": post.get("tantos_b", ""),
            "ended_by_time": checked(post.get("ended_by_time")),
            "forfeiting_side": post.get("forfeit", "") or None,
        }

    def record(self, *, acting_user, table, tournament, values, played_at=None):
        """A dominó score sheet (SCORING.md §1, "Valid results"): ``tantos_a``/``tantos_b``
        (whole numbers as typed), ``ended_by_time``, ``forfeiting_side`` ("A"/"B": a no-show
        scored with the tournament's forfeit score). ``played_at`` (aware datetime) orders
        the game in the ranking; default: kept, else the round's, else
        ``timing.default_played_at``; it must lie within the tournament's days
        (``timing.check_played_at``: DomainError "played_at_outside"). Raises ResultError ("tantos_missing", "not_integer",
        "value_too_large", "forfeit_by_time", "no_time_limit", the codes of
        ``scoring.domino.validate_result``)."""
        from tournaments.models import Result
        from tournaments.services.common import audit, entered_by, parse_int
        from tournaments.timing import check_played_at, default_played_at

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

    def row_fields(self, table, tournament, typed):
        result = self.result_of(table)
        if typed is not None:
            a, b = typed.get("tantos_a", ""), typed.get("tantos_b", "")
            by_time = checked(typed.get("ended_by_time"))
            forfeit = typed.get("forfeit", "")
        elif result is not None:
            a, b, by_time = result.tantos_a, result.tantos_b, result.ended_by_time
            # a stored no-show: the side that did not come is the one that lost
            forfeit = ("A" if a < b else "B") if result.forfeit else ""
        else:
            a, b, by_time, forfeit = "", "", False, ""
        side_a, side_b = table.side_name("A"), table.side_name("B")
        return [
            RowField("tantos_a", gettext("Tantos A"), a, who=side_a, dom_id=f"a-{table.pk}"),
            RowField("tantos_b", gettext("Tantos B"), b, who=side_b, dom_id=f"b-{table.pk}"),
            RowField("ended_by_time", gettext("Terminó por tiempo"), by_time, kind="checkbox"),
            RowField(
                "forfeit",
                gettext("No presentación"),
                forfeit,
                kind="select",
                dom_id=f"f-{table.pk}",
                options=[
                    ("", "—"),
                    ("A", gettext("no se presentó A")),
                    ("B", gettext("no se presentó B")),
                ],
            ),
        ]

    def row_summary(self, table, tournament) -> str:
        result = self.result_of(table)
        if result is None:
            return ""
        a, b = rules.game_figures(
            result.tantos_a,
            result.tantos_b,
            target=tournament.target,
            ended_by_time=result.ended_by_time,
        )
        parts = [gettext("Puntos: A {a} · B {b}").format(a=a.puntos, b=b.puntos)]
        if a.zapato or b.zapato:
            parts.append(gettext("zapato"))
        if result.ended_by_time:
            parts.append(gettext("por tiempo"))
        if result.forfeit:
            parts.append(gettext("no presentación"))
        return " · ".join(parts)

    def typed_summary(self, post) -> str:
        return f"{post.get('tantos_a', '')}–{post.get('tantos_b', '')}"

    def card(self, table) -> Card:
        result = self.result_of(table)
        card = Card(
            has_result=result is not None,
            score=f"{result.tantos_a} – {result.tantos_b}" if result else gettext("vs"),
            side_a=[e.name for e in table.side("A")],
            side_b=[e.name for e in table.side("B")],
        )
        if result is not None and result.ended_by_time:
            card.marks.append(
                (
                    pgettext("abreviatura de terminada por tiempo", "T"),
                    gettext("terminada por tiempo"),
                )
            )
        if result is not None and result.forfeit:
            card.marks.append(
                (pgettext("abreviatura de no presentación", "NP"), gettext("no presentación"))
            )
        return card

    def finding_score(self, table, seat) -> str:
        """ "Ganaste 100–30" / "Perdiste 30–100" (the seat's tantos first), then
        "no presentación" or "terminada por tiempo" when so."""
        result = self.result_of(table)
        if result is None:
            return ""
        own, other = own_first(seat, result.tantos_a, result.tantos_b)
        parts = [outcome(own, other)]
        if result.forfeit:
            parts.append(gettext("no presentación"))
        if result.ended_by_time:
            parts.append(gettext("terminada por tiempo"))
        return " · ".join(parts)

    def partners_at_table(self, tournament) -> bool:
        return tournament.mode == "individual"

    def sheet_note(self, tournament) -> str:
        note = gettext("Meta {target} tantos").format(target=tournament.target)
        if tournament.time_limit:
            note += " · " + gettext("tiempo límite {minutes} min").format(
                minutes=tournament.time_limit
            )
        return note

    # --- imports ----------------------------------------------------------------------------

    def import_results(self, *, acting_user, tournament, data, progress=None):
        """The dominó results file, one line per game or bye
        (``tournaments.imports.domino``; header ``import_header``)."""
        from tournaments.imports import domino as importer

        return importer.import_results(
            self, acting_user=acting_user, tournament=tournament, data=data, progress=progress
        )

    # --- synthetic data (manage.py generate_club; see ScoringSystem) ------------------------

    def synthetic_mix(self) -> tuple[tuple[str, int], ...]:
        return (("pairs", 40), ("individual", 25), ("single", 25))

    def synthetic_rounds(self, rng, size: int) -> int:
        return rng.choice([5, 5, 6, 6, 7, 7, 7, 8, 9] if size < 65 else [7, 8, 9, 9, 10, 11])

    def synthetic_grouping(self, mode: str) -> str | None:
        return "partners" if mode == "individual" else None

    def synthetic_bye_points(self, settings: dict) -> float:
        return 1 if settings["bye_rule"] == "win" else 0

    def synthetic_castigo_rate(self) -> float:
        return 0.33

    def synthetic_table(self, rng, strengths, settings):
        """Head to head (pairs, mano a mano; a rare no-show), or a table of four with rotating
        partners (seats 1 & 3 against 2 & 4, no no-shows). The winners get their puntos."""
        from tournaments.systems.base import SyntheticTable

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
        result = self._synthetic_game(rng, p_a, target, time_limit, len(strengths) == 2)
        ta, tb, by_time, _forfeit = result
        points = [0] * len(strengths)
        for k in sides[0] if ta > tb else sides[1]:
            points[k] = self._synthetic_puntos(min(ta, tb), target, by_time)
        return SyntheticTable(seats=seats, result=result, points=points)

    @staticmethod
    def _synthetic_puntos(loser: int, target: int, by_time: bool) -> int:
        if by_time:
            return 1
        return 3 if loser == 0 else 2 if loser * 2 <= target else 1

    @staticmethod
    def _synthetic_game(rng, p_a, target, time_limit, forfeits) -> tuple[int, int, bool, bool]:
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

    def synthetic_row(self, table_id, result, *, played_at, settings, tally):
        a, b, by_time, forfeit = result
        tally["results"] += 1
        tally["zapatos"] += min(a, b) == 0 and not by_time and not forfeit
        tally["by_time"] += by_time
        tally["forfeits"] += forfeit
        tally["rated_games"] += settings["rated"] and (not forfeit or settings["forfeits_rated"])
        return self.result_model(
            table_id=table_id,
            tantos_a=a,
            tantos_b=b,
            ended_by_time=by_time,
            forfeit=forfeit,
            played_at=played_at,
        )

    def synthetic_summary(self, tally) -> str:
        return (
            f"Resultados dominó: {tally['results']} (zapatos {tally['zapatos']}, "
            f"por tiempo {tally['by_time']}, no presentaciones {tally['forfeits']})"
        )
