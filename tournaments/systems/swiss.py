"""Swiss match play (seed 000, SCORING.md §3): best-of-N matches, match points, OMW/GWP/OGW.

A table's result is a ``MatchResult`` (games won by A, by B, drawn); the rules are
``tournaments.scoring.swiss``. Never rated, no castigos (they are in tantos).
"""

from __future__ import annotations

from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from tournaments.scoring import swiss as rules
from tournaments.systems.base import (
    ROUND_ROBIN,
    SORTEO,
    SWISS_PROPOSAL,
    Card,
    Column,
    RowField,
    ScoringSystem,
    Tiebreak,
    counted_byes_of,
    outcome,
    own_first,
)


def pct(value) -> str:
    """A fraction as a whole percentage for people ("61 %"): the standings' display format."""
    from tournaments.templatetags.club import pct as pct_filter

    return pct_filter(value)


class Swiss(ScoringSystem):
    key = "swiss"
    label = _("Suizo (match play)")
    label_plural = _("suizos")
    result_relation = "match_result"
    modes = ("single", "pairs")
    settings_fields = ("best_of",)
    tiebreaks = (
        Tiebreak("omw", _("por OMW"), "OMW %"),
        Tiebreak("gwp", _("por GWP"), "GWP %"),
        Tiebreak("ogw", _("por OGW"), "OGW %"),
        SORTEO,
    )
    order_hint = _(
        "Orden: puntos de encuentro (3 ganado, 1 empate), OMW, GWP, OGW (cada porcentaje, "
        "mínimo 33 %), sorteo."
    )
    score_quantity = _("partidas")
    import_header = (
        "round",
        "table",
        "player_a",
        "player_b",
        "games_a",
        "games_b",
        "games_drawn",
        "drop",
    )
    import_hint = _(
        "Resultados (encuentros): <code>round,table,player_a,player_b,games_a,games_b,"
        "games_drawn,drop</code>. Ronda libre: <code>player_b</code> y las partidas vacías; "
        "<code>drop</code>: vacío, <code>a</code>, <code>b</code> o <code>both</code> (se "
        "retira después de esa ronda)."
    )

    @property
    def result_model(self):
        from tournaments.models import MatchResult

        return MatchResult

    def actions(self, tournament) -> frozenset[str]:
        return frozenset({ROUND_ROBIN, SWISS_PROPOSAL})

    def summary(self, tournament) -> str:
        return "{label} · {best_of}".format(
            label=self.label,
            best_of=gettext("al mejor de {best_of} partidas").format(best_of=tournament.best_of),
        )

    def rules(self, tournament) -> list[tuple[str, str]]:
        return [
            (
                gettext("Encuentros"),
                gettext("al mejor de {best_of} partidas").format(best_of=tournament.best_of),
            ),
            (gettext("Ronda libre"), gettext("encuentro ganado 2–0 (3 puntos de encuentro)")),
            (gettext("Ranking"), gettext("no cuenta")),
        ]

    def check_change(self, tournament, key, value) -> None:
        """The best-of cannot change once a match is recorded (the results were checked
        against it). Raises DomainError "best_of_locked"."""
        from tournaments.errors import DomainError
        from tournaments.models import MatchResult

        if (
            key == "best_of"
            and MatchResult.objects.filter(table__round__tournament=tournament).exists()
        ):
            raise DomainError("best_of_locked")

    # --- standings --------------------------------------------------------------------------

    def gather_many(self, tournaments, *, entries):
        """Matches (byes as matches without opponent) and sorteo of each tournament: four
        queries whatever the number of tournaments."""
        from tournaments.models import MatchResult, Seat, Sorteo

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
                rules.Match(
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
                rules.Match(round_number=number, entry_a=entry_id, entry_b=None)
            )
        for pk, entry_id, lot in Sorteo.objects.filter(tournament__in=pks).values_list(
            "tournament_id", "entry_id", "lot"
        ):
            inputs[pk]["sorteo"][entry_id] = lot
        return inputs

    def outcomes(self, table_ids) -> dict:
        """Each side's games won (the drawn games count for neither): the side that won more
        won the match, equal is a drawn match (SCORING.md §3). One query."""
        from tournaments.models import MatchResult
        from tournaments.systems.base import Outcome

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
        rules.validate_match(games_a, games_b, games_drawn, best_of=tournament.best_of)

    def rank(self, tournament, inputs) -> list:
        return rules.standings(inputs["entry_ids"], inputs["matches"], sorteo=inputs["sorteo"])

    def first_figure(self) -> str:
        return "match_points"

    def columns(self, lines) -> list[Column]:
        def record(line):
            f = line.row.figures
            text = f"{f['wins']}–{f['losses']}–{f['draws']}"
            return f"{text} ({f['byes']})" if f["byes"] else text

        return [
            Column("record", _("G–P–E (D)"), _("Ganados–perdidos–empatados (descansos)"), record),
            Column(
                "match_points",
                _("PE"),
                _("Puntos de encuentro"),
                lambda line: line.row.figures["match_points"],
                strong=True,
            ),
            Column(
                "omw",
                "OMW %",
                _("Porcentaje de encuentros ganados de los rivales"),
                lambda line: pct(line.row.figures["omw"]),
            ),
            Column(
                "gwp",
                "GWP %",
                _("Porcentaje de partidas ganadas"),
                lambda line: pct(line.row.figures["gwp"]),
            ),
            Column(
                "ogw",
                "OGW %",
                _("Porcentaje de partidas ganadas de los rivales"),
                lambda line: pct(line.row.figures["ogw"]),
            ),
        ]

    def csv_header(self) -> tuple[str, ...]:
        return ("match_points", "wins", "losses", "draws", "byes", "omw", "gwp", "ogw")

    # --- one table's result -----------------------------------------------------------------

    def value_names(self) -> tuple[str, ...]:
        return ("games_a", "games_b", "games_drawn")

    def record(self, *, acting_user, table, tournament, values, played_at=None):
        """A best-of-N match (SCORING.md §3): ``games_a``, ``games_b``, ``games_drawn`` (whole
        numbers as typed; drawn may be empty = 0), checked by ``scoring.swiss.validate_match``
        against the tournament's best-of. Raises ResultError ("not_integer",
        "too_many_games", "above_wins_needed", "empty_match" ...)."""
        from tournaments.models import MatchResult
        from tournaments.services.common import audit, entered_by, parse_int

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

    def row_fields(self, table, tournament, typed):
        result = self.result_of(table)
        if typed is not None:
            a, b, d = (typed.get(k, "") for k in ("games_a", "games_b", "games_drawn"))
        elif result is not None:
            a, b, d = result.games_a, result.games_b, result.games_drawn
        else:
            a = b = d = ""
        return [
            RowField(
                "games_a",
                gettext("Partidas ganadas por A"),
                a,
                who=table.side_name("A"),
                dom_id=f"a-{table.pk}",
            ),
            RowField(
                "games_b",
                gettext("Partidas ganadas por B"),
                b,
                who=table.side_name("B"),
                dom_id=f"b-{table.pk}",
            ),
            RowField("games_drawn", gettext("Partidas empatadas"), d, dom_id=f"d-{table.pk}"),
        ]

    def row_summary(self, table, tournament) -> str:
        result = self.result_of(table)
        if result is None:
            return ""
        if result.games_a > result.games_b:
            return gettext("Gana {name} · puntos de encuentro 3–0").format(
                name=table.side_name("A")
            )
        if result.games_b > result.games_a:
            return gettext("Gana {name} · puntos de encuentro 0–3").format(
                name=table.side_name("B")
            )
        return gettext("Empate · puntos de encuentro 1–1")

    def typed_summary(self, post) -> str:
        return "–".join(post.get(k, "") or "0" for k in ("games_a", "games_b", "games_drawn"))

    def card(self, table) -> Card:
        """Games won by A – won by B, then the drawn games if any ("1 – 1 (1 emp.)")."""
        result = self.result_of(table)
        score = gettext("vs")
        marks = []
        if result is not None:
            score = f"{result.games_a} – {result.games_b}"
            if result.games_drawn:
                marks.append(
                    (
                        gettext("({n} emp.)").format(n=result.games_drawn),
                        gettext("partidas empatadas"),
                    )
                )
        return Card(
            has_result=result is not None,
            score=score,
            marks=marks,
            side_a=[e.name for e in table.side("A")],
            side_b=[e.name for e in table.side("B")],
        )

    def finding_score(self, table, seat) -> str:
        """The match from the seat's side, games won–lost: "Ganaste 2–1", "Perdiste 0–2",
        "Empate 1–1", then the drawn games if any ("1 partida empatada")."""
        result = self.result_of(table)
        if result is None:
            return ""
        won, lost = own_first(seat, result.games_a, result.games_b)
        parts = [outcome(won, lost)]
        if result.games_drawn:
            parts.append(
                ngettext(
                    "{n} partida empatada", "{n} partidas empatadas", result.games_drawn
                ).format(n=result.games_drawn)
            )
        return " · ".join(parts)

    sheet_line_label = _("Partida")
    sheet_total = False

    def sheet_line_count(self, tournament) -> int:
        """One line per game of the best-of-N match."""
        return tournament.best_of

    def sheet_note(self, tournament) -> str:
        return gettext("Encuentro al mejor de {best_of}").format(best_of=tournament.best_of)

    # --- imports ----------------------------------------------------------------------------

    def import_results(self, *, acting_user, tournament, data, progress=None):
        """The match-play results file, one line per match or bye, with drops
        (``tournaments.imports.swiss``; header ``import_header``). Returns a
        ``MatchImportReport`` (an ``ImportReport`` with ``drops``)."""
        from tournaments.imports import swiss as importer

        return importer.import_results(
            self, acting_user=acting_user, tournament=tournament, data=data, progress=progress
        )

    # --- synthetic data (manage.py generate_club; see ScoringSystem) ------------------------

    def synthetic_mix(self) -> tuple[tuple[str, int], ...]:
        return (("single", 5),)

    def synthetic_rounds(self, rng, size: int) -> int:
        # About log2(size) rounds ((size − 1).bit_length() is its ceiling), 4 to 9.
        return max(4, min(9, (size - 1).bit_length() + rng.choice((0, 0, 1))))

    def synthetic_drops(self, rng, size: int, rounds: int) -> dict[int, int]:
        drops = {}
        for e in range(size):
            if rng.random() < 0.04:
                drops[e] = rng.randint(1, max(1, rounds - 1))
        return drops

    def synthetic_table(self, rng, strengths, settings):
        """A best-of-3 match: 2–0, 2–1, or (rarely) a drawn or unfinished one; 3 match points
        for a win, 1 each for a draw."""
        from tournaments.systems.base import SyntheticTable

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

    def synthetic_row(self, table_id, result, *, played_at, settings, tally):
        ga, gb, gd = result
        tally["results"] += 1
        return self.result_model(table_id=table_id, games_a=ga, games_b=gb, games_drawn=gd)

    def synthetic_summary(self, tally) -> str:
        return f"encuentros suizos: {tally['results']}"
