"""``manage.py generate_club``: deterministic for a seed, valid results, ledger rebuilt once."""

import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from rankings.models import LedgerRow
from tournaments.models import Entry, MatchResult, Player, Result, Seat, Tournament
from tournaments.scoring import domino, swiss

pytestmark = pytest.mark.django_db

END = dt.date(2026, 11, 28)


def generate(*args):
    out = StringIO()
    call_command("generate_club", "--end", END.isoformat(), *args, stdout=out)
    return out.getvalue()


def snapshot(tournaments):
    """Everything the public sees of ``tournaments``, without database ids."""
    shot = []
    for t in tournaments:
        lines = [
            (
                line.row.position,
                line.row.shared,
                line.entry.name,
                sorted((k, str(v)) for k, v in line.row.figures.items() if k != "per_round"),
            )
            for line in t.standings()
        ]
        shot.append(
            (t.name, t.date, t.system, t.mode, t.target, t.time_limit, t.rounds.count(), lines)
        )
    return shot


def test_same_seed_gives_the_same_club_and_standings():
    out = generate("--players", "40", "--tournaments", "4", "--seed", "7")
    first_ids = list(Tournament.objects.order_by("date", "pk").values_list("pk", flat=True))
    assert len(first_ids) == 4
    assert "Torneos: 4" in out and "sin historial" in out
    generate("--players", "40", "--tournaments", "4", "--seed", "7")
    second = Tournament.objects.exclude(pk__in=first_ids).order_by("date", "pk")
    assert snapshot(Tournament.objects.filter(pk__in=first_ids).order_by("date", "pk")) == snapshot(
        second
    )
    assert Player.objects.count() == 80


def test_another_seed_gives_another_club():
    generate("--players", "40", "--tournaments", "4", "--seed", "7", "--skip-ledger")
    first_ids = list(Tournament.objects.values_list("pk", flat=True))
    generate("--players", "40", "--tournaments", "4", "--seed", "8", "--skip-ledger")
    second = Tournament.objects.exclude(pk__in=first_ids).order_by("date", "pk")
    assert snapshot(second) != snapshot(
        Tournament.objects.filter(pk__in=first_ids).order_by("date", "pk")
    )


def test_results_are_valid_and_the_ledger_is_rebuilt():
    generate("--players", "60", "--tournaments", "6", "--seed", "3")
    for r in Result.objects.select_related("table__round__tournament"):
        t = r.table.round.tournament
        domino.validate_result(
            r.tantos_a, r.tantos_b, target=t.target, ended_by_time=r.ended_by_time
        )
        assert r.played_at is not None
        assert not r.ended_by_time or t.time_limit
    for m in MatchResult.objects.select_related("table__round__tournament"):
        swiss.validate_match(
            m.games_a, m.games_b, m.games_drawn, best_of=m.table.round.tournament.best_of
        )
    rated = Result.objects.filter(table__round__tournament__rated=True, forfeit=False).count()
    assert LedgerRow.objects.values("table_id").distinct().count() >= rated > 0
    assert Player.history.count() == 0 and Result.history.count() == 0  # generated: no history rows


def test_single_tournament_has_the_size_and_rounds_asked():
    out = generate(
        "--players",
        "70",
        "--tournaments",
        "0",
        "--single-tournament-size",
        "33",
        "--rounds",
        "5",
        "--slug",
        "abierto-33",
        "--skip-ledger",
    )
    assert "abierto-33" in out
    t = Tournament.objects.get(slug="abierto-33")
    assert (t.system, t.mode, t.entries.count(), t.rounds.count()) == ("domino", "pairs", 33, 5)
    # 33 pairs: 16 tables and one bye a round, every pair seated at most once a round.
    assert Seat.objects.filter(round__tournament=t).count() == 5 * 32
    assert all(e.player2_id for e in Entry.objects.filter(tournament=t))
    assert [len(line.entry.player_ids()) for line in t.standings()] == [2] * 33


def test_refuses_a_tournament_larger_than_the_players():
    with pytest.raises(CommandError):
        generate("--players", "20", "--tournaments", "0", "--single-tournament-size", "16")
