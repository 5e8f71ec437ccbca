"""The writer of bench/throughput_writes.sh: saves dominó results at a steady rate through the
directors' result-row view, into tournaments of its own, while wrk measures the public pages.

    python bench/throughput_writer.py setup [TOURNAMENTS] [PAIRS]   # default 2 tournaments of 16 pairs
    python bench/throughput_writer.py run RATE STOPFILE             # RATE saves a second until STOPFILE exists

Django settings and DATABASE_URL come from the environment (the shell script sets them; the
test client's host ``testserver`` must be in DJANGO_ALLOWED_HOSTS).

``setup`` makes, through ``tournaments.services``, a superuser ``bench-writer`` (password in
the environment, BENCH_WRITER_PASSWORD) and TOURNAMENTS running, rated dominó tournaments
(pairs to 100, dated today, named "Escritura N") of PAIRS new pairs each, round 1 paired.

``run`` logs in through the login page with ``django.test.Client``, reads each table's row from
its round page (``bench/_rows.py``) and then saves one table after another, round-robin over
every table of those tournaments, a different score each time (a first result, then
corrections), paced at RATE saves a second (it never catches up by bursting: a late save just
starts the next one at once). Each save is the row posted as HTMX posts it; its answer gives
the row's next version. On SIGTERM or once STOPFILE exists it prints two lines: the saves made
and refused, the seconds, the saves per second and the median request time; then the request
times of the saves made under load (p50, p99, max) and of the idle ones (median): the saves of
the first ``IDLE_SECONDS`` of the run, while throughput_writes.sh still waits before starting
wrk (3 s after starting the writer, which logs in and reads its round pages first).
"""

from __future__ import annotations

import math
import os
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import django  # noqa: E402

django.setup()

from _rows import forms_of, save_row  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402
from django.utils import timezone  # noqa: E402

from tournaments import services  # noqa: E402
from tournaments.models import Table, Tournament  # noqa: E402

NAME = "Escritura"
USER = "bench-writer"
#: Seconds from the first save during which no load runs yet (the saves counted as idle).
IDLE_SECONDS = 2.0


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (0-100) of ``values`` (nearest rank), NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def setup(n_tournaments: int, pairs: int) -> None:
    user = get_user_model().objects.create_superuser(
        USER, "writer@example.invalid", os.environ["BENCH_WRITER_PASSWORD"]
    )
    for n in range(1, n_tournaments + 1):
        t = services.create_tournament(
            acting_user=user,
            name=f"{NAME} {n}",
            date=timezone.localdate(),
            system="domino",
            mode="pairs",
            target=100,
            rated=True,
            status="running",
            rounds_planned=9,
        )
        players = [
            services.create_player(acting_user=user, full_name=f"Escritor {n} {i:03d}")
            for i in range(2 * pairs)
        ]
        entries = [
            services.register_entry(
                acting_user=user, tournament=t, players=players[2 * i : 2 * i + 2]
            )
            for i in range(pairs)
        ]
        services.set_pairings(
            acting_user=user,
            tournament=t,
            round_number=1,
            tables=[([entries[i]], [entries[i + 1]]) for i in range(0, pairs, 2)],
        )


def run(rate: float, stopfile: str) -> int:
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__("now", True))
    client = Client()
    login = client.post(
        reverse("login"), {"username": USER, "password": os.environ["BENCH_WRITER_PASSWORD"]}
    )
    assert login.status_code == 302 and "_auth_user_id" in client.session, login.status_code

    rows = []  # [save URL, round URL, fields]
    for t in Tournament.objects.filter(name__startswith=NAME).order_by("pk"):
        round_url = reverse("manage:round", args=[t.slug, 1])
        page = client.get(round_url)
        assert page.status_code == 200, (round_url, page.status_code)
        forms = forms_of(page.content.decode())
        for table in Table.objects.filter(round__tournament=t, round__number=1).order_by("number"):
            save_url = reverse("manage:result_save", args=[t.slug, table.pk])
            rows.append([save_url, round_url, forms[save_url]])
    assert rows, "no writer tournaments: run setup first"

    saves = refused = 0
    times, idle, loaded = [], [], []
    started = time.monotonic()
    while not stop["now"] and not os.path.exists(stopfile):
        due = started + (saves + refused) / rate
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
            continue  # check the stop signals again before saving
        row = rows[(saves + refused) % len(rows)]
        k = saves + refused
        a, b = (100, k % 97) if k % 2 else (k % 97, 100)
        began = time.monotonic() - started
        seconds, status, after = save_row(client, row[0], row[2], a, b)
        if status == 200 and after is not None:
            saves += 1
            times.append(seconds)
            (idle if began < IDLE_SECONDS else loaded).append(seconds)
            row[2] = after
        else:
            refused += 1
            print(f"writer: save refused, HTTP {status} at {row[0]}", file=sys.stderr)
            page = client.get(row[1])
            row[2] = forms_of(page.content.decode()).get(row[0], row[2])
    elapsed = time.monotonic() - started
    median = statistics.median(times) * 1000 if times else float("nan")
    print(
        f"writer: {saves} saves in {elapsed:.1f} s = {saves / elapsed:.2f} saves/s "
        f"(asked {rate:g}/s), {refused} refused, median request {median:.1f} ms"
    )
    idle_median = statistics.median(idle) * 1000 if idle else float("nan")
    print(
        f"writer: under load {len(loaded)} saves, p50 {percentile(loaded, 50) * 1000:.1f} ms, "
        f"p99 {percentile(loaded, 99) * 1000:.1f} ms, max {max(loaded, default=0) * 1000:.1f} ms;"
        f" idle (first {IDLE_SECONDS:g} s) {len(idle)} saves, median {idle_median:.1f} ms"
    )
    return 1 if refused else 0


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "setup":
        setup(
            int(sys.argv[2]) if len(sys.argv) > 2 else 2,
            int(sys.argv[3]) if len(sys.argv) > 3 else 16,
        )
    elif command == "run" and len(sys.argv) == 4:
        sys.exit(run(float(sys.argv[2]), sys.argv[3]))
    else:
        sys.exit(__doc__)
