"""Late arrivals (docs/SCORING.md §5, "Late arrivals") in every system and mode: an entry takes
part from its first round, the first round it sits or rests in. A results file whose round 2
seats a player absent from round 1 (new to the tournament, or entered but absent) imports in
one go and stores exactly what two files (round 1, then round 2) store and what the director's
pairings pages store: the same tables, seats, results, byes and standings; the late entry has
no bye for the round it missed, and its standings count only the rounds it played. Through the
imports, the services and the pairings page (POST)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

import pytest
from django.urls import reverse

from tests import builders
from tests.helpers import byes, layout, refused
from tournaments import imports, services, systems
from tournaments.imports import MATCH_HEADER, RESULTS_HEADER, TABLE_HEADER, ImportRefused
from tournaments.models import Bye, Entry, Player, Seat, Tournament

pytestmark = pytest.mark.django_db

ANA, BETO, CIRO, DORA = "Ana Alba", "Beto Bravo", "Ciro Cano", "Dora Díaz"
EVA, FABIAN, GEMA, HUGO = "Eva Esteve", "Fabián Flores", "Gema Gil", "Hugo Hoyos"

#: The settings every tournament here shares: running, on 13 June 2026.
BASE = {"date": dt.date(2026, 6, 13), "status": "running"}


# --- the cases: one tournament of each system and mode, two rounds, one late arrival -----------


@dataclass
class Case:
    """Two rounds of one system: ``games[r]`` lists round r's tables in order, each (side A,
    side B, values) with sides as lists of entries (an entry: its players' names), or, without
    sides, [(entry, VP), ...] in seat order; ``byes[r]`` the entries resting in round r;
    ``late``: the entry first seated in round 2."""

    settings: dict
    games: dict[int, list]
    late: tuple[str, ...]
    byes: dict[int, list[tuple[str, ...]]] = field(default_factory=dict)

    @property
    def has_sides(self) -> bool:
        return self.settings["system"] != "table"

    def entries(self, number: int) -> list[tuple[str, ...]]:
        """The entries of round ``number`` (seated, then resting), in file order."""
        seated = []
        for game in self.games[number]:
            if self.has_sides:
                seated += [*game[0], *game[1]]
            else:
                seated += [entry for entry, _vp in game]
        return seated + self.byes.get(number, [])

    def lines(self, number: int) -> list[str]:
        """Round ``number`` as lines of the system's results file."""
        system = self.settings["system"]
        out = []
        for table, game in enumerate(self.games[number], start=1):
            if system == "table":
                out += [f"{number},{table},{entry[0]},{vp},no" for entry, vp in game]
                continue
            side_a, side_b, values = game
            a, b = (" & ".join(p for entry in side for p in entry) for side in (side_a, side_b))
            if system == "swiss":
                drawn = values["games_drawn"] or ""
                out.append(
                    f"{number},{table},{a},{b},{values['games_a']},{values['games_b']},{drawn},"
                )
            else:
                out.append(
                    f"{number},{table},{a},{b},{values['tantos_a']},{values['tantos_b']},no,no,"
                )
        for entry in self.byes.get(number, []):
            name = " & ".join(entry)
            out.append(f"{number},,{name},,,,," if system == "swiss" else f"{number},,{name},,,,,,")
        return out

    def file(self, *numbers: int) -> str:
        header = {"table": TABLE_HEADER, "swiss": MATCH_HEADER}.get(
            self.settings["system"], RESULTS_HEADER
        )
        return "\n".join([",".join(header), *(ln for n in numbers for ln in self.lines(n))]) + "\n"


def one(*names: str) -> list[tuple[str, ...]]:
    """Sides of single-player entries."""
    return [(n,) for n in names]


def tantos(a: int, b: int) -> dict:
    return {"tantos_a": a, "tantos_b": b}


def games(a: int, b: int, drawn: int = 0) -> dict:
    return {"games_a": a, "games_b": b, "games_drawn": drawn}


CASES = {
    # 7 players in round 1 (a table of 4 and one of 3), Hugo arrives: two tables of 4.
    "table": Case(
        settings={"system": "table", "mode": "single"},
        games={
            1: [
                [((ANA,), 10), ((BETO,), 8), ((CIRO,), 7), ((DORA,), 5)],
                [((EVA,), 10), ((FABIAN,), 7), ((GEMA,), 6)],
            ],
            2: [
                [((ANA,), 9), ((EVA,), 8), ((HUGO,), 7), ((CIRO,), 5)],
                [((BETO,), 10), ((DORA,), 9), ((FABIAN,), 8), ((GEMA,), 6)],
            ],
        },
        late=(HUGO,),
    ),
    # Three pairs in round 1 (Eva & Fabián rest: 1 punto by the rule "win"); Gema & Hugo arrive.
    "pairs": Case(
        settings={"system": "domino", "mode": "pairs", "target": 100, "bye_rule": "win"},
        games={
            1: [([(ANA, BETO)], [(CIRO, DORA)], tantos(100, 50))],
            2: [
                ([(EVA, FABIAN)], [(ANA, BETO)], tantos(100, 40)),
                ([(GEMA, HUGO)], [(CIRO, DORA)], tantos(100, 70)),
            ],
        },
        byes={1: [(EVA, FABIAN)]},
        late=(GEMA, HUGO),
    ),
    # Rotating partners: four players in round 1; Eva arrives, Dora rests in round 2.
    "individual": Case(
        settings={"system": "domino", "mode": "individual", "target": 100},
        games={
            1: [(one(ANA, CIRO), one(BETO, DORA), tantos(100, 30))],
            2: [(one(ANA, EVA), one(BETO, CIRO), tantos(100, 60))],
        },
        byes={2: [(DORA,)]},
        late=(EVA,),
    ),
    # Mano a mano: Eva arrives for round 2, Dora rests then (rule "win").
    "single": Case(
        settings={"system": "domino", "mode": "single", "target": 100, "bye_rule": "win"},
        games={
            1: [(one(ANA), one(BETO), tantos(100, 0)), (one(CIRO), one(DORA), tantos(100, 60))],
            2: [(one(EVA), one(ANA), tantos(100, 50)), (one(BETO), one(CIRO), tantos(100, 99))],
        },
        byes={2: [(DORA,)]},
        late=(EVA,),
    ),
    # Swiss, best of 3: Ciro has the round-1 bye; Dora arrives for round 2.
    "swiss": Case(
        settings={"system": "swiss", "mode": "single", "best_of": 3},
        games={
            1: [(one(ANA), one(BETO), games(2, 1))],
            2: [(one(CIRO), one(ANA), games(2, 0)), (one(DORA), one(BETO), games(2, 1))],
        },
        byes={1: [(CIRO,)]},
        late=(DORA,),
    ),
}

#: The byes of round 1 in each case: never the late entry's.
ROUND_ONE_BYES = {
    "table": [],
    "pairs": [f"{EVA} & {FABIAN}"],
    "individual": [],
    "single": [],
    "swiss": [CIRO],
}


# --- helpers -----------------------------------------------------------------------------------


def tournament(case: Case, name: str, *, by=None) -> Tournament:
    """A running tournament of ``case``'s system named ``name``, created by ``by``."""
    return builders.tournament(BASE, acting_user=by, name=name, **case.settings)


def import_file(t: Tournament, text: str, by) -> services.ImportReport:
    return imports.import_results(acting_user=by, tournament=t, data=text)


def entry_named(t: Tournament, entry: tuple[str, ...]) -> Entry:
    return next(
        e for e in t.entries.select_related("player1", "player2") if e.name == " & ".join(entry)
    )


def register(t: Tournament, entry: tuple[str, ...], by) -> Entry:
    """The entry of ``entry``'s players, each created unless the club has them already."""
    people = [
        Player.objects.filter(full_name=n).first() or builders.player(n, acting_user=by)
        for n in entry
    ]
    return builders.entry(t, people, acting_user=by)


def pair_round(case: Case, t: Tournament, number: int, by) -> None:
    """Round ``number`` paired or seated on the director's pages (the services they call),
    the entries it names registered first when missing, then every result recorded. The
    entries left unseated rest: a bye of the pages' own."""
    known = {e.name for e in t.entries.select_related("player1", "player2")}
    for entry in case.entries(number):
        if " & ".join(entry) not in known:
            register(t, entry, by)
            known.add(" & ".join(entry))
    if case.has_sides:
        tables = [
            ([entry_named(t, e) for e in a], [entry_named(t, e) for e in b])
            for a, b, _values in case.games[number]
        ]
        rnd = services.set_pairings(
            acting_user=by, tournament=t, round_number=number, tables=tables, anyway=True
        )
        for table, (_a, _b, values) in zip(
            builders.tables_of(rnd), case.games[number], strict=True
        ):
            builders.record(table, acting_user=by, **values)
        return
    seated = [[entry_named(t, e) for e, _vp in game] for game in case.games[number]]
    rnd = builders.seat(t, number, seated, acting_user=by, anyway=True)
    for table, game, entries in zip(
        builders.tables_of(rnd), case.games[number], seated, strict=True
    ):
        scores = {e.pk: vp for e, (_entry, vp) in zip(entries, game, strict=True)}
        builders.record(table, acting_user=by, scores=scores, ended_by_time=False)


def result_values(result) -> dict:
    """A stored result's values: its fields but the table, its author and its times of change."""
    return {
        f.attname: getattr(result, f.attname)
        for f in result._meta.concrete_fields
        if not f.primary_key and f.name not in ("table", "entered_by", "updated_at")
    }


def snapshot(t: Tournament):
    """Everything the rounds store, by name: each round's tables (number, seats as (side,
    position, entry, VP), result values) and byes; then the standings (position, entry,
    figures, what decided the place)."""
    t = Tournament.objects.get(pk=t.pk)
    system = systems.of(t)
    rounds = []
    for rnd in t.rounds.order_by("number"):
        tables = []
        for table in rnd.tables.order_by("number"):
            seats = [
                (s.side, s.position, s.entry.name, s.victory_points)
                for s in table.seats.select_related("entry__player1", "entry__player2").order_by(
                    "side", "position"
                )
            ]
            tables.append((table.number, seats, result_values(system.result_of(table))))
        rounds.append((rnd.number, tables, sorted(e.name for e in rnd.bye_entries())))
    standings = [
        (ln.row.position, ln.entry.name, ln.row.figures, ln.row.decided_by) for ln in t.standings()
    ]
    return rounds, standings


def rounds_of(t: Tournament, entry: tuple[str, ...]) -> tuple[list[int], list[int]]:
    """The rounds ``entry`` sits in and the rounds it rests in."""
    e = entry_named(t, entry)
    seated = sorted(set(Seat.objects.filter(entry=e).values_list("round__number", flat=True)))
    rested = sorted(Bye.objects.filter(entry=e).values_list("round__number", flat=True))
    return seated, rested


def one_file(case: Case, by, name: str = "Un archivo") -> Tournament:
    t = tournament(case, name)
    import_file(t, case.file(1, 2), by)
    return t


# --- one file, two files, the pages: the same rows ---------------------------------------------


@pytest.mark.parametrize("key", list(CASES))
def test_a_file_whose_round_2_seats_a_newcomer_imports_in_one_go_as_two_files_do(key, director):
    case = CASES[key]
    t1 = tournament(case, "Un archivo")
    report = import_file(t1, case.file(1, 2), director)
    t2 = tournament(case, "Dos archivos")
    first = import_file(t2, case.file(1), director)
    second = import_file(t2, case.file(2), director)

    assert snapshot(t1) == snapshot(t2)
    before = len(set(case.entries(1)))
    counts = (report.entries_created, first.entries_created, second.entries_created)
    assert counts == (before + 1, before, 1)
    rests = sum(len(resting) for resting in case.byes.values())
    assert (report.byes, first.byes + second.byes) == (rests, rests)
    rounds, _standings = snapshot(t1)
    assert rounds[0][2] == ROUND_ONE_BYES[key]
    assert rounds_of(t1, case.late) == ([2], [])


@pytest.mark.parametrize("key", list(CASES))
def test_the_pairings_pages_store_what_the_file_stores(key, director):
    """The late entry registered after round 1 was played, then round 2 paired with it: on the
    pages alone, and after round 1 came in a file."""
    case = CASES[key]
    pages = tournament(case, "Por las páginas")
    pair_round(case, pages, 1, director)
    pair_round(case, pages, 2, director)
    mixed = tournament(case, "Archivo y páginas")
    import_file(mixed, case.file(1), director)
    pair_round(case, mixed, 2, director)

    expected = snapshot(one_file(case, director))
    assert snapshot(pages) == expected
    assert snapshot(mixed) == expected
    assert rounds_of(pages, case.late) == ([2], [])


@pytest.mark.parametrize("key", list(CASES))
def test_an_entry_entered_before_round_1_but_absent_from_it_arrives_in_round_2(key, director):
    """Entered beforehand but first seated in round 2: one file takes it as a late arrival; two
    files and the pages know it was absent from round 1 by the check-in (the others present).
    Everything stored is what a newcomer gives."""
    case = CASES[key]
    expected = snapshot(one_file(case, director))

    t1 = tournament(case, "Inscrito, un archivo")
    register(t1, case.late, director)
    report = import_file(t1, case.file(1, 2), director)
    assert report.entries_created == len({*case.entries(1), *case.entries(2)}) - 1
    assert snapshot(t1) == expected

    for name, pages in (("Inscrito, dos archivos", False), ("Inscrito, páginas", True)):
        t = tournament(case, name)
        late = register(t, case.late, director)
        for entry in case.entries(1):
            services.set_present(
                acting_user=director, entry=register(t, entry, director), present=True
            )
        if pages:
            pair_round(case, t, 1, director)
        else:
            import_file(t, case.file(1), director)
        services.set_present(acting_user=director, entry=late, present=True)
        if pages:
            pair_round(case, t, 2, director)
        else:
            import_file(t, case.file(2), director)
        assert snapshot(t) == expected, name


def test_without_check_in_a_round_1_file_without_an_entered_player_is_refused(director):
    """Two files cannot tell an entered player who came late from one forgotten in round 1
    unless the check-in says who is absent: the table games' "everyone plays" refuses the
    round-1 file alone, as the pairings page refuses the round."""
    case = CASES["table"]
    t = tournament(case, "Sin presentes")
    register(t, case.late, director)

    with pytest.raises(ImportRefused) as caught:
        import_file(t, case.file(1), director)
    assert caught.value.codes == [(line, "table_byes") for line in range(2, 9)]
    assert not t.rounds.exists()

    round_one = [[register(t, e, director) for e, _vp in game] for game in case.games[1]]
    seat = {"acting_user": director, "tournament": t, "round_number": 1, "tables": round_one}
    assert refused(lambda: services.set_seating(**seat, anyway=True)) == "table_byes"
    for entry in [e for table in round_one for e in table]:
        services.set_present(acting_user=director, entry=entry, present=True)
    services.set_seating(**seat, anyway=True)
    assert rounds_of(t, case.late) == ([], [])


def test_a_player_missing_from_a_middle_round_is_still_refused(director):
    """Only the rounds before an entry's first table are before it arrived: Hugo, seated in
    rounds 1 and 3, is missing from round 2 (lines 10–16)."""
    t = builders.tournament(BASE, name="Ausente en medio", system="table", rounds_planned=3)
    everyone = [ANA, BETO, CIRO, DORA, EVA, FABIAN, GEMA, HUGO]
    lines = [f"1,{1 + i // 4},{n},{8 - i % 4},no" for i, n in enumerate(everyone)]
    lines += [f"2,1,{n},{vp},no" for n, vp in ((ANA, 9), (EVA, 8), (CIRO, 5))]
    lines += [f"2,2,{n},{vp},no" for n, vp in ((BETO, 10), (DORA, 9), (FABIAN, 8), (GEMA, 6))]
    lines += [f"3,{1 + i // 4},{n},{4 + i % 4},no" for i, n in enumerate(everyone)]

    with pytest.raises(ImportRefused) as caught:
        import_file(t, "\n".join([",".join(TABLE_HEADER), *lines]) + "\n", director)
    assert caught.value.codes == [(line, "table_byes") for line in range(10, 17)]


def test_a_round_robin_goes_on_with_an_entry_registered_after_round_1(director):
    """Mano a mano, rule "win": the schedule over the five entries (the late one last) gives
    round 1 as it was played, with the newcomer in the resting slot; it is not given that bye
    (it was not there), and the next rounds follow the schedule, one bye each."""
    t, e = builders.running_tournament(
        acting_user=director, system="domino", mode="single", n=4, bye_rule="win"
    )
    services.generate_round_robin(acting_user=director, tournament=t, next_only=True, anyway=True)
    builders.record_round(t, 1, acting_user=director, **tantos(100, 50))
    e.append(register(t, (HUGO,), director))

    services.generate_round_robin(acting_user=director, tournament=t, anyway=True)

    assert [(layout(t, n, e), byes(t, n, e)) for n in range(1, 6)] == [
        ({1: ((0,), (3,)), 2: ((1,), (2,))}, []),
        ({1: ((1,), (4,)), 2: ((2,), (3,))}, [0]),
        ({1: ((2,), (0,)), 2: ((3,), (4,))}, [1]),
        ({1: ((3,), (1,)), 2: ((4,), (0,))}, [2]),
        ({1: ((4,), (2,)), 2: ((0,), (1,))}, [3]),
    ]


# --- standings: only the rounds played ---------------------------------------------------------


def standings_rows(t: Tournament, *keys: str) -> list[tuple]:
    return [
        (ln.row.position, ln.entry.name, *(ln.row.figures[k] for k in keys), ln.row.decided_by)
        for ln in t.standings()
    ]


def test_a_late_table_game_player_counts_only_the_round_played(director):
    # By hand (SCORING.md §4):
    # R1 T1 10, 8, 7, 5 → 5, 3, 2, 1; total 30: 33.33, 26.67, 23.33, 16.67.
    # R1 T2 10, 7, 6 → 5, 3, 2; neutral 23/3 = 7.67 → 8, total 31: 32.26, 22.58, 19.35.
    # R2 T1 9, 8, 7, 5 → 5, 3, 2, 1; total 29: 31.03, 27.59, 24.14, 17.24.
    # R2 T2 10, 9, 8, 6 → 5, 3, 2, 1; total 33: 30.30, 27.27, 24.24, 18.18.
    # Hugo, round 2 only: 2 points, 7 VP, 24.14 (a bye would have given him 3 points more).
    t = one_file(CASES["table"], director)

    assert standings_rows(
        t, "games", "points", "victory_points", "pct_sum", "byes", "per_round"
    ) == [
        (1, ANA, 2, 10, 19, Decimal("64.36"), 0, {1: 5, 2: 5}, None),
        (2, EVA, 2, 8, 18, Decimal("59.85"), 0, {1: 5, 2: 3}, "pct_sum"),
        (3, BETO, 2, 8, 18, Decimal("56.97"), 0, {1: 3, 2: 5}, "pct_sum"),
        (4, FABIAN, 2, 5, 15, Decimal("46.82"), 0, {1: 3, 2: 2}, None),
        (5, DORA, 2, 4, 14, Decimal("43.94"), 0, {1: 1, 2: 3}, None),
        (6, CIRO, 2, 3, 12, Decimal("40.57"), 0, {1: 2, 2: 1}, "pct_sum"),
        (7, GEMA, 2, 3, 12, Decimal("37.53"), 0, {1: 2, 2: 1}, "pct_sum"),
        (8, HUGO, 1, 2, 7, Decimal("24.14"), 0, {2: 2}, None),
    ]


def test_a_late_domino_pair_counts_only_the_game_played(director):
    # Rule "win": Eva & Fabián's round-1 bye is 1 juego ganado and 1 punto; Gema & Hugo, who
    # arrived for round 2, have their one game: 100–70, 1 punto, for 100 against 70. A bye
    # for round 1 would have tied them with Ana & Beto on 2 puntos.
    t = one_file(CASES["pairs"], director)

    keys = ("played", "won", "puntos", "tantos_a_favor", "tantos_en_contra", "byes", "efectividad")
    assert standings_rows(t, *keys) == [
        (1, f"{EVA} & {FABIAN}", 1, 2, 3, 100, 40, 1, 60, None),
        (2, f"{ANA} & {BETO}", 2, 1, 2, 140, 150, 0, -10, None),
        (3, f"{GEMA} & {HUGO}", 1, 1, 1, 100, 70, 0, 30, None),
        (4, f"{CIRO} & {DORA}", 2, 0, 0, 120, 200, 0, -80, None),
    ]


def test_a_late_swiss_player_counts_only_the_round_played(director):
    # Dora, round 2 only: 2–1 over Beto, 3 match points over 1 round (MWP 1, not 6/6 with a
    # bye); GWP 6/9; her only opponent Beto has MWP 0/6 → 0.33 and GWP 6/18.
    # Ana: 2–1, 0–2 → 3 over 2 rounds (1/2), GWP 6/15; opponents Beto 0.33, Ciro 1 → 133/200.
    # Ciro: the round-1 bye (2–0) and 2–0 → 6 over 2 (1), GWP 12/12; OMW Ana's 1/2.
    t = one_file(CASES["swiss"], director)

    keys = ("match_points", "rounds_played", "byes", "mwp", "gwp", "omw", "ogw")
    F = Fraction
    assert standings_rows(t, *keys) == [
        (1, CIRO, 6, 2, 1, F(1), F(1), F(1, 2), F(2, 5), None),
        (2, ANA, 3, 2, 0, F(1, 2), F(2, 5), F(133, 200), F(2, 3), "omw"),
        (3, DORA, 3, 1, 0, F(1), F(2, 3), F(33, 100), F(1, 3), "omw"),
        (4, BETO, 0, 2, 0, F(33, 100), F(1, 3), F(3, 4), F(8, 15), None),
    ]


# --- a round paired again after the late entry's first round ----------------------------------


def test_pairing_round_1_again_gives_no_bye_to_a_pair_first_seated_in_round_2(director):
    """Rounds 1 and 2 published before any result, Gema & Hugo registered between them: when
    round 1 is paired again they are not "to pair" there (their first round is 2), so they
    get no bye (rule "win": it would be 1 punto), nor a place in a proposal for round 1."""
    t = builders.tournament(BASE, name="Emparejada otra vez", **CASES["pairs"].settings)
    a, b, c = (register(t, e, director) for e in [(ANA, BETO), (CIRO, DORA), (EVA, FABIAN)])
    builders.pair(t, 1, [(a, b)], acting_user=director)
    d = register(t, (GEMA, HUGO), director)
    builders.pair(t, 2, [(c, a), (d, b)], acting_user=director, anyway=True)
    assert list(t.entries_to_pair(1)) == [a, b, c]
    assert list(t.entries_to_pair(2)) == [a, b, c, d]

    builders.pair(t, 1, [(b, a)], acting_user=director)

    assert sorted(
        Bye.objects.filter(round__tournament=t).values_list("round__number", "entry")
    ) == [(1, c.pk)]
    assert rounds_of(t, (GEMA, HUGO)) == ([2], [])
    pairing, _lines = t.propose_pairings(1, seed=7)
    assert {e for table in pairing.tables for e in table} | {pairing.bye} == {a.pk, b.pk, c.pk}


def test_seating_round_1_again_on_the_pairings_page_leaves_out_a_player_first_seated_in_round_2(
    director, director_client
):
    """Table games: round 1 seated with seven, Hugo registered, round 2 seated with eight, then
    round 1 seated again on the pairings page: Hugo is not missing from it (before, "Jugadores
    sin mesa: 1")."""
    case = CASES["table"]
    t = tournament(case, "Sentada otra vez", by=director)
    e = {n: register(t, (n,), director) for n in (ANA, BETO, CIRO, DORA, EVA, FABIAN, GEMA)}
    builders.seat(t, 1, [[e[ANA], e[BETO], e[CIRO], e[DORA]], [e[EVA], e[FABIAN], e[GEMA]]])
    e[HUGO] = register(t, (HUGO,), director)
    builders.seat(
        t,
        2,
        [[e[n] for n in (ANA, EVA, HUGO, CIRO)], [e[n] for n in (BETO, DORA, FABIAN, GEMA)]],
        anyway=True,
    )

    order = [[BETO, ANA, DORA, CIRO], [GEMA, EVA, FABIAN]]
    post = {
        f"t{i}_s{j}": str(e[n].pk) for i, names in enumerate(order) for j, n in enumerate(names, 1)
    }
    response = director_client.post(reverse("manage:pairings", args=[t.slug, 1]), post)

    assert response.status_code == 302
    assert [
        (s.table.number, s.position, s.entry.name)
        for s in Seat.objects.filter(round__tournament=t, round__number=1).order_by(
            "table__number", "position"
        )
    ] == [
        (1, 1, BETO),
        (1, 2, ANA),
        (1, 3, DORA),
        (1, 4, CIRO),
        (2, 1, GEMA),
        (2, 2, EVA),
        (2, 3, FABIAN),
    ]
    assert not Bye.objects.filter(round__tournament=t).exists()
    assert rounds_of(t, (HUGO,)) == ([2], [])


def test_an_entry_placed_nowhere_yet_is_in_a_round_not_begun_that_is_paired_again(director):
    """The other side of the rule: a round that has not begun (no result, not closed) is still
    open to an entry registered after it was published. Pairing it again seats it or rests it,
    as any entry (the check-in leaves out one that is not there); once a round has begun it
    cannot be paired again, so nobody gets a bye for a round played before they came."""
    t = builders.tournament(BASE, name="Aún sin empezar", **CASES["pairs"].settings)
    a, b, c = (register(t, e, director) for e in [(ANA, BETO), (CIRO, DORA), (EVA, FABIAN)])
    builders.pair(t, 1, [(a, b)], acting_user=director)
    d = register(t, (GEMA, HUGO), director)

    rnd = builders.pair(t, 1, [(b, a)], acting_user=director)

    assert sorted(Bye.objects.filter(round=rnd).values_list("entry", flat=True)) == [c.pk, d.pk]
    builders.record(builders.tables_of(rnd)[0], acting_user=director, **tantos(100, 50))
    latest = ("Berta Blanco", "Delia Durán")
    register(t, latest, director)
    assert refused(lambda: builders.pair(t, 1, [(a, b)], acting_user=director)) == (
        "round_has_results"
    )
    assert rounds_of(t, latest) == ([], [])
