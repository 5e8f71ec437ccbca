"""How Swiss match play looks (SCORING.md §3): the standings' columns (record, match points,
OMW/GWP/OGW as percentages), the match row (games won by A, by B, drawn) and the table card."""

from __future__ import annotations

from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from clubsite.numbers import format_percentage as pct
from tournaments.scoring import swiss as scoring
from tournaments.systems.base import Card, Column, RowField, outcome, own_first
from tournaments.systems.presentation import Presentation


class SwissPresentation(Presentation):
    label_plural = _("suizos")
    order_hint = _(
        "Orden: puntos de encuentro (3 ganado, 1 empate), OMW, GWP, OGW (cada porcentaje, "
        "mínimo 33 %), sorteo."
    )
    score_quantity = _("partidas")

    def summary(self, tournament) -> str:
        return "{label} · {best_of}".format(
            label=self.system.label,
            best_of=gettext("al mejor de {best_of} partidas").format(best_of=tournament.best_of),
        )

    def rules(self, tournament) -> list[tuple[str, str]]:
        return [
            (
                gettext("Encuentros"),
                gettext("al mejor de {best_of} partidas").format(best_of=tournament.best_of),
            ),
            (
                gettext("Ronda libre"),
                gettext("encuentro ganado {games}–0 (3 puntos de encuentro)").format(
                    games=scoring.bye_games_won(tournament.best_of)
                ),
            ),
            (gettext("Ranking"), gettext("no cuenta")),
        ]

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

    def row_fields(self, table, tournament, typed):
        result = self.system.result_of(table)
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
        result = self.system.result_of(table)
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
        result = self.system.result_of(table)
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
        result = self.system.result_of(table)
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
