"""``manage.py export_club`` / ``import_club`` (issue "reliability and security", point 6):
a backup restored into an empty database gives back the same club: the same standings in
every tournament, the same ledger row for row, the same backup byte for byte."""

import datetime as dt
import json
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError

from rankings import ledger
from rankings.models import LedgerRow
from tournaments import backup, services
from tournaments.models import Castigo, Player, Result, Seat, Sorteo, Tournament

pytestmark = pytest.mark.django_db


def standings_everywhere():
    return {
        t.slug: [
            (
                line.row.position,
                line.row.shared,
                line.entry.pk,
                line.entry.name,
                dict(line.row.figures),
                line.row.decided_by,
            )
            for line in t.standings()
        ]
        for t in Tournament.objects.order_by("slug")
    }


def ledger_rows():
    return list(
        LedgerRow.objects.order_by("order_key", "side", "player_id").values_list(*ledger.COLUMNS)
    )


def build_club():
    """The demo club plus a match-play and a table-game tournament and a sorteo, so every
    section of the backup has records."""
    call_command("load_demo", stdout=StringIO())
    director = User.objects.get(username="director")
    swiss = services.create_tournament(
        acting_user=director,
        name="Suizo de copia",
        date=dt.date(2026, 2, 7),
        system="swiss",
        mode="single",
        best_of=3,
    )
    table_game = services.create_tournament(
        acting_user=director,
        name="Mesa de copia",
        date=dt.date(2026, 2, 8),
        system="table",
        mode="single",
    )
    players = [
        services.create_player(acting_user=director, full_name=f"Copia {i}") for i in range(5)
    ]
    s_entries = [
        services.register_entry(acting_user=director, tournament=swiss, players=[p])
        for p in players[:3]
    ]
    rnd = services.set_pairings(
        acting_user=director,
        tournament=swiss,
        round_number=1,
        tables=[([s_entries[0]], [s_entries[1]])],
    )  # the third rests
    services.record_result(
        acting_user=director, table=rnd.tables.get(), games_a=2, games_b=1, version=0
    )
    t_entries = [
        services.register_entry(acting_user=director, tournament=table_game, players=[p])
        for p in players[1:5]
    ]
    rnd = services.set_seating(
        acting_user=director, tournament=table_game, round_number=1, tables=[t_entries]
    )
    services.record_result(
        acting_user=director,
        table=rnd.tables.get(),
        scores={e.pk: v for e, v in zip(t_entries, [9, 4, 4, 0], strict=False)},
        version=0,
    )
    individual = Tournament.objects.get(name="Individual de Diciembre")
    first, second = individual.entries.order_by("pk")[:2]
    services.record_sorteo(
        acting_user=director, tournament=individual, entries_in_order=[second, first]
    )
    ledger.rebuild()  # on_commit replays do not run inside a test transaction


@pytest.fixture(scope="module")
def club(module_data):
    """``build_club`` once for this module (tests/conftest.py ``module_data``): every test wipes
    or restores the club, and still starts from it exactly as built."""
    yield from module_data(build_club)


def wipe_club():
    LedgerRow.objects.all().delete()
    Tournament.objects.all().delete()
    Player.objects.all().delete()


def test_export_delete_import_gives_back_the_same_club(club, tmp_path):
    standings, rows = standings_everywhere(), ledger_rows()
    assert rows and all(len(s) > 0 for s in standings.values())
    path = tmp_path / "club.json"
    call_command("export_club", str(path), stdout=StringIO(), stderr=StringIO())
    exported = path.read_bytes()
    doc = json.loads(exported)
    assert (doc["format"], doc["version"]) == ("clubsite-club", 2)
    assert [k for k in doc if k not in ("format", "version")] == sorted(
        k for k, _m in backup.SECTIONS
    )
    assert all(doc[k] for k, _m in backup.SECTIONS), {k: len(doc[k]) for k, _m in backup.SECTIONS}
    assert "ledger" not in exported.decode() and "rating" not in exported.decode()
    assert {t["name"]: t["directors"] for t in doc["tournaments"]}["Torneo de Otoño"] == [
        "director"
    ]
    ids = {key: [r["id"] for r in doc[key]] for key, _m in backup.SECTIONS}
    assert all(v == sorted(v) for v in ids.values())

    wipe_club()
    assert not Result.objects.exists() and not LedgerRow.objects.exists()
    out = StringIO()
    call_command("import_club", str(path), stdout=out, stderr=StringIO())
    assert "Restaurado" in out.getvalue()

    assert standings_everywhere() == standings
    assert ledger_rows() == rows
    again = tmp_path / "again.json"
    call_command("export_club", str(again), stdout=StringIO(), stderr=StringIO())
    assert again.read_bytes() == exported
    assert set(
        Tournament.objects.get(name="Torneo de Otoño").directors.values_list("username", flat=True)
    ) == {"director"}
    assert (
        Castigo.objects.filter(entered_by__username="director").count()
        == Castigo.objects.count()
        > 0
    )
    assert Sorteo.objects.filter(recorded_by__username="director").count() == 2
    # The id sequences moved past the restored ids: new rows do not collide.
    newcomer = services.create_player(acting_user=None, full_name="Recién llegado")
    assert newcomer.pk > max(ids["players"])


def test_import_club_refuses_a_database_that_already_has_a_club(club, tmp_path):
    path = tmp_path / "club.json"
    call_command("export_club", str(path), stdout=StringIO(), stderr=StringIO())
    players = Player.objects.count()
    with pytest.raises(CommandError, match="ya tiene jugadores o torneos"):
        call_command("import_club", str(path), stdout=StringIO(), stderr=StringIO())
    assert Player.objects.count() == players


def test_import_club_leaves_unknown_usernames_empty_and_says_so(club, tmp_path):
    path = tmp_path / "club.json"
    call_command("export_club", str(path), stdout=StringIO(), stderr=StringIO())
    wipe_club()
    User.objects.filter(username="director").delete()
    err = StringIO()
    call_command("import_club", str(path), stdout=StringIO(), stderr=err)
    assert "director" in err.getvalue() and "no existen" in err.getvalue()
    assert not Tournament.objects.get(name="Torneo de Otoño").directors.exists()
    assert Result.objects.filter(entered_by__isnull=True).count() == Result.objects.count()


def test_a_version_1_backup_with_vp_restores_the_same_club(club, tmp_path):
    """Version 1 named a seat's ``victory_points`` ``vp``: such a backup still restores."""
    standings = standings_everywhere()
    path = tmp_path / "club.json"
    call_command("export_club", str(path), stdout=StringIO(), stderr=StringIO())
    exported = path.read_bytes()
    doc = json.loads(exported)
    assert all("victory_points" in seat and "vp" not in seat for seat in doc["seats"])
    scores = [seat["victory_points"] for seat in doc["seats"]]
    stored = Seat.objects.exclude(victory_points=None).values_list("victory_points", flat=True)
    assert sorted(v for v in scores if v is not None) == sorted(stored)
    assert {0, 4, 9} <= set(stored)  # the club's own table game is in it
    doc["version"] = 1
    for seat in doc["seats"]:
        seat["vp"] = seat.pop("victory_points")
    old = tmp_path / "version1.json"
    old.write_text(json.dumps(doc))
    wipe_club()
    call_command("import_club", str(old), stdout=StringIO(), stderr=StringIO())
    assert standings_everywhere() == standings
    again = tmp_path / "again.json"
    call_command("export_club", str(again), stdout=StringIO(), stderr=StringIO())
    assert again.read_bytes() == exported


@pytest.mark.parametrize("version", [0, 3, "2", None])
def test_a_backup_of_an_unknown_version_is_refused(club, tmp_path, version):
    path = tmp_path / "club.json"
    call_command("export_club", str(path), stdout=StringIO(), stderr=StringIO())
    doc = json.loads(path.read_text())
    doc["version"] = version
    wipe_club()
    with pytest.raises(backup.RestoreError, match="Versión de copia desconocida"):
        backup.import_club(doc)
    assert not Player.objects.exists()


def test_a_broken_backup_restores_nothing(club, tmp_path):
    path = tmp_path / "club.json"
    call_command("export_club", str(path), stdout=StringIO(), stderr=StringIO())
    doc = json.loads(path.read_text())
    wipe_club()
    doc["seats"][0]["entry_id"] = 999_999  # a reference to nothing
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(doc))
    with pytest.raises(CommandError, match="No se restauró nada"):
        call_command("import_club", str(broken), stdout=StringIO(), stderr=StringIO())
    assert not Player.objects.exists() and not Tournament.objects.exists()
