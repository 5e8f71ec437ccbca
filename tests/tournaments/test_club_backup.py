"""``manage.py export_club`` / ``import_club`` (issue "reliability and security", point 6):
a backup restored into an empty database gives back the same club: the same standings in
every tournament, the same ledger row for row, the same change history row for row (dates,
authors, reasons, the admin's history pages), the same backup byte for byte
(docs/backup.md)."""

import datetime as dt
import json
import re
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from simple_history.utils import update_change_reason

from rankings import ledger, signals
from rankings.models import LedgerRow
from tests import builders
from tournaments import backup, services
from tournaments.models import Castigo, Player, Result, Seat, Sorteo, Table, Tournament

pytestmark = pytest.mark.django_db

LIVE = [key for key, _m in backup.SECTIONS]


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


def history_tables():
    """{section: [every history row as a tuple of all its columns, history_id included, by
    history_id]}, references to user accounts (``history_user``, ``entered_by``, ...) as
    usernames, so that rows compare across databases."""
    names = dict(User.objects.values_list("pk", "username"))
    out = {}
    for key, model in backup.SECTIONS:
        hmodel = backup.history_model(model)
        fields = hmodel._meta.concrete_fields
        users = [i for i, f in enumerate(fields) if f.is_relation and f.related_model is User]
        rows = []
        for values in hmodel.objects.order_by("history_id").values_list(
            *(f.attname for f in fields)
        ):
            values = list(values)
            for i in users:
                values[i] = names.get(values[i])
            rows.append(tuple(values))
        out[key] = rows
    return out


def history_of(obj):
    """(type, author, reason) of ``obj``'s history rows, oldest first."""
    return [
        (h.history_type, h.history_user and h.history_user.username, h.history_change_reason)
        for h in obj.history.order_by("history_date", "history_id")
    ]


def build_club():
    """The demo club plus a match-play and a table-game tournament and a sorteo, so every
    section of the backup has records; and history of every kind: changes by a second author
    ("revisora", two changes, one with a reason), a player created by no one (a script) and a
    player created and deleted (the highest player id), so only its history names it."""
    call_command("load_demo", stdout=StringIO())
    director = User.objects.get(username="director")
    by = {"acting_user": director}
    swiss = builders.tournament(
        name="Suizo de copia",
        date=dt.date(2026, 2, 7),
        system="swiss",
        mode="single",
        best_of=3,
        **by,
    )
    table_game = builders.tournament(
        name="Mesa de copia", date=dt.date(2026, 2, 8), system="table", mode="single", **by
    )
    players = builders.players([f"Copia {i}" for i in range(5)], **by)
    s_entries = builders.entries(swiss, players[:3], **by)
    rnd = builders.pair(swiss, 1, [(s_entries[0], s_entries[1])], **by)  # the third rests
    builders.record(rnd.tables.get(), games_a=2, games_b=1, version=0, **by)
    t_entries = builders.entries(table_game, players[1:5], **by)
    rnd = builders.seat(table_game, 1, [t_entries], **by)
    scores = {e.pk: v for e, v in zip(t_entries, [9, 4, 4, 0], strict=False)}
    builders.record(rnd.tables.get(), scores=scores, version=0, **by)
    individual = Tournament.objects.get(name="Individual del Club")
    first, second = individual.entries.order_by("pk")[:2]
    services.record_sorteo(
        acting_user=director, tournament=individual, entries_in_order=[second, first]
    )
    revisora = builders.director("revisora", password="clave-de-prueba-2")
    profe = Player.objects.get(full_name="Aurelio Baeza")
    services.update_player(
        acting_user=revisora,
        player=profe,
        full_name=profe.full_name,
        nickname="El Maestro",
        member_number=profe.member_number,
    )
    update_change_reason(Player.objects.get(pk=profe.pk), "Corrección del apodo")
    services.set_player_active(acting_user=revisora, player=players[0], active=False)
    services.create_player(acting_user=None, full_name="Copia sin autor")
    gone = services.create_player(acting_user=director, full_name="Copia borrada")
    services.delete_player(acting_user=director, player=gone)
    ledger.rebuild()  # on_commit replays do not run inside a test transaction


@pytest.fixture(scope="module")
def club(module_data):
    """``build_club`` once for this module (tests/conftest.py ``module_data``): every test wipes
    or restores the club, and still starts from it exactly as built."""
    yield from module_data(build_club)


def wipe_club():
    """Delete the club and its change history: what a freshly migrated database holds (the
    accounts stay)."""
    LedgerRow.objects.all().delete()
    Tournament.objects.all().delete()
    Player.objects.all().delete()
    for _key, model in backup.SECTIONS:
        backup.history_model(model).objects.all().delete()


def export(tmp_path, name="club.json"):
    path = tmp_path / name
    call_command("export_club", str(path), stdout=StringIO(), stderr=StringIO())
    return path


def import_(path):
    """Run ``import_club``; (its standard output, its standard error)."""
    out, err = StringIO(), StringIO()
    call_command("import_club", str(path), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_export_delete_import_gives_back_the_same_club(club, tmp_path):
    standings, rows = standings_everywhere(), ledger_rows()
    assert rows and all(len(s) > 0 for s in standings.values())
    path = export(tmp_path)
    exported = path.read_bytes()
    doc = json.loads(exported)
    assert (doc["format"], doc["version"]) == ("clubsite-club", 3)
    assert [k for k in doc if k not in ("format", "version")] == sorted([*LIVE, "history"])
    assert list(doc["history"]) == sorted(LIVE)
    assert all(doc[k] for k in LIVE), {k: len(doc[k]) for k in LIVE}
    assert all(doc["history"][k] for k in LIVE), {k: len(doc["history"][k]) for k in LIVE}
    assert "ledger" not in exported.decode() and "rating" not in exported.decode()
    assert {t["name"]: t["directors"] for t in doc["tournaments"]}["Copa de Parejas"] == [
        "director"
    ]
    ids = {key: [r["id"] for r in doc[key]] for key in LIVE}
    assert all(v == sorted(v) for v in ids.values())
    history_ids = {key: [r["history_id"] for r in doc["history"][key]] for key in LIVE}
    assert all(v == sorted(v) for v in history_ids.values())

    wipe_club()
    assert not Result.objects.exists() and not LedgerRow.objects.exists()
    out, err = import_(path)
    assert out.startswith("Restaurado: players: ") and "history: " in out
    assert err == ""

    assert standings_everywhere() == standings
    assert ledger_rows() == rows
    assert export(tmp_path, "again.json").read_bytes() == exported
    assert set(
        Tournament.objects.get(name="Copa de Parejas").directors.values_list("username", flat=True)
    ) == {"director"}
    assert (
        Castigo.objects.filter(entered_by__username="director").count()
        == Castigo.objects.count()
        > 0
    )
    assert Sorteo.objects.filter(recorded_by__username="director").count() == 2
    # The id sequences moved past the restored ids, the deleted player's id (only its history
    # names it) and the history ids: new rows collide with nothing and inherit no history.
    gone = doc["history"]["players"][-1]
    assert (gone["full_name"], gone["history_type"]) == ("Copia borrada", "-")
    assert gone["id"] > max(ids["players"])
    newcomer = services.create_player(acting_user=None, full_name="Recién llegado")
    assert newcomer.pk == gone["id"] + 1
    # (SQLite's AUTOINCREMENT never moves back: the wiped club's deletion rows count there.)
    assert newcomer.history.get().history_id > max(history_ids["players"])


def test_every_history_row_comes_back_exactly_and_none_is_added(club, tmp_path):
    before = history_tables()
    path = export(tmp_path)
    doc = json.loads(path.read_text())
    assert {k: len(v) for k, v in doc["history"].items()} == {k: len(v) for k, v in before.items()}
    first = doc["history"]["players"][0]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00", first["history_date"])
    assert (first["history_type"], first["history_user"]) == ("+", "director")
    wipe_club()
    import_(path)

    after = history_tables()
    assert after == before
    assert sum(len(v) for v in after.values()) == sum(len(v) for v in doc["history"].values())
    for _key, model in backup.SECTIONS:
        hmodel = backup.history_model(model)
        assert not hmodel.objects.filter(history_change_reason=backup.CHANGE_REASON).exists()
    # The rows read as the source database's did, author, type and reason included.
    profe = Player.objects.get(full_name="Aurelio Baeza")
    assert history_of(profe) == [
        ("+", "director", None),
        ("~", "revisora", "Corrección del apodo"),
    ]
    assert profe.nickname == "El Maestro"
    assert history_of(Player.objects.get(full_name="Copia sin autor")) == [("+", None, None)]
    assert history_of(Player.objects.get(full_name="Copia 0"))[-1] == ("~", "revisora", None)
    deleted = Player.history.filter(full_name="Copia borrada").order_by("history_id")
    assert [(h.history_type, h.history_user.username) for h in deleted] == [
        ("+", "director"),
        ("-", "director"),
    ]
    assert not Player.objects.filter(full_name="Copia borrada").exists()


def change_history_table(client, obj) -> str:
    """The change list of ``obj``'s admin history page (the page's one ``change-history``
    table: object, date, type, author, reason, changes)."""
    meta = obj._meta
    page = client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_history", args=[obj.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    start = text.index('<table id="change-history"')
    return text[start : text.index("</table>", start)]


def test_the_admin_history_page_of_a_restored_object_reads_as_before(club, tmp_path, client):
    client.force_login(User.objects.get(username="admin"))
    profe = Player.objects.get(full_name="Aurelio Baeza")
    result = Result.objects.filter(table__round__tournament__name="Copa de Parejas").first()
    table = result.table
    pages = [change_history_table(client, obj) for obj in (profe, result, table)]
    assert "revisora" in pages[0] and "Corrección del apodo" in pages[0]
    assert "El Profe" in pages[0] and "El Maestro" in pages[0]  # the change, before → after
    assert [page.count("<tr>") - 1 for page in pages] == [2, 1, 2]  # rows under the header
    path = export(tmp_path)
    wipe_club()
    import_(path)
    restored = [
        Player.objects.get(pk=profe.pk),
        Result.objects.get(pk=result.pk),
        Table.objects.get(pk=table.pk),
    ]
    assert [change_history_table(client, obj) for obj in restored] == pages


def test_the_import_replays_the_ledger_once_and_sends_no_model_signal(club, tmp_path, monkeypatch):
    path = export(tmp_path)
    rows = ledger_rows()
    wipe_club()
    scheduled, replays = [], []
    monkeypatch.setattr(signals, "schedule", lambda **kw: scheduled.append(kw))
    replay_from = ledger.replay_from
    monkeypatch.setattr(
        ledger, "replay_from", lambda key, **kw: replays.append(key) or replay_from(key, **kw)
    )
    import_(path)
    assert (scheduled, replays) == ([], [None])  # None: ledger.rebuild(), from the first game
    assert ledger_rows() == rows


def test_a_history_row_whose_author_has_no_account_here_keeps_its_change_without_author(
    club, tmp_path
):
    before = history_tables()
    path = export(tmp_path)
    doc = json.loads(path.read_text())
    by_her = sorted(
        (key, r["history_id"])
        for key, rows in doc["history"].items()
        for r in rows
        if r["history_user"] == "revisora"
    )
    assert by_her == [
        ("players", Player.history.get(full_name="Aurelio Baeza", history_type="~").history_id),
        ("players", Player.history.get(full_name="Copia 0", history_type="~").history_id),
    ]
    wipe_club()
    User.objects.filter(username="revisora").delete()
    _out, err = import_(path)
    assert err == (
        "Aviso: estos usuarios no existen en esta base y sus referencias quedaron vacías: "
        "revisora.\n"
        "Aviso: 2 cambios del historial quedaron sin autor porque sus usuarios no existen en "
        "esta base. La copia conserva los nombres: crea las cuentas y restaura de nuevo en una "
        "base vacía para recuperarlos.\n"
    )
    columns = [f.attname for f in Player.history.model._meta.concrete_fields]
    author = columns.index("history_user_id")
    expected = dict(before)
    expected["players"] = [
        (*row[:author], None, *row[author + 1 :]) if row[author] == "revisora" else row
        for row in before["players"]
    ]
    assert history_tables() == expected
    assert history_of(Player.objects.get(full_name="Aurelio Baeza")) == [
        ("+", "director", None),
        ("~", None, "Corrección del apodo"),
    ]


def test_import_club_leaves_unknown_usernames_empty_and_says_so(club, tmp_path):
    path = export(tmp_path)
    authored = sum(
        r["history_user"] == "director"
        for rows in json.loads(path.read_text())["history"].values()
        for r in rows
    )
    wipe_club()
    User.objects.filter(username="director").delete()
    _out, err = import_(path)
    assert "director" in err and "no existen" in err
    assert f"Aviso: {authored} cambios del historial quedaron sin autor" in err
    assert not Tournament.objects.get(name="Copa de Parejas").directors.exists()
    assert Result.objects.filter(entered_by__isnull=True).count() == Result.objects.count()
    assert not Result.history.filter(history_user__isnull=False).exists()
    assert Result.history.count() == len(json.loads(path.read_text())["history"]["results"])


def test_import_club_refuses_a_database_that_already_has_a_club(club, tmp_path):
    path = export(tmp_path)
    players = Player.objects.count()
    with pytest.raises(CommandError, match="ya tiene jugadores o torneos"):
        import_(path)
    assert Player.objects.count() == players


def test_a_backup_with_history_is_refused_where_history_rows_remain(club, tmp_path):
    """Deleting the club leaves its deletions in the history: restoring there would mix those
    rows with the backup's, under the same ids, on the restored objects' history pages."""
    path = export(tmp_path)
    LedgerRow.objects.all().delete()
    Tournament.objects.all().delete()
    Player.objects.all().delete()
    left = Player.history.count()
    with pytest.raises(CommandError, match="ya tiene historial de cambios"):
        import_(path)
    assert not Player.objects.exists() and not Tournament.objects.exists()
    assert Player.history.count() == left


def old_document(path, version):
    """The backup at ``path`` as an older version wrote it: no history (versions 1 and 2);
    version 1 named a seat's ``victory_points`` ``vp``."""
    doc = json.loads(path.read_text())
    del doc["history"]
    doc["version"] = version
    if version == 1:
        for seat in doc["seats"]:
            seat["vp"] = seat.pop("victory_points")
    return doc


@pytest.mark.parametrize("version", [1, 2])
def test_an_old_backup_without_history_restores_the_same_club_and_says_so(club, tmp_path, version):
    """Versions 1 and 2 carry no history: restored as they always were, each object with one
    history row "Restaurado con import_club", and the import says the file has no history."""
    standings, rows = standings_everywhere(), ledger_rows()
    path = export(tmp_path)
    exported = json.loads(path.read_text())
    old = tmp_path / f"version{version}.json"
    old.write_text(json.dumps(old_document(path, version)))
    wipe_club()
    _out, err = import_(old)
    assert err == (
        f"Aviso: esta copia (versión {version}) no contiene el historial de cambios: cada "
        "objeto restaurado tiene un solo cambio, «Restaurado con import_club».\n"
    )
    assert standings_everywhere() == standings
    assert ledger_rows() == rows
    again = json.loads(export(tmp_path, "again.json").read_text())
    assert {k: again[k] for k in LIVE} == {k: exported[k] for k in LIVE}
    for key, model in backup.SECTIONS:
        history = backup.history_model(model).objects.order_by("history_id")
        assert list(
            history.values_list("id", "history_type", "history_user", "history_change_reason")
        ) == [(r["id"], "+", None, "Restaurado con import_club") for r in exported[key]], key


def test_a_version_1_backup_with_vp_restores_the_same_victory_points(club, tmp_path):
    """Version 1 named a seat's ``victory_points`` ``vp``: such a backup still restores."""
    path = export(tmp_path)
    doc = json.loads(path.read_text())
    assert all("victory_points" in seat and "vp" not in seat for seat in doc["seats"])
    scores = [seat["victory_points"] for seat in doc["seats"]]
    stored = Seat.objects.exclude(victory_points=None).values_list("victory_points", flat=True)
    assert sorted(v for v in scores if v is not None) == sorted(stored)
    assert {0, 4, 9} <= set(stored)  # the club's own table game is in it
    old = tmp_path / "version1.json"
    old.write_text(json.dumps(old_document(path, 1)))
    wipe_club()
    import_(old)
    assert sorted(
        Seat.objects.exclude(victory_points=None).values_list("victory_points", flat=True)
    ) == sorted(stored)


def test_a_version_2_backup_with_a_history_section_is_refused(club, tmp_path):
    path = export(tmp_path)
    doc = json.loads(path.read_text())
    doc["version"] = 2
    wipe_club()
    with pytest.raises(backup.RestoreError, match="^Secciones desconocidas: history.$"):
        backup.import_club(doc)
    assert not Player.objects.exists()


@pytest.mark.parametrize("version", [0, 4, "3", None])
def test_a_backup_of_an_unknown_version_is_refused(club, tmp_path, version):
    doc = json.loads(export(tmp_path).read_text())
    doc["version"] = version
    wipe_club()
    with pytest.raises(backup.RestoreError, match="Versión de copia desconocida"):
        backup.import_club(doc)
    assert not Player.objects.exists()


def test_a_broken_backup_restores_nothing(club, tmp_path):
    doc = json.loads(export(tmp_path).read_text())
    wipe_club()
    doc["seats"][0]["entry_id"] = 999_999  # a reference to nothing
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(doc))
    with pytest.raises(CommandError, match="No se restauró nada"):
        import_(broken)
    assert not Player.objects.exists() and not Tournament.objects.exists()


def break_type(doc):
    doc["history"]["results"][0]["history_type"] = "x"


def repeat_a_history_id(doc):
    rows = doc["history"]["tables"]
    rows[1]["history_id"] = rows[0]["history_id"]


def unknown_history_section(doc):
    doc["history"]["ledger"] = []


def history_not_a_list(doc):
    doc["history"]["castigos"] = {"1": {}}


def history_not_an_object(doc):
    doc["history"] = list(doc["history"].values())


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (break_type, r"^«history\.results» history_id \d+: history_type: "),
        (repeat_a_history_id, r"^«history\.tables»: hay valores de history_id repetidos\.$"),
        (unknown_history_section, r"^«history»: secciones desconocidas: ledger\.$"),
        (history_not_a_list, r"^«history\.castigos» debe ser una lista\.$"),
        (history_not_an_object, r"^«history» debe ser un objeto JSON con una lista por sección\.$"),
    ],
)
def test_a_backup_with_a_broken_history_restores_nothing(club, tmp_path, spoil, message):
    doc = json.loads(export(tmp_path).read_text())
    wipe_club()
    spoil(doc)
    with pytest.raises(backup.RestoreError, match=message):
        backup.import_club(doc)
    assert not Player.objects.exists() and not Tournament.objects.exists()
    assert not Player.history.exists() and not Result.history.exists()
