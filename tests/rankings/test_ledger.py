"""The ledger is always what a full rebuild gives (SCORING.md §2; issue "always consistent")."""

import datetime as dt
import zoneinfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankings import ledger
from rankings.models import LedgerRow
from tests import builders
from tests.helpers import ledger_snapshot, year_figures
from tournaments import services
from tournaments.errors import DomainError
from tournaments.models import Player, Result, Round, Table

pytestmark = pytest.mark.django_db

MX = zoneinfo.ZoneInfo("America/Mexico_City")


def assert_equals_rebuild():
    """The ledger rows and the year figures the replays kept equal what a rebuild writes."""
    before, figures = ledger_snapshot(), year_figures()
    ledger.rebuild()
    assert ledger_snapshot() == before
    assert year_figures() == figures


def test_seed_example_through_the_ledger(django_capture_on_commit_callbacks):
    """JA/JC beat JB/JD 120–80 with the seed's ratings and NG → the seed's new ratings."""
    ja, jb, jc, jd = builders.players(f"J {i:02d}" for i in range(4))
    # Give each player the seed's rating and NG by hand-made earlier rows is not possible:
    # the ledger is derived. Instead check the one-game arithmetic from 1500 and NG 0.
    t = builders.tournament(builders.RATED, name="Seed", date=dt.date(2026, 3, 1))
    services.register_entry(acting_user=None, tournament=t, players=[ja, jc])
    services.register_entry(acting_user=None, tournament=t, players=[jb, jd])
    e1, e2 = t.entries.order_by("pk")
    rnd = services.set_pairings(
        acting_user=None, tournament=t, round_number=1, tables=[([e1], [e2])]
    )
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(rnd.tables.get(), tantos_a=120, tantos_b=80)
    rows = {r.player_id: r for r in LedgerRow.objects.all()}
    assert len(rows) == 4
    # Equal teams: SE 0.5; margin 40 → S 0.73 / 0.27; K 32 → ±7.36.
    assert rows[ja.pk].expected_score == pytest.approx(0.5)
    assert rows[ja.pk].score == pytest.approx(0.73)
    assert rows[ja.pk].rating_after == pytest.approx(1507.36)
    assert rows[jd.pk].rating_after == pytest.approx(1492.64)
    assert rows[jb.pk].ng_before == 0 and rows[jb.pk].year == 2026


def test_game_at_2330_on_31_december_local_belongs_to_that_year(
    django_capture_on_commit_callbacks, settings
):
    settings.TIME_ZONE = "America/Mexico_City"
    players = builders.players(f"Jugador {i:02d}" for i in range(4))
    t = builders.tournament(builders.RATED, name="Nochevieja", date=dt.date(2025, 12, 31))
    e = builders.entries(t, players)
    (table,) = builders.tables_of(builders.pair(t, 1, [(0, 1)], entries=e))
    late = dt.datetime(2025, 12, 31, 23, 30, tzinfo=MX)
    assert late.astimezone(dt.UTC).year == 2026
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(table, tantos_a=100, tantos_b=20, played_at=late)
    assert set(LedgerRow.objects.values_list("year", flat=True)) == {2025}


def test_ng_restarts_on_first_of_january_and_ratings_carry_over(django_capture_on_commit_callbacks):
    players = builders.players(f"Jugador {i:02d}" for i in range(4))
    t1 = builders.tournament(builders.RATED, name="Diciembre", date=dt.date(2025, 12, 20))
    e1 = builders.entries(t1, players)
    (t1_table,) = builders.tables_of(builders.pair(t1, 1, [(0, 1)], entries=e1))
    t2 = builders.tournament(builders.RATED, name="Enero", date=dt.date(2026, 1, 10))
    e2 = builders.entries(t2, players)
    (t2_table,) = builders.tables_of(builders.pair(t2, 1, [(0, 1)], entries=e2))
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(t1_table, tantos_a=100, tantos_b=0)
        builders.record(t2_table, tantos_a=100, tantos_b=50)
    first = LedgerRow.objects.filter(table=t1_table, player=players[0]).get()
    second = LedgerRow.objects.filter(table=t2_table, player=players[0]).get()
    assert (first.year, first.ng_before) == (2025, 0)
    assert (second.year, second.ng_before) == (2026, 0)
    assert second.rating_before == first.rating_after


def test_correcting_an_early_game_changes_later_ratings_as_a_rebuild_would(
    django_capture_on_commit_callbacks,
):
    players = builders.players(f"Jugador {i:02d}" for i in range(8))
    t = builders.tournament(builders.RATED, name="Liga", date=dt.date(2026, 5, 2))
    e = builders.entries(t, players)
    r1 = builders.tables_of(builders.pair(t, 1, [(0, 1), (2, 3)], entries=e))
    r2 = builders.tables_of(builders.pair(t, 2, [(0, 2), (1, 3)], entries=e, anyway=True))
    with django_capture_on_commit_callbacks(execute=True):
        for table, (a, b) in zip(
            r1 + r2, [(100, 30), (70, 100), (100, 90), (100, 0)], strict=False
        ):
            builders.record(table, tantos_a=a, tantos_b=b)
    later_before = LedgerRow.objects.get(table=r2[0], player=players[0]).rating_after
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(
            r1[0], tantos_a=40, tantos_b=100
        )  # round 1, table 1 corrected: the other side won
    later_after = LedgerRow.objects.get(table=r2[0], player=players[0]).rating_after
    assert later_after < later_before
    assert LedgerRow.objects.count() == 16
    assert_equals_rebuild()


def test_deleting_a_result_removes_its_rows_and_replays_the_rest(
    django_capture_on_commit_callbacks,
):
    players = builders.players(f"Jugador {i:02d}" for i in range(4))
    t = builders.tournament(builders.RATED, name="Borrado", date=dt.date(2026, 6, 6))
    e = builders.entries(t, players)
    (g1,) = builders.tables_of(builders.pair(t, 1, [(0, 1)], entries=e))
    (g2,) = builders.tables_of(builders.pair(t, 2, [(1, 0)], entries=e, anyway=True))
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(g1, tantos_a=100, tantos_b=10)
        builders.record(g2, tantos_a=100, tantos_b=10)
    with django_capture_on_commit_callbacks(execute=True):
        services.delete_result(acting_user=None, table=g1, version=None)
    assert set(LedgerRow.objects.values_list("table_id", flat=True)) == {g2.pk}
    assert LedgerRow.objects.get(table=g2, player=players[0]).rating_before == 1500.0
    assert_equals_rebuild()


def test_unrated_tournaments_forfeits_and_byes_are_not_rated(django_capture_on_commit_callbacks):
    players = builders.players(f"Jugador {i:02d}" for i in range(4))
    rated = builders.tournament(builders.RATED, name="Rated", date=dt.date(2026, 7, 1))
    e = builders.entries(rated, players)
    (game,) = builders.tables_of(builders.pair(rated, 1, [(0, 1)], entries=e))
    unrated = builders.tournament(
        builders.RATED, name="Amistoso", date=dt.date(2026, 7, 2), rated=False
    )
    e = builders.entries(unrated, players[:4])
    (friendly,) = builders.tables_of(builders.pair(unrated, 1, [(0, 1)], entries=e))
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(game, tantos_a=100, tantos_b=60)
        builders.record(friendly, tantos_a=100, tantos_b=60)
    assert set(LedgerRow.objects.values_list("table_id", flat=True)) == {game.pk}
    # A forfeit is not rated unless the tournament says so.
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(game, tantos_a=None, tantos_b=None, forfeiting_side="B")
    assert LedgerRow.objects.count() == 0
    with django_capture_on_commit_callbacks(execute=True):
        services.update_tournament(acting_user=None, tournament=rated, forfeits_rated=True)
    assert LedgerRow.objects.count() == 4
    # Turning the rating off removes the tournament's rows.
    with django_capture_on_commit_callbacks(execute=True):
        services.update_tournament(acting_user=None, tournament=rated, rated=False)
    assert LedgerRow.objects.count() == 0


def test_deleting_a_player_with_games_is_refused(django_capture_on_commit_callbacks):
    players = builders.players(f"Jugador {i:02d}" for i in range(4))
    t = builders.tournament(builders.RATED, name="Protegido", date=dt.date(2026, 8, 1))
    e = builders.entries(t, players)
    (table,) = builders.tables_of(builders.pair(t, 1, [(0, 1)], entries=e))
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(table, tantos_a=100, tantos_b=0)
    with pytest.raises(DomainError) as exc:
        services.delete_player(acting_user=None, player=players[0])
    assert exc.value.code == "player_has_results"
    assert Player.objects.filter(pk=players[0].pk).exists()


def _season(n_games, players):
    """A rated mano a mano season of ``n_games`` games (the ledger replays once, at commit)."""
    t = builders.tournament(
        builders.RATED, name=f"Temporada {n_games}", date=dt.date(2026, 2, 1), mode="single"
    )
    entries = [
        services.register_entry(acting_user=None, tournament=t, players=[p]) for p in players
    ]
    for number in range(1, n_games // 2 + 1):
        rnd = Round.objects.create(tournament=t, number=number)
        for i in range(2):
            table = Table.objects.create(round=rnd, number=i + 1)
            a, b = entries[2 * i], entries[2 * i + 1]
            table.seats.create(round=rnd, entry=a, side="A", position=1)
            table.seats.create(round=rnd, entry=b, side="B", position=1)
            Result.objects.create(
                table=table,
                tantos_a=100,
                tantos_b=(number * 7 + i) % 100,
                played_at=dt.datetime(2026, 2, 1, 10, tzinfo=dt.UTC) + dt.timedelta(minutes=number),
            )
    return t, entries


def _queries_for_one_more_result(django_capture_on_commit_callbacks, n_games):
    players = builders.players(f"S{n_games} {i:02d}" for i in range(4))
    with django_capture_on_commit_callbacks(execute=True):
        t, entries = _season(n_games, players)
    assert LedgerRow.objects.filter(tournament=t).count() == 2 * n_games
    with django_capture_on_commit_callbacks(execute=True):  # the pairing, committed
        rnd = Round.objects.create(tournament=t, number=n_games)
        table = Table.objects.create(round=rnd, number=1)
        table.seats.create(round=rnd, entry=entries[0], side="A", position=1)
        table.seats.create(round=rnd, entry=entries[3], side="B", position=1)
    with CaptureQueriesContext(connection) as ctx, django_capture_on_commit_callbacks(execute=True):
        # The season's last day (its games end at 18:20 UTC), within the tournament's days.
        builders.record(
            table, tantos_a=100, tantos_b=55, played_at=dt.datetime(2026, 2, 1, 23, tzinfo=dt.UTC)
        )
    assert LedgerRow.objects.filter(table=table).count() == 2
    return len(ctx.captured_queries)


def test_one_result_at_the_end_of_a_season_costs_the_same_queries_with_10_or_1000_games(
    django_capture_on_commit_callbacks,
):
    small = _queries_for_one_more_result(django_capture_on_commit_callbacks, 10)
    large = _queries_for_one_more_result(django_capture_on_commit_callbacks, 1000)
    assert small == large


# --- property: replay after any change equals a rebuild from nothing ---------------------------

WHEN = [
    dt.datetime(2025, 12, 30, 18, 0, tzinfo=MX),
    dt.datetime(2025, 12, 31, 23, 30, tzinfo=MX),  # still 2025 locally, 2026 in UTC
    dt.datetime(2026, 1, 1, 0, 30, tzinfo=MX),
    dt.datetime(2026, 1, 2, 12, 0, tzinfo=MX),
    None,  # the default time from the tournament date and round
]

operations = st.lists(
    st.one_of(
        st.tuples(
            st.just("set"),
            st.integers(0, 7),
            st.integers(100, 130),
            st.integers(0, 99),
            st.booleans(),
            st.sampled_from(range(len(WHEN))),
        ),
        st.tuples(st.just("delete"), st.integers(0, 7)),
    ),
    min_size=1,
    max_size=12,
)


def _world():
    """Two rated tournaments across the year boundary sharing players: 8 tables in all, both
    played from 30 December to 2 January so that every time of ``WHEN`` lies in their days."""
    existing = list(
        Table.objects.filter(round__tournament__name__startswith="Prop").order_by(
            "round__tournament__date", "round__number", "number"
        )
    )
    if existing:
        return existing
    players = builders.players(f"Prop {i:02d}" for i in range(8))
    days = {"date": dt.date(2025, 12, 30), "end_date": dt.date(2026, 1, 2)}
    t1 = builders.tournament(builders.RATED, name="Prop A", **days)
    t2 = builders.tournament(builders.RATED, name="Prop B", mode="single", **days)
    e = builders.entries(t1, players)
    tables = builders.tables_of(builders.pair(t1, 1, [(0, 1), (2, 3)], entries=e))
    tables += builders.tables_of(builders.pair(t1, 2, [(0, 2), (1, 3)], entries=e, anyway=True))
    e = builders.entries(t2, players[:4])
    for number, (a, b, c, d) in enumerate([(0, 1, 2, 3), (0, 2, 1, 3)], start=1):
        tables += builders.tables_of(
            builders.pair(t2, number, [(a, b), (c, d)], entries=e, anyway=True)
        )
    return tables


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=operations)
def test_ledger_equals_a_full_rebuild_after_every_insert_correction_and_deletion(
    django_capture_on_commit_callbacks, ops
):
    tables = _world()
    Result.objects.all().delete()
    ledger.rebuild()
    for op in ops:
        table = tables[op[1]]
        with django_capture_on_commit_callbacks(execute=True):
            if op[0] == "set":
                _, _, win, lose, a_wins, when = op
                a, b = (win, lose) if a_wins else (lose, win)
                builders.record(table, tantos_a=a, tantos_b=b, played_at=WHEN[when])
            elif Result.objects.filter(table=table).exists():
                services.delete_result(acting_user=None, table=table, version=None)
        before = ledger_snapshot()
        pairs_games = Result.objects.filter(table__round__tournament__mode="pairs").count()
        single_games = Result.objects.filter(table__round__tournament__mode="single").count()
        assert len(before) == 4 * pairs_games + 2 * single_games
        ledger.rebuild()
        assert ledger_snapshot() == before


def test_moving_a_tournament_date_moves_its_games_and_replays_from_the_earliest(
    django_capture_on_commit_callbacks,
):
    players = builders.players(f"Jugador {i:02d}" for i in range(4))
    early = builders.tournament(builders.RATED, name="Temprano", date=dt.date(2026, 3, 1))
    e = builders.entries(early, players)
    (g_early,) = builders.tables_of(builders.pair(early, 1, [(0, 1)], entries=e))
    late = builders.tournament(builders.RATED, name="Tardío", date=dt.date(2026, 4, 1))
    e = builders.entries(late, players)
    (g_late,) = builders.tables_of(builders.pair(late, 1, [(1, 0)], entries=e))
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(g_early, tantos_a=100, tantos_b=10)
        builders.record(g_late, tantos_a=100, tantos_b=90)
    assert LedgerRow.objects.get(table=g_late, player=players[0]).rating_before != 1500.0
    # The late tournament moves before the early one: its game is now the player's first.
    with django_capture_on_commit_callbacks(execute=True):
        services.update_tournament(acting_user=None, tournament=late, date=dt.date(2026, 2, 1))
    assert Result.objects.get(table=g_late).played_at.date() == dt.date(2026, 2, 1)
    assert LedgerRow.objects.get(table=g_late, player=players[0]).rating_before == 1500.0
    assert LedgerRow.objects.get(table=g_early, player=players[0]).ng_before == 1
    assert_equals_rebuild()
