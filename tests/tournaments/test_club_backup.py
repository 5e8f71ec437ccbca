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
from django.apps import apps
from django.contrib.auth.models import User
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import Q
from django.urls import reverse
from simple_history.utils import update_change_reason

from rankings import health, ledger, signals
from rankings.models import LedgerRow, LedgerStatus, ReplayRequest, YearRating
from tests import builders
from tournaments import backup, services
from tournaments.models import (
    MAX_SCORE,
    Castigo,
    Entry,
    FinalPlace,
    League,
    Notice,
    Player,
    Result,
    Round,
    Seat,
    SignUp,
    Sorteo,
    Table,
    Tournament,
)
from tournaments.notices.tasks import send_pairings_notices, send_reminders

pytestmark = pytest.mark.django_db

LIVE = [key for key, _m in backup.SECTIONS]
#: The sections with a change history (a sent notice has none).
TRACKED = [key for key, model in backup.SECTIONS if backup.has_history(model)]
#: Sections added in version 4.
NEW_IN_4 = ["signups", "leagues", "notices"]


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
    for key in TRACKED:
        hmodel = backup.history_model(dict(backup.SECTIONS)[key])
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
    """The demo club plus a match-play and a table-game tournament (with a sorteo), so every
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
        name="Mesa de copia",
        date=dt.date(2026, 2, 8),
        system="table",
        mode="single",
        rounds_planned=1,
        **by,
    )
    players = builders.players([f"Copia {i}" for i in range(5)], **by)
    s_entries = builders.entries(swiss, players[:3], **by)
    rnd = builders.pair(swiss, 1, [(s_entries[0], s_entries[1])], **by)  # the third rests
    builders.record(rnd.tables.get(), games_a=2, games_b=1, version=0, **by)
    t_entries = builders.entries(table_game, players[1:5], **by)
    rnd = builders.seat(table_game, 1, [t_entries], **by)
    scores = {e.pk: v for e, v in zip(t_entries, [9, 4, 4, 0], strict=False)}
    builders.record(rnd.tables.get(), scores=scores, version=0, **by)
    # its one round played: the order is final, and the two 4s share the 2nd place
    services.record_sorteo(
        acting_user=director, tournament=table_game, entries_in_order=[t_entries[2], t_entries[1]]
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
    build_season(director, revisora, swiss, table_game)
    gone = services.create_player(acting_user=director, full_name="Copia borrada")
    services.delete_player(acting_user=director, player=gone)
    ledger.rebuild()  # on_commit replays do not run inside a test transaction
    FinalPlace.objects.store_all()  # nor the final places' refresh (services.places)


def build_season(director, revisora, swiss, table_game):
    """What the club's season adds, through the services: a start time set then cleared (only
    the history holds a time) and one kept; sign-up requests pending, refused and accepted; a
    league with its settings, changed once; a player record claimed by an account and one
    anonymised; the notices of an open round and the reminders of the next tournament,
    really sent (``mail.outbox``)."""
    copa = Tournament.objects.get(name="Copa de Parejas")
    services.update_tournament(acting_user=director, tournament=copa, start_time=dt.time(19, 30))
    services.update_tournament(acting_user=director, tournament=copa, start_time=None)
    services.update_tournament(acting_user=director, tournament=swiss, start_time="18:45")
    spring = Tournament.objects.get(name="Copa de Primavera")  # the demo's sign-ups: accepted
    services.update_signup_settings(
        acting_user=director,
        tournament=spring,
        signup_open=True,
        max_entries=12,
        signup_closes_at=dt.datetime(2099, 5, 1, 20, 0, 0, 123456, tzinfo=dt.UTC),
        signup_needs_approval=True,
    )
    services.sign_up(
        tournament=spring,
        name="Solicitante Pendiente",
        email="pendiente@example.org",
        partner_name="Pareja Pendiente",
    )
    accepted = services.sign_up(
        tournament=spring,
        name="Solicitante Aceptada",
        email="aceptada@example.org",
        partner_name="Pareja Aceptada",
    )
    accepted = services.decide_signup(acting_user=director, signup=accepted, accept=True)
    refused = services.sign_up(
        tournament=spring, name="Solicitante Rechazada", phone="600 000 001", partner_name="Otra"
    )
    services.decide_signup(acting_user=director, signup=refused, accept=False)
    league = services.create_league(
        acting_user=director,
        name="Liga de copia",
        season=2026,
        description="Temporada de prueba,\ncon dos líneas y «comillas».",
        points_scale="10,6,4,2",
        participation_points=1,
        best_results=2,
        planned_tournaments=4,
        tournaments=[copa, swiss],
    )
    services.update_league(
        acting_user=revisora, league=league, best_results=3, tournaments=[copa, swiss, table_game]
    )
    claimed = Player.objects.get(full_name="Copia 1")
    services.create_account_and_claim(player=claimed, username="jugadora", password="x-9876-y")
    services.anonymise_player(acting_user=director, player=Player.objects.get(full_name="Copia 4"))
    individual = Tournament.objects.get(name="Individual del Club")
    open_round = individual.rounds.filter(closed=False).order_by("number").first()
    in_round = Entry.objects.filter(Q(seats__round=open_round) | Q(byes__round=open_round))
    seated = Player.objects.filter(pk__in=in_round.values("player1"))
    seated = seated.exclude(full_name="Aurelio Baeza")  # his history is compared above
    told = [*seated.order_by("pk")[:2], accepted.player]  # she plays only the next one
    for player in told:
        services.update_player(  # a director records their email and consent
            acting_user=None,
            player=player,
            full_name=player.full_name,
            nickname=player.nickname,
            member_number=player.member_number,
            email=f"aviso{player.pk}@example.org",
            phone=player.phone,
            notices_consent=True,
        )
    mail.outbox.clear()
    assert send_pairings_notices.call(open_round.pk) == 2
    assert send_reminders.call(spring.date.isoformat()) >= 1
    assert len(mail.outbox) == Notice.objects.count()
    assert set(Notice.objects.values_list("kind", flat=True)) == {"pairings", "reminder"}


@pytest.fixture(scope="module")
def club(module_data):
    """``build_club`` once for this module (tests/conftest.py ``module_data``): every test wipes
    or restores the club, and still starts from it exactly as built."""
    yield from module_data(build_club)


def wipe_club():
    """Delete the club, its change history and what derives from it: what a freshly migrated
    database holds (the accounts stay)."""
    for model in (LedgerRow, YearRating, LedgerStatus):
        model.objects.all().delete()
    for _key, model in reversed(backup.SECTIONS):
        model._base_manager.all().delete()
    for key in TRACKED:
        backup.history_model(dict(backup.SECTIONS)[key])._base_manager.all().delete()
    ReplayRequest.objects.all().delete()  # the deletions above asked for replays
    assert all(not rows for rows in club_rows().values())


def club_rows():
    """{model label: every row as a tuple of all its columns, by id} of every model of the
    apps (tournaments, rankings), found by walking the apps rather than read from the backup's
    own lists; references to accounts as usernames. The derived rows (ledger, year figures)
    and the many-to-many links without their ids, sorted (a rebuild, a restore number them
    anew); the ranking's status as its state and problems. Operational models (import jobs,
    replay and story requests) and the stored stories (a cache of the games' figures, not
    restored) are left out."""
    names = dict(User.objects.values_list("pk", "username"))
    out = {}
    for config in (apps.get_app_config("tournaments"), apps.get_app_config("rankings")):
        for model in config.get_models(include_auto_created=True):
            label = model._meta.label
            if label in (
                "tournaments.ImportJob",
                "rankings.ReplayRequest",
                "rankings.StoryRequest",
                "rankings.PlayerStory",  # filled again by the page's first reader
            ):
                continue
            if model is LedgerStatus:
                out[label] = list(model.objects.values_list("state", "problems"))
                continue
            fields = model._meta.concrete_fields
            # A many-to-many link is its pair (the file holds lists, not the link's own id).
            derived = model in (LedgerRow, YearRating, FinalPlace) or model._meta.auto_created
            rows = []
            for values in model._base_manager.order_by("pk").values_list(
                *(f.attname for f in fields)
            ):
                row = [
                    names.get(v) if f.is_relation and f.related_model is User else v
                    for f, v in zip(fields, values, strict=True)
                ]
                rows.append(tuple(row[1:]) if derived else tuple(row))
            out[label] = sorted(rows) if derived else rows
    return out


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
    """A club with rows in every model of its apps (but the operational ones) comes back row
    for row, value for value, in every model: the file's, their history, their many-to-many
    tables, and the ledger and year figures the import rebuilds; the second export is the
    same bytes; ``check_ledger`` finds the ranking current."""
    standings, rows, before = standings_everywhere(), ledger_rows(), club_rows()
    assert rows and all(len(s) > 0 for s in standings.values())
    assert [label for label, model_rows in before.items() if not model_rows] == []
    assert len(before) == 35  # every model of the two apps but ImportJob and ReplayRequest
    path = export(tmp_path)
    exported = path.read_bytes()
    doc = json.loads(exported)
    assert (doc["format"], doc["version"]) == ("clubsite-club", 4)
    assert [k for k in doc if k not in ("format", "version")] == sorted([*LIVE, "history"])
    assert list(doc["history"]) == sorted(TRACKED) == sorted(set(LIVE) - {"notices"})
    assert all(doc[k] for k in LIVE), {k: len(doc[k]) for k in LIVE}
    assert all(doc["history"][k] for k in TRACKED), {k: len(doc["history"][k]) for k in TRACKED}
    assert {k: len(doc[k]) for k in NEW_IN_4} == {
        "signups": SignUp.objects.count(),
        "leagues": 2,  # the demo's "Liga del Club" and the fixture's
        "notices": Notice.objects.count(),
    }
    assert "ledger" not in exported.decode() and "rating" not in exported.decode()
    assert {t["name"]: t["directors"] for t in doc["tournaments"]}["Copa de Parejas"] == [
        "director"
    ]
    ids = {key: [r["id"] for r in doc[key]] for key in LIVE}
    assert all(v == sorted(v) for v in ids.values())
    history_ids = {key: [r["history_id"] for r in doc["history"][key]] for key in TRACKED}
    assert all(v == sorted(v) for v in history_ids.values())

    wipe_club()
    assert not Result.objects.exists() and not LedgerRow.objects.exists()
    out, err = import_(path)
    assert out.startswith("Restaurado: players: ") and "history: " in out
    assert (
        f", signups: {SignUp.objects.count()}, leagues: 2, notices: {Notice.objects.count()}, "
        in out
    )
    assert err == ""

    assert club_rows() == before
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
    for key in TRACKED:
        hmodel = backup.history_model(dict(backup.SECTIONS)[key])
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
        ("leagues", League.history.get(history_type="~").history_id),
        ("players", Player.history.get(full_name="Aurelio Baeza", history_type="~").history_id),
        ("players", Player.history.get(full_name="Copia 0", history_type="~").history_id),
    ]
    wipe_club()
    User.objects.filter(username="revisora").delete()
    _out, err = import_(path)
    assert err == (
        "Aviso: estos usuarios no existen en esta base y sus referencias quedaron vacías: "
        "revisora.\n"
        "Aviso: 3 cambios del historial quedaron sin autor porque sus usuarios no existen en "
        "esta base. La copia conserva los nombres: crea las cuentas y restaura de nuevo en una "
        "base vacía para recuperarlos.\n"
    )
    expected = dict(before)
    for key, model in (("players", Player), ("leagues", League)):
        columns = [f.attname for f in model.history.model._meta.concrete_fields]
        author = columns.index("history_user_id")
        expected[key] = [
            (*row[:author], None, *row[author + 1 :]) if row[author] == "revisora" else row
            for row in before[key]
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
    with pytest.raises(CommandError, match=r"ya tiene datos del club \(players, tournaments, "):
        import_(path)
    assert Player.objects.count() == players


def test_import_club_refuses_a_database_that_holds_only_a_league(club, tmp_path):
    """Any section with rows refuses the restore, not only players and tournaments: the
    league's id would collide with the file's."""
    path = export(tmp_path)
    wipe_club()
    services.create_league(acting_user=None, name="Liga suelta", season=2026)
    League.history.all().delete()
    with pytest.raises(CommandError) as refused:
        import_(path)
    assert str(refused.value) == (
        "La base de datos ya tiene datos del club (leagues): import_club solo restaura en una "
        "base vacía (recién migrada). No se cambió nada."
    )
    assert list(League.objects.values_list("name", flat=True)) == ["Liga suelta"]
    assert not Player.objects.exists()


def test_a_backup_with_history_is_refused_where_history_rows_remain(club, tmp_path):
    """Deleting the club leaves its deletions in the history: restoring there would mix those
    rows with the backup's, under the same ids, on the restored objects' history pages."""
    path = export(tmp_path)
    LedgerRow.objects.all().delete()
    for _key, model in reversed(backup.SECTIONS):
        model.objects.all().delete()
    left = Player.history.count()
    with pytest.raises(CommandError, match="ya tiene historial de cambios"):
        import_(path)
    assert not Player.objects.exists() and not Tournament.objects.exists()
    assert Player.history.count() == left


def old_document(path, version):
    """The backup at ``path`` as an older version wrote it: no sign-up requests, leagues or
    sent notices (versions 1 to 3); no history (versions 1 and 2); version 1 named a seat's
    ``victory_points`` ``vp``."""
    doc = json.loads(path.read_text())
    for key in NEW_IN_4:
        del doc[key]
        doc["history"].pop(key, None)
    if version < 3:
        del doc["history"]
    doc["version"] = version
    if version == 1:
        for seat in doc["seats"]:
            seat["vp"] = seat.pop("victory_points")
    return doc


LACKS_SECTIONS = (
    "Aviso: esta copia (versión {version}) no tiene estas secciones, que llegaron después: "
    "solicitudes de inscripción, ligas, avisos enviados. Se restaura sin ellas.\n"
    "Aviso: sin los avisos enviados, el sitio no sabe a quién avisó ya: el recordatorio de un "
    "torneo próximo o los emparejamientos de una ronda abierta que se publique otra vez pueden "
    "llegar de nuevo a quien ya los recibió.\n"
)


def test_a_version_3_backup_restores_its_club_and_history_and_says_what_it_lacks(club, tmp_path):
    """Version 3 (before sign-up requests, leagues and sent notices were in the file) restores
    every section it has, history included, and says what it lacks and what that means."""
    standings, rows, before = standings_everywhere(), ledger_rows(), history_tables()
    path = export(tmp_path)
    exported = json.loads(path.read_text())
    old = tmp_path / "version3.json"
    old.write_text(json.dumps(old_document(path, 3)))
    wipe_club()
    out, err = import_(old)
    assert err == LACKS_SECTIONS.format(version=3)
    kept = sum(len(before[k]) for k in TRACKED if k not in NEW_IN_4)
    assert out.endswith(f", signups: 0, leagues: 0, notices: 0, history: {kept}.\n")
    assert standings_everywhere() == standings
    assert ledger_rows() == rows
    again = json.loads(export(tmp_path, "again.json").read_text())
    old_keys = [k for k in LIVE if k not in NEW_IN_4]
    assert {k: again[k] for k in old_keys} == {k: exported[k] for k in old_keys}
    assert history_tables() == {k: (v if k not in NEW_IN_4 else []) for k, v in before.items()}
    assert not SignUp.objects.exists() and not League.objects.exists()
    assert not Notice.objects.exists()


@pytest.mark.parametrize("version", [1, 2])
def test_an_old_backup_without_history_restores_the_same_club_and_says_so(club, tmp_path, version):
    """Versions 1 and 2 carry no history: restored as they always were, each object with one
    history row "Restaurado con import_club", and the import says the file has no history (and
    no sign-up requests, leagues or sent notices)."""
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
    ) + LACKS_SECTIONS.format(version=version)
    assert standings_everywhere() == standings
    assert ledger_rows() == rows
    again = json.loads(export(tmp_path, "again.json").read_text())
    old_keys = [k for k in LIVE if k not in NEW_IN_4]
    assert {k: again[k] for k in old_keys} == {k: exported[k] for k in old_keys}
    for key, model in backup.SECTIONS:
        if key in NEW_IN_4:
            continue
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
    for key in NEW_IN_4:
        del doc[key]
    wipe_club()
    with pytest.raises(backup.RestoreError, match="^Secciones desconocidas: history.$"):
        backup.import_club(doc)
    assert not Player.objects.exists()


def test_a_version_3_backup_with_a_section_of_version_4_is_refused(club, tmp_path):
    path = export(tmp_path)
    doc = json.loads(path.read_text())
    doc["version"] = 3
    for key in ("signups", "notices"):
        del doc[key]
    for key in NEW_IN_4:
        doc["history"].pop(key, None)
    wipe_club()
    with pytest.raises(backup.RestoreError, match="^Secciones desconocidas: leagues.$"):
        backup.import_club(doc)
    del doc["leagues"]
    doc["history"]["signups"] = []
    with pytest.raises(
        backup.RestoreError, match=r"^«history»: secciones desconocidas: signups\.$"
    ):
        backup.import_club(doc)
    assert not Player.objects.exists()


@pytest.mark.parametrize("version", [0, 5, "4", None])
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


def test_a_start_time_set_then_cleared_is_backed_up_from_the_history(club, tmp_path):
    """The fault of issue 25: a time in a tournament's history (set, then cleared) stopped
    every backup with a traceback. The history keeps "19:30:00", the row null; a kept start
    time is written too; both come back as times."""
    copa = Tournament.objects.get(name="Copa de Parejas")
    assert copa.start_time is None
    doc = json.loads(export(tmp_path).read_text())
    assert {t["name"]: t["start_time"] for t in doc["tournaments"]} | {} == {
        t.name: t.start_time and t.start_time.isoformat() for t in Tournament.objects.all()
    }
    assert {t["name"]: t["start_time"] for t in doc["tournaments"]}["Suizo de copia"] == "18:45:00"
    times = [h["start_time"] for h in doc["history"]["tournaments"] if h["id"] == copa.pk]
    assert times[-3:] == [None, "19:30:00", None]
    wipe_club()
    import_(tmp_path / "club.json")
    restored = Tournament.history.filter(id=copa.pk).order_by("history_id")
    assert [h.start_time for h in restored][-3:] == [None, dt.time(19, 30), None]
    assert Tournament.objects.get(name="Suizo de copia").start_time == dt.time(18, 45)


def test_the_restored_sent_notices_mean_no_one_is_mailed_twice(club, tmp_path):
    """The notices sent before the backup come back with it: the pairings of the open round
    and the reminders of the next tournament, run again after the restore, mail no one. Without
    those records (the counter-proof) the same runs would mail the same players again."""
    individual = Tournament.objects.get(name="Individual del Club")
    open_round = individual.rounds.filter(closed=False).order_by("number").first()
    spring = Tournament.objects.get(name="Copa de Primavera")
    sent = sorted(Notice.objects.values_list("kind", "player_id", "tournament_id", "round_id"))
    path = export(tmp_path)
    wipe_club()
    mail.outbox.clear()
    import_(path)
    assert mail.outbox == []
    assert (
        sorted(Notice.objects.values_list("kind", "player_id", "tournament_id", "round_id")) == sent
    )
    assert Round.objects.get(pk=open_round.pk).closed is False
    assert send_pairings_notices.call(open_round.pk) == 0
    assert send_reminders.call(spring.date.isoformat()) == 0
    assert mail.outbox == []
    Notice.objects.all().delete()  # what a restore without them would leave
    assert send_pairings_notices.call(open_round.pk) == 2
    assert send_reminders.call(spring.date.isoformat()) == len(sent) - 2
    assert len(mail.outbox) == len(sent)


def test_after_a_restore_check_ledger_finds_the_ranking_current(club, tmp_path):
    """``manage.py check_ledger`` exits 0 after a restore (and 1 once a row is spoilt: the
    check can fail)."""
    path = export(tmp_path)
    wipe_club()
    import_(path)
    out = StringIO()
    call_command("check_ledger", stdout=out)  # exit status 1 raises
    assert out.getvalue().startswith(f"ledger is current: {LedgerRow.objects.count()} filas")
    assert health.attention() is None
    assert LedgerStatus.objects.get().state == "current"
    row = LedgerRow.objects.order_by("order_key").first()
    LedgerRow.objects.filter(pk=row.pk).update(rating_after=row.rating_after + 1)
    with pytest.raises(SystemExit) as failed:
        call_command("check_ledger", stdout=StringIO())
    assert failed.value.code == 1


def test_rows_stored_outside_the_current_rules_come_back_as_they_were(club, tmp_path):
    """An unlucky admin: a result stored by hand above ``MAX_SCORE`` and a castigo with an
    empty reason (the services refuse both, the database holds them). The backup restores
    them as stored, rather than refusing the whole club."""
    result = Result.objects.order_by("pk").first()
    castigo = Castigo.objects.order_by("pk").first()
    Result.objects.filter(pk=result.pk).update(tantos_a=MAX_SCORE + 1)
    Castigo.objects.filter(pk=castigo.pk).update(reason="")
    before = club_rows()
    path = export(tmp_path)
    wipe_club()
    import_(path)
    assert Result.objects.get(pk=result.pk).tantos_a == MAX_SCORE + 1
    assert Castigo.objects.get(pk=castigo.pk).reason == ""
    after = club_rows()
    assert {k: v for k, v in after.items() if not k.startswith("rankings.")} == {
        k: v for k, v in before.items() if not k.startswith("rankings.")
    }


def set_value(section, field, value, *, history=False, which=0):
    def spoil(doc):
        rows = doc["history"][section] if history else doc[section]
        rows[which][field] = value

    return spoil


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (
            set_value("tournaments", "start_time", "25:61"),
            r"^«tournaments» id \d+: start_time: .*(hora|time)",
        ),
        (
            set_value("tournaments", "start_time", "siete y media", history=True),
            r"^«history\.tournaments» history_id \d+: start_time: ",
        ),
        (
            set_value("tournaments", "signup_closes_at", "ayer"),
            r"^«tournaments» id \d+: signup_closes_at: ",
        ),
        (set_value("notices", "kind", "spam"), r"^«notices» id \d+: kind: .*spam"),
        (set_value("signups", "status", None), r"^«signups» id \d+: status: "),
        (
            set_value("leagues", "tournaments", "todos"),
            r"^«leagues» id \d+: «tournaments» debe ser una lista\.$",
        ),
        (
            set_value("leagues", "tournaments", ["uno"]),
            r"^«leagues» id \d+: «tournaments»: 'uno' no es un id\.$",
        ),
        (set_value("leagues", "tournaments", [999_999]), r"^No se restauró nada: "),
        (set_value("notices", "round_id", 999_999), r"^No se restauró nada: "),
        (set_value("leagues", "points_scale", "1" * 201), r"^«leagues» id \d+: points_scale: "),
    ],
)
def test_a_bad_value_in_a_new_section_restores_nothing(club, tmp_path, spoil, message):
    doc = json.loads(export(tmp_path).read_text())
    wipe_club()
    spoil(doc)
    with pytest.raises(backup.RestoreError, match=message):
        backup.import_club(doc)
    assert not Player.objects.exists() and not League.objects.exists()
    assert not Notice.objects.exists() and not SignUp.objects.exists()
