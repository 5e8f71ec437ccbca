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
    """A small pairs tournament to 100: three pairs, round 1 with one table (A beat B 100–50) and
    a bye for C, a castigo and a sorteo; plus a player who never played."""
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
        rounds_planned=3,
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
        received.append(key)
        return replay_from(key, **kwargs)

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
    assert "menor o igual a 99999" in " ".join(form.errors.get("tantos_a", [])), form.errors
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
