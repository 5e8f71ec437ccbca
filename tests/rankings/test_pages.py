"""Ranking pages, exports, the rebuild command and the admin (issue: pages, export, admin)."""

import csv
import datetime as dt
import io
import math
import re

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from rankings import ledger
from rankings.models import LedgerRow
from tournaments import services
from tournaments.models import Player

pytestmark = pytest.mark.django_db

UTC = dt.UTC


@pytest.fixture
def season(django_capture_on_commit_callbacks):
    """Four players over two years: 2025 one game, 2026 two games."""
    names = ["Amparo Quiroga", "Bruno Saldívar", "Cira Talamantes", "Delfino Urrutia"]
    players = [services.create_player(acting_user=None, full_name=n) for n in names]
    with django_capture_on_commit_callbacks(execute=True):
        for year, games in ((2025, [(100, 40)]), (2026, [(100, 0), (60, 100)])):
            t = services.create_tournament(
                acting_user=None,
                name=f"Liga {year}",
                date=dt.date(year, 6, 1),
                system="domino",
                mode="single",
                target=100,
                status="running",
            )
            entries = [
                services.register_entry(acting_user=None, tournament=t, players=[p])
                for p in players
            ]
            for number, (a, b) in enumerate(games, start=1):
                rnd = services.set_pairings(
                    acting_user=None,
                    tournament=t,
                    round_number=number,
                    tables=[([entries[0]], [entries[1]]), ([entries[2]], [entries[3]])],
                )
                for table in rnd.tables.order_by("number"):
                    services.record_result(
                        acting_user=None, table=table, tantos_a=a, tantos_b=b, version=None
                    )
    return players


def test_ranking_page_lists_the_year_in_rating_order(client, season):
    r = client.get(reverse("rankings:ranking") + "?year=2026")
    assert r.status_code == 200
    body = r.content.decode()
    names = re.findall(r'class="name"><a href="/ranking/jugador/\d+/">([^<]+)</a>', body)
    # Game 1 (100–0): A and C win S=1; game 2 (60–100): B and D win by 40, S=0.73.
    assert len(names) == 4
    ratings = {
        ln.name: ln.rating
        for ln in __import__("rankings.queries", fromlist=["x"]).year_ranking(2026)
    }
    assert names == sorted(ratings, key=lambda n: (-ratings[n], n))
    assert "Ranking 2026" in body


def test_ranking_only_lists_players_with_games_that_year_and_searches_by_name(client, season):
    services.create_player(acting_user=None, full_name="Eulalia Sin Partidas")
    r = client.get(reverse("rankings:ranking") + "?year=2025&q=bruno")
    body = r.content.decode()
    assert "Bruno Saldívar" in body and "Amparo Quiroga" not in body
    assert "Eulalia" not in client.get(reverse("rankings:ranking") + "?year=2025").content.decode()


def test_ranking_is_paged_and_the_pages_keep_year_and_search(client, season, monkeypatch):
    from rankings import views

    monkeypatch.setattr(views, "RANKING_PAGE_SIZE", 3)

    def names_of(body):
        return re.findall(r'class="name"><a href="/ranking/jugador/\d+/">([^<]+)</a>', body)  # noqa: E731

    everyone = [ln.name for ln in __import__("rankings.queries", fromlist=["x"]).year_ranking(2026)]
    first = client.get(reverse("rankings:ranking") + "?year=2026").content.decode()
    assert names_of(first) == everyone[:3]
    assert "Página 1 de 2" in first and 'rel="next" href="?year=2026&amp;page=2"' in first
    assert 'rel="prev"' not in first
    second = client.get(reverse("rankings:ranking") + "?year=2026&page=2").content.decode()
    assert names_of(second) == everyone[3:] and 'rel="prev" href="?year=2026&amp;page=1"' in second
    # A page past the end or not a number shows the last or the first page, never an error.
    assert (
        names_of(client.get(reverse("rankings:ranking") + "?year=2026&page=99").content.decode())
        == everyone[3:]
    )
    assert (
        names_of(client.get(reverse("rankings:ranking") + "?year=2026&page=x").content.decode())
        == everyone[:3]
    )
    # A search is paged the same way (all four names have an "a"), and its pages keep it.
    found = client.get(reverse("rankings:ranking") + "?year=2026&q=a").content.decode()
    assert "Página 1 de 2" in found and 'href="?year=2026&amp;q=a&amp;page=2"' in found


def test_ranking_figures_rating_games_change(season):
    from rankings.queries import year_ranking

    lines = {ln.name: ln for ln in year_ranking(2026)}
    amparo = lines["Amparo Quiroga"]
    rows = list(LedgerRow.objects.filter(player=season[0], year=2026).order_by("order_key"))
    assert amparo.games == 2
    assert amparo.rating == rows[-1].rating_after
    assert amparo.change == pytest.approx(rows[-1].rating_after - rows[0].rating_before)


def test_player_page_shows_one_seasons_chart_and_ledger(client, season):
    r = client.get(reverse("rankings:player", args=[season[0].pk]))
    assert r.status_code == 200
    body = r.content.decode()
    # The newest season by default: its start rating and its two games, no year boundary.
    assert "<svg" in body and body.count("<circle") == 3
    assert 'class="year"' not in body
    assert "Bruno Saldívar" in body  # opponent
    assert "Liga 2026" in body and "Liga 2025" not in body
    body = client.get(reverse("rankings:player", args=[season[0].pk]), {"year": 2025})
    body = body.content.decode()
    assert body.count("<circle") == 2 and "Liga 2025" in body and "Liga 2026" not in body
    # The 2025 game between two new players: expected_score 0.5, k_factor 32 (shown "es").
    assert '<td class="num minor">0,500</td>' in body and '<td class="num minor">32,00</td>' in body


@pytest.mark.parametrize("language", ["es", "en", "ru"])
def test_chart_coordinates_use_a_decimal_point_in_every_language(client, season, language):
    body = client.get(
        reverse("rankings:player", args=[season[0].pk]), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    svg = re.search(r"<svg.*?</svg>", body, re.S).group(0)
    values = re.findall(r'\b(?:x1|x2|y1|y2|x|y|cx|cy)="([^"]*)"', svg)
    assert len(values) >= 18  # one season (the newest: 2026): its start and two games
    assert all(re.fullmatch(r"-?\d+(\.\d+)?", v) for v in values), [v for v in values if "," in v][
        :5
    ]
    points = re.search(r'<polyline points="([^"]+)"', svg).group(1)
    assert re.fullmatch(r"(-?\d+(\.\d+)?,-?\d+(\.\d+)? ?)+", points.strip()), points[:80]
    # Outside the chart the numbers follow the language: "1511,0" in es and ru, "1511.0" in en.
    separator = "." if language == "en" else ","
    rating = re.search(r"<p class=\"big\">[^<]*<strong>([^<]+)</strong>", body).group(1)
    assert re.fullmatch(r"\d{4}" + re.escape(separator) + r"\d", rating), rating
    ratings = re.findall(r'<td class="num strong">([^<]+)</td>', body)
    assert ratings and all(
        re.fullmatch(r"\d{4}" + re.escape(separator) + r"\d", r) for r in ratings
    ), ratings


def test_player_page_query_count_does_not_grow_with_games(
    client, season, django_capture_on_commit_callbacks
):
    def count():
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(reverse("rankings:player", args=[season[0].pk])).status_code == 200
        return len(ctx.captured_queries)

    small = count()
    t = services.create_tournament(
        acting_user=None,
        name="Extra",
        date=dt.date(2026, 9, 1),
        system="domino",
        mode="single",
        target=100,
        status="running",
    )
    entries = [services.register_entry(acting_user=None, tournament=t, players=[p]) for p in season]
    with django_capture_on_commit_callbacks(execute=True):
        for number in range(1, 6):
            rnd = services.set_pairings(
                acting_user=None,
                tournament=t,
                round_number=number,
                tables=[([entries[0]], [entries[1]])],
            )
            services.record_result(
                acting_user=None,
                table=rnd.tables.get(),
                tantos_a=100,
                tantos_b=number,
                version=None,
            )
    assert count() == small


def test_calculator_gives_expected_and_change_with_htmx(client, season):
    a, b = season[0], season[1]
    r = client.get(
        reverse("rankings:calculator"),
        {"a1": a.pk, "b1": b.pk, "tantos_a": "100", "tantos_b": "50"},
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 200
    body = r.content.decode()
    assert 'id="calculator-result"' in body and "<html" not in body
    assert "Amparo Quiroga" in body and "Bruno Saldívar" in body
    # Rating, k_factor, expected_score of each side (1515.6 against 1484.4).
    assert re.search(
        r'Amparo Quiroga</th><td class="num">1515,6</td><td class="num">32,00</td>\s*'
        r'<td class="num">0,545</td>',
        body,
    ), body


def test_calculator_refuses_a_tie_and_a_player_twice(client, season):
    a, b = season[0], season[1]
    r = client.get(
        reverse("rankings:calculator"), {"a1": a.pk, "b1": b.pk, "tantos_a": "80", "tantos_b": "80"}
    )
    assert r.status_code == 400 and "Un empate no es un resultado" in r.content.decode()
    r = client.get(
        reverse("rankings:calculator"),
        {"a1": a.pk, "b1": a.pk, "tantos_a": "100", "tantos_b": "80"},
    )
    assert r.status_code == 400 and "dos veces" in r.content.decode()


def test_calculator_explains_an_out_of_range_score_in_the_htmx_answer(client, season):
    a, b = season[0], season[1]
    r = client.get(
        reverse("rankings:calculator"),
        {"a1": a.pk, "b1": b.pk, "tantos_a": "-5", "tantos_b": "100"},
        HTTP_HX_REQUEST="true",
    )
    body = r.content.decode()
    assert r.status_code == 400 and "<html" not in body
    assert re.search(r'<div class="error" role="alert"><p>Tantos A: [^<]+</p></div>', body), body


def test_export_ranking_prints_full_precision_csv(season):
    out = io.StringIO()
    call_command("export_ranking", "--year", "2026", "--full-precision", stdout=out)
    assert out.getvalue().startswith("\ufeff")  # the UTF-8 byte-order mark of every CSV
    rows = list(csv.reader(io.StringIO(out.getvalue().removeprefix("\ufeff"))))
    assert rows[0] == ["position", "player", "rating", "games", "change"]
    assert len(rows) == 5
    from rankings.queries import year_ranking

    first = year_ranking(2026)[0]
    assert rows[1] == ["1", first.name, repr(first.rating), "2", repr(first.change)]


def test_export_ledger_filters_by_year_and_player(season):
    out = io.StringIO()
    call_command(
        "export_ledger",
        "--year",
        "2025",
        "--player",
        "Amparo Quiroga",
        "--full-precision",
        stdout=out,
    )
    rows = list(csv.reader(io.StringIO(out.getvalue().removeprefix("\ufeff"))))
    assert rows[0] == [
        "date",
        "tournament",
        "round",
        "table",
        "player",
        "ng_before",
        "rating_before",
        "team_rating",
        "opponent_rating",
        "expected_score",
        "score",
        "k_factor",
        "rating_after",
    ]
    assert len(rows) == 2
    row = LedgerRow.objects.get(player=season[0], year=2025)
    assert rows[1][1:5] == ["Liga 2025", "1", "1", "Amparo Quiroga"]
    assert rows[1][-1] == repr(row.rating_after)


def test_rebuild_ledger_reports_rows_changed(season):
    out = io.StringIO()
    call_command("rebuild_ledger", stdout=out)
    assert "Filas escritas: 12; filas cambiadas: 0;" in out.getvalue()
    LedgerRow.objects.filter(player=season[0]).update(rating_after=1.0)
    out = io.StringIO()
    call_command("rebuild_ledger", stdout=out)
    assert "Filas escritas: 12; filas cambiadas: 3;" in out.getvalue()


def snapshot_table_exists() -> bool:
    """Whether the command's temporary snapshot table is still there on this connection."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT to_regclass('pg_temp.rebuild_ledger_before') IS NOT NULL")
            return cursor.fetchone()[0]
        cursor.execute(
            "SELECT COUNT(*) FROM sqlite_temp_master WHERE name = 'rebuild_ledger_before'"
        )
        return cursor.fetchone()[0] == 1


def changed_rows_reported() -> str:
    out = io.StringIO()
    call_command("rebuild_ledger", stdout=out)
    return re.match(r"Filas escritas: (\d+); filas cambiadas: (\d+);", out.getvalue()).groups()


def test_rebuild_ledger_compares_the_columns_of_as_tuple(season):
    from rankings.management.commands.rebuild_ledger import COMPARED

    for row in LedgerRow.objects.all():
        assert tuple(getattr(row, name) for name in COMPARED) == row.as_tuple()


def test_rebuild_ledger_counts_each_kind_of_changed_row_exactly(season):
    """The rebuild rewrites every row (new ids): each step reads Amparo's rows afresh."""
    amparo, bruno, cira = season[:3]

    def amparo_rows():
        return list(LedgerRow.objects.filter(player=amparo).order_by("order_key"))

    assert changed_rows_reported() == ("12", "0")
    # One float one step (one unit in the last place) away: compared exactly, it changed.
    first = amparo_rows()[0]
    LedgerRow.objects.filter(pk=first.pk).update(
        rating_after=math.nextafter(first.rating_after, math.inf)
    )
    assert changed_rows_reported() == ("12", "1")
    # A text column of one row and an integer column of another.
    second = amparo_rows()[1]
    LedgerRow.objects.filter(pk=second.pk).update(order_key=second.order_key + "x")
    LedgerRow.objects.filter(player=bruno, table_id=second.table_id).update(ng_before=7)
    assert changed_rows_reported() == ("12", "2")
    # A row missing before the rebuild (it comes back) and a row too many (it goes).
    rows = amparo_rows()
    rows[2].delete()
    stray = rows[0]
    stray.pk, stray.player = None, cira  # Cira played the other table of that round
    stray.save()
    assert LedgerRow.objects.count() == 12
    assert changed_rows_reported() == ("12", "2")
    # All of it at once (one row with two columns changed counts once), then the same ledger.
    LedgerRow.objects.filter(pk=amparo_rows()[0].pk).update(tantos_own=99, k_factor=0.0)
    LedgerRow.objects.filter(player=bruno).delete()
    stray.pk = None
    stray.save()
    assert LedgerRow.objects.count() == 10
    assert changed_rows_reported() == ("12", "5")
    assert changed_rows_reported() == ("12", "0")
    assert not snapshot_table_exists()


def test_rebuild_ledger_that_fails_leaves_no_snapshot_behind(season, monkeypatch):
    from rankings.management import LedgerNotCurrent

    monkeypatch.setattr(ledger, "compute_rows", lambda *a, **k: 1 / 0)
    with pytest.raises(LedgerNotCurrent):
        call_command("rebuild_ledger", stdout=io.StringIO(), stderr=io.StringIO())
    assert not snapshot_table_exists()
    monkeypatch.undo()
    assert changed_rows_reported() == ("12", "0")


def test_ledger_rows_are_read_only_in_admin_with_a_rebuild_action(client, season):
    admin = User.objects.create_superuser("jefa", password="x-1234567")
    client.force_login(admin)
    row = LedgerRow.objects.first()
    r = client.get(reverse("admin:rankings_ledgerrow_changelist"))
    assert r.status_code == 200 and "rebuild_ledger" in r.content.decode()
    assert client.get(reverse("admin:rankings_ledgerrow_add")).status_code == 403
    r = client.post(
        reverse("admin:rankings_ledgerrow_change", args=[row.pk]), {"rating_after": "9"}
    )
    assert r.status_code == 403
    LedgerRow.objects.update(rating_after=0.0)
    r = client.post(
        reverse("admin:rankings_ledgerrow_changelist"),
        {"action": "rebuild_ledger", "_selected_action": [row.pk]},
    )
    assert r.status_code == 302
    assert not LedgerRow.objects.filter(rating_after=0.0).exists()


def test_csv_links_serve_the_same_files(client, season):
    r = client.get(reverse("rankings:ranking_csv", args=[2026]))
    assert r["Content-Type"].startswith("text/csv")
    out = io.StringIO()
    call_command("export_ranking", "--year", "2026", stdout=out)
    assert r.content.decode() == out.getvalue()
    r = client.get(reverse("rankings:player_csv", args=[season[0].pk]))
    assert r.content.decode().count("\n") == 4


def test_full_rebuild_equals_the_incrementally_kept_ledger(season):
    before = [row.as_tuple() for row in LedgerRow.objects.order_by("order_key", "player_id")]
    ledger.rebuild()
    assert [
        row.as_tuple() for row in LedgerRow.objects.order_by("order_key", "player_id")
    ] == before
    assert Player.objects.count() == 4


@pytest.mark.django_db
def test_the_ranking_search_ignores_case_accents_and_spacing_too(client):
    t = services.create_tournament(
        acting_user=None,
        name="Copa Búsqueda",
        date=dt.date(2026, 5, 9),
        mode="single",
        target=100,
        status="running",
    )
    entries = [
        services.register_entry(
            acting_user=None,
            tournament=t,
            players=[services.create_player(acting_user=None, full_name=name)],
        )
        for name in ("Ñoño Müller", "Ana Ruiz")
    ]
    rnd = services.set_pairings(
        acting_user=None, tournament=t, round_number=1, tables=[([entries[0]], [entries[1]])]
    )
    services.record_result(
        acting_user=None, table=rnd.tables.get(), version=None, tantos_a=100, tantos_b=40
    )
    ledger.rebuild()
    page = client.get("/ranking/", {"year": "2026", "q": "nono  MULLER"}).content.decode()
    assert "Ñoño Müller" in page and "Ana Ruiz" not in page


@pytest.mark.parametrize("command", ["export_ranking", "export_ledger"])
def test_export_commands_say_on_stderr_when_a_replay_waits(season, command):
    from rankings.models import ReplayRequest

    out, err = io.StringIO(), io.StringIO()
    call_command(command, "--year", "2026", stdout=out, stderr=err)
    assert err.getvalue() == ""
    clean = out.getvalue()
    request = ReplayRequest.objects.create(from_key="")
    ReplayRequest.objects.filter(pk=request.pk).update(
        created_at=dt.datetime(2026, 6, 1, 18, 30, 5, tzinfo=dt.UTC)
    )
    out, err = io.StringIO(), io.StringIO()
    call_command(command, "--year", "2026", stdout=out, stderr=err)
    assert out.getvalue() == clean  # the CSV stays clean
    assert err.getvalue() == (
        "Aviso: el ranking se está actualizando (1 cambio(s) esperando desde 01/06/2026 "
        "12:30:05; lo hace el proceso de fondo, manage.py db_worker): estas cifras aún no "
        "los incluyen.\n"
    )
