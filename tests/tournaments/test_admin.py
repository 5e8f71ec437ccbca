"""The Django admin: every page renders, and corrections behave like the services."""

import datetime as dt
from html.parser import HTMLParser

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from rankings import ledger
from rankings.models import LedgerRow
from tournaments import services
from tournaments.models import (
    Bye,
    Castigo,
    Entry,
    Player,
    Result,
    Round,
    Seat,
    Sorteo,
    Table,
    Tournament,
)

pytestmark = pytest.mark.django_db

MODELS = [Player, Tournament, Entry, Round, Table, Seat, Bye, Result, Castigo, Sorteo]


class _FormValues(HTMLParser):
    """The values a browser would post for the admin's change form (``id="..._form"``)."""

    def __init__(self):
        super().__init__()
        self.values: dict[str, object] = {}
        self._select = None
        self._textarea = None
        self._in_form = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("id") or "").endswith("_form"):
            self._in_form = True
        if not self._in_form:
            return
        name = a.get("name")
        if tag == "input" and name and "__prefix__" not in name:
            kind = a.get("type", "text")
            if kind in ("submit", "button", "file"):
                return
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.values[name] = a.get("value", "on")
                return
            self.values[name] = a.get("value", "")
        elif tag == "select" and name and "__prefix__" not in name:
            self._select = name
            self.values.setdefault(name, "")
        elif tag == "option" and self._select and "selected" in a:
            self.values[self._select] = a.get("value", "")
        elif tag == "textarea" and name and "__prefix__" not in name:
            self._textarea = name
            self.values[name] = ""

    def handle_data(self, data):
        if self._textarea:
            self.values[self._textarea] += data

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None
        elif tag == "form":
            self._in_form = False


def form_values(client, url) -> dict:
    response = client.get(url)
    assert response.status_code == 200
    parser = _FormValues()
    parser.feed(response.content.decode())
    return parser.values


def admin_url(obj_or_model, action="change", *args):
    opts = obj_or_model._meta
    if action in ("change", "delete", "history"):
        args = (obj_or_model.pk, *args)
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_{action}", args=args)


@pytest.fixture
def club(admin_user):
    """A small pairs tournament to 100 of one round: three pairs, round 1 with one table (A beat
    B 100–50) and a bye for C, a castigo and a sorteo (the one round planned is played: the
    order is final); plus a player who never played."""
    names = [
        "Aurelio Baeza",
        "Remedios Quintanar",
        "Celestino Ugarte",
        "Maribel Oyarzún",
        "Teodoro Villaseñor",
        "Дмитрий Вершинин",
    ]
    players = [services.create_player(acting_user=admin_user, full_name=n) for n in names]
    idle = services.create_player(acting_user=admin_user, full_name="Chucho+1 Robles")
    t = services.create_tournament(
        acting_user=admin_user,
        name="Copa Admin",
        date=dt.date(2026, 10, 3),
        system="domino",
        mode="pairs",
        target=100,
        time_limit=30,
        rounds_planned=1,
        status="registration",
    )
    a, b, c = (
        services.register_entry(acting_user=admin_user, tournament=t, players=players[i : i + 2])
        for i in (0, 2, 4)
    )
    rnd = services.set_pairings(
        acting_user=admin_user, tournament=t, round_number=1, tables=[([a], [b])]
    )
    table = rnd.tables.get()
    result = services.record_result(
        acting_user=admin_user, table=table, tantos_a=100, tantos_b=50, version=table.version
    )
    castigo = services.add_castigo(
        acting_user=admin_user,
        tournament=t,
        player=players[4],
        tantos=10,
        reason="Mostrar fichas",
        round=rnd,
    )
    sorteo = services.record_sorteo(acting_user=admin_user, tournament=t, entries_in_order=[b, c])[
        0
    ]
    table.refresh_from_db()
    return {
        "tournament": t,
        "entries": (a, b, c),
        "round": rnd,
        "table": table,
        "result": result,
        "castigo": castigo,
        "sorteo": sorteo,
        "players": players,
        "idle": idle,
        "seat": table.seats.first(),
        "bye": Bye.objects.get(round=rnd),
    }


@pytest.fixture
def replays(django_capture_on_commit_callbacks, monkeypatch):
    """Run the commit hooks of the block, the ranking ledger first brought up to date (the
    fixture's own hooks never ran); returns the key of every ledger replay that followed
    (``rankings.signals`` schedules them from the model signals)."""
    received: list[str | None] = []
    replay_from = ledger.replay_from

    def spy(key, **kwargs):
        report = replay_from(key, **kwargs)  # the background replay: the key it started from
        if report is not None:
            received.append(report.from_key)
        return report

    class Capture:
        def __enter__(self):
            ledger.rebuild()
            monkeypatch.setattr(ledger, "replay_from", spy)
            self._cm = django_capture_on_commit_callbacks(execute=True)
            self._cm.__enter__()
            return received

        def __exit__(self, *exc):
            try:
                return self._cm.__exit__(*exc)
            finally:
                monkeypatch.setattr(ledger, "replay_from", replay_from)

    return Capture


def _game_key(table):
    """The ledger key of the table's game (SCORING.md §2, "Order")."""
    played_at = Result.objects.get(table=table).played_at
    return ledger.order_key(played_at, table.round.number, table.number, table.pk)


def _ledger_tantos(table):
    """(tantos own, tantos other) of the table's ledger rows."""
    return sorted(LedgerRow.objects.filter(table=table).values_list("tantos_own", "tantos_other"))


def _figures(tournament, entry):
    return next(line.row.figures for line in tournament.standings() if line.entry.pk == entry.pk)


def test_site_header_is_spanish(admin_client):
    response = admin_client.get(reverse("admin:index"))
    assert response.status_code == 200
    assert "Club de dominó — administración" in response.content.decode()


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_changelist_add_change_and_history_pages_render(admin_client, club, model):
    obj = model.objects.order_by("pk").first()
    assert obj is not None
    for url in (
        admin_url(model, "changelist"),
        admin_url(model, "changelist") + "?q=Baeza",
        admin_url(model, "add"),
        admin_url(obj, "change"),
        admin_url(obj, "history"),
    ):
        response = admin_client.get(url)
        assert response.status_code == 200, url


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_a_mistyped_history_url_is_a_404_not_a_500(admin_client, club, model):
    obj = model.objects.order_by("pk").first()
    history = admin_url(obj, "history")  # /admin/<app>/<model>/<pk>/history/
    for url in (
        history.replace(f"/{obj.pk}/", "/abc/"),
        history + "abc/",
        history.replace(f"/{obj.pk}/", "/abc/") + "1/",
        history + "99999999/",
    ):
        assert admin_client.get(url).status_code == 404, url


def test_changelist_filters_render(admin_client, club):
    t = club["tournament"]
    for model, query in (
        (Result, f"?table__round__tournament__id__exact={t.pk}&forfeit__exact=0"),
        (Table, f"?round__tournament__id__exact={t.pk}&round__closed__exact=0"),
        (Seat, "?side__exact=A"),
        (Tournament, "?status__exact=running&target__exact=100"),
        (Player, "?active__exact=1"),
    ):
        response = admin_client.get(admin_url(model, "changelist") + query)
        assert response.status_code == 200, model


def test_inlines_show_on_tournament_round_and_table_pages(admin_client, club):
    page = admin_client.get(admin_url(club["tournament"])).content.decode()
    assert 'id="rounds-group"' in page
    page = admin_client.get(admin_url(club["round"])).content.decode()
    assert 'id="tables-group"' in page
    page = admin_client.get(admin_url(club["table"])).content.decode()
    assert 'id="seats-group"' in page and 'id="result-group"' in page


def test_result_with_invalid_score_is_refused_and_nothing_changes(admin_client, club):
    result, table, t = club["result"], club["table"], club["tournament"]
    before = _figures(t, club["entries"][0])
    url = admin_url(result)
    data = form_values(admin_client, url)
    data.update(tantos_a="100", tantos_b="120")
    response = admin_client.post(url, data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert any("Los dos lados llegaron a la meta de 100" in e for e in errors)
    result.refresh_from_db()
    table.refresh_from_db()
    assert (result.tantos_a, result.tantos_b) == (100, 50)
    assert table.version == club["table"].version
    assert result.history.count() == 1
    assert _figures(t, club["entries"][0]) == before


def test_result_with_an_impossible_number_is_refused_in_the_admin(admin_client, club):
    result = club["result"]
    url = admin_url(result)
    data = form_values(admin_client, url)
    data.update(tantos_a="999999999999", tantos_b="1")
    response = admin_client.post(url, data)
    assert response.status_code == 200
    form = response.context["adminform"].form
    assert "menor o igual que 99999" in " ".join(form.errors.get("tantos_a", [])), form.errors
    result.refresh_from_db()
    assert (result.tantos_a, result.tantos_b) == (100, 50) and result.history.count() == 1


def test_result_marked_by_time_with_target_reached_is_refused(admin_client, club):
    url = admin_url(club["result"])
    data = form_values(admin_client, url)
    data.update(tantos_a="100", tantos_b="40", ended_by_time="on")
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "terminada por tiempo" in response.content.decode()
    club["result"].refresh_from_db()
    assert not club["result"].ended_by_time


def test_invalid_score_through_the_table_inline_is_refused(admin_client, club):
    table = club["table"]
    url = admin_url(table)
    data = form_values(admin_client, url)
    assert data["result-0-tantos_a"] == "100"
    data.update({"result-0-tantos_a": "100", "result-0-tantos_b": "120"})
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "Los dos lados llegaron a la meta de 100" in response.content.decode()
    club["result"].refresh_from_db()
    table.refresh_from_db()
    assert (club["result"].tantos_a, club["result"].tantos_b) == (100, 50)
    assert table.version == club["table"].version


def test_valid_correction_bumps_version_changes_standings_and_replays(
    admin_client, admin_user, club, replays
):
    result, table, t = club["result"], club["table"], club["tournament"]
    winner = club["entries"][0]
    assert _figures(t, winner)["puntos"] == 2
    version = table.version
    url = admin_url(result)
    data = form_values(admin_client, url)
    data.update(tantos_a="100", tantos_b="0")
    with replays() as received:
        response = admin_client.post(url, data)
    assert response.status_code == 302
    result.refresh_from_db()
    table.refresh_from_db()
    assert (result.tantos_a, result.tantos_b) == (100, 0)
    assert table.version == version + 1
    assert received == [_game_key(table)]
    assert _ledger_tantos(table) == [(0, 100), (0, 100), (100, 0), (100, 0)]
    figures = _figures(t, winner)
    assert figures["puntos"] == 3  # a zapato now
    assert figures["tantos_en_contra"] == 0
    assert result.history.first().history_user == admin_user
    assert table.history.first().history_user == admin_user


def test_valid_correction_through_the_table_inline_bumps_version(admin_client, club, replays):
    table, t = club["table"], club["tournament"]
    version = table.version
    url = admin_url(table)
    data = form_values(admin_client, url)
    data.update({"result-0-tantos_a": "60", "result-0-tantos_b": "100"})
    with replays() as received:
        response = admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert received == [_game_key(table)]
    assert _ledger_tantos(table) == [(60, 100), (60, 100), (100, 60), (100, 60)]
    table.refresh_from_db()
    assert table.version == version + 1
    a, b, _c = club["entries"]
    assert _figures(t, a)["won"] == 0
    assert _figures(t, b)["won"] == 1 and _figures(t, b)["puntos"] == 1


def test_stale_version_is_refused(admin_client, admin_user, club):
    result, table = club["result"], club["table"]
    url = admin_url(result)
    data = form_values(admin_client, url)
    # someone else corrects the table meanwhile, through the services
    services.record_result(
        acting_user=admin_user, table=table, tantos_a=100, tantos_b=20, version=table.version
    )
    data.update(tantos_a="100", tantos_b="0")
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "cambió mientras la editabas" in response.content.decode()
    result.refresh_from_db()
    assert result.tantos_b == 20


def test_deleting_a_result_bumps_version_and_replays(admin_client, club, replays):
    result, table = club["result"], club["table"]
    version, key = table.version, _game_key(table)
    with replays() as received:
        assert _ledger_tantos(table) == [(50, 100), (50, 100), (100, 50), (100, 50)]
        response = admin_client.post(admin_url(result, "delete"), {"post": "yes"})
    assert response.status_code == 302
    assert not Result.objects.filter(pk=result.pk).exists()
    table.refresh_from_db()
    assert table.version == version + 1
    assert received == [key]
    assert _ledger_tantos(table) == []
    assert _figures(club["tournament"], club["entries"][0])["played"] == 0


def test_player_with_results_cannot_be_deleted(admin_client, club):
    player = club["players"][0]
    assert admin_client.get(admin_url(player, "delete")).status_code == 302
    response = admin_client.post(admin_url(player, "delete"), {"post": "yes"})
    assert response.status_code == 302
    assert response["Location"] == admin_url(player)
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("no se puede borrar" in t for t in texts)
    assert Player.objects.filter(pk=player.pk).exists()
    # the change page offers no delete link
    page = admin_client.get(admin_url(player)).content.decode()
    assert admin_url(player, "delete") not in page


def test_bulk_delete_keeps_players_with_results(admin_client, club):
    player, idle = club["players"][0], club["idle"]
    response = admin_client.post(
        admin_url(Player, "changelist"),
        {"action": "delete_selected", "_selected_action": [player.pk, idle.pk], "post": "yes"},
    )
    assert response.status_code in (200, 302)
    assert Player.objects.filter(pk=player.pk).exists()


def test_player_who_never_played_can_be_deleted(admin_client, club):
    idle = club["idle"]
    response = admin_client.post(admin_url(idle, "delete"), {"post": "yes"})
    assert response.status_code == 302
    assert not Player.objects.filter(pk=idle.pk).exists()


def test_tournament_target_cannot_change_once_it_has_results(admin_client, club):
    t = club["tournament"]
    url = admin_url(t)
    data = form_values(admin_client, url)
    data["target"] = "200"
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "no se puede cambiar su meta" in response.content.decode()
    t.refresh_from_db()
    assert t.target == 100


def test_seat_change_on_a_table_with_result_bumps_version(admin_client, club, replays):
    seat, table = club["seat"], club["table"]
    version = table.version
    url = admin_url(seat)
    data = form_values(admin_client, url)
    data["position"] = "2"
    with replays() as received:
        response = admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    table.refresh_from_db()
    assert table.version == version + 1
    assert received == [_game_key(table)]


def test_seat_for_an_entry_already_seated_in_the_round_is_refused(admin_client, club):
    seat = club["seat"]
    other = Seat.objects.exclude(pk=seat.pk).get(round=club["round"])
    url = admin_url(seat)
    data = form_values(admin_client, url)
    data["entry"] = str(other.entry_id)
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "dos veces en la misma ronda" in response.content.decode()
    seat.refresh_from_db()
    assert seat.entry_id != other.entry_id


# --- results of every system: one admin per storage model, saving through the services ---------


@pytest.fixture
def swiss(admin_user):
    """A Swiss event, best of 3: two players at table 1 of round 1, no result yet."""
    t = services.create_tournament(
        acting_user=admin_user,
        name="Suizo Admin",
        date=dt.date(2026, 10, 10),
        system="swiss",
        mode="single",
        best_of=3,
    )
    players = [
        services.create_player(acting_user=admin_user, full_name=n)
        for n in ("Abril Zamora", "Bernardo Yáñez")
    ]
    a, b = (
        services.register_entry(acting_user=admin_user, tournament=t, players=[p]) for p in players
    )
    rnd = services.set_pairings(
        acting_user=admin_user, tournament=t, round_number=1, tables=[([a], [b])]
    )
    return {"tournament": t, "round": rnd, "table": rnd.tables.get(), "entries": (a, b)}


@pytest.fixture
def table_game(admin_user):
    """A 3–4 player table game: three players at table 1 of round 1, no result yet."""
    t = services.create_tournament(
        acting_user=admin_user,
        name="Mesa Admin",
        date=dt.date(2026, 10, 17),
        system="table",
        mode="single",
        time_limit=60,
    )
    players = [
        services.create_player(acting_user=admin_user, full_name=n)
        for n in ("Ana Ruiz", "Beto Soto", "Caro Tapia")
    ]
    entries = [
        services.register_entry(acting_user=admin_user, tournament=t, players=[p]) for p in players
    ]
    rnd = services.set_seating(
        acting_user=admin_user, tournament=t, round_number=1, tables=[entries]
    )
    return {"tournament": t, "round": rnd, "table": rnd.tables.get(), "entries": entries}


def _form_errors(response) -> str:
    form = response.context["adminform"].form
    return " ".join(str(e) for errors in form.errors.values() for e in errors)


def _add_url(model, table):
    return admin_url(model, "add") + f"?table={table.pk}"


def _vp(entries, values) -> dict:
    return {f"vp_{e.pk}": str(v) for e, v in zip(entries, values, strict=True)}


def _vp_scores(entries, values=(10, 7, 3)) -> dict:
    return {e.pk: v for e, v in zip(entries, values, strict=True)}


def test_result_admins_come_from_the_registry():
    from django.contrib import admin as django_admin

    from tournaments import systems
    from tournaments.admin.results import ResultAdmin

    for system in systems.all_systems():
        model_admin = django_admin.site._registry[system.result_model]
        assert isinstance(model_admin, ResultAdmin)


@pytest.mark.parametrize("kind", ["swiss", "table_game"])
def test_result_pages_of_other_systems_render(admin_client, admin_user, kind, request):
    fixture = request.getfixturevalue(kind)
    table, entries = fixture["table"], fixture["entries"]
    if kind == "swiss":
        result = services.record_result(
            acting_user=admin_user, table=table, version=None, games_a=2, games_b=0
        )
    else:
        result = services.record_result(
            acting_user=admin_user, table=table, version=None, scores=_vp_scores(entries)
        )
    model = type(result)
    for url in (
        admin_url(model, "changelist"),
        admin_url(model, "changelist") + "?q=Ruiz",
        admin_url(model, "changelist")
        + f"?table__round__tournament__id__exact={table.round.tournament_id}",
        admin_url(model, "add"),
        admin_url(result, "change"),
        admin_url(result, "history"),
        admin_url(table, "change"),
        admin_url(table.round, "change"),
    ):
        assert admin_client.get(url).status_code == 200, url
    listing = admin_client.get(admin_url(model, "changelist")).content.decode()
    assert f"{fixture['tournament'].name} · ronda 1 · mesa 1" in listing


def test_adding_a_swiss_match_result_through_the_admin(admin_client, admin_user, swiss, replays):
    from tournaments.models import MatchResult

    table = swiss["table"]
    url = _add_url(MatchResult, table)
    page = admin_client.get(url).content.decode()
    assert "Partidas ganadas por A" in page and "Partidas empatadas" in page
    data = form_values(admin_client, url)
    data.update(games_a="2", games_b="1", games_drawn="0")
    with replays():
        response = admin_client.post(url, data)
    assert response.status_code == 302, _form_errors(response)
    result = MatchResult.objects.get(table=table)
    assert (result.games_a, result.games_b, result.games_drawn) == (2, 1, 0)
    assert result.entered_by == admin_user
    assert result.history.get().history_user == admin_user
    table.refresh_from_db()
    assert table.version == 1
    assert table.history.first().history_user == admin_user
    a, _b = swiss["entries"]
    figures = next(
        line.row.figures for line in swiss["tournament"].standings() if line.entry.pk == a.pk
    )
    assert figures["match_points"] == 3


def test_choosing_the_table_first_shows_its_boxes_and_stores_nothing(admin_client, swiss):
    from tournaments.models import MatchResult

    table = swiss["table"]
    add = admin_url(MatchResult, "add")
    data = form_values(admin_client, add)
    assert "games_a" not in data  # no table chosen: no boxes yet
    data["table"] = str(table.pk)
    response = admin_client.post(add, data)
    assert response.status_code == 200
    assert "Escribe ahora el resultado" in _form_errors(response)
    assert "Partidas ganadas por A" in response.content.decode()
    assert not MatchResult.objects.exists()
    # the page now holds the table's boxes: typing them saves
    parser = _FormValues()
    parser.feed(response.content.decode())
    data = parser.values | {"games_a": "0", "games_b": "2"}
    response = admin_client.post(add, data)
    assert response.status_code == 302, _form_errors(response)
    assert MatchResult.objects.get(table=table).games_b == 2


@pytest.mark.parametrize(
    ("games", "code_words"),
    [
        (("3", "0", "0"), "el encuentro termina al ganar 2 partida(s)"),  # above_wins_needed
        (("2", "1", "1"), "se juegan como mucho 3 partidas"),  # too_many_games
    ],
)
def test_a_swiss_result_against_the_rules_is_refused_with_the_service_message(
    admin_client, admin_user, swiss, games, code_words
):
    from tournaments.models import MatchResult

    table = swiss["table"]
    url = _add_url(MatchResult, table)
    data = form_values(admin_client, url)
    data.update(games_a=games[0], games_b=games[1], games_drawn=games[2])
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert code_words in " ".join(response.context["adminform"].form.non_field_errors())
    assert not MatchResult.objects.exists()
    table.refresh_from_db()
    assert table.version == 0 and table.history.count() == 1
    # a correction is refused the same way, and the stored result stays
    result = services.record_result(
        acting_user=admin_user, table=table, version=None, games_a=2, games_b=1
    )
    url = admin_url(result)
    data = form_values(admin_client, url)
    assert (data["games_a"], data["games_b"]) == ("2", "1")
    data.update(games_a=games[0], games_b=games[1], games_drawn=games[2])
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert code_words in response.content.decode()
    result.refresh_from_db()
    assert (result.games_a, result.games_b, result.games_drawn) == (2, 1, 0)
    assert result.history.count() == 1


def test_changing_a_swiss_result_through_the_admin(admin_client, admin_user, swiss):
    from tournaments.models import MatchResult

    table = swiss["table"]
    result = services.record_result(
        acting_user=None, table=table, version=None, games_a=2, games_b=1
    )
    url = admin_url(result)
    data = form_values(admin_client, url)
    data.update(games_a="1", games_b="1", games_drawn="1")
    response = admin_client.post(url, data)
    assert response.status_code == 302, _form_errors(response)
    result = MatchResult.objects.get(table=table)
    assert (result.games_a, result.games_b, result.games_drawn) == (1, 1, 1)
    latest = result.history.first()
    assert latest.history_user == admin_user and latest.history_type == "~"
    table.refresh_from_db()
    assert table.version == 2


def test_adding_and_changing_a_table_game_result_through_the_admin(
    admin_client, admin_user, table_game
):
    from tournaments.models import TableResult

    table, entries = table_game["table"], table_game["entries"]
    url = _add_url(TableResult, table)
    page = admin_client.get(url).content.decode()
    assert "VP · 1. Ana Ruiz" in page and "Terminó por tiempo" in page
    data = form_values(admin_client, url)
    data.update(_vp(entries, (10, 7, 3)))
    response = admin_client.post(url, data)
    assert response.status_code == 302, _form_errors(response)
    result = TableResult.objects.get(table=table)
    assert not result.ended_by_time
    assert [s.victory_points for s in table.seats.order_by("position")] == [10, 7, 3]
    assert result.history.get().history_user == admin_user
    seat = table.seats.get(entry=entries[0])
    assert seat.history.first().history_user == admin_user
    table.refresh_from_db()
    assert table.version == 1

    url = admin_url(result)
    data = form_values(admin_client, url)
    assert data[f"vp_{entries[1].pk}"] == "7"
    data.update(_vp(entries, (10, 12, 3)), ended_by_time="on")
    response = admin_client.post(url, data)
    assert response.status_code == 302, _form_errors(response)
    result.refresh_from_db()
    assert result.ended_by_time
    assert [s.victory_points for s in table.seats.order_by("position")] == [10, 12, 3]
    assert result.history.first().history_user == admin_user
    table.refresh_from_db()
    assert table.version == 2


def test_a_table_game_result_with_a_missing_vp_is_refused(admin_client, admin_user, table_game):
    from tournaments.models import TableResult

    table, entries = table_game["table"], table_game["entries"]
    url = _add_url(TableResult, table)
    data = form_values(admin_client, url)
    data.update(_vp(entries, (10, "", 3)))
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "Falta el resultado (puntos de victoria)" in " ".join(
        response.context["adminform"].form.non_field_errors()
    )
    assert not TableResult.objects.exists()
    assert list(table.seats.values_list("victory_points", flat=True)) == [None, None, None]
    table.refresh_from_db()
    assert table.version == 0

    result = services.record_result(
        acting_user=admin_user, table=table, version=None, scores=_vp_scores(entries)
    )
    url = admin_url(result)
    data = form_values(admin_client, url)
    data[f"vp_{entries[2].pk}"] = ""
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "Falta el resultado (puntos de victoria)" in response.content.decode()
    assert [s.victory_points for s in table.seats.order_by("position")] == [10, 7, 3]
    assert result.history.count() == 1


def test_a_table_game_result_through_the_table_page_inline(admin_client, table_game):
    from tournaments.models import TableResult

    table, entries = table_game["table"], table_game["entries"]
    url = admin_url(table)
    page = admin_client.get(url).content.decode()
    assert 'id="table_result-group"' in page and 'id="result-group"' not in page
    data = form_values(admin_client, url)
    data.update({f"table_result-0-{k}": v for k, v in _vp(entries, (4, 9, 9)).items()})
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert TableResult.objects.filter(table=table).exists()
    assert [s.victory_points for s in table.seats.order_by("position")] == [4, 9, 9]
    table.refresh_from_db()
    assert table.version == 1


@pytest.mark.parametrize("kind", ["swiss", "table_game"])
def test_deleting_a_result_through_the_admin_removes_it_with_history(
    admin_client, admin_user, kind, request
):
    fixture = request.getfixturevalue(kind)
    table, entries = fixture["table"], fixture["entries"]
    if kind == "swiss":
        values = {"games_a": 2, "games_b": 0}
    else:
        values = {"scores": _vp_scores(entries)}
    result = services.record_result(acting_user=None, table=table, version=None, **values)
    model = type(result)
    response = admin_client.post(admin_url(result, "delete"), {"post": "yes"})
    assert response.status_code == 302
    assert not model.objects.filter(pk=result.pk).exists()
    gone = model.history.filter(id=result.pk).first()
    assert gone.history_type == "-" and gone.history_user == admin_user
    assert list(table.seats.values_list("victory_points", flat=True)) == [None] * len(entries)
    if kind == "table_game":
        seat = table.seats.get(entry=entries[0])
        assert seat.history.first().history_user == admin_user
    table.refresh_from_db()
    assert table.version == 2
    assert table.history.first().history_user == admin_user


def test_a_closed_round_is_corrected_and_closed_again(admin_client, admin_user, swiss):
    table, rnd = swiss["table"], swiss["round"]
    result = services.record_result(
        acting_user=None, table=table, version=None, games_a=2, games_b=1
    )
    services.close_round(acting_user=None, round=rnd)
    url = admin_url(result)
    data = form_values(admin_client, url)
    data.update(games_a="0", games_b="2", games_drawn="0")
    response = admin_client.post(url, data)
    assert response.status_code == 302, _form_errors(response)
    result.refresh_from_db()
    assert (result.games_a, result.games_b) == (0, 2)
    rnd.refresh_from_db()
    assert rnd.closed
    reopened, closed = list(rnd.history.order_by("history_date", "history_id"))[-2:]
    assert (reopened.closed, closed.closed) == (False, True)
    assert reopened.history_user == closed.history_user == admin_user


def test_a_domino_result_added_through_the_admin_is_validated_as_before(
    admin_client, admin_user, club
):
    """A new dominó result: its boxes are the system's (tantos A/B, by time, no-show)."""
    table, t = club["table"], club["tournament"]
    services.delete_result(acting_user=admin_user, table=table, version=None)
    url = _add_url(Result, table)
    page = admin_client.get(url).content.decode()
    assert "Tantos A" in page and "Terminó por tiempo" in page
    data = form_values(admin_client, url)
    data.update(tantos_a="100", tantos_b="100")
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "Los dos lados llegaron a la meta de 100" in _form_errors(response)
    data.update(tantos_a="40", tantos_b="30", ended_by_time="on")
    response = admin_client.post(url, data)
    assert response.status_code == 302, _form_errors(response)
    result = Result.objects.get(table=table)
    assert (result.tantos_a, result.tantos_b, result.ended_by_time) == (40, 30, True)
    assert result.played_at is not None and result.entered_by == admin_user
    assert _figures(t, club["entries"][0])["won"] == 1
    # a no-show through the admin: the tournament's forfeit score, as on the round page
    url = admin_url(result)
    data = form_values(admin_client, url)
    data.pop("ended_by_time")  # unticked
    data["forfeit"] = "A"
    response = admin_client.post(url, data)
    assert response.status_code == 302, _form_errors(response)
    result.refresh_from_db()
    assert (result.tantos_a, result.tantos_b, result.forfeit) == (0, 100, True)


def test_tournament_created_in_the_admin_goes_through_the_services(admin_client, admin_user):
    url = admin_url(Tournament, "add")
    data = form_values(admin_client, url)
    data.update(
        name="  Copa Nueva  ",
        slug="copa-nueva",
        date="2026-12-05",
        system="swiss",
        mode="individual",
        target="100",
        bye_rule="rest",
        forfeit_loser_tantos="0",
        best_of="5",
        rounds_planned="3",
        status="draft",
    )
    data.pop("directors", None)  # a multiple select with nothing chosen posts nothing
    response = admin_client.post(url, data)
    assert response.status_code == 200
    # the service's rule: the Swiss system has no rotating partners
    assert "no admite esa modalidad" in " ".join(response.context["adminform"].form.errors["mode"])
    assert not Tournament.objects.filter(slug="copa-nueva").exists()
    data["mode"] = "pairs"
    response = admin_client.post(url, data)
    assert response.status_code == 302, _form_errors(response)
    t = Tournament.objects.get(slug="copa-nueva")
    assert (t.name, t.system, t.best_of) == ("Copa Nueva", "swiss", 5)
    assert t.history.first().history_user == admin_user


def test_castigo_added_in_the_admin_goes_through_the_services(admin_client, admin_user, club):
    t, player = club["tournament"], club["players"][1]
    url = admin_url(Castigo, "add")
    data = form_values(admin_client, url)
    data.update(tournament=str(t.pk), player=str(player.pk), tantos="0", reason="Hablar")
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "tantos" in response.context["adminform"].form.errors
    data["tantos"] = "5"
    response = admin_client.post(url, data)
    assert response.status_code == 302, _form_errors(response)
    castigo = Castigo.objects.get(player=player)
    assert castigo.entered_by == admin_user
    response = admin_client.post(admin_url(castigo, "delete"), {"post": "yes"})
    assert response.status_code == 302
    assert not Castigo.objects.filter(pk=castigo.pk).exists()
    assert Castigo.history.filter(id=castigo.pk).first().history_user == admin_user


def test_admin_refuses_a_seat_move_that_leaves_a_scored_table_one_sided(client, db):
    """Moving side B's only seat to side A of a table with a result would leave a game nobody
    can score: refused in words, nothing changed; the standings keep working."""
    import datetime as dt

    from django.contrib.auth.models import User

    from tournaments import services
    from tournaments.models import Seat

    admin_user = User.objects.create_superuser("jefa", password="clave-de-prueba-3")
    client.force_login(admin_user)
    t = services.create_tournament(
        acting_user=None,
        name="Copa Asientos",
        date=dt.date(2026, 11, 7),
        system="domino",
        mode="single",
        target=100,
        status="running",
    )
    a, b = (
        services.register_entry(
            acting_user=None,
            tournament=t,
            players=[services.create_player(acting_user=None, full_name=name)],
        )
        for name in ("Asiento Uno", "Asiento Dos")
    )
    rnd = services.set_pairings(acting_user=None, tournament=t, round_number=1, tables=[([a], [b])])
    table = rnd.tables.get()
    services.record_result(acting_user=None, table=table, version=0, tantos_a=100, tantos_b=20)
    seat = Seat.objects.get(table=table, side="B")
    url = f"/admin/tournaments/seat/{seat.pk}/change/"
    r = client.post(url, {"table": table.pk, "entry": b.pk, "side": "A", "position": "2"})
    assert r.status_code == 200
    assert "sus asientos deben quedar completos" in r.content.decode()
    r = client.post(url, {"table": table.pk, "entry": b.pk, "side": "B", "position": "9"})
    assert "En este torneo el número de un asiento va de 1 a 2." in r.content.decode()
    r = client.post(url, {"table": table.pk, "entry": b.pk, "side": "C", "position": "1"})
    assert r.status_code == 200
    assert (Seat.objects.get(pk=seat.pk).side, Seat.objects.get(pk=seat.pk).position) == ("B", 1)
    assert [line.entry.name for line in t.standings()] == ["Asiento Uno", "Asiento Dos"]


def test_admin_keeps_the_seats_of_a_scored_table(client, db):
    """A seat of a table with a result is neither deleted nor moved to another table: its game
    (and another's) would change without a word. Deleting the result first frees it."""
    import datetime as dt

    from django.contrib.auth.models import User

    from tournaments import services
    from tournaments.models import Seat

    client.force_login(User.objects.create_superuser("jefe", password="clave-de-prueba-4"))
    t = services.create_tournament(
        acting_user=None,
        name="Copa Mesas",
        date=dt.date(2026, 11, 8),
        system="table",
        status="running",
    )
    e = [
        services.register_entry(
            acting_user=None,
            tournament=t,
            players=[services.create_player(acting_user=None, full_name=f"Mesa {i}")],
        )
        for i in range(7)
    ]
    rnd = services.set_seating(
        acting_user=None, tournament=t, round_number=1, tables=[e[:4], e[4:]]
    )
    one, two = rnd.tables.order_by("number")
    services.record_result(
        acting_user=None, table=one, version=0, scores={x.pk: 10 - i for i, x in enumerate(e[:4])}
    )
    seat = Seat.objects.get(table=one, entry=e[3])
    assert (
        client.post(f"/admin/tournaments/seat/{seat.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    r = client.post(
        f"/admin/tournaments/seat/{seat.pk}/change/",
        {"table": two.pk, "entry": e[3].pk, "side": "A", "position": "4"},
    )
    assert "borra el resultado antes de quitar o mover el asiento" in r.content.decode()
    assert Seat.objects.get(pk=seat.pk).table_id == one.pk
    services.delete_result(acting_user=None, table=one, version=None)
    r = client.post(f"/admin/tournaments/seat/{seat.pk}/delete/", {"post": "yes"})
    assert r.status_code == 302 and not Seat.objects.filter(pk=seat.pk).exists()
