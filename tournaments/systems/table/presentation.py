"""How table games look (SCORING.md §4): the standings' columns (points per round, VP, sum of
percentages), a VP box per seat, the table card with each seat's place and points."""

from __future__ import annotations

from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from tournaments.errors import DomainError, ResultError
from tournaments.scoring import table as scoring
from tournaments.systems.base import Card, Column, RowField, checked
from tournaments.systems.presentation import Presentation


class TableGamePresentation(Presentation):
    #: The standings CSV: (column, figure). The column names are a published format
    #: (``vp`` stays); the figure is ``victory_points``.
    _CSV = (
        ("games", "games"),
        ("points", "points"),
        ("vp", "victory_points"),
        ("pct_sum", "pct_sum"),
    )

    label_plural = _("de juegos de mesa")
    order_hint = _(
        "Orden: puntos (5/4/3/2/1 por puesto en la mesa), VP totales, suma de porcentajes de "
        "VP por mesa (con un cuarto jugador neutral en mesas de 3), sorteo."
    )
    score_quantity = _("VP")

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

    def legend(self, columns) -> list[tuple[str, str]]:
        """As every system's, with the round columns in one item ("R1–R5: puntos en cada
        ronda")."""
        rounds = [c for c in columns if c.small]
        items = super().legend([c for c in columns if not c.small])
        if len(rounds) == 1:
            items.append((rounds[0].abbr, rounds[0].title))
        elif rounds:
            items.append((f"{rounds[0].abbr}–{rounds[-1].abbr}", gettext("Puntos en cada ronda")))
        return items

    def csv_header(self) -> tuple[str, ...]:
        return tuple(column for column, _figure in self._CSV)

    def csv_values(self, line) -> list:
        return [line.row.figures.get(figure) for _column, figure in self._CSV]

    def csv_name_column(self) -> str:
        return "player"

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

    def _points(self, table) -> list:
        """Tournament points of each seat (seat order) of the stored result, or Nones."""
        result = self.system.result_of(table)
        seats = list(table.seats.all())
        if result is not None:
            try:  # a result that no longer holds ("needs correction") gives no points
                return scoring.tournament_points(
                    [s.victory_points for s in seats], ended_by_time=result.ended_by_time
                )
            except ResultError:
                pass
        return [None] * len(seats)

    def row_fields(self, table, tournament, typed):
        result = self.system.result_of(table)
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
        result = self.system.result_of(table)
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
        if self.system.result_of(table) is None or seat.victory_points is None:
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

    def entrant_label(self) -> str:
        return gettext("Jugador")

    def sheet_note(self, tournament) -> str:
        return gettext("Juego de mesa: anota los VP de cada jugador")
