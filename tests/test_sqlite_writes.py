"""The zero-setup SQLite database queues two writes that arrive at the same moment (every
transaction begins IMMEDIATE, clubsite/settings.py) instead of failing one of them with
"database is locked". PostgreSQL's row locks are tested in tests/test_concurrency.py."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.db import connection, connections

from tournaments import services
from tournaments.errors import DomainError
from tournaments.models import Result

pytestmark = [
    pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's own locking"),
    pytest.mark.django_db(transaction=True),
]


def test_two_results_saved_at_the_same_moment_both_land_or_one_is_told_stale():
    t = services.create_tournament(
        acting_user=None,
        name="Copa Simultánea",
        date=dt.date(2026, 5, 2),
        mode="single",
        target=100,
        status="running",
        rounds_planned=20,
    )
    entries = [
        services.register_entry(
            acting_user=None,
            tournament=t,
            players=[services.create_player(acting_user=None, full_name=f"Simultáneo {k}")],
        )
        for k in range(4)
    ]
    for number in range(1, 21):
        rnd = services.set_pairings(
            acting_user=None,
            tournament=t,
            round_number=number,
            tables=[([entries[0]], [entries[1]]), ([entries[2]], [entries[3]])],
        )
        tables = list(rnd.tables.order_by("number"))
        # two directors: one saves each table, and both save table 1 with the same version
        jobs = [(tables[0], 100, 10), (tables[1], 100, 20), (tables[0], 100, 30)]
        barrier = threading.Barrier(len(jobs))
        outcomes = [None] * len(jobs)

        def save(i, table, a, b, barrier=barrier, outcomes=outcomes):
            try:
                barrier.wait(timeout=30)
                services.record_result(
                    acting_user=None, table=table, version=0, tantos_a=a, tantos_b=b
                )
                outcomes[i] = "ok"
            except DomainError as exc:
                outcomes[i] = exc.code
            except Exception as exc:  # noqa: BLE001 - reported to the test
                outcomes[i] = repr(exc)
            finally:
                connections.close_all()

        threads = [threading.Thread(target=save, args=(i, *job)) for i, job in enumerate(jobs)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=60)
        assert outcomes[1] == "ok", outcomes
        assert sorted([outcomes[0], outcomes[2]]) == ["ok", "stale_version"], outcomes
        assert Result.objects.filter(table__round=rnd).count() == 2
        services.close_round(acting_user=None, round=rnd)
