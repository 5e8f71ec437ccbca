"""The rules part of a scoring system: settings, standings, one table's result and seats.

One ``ScoringSystem`` subclass per system, one instance in the registry; the rest of the site
asks ``tournaments.systems.of(t)`` instead of comparing ``t.system`` (docs/ARCHITECTURE.md,
"Registry"). How the system's figures and result rows look is its ``presentation``
(``systems.presentation.Presentation``); how its results file reads is its file format
(``tournaments.imports.formats``); the generator's invented data is
``tournaments.management.synthetic``. Subclasses set the class attributes and implement
``gather`` (or ``gather_many``), ``rank``, ``value_names`` and ``record``.
"""

from __future__ import annotations

from tournaments.errors import DomainError, ResultError
from tournaments.models import Entry, StandingLine
from tournaments.systems.base import COMMON_FIELDS, SORTEO, Outcome, Standings, Tiebreak
from tournaments.systems.presentation import Presentation
from tournaments.writing import audit


class ScoringSystem:
    """One scoring system's rules.

    - ``key``: stored in ``Tournament.system``; ``label``: its name for people.
    - ``result_model``: the model holding a table's result (one-to-one with ``Table``) and
      ``result_relation``, the name of ``Table``'s accessor to it. Two systems may share one
      storage model (their ``record`` validates by their own rules).
    - ``modes``: the ``Tournament.mode`` values it accepts, the first being its default;
      ``required_settings``: what the command line must give (no default).
    - ``settings_fields``: the tournament settings that apply to it, beyond ``COMMON_FIELDS``.
    - ``tiebreaks``: the ``Tiebreak`` list after the first figure, in order, ending with
      ``SORTEO``.
    - ``has_sides``: tables have a side A and a side B (else seats 1–4, no sides).
    - ``rated``: its games can count for the club's Elo ranking (SCORING.md §2).
    - ``has_forfeits``: a no-show is recorded with the tournament's forfeit score.
    - ``presentation_class``: its ``Presentation`` (made once, as ``presentation``).
    """

    key: str = ""
    label: str = ""
    result_model = None
    result_relation: str = ""
    modes: tuple[str, ...] = ("pairs", "individual", "single")
    settings_fields: tuple[str, ...] = ()
    required_settings: tuple[str, ...] = ()
    tiebreaks: tuple[Tiebreak, ...] = (SORTEO,)
    has_sides: bool = True
    rated: bool = False
    has_forfeits: bool = False
    presentation_class: type[Presentation] = Presentation

    def __init__(self):
        self.presentation = self.presentation_class(self)

    # --- settings and actions ---------------------------------------------------------------

    def fields(self) -> tuple[str, ...]:
        """Every tournament setting that applies: ``COMMON_FIELDS`` + ``settings_fields``."""
        return COMMON_FIELDS + tuple(f for f in self.settings_fields if f not in COMMON_FIELDS)

    def actions(self, tournament) -> frozenset[str]:
        """The director's actions that apply to ``tournament`` (names from ``ACTIONS``)."""
        return frozenset()

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
        empty list for systems whose results carry no time), checked against the tournament's
        days (``timing.game_window``) after a change of dates."""
        return []

    # --- seats: who sits at a table ---------------------------------------------------------

    def entries_per_side(self, tournament) -> int:
        """Entries on one side of a table: 2 with rotating partners (individual dominó, seats
        1 & 3 against 2 & 4), else 1. Meaningless without sides."""
        return 2 if self.has_sides and tournament.mode == "individual" else 1

    def seat_rule(self) -> tuple[int, int]:
        """(fewest, most) entries at a table without sides; ignored with sides."""
        return (3, 4)

    def seats_per_table(self, tournament) -> tuple[int, int]:
        """(fewest, most) entries at one complete table: both sides full (2 or 4), or the
        ``seat_rule`` of a system without sides. The pairing page has ``most`` boxes a table."""
        if self.has_sides:
            both = 2 * self.entries_per_side(tournament)
            return (both, both)
        return self.seat_rule()

    def partners_at_table(self, tournament) -> bool:
        """Whether entries on the same side are partners (rotating partners in dominó)."""
        return self.has_sides and self.entries_per_side(tournament) > 1

    def check_seats(self, tournament, seats, *, complete: bool) -> None:
        """Refuse a table layout the system cannot score. ``seats``: (side, position) of each
        seat of one table: sides "A"/"B" with positions 1 … ``entries_per_side`` (at most 2),
        or, without sides, side "A" and positions 1 … the most of ``seat_rule``; no two alike.
        ``complete`` (the table has a result): the seat count is within ``seats_per_table``,
        each side full. Raises DomainError "seat_side", "seat_position", "seat_taken",
        "seats_incomplete"."""
        sides, most = (("A", "B"), 2) if self.has_sides else (("A",), self.seat_rule()[1])
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
            size = self.entries_per_side(tournament)
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
        leaves (``services.drop_entry``, SCORING.md §5); ``left``: the entries still at it:
        "play_on" (a table game of 4 becomes one of 3), "rest" (the table goes and each entry
        left rests, a bye by the tournament's bye rule: the lone opponent of a head-to-head
        table) or "reseat" (the table goes; the entries left wait for the director to seat
        the round again: three of four rotating partners, a table game of 2)."""
        if self.has_sides:
            return "rest" if self.entries_per_side(tournament) == 1 else "reseat"
        fewest, most = self.seat_rule()
        return "play_on" if fewest <= left <= most else "reseat"

    # --- standings --------------------------------------------------------------------------

    def gather(self, tournament, *, entries: dict):
        """The pure inputs of ``rank`` read in a fixed number of queries; ``entries``: the
        tournament's entries by id. By default ``gather_many`` of this one tournament."""
        if type(self).gather_many is ScoringSystem.gather_many:
            raise NotImplementedError
        return self.gather_many([tournament], entries={tournament.pk: entries})[tournament.pk]

    def gather_many(self, tournaments, *, entries: dict) -> dict:
        """``gather`` of each of ``tournaments`` (this system's), ``{pk: inputs}``, in the
        same fixed number of queries whatever their number; ``entries``: ``{tournament pk:
        {entry id: entry}}``. By default one ``gather`` per tournament."""
        if type(self).gather is ScoringSystem.gather:
            raise NotImplementedError
        return {t.pk: self.gather(t, entries=entries[t.pk]) for t in tournaments}

    def rank(self, tournament, inputs) -> list:
        """The pure module's standings (``StandingRow`` list, best first) from ``inputs``."""
        raise NotImplementedError

    def first_figure(self) -> str:
        """The key of the figure the standings sort by first (the Swiss proposal pairs by it)."""
        raise NotImplementedError

    def standings(self, tournament) -> Standings:
        """``Standings``: the ``StandingLine`` list (row + entry), best first, and the stored
        results left out because they no longer hold (``needs_correction``)."""
        return self.standings_many([tournament])[tournament.pk]

    def standings_many(self, tournaments) -> dict[int, Standings]:
        """``standings`` of each of ``tournaments`` (this system's), ``{pk: Standings}``: one
        query for their entries plus ``gather_many``'s, whatever their number."""
        tournaments = list(tournaments)
        entries: dict[int, dict] = {t.pk: {} for t in tournaments}
        if not tournaments:
            return {}
        for e in Entry.objects.filter(tournament__in=list(entries)).select_related(
            "player1", "player2"
        ):
            entries[e.tournament_id][e.pk] = e
        if len(tournaments) == 1:
            (t,) = tournaments
            inputs = {t.pk: self.gather(t, entries=entries[t.pk])}
        else:
            inputs = self.gather_many(tournaments, entries=entries)
        return {
            t.pk: Standings(
                [StandingLine(row=row, entry=entries[t.pk][row.entry_id]) for row in rows],
                needs_correction=inputs[t.pk].get("needs_correction", {}),
            )
            for t in tournaments
            for rows in [self.rank(t, inputs[t.pk])]
        }

    def outcomes(self, table_ids) -> dict[int, Outcome]:
        """How each of ``table_ids`` (ids, or a queryset of them) ended, for the players'
        stories: ``{table id: Outcome}`` for the tables with a result of this system that
        count as a game played (not a no-show, not a result that no longer holds). One query
        or two whatever their number; none by default (a system that tells no stories)."""
        return {}

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

    def validate_values(self, tournament, **values) -> None:
        """Refuse result values (whole numbers, as stored) that break the system's rules under
        the tournament's present settings: raise ``ResultError``. ``record`` checks with it
        before storing, ``stored_problem`` after a settings change or a hand edit."""

    def stored_values(self, table, result) -> dict:
        """The keyword values ``stored_problem`` checks, read from a stored result."""
        return {}

    def stored_problem(self, tournament, **values) -> str | None:
        """Why a stored result (its values, as ``gather`` reads them) does not hold under the
        tournament's present settings (``validate_values``), in words; None when it holds. Such
        a result is left out of the standings and shown "needs correction"."""
        try:
            self.validate_values(tournament, **values)
        except ResultError as exc:
            return exc.message
        return None

    def problem_of(self, table, tournament) -> str | None:
        """``stored_problem`` of ``table``'s stored result; None when it holds or there is
        none. The result pages show it as "needs correction"."""
        result = self.result_of(table)
        if result is None:
            return None
        return self.stored_problem(tournament, **self.stored_values(table, result))

    def record(self, *, acting_user, table, tournament, values: dict, played_at=None):
        """Validate ``values`` by the system's rules and store them as ``table``'s result
        (create or correct). ``table`` is locked and writable. Raises ``ResultError`` /
        ``DomainError``; stores nothing then. Returns the result."""
        raise NotImplementedError

    def delete(self, *, acting_user, table, result) -> None:
        """Remove ``result`` (its history keeps it)."""
        audit(result, acting_user).delete()
