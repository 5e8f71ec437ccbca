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

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

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

#: The actions a system may offer on the director's pages.
ROUND_ROBIN = "round_robin"  # generate every round of a round robin (circle method)
SWISS_PROPOSAL = "swiss_proposal"  # propose the next round by Swiss pairing
SEATING_PROPOSAL = "seating_proposal"  # propose tables of 3–4 / rotating partners
CASTIGOS = "castigos"  # penalties in tantos
ACTIONS = (ROUND_ROBIN, SWISS_PROPOSAL, SEATING_PROPOSAL, CASTIGOS)


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
    from django.db.models import F, Q

    from tournaments.models import Bye

    return Bye.objects.filter(round__in=tournament.started_rounds()).filter(
        Q(entry__dropped_after_round__isnull=True)
        | Q(entry__dropped_after_round__gte=F("round__number"))
    )


def counted_byes_of(tournaments):
    """``counted_byes`` of several tournaments at once (a ``Bye`` queryset, no query of its
    own): the byes of rounds that have begun (closed, or with a result: as
    ``Tournament.started_rounds``) of entries still in the tournament in that round."""
    from django.db.models import F, Q

    from tournaments.models import Bye, Round
    from tournaments.systems import has_result_q

    started = (
        Round.objects.filter(tournament__in=[t.pk for t in tournaments])
        .filter(Q(closed=True) | has_result_q("tables__"))
        .values("pk")
    )
    return Bye.objects.filter(round__in=started).filter(
        Q(entry__dropped_after_round__isnull=True)
        | Q(entry__dropped_after_round__gte=F("round__number"))
    )


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


@dataclass
class SyntheticTable:
    """One simulated table of ``manage.py generate_club`` (``ScoringSystem.synthetic_table``).

    ``seats``: (index in the table's group, side, position, victory_points) of each seat, as
    ``Seat`` rows take them; ``result``: the drawn result as a plain tuple, which only the same
    system reads back (``synthetic_row``); ``points``: what each member of the group (same
    order as the strengths given) adds to the running score the generator pairs the next round
    by."""

    seats: list[tuple[int, str, int, int | None]]
    result: tuple
    points: list[float]


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


class ScoringSystem:
    """One scoring system, everything the site asks about it. Subclasses set the class
    attributes and implement ``gather``, ``rank`` and ``record``; the rest has defaults.

    Class attributes:

    - ``key``: stored in ``Tournament.system``; ``label``: its name for people.
    - ``result_model``: the model holding a table's result (one-to-one with ``Table``) and
      ``result_relation``, the name of ``Table``'s accessor to it. Two systems may share one
      storage model (their ``record`` validates by their own rules).
    - ``modes``: the ``Tournament.mode`` values it accepts, the first being its default.
    - ``settings_fields``: the tournament settings that apply to it, beyond ``COMMON_FIELDS``.
    - ``tiebreaks``: the ``Tiebreak`` list after the first figure, in order, ending with
      ``SORTEO``; ``order_hint``: the whole order in one sentence for the standings page.
    - ``has_sides``: tables have a side A and a side B (else seats 1–4, no sides).
    - ``rated``: its games can count for the club's Elo ranking (SCORING.md §2).
    - ``score_quantity``: what the result boxes hold, in words ("tantos", "VP" ...).
    - ``import_header``: the columns of its results CSV, ``import_hint`` the format in words.
    - ``sheet_lines``: lines of the printable score sheet (``sheet_line_count``), each headed
      ``sheet_line_label`` ("Mano", "Partida"), with a total line when ``sheet_total``.
    """

    key: str = ""
    label: str = ""
    label_plural: str = ""  # "torneos {label_plural}": "de dominó", "suizos" ...
    result_model = None
    result_relation: str = ""
    modes: tuple[str, ...] = ("pairs", "individual", "single")
    settings_fields: tuple[str, ...] = ()
    tiebreaks: tuple[Tiebreak, ...] = (SORTEO,)
    order_hint: str = ""
    has_sides: bool = True
    rated: bool = False
    score_quantity: str = _("puntos")
    import_header: tuple[str, ...] = ()
    import_hint: str = ""
    sheet_lines: int = 6
    sheet_line_label: str = _("Mano")
    sheet_total: bool = True
    has_forfeits: bool = False
    required_settings: tuple[
        str, ...
    ] = ()  # the command line must give these (no default)  # a no-show is recorded with the tournament's forfeit score

    # --- settings and actions ---------------------------------------------------------------

    def fields(self) -> tuple[str, ...]:
        """Every tournament setting that applies: ``COMMON_FIELDS`` + ``settings_fields``."""
        return COMMON_FIELDS + tuple(f for f in self.settings_fields if f not in COMMON_FIELDS)

    def actions(self, tournament) -> frozenset[str]:
        """The director's actions that apply to ``tournament`` (names from ``ACTIONS``)."""
        return frozenset()

    def summary(self, tournament) -> str:
        """The tournament in a few words for lists and cards ("Parejas fijas a 100",
        "Suizo (match play) · al mejor de 3 partidas"): by default the system's name, then
        the mode when the system has more than one."""
        if len(self.modes) > 1:
            return f"{self.label} · {tournament.get_mode_display()}"
        return str(self.label)

    def rules(self, tournament) -> list[tuple[str, str]]:
        """The rules box of the public tournament page: (label, value) of each setting that
        applies, in words."""
        return []

    def check_settings(self, tournament) -> None:
        """Refuse settings that contradict the system (raise ``DomainError``); the common
        ones (name, mode among ``modes`` ...) are checked by the tournaments service."""

    def check_change(self, tournament, key: str, value) -> None:
        """Refuse changing setting ``key`` of ``tournament`` to ``value`` when results stored
        under the old value would not hold under the new one (raise ``DomainError``)."""

    def move_games(self, tournament, shift, *, acting_user) -> None:
        """The tournament's date moved by ``shift`` (a ``timedelta``): move the stored game
        times with it (only systems whose results carry a time)."""

    def game_times(self, tournament):
        """The stored times of the tournament's games (a queryset of aware datetimes, or an
        empty list for systems whose results carry no time): the tournaments service checks
        them against the tournament's days (``timing.game_window``) after a change of dates."""
        return []

        # --- standings --------------------------------------------------------------------------

    def gather(self, tournament, *, entries: dict):
        """The pure inputs of ``rank`` read from the database in a fixed number of queries;
        ``entries``: the tournament's entries by id (already read). By default
        ``gather_many`` of this one tournament."""
        if type(self).gather_many is ScoringSystem.gather_many:
            raise NotImplementedError
        return self.gather_many([tournament], entries={tournament.pk: entries})[tournament.pk]

    def gather_many(self, tournaments, *, entries: dict) -> dict:
        """``gather`` of each of ``tournaments`` (this system's), ``{pk: inputs}``, in the
        same fixed number of queries whatever their number; ``entries``: ``{tournament pk:
        {entry id: entry}}``. By default one ``gather`` per tournament (a system that
        implements ``gather`` only)."""
        if type(self).gather is ScoringSystem.gather:
            raise NotImplementedError
        return {t.pk: self.gather(t, entries=entries[t.pk]) for t in tournaments}

    def rank(self, tournament, inputs) -> list:
        """The pure module's standings (``StandingRow`` list, best first) from ``inputs``."""
        raise NotImplementedError

    def standings(self, tournament) -> Standings:
        """``Standings``: the ``StandingLine`` list (row + entry), best first, and the stored
        results left out because they no longer hold (``needs_correction``)."""
        from tournaments.models import StandingLine

        entries = {e.pk: e for e in tournament.entries.select_related("player1", "player2")}
        inputs = self.gather(tournament, entries=entries)
        rows = self.rank(tournament, inputs)
        return Standings(
            [StandingLine(row=row, entry=entries[row.entry_id]) for row in rows],
            needs_correction=inputs.get("needs_correction", {}),
        )

    def standings_many(self, tournaments) -> dict[int, Standings]:
        """``standings`` of each of ``tournaments`` (this system's), ``{pk: Standings}``: one
        query for their entries plus ``gather_many``'s, whatever their number (the podiums of
        a player's page, ``rankings.stories``)."""
        from tournaments.models import Entry, StandingLine

        tournaments = list(tournaments)
        entries: dict[int, dict] = {t.pk: {} for t in tournaments}
        if not tournaments:
            return {}
        for e in Entry.objects.filter(tournament__in=list(entries)).select_related(
            "player1", "player2"
        ):
            entries[e.tournament_id][e.pk] = e
        inputs = self.gather_many(tournaments, entries=entries)
        out = {}
        for t in tournaments:
            rows = self.rank(t, inputs[t.pk])
            out[t.pk] = Standings(
                [StandingLine(row=row, entry=entries[t.pk][row.entry_id]) for row in rows],
                needs_correction=inputs[t.pk].get("needs_correction", {}),
            )
        return out

    def outcomes(self, table_ids) -> dict[int, Outcome]:
        """How each of ``table_ids`` (ids, or a queryset of them) ended, for the players'
        stories: ``{table id: Outcome}`` for the tables with a result of this system that
        count as a game played (not a no-show, not a result that no longer holds). One query
        or two whatever their number; none by default (a system that tells no stories)."""
        return {}

    def problem_of(self, table, tournament) -> str | None:
        """Why ``table``'s stored result does not hold under the tournament's present
        settings (``stored_problem`` on ``stored_values``), in words; None when it holds or
        there is no result. The result pages show it as "needs correction"."""
        result = self.result_of(table)
        if result is None:
            return None
        return self.stored_problem(tournament, **self.stored_values(table, result))

    def stored_values(self, table, result) -> dict:
        """The keyword values ``stored_problem`` checks, read from a stored result."""
        return {}

    def validate_values(self, tournament, **values) -> None:
        """Refuse result values (whole numbers, as stored) that break the system's rules under
        the tournament's present settings: raise ``ResultError``. ``record`` checks with it
        before storing, ``stored_problem`` after a settings change or a hand edit."""

    def stored_problem(self, tournament, **values) -> str | None:
        """Why a stored result (its values, as ``gather`` reads them) does not hold under the
        tournament's present settings (``validate_values``), in words; None when it holds. A
        result stored before a change, or by hand, is then left out of the standings and shown
        "needs correction" instead of breaking the pages (``Standings.needs_correction``)."""
        from tournaments.errors import ResultError

        try:
            self.validate_values(tournament, **values)
        except ResultError as exc:
            return exc.message
        return None

    def columns(self, lines) -> list[Column]:
        """The standings table's figure columns (after position and name)."""
        return []

    def first_figure(self) -> str:
        """The key of the figure the standings sort by first (the Swiss proposal pairs by it)."""
        raise NotImplementedError

    def csv_header(self) -> tuple[str, ...]:
        """Columns of the standings CSV after ``position`` and the name column."""
        return tuple(c.key for c in self.columns([]))

    def csv_name_column(self) -> str:
        return "entry"

    def entrant_label(self) -> str:
        """The head of the standings' name column."""
        return _("Competidor")

    def csv_values(self, line) -> list:
        """One CSV line's figures (numbers stay numbers; ``exports`` formats fractions)."""
        return [line.row.figures.get(k) for k in self.csv_header()]

    # --- one table's result -----------------------------------------------------------------

    def result_of(self, table):
        """The stored result of ``table`` for this system, or None."""
        try:
            return getattr(table, self.result_relation)
        except self.result_model.DoesNotExist:
            return None

    def value_names(self) -> tuple[str, ...]:
        """The keyword names ``record`` takes (besides table, version, played_at)."""
        raise NotImplementedError

    def values_from_post(self, post, table) -> dict:
        """The values of ``record`` from a result row's cleaned form (or raw POST): numbers as
        typed (strings), checkboxes as booleans."""
        values = {}
        for box in self.row_fields(table, None, None):
            raw = post.get(box.name, "")
            values[box.name] = checked(raw) if box.kind == "checkbox" else raw
        return values

    def record(self, *, acting_user, table, tournament, values: dict, played_at=None):
        """Validate ``values`` by the system's rules and store them as ``table``'s result
        (create or correct). ``table`` is locked and writable. Raises ``ResultError`` /
        ``DomainError``; stores nothing then. Returns the result."""
        raise NotImplementedError

    def delete(self, *, acting_user, table, result) -> None:
        """Remove ``result`` (its history keeps it)."""
        from tournaments.services.common import audit

        audit(result, acting_user).delete()

    def row_fields(self, table, tournament, typed: dict | None) -> list[RowField]:
        """The boxes of ``table``'s result row: with what was typed (``typed``, a POST) or the
        stored result."""
        raise NotImplementedError

    def row_summary(self, table, tournament) -> str:
        """Words for the saved result under the row (the points it gives), or ""."""
        return ""

    def typed_summary(self, post) -> str:
        """What a director typed, in one short text ("200–50"), quoted when the table changed
        meanwhile."""
        return ", ".join(str(post.get(n, "")) for n in self.value_names() if post.get(n, ""))

    def card(self, table) -> Card:
        """The table as the public pages show it."""
        raise NotImplementedError

    def finding_score(self, table, seat) -> str:
        """The result told to the player at ``seat`` on "find my table", from their side:
        "Ganaste 100–30", "Perdiste 1–2", "Puesto 1 en la mesa · 45 VP · 5 puntos"; "" while
        the table has no result (the page says "pendiente")."""
        return ""

    def sheet_line_count(self, tournament) -> int:
        """How many lines the score sheet of a table with sides has."""
        return self.sheet_lines

    def sheet_time_box(self, tournament) -> bool:
        """Whether the score sheet has the "ended by time" box (systems with a time limit)."""
        return "time_limit" in self.fields()

    def sheet_note(self, tournament) -> str:
        """The rules line printed on each score sheet."""
        return ""

    # --- pairing ----------------------------------------------------------------------------

    def slots(self, tournament) -> list[str]:
        """The seat boxes of one table on the pairings page: "a1", "b1" ... (sides) or
        "s1" ... "s4" (seats)."""
        if not self.has_sides:
            return ["s1", "s2", "s3", "s4"]
        if tournament.mode == "individual":
            return ["a1", "b1", "a2", "b2"]
        return ["a1", "b1"]

    def seat_rule(self) -> tuple[int, int]:
        """(fewest, most) entries at a table without sides; ignored with sides."""
        return (3, 4)

    def check_seats(self, tournament, seats, *, complete: bool) -> None:
        """Refuse a table layout the system cannot score. ``seats``: (side, position) of each
        seat of one table. Sides "A"/"B" with positions 1 or 2, or, without sides, side "A"
        and positions 1 … the most seats of ``seat_rule``; no two seats alike. ``complete``
        (the table has a result): each side holds the side's size (2 entries in individual
        dominó, else 1), or the seat count is within ``seat_rule``. Raises DomainError "seat_side",
        "seat_position", "seat_taken", "seats_incomplete"."""
        from tournaments.errors import DomainError

        size = 2 if tournament.mode == "individual" else 1
        if self.has_sides:
            sides, most = ("A", "B"), 2
        else:
            sides, most = ("A",), self.seat_rule()[1]
        for side, position in seats:
            if side not in sides:
                raise DomainError("seat_side", sides=" / ".join(sides))
            if not 1 <= int(position) <= most:
                raise DomainError("seat_position", most=most)
        if len(set(seats)) != len(seats):
            raise DomainError("seat_taken")
        if not complete:
            return
        if self.has_sides:
            full = all(sum(1 for s, _ in seats if s == side) == size for side in sides)
        else:
            fewest, most_seats = self.seat_rule()
            full = fewest <= len(seats) <= most_seats
        if not full:
            raise DomainError("seats_incomplete")

    def check_byes(self, tournament, *, seated: int, resting: int) -> None:
        """Refuse a round that rests more entries than the system allows (``seated`` entries
        at tables, ``resting`` left without one). Default: any number may rest."""

    def after_withdrawal(self, tournament, *, left: int) -> str:
        """What becomes of a table of a round the withdrawn entry has not played, once it
        leaves (``services.drop_entry``, SCORING.md §5); ``left``: the entries still at it.

        - "play_on": the table can be played as it is (a table game of 4 becomes one of 3);
        - "rest": the table goes and each entry left rests, a bye scored by the tournament's
          bye rule (the lone opponent of a head-to-head table: dominó pairs and mano a mano,
          Swiss), as a round robin rests a withdrawn entry's scheduled opponents;
        - "reseat": the table goes and the entries left have no table and no bye until the
          director seats the round again (rotating partners: three of four; a table game of 2).

        Default: from ``has_sides``, the side size and ``seat_rule``."""
        if self.has_sides:
            size = 2 if tournament.mode == "individual" else 1
            return "rest" if size == 1 else "reseat"
        fewest, most = self.seat_rule()
        return "play_on" if fewest <= left <= most else "reseat"

    def partners_at_table(self, tournament) -> bool:
        """Whether entries on the same side are partners (rotating partners in dominó)."""
        return False

    # --- imports ----------------------------------------------------------------------------

    def import_results(self, *, acting_user, tournament, data, progress=None):
        """Import a results CSV of this system into ``tournament`` (all or nothing); returns
        an ``ImportReport``, raises ``ImportRefused``. By default the generic seat-per-line
        file (``tournaments.imports.generic``: header ``import_header``, starting with
        ``round,table,player``, one line per seated player, the lines of a round/table one
        table), for systems without sides; a system with its own file format overrides this.
        ``progress(done, total)``, if given, is called after each table."""
        from tournaments.imports import generic

        return generic.import_results(
            self, acting_user=acting_user, tournament=tournament, data=data, progress=progress
        )

    def parse_import_rows(self, rows: list[dict]) -> dict:
        """The ``services.record_result`` values of one table of the generic import, from its
        lines in seat order: each row maps every column of ``import_header`` to its text, plus
        ``line`` (the file line) and ``entry_id`` (the seated entry's id).

        Default: ``{"scores": {entry_id: <text of the 4th column>}}``, plus ``ended_by_time``
        (yes/no, the same on every line) when the header has an ``ended_by_time`` column;
        ``record`` validates the values. Raise a ``DomainError``, or an ``ExceptionGroup`` of
        them to name several bad lines; an error with the parameter ``seat`` (1-based position
        in ``rows``) is listed on that line, any other on every line of the table."""
        from tournaments.imports import generic

        return generic.default_values(self, rows)

    # --- synthetic data (manage.py generate_club) -------------------------------------------
    #
    # The benchmark generator invents finished tournaments of every registered system from
    # hidden player strengths (Elo-like numbers around 1500), as plain data first (entry
    # indices, tuples), then writes them with ``bulk_create``. It asks the system only what
    # follows; every random choice comes from the ``random.Random`` it passes (``rng``), so a
    # seed always gives the same club. ``settings`` is the dict of the generated tournament's
    # fields (``mode``, ``target``, ``time_limit``, ``bye_rule``, ``best_of``, ``rated``,
    # ``forfeits_rated`` ...). A system leaving ``synthetic_mix`` empty is never picked for
    # the random tournaments; ``--system`` can still ask for one once it implements
    # ``synthetic_table`` and ``synthetic_row``.

    def synthetic_mix(self) -> tuple[tuple[str, int], ...]:
        """(mode, weight) of this system's share of the random tournaments; the weights are
        relative over all the systems (the built-in ones add up to 100). Default: none."""
        return ()

    def synthetic_rounds(self, rng, size: int) -> int:
        """Rounds of a random tournament of ``size`` entries."""
        return rng.choice([4, 5, 6])

    def synthetic_rated(self, rng) -> bool:
        """Whether a generated tournament counts for the ranking: about nine in ten when the
        system is ``rated`` (no draw otherwise)."""
        return self.rated and rng.random() < 0.9

    def synthetic_grouping(self, mode: str) -> str | None:
        """How a round is seated: None for head to head (two entries a table, side A and side
        B, paired down the running standings, one bye for an odd count), otherwise the
        ``tournaments.pairing.seating.seating_plan`` mode ("table": 3–4 seats; "partners":
        tables of four, seats 1 & 3 against 2 & 4) of a fresh random seating each round."""
        return None if self.has_sides else "table"

    def synthetic_drops(self, rng, size: int, rounds: int) -> dict[int, int]:
        """Entries that withdraw: entry index → the last round it plays. Default: none."""
        return {}

    def synthetic_bye_points(self, settings: dict) -> float:
        """What a bye adds to the running score the generator pairs by."""
        return 0

    def synthetic_castigo_rate(self) -> float:
        """The share of generated tournaments with castigos (penalties in tantos); 0: never."""
        return 0.0

    def synthetic_table(self, rng, strengths: Sequence[float], settings: dict) -> SyntheticTable:
        """Draw one table's result from the hidden ``strengths`` of the entries at it: head to
        head (side A then side B), or the group in seat order when ``synthetic_grouping``
        seats tables. A valid result by the system's rules, plausible for the strengths."""
        raise NotImplementedError

    def synthetic_row(self, table_id: int, result: tuple, *, played_at, settings: dict, tally):
        """The unsaved ``result_model`` instance of a drawn ``result`` for ``bulk_create``
        (no history row, no signal), counted in ``tally`` (a ``collections.Counter``): at least
        "results", and "rated_games" for the games the ranking will count."""
        raise NotImplementedError

    def synthetic_summary(self, tally) -> str:
        """The generator's report of this system's results (``tally`` as ``synthetic_row``
        filled it, maybe empty)."""
        return f"{self.label}: {tally['results']}"
