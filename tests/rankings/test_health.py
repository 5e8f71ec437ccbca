"""Ranking health: a replay that fails or meets a bad row is never silent (rankings.health,
SCORING.md §2 "Health"): the status says so, directors see the cause, the public pages show a
notice instead of figures, and ``check_ledger``/``rebuild_ledger`` exit 1."""

import datetime as dt
import io
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from rankings import health, ledger
from rankings.management import LedgerNotCurrent
from rankings.models import LedgerRow, LedgerStatus
from tests import builders
from tests.helpers import ledger_snapshot
from tournaments import services
from tournaments.models import Result, Seat

pytestmark = pytest.mark.django_db

UTC = dt.UTC
NAMES = ["Anselmo Pradera", "Berta Quintanar", "Ciro Valdelomar", "Dalia Urquiza"]

# Mano a mano, everyone 1500 and NG 0 at first (K 32). Round 1: A–B 100–40, C–D 100–0;
# round 2: A–C 100–70, B–D 40–100.
FULL = {
    "Anselmo Pradera": 1516.4252335033136,
    "Berta Quintanar": 1479.2547664966864,
    "Ciro Valdelomar": 1509.8147664966864,
    "Dalia Urquiza": 1494.5052335033135,
}
# The same season without round 1's C–D (a bad row left out): C and D meet round 2 at 1500.
WITHOUT_C_D = {
    "Anselmo Pradera": 1515.6885670704958,
    "Berta Quintanar": 1479.9914329295043,
    "Ciro Valdelomar": 1494.5514329295042,
    "Dalia Urquiza": 1509.768567070496,
}
BAD_DATE_MESSAGE = (
    "Torneo «Liga Primavera», ronda 1, mesa 2: la partida tiene una fecha imposible "
    "(9999-12-31 06:00), fuera de los años 1900 a 2999; quedó fuera del ranking. "
    "Corrige su fecha."
)
NOTICE = "El ranking se está recalculando y necesita atención."


@pytest.fixture
def league(django_capture_on_commit_callbacks):
    players = [services.create_player(acting_user=None, full_name=n) for n in NAMES]
    t = services.create_tournament(
        acting_user=None,
        name="Liga Primavera",
        date=dt.date(2026, 3, 7),
        system="domino",
        mode="single",
        target=100,
        status="running",
    )
    e = [services.register_entry(acting_user=None, tournament=t, players=[p]) for p in players]
    tables = []
    with django_capture_on_commit_callbacks(execute=True):
        for number, pairs, scores in (
            (1, [(0, 1), (2, 3)], [(100, 40), (100, 0)]),
            (2, [(0, 2), (1, 3)], [(100, 70), (40, 100)]),
        ):
            rnd = services.set_pairings(
                acting_user=None,
                tournament=t,
                round_number=number,
                tables=[([e[a]], [e[b]]) for a, b in pairs],
            )
            for table, (a, b) in zip(rnd.tables.order_by("number"), scores, strict=True):
                builders.record(table, tantos_a=a, tantos_b=b)
                tables.append(table)
    return SimpleNamespace(t=t, players=players, tables=tables)


def ratings() -> dict[str, float]:
    """Each player's last rating in the ledger, by name."""
    out = {}
    for name, rating in LedgerRow.objects.order_by("order_key").values_list(
        "player__full_name", "rating_after"
    ):
        out[name] = rating
    return out


def key_of(table) -> str:
    result = Result.objects.get(table=table)
    return ledger.order_key(result.played_at, table.round.number, table.number, table.pk)


def break_date(table, when=dt.datetime(9999, 12, 31, 12, 0, tzinfo=UTC)):
    """Write an impossible time on the table's result, past every service (a bulk update)."""
    Result.objects.filter(table=table).update(played_at=when)


def run(command, *args):
    out = io.StringIO()
    call_command(command, *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_the_season_is_current_with_the_worked_ratings(league):
    assert health.is_current() and health.attention() is None
    assert ratings() == pytest.approx(FULL, abs=1e-9)
    assert LedgerRow.objects.count() == 8


def test_a_game_with_an_impossible_date_is_left_out_named_and_the_ranking_needs_attention(
    league, django_capture_on_commit_callbacks
):
    t11, t12, t21, t22 = league.tables
    old_key = key_of(t12)
    break_date(t12)
    # Any later change replays the ledger; it meets the bad row, leaves it out, goes on.
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(t22, tantos_a=40, tantos_b=100)
    assert not LedgerRow.objects.filter(table=t12).exists()
    assert ratings() == pytest.approx(WITHOUT_C_D, abs=1e-9)
    status = LedgerStatus.objects.get()
    assert status.state == "attention" and status.since is not None
    # The game's old rows came before the replay's key: it went back to the first of them.
    assert status.from_key == old_key
    assert status.problems == [
        {
            "code": "ledger_bad_date",
            "params": {
                "tournament": "Liga Primavera",
                "round": 1,
                "table": 2,
                "played_at": "9999-12-31 06:00",
                "first": 1900,
                "last": 2999,
            },
            "table_id": t12.pk,
        }
    ]
    assert status.causes() == [BAD_DATE_MESSAGE]
    # What is stored is what a rebuild writes (the rebuild leaves the same game out).
    before = ledger_snapshot()
    report = ledger.rebuild()
    assert ledger_snapshot() == before
    assert [p["table_id"] for p in report.skipped] == [t12.pk]
    assert not health.is_current()


@pytest.mark.parametrize(
    "breakage, message",
    [
        (
            "year_one",
            "Torneo «Liga Primavera», ronda 1, mesa 2: la partida tiene una fecha imposible "
            "(0001-01-01 00:00), fuera de los años 1900 a 2999; quedó fuera del ranking. "
            "Corrige su fecha.",
        ),
        (
            "one_side",
            "Torneo «Liga Primavera», ronda 1, mesa 2: la mesa tiene resultado, pero sus lados "
            "no tienen 1 o 2 jugadores cada uno (2 contra 0); quedó fuera del ranking.",
        ),
        (
            "player_twice",
            "Torneo «Liga Primavera», ronda 1, mesa 2: un mismo jugador está sentado dos veces "
            "en la partida; quedó fuera del ranking.",
        ),
    ],
)
def test_every_kind_of_bad_row_is_left_out_and_named(league, breakage, message):
    t12 = league.tables[1]
    if breakage == "year_one":  # in Mexico City this instant is in year 0: no local date
        break_date(t12, dt.datetime(1, 1, 1, 0, 0, tzinfo=UTC))
    elif breakage == "one_side":
        Seat.objects.filter(table=t12, side="B").update(side="A", position=2)
    else:  # side B's seat taken by an entry of side A's player (from another tournament)
        ciro = Seat.objects.get(table=t12, side="A").entry.player1
        other = services.create_tournament(
            acting_user=None, name="Otra", date=dt.date(2026, 4, 1), system="domino", mode="single"
        )
        twin = services.register_entry(acting_user=None, tournament=other, players=[ciro])
        Seat.objects.filter(table=t12, side="B").update(entry=twin)
    report = ledger.rebuild()
    assert report.written == 6
    assert [p["table_id"] for p in report.skipped] == [t12.pk]
    assert ratings() == pytest.approx(WITHOUT_C_D, abs=1e-9)
    assert health.attention().causes() == [message]


def test_a_failing_replay_is_recorded_in_its_own_transaction_and_the_next_replay_repairs_it(
    league, django_capture_on_commit_callbacks, monkeypatch
):
    t22 = league.tables[3]
    before = ledger_snapshot()

    def boom(*args, **kwargs):
        raise RuntimeError("disco lleno")

    monkeypatch.setattr(ledger, "compute_rows", boom)
    with django_capture_on_commit_callbacks(execute=True):
        # a correction: B–D was 30–100; its replay fails
        builders.record(t22, tantos_a=30, tantos_b=100)
    # The replay rolled back (the old figures stand), but the failure was kept.
    assert ledger_snapshot() == before
    status = LedgerStatus.objects.get()
    assert status.state == "attention"
    assert status.from_key == key_of(t22)
    assert status.problems == [
        {"code": "ledger_replay_failed", "params": {"error": "RuntimeError: disco lleno"}}
    ]
    assert status.causes()[0].startswith("El recálculo del ranking falló (RuntimeError: disco")
    monkeypatch.undo()
    # A replay asked for a later game starts where the failure did, and makes it current.
    report = ledger.replay_from("29990101000000000000-0001-00001-000000000001")
    assert report.from_key == key_of(t22)
    assert health.is_current()
    assert LedgerStatus.objects.get().problems == []
    current = ratings()
    assert current["Berta Quintanar"] == pytest.approx(1477.8147664966864, abs=1e-9)
    assert current["Dalia Urquiza"] == pytest.approx(1495.9452335033136, abs=1e-9)
    snap = ledger_snapshot()
    ledger.rebuild()
    assert ledger_snapshot() == snap


def test_a_failure_before_the_replay_begins_needs_a_replay_from_the_first_game(
    league, django_capture_on_commit_callbacks, monkeypatch
):
    def boom(table_ids):
        raise RuntimeError("sin conexión")

    monkeypatch.setattr(ledger, "earliest_key_for_tables", boom)
    with django_capture_on_commit_callbacks(execute=True):
        builders.record(league.tables[3], tantos_a=30, tantos_b=100)
    status = LedgerStatus.objects.get()
    assert (status.state, status.from_key) == ("attention", "")
    assert status.problems[0]["params"] == {"error": "RuntimeError: sin conexión"}
    monkeypatch.undo()
    report = ledger.replay_from(key_of(league.tables[2]))
    assert report.from_key is None and report.written == 8
    assert health.is_current()


def test_a_second_failure_keeps_the_first_time_and_the_earliest_key(league, monkeypatch):
    monkeypatch.setattr(ledger, "compute_rows", lambda *a, **k: 1 / 0)
    with pytest.raises(ledger.ReplayFailed):
        ledger.replay_from(key_of(league.tables[3]))
    first = LedgerStatus.objects.get()
    with pytest.raises(ledger.ReplayFailed):
        ledger.replay_from(key_of(league.tables[2]))
    second = LedgerStatus.objects.get()
    assert second.since == first.since
    assert second.from_key == key_of(league.tables[2])  # the earlier of the two
    assert len(second.problems) == 1  # the same cause is listed once


def test_directors_see_the_cause_in_a_banner_on_their_pages_and_in_the_admin(
    league, client, director
):
    break_date(league.tables[1])
    ledger.rebuild()
    client.force_login(director)
    body = client.get(reverse("manage:home")).content.decode()
    assert 'id="ledger-banner"' in body
    assert "El ranking necesita atención" in body and BAD_DATE_MESSAGE in body
    admin = User.objects.create_superuser("jefa-de-sala", password="x-1234567")
    client.force_login(admin)
    body = client.get(reverse("admin:index")).content.decode()
    assert 'id="ledger-banner"' in body and BAD_DATE_MESSAGE in body
    # Nobody else sees the causes: not an anonymous reader, not a logged-in player.
    client.logout()
    assert "ledger-banner" not in client.get(reverse("rankings:ranking")).content.decode()
    User.objects.create_user("socio-raso", password="x-1234567")
    client.login(username="socio-raso", password="x-1234567")
    assert "ledger-banner" not in client.get(reverse("rankings:ranking")).content.decode()


def test_no_banner_while_the_ranking_is_current(league, director_client):
    assert "ledger-banner" not in director_client.get(reverse("manage:home")).content.decode()


def test_public_pages_show_a_notice_instead_of_the_figures_and_the_csvs_answer_503(league, client):
    anselmo = league.players[0]
    break_date(league.tables[1])
    ledger.rebuild()
    ranking = client.get(reverse("rankings:ranking") + "?year=2026").content.decode()
    partial = client.get(
        reverse("rankings:ranking") + "?year=2026", HTTP_HX_REQUEST="true"
    ).content.decode()
    home = client.get(reverse("public:home")).content.decode()
    player = client.get(reverse("rankings:player", args=[anselmo.pk])).content.decode()
    for body in (ranking, partial, home, player):
        assert NOTICE in body
        assert "Anselmo Pradera</a>" not in body and "1515,7" not in body
    assert 'id="ranking"' in partial and "<html" not in partial
    assert "Liga Primavera" not in player and "<svg" not in player
    calculator = client.get(reverse("rankings:calculator")).content.decode()
    assert NOTICE in calculator
    r = client.get(
        reverse("rankings:calculator"),
        {"a1": anselmo.pk, "b1": league.players[1].pk, "tantos_a": "100", "tantos_b": "50"},
    )
    assert r.status_code == 200
    assert NOTICE in r.content.decode() and '<td class="num">' not in r.content.decode()
    for url in (
        reverse("rankings:ranking_csv", args=[2026]),
        reverse("rankings:player_csv", args=[anselmo.pk]),
    ):
        r = client.get(url)
        assert r.status_code == 503, url
        assert r["Content-Type"] == "text/plain; charset=utf-8" and r["Retry-After"] == "300"
        assert r.content.decode() == (
            "El ranking se está recalculando y necesita atención: sus cifras no están al día. "
            "Vuelve a intentarlo más tarde.\n"
        )


def test_after_fixing_the_row_a_rebuild_makes_the_ranking_current_again(league, client):
    t12 = league.tables[1]
    good = Result.objects.get(table=t12).played_at
    break_date(t12)
    with pytest.raises(LedgerNotCurrent):
        run("rebuild_ledger")
    assert NOTICE in client.get(reverse("rankings:ranking")).content.decode()
    Result.objects.filter(table=t12).update(played_at=good)
    out = run("rebuild_ledger")
    # Two rows come back (round 1, table 2) and round 2's four change.
    assert out.startswith("Filas escritas: 8; filas cambiadas: 6;")
    assert health.is_current()
    assert ratings() == pytest.approx(FULL, abs=1e-9)
    body = client.get(reverse("rankings:ranking") + "?year=2026").content.decode()
    assert NOTICE not in body and "1516,4" in body
    assert client.get(reverse("rankings:ranking_csv", args=[2026])).status_code == 200


def test_rebuild_ledger_names_the_bad_row_writes_the_rest_and_exits_1(league):
    break_date(league.tables[1], dt.datetime(1, 1, 1, 0, 0, tzinfo=UTC))
    out = io.StringIO()
    with pytest.raises(SystemExit) as exc:
        call_command("rebuild_ledger", stdout=out, stderr=io.StringIO())
    assert exc.value.code == 1
    assert isinstance(exc.value, CommandError) and exc.value.returncode == 1
    text = out.getvalue()
    assert text.startswith("Filas escritas: 6; filas cambiadas: 6;")
    assert "Partidas que quedaron fuera del ranking: 1\n" in text
    assert (
        "  - Torneo «Liga Primavera», ronda 1, mesa 2: la partida tiene una fecha imposible "
        "(0001-01-01 00:00), fuera de los años 1900 a 2999; quedó fuera del ranking." in text
    )
    assert "Torneo «Liga Primavera», ronda 1, mesa 2" in str(exc.value)
    assert ratings() == pytest.approx(WITHOUT_C_D, abs=1e-9)
    assert LedgerStatus.objects.get().state == "attention"


def test_rebuild_ledger_that_fails_changes_nothing_and_exits_1(league, monkeypatch):
    before = ledger_snapshot()
    monkeypatch.setattr(ledger, "compute_rows", lambda *a, **k: 1 / 0)
    with pytest.raises(LedgerNotCurrent) as exc:
        run("rebuild_ledger")
    assert exc.value.returncode == 1
    assert "ZeroDivisionError: division by zero" in str(exc.value)
    assert ledger_snapshot() == before
    assert LedgerStatus.objects.get().from_key == ""


def test_check_ledger_exits_0_when_the_ledger_equals_a_rebuild(league):
    assert run("check_ledger") == "ledger is current: 8 filas, iguales a una reconstrucción.\n"


def test_check_ledger_names_a_tampered_rating_and_exits_1(league):
    t22, dalia = league.tables[3], league.players[3]
    LedgerRow.objects.filter(table=t22, player=dalia).update(rating_after=1.0)
    out = io.StringIO()
    with pytest.raises(SystemExit) as exc:
        call_command("check_ledger", stdout=out)
    assert exc.value.code == 1
    assert out.getvalue() == (
        "ledger differs from a rebuild: 1 diferencia(s) en 8 filas guardadas; las primeras 1:\n"
        f"  - fila distinta: torneo «Liga Primavera», ronda 2, mesa 2 (mesa #{t22.pk}), "
        "jugador «Dalia Urquiza»: rating_after guardado 1.0, reconstrucción "
        "1494.5052335033135.\n"
    )
    assert LedgerRow.objects.get(table=t22, player=dalia).rating_after == 1.0  # nothing written


def test_check_ledger_names_a_missing_and_an_extra_row_in_game_order(league):
    t11, t12 = league.tables[:2]
    anselmo = league.players[0]
    LedgerRow.objects.filter(table=t11, player=anselmo).delete()
    Result.objects.filter(table=t12).delete()  # no signal replay here: its rows stay
    with pytest.raises(LedgerNotCurrent) as exc:
        run("check_ledger")
    text = str(exc.value)
    missing = (
        f"falta una fila: torneo «Liga Primavera», ronda 1, mesa 1 (mesa #{t11.pk}), "
        "jugador «Anselmo Pradera»; una reconstrucción la escribe con rating_after 1510.24."
    )
    extra = (
        f"sobra una fila: torneo «Liga Primavera», ronda 1, mesa 2 (mesa #{t12.pk}), "
        "jugador «Ciro Valdelomar» (rating_after 1516.0); ninguna partida puntuable la da."
    )
    assert missing in text and extra in text and text.index(missing) < text.index(extra)
    # Round 2 follows from round 1, so its four rows differ too: 1 + 2 + 4 differences.
    assert "ledger differs from a rebuild: 7 diferencia(s) en 7 filas guardadas" in text


def test_check_ledger_exits_1_when_a_rebuild_would_leave_a_game_out(league):
    break_date(league.tables[1])
    ledger.rebuild()  # the stored ledger equals a rebuild, which leaves the game out
    with pytest.raises(LedgerNotCurrent) as exc:
        run("check_ledger")
    assert "Partidas que una reconstrucción deja fuera: 1" in str(exc.value)
    assert BAD_DATE_MESSAGE in str(exc.value)
    assert "diferencia" not in str(exc.value)
