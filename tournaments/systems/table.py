"""Table games for 3–4 players (seed 004, SCORING.md §4): 5/4/3/2/1 points, VP, percentages.

A table's result is a ``TableResult`` (ended by time) plus each seat's VP
(``Seat.victory_points``); the rules are ``tournaments.scoring.table``. Single-player entries
only, no sides, never rated.

Inside, the figure is ``victory_points`` (DESIGN.md, Names); the formats people use keep
``vp``: the results CSV column, the standings CSV column and the round page's boxes
(``vp_<entry id>``).
"""

from __future__ import annotations

from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from tournaments.errors import DomainError, ResultError
from tournaments.scoring import table as rules
from tournaments.systems.base import (
    SEATING_PROPOSAL,
    SORTEO,
    Card,
    Column,
    RowField,
    ScoringSystem,
    Tiebreak,
    checked,
    counted_byes_of,
)


class TableGame(ScoringSystem):
    key = "table"
    label = _("Mesa de 3–4 jugadores")
    label_plural = _("de juegos de mesa")
    result_relation = "table_result"
    modes = ("single",)
    settings_fields = ("time_limit",)
    tiebreaks = (
        Tiebreak("victory_points", _("por VP"), _("VP")),
        Tiebreak("pct_sum", _("por suma de %"), _("Suma %")),
        SORTEO,
    )
    order_hint = _(
        "Orden: puntos (5/4/3/2/1 por puesto en la mesa), VP totales, suma de porcentajes de "
        "VP por mesa (con un cuarto jugador neutral en mesas de 3), sorteo."
    )
    has_sides = False
    score_quantity = _("VP")
    import_header = ("round", "table", "player", "vp", "ended_by_time")
    import_hint = _(
        "Resultados (mesas de 3–4 jugadores): <code>round,table,player,vp,ended_by_time</code>, "
        "una línea por jugador sentado; las líneas de la misma ronda y mesa forman la mesa (3 o "
        "4 jugadores) y deben coincidir en <code>ended_by_time</code> (sí/no)."
    )

    @property
    def result_model(self):
        from tournaments.models import TableResult

        return TableResult

    def actions(self, tournament) -> frozenset[str]:
        return frozenset({SEATING_PROPOSAL})

    def rules(self, tournament) -> list[tuple[str, str]]:
        t = tournament
        return [
            (gettext("Mesas"), gettext("de 3 o 4 jugadores; puntos 5/4/3/2/1 por puesto")),
            (
                gettext("Tiempo límite"),
                gettext("{minutes} min").format(minutes=t.time_limit)
                if t.time_limit
                else gettext("sin límite"),
            ),
            (gettext("Descanso"), gettext("3 puntos, sin VP")),
            (gettext("Ranking"), gettext("no cuenta")),
        ]

    # --- standings --------------------------------------------------------------------------

    def gather_many(self, tournaments, *, entries):
        """Tables with every seat's VP, byes and sorteo of each tournament: four queries
        whatever the number of tournaments."""
        from tournaments.models import Seat, Sorteo, TableResult

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
                rules.TableGame(
                    number,
                    tuple(e for _, e, _ in seats),
                    tuple(v for _, _, v in seats),
                    by_time,
                )
            )
        for pk, entry_id, number in counted_byes_of(tournaments).values_list(
            "round__tournament_id", "entry_id", "round__number"
        ):
            inputs[pk]["byes"].append(rules.TableBye(number, entry_id))
        for pk, entry_id, lot in Sorteo.objects.filter(tournament__in=pks).values_list(
            "tournament_id", "entry_id", "lot"
        ):
            inputs[pk]["sorteo"][entry_id] = lot
        return inputs

    def outcomes(self, table_ids) -> dict:
        """Each seat's VP at the tables with a result whose every seat has its VP (no sides:
        between two players at one table, the higher VP won, equal VP drew). One query."""
        from tournaments.models import Seat
        from tournaments.systems.base import Outcome

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
        rules.validate_table(scores, ended_by_time=ended_by_time)

    def rank(self, tournament, inputs) -> list:
        return rules.standings(
            inputs["entry_ids"], inputs["games"], byes=inputs["byes"], sorteo=inputs["sorteo"]
        )

    def first_figure(self) -> str:
        return "points"

    def columns(self, lines) -> list[Column]:
        round_numbers = sorted({n for line in lines for n in line.row.figures.get("per_round", {})})

        def fig(key):
            return lambda line: line.row.figures[key]

        def round_points(n):
            def value(line):
                pts = line.row.figures.get("per_round", {}).get(n)
                return "·" if pts is None else pts

            return value

        columns = [
            Column("games", _("PJ"), _("Partidas jugadas"), fig("games")),
            Column("points", _("Puntos"), _("Puntos"), fig("points"), strong=True),
            Column(
                "victory_points",
                _("VP"),
                _("Puntos de victoria en las partidas"),
                fig("victory_points"),
            ),
            Column(
                "pct_sum",
                _("Suma %"),
                _("Suma de porcentajes de VP de cada mesa"),
                lambda line: number_format(line.row.figures["pct_sum"], 2),
            ),
        ]
        for n in round_numbers:
            columns.append(
                Column(
                    f"r{n}",
                    gettext("R{n}").format(n=n),
                    gettext("Puntos en la ronda {n}").format(n=n),
                    round_points(n),
                    small=True,
                )
            )
        return columns

    #: The standings CSV: (column, figure). The column names are a published format
    #: (``vp`` stays); the figure is ``victory_points``.
    _CSV = (
        ("games", "games"),
        ("points", "points"),
        ("vp", "victory_points"),
        ("pct_sum", "pct_sum"),
    )

    def csv_header(self) -> tuple[str, ...]:
        return tuple(column for column, _figure in self._CSV)

    def csv_values(self, line) -> list:
        return [line.row.figures.get(figure) for _column, figure in self._CSV]

    def csv_name_column(self) -> str:
        return "player"

    # --- one table's result -----------------------------------------------------------------

    def value_names(self) -> tuple[str, ...]:
        return ("scores", "ended_by_time")

    def values_from_post(self, post, table) -> dict:
        scores = {}
        for key, value in post.items():
            if key.startswith("vp_"):
                entry_id = key[3:]
                if not entry_id.isdigit():
                    raise DomainError("foreign_entry", name=entry_id[:20])
                scores[int(entry_id)] = value
        return {
            "scores": scores,
            "ended_by_time": checked(post.get("ended_by_time")),
        }

    def record(self, *, acting_user, table, tournament, values, played_at=None):
        """A 3–4 player game (SCORING.md §4): ``scores`` maps each seated entry id to its VP
        (a whole number ≥ 0 as typed), every seat included; ``ended_by_time``. Checked by
        ``scoring.table.validate_table``. Raises ResultError ("score_missing",
        "negative_score", "not_integer", "value_too_large", "table_size") or DomainError
        "foreign_entry" (a score for an entry not at the table)."""
        from tournaments.models import TableResult
        from tournaments.services.common import audit, entered_by, parse_int

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
        from tournaments.services.common import audit

        for seat in table.seats.exclude(victory_points=None):
            seat.victory_points = None
            audit(seat, acting_user).save(update_fields=["victory_points"])
        audit(result, acting_user).delete()

    def _points(self, table) -> list:
        """Tournament points of each seat (seat order) of the stored result, or Nones."""
        result = self.result_of(table)
        seats = list(table.seats.all())
        if result is not None:
            try:  # a result that no longer holds ("needs correction") gives no points
                return rules.tournament_points(
                    [s.victory_points for s in seats], ended_by_time=result.ended_by_time
                )
            except ResultError:
                pass
        return [None] * len(seats)

    def row_fields(self, table, tournament, typed):
        result = self.result_of(table)
        seats = list(table.seats.all())
        fields = []
        for seat, pts in zip(seats, self._points(table), strict=True):
            if typed is not None:
                value = typed.get(f"vp_{seat.entry_id}", "")
            else:
                value = "" if seat.victory_points is None else seat.victory_points
            note = ""
            if pts is not None and typed is None:
                note = ngettext("{n} punto", "{n} puntos", pts).format(n=pts)
            fields.append(
                RowField(
                    f"vp_{seat.entry_id}",
                    gettext("VP"),
                    value,
                    who=f"{seat.position}. {seat.entry.name}",
                    dom_id=f"vp-{table.pk}-{seat.entry_id}",
                    note=note,
                )
            )
        if typed is not None:
            by_time = checked(typed.get("ended_by_time"))
        else:
            by_time = bool(result and result.ended_by_time)
        fields.append(
            RowField("ended_by_time", gettext("Terminó por tiempo"), by_time, kind="checkbox")
        )
        return fields

    def typed_summary(self, post) -> str:
        return ", ".join(v for k, v in post.items() if k.startswith("vp_"))

    def card(self, table) -> Card:
        """Each seat with its VP and the tournament points they give."""
        result = self.result_of(table)
        seats = []
        for seat, pts in zip(list(table.seats.all()), self._points(table), strict=True):
            score = ""
            if seat.victory_points is not None and result is not None:
                score = gettext("{vp} VP").format(vp=seat.victory_points)
            points = "" if pts is None else ngettext("{n} punto", "{n} puntos", pts).format(n=pts)
            seats.append((seat.entry.name, score, points))
        marks = []
        if result is not None and result.ended_by_time:
            marks.append((gettext("T"), gettext("terminada por tiempo")))
        return Card(
            has_result=result is not None,
            score="",
            marks=marks,
            seats=seats,
        )

    def finding_score(self, table, seat) -> str:
        """The seat's place at the table by VP (dense places, as the points are given:
        SCORING.md §4), its VP and the points they give: "Puesto 1 en la mesa · 45 VP ·
        5 puntos", "Puesto 2 compartido en la mesa · 30 VP · 2 puntos" (no points while the
        result needs correction)."""
        if self.result_of(table) is None or seat.victory_points is None:
            return ""
        seats = list(table.seats.all())
        scores = [other.victory_points for other in seats if other.victory_points is not None]
        place = sorted(set(scores), reverse=True).index(seat.victory_points) + 1
        if scores.count(seat.victory_points) > 1:
            where = gettext("Puesto {place} compartido en la mesa").format(place=place)
        else:
            where = gettext("Puesto {place} en la mesa").format(place=place)
        parts = [where, gettext("{vp} VP").format(vp=seat.victory_points)]
        for other, pts in zip(seats, self._points(table), strict=True):
            if other.pk == seat.pk and pts is not None:
                parts.append(ngettext("{n} punto", "{n} puntos", pts).format(n=pts))
        return " · ".join(parts)

    def check_byes(self, tournament, *, seated: int, resting: int) -> None:
        """Everyone plays: tables of 3 or 4 seat any number of players but 5, and with 5, one
        table of 4 and one bye (SCORING.md §4, Seating). Raises DomainError "table_byes"."""
        allowed = 1 if seated + resting == 5 else 0
        if resting > allowed:
            raise DomainError("table_byes", count=resting, allowed=allowed)

    def entrant_label(self) -> str:
        return gettext("Jugador")

    def sheet_note(self, tournament) -> str:
        return gettext("Juego de mesa: anota los VP de cada jugador")

    # --- imports ----------------------------------------------------------------------------

    def import_results(self, *, acting_user, tournament, data, progress=None):
        """The generic seat-per-line file (``tournaments.imports.generic``), header
        ``round,table,player,vp,ended_by_time``."""
        from tournaments.imports import generic

        return generic.import_results(
            self, acting_user=acting_user, tournament=tournament, data=data, progress=progress
        )

    def parse_import_rows(self, rows):
        """Each line's VP (a whole number ≥ 0) and ``ended_by_time`` (the same on every line),
        the VP checked with ``scoring.table.validate_table``, every bad line named
        (``tournaments.imports.table.values_of``). Returns ``scores`` (entry id → VP) and
        ``ended_by_time``."""
        from tournaments.imports.table import values_of

        return values_of(rows)

    # --- synthetic data (manage.py generate_club; see ScoringSystem) ------------------------

    def synthetic_mix(self) -> tuple[tuple[str, int], ...]:
        return (("single", 5),)

    def synthetic_rounds(self, rng, size: int) -> int:
        return rng.choice([3, 4, 4, 5, 6])

    def synthetic_grouping(self, mode: str) -> str | None:
        return "table"

    def synthetic_table(self, rng, strengths, settings):
        """VP per seat around 60 (+1 per 8 points of strength), spread 18; a tenth of the
        tables end by time when there is a time limit. A seat's points: the seats it beat."""
        from tournaments.systems.base import SyntheticTable

        victory_points = [max(0, round(rng.gauss(60 + (s - 1500) / 8, 18))) for s in strengths]
        seats = [(k, "A", k + 1, v) for k, v in enumerate(victory_points)]
        result = (bool(settings["time_limit"]) and rng.random() < 0.1,)
        points = [sum(1 for other in victory_points if other < v) for v in victory_points]
        return SyntheticTable(seats=seats, result=result, points=points)

    def synthetic_row(self, table_id, result, *, played_at, settings, tally):
        tally["results"] += 1
        return self.result_model(table_id=table_id, ended_by_time=result[0])

    def synthetic_summary(self, tally) -> str:
        return f"mesas de 3–4: {tally['results']}"
