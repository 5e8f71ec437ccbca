"""What a scoring system supplies to the rest of the site (docs/ARCHITECTURE.md, "Registry").

One ``ScoringSystem`` subclass per system, one instance in the registry. Views, templates,
imports, exports, the admin and the commands ask the tournament's system
(``tournaments.systems.of(t)``) instead of comparing ``t.system`` themselves; only the adapters
know what a system's results, figures and settings are.

The defaults here are generic, so a new system only declares what differs: a system whose
results are seat scores (like the table games) or side scores can reuse the generic result
row, table card, score sheet and CSV import, and write only ``record`` and ``gather``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from django.db.models import F, Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournaments.models import Bye
from tournaments.models import counted_byes_of as models_counted_byes_of

#: Tournament settings every system has (the form always shows them).
COMMON_FIELDS = (
    "name",
    "date",
    "end_date",
    "venue",
    "start_time",
    "system",
    "mode",
    "rounds_planned",
    "status",
)


def versus(side_a: Sequence[str], side_b: Sequence[str]) -> str:
    """ "Ana & Beto vs Carla & Dani": a table's two sides as text (the pairings page, the
    admin), the names (or figures) of one side joined by " & ", the sides by "vs" in the
    active language."""
    return gettext("{side_a} vs {side_b}").format(
        side_a=" & ".join(str(x) for x in side_a), side_b=" & ".join(str(x) for x in side_b)
    )


def outcome(own, other) -> str:
    """A result told to the player of one side, their own figure first: "Ganaste 100–30",
    "Perdiste 30–100", "Empate 1–1" ("find my table")."""
    score = f"{own}–{other}"
    if own > other:
        return gettext("Ganaste {score}").format(score=score)
    if own < other:
        return gettext("Perdiste {score}").format(score=score)
    return gettext("Empate {score}").format(score=score)


def own_first(seat, a, b) -> tuple:
    """(the figure of ``seat``'s side, the other side's) from side A's ``a`` and side B's ``b``."""
    return (a, b) if seat.side == "A" else (b, a)


def counted_byes(tournament):
    """The byes the standings count (a ``Bye`` queryset, no query of its own): in rounds
    that have begun (``Tournament.started_rounds``), of entries still in the tournament in
    that round (not withdrawn before it: SCORING.md §5)."""
    return Bye.objects.filter(round__in=tournament.started_rounds()).filter(
        Q(entry__dropped_after_round__isnull=True)
        | Q(entry__dropped_after_round__gte=F("round__number"))
    )


def counted_byes_of(tournaments):
    """``counted_byes`` of several tournaments at once (a ``Bye`` queryset, no query of its
    own): the byes of rounds that have begun (closed, or with a result: as
    ``Tournament.started_rounds``) of entries still in the tournament in that round. The one
    definition is the models' (``models.counted_byes_of``), which the final places read too."""
    return models_counted_byes_of([t.pk for t in tournaments])


def checked(value) -> bool:
    """A posted checkbox: True for ``True``, "on", "true", "1"."""
    return value is True or value in ("on", "true", "1")


@dataclass(frozen=True)
class Tiebreak:
    """One tiebreak of a system's standings, as Tabbycat's metrics: ``key`` is both the key of
    the figure it compares (``StandingRow.figures[key]``, when it has one) and the
    ``StandingRow.decided_by`` it gives; ``label`` is the words after "decided" ("por
    efectividad"); ``abbr`` the short column head ("Ef.")."""

    key: str
    label: str
    abbr: str


#: The tiebreak every system ends with (SCORING.md §1, §3, §4).
SORTEO = Tiebreak("sorteo", _("por sorteo"), _("Sorteo"))


@dataclass(frozen=True)
class Column:
    """One column of the standings table: head ``abbr`` (``title`` in full on hover) and the
    value of a line (``value(line)``, already formatted for people)."""

    key: str
    abbr: str
    title: str
    value: Callable
    strong: bool = False
    small: bool = False


@dataclass
class RowField:
    """One box of a table's result row on the round page (or of the admin form).

    ``kind``: "number" (a whole number typed), "checkbox" or "select" (``options``: pairs of
    value and words). ``who``: the names the box belongs to (a side or a seat), if any;
    ``note``: words shown with the label once the result is saved (the points it gives)."""

    name: str
    label: str
    value: object = ""
    kind: str = "number"
    who: str = ""
    dom_id: str = ""
    note: str = ""
    options: Sequence[tuple[str, str]] = ()


@dataclass
class Card:
    """A table as the public pages show it: side A and side B (``sides``, each a list of
    names) with the score between them, or, for systems without sides, ``seats`` (name, score
    and points per seat). ``score`` is "vs" until there is a result; ``marks``: (abbreviation,
    words) like ("T", "terminada por tiempo")."""

    has_result: bool
    score: str
    marks: list[tuple[str, str]] = field(default_factory=list)
    side_a: list[str] = field(default_factory=list)
    side_b: list[str] = field(default_factory=list)
    seats: list[tuple[str, str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Outcome:
    """How one table's game ended, as the players' stories read it (``ScoringSystem.outcomes``:
    head to head, partners, zapatos): each side's figure (``sides``: "A"/"B" → figure) or, at a
    table without sides, each seated entry's (``seats``: entry id → figure). Between two
    players the higher figure won and equal figures drew; a player's figure against the
    other's is their "for" and "against". ``zapato``: the side that won with the loser on 0
    tantos at a normal end (dominó, SCORING.md §1), else ""."""

    sides: dict[str, int] = field(default_factory=dict)
    seats: dict[int, int] = field(default_factory=dict)
    zapato: str = ""

    def figure(self, side: str, entry_id: int) -> int | None:
        """The figure of the entry ``entry_id`` seated on ``side``; None if not seated."""
        if self.sides:
            return self.sides.get(side)
        return self.seats.get(entry_id)


class Standings(list):
    """A tournament's standings: its ``StandingLine`` items, best first, plus
    ``needs_correction``: {table id: why, in words} for stored results that no longer hold
    under the tournament's settings (``ScoringSystem.stored_problem``); they are left out of
    the figures until a director corrects them."""

    def __init__(self, lines=(), *, needs_correction=None):
        super().__init__(lines)
        self.needs_correction: dict[int, str] = dict(needs_correction or {})
