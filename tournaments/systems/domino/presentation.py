"""How dominó looks (SCORING.md §1): the standings' columns, the score sheet row (tantos A and
B, ended by time, no-show), the table card and the paper score sheet."""

from __future__ import annotations

from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

from tournaments.scoring import domino as scoring
from tournaments.systems.base import Card, Column, RowField, checked, outcome, own_first
from tournaments.systems.presentation import Presentation


class DominoPresentation(Presentation):
    label_plural = _("de dominó")
    order_hint = _(
        "Orden: puntos, juegos ganados, efectividad (TF − TC − castigos), tantos a favor, "
        "diferencial entre los empatados, sorteo."
    )
    score_quantity = _("tantos")
    sheet_lines = 12

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

    def values_from_post(self, post, table) -> dict:
        return {
            "tantos_a": post.get("tantos_a", ""),
            "tantos_b": post.get("tantos_b", ""),
            "ended_by_time": checked(post.get("ended_by_time")),
            "forfeiting_side": post.get("forfeit", "") or None,
        }

    def slips(self, values, tournament):
        """A raw tally far above the target (``scoring.domino.far_above_target``): one
        question per side, "9999 tantos con meta 100: ¿seguro?"."""
        questions = []
        target = tournament.target
        for key in ("tantos_a", "tantos_b"):
            raw = str(values.get(key, "")).strip()
            if raw.isascii() and raw.isdigit() and scoring.far_above_target(int(raw), target):
                questions.append(
                    gettext("{tantos} tantos con meta {target}: ¿seguro?").format(
                        tantos=int(raw), target=target
                    )
                )
        return questions

    def row_fields(self, table, tournament, typed):
        result = self.system.result_of(table)
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
        result = self.system.result_of(table)
        if result is None:
            return ""
        a, b = scoring.game_figures(
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
        result = self.system.result_of(table)
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
        result = self.system.result_of(table)
        if result is None:
            return ""
        own, other = own_first(seat, result.tantos_a, result.tantos_b)
        parts = [outcome(own, other)]
        if result.forfeit:
            parts.append(gettext("no presentación"))
        if result.ended_by_time:
            parts.append(gettext("terminada por tiempo"))
        return " · ".join(parts)

    def sheet_note(self, tournament) -> str:
        note = gettext("Meta {target} tantos").format(target=tournament.target)
        if tournament.time_limit:
            note += " · " + gettext("tiempo límite {minutes} min").format(
                minutes=tournament.time_limit
            )
        return note
