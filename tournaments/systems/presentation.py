"""The presentation part of a scoring system: how its figures, result rows, tables and score
sheets look (docs/ARCHITECTURE.md, "Registry").

Each ``ScoringSystem`` makes one ``Presentation`` (``system.presentation``, its class
``presentation_class``) holding the system it shows (``self.system``, for its rules:
``result_of``, ``value_names``, ``fields`` ...). The defaults are generic, so a system whose
results are seat scores or side scores writes little more than ``columns``, ``row_fields``
and ``card``.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from tournaments.systems.base import Card, Column, RowField, checked

#: The seat boxes of one table on the pairings page, by side and position.
SIDE_SLOTS = ("a1", "b1", "a2", "b2")


class Presentation:
    """How one scoring system looks on the pages, the downloads and the printed sheets.

    - ``label_plural``: "torneos {label_plural}" ("de dominó", "suizos" ...).
    - ``order_hint``: the standings' whole order in one sentence.
    - ``score_quantity``: what the result boxes hold, in words ("tantos", "VP" ...).
    - ``sheet_lines``: lines of the printable score sheet (``sheet_line_count``), each headed
      ``sheet_line_label`` ("Mano", "Partida"), with a total line when ``sheet_total``.
    """

    label_plural: str = ""
    order_hint: str = ""
    score_quantity: str = _("puntos")
    sheet_lines: int = 6
    sheet_line_label: str = _("Mano")
    sheet_total: bool = True

    def __init__(self, system):
        self.system = system

    # --- the tournament -----------------------------------------------------------------------

    def summary(self, tournament) -> str:
        """The tournament in a few words for lists and cards ("Parejas fijas a 100",
        "Suizo (match play) · al mejor de 3 partidas"): by default the system's name, then
        the mode when the system has more than one."""
        if len(self.system.modes) > 1:
            return f"{self.system.label} · {tournament.get_mode_display()}"
        return str(self.system.label)

    def rules(self, tournament) -> list[tuple[str, str]]:
        """The rules box of the public tournament page: (label, value) of each setting that
        applies, in words."""
        return []

    # --- standings --------------------------------------------------------------------------

    def columns(self, lines) -> list[Column]:
        """The standings table's figure columns (after position and name)."""
        return []

    def legend(self, columns) -> list[tuple[str, str]]:
        """The standings' shorthand in words, shown as a line under the table (a ``title`` on
        hover does not reach a phone): (abbreviation, words) of each column whose head is
        shorthand ("TF", "tantos a favor")."""
        return [(c.abbr, c.title) for c in columns if c.abbr != c.title]

    def entrant_label(self) -> str:
        """The head of the standings' name column."""
        return _("Competidor")

    def csv_header(self) -> tuple[str, ...]:
        """Columns of the standings CSV after ``position`` and the name column."""
        return tuple(c.key for c in self.columns([]))

    def csv_name_column(self) -> str:
        return "entry"

    def csv_values(self, line) -> list:
        """One CSV line's figures (numbers stay numbers; ``exports`` formats fractions)."""
        return [line.row.figures.get(k) for k in self.csv_header()]

    # --- one table's result row ---------------------------------------------------------------

    def row_fields(self, table, tournament, typed: dict | None) -> list[RowField]:
        """The boxes of ``table``'s result row: with what was typed (``typed``, a POST) or the
        stored result."""
        raise NotImplementedError

    def values_from_post(self, post, table) -> dict:
        """The values of ``record`` from a result row's cleaned form (or raw POST): numbers as
        typed (strings), checkboxes as booleans."""
        values = {}
        for box in self.row_fields(table, None, None):
            raw = post.get(box.name, "")
            values[box.name] = checked(raw) if box.kind == "checkbox" else raw
        return values

    def slips(self, values: dict, tournament) -> list[str]:
        """Questions to ask once before saving ``values`` (``values_from_post``'s dict) for a
        table of ``tournament``: figures the rules allow but that are almost always typing
        slips ("9999 tantos con meta 100: ¿seguro?"). [] when nothing looks wrong (the
        default: the system has no such figure); the result pages save only after a "yes"."""
        return []

    def row_summary(self, table, tournament) -> str:
        """Words for the saved result under the row (the points it gives), or ""."""
        return ""

    def typed_summary(self, post) -> str:
        """What a director typed, in one short text ("200–50"), quoted when the table changed
        meanwhile."""
        names = self.system.value_names()
        return ", ".join(str(post.get(n, "")) for n in names if post.get(n, ""))

    # --- public pages -------------------------------------------------------------------------

    def card(self, table) -> Card:
        """The table as the public pages show it."""
        raise NotImplementedError

    def finding_score(self, table, seat) -> str:
        """The result told to the player at ``seat`` on "find my table", from their side:
        "Ganaste 100–30", "Perdiste 1–2", "Puesto 1 en la mesa · 45 VP · 5 puntos"; "" while
        the table has no result (the page says "pendiente")."""
        return ""

    # --- paper --------------------------------------------------------------------------------

    def sheet_line_count(self, tournament) -> int:
        """How many lines the score sheet of a table with sides has."""
        return self.sheet_lines

    def sheet_time_box(self, tournament) -> bool:
        """Whether the score sheet has the "ended by time" box (systems with a time limit)."""
        return "time_limit" in self.system.fields()

    def sheet_note(self, tournament) -> str:
        """The rules line printed on each score sheet."""
        return ""

    # --- the pairings page --------------------------------------------------------------------

    def slots(self, tournament) -> list[str]:
        """The seat boxes of one table on the pairings page, one per seat of
        ``ScoringSystem.seats_per_table`` at most: "a1", "b1" (one entry a side), "a1", "b1",
        "a2", "b2" (two: seats 1 & 3 against 2 & 4), or "s1" … "s4" (no sides)."""
        most = self.system.seats_per_table(tournament)[1]
        if not self.system.has_sides:
            return [f"s{i}" for i in range(1, most + 1)]
        return list(SIDE_SLOTS[:most])
