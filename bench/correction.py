"""Benchmark: a correction of the season's first game against an ordinary save, through the real
result-row view, with the ledger replay in the background worker.

    .venv/bin/python bench/correction.py                          # PostgreSQL, 100,000 games
    .venv/bin/python bench/correction.py --games 20000 --db sqlite

The season: ``--games`` rated dominó games (pairs to 100) of 400 players, in tournaments of 40
pairs × 10 rounds of 20 tables (as ``bench/ledger_rebuild.make_season``), dated from 3 January
of this year to yesterday (several tournaments a day when there are more than days: every game
is in this year's season, none in the future); every player plays all season long. Written
with ``bulk_create``; then ``manage.py rebuild_ledger`` and ANALYZE. Every round is closed
except the first round of the first tournament (the director reopened it to correct the
season's first game: the earliest rated game of this year by ledger ``order_key``) and the
last round of the last tournament (running: the "late-season" tables of the ordinary saves).

Then ``manage.py db_worker --interval 0.1 --no-reload --no-startup-delay`` runs as a separate
process on the same database (DJANGO_TASKS_BACKEND=database), a superuser logs in through the login page
with ``django.test.Client`` (DEBUG off, page cache on, as in production), and each save is the round
page's result row posted as HTMX posts it (``bench/_rows.py``: the row's fields read from the
round page, its hidden ``version`` included). Interleaved, ``--repeat`` times:

- ``save_ms``: an ordinary save (a late-season table, a different score each time), the worker
  idle before it (no ``ReplayRequest`` waiting, no task queued or running); request time;
- ``current_within_s``: after that save, seconds until ``rankings.health.pending()`` is None
  (the worker has replayed it);
- ``correction_ms``: a correction of the season's first game (its winner swapped each time),
  request time only; the worker then replays the whole season (its time is printed too) and
  the next step waits until it is idle;
- ``save_during_replay_ms``: another such correction, then, once the worker's replay task is
  running, an ordinary save timed while it runs.

Targets: correction ≤ 2× save, save during a replay ≤ 2× save alone, current within 2 s. The
last line is exactly ``correction_ms=<x.x> save_ms=<x.x> ratio=<x.xx>``. The worker is stopped
(by its pid) and the database dropped at the end, also on failure (``--keep`` keeps it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _setup import ROOT, collect_static, django_on, drop_database, production_like

DB_NAME = "clubsite_bench_correction"
PLAYERS, PAIRS, TABLES, ROUNDS = 400, 40, 20, 10
IDLE_TIMEOUT = 1800.0  # seconds a replay may take before the run is given up


def build_season(n_games: int, first_day: dt.date, last_day: dt.date, seed: int = 7) -> dict:
    """Write the season (see the module docstring) and return its shape: tournaments (slugs in
    date order), games, first and last day."""
    from django.utils import timezone

    from tournaments.models import Entry, Player, Result, Round, Seat, Table, Tournament

    zone = timezone.get_current_timezone()
    rng = random.Random(seed)
    players = Player.objects.bulk_create(
        Player(full_name=f"Bench {i:04d}", name_key=f"bench {i:04d}") for i in range(PLAYERS)
    )
    per_tournament = TABLES * ROUNDS
    n_tournaments = max(2, round(n_games / per_tournament))
    span = (last_day - first_day).days
    slugs = []
    for ti in range(n_tournaments):
        day = first_day + dt.timedelta(days=ti * span // (n_tournaments - 1))
        first, last = ti == 0, ti == n_tournaments - 1
        t = Tournament.objects.create(
            name=f"Temporada {ti + 1}",
            slug=f"temporada-{ti + 1}",
            date=day,
            system="domino",
            mode="pairs",
            target=100,
            rounds_planned=ROUNDS,
            rated=True,
            status=Tournament.Status.RUNNING if last else Tournament.Status.FINISHED,
        )
        slugs.append(t.slug)
        chosen = rng.sample(players, 2 * PAIRS)
        entries = Entry.objects.bulk_create(
            Entry(tournament=t, player1=chosen[2 * i], player2=chosen[2 * i + 1])
            for i in range(PAIRS)
        )
        rounds = Round.objects.bulk_create(
            Round(
                tournament=t,
                number=n + 1,
                closed=not ((first and n == 0) or (last and n == ROUNDS - 1)),
            )
            for n in range(ROUNDS)
        )
        tables = Table.objects.bulk_create(
            Table(round=r, number=k + 1) for r in rounds for k in range(TABLES)
        )
        seats, results = [], []
        order = entries[:]
        start = dt.datetime.combine(day, dt.time(10), tzinfo=zone)
        for idx, table in enumerate(tables):
            r = rounds[idx // TABLES]
            if idx % TABLES == 0:
                rng.shuffle(order)
            a, b = order[2 * (idx % TABLES)], order[2 * (idx % TABLES) + 1]
            seats += [
                Seat(table=table, round=r, entry=a, side="A"),
                Seat(table=table, round=r, entry=b, side="B"),
            ]
            loser = rng.randint(0, 99)
            ta, tb = (100, loser) if rng.random() < 0.5 else (loser, 100)
            when = start + dt.timedelta(hours=idx // TABLES)
            results.append(Result(table=table, tantos_a=ta, tantos_b=tb, played_at=when))
        Seat.objects.bulk_create(seats)
        Result.objects.bulk_create(results)
    return {
        "slugs": slugs,
        "games": n_tournaments * per_tournament,
        "first_day": first_day,
        "last_day": first_day + dt.timedelta(days=span),
    }


def start_worker(log_path: Path) -> subprocess.Popen:
    """``manage.py db_worker`` on this run's database, polling every 0.1 s."""
    env = {**os.environ, "DJANGO_TASKS_BACKEND": "database", "DJANGO_LOG_LEVEL": "ERROR"}
    return subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--interval", "0.1", "--no-reload"]
        + ["--no-startup-delay", "--verbosity", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(log_path, "wb"),  # noqa: SIM115 - closed with the process
    )


def stop_worker(worker: subprocess.Popen | None) -> None:
    """Stop the worker started here, by its pid: SIGTERM, then SIGKILL after 10 s."""
    if worker is None or worker.poll() is not None:
        return
    worker.terminate()
    try:
        worker.wait(10)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait(10)


class Worker:
    """What the bench process sees of the background replay (its own database reads)."""

    def __init__(self, proc: subprocess.Popen, log_path: Path):
        self.proc, self.log_path = proc, log_path

    def _check_alive(self) -> None:
        if self.proc.poll() is not None:
            tail = self.log_path.read_text(errors="replace")[-3000:]
            raise SystemExit(f"the worker stopped (status {self.proc.returncode}):\n{tail}")

    def busy(self) -> bool:
        """A change waits for its replay, or a task is queued or running."""
        from django_tasks_db.models import DBTaskResult

        from rankings import health

        return (
            health.pending() is not None
            or DBTaskResult.objects.ready().exists()
            or DBTaskResult.objects.running().exists()
        )

    def wait_idle(self, timeout: float = IDLE_TIMEOUT) -> float:
        """Wait until nothing waits for the worker; return the seconds waited."""
        started = time.perf_counter()
        while self.busy():
            self._check_alive()
            if time.perf_counter() - started > timeout:
                raise SystemExit(f"the worker did not finish within {timeout:.0f} s")
            time.sleep(0.05)  # three queries a poll: gently, the worker shares the CPUs
        self.check_no_failure()
        return time.perf_counter() - started

    def wait_current(self) -> float:
        """Seconds until ``health.pending()`` is None (polled every 10 ms)."""
        from rankings import health

        started = time.perf_counter()
        while health.pending() is not None:
            self._check_alive()
            if time.perf_counter() - started > IDLE_TIMEOUT:
                raise SystemExit("the ranking did not become current")
            time.sleep(0.01)
        return time.perf_counter() - started

    def running_task(self, timeout: float = 30.0):
        """The pk of the task the worker is running, waiting for it to start (None if the
        replay was over before it was seen running)."""
        from django_tasks_db.models import DBTaskResult

        from rankings import health

        started = time.perf_counter()
        while time.perf_counter() - started < timeout:
            pk = DBTaskResult.objects.running().values_list("pk", flat=True).first()
            if pk is not None:
                return pk
            if health.pending() is None:
                return None
            self._check_alive()
            time.sleep(0.002)
        return None

    @staticmethod
    def last_task() -> tuple[float, float]:
        """The last finished task: seconds from its enqueueing to its start (waiting for the
        worker), and from its start to its end (the replay)."""
        from django_tasks_db.models import DBTaskResult

        task = DBTaskResult.objects.finished().order_by("-finished_at").first()
        return (
            (task.started_at - task.enqueued_at).total_seconds(),
            (task.finished_at - task.started_at).total_seconds(),
        )

    @staticmethod
    def still_running(pk) -> bool:
        from django_tasks_db.models import DBTaskResult

        return DBTaskResult.objects.running().filter(pk=pk).exists()

    @staticmethod
    def check_no_failure() -> None:
        from django_tasks_db.models import DBTaskResult

        from rankings import health

        failed = DBTaskResult.objects.failed().count()
        status = health.attention()
        if failed or status is not None:
            raise SystemExit(
                f"a replay failed: {failed} failed task(s), ranking status {status and status.problems}"
            )


def main() -> int:
    """Parse the options, set up Django on a throw-away database, ``run``, and clean up
    (the worker, the database, the temporary folder) whatever happens."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="postgres")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7, help="runs of each measurement (≥ 5)")
    parser.add_argument("--keep", action="store_true", help="keep the PostgreSQL database")
    args = parser.parse_args()
    if args.repeat < 5:
        parser.error("--repeat must be at least 5")

    production_like()
    os.environ["DJANGO_TASKS_BACKEND"] = "database"
    os.environ.pop("DATABASE_REPLICA_URL", None)
    os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # cleanup on kill too
    work = Path(tempfile.mkdtemp(prefix="clubsite-bench-correction-"))
    started: list[subprocess.Popen] = []
    try:
        django_on(args.db, DB_NAME)
        return run(args, work, started.append)
    finally:
        for proc in started:
            stop_worker(proc)
        db_url = os.environ.get("DATABASE_URL", "")
        if args.db == "postgres" and not args.keep:
            try:
                drop_database(DB_NAME)
            except Exception as exc:  # noqa: BLE001 - reported, the rest of the cleanup goes on
                print(f"could not drop {DB_NAME}: {exc!r}", file=sys.stderr)
        elif args.db == "sqlite" and db_url.startswith("sqlite:///"):
            shutil.rmtree(Path(db_url.removeprefix("sqlite:///")).parent, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


def run(args, work: Path, remember_worker) -> int:
    """Build the season, start the worker (``remember_worker(process)``: the caller stops
    it), log in and measure; prints the figures. Returns the exit status (0). ``work``: a
    temporary folder (the worker's log)."""
    collect_static()
    from _rows import row_fields, save_row
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.urls import reverse
    from django.utils import timezone

    from rankings.models import LedgerRow
    from tournaments.models import Table

    today = timezone.localdate()
    first_day, last_day = dt.date(today.year, 1, 3), today - dt.timedelta(days=1)
    if (last_day - first_day).days < 30:
        raise SystemExit("the season needs at least a month of this year: run it after 2 February")
    t0 = time.perf_counter()
    season = build_season(args.games, first_day, last_day)
    print(
        f"season: {season['games']} rated dominó games (pairs) of {PLAYERS} players in "
        f"{len(season['slugs'])} tournaments, {season['first_day']} .. {season['last_day']}, "
        f"made in {time.perf_counter() - t0:.1f} s ({args.db})"
    )
    t0 = time.perf_counter()
    call_command("rebuild_ledger", verbosity=0, stdout=io.StringIO())
    if connection.vendor == "postgresql":  # what autovacuum does after a bulk load
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    print(
        f"ledger rebuilt (manage.py rebuild_ledger) and analysed in {time.perf_counter() - t0:.1f} s: "
        f"{LedgerRow.objects.count()} rows"
    )

    first_table_id = (
        LedgerRow.objects.filter(year=today.year)
        .order_by("order_key")
        .values_list("table_id", flat=True)
        .first()
    )
    first = Table.objects.select_related("round__tournament").get(pk=first_table_id)
    assert first.round.tournament.slug == season["slugs"][0] and not first.round.closed, first
    late = list(
        Table.objects.select_related("round__tournament")
        .filter(round__tournament__slug=season["slugs"][-1], round__number=ROUNDS)
        .order_by("number")
    )
    print(
        f"season's first game: {first.round.tournament.name}, round {first.round.number}, "
        f"table {first.number} (table id {first.pk}); ordinary saves: "
        f"{late[0].round.tournament.name}, round {ROUNDS}, tables 1..{len(late)}"
    )

    def urls(table):
        """The round page of ``table`` and the URL its result row posts to."""
        slug = table.round.tournament.slug
        return (
            reverse("manage:round", args=[slug, table.round.number]),
            reverse("manage:result_save", args=[slug, table.pk]),
        )

    user_model = get_user_model()
    password = "bench-" + os.urandom(8).hex()
    user_model.objects.create_superuser("bench-director", "bench@example.invalid", password)
    client = Client()
    login = client.post(reverse("login"), {"username": "bench-director", "password": password})
    assert login.status_code == 302 and "_auth_user_id" in client.session, login.status_code

    worker_log = work / "worker.log"
    proc = start_worker(worker_log)
    remember_worker(proc)
    worker = Worker(proc, worker_log)
    waited = worker.wait_idle()
    print(f"worker: manage.py db_worker (pid {proc.pid}) started, idle after {waited:.1f} s")

    def save(table, a, b):
        round_url, save_url = urls(table)
        fields = row_fields(client, round_url, save_url)
        seconds, status, _ = save_row(client, save_url, fields, a, b)
        assert status == 200, (save_url, status)
        return seconds

    save_ms, current_s, correction_ms, replay_s, during_ms = [], [], [], [], []
    pickup_s, task_s = [], []  # the ordinary saves' replay tasks: waiting, running
    overlapped = still = 0
    swap = 0
    for i in range(args.repeat):
        # 1. an ordinary save, the worker idle; then how long until the ranking is current
        worker.wait_idle()
        table = late[i % len(late)]
        a, b = (100, 20 + i) if i % 2 == 0 else (20 + i, 100)
        save_ms.append(save(table, a, b) * 1000)
        current_s.append(worker.wait_current())
        worker.wait_idle()
        queued, ran = worker.last_task()
        pickup_s.append(queued)
        task_s.append(ran)

        # 2. a correction of the season's first game; then its replay, in the background
        swap += 1
        a, b = (100, 40) if swap % 2 else (40, 100)
        correction_ms.append(save(first, a, b) * 1000)
        replay_s.append(worker.wait_current())
        worker.wait_idle()

        # 3. another correction, and an ordinary save while its replay runs
        other = late[(i + 7) % len(late)]
        round_url, save_url = urls(other)
        fields = row_fields(client, round_url, save_url)  # the row as the phone shows it
        swap += 1
        a, b = (100, 40) if swap % 2 else (40, 100)
        save(first, a, b)
        task = worker.running_task()
        if task is not None:
            overlapped += 1
        a, b = (100, 60 + i) if i % 2 else (60 + i, 100)
        seconds, status, _ = save_row(client, save_url, fields, a, b)
        assert status == 200, (save_url, status)
        during_ms.append(seconds * 1000)
        if task is not None and worker.still_running(task):
            still += 1
        worker.wait_idle()
        print(
            f"  run {i + 1}: save {save_ms[-1]:.1f} ms (current after {current_s[-1]:.2f} s), "
            f"correction {correction_ms[-1]:.1f} ms (replayed in {replay_s[-1]:.1f} s), "
            f"save during replay {during_ms[-1]:.1f} ms",
            flush=True,
        )

    def med(values):
        return statistics.median(values)

    def runs(values, fmt="{:.0f}"):
        return ", ".join(fmt.format(v) for v in values)

    def verdict(ok):
        return "met" if ok else "MISSED"

    s, c, d, cur = med(save_ms), med(correction_ms), med(during_ms), med(current_s)
    print(
        f"machine: {os.cpu_count()} cores, load average {' '.join(Path('/proc/loadavg').read_text().split()[:3])}"
    )
    print(
        f"save_ms: median {s:.1f} ms of {len(save_ms)} ordinary saves, worker idle (runs: {runs(save_ms)})"
    )
    print(
        f"correction_ms: median {c:.1f} ms of {len(correction_ms)} corrections of the season's first "
        f"game (runs: {runs(correction_ms)}); {c / s:.2f}x save (target <= 2x: {verdict(c <= 2 * s)})"
    )
    print(
        f"  its replay in the worker (whole season, {LedgerRow.objects.count()} ledger rows): "
        f"median {med(replay_s):.1f} s after the answer (runs: {runs(replay_s, '{:.1f}')})"
    )
    print(
        f"save_during_replay_ms: median {d:.1f} ms of {len(during_ms)} (runs: {runs(during_ms)}; "
        f"replay seen running at the start of {overlapped}, still running at the end of {still}); "
        f"{d / s:.2f}x save alone (target <= 2x: {verdict(d <= 2 * s)})"
    )
    print(
        f"current_within_s: median {cur:.2f} s after an ordinary save (runs: "
        f"{runs(current_s, '{:.2f}')}) (target <= 2 s: {verdict(cur <= 2)})"
    )
    print(
        f"  its replay task: median {med(pickup_s):.2f} s queued before the worker took it, "
        f"{med(task_s):.2f} s running (runs: {runs(task_s, '{:.2f}')})"
    )
    print(f"correction_ms={c:.1f} save_ms={s:.1f} ratio={c / s:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
