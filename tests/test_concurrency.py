"""Concurrency on PostgreSQL (issue "reliability and security", point 2; DESIGN.md "Concurrency").

Real threads, each with its own database connection (closed when the thread ends), meet at a
``threading.Barrier`` right before the service call, so the writes really overlap. The tests
use ``transactional_db``: every ``transaction.on_commit`` hook (the ledger replay) runs for real
in the thread that committed. Each scenario is repeated ``REPEAT`` times.

SQLite serialises every write by locking the whole file, so there is nothing to race there:
the module is skipped on SQLite (``.ci/run`` runs it in its PostgreSQL pass).
"""

from __future__ import annotations

import datetime as dt
import time

import pytest
from django.db import connection

from rankings import ledger
from rankings.models import LedgerRow
from tests import builders
from tests.helpers import ledger_snapshot, race
from tournaments import imports, services, systems
from tournaments.models import Entry, Player, Result, Round, Seat, Table, Tournament

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="concurrency tests need PostgreSQL (row locks and real parallel connections); "
        "SQLite serialises all writes. Run with DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]

REPEAT = 10
#: The tournament of the races: a rated, running dominó of pairs to 100 with a round per race
#: (no round may go beyond the planned ones).
DUEL = {
    "date": dt.date(2026, 4, 18),
    "system": "domino",
    "mode": "pairs",
    "target": 100,
    "rated": True,
    "status": "running",
    "rounds_planned": REPEAT,
}
STAGGER = 0.15  # seconds: lets one side of a race be sure to arrive first, in some repetitions


# --- helpers -----------------------------------------------------------------------------------


def assert_ledger_is_a_rebuild():
    before = ledger_snapshot()
    ledger.rebuild()
    assert ledger_snapshot() == before


def assert_ledger_matches_result(table, rows_per_game):
    """Exactly one set of ledger rows for the table's game, carrying the stored tantos."""
    result = Result.objects.get(table=table)
    rows = list(LedgerRow.objects.filter(table=table))
    assert len(rows) == rows_per_game
    for row in rows:
        own, other = (
            (result.tantos_a, result.tantos_b)
            if row.side == "A"
            else (result.tantos_b, result.tantos_a)
        )
        assert (row.tantos_own, row.tantos_other) == (own, other)
    assert len({row.player_id for row in rows}) == rows_per_game


# --- (1) two directors save the same table at the same moment ----------------------------------


@pytest.mark.parametrize(("mode", "rows_per_game"), [("pairs", 4), ("single", 2)])
def test_two_directors_saving_the_same_table_one_wins_the_other_is_told_stale(mode, rows_per_game):
    ana, beto = builders.director("ana"), builders.director("beto")
    t, (e1, e2) = builders.field(
        DUEL,
        acting_user=ana,
        name=f"Duelo {mode}",
        mode=mode,
        names=[f"Duelo {mode} jugador {i:02d}" for i in range(4 if mode == "pairs" else 2)],
    )
    t.directors.add(beto)
    rnd = services.set_pairings(
        acting_user=ana, tournament=t, round_number=1, tables=[([e1], [e2])]
    )
    table_id = rnd.tables.get().pk

    for i in range(REPEAT):
        version = Table.objects.get(pk=table_id).version
        saves_before = Result.history.filter(table_id=table_id).count()
        wanted = {"ana": (100, 10 + i), "beto": (20 + i, 100)}

        def step(user):
            def prepare():
                return Table.objects.get(pk=table_id)  # what this director's page showed: version N

            def act(table):
                a, b = wanted[user.username]
                return services.record_result(
                    acting_user=user, table=table, tantos_a=a, tantos_b=b, version=table.version
                )

            return prepare, act

        outcomes = race(step(ana), step(beto))

        assert sorted(o[0] for o in outcomes) == ["error", "ok"], outcomes
        assert [o[1] for o in outcomes if o[0] == "error"] == ["stale_version"]
        winner = "ana" if outcomes[0][0] == "ok" else "beto"
        result = Result.objects.get(table_id=table_id)
        assert (result.tantos_a, result.tantos_b) == wanted[winner]
        assert result.entered_by.username == winner
        assert Result.objects.filter(table_id=table_id).count() == 1
        assert Table.objects.get(pk=table_id).version == version + 1
        # One save, one history record: nothing lost, nothing doubled.
        assert Result.history.filter(table_id=table_id).count() == saves_before + 1
        last = Result.history.filter(table_id=table_id).latest("history_date")
        assert (last.tantos_a, last.tantos_b, last.history_user.username) == (
            *wanted[winner],
            winner,
        )
        assert_ledger_matches_result(Table.objects.get(pk=table_id), rows_per_game)
        assert LedgerRow.objects.count() == rows_per_game
    assert_ledger_is_a_rebuild()


# --- (2) the same CSV file imported twice at once ----------------------------------------------


def results_csv(prefix):
    names = [f"{prefix} {c}. Ibarra" for c in "ABCDEFGH"]
    pairs = [f"{names[i]} & {names[i + 1]}" for i in range(0, 8, 2)]
    lines = [
        ",".join(imports.RESULTS_HEADER),
        f"1,1,{pairs[0]},{pairs[1]},100,35,no,no,",
        f"1,2,{pairs[2]},{pairs[3]},62,100,no,no,",
        f"2,1,{pairs[0]},{pairs[2]},100,0,no,no,",
        f"2,2,{pairs[1]},{pairs[3]},118,77,no,no,",
    ]
    expected = {
        (1, 1, pairs[0], pairs[1], 100, 35),
        (1, 2, pairs[2], pairs[3], 62, 100),
        (2, 1, pairs[0], pairs[2], 100, 0),
        (2, 2, pairs[1], pairs[3], 118, 77),
    }
    return ("\n".join(lines) + "\n").encode(), names, expected


def stored_results(t):
    out = set()
    for table in Table.with_results().filter(round__tournament=t):
        r = table.result
        out.add(
            (
                table.round.number,
                table.number,
                table.side_name("A"),
                table.side_name("B"),
                r.tantos_a,
                r.tantos_b,
            )
        )
    return out


def test_two_imports_of_the_same_file_at_once_store_it_once():
    director = builders.director("carla")
    for i in range(REPEAT):
        t = services.create_tournament(
            acting_user=director,
            name=f"Importación {i}",
            date=dt.date(2026, 5, 9),
            system="domino",
            mode="pairs",
            target=100,
            rated=True,
            status="running",
        )
        data, names, expected = results_csv(f"Imp{i}")

        def step():
            def act(_):
                return imports.import_domino_results(acting_user=director, tournament=t, data=data)

            return (lambda: Tournament.objects.get(pk=t.pk)), act

        outcomes = race(step(), step())

        assert [o[0] for o in outcomes] == ["ok", "ok"], outcomes
        reports = sorted((o[1] for o in outcomes), key=lambda r: r.created)
        assert (
            reports[0].created,
            reports[0].unchanged,
            reports[0].players_created,
            reports[0].entries_created,
        ) == (0, 4, 0, 0)
        assert (
            reports[1].created,
            reports[1].unchanged,
            reports[1].players_created,
            reports[1].entries_created,
        ) == (4, 0, 8, 4)
        # The result set is exactly one import's.
        assert stored_results(t) == expected
        for name in names:
            assert Player.objects.filter(full_name=name).count() == 1
        assert Entry.objects.filter(tournament=t).count() == 4
        assert Round.objects.filter(tournament=t).count() == 2
        assert Table.objects.filter(round__tournament=t).count() == 4
        assert Seat.objects.filter(round__tournament=t).count() == 8
        assert set(Table.objects.filter(round__tournament=t).values_list("version", flat=True)) == {
            1
        }
        assert Result.history.filter(table__round__tournament=t).count() == 4
        assert LedgerRow.objects.filter(tournament=t).count() == 16
    assert_ledger_is_a_rebuild()


# --- (3) closing a round while a result is being saved ----------------------------------------


def close_while_saving(*, correction):
    """Repeat the race "director A saves table 2, director B closes the round" REPEAT times.
    Table 1 always has a result; table 2 has one already when ``correction``. Returns the
    orders seen: "saved_then_closed", "closed_then_refused", "close_refused_then_saved"."""
    ana, beto = builders.director("ana"), builders.director("beto")
    t, entries = builders.field(
        DUEL, acting_user=ana, name="Cierre", names=[f"Cierre jugador {i:02d}" for i in range(8)]
    )
    t.directors.add(beto)
    seen = []
    for i in range(REPEAT):
        number = i + 1
        rnd = services.set_pairings(
            acting_user=ana,
            tournament=t,
            round_number=number,
            tables=[([entries[0]], [entries[1]]), ([entries[2]], [entries[3]])],
        )
        t1, t2 = rnd.tables.order_by("number")
        services.record_result(
            acting_user=ana, table=t1, tantos_a=100, tantos_b=50, version=t1.version
        )
        if correction:
            t2.refresh_from_db()
            services.record_result(
                acting_user=ana, table=t2, tantos_a=100, tantos_b=40, version=t2.version
            )
        old = Result.objects.filter(table=t2).values_list("tantos_a", "tantos_b").first()
        new = (30 + i, 100)
        delay_save = STAGGER if i % 3 == 1 else 0
        delay_close = STAGGER if i % 3 == 2 else 0

        def save_prepare():
            return Table.objects.get(pk=t2.pk)

        def save_act(table):
            time.sleep(delay_save)
            return services.record_result(
                acting_user=ana,
                table=table,
                tantos_a=new[0],
                tantos_b=new[1],
                version=table.version,
            )

        def close_prepare():
            return Round.objects.get(pk=rnd.pk)

        def close_act(r):
            time.sleep(delay_close)
            return services.close_round(acting_user=beto, round=r)

        save, close = race((save_prepare, save_act), (close_prepare, close_act))

        rnd.refresh_from_db()
        stored = Result.objects.filter(table=t2).values_list("tantos_a", "tantos_b").first()
        if rnd.closed:
            assert close[0] == "ok"
            # A closed round is whole: every table has a result and its ledger rows.
            assert not rnd.tables.filter(result__isnull=True).exists()
            for table in rnd.tables.all():
                assert_ledger_matches_result(table, 4)
            if save[0] == "ok":
                # The save landed before the close, and the close saw it.
                assert stored == new
                saved_at = Result.history.filter(table=t2).latest("history_date").history_date
                closed_at = (
                    Round.history.filter(id=rnd.pk, closed=True).latest("history_date").history_date
                )
                assert saved_at <= closed_at
                seen.append("saved_then_closed")
            else:
                assert save == ("error", "round_closed")
                assert stored == old  # untouched, no half-written row
                seen.append("closed_then_refused")
        else:
            # Only a round with a table still empty may stay open: the close came first.
            assert not correction
            assert close == ("error", "round_incomplete")
            assert save[0] == "ok" and stored == new
            assert_ledger_matches_result(t2, 4)
            seen.append("close_refused_then_saved")
        versions = Result.history.filter(table=t2).count()
        assert Table.objects.get(pk=t2.pk).version == versions
    assert_ledger_is_a_rebuild()
    return seen


def test_closing_a_round_while_a_result_is_corrected_never_leaves_a_half_state():
    seen = close_while_saving(correction=True)
    assert set(seen) == {"saved_then_closed", "closed_then_refused"}, seen


def test_closing_a_round_while_its_last_result_is_entered_never_leaves_a_half_state():
    seen = close_while_saving(correction=False)
    assert set(seen) == {"saved_then_closed", "close_refused_then_saved"}, seen


# --- (4) a setting the results depend on changes while a result is saved ------------------------


def _one_table(ana, beto, name, **fields):
    """A running mano a mano tournament ``name`` of two entries, directed by ``ana`` and
    ``beto``, with round 1 paired: returns (tournament, its one table)."""
    t = builders.tournament(
        acting_user=ana, name=name, date=dt.date(2026, 4, 18), status="running", **fields
    )
    t.directors.add(beto)
    entries = [builders.new_entry(t, [f"{name} {k}"], acting_user=ana) for k in range(2)]
    rnd = builders.pair(t, 1, [(entries[0], entries[1])], acting_user=ana)
    return t, rnd.tables.get()


SETTING_RACES = [
    # (setting, new value, tournament extras, result values, code the result may get, code the
    # setting may get)
    (
        "target",
        200,
        {},
        {"tantos_a": 100, "tantos_b": 40},
        "no_side_reached_target",
        "target_locked",
    ),
    (
        "time_limit",
        None,
        {"time_limit": 30},
        {"tantos_a": 64, "tantos_b": 41, "ended_by_time": True},
        "no_time_limit",
        "time_limit_locked",
    ),
    (
        "forfeit_winner_tantos",
        150,
        {},
        {"tantos_a": 0, "tantos_b": 0, "forfeiting_side": "A"},
        None,
        "forfeit_score_locked",
    ),
]


@pytest.mark.parametrize(
    ("setting", "value", "extra", "values", "result_code", "setting_code"),
    SETTING_RACES,
    ids=[race_[0] for race_ in SETTING_RACES],
)
def test_a_setting_change_and_a_result_save_never_leave_an_invalid_result(
    setting, value, extra, values, result_code, setting_code
):
    """Whatever arrives first, the result is validated under the settings that are stored when
    it commits: one of the two writes is refused in words, and the stored result holds."""
    ana, beto = builders.director("ana"), builders.director("beto")
    for i in range(REPEAT):
        t, table = _one_table(
            ana, beto, f"Ajustes {setting} {i}", system="domino", mode="single", target=100, **extra
        )

        def save_act(_, table=table):
            return services.record_result(acting_user=ana, table=table, version=None, **values)

        def change_act(_, t=t):
            return services.update_tournament(acting_user=beto, tournament=t, **{setting: value})

        delay = STAGGER if i % 2 else 0

        def staggered(act, wait):
            def run(prepared):
                time.sleep(wait)
                return act(prepared)

            return run

        saved, changed = race(
            (lambda: None, staggered(save_act, delay)),
            (lambda: None, staggered(change_act, STAGGER - delay)),
        )
        if result_code is None:  # the result holds under either setting: it always lands
            assert saved[0] == "ok", saved
            assert changed in (("ok", changed[1]), ("error", setting_code)), changed
        else:  # exactly one of the two is refused, with its own code
            assert {saved, changed} in (
                {("error", result_code), ("ok", changed[1])},
                {("ok", saved[1]), ("error", setting_code)},
            ), (saved, changed)
        t.refresh_from_db()
        stored = Result.objects.filter(table__round__tournament=t).first()
        if stored is not None:
            tbl = Table.with_results().get(pk=stored.table_id)
            assert systems.of(t).problem_of(tbl, t) is None
            if setting == "forfeit_winner_tantos":
                winner, loser = t.forfeit_score
                assert (stored.tantos_a, stored.tantos_b) == (loser, winner)


def test_best_of_change_and_a_match_save_never_leave_an_invalid_match():
    ana, beto = builders.director("ana"), builders.director("beto")
    for i in range(REPEAT):
        t, table = _one_table(ana, beto, f"Suizo {i}", system="swiss", best_of=3)
        saved, changed = race(
            (
                lambda: None,
                lambda _, table=table: services.record_result(
                    acting_user=ana, table=table, version=None, games_a=2, games_b=1
                ),
            ),
            (
                lambda: None,
                lambda _, t=t: services.update_tournament(
                    acting_user=beto, tournament=t, best_of=1
                ),
            ),
        )
        outcome = (saved[0], changed[0])
        assert outcome in (("ok", "error"), ("error", "ok")), (saved, changed)
        t.refresh_from_db()
        if saved[0] == "ok":
            assert changed[1] == "best_of_locked" and t.best_of == 3
        else:
            assert t.best_of == 1 and not Result.objects.filter(table__round__tournament=t).exists()


# --- (5) a round is paired again while a result of it is saved ---------------------------------


def test_re_pairing_a_round_while_a_result_is_saved_never_deadlocks():
    """Re-pairing deletes the round's tables and makes new ones; a save of one of the old
    tables either lands first (then the re-pair is refused: the round has results) or is told
    in words that the table no longer exists. Never a deadlock, never a crash."""
    ana, beto = builders.director("ana"), builders.director("beto")
    t, entries = builders.field(
        DUEL,
        acting_user=ana,
        name="Reemparejar",
        names=[f"Reemparejar jugador {i:02d}" for i in range(8)],
    )
    t.directors.add(beto)
    seen = set()
    for i in range(REPEAT):
        number = i + 1
        rnd = services.set_pairings(
            acting_user=ana,
            tournament=t,
            round_number=number,
            tables=[([entries[0]], [entries[1]]), ([entries[2]], [entries[3]])],
        )
        t1 = rnd.tables.get(number=1)
        delay = STAGGER if i % 2 else 0

        def save_act(_, t1=t1, delay=delay):
            time.sleep(delay)
            return services.record_result(
                acting_user=ana, table=t1, version=t1.version, tantos_a=100, tantos_b=20
            )

        def repair_act(_, number=number, delay=delay):
            time.sleep(STAGGER - delay)
            return services.set_pairings(
                acting_user=beto,
                tournament=t,
                round_number=number,
                tables=[([entries[0]], [entries[2]]), ([entries[1]], [entries[3]])],
            )

        saved, repaired = race((lambda: None, save_act), (lambda: None, repair_act))
        outcome = (saved[0], saved[1] if saved[0] == "error" else None, repaired[0])
        assert outcome in (("ok", None, "error"), ("error", "table_removed", "ok")), (
            saved,
            repaired,
        )
        if repaired[0] == "error":
            assert repaired[1] == "round_has_results"
        seen.add(outcome)
        rnd = Round.objects.get(tournament=t, number=number)
        tables = {tb.number: tb for tb in Table.with_results().filter(round=rnd)}
        if saved[0] == "ok":
            assert (tables[1].result.tantos_a, tables[1].result.tantos_b) == (100, 20)
            assert tables[1].side_name("B") == entries[1].name
        else:
            assert tables[1].side_name("B") == entries[2].name
            assert not Result.objects.filter(table__round=rnd).exists()
        # the next race needs the round closed with a result at each table
        for tb in Table.objects.filter(round=rnd).order_by("number"):
            if not Result.objects.filter(table=tb).exists():
                services.record_result(
                    acting_user=ana, table=tb, version=None, tantos_a=100, tantos_b=50
                )
        services.close_round(acting_user=ana, round=rnd)
    assert seen  # the outcomes seen, for the record
    assert_ledger_is_a_rebuild()
