"""``manage.py load_demo``: the demo club holds exactly what it promises."""

import datetime as dt
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone

from tournaments.management.commands import load_demo
from tournaments.models import Castigo, Entry, Player, Result, Round, Table, Tournament
from tournaments.permissions import DIRECTORS_GROUP, is_director

pytestmark = pytest.mark.django_db


def load() -> str:
    out = StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module")
def demo_loaded(module_data):
    """The demo, loaded once for this module (tests/conftest.py ``module_data``): each test
    still starts from it as loaded, whatever the one before wrote."""
    yield from module_data(load)


@pytest.fixture
def demo(demo_loaded):
    return {
        "pairs": Tournament.objects.get(name="Copa de Parejas"),
        "individual": Tournament.objects.get(name="Individual del Club"),
    }


def test_pairs_tournament_is_finished_with_sixteen_pairs_and_five_closed_rounds(demo):
    t = demo["pairs"]
    assert t.status == Tournament.Status.FINISHED
    assert t.mode == Tournament.Mode.PAIRS and t.target == 100
    assert t.rated and t.time_limit == 30
    assert t.entries.count() == 16
    assert all(e.player2_id for e in t.entries.all())
    rounds = list(t.rounds.order_by("number"))
    assert [r.number for r in rounds] == [1, 2, 3, 4, 5]
    assert all(r.closed for r in rounds)
    assert Result.objects.filter(table__round__tournament=t).count() == 5 * 8


def test_pairs_tournament_never_repeats_a_pairing(demo):
    seen = set()
    for table in Table.objects.filter(round__tournament=demo["pairs"]).prefetch_related("seats"):
        pair = frozenset(s.entry_id for s in table.seats.all())
        assert len(pair) == 2
        assert pair not in seen
        seen.add(pair)


def test_pairs_tournament_has_zapatos_time_endings_one_forfeit_and_castigos(demo):
    results = Result.objects.filter(table__round__tournament=demo["pairs"])
    zapatos = [
        r
        for r in results
        if not r.forfeit and not r.ended_by_time and min(r.tantos_a, r.tantos_b) == 0
    ]
    assert zapatos
    by_time = [r for r in results if r.ended_by_time]
    assert by_time and all(max(r.tantos_a, r.tantos_b) < 100 for r in by_time)
    assert results.filter(forfeit=True).count() == 1
    forfeit = results.get(forfeit=True)
    assert sorted((forfeit.tantos_a, forfeit.tantos_b)) == [0, 100]
    assert Castigo.objects.filter(tournament=demo["pairs"]).exists()


def test_final_standings_have_a_tie_decided_by_diferencial(demo):
    lines = demo["pairs"].standings()
    assert len(lines) == 16
    tied = [line for line in lines if line.row.decided_by == "diferencial"]
    assert len(tied) == 2
    first, second = tied
    assert second.row.position == first.row.position + 1
    for figure in ("puntos", "won", "efectividad", "tantos_a_favor"):
        assert first.row.figures[figure] == second.row.figures[figure]
    # the head-to-head game: the one ranked higher won it
    game = Result.objects.get(
        table__round__tournament=demo["pairs"],
        table__seats__entry=first.entry,
        table__in=Result.objects.filter(table__seats__entry=second.entry).values("table"),
    )
    side_first = game.table.seats.get(entry=first.entry).side
    own, other = (
        (game.tantos_a, game.tantos_b) if side_first == "A" else (game.tantos_b, game.tantos_a)
    )
    assert own > other
    assert not any(line.row.shared for line in lines)


def test_individual_tournament_is_running_to_two_hundred(demo):
    t = demo["individual"]
    assert t.status == Tournament.Status.RUNNING
    assert t.mode == Tournament.Mode.INDIVIDUAL and t.target == 200
    assert 12 <= t.entries.count() <= 16
    assert not Entry.objects.filter(tournament=t, player2__isnull=False).exists()
    r1, r2 = Round.objects.filter(tournament=t).order_by("number")
    for rnd in (r1, r2):
        for table in rnd.tables.all():
            sides = [s.side for s in table.seats.all()]
            assert sorted(sides) == ["A", "A", "B", "B"]
    assert Result.objects.filter(table__round=r1).exists()
    assert Result.objects.filter(table__round=r2).count() < r2.tables.count()


def test_director_and_superuser_can_log_in(demo, client):
    director = User.objects.get(username="director")
    assert director.is_staff and director.groups.filter(name=DIRECTORS_GROUP).exists()
    assert is_director(director)
    assert client.login(username="director", password="domino-demo")
    client.logout()
    admin = User.objects.get(username="admin")
    assert admin.is_superuser
    assert client.login(username="admin", password="admin-demo")


def test_writes_are_recorded_in_history_by_the_director(demo):
    director = User.objects.get(username="director")
    result = Result.objects.filter(table__round__tournament=demo["pairs"]).first()
    assert result.history.first().history_user == director
    assert result.entered_by == director


def test_names_are_kept_as_typed(demo):
    for name in ("Дмитрий Вершинин", "王秀兰", "Chucho+1 Robles", "Zoë Ní Bhriain-Núñez"):
        assert Player.objects.filter(full_name=name).exists()


def test_loading_twice_is_harmless(demo):
    counts = (
        Player.objects.count(),
        Tournament.objects.count(),
        Result.objects.count(),
        User.objects.count(),
    )
    out = load()
    assert "La demo ya está cargada." in out
    assert counts == (
        Player.objects.count(),
        Tournament.objects.count(),
        Result.objects.count(),
        User.objects.count(),
    )


def test_the_demo_is_dated_from_the_day_it_is_loaded(demo):
    """A tournament running today, the finished one three weeks before, the Swiss event a
    week either side: the demo never ages (issue: the demo's running tournament was dated 5
    December whatever the year)."""
    today = timezone.localdate()
    week = dt.timedelta(days=7)
    assert demo["individual"].date == today
    assert demo["individual"].status == Tournament.Status.RUNNING
    assert demo["pairs"].date == today - 3 * week
    swiss = Tournament.objects.get(system="swiss")
    assert (swiss.date, swiss.end_date) == (today - week, today + week)
    assert Tournament.objects.get(system="table").date == today


def test_the_current_years_ranking_is_never_empty(demo):
    """Today's rated games are in this year's ranking, whatever day the demo is loaded."""
    from rankings import queries

    ranked = {line.player_id for line in queries.year_ranking(timezone.localdate().year)}
    today_players = set(demo["individual"].entries.values_list("player1_id", flat=True))
    assert len(today_players) == 16 and today_players <= ranked


@pytest.mark.parametrize(
    ("today", "pairs", "swiss"),
    [
        (dt.date(2027, 1, 2), dt.date(2026, 12, 12), (dt.date(2026, 12, 26), dt.date(2027, 1, 9))),
        (dt.date(2026, 6, 30), dt.date(2026, 6, 9), (dt.date(2026, 6, 23), dt.date(2026, 7, 7))),
    ],
)
def test_demo_dates_for_any_day(today, pairs, swiss):
    dates = load_demo.Command._dates(today)
    assert dates == {
        "pairs": pairs,
        "individual": today,
        "swiss": swiss,
        "table": today,
        "signup": today + dt.timedelta(days=14),
    }


def test_the_next_tournament_takes_sign_ups_and_tonights_players_check_in(demo):
    from tournaments.models import SignUp

    spring = Tournament.objects.get(name=load_demo.SIGNUP_NAME)
    assert (spring.status, spring.signup_open, spring.max_entries) == ("registration", True, 12)
    assert spring.date == timezone.localdate() + dt.timedelta(days=14)
    assert SignUp.objects.filter(tournament=spring, status="accepted").count() == 3
    assert spring.entries.count() == 3
    evening = Tournament.objects.get(system="table")
    assert evening.self_check_in and len(evening.check_in_code) == 4


def test_the_demo_has_a_league_a_player_can_open(demo, client):
    from django.urls import reverse

    from tournaments.models import League

    league = League.objects.get(name=load_demo.LEAGUE_NAME)
    season = demo["pairs"].date.year
    assert league.season == season and league.planned_tournaments == 4
    expected = {
        t.name
        for t in Tournament.objects.filter(
            name__in=[load_demo.PAIRS_NAME, load_demo.INDIVIDUAL_NAME, load_demo.SIGNUP_NAME]
        )
        if t.date.year == season
    }
    assert {t.name for t in league.tournaments.all()} == expected
    assert load_demo.PAIRS_NAME in expected
    page = client.get(reverse("public:league", args=[league.slug]))
    assert page.status_code == 200
    assert "Liga del Club" in page.content.decode()
    assert f'href="/ligas/{league.slug}/"' in client.get(reverse("public:leagues")).content.decode()


def test_home_and_calendar_cards_offer_the_sign_up_while_it_is_open(demo, client):
    from django.urls import reverse

    spring = Tournament.objects.get(name=load_demo.SIGNUP_NAME)
    link = f'<a class="button small" href="/torneos/{spring.slug}/inscribirse/">Inscribirse'
    assert link in client.get(reverse("public:home")).content.decode()
    assert link in client.get(reverse("public:calendar")).content.decode()
    spring.signup_open = False
    spring.save()
    assert link not in client.get(reverse("public:home")).content.decode()
