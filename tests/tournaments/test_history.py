"""Audit trail (issue "reliability and security", point 4): every change made through the
services to players, entries, tournaments' settings, rounds, tables, seats, byes, results
(dominó, match play, table games), castigos and sorteos keeps who, when, and the values
before and after (django-simple-history); the round page says "editado por … a las …"."""

import datetime as dt
import html

import pytest
from django.urls import reverse
from django.utils import timezone

from tests import builders
from tournaments import services
from tournaments.models import (
    Bye,
    Castigo,
    Entry,
    MatchResult,
    Player,
    Result,
    Round,
    Seat,
    Sorteo,
    Table,
    TableResult,
    Tournament,
)

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
#: A dominó tournament to 100 with a 30-minute limit on 13 June 2026, of pairs unless it says.
AUDIT = {"date": dt.date(2026, 6, 13), "mode": "pairs", "target": 100, "time_limit": 30}


@pytest.fixture
def other_director():
    return builders.director("segundo", password="clave-de-prueba-3")


def records(model, **lookup):
    """The model's history records matching ``lookup``, oldest first."""
    return list(model.history.filter(**lookup).order_by("history_date", "history_id"))


def change(record) -> dict:
    """{field: (before, after)} of one "~" history record against the one before it."""
    assert record.history_type == "~"
    delta = record.diff_against(record.prev_record)
    return {c.field: (c.old, c.new) for c in delta.changes}


def assert_who_and_when(record, user, since):
    assert record.history_user == user
    assert since <= record.history_date <= timezone.now()


def test_player_changes_keep_who_when_and_before_after(director, other_director):
    since = timezone.now()
    p = services.create_player(acting_user=director, full_name="Ana Ruiz", member_number="S-9")
    services.update_player(
        acting_user=other_director,
        player=p,
        full_name="Ana María Ruiz",
        member_number="S-10",
        nickname="Anita",
    )
    created, changed = records(Player, id=p.pk)
    assert created.history_type == "+" and created.full_name == "Ana Ruiz"
    assert_who_and_when(created, director, since)
    assert_who_and_when(changed, other_director, since)
    assert change(changed) == {
        "full_name": ("Ana Ruiz", "Ana María Ruiz"),
        "member_number": ("S-9", "S-10"),
        "nickname": ("", "Anita"),
    }
    services.set_player_active(acting_user=director, player=p, active=False)
    assert change(records(Player, id=p.pk)[-1]) == {"active": (True, False)}


def test_tournament_settings_and_entries_keep_who_when_and_before_after(director, other_director):
    since = timezone.now()
    t, entries = builders.field(
        AUDIT,
        acting_user=director,
        name="Auditoría",
        names=[f"Auditoría {i:02d}" for i in range(10)],
    )
    services.update_tournament(
        acting_user=other_director,
        tournament=t,
        name="Auditoría II",
        venue="Sala 2",
        rounds_planned=7,
    )
    last = records(Tournament, id=t.pk)[-1]
    assert_who_and_when(last, other_director, since)
    assert change(last)["name"] == ("Auditoría", "Auditoría II")
    assert change(last)["venue"] == ("", "Sala 2")
    assert change(last)["rounds_planned"] == (5, 7)

    services.drop_entry(acting_user=other_director, entry=entries[0], after_round=0)
    created, dropped = records(Entry, id=entries[0].pk)
    assert_who_and_when(created, director, since)
    assert_who_and_when(dropped, other_director, since)
    assert change(dropped) == {"dropped_after_round": (None, 0)}
    services.remove_entry(acting_user=other_director, entry=entries[0])
    removed = records(Entry, id=entries[0].pk)[-1]
    assert removed.history_type == "-" and removed.player1_id == entries[0].player1_id
    assert_who_and_when(removed, other_director, since)


def test_rounds_tables_seats_byes_and_results_keep_who_when_and_before_after(
    director, other_director
):
    since = timezone.now()
    # five pairs: one rests every round
    t, e = builders.field(
        AUDIT,
        acting_user=director,
        name="Auditoría",
        names=[f"Auditoría {i:02d}" for i in range(10)],
    )
    rnd = services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=1,
        tables=[([e[0]], [e[1]]), ([e[2]], [e[3]])],
    )
    first_tables = list(rnd.tables.order_by("number"))
    first_seats = list(Seat.objects.filter(round=rnd))
    (bye,) = Bye.objects.filter(round=rnd)
    for model, obj in [(Table, first_tables[0]), (Seat, first_seats[0]), (Bye, bye)]:
        (created,) = records(model, id=obj.pk)
        assert created.history_type == "+"
        assert_who_and_when(created, director, since)

    # Pairings changed before any result: the old tables, seats and bye are deleted, each in
    # history with the user who re-paired.
    rnd = services.set_pairings(
        acting_user=other_director,
        tournament=t,
        round_number=1,
        tables=[([e[4]], [e[1]]), ([e[2]], [e[3]])],
    )
    for model, obj in [(Table, first_tables[0]), (Seat, first_seats[0]), (Bye, bye)]:
        deleted = records(model, id=obj.pk)[-1]
        assert deleted.history_type == "-"
        assert_who_and_when(deleted, other_director, since)
    (bye,) = Bye.objects.filter(round=rnd)
    assert bye.entry_id == e[0].pk

    table = rnd.tables.get(number=1)
    services.record_result(acting_user=director, table=table, tantos_a=100, tantos_b=40, version=0)
    services.record_result(
        acting_user=other_director,
        table=table,
        tantos_a=75,
        tantos_b=70,
        ended_by_time=True,
        version=1,
    )
    created, corrected = records(Result, table_id=table.pk)
    assert (created.tantos_a, created.tantos_b) == (100, 40)
    assert_who_and_when(created, director, since)
    assert_who_and_when(corrected, other_director, since)
    delta = change(corrected)
    assert delta["tantos_a"] == (100, 75) and delta["tantos_b"] == (40, 70)
    assert delta["ended_by_time"] == (False, True)
    assert delta["entered_by"] == (director.pk, other_director.pk)
    versions = records(Table, id=table.pk)
    assert [change(v)["version"] for v in versions[1:]] == [(0, 1), (1, 2)]
    assert [v.history_user for v in versions[1:]] == [director, other_director]

    services.delete_result(acting_user=director, table=table, version=2)
    deleted = records(Result, table_id=table.pk)[-1]
    assert deleted.history_type == "-" and (deleted.tantos_a, deleted.tantos_b) == (75, 70)
    assert_who_and_when(deleted, director, since)

    for tbl in rnd.tables.all():
        tbl.refresh_from_db()
        services.record_result(
            acting_user=director, table=tbl, tantos_a=100, tantos_b=0, version=tbl.version
        )
    services.close_round(acting_user=other_director, round=rnd)
    services.reopen_round(acting_user=director, round=rnd)
    history = records(Round, id=rnd.pk)
    assert history[0].history_type == "+"
    assert_who_and_when(history[0], director, since)
    closed, reopened = history[-2:]
    assert change(closed) == {"closed": (False, True)}
    assert_who_and_when(closed, other_director, since)
    assert change(reopened) == {"closed": (True, False)}
    assert_who_and_when(reopened, director, since)


def test_match_results_keep_who_when_and_before_after(director, other_director):
    since = timezone.now()
    t = services.create_tournament(
        acting_user=director,
        name="Suizo auditado",
        date=dt.date(2026, 6, 20),
        system="swiss",
        mode="single",
        best_of=3,
    )
    players = [
        services.create_player(acting_user=director, full_name=f"Suizo {i}") for i in range(2)
    ]
    e = [services.register_entry(acting_user=director, tournament=t, players=[p]) for p in players]
    rnd = services.set_pairings(
        acting_user=director, tournament=t, round_number=1, tables=[([e[0]], [e[1]])]
    )
    table = rnd.tables.get()
    services.record_result(acting_user=director, table=table, games_a=2, games_b=1, version=0)
    services.record_result(
        acting_user=other_director, table=table, games_a=1, games_b=1, games_drawn=1, version=1
    )
    created, corrected = records(MatchResult, table_id=table.pk)
    assert (created.games_a, created.games_b, created.games_drawn) == (2, 1, 0)
    assert_who_and_when(created, director, since)
    assert_who_and_when(corrected, other_director, since)
    delta = change(corrected)
    assert delta["games_a"] == (2, 1) and delta["games_drawn"] == (0, 1)


def test_table_game_results_and_seat_scores_keep_who_when_and_before_after(
    director, other_director
):
    since = timezone.now()
    t = services.create_tournament(
        acting_user=director,
        name="Mesa auditada",
        date=dt.date(2026, 6, 27),
        system="table",
        mode="single",
    )
    players = [
        services.create_player(acting_user=director, full_name=f"Mesa {i}") for i in range(3)
    ]
    e = [services.register_entry(acting_user=director, tournament=t, players=[p]) for p in players]
    rnd = services.set_seating(acting_user=director, tournament=t, round_number=1, tables=[e])
    table = rnd.tables.get()
    services.record_result(
        acting_user=director, table=table, scores={e[0].pk: 10, e[1].pk: 7, e[2].pk: 3}, version=0
    )
    services.record_result(
        acting_user=other_director,
        table=table,
        scores={e[0].pk: 10, e[1].pk: 12, e[2].pk: 3},
        ended_by_time=True,
        version=1,
    )
    created, corrected = records(TableResult, table_id=table.pk)
    assert_who_and_when(created, director, since)
    assert_who_and_when(corrected, other_director, since)
    assert change(corrected)["ended_by_time"] == (False, True)
    seat = Seat.objects.get(table=table, entry=e[1])
    history = records(Seat, id=seat.pk)
    assert [h.history_type for h in history] == ["+", "~", "~"]
    assert change(history[1]) == {"victory_points": (None, 7)}
    assert change(history[2]) == {"victory_points": (7, 12)}
    assert_who_and_when(history[2], other_director, since)


def test_castigos_and_sorteos_keep_who_when_and_before_after(director, other_director):
    since = timezone.now()
    t, e = builders.field(
        AUDIT,
        acting_user=director,
        name="Castigos",
        mode="single",
        names=[f"Castigos {i:02d}" for i in range(3)],
    )
    rnd = services.set_pairings(
        acting_user=director, tournament=t, round_number=1, tables=[([e[0]], [e[1]])]
    )
    castigo = services.add_castigo(
        acting_user=director,
        tournament=t,
        player=e[0].player1,
        tantos=15,
        reason="Hablar",
        round=rnd,
    )
    services.remove_castigo(acting_user=other_director, castigo=castigo)
    added, removed = records(Castigo, id=castigo.pk)
    assert (added.history_type, added.tantos, added.reason) == ("+", 15, "Hablar")
    assert_who_and_when(added, director, since)
    assert (removed.history_type, removed.tantos) == ("-", 15)
    assert_who_and_when(removed, other_director, since)

    t = builders.finish(t, acting_user=director, open_rounds_ok=True)  # the order is final
    services.record_sorteo(acting_user=director, tournament=t, entries_in_order=[e[1], e[2]])
    services.record_sorteo(acting_user=other_director, tournament=t, entries_in_order=[e[2], e[1]])
    history = records(Sorteo, tournament_id=t.pk, entry_id=e[1].pk)
    assert [(h.history_type, h.lot) for h in history] == [("+", 1), ("-", 1), ("+", 2)]
    assert [h.history_user for h in history] == [director, other_director, other_director]
    assert all(since <= h.history_date for h in history)


def test_round_page_says_who_edited_each_result_and_castigo_and_when(director_client, director):
    t, e = builders.field(
        AUDIT, acting_user=director, name="Página", names=[f"Página {i:02d}" for i in range(8)]
    )
    rnd = services.set_pairings(
        acting_user=director,
        tournament=t,
        round_number=1,
        tables=[([e[0]], [e[1]]), ([e[2]], [e[3]])],
    )
    table = rnd.tables.get(number=1)
    services.record_result(acting_user=director, table=table, tantos_a=100, tantos_b=30, version=0)
    castigo = services.add_castigo(
        acting_user=director, tournament=t, player=e[1].player1, tantos=5, reason="Tarde", round=rnd
    )
    page = html.unescape(
        director_client.get(reverse("manage:round", args=[t.slug, 1])).content.decode()
    )
    result = Result.objects.get(table=table)
    at = timezone.localtime(result.updated_at).strftime("%H:%M")
    assert f"editado por directora a las {at}" in page
    at = timezone.localtime(castigo.created_at).strftime("%H:%M")
    assert page.count("editado por directora a las") == 2
    assert f"editado por directora a las {at}" in page

    # The HTMX answer of a save shows it too, with the new time.
    response = director_client.post(
        reverse("manage:result_save", args=[t.slug, table.pk]),
        {"tantos_a": "100", "tantos_b": "45", "version": "1"},
        **HTMX,
    )
    assert response.status_code == 200
    result.refresh_from_db()
    at = timezone.localtime(result.updated_at).strftime("%H:%M")
    assert f"editado por directora a las {at}" in html.unescape(response.content.decode())
