"""The writer of bench/load.sh: saves dominó results continuously through the project's
services while the public pages are under load, then proves that none was lost.

    python bench/load_writer.py setup            # after load_demo: its tournament; prints the slug
    python bench/load_writer.py run SECONDS LOG  # pair a round, save + correct every table, close, ...
                                                 # (LOAD_SITE_URL: and read the public page after each save)
    python bench/load_writer.py verify LOG       # every logged save is in the database

Django settings and DATABASE_URL come from the environment (load.sh sets them). ``run``
logs one JSON line per committed save (table id, the table's version after it, tantos) and
flushes it, so the log holds exactly what the writer was told was stored. ``verify`` checks
that each table's version and stored result are those of its last logged save, that every
logged save is in the result's history (as many times as it was made), and that the ledger
equals a full rebuild. Exit status 1 if anything is missing.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
import time
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.utils import timezone  # noqa: E402

from rankings import ledger  # noqa: E402
from rankings.models import LedgerRow  # noqa: E402
from tournaments import services  # noqa: E402
from tournaments.models import Result, Table, Tournament  # noqa: E402

NAME = "Carga continua"
PAIRS = 32  # 16 tables a round
MAX_ROUND = 99


def director():
    return User.objects.get(username="director")  # made by load_demo


def setup() -> None:
    d = director()
    t = services.create_tournament(
        acting_user=d,
        name=NAME,
        date=timezone.localdate(),
        system="domino",
        mode="pairs",
        target=100,
        rated=True,
        status="running",
        rounds_planned=MAX_ROUND,
    )
    players = [
        services.create_player(acting_user=d, full_name=f"Carga {i:03d}") for i in range(2 * PAIRS)
    ]
    for i in range(PAIRS):
        services.register_entry(acting_user=d, tournament=t, players=players[2 * i : 2 * i + 2])
    print(t.slug)


def random_result(rng: random.Random) -> tuple[int, int]:
    loser = rng.randint(0, 99)
    winner = rng.choice([100, 100, 100, rng.randint(100, 130)])
    return (winner, loser) if rng.random() < 0.5 else (loser, winner)


SCORE = re.compile(r'id="mesa-(\d+)">(?:(?!</li>).)*?<span class="score">(\d+) – (\d+)', re.S)


def public_scores(site: str, slug: str, number: int) -> dict[int, tuple[int, int]]:
    """The scores the public round page shows right now, as an anonymous phone gets it (through
    the page cache): {table number: (tantos_a, tantos_b)}."""
    with urllib.request.urlopen(f"{site}/torneos/{slug}/ronda/{number}/", timeout=10) as response:
        body = response.read().decode()
    return {int(n): (int(a), int(b)) for n, a, b in SCORE.findall(body)}


def run(seconds: float, log_path: str) -> int:
    """Save for ``seconds``; with LOAD_SITE_URL set, also read the public round page right after
    every save and count the pages that did not show it yet. Returns 1 if any did."""
    site = os.environ.get("LOAD_SITE_URL", "").rstrip("/")
    checked = stale = 0
    d = director()
    t = Tournament.objects.get(name=NAME)
    entries = list(t.entries.order_by("pk"))
    rng = random.Random(2026)
    deadline = time.monotonic() + seconds
    saves = failures = rounds = 0
    with open(log_path, "w", encoding="utf-8") as log:
        number = 0
        while time.monotonic() < deadline:
            if number < MAX_ROUND:
                number += 1
                order = entries[:]
                rng.shuffle(order)
                rnd = services.set_pairings(
                    acting_user=d,
                    tournament=t,
                    round_number=number,
                    tables=[([order[i]], [order[i + 1]]) for i in range(0, len(order), 2)],
                )
                rounds += 1
            tables = list(rnd.tables.order_by("number"))
            for table in tables:
                for _ in range(2):  # the result, then a correction of it
                    if time.monotonic() >= deadline:
                        break
                    a, b = random_result(rng)
                    try:
                        services.record_result(
                            acting_user=d,
                            table=table,
                            tantos_a=a,
                            tantos_b=b,
                            version=table.version,
                        )
                    except Exception as exc:  # noqa: BLE001 - counted and reported
                        failures += 1
                        print(f"writer: save refused: {exc!r}", file=sys.stderr)
                        table.refresh_from_db()
                        continue
                    table.version += 1
                    log.write(
                        json.dumps({"table": table.pk, "version": table.version, "a": a, "b": b})
                        + "\n"
                    )
                    log.flush()
                    saves += 1
                    if site:
                        checked += 1
                        if public_scores(site, t.slug, number).get(table.number) != (a, b):
                            stale += 1
            if number < MAX_ROUND and time.monotonic() < deadline:
                services.close_round(acting_user=d, round=rnd)
    print(f"writer: {saves} saves in {rounds} rounds, {failures} refused", file=sys.stderr)
    if site:
        print(
            f"writer: public round page read right after {checked} saves: {stale} did not show "
            f"the save yet",
            file=sys.stderr,
        )
    return 1 if stale else 0


def verify(log_path: str) -> int:
    saves = [
        json.loads(line) for line in Path(log_path).read_text(encoding="utf-8").splitlines() if line
    ]
    by_table: dict[int, list[dict]] = defaultdict(list)
    for s in saves:
        by_table[s["table"]].append(s)
    tables = {t.pk: t for t in Table.objects.filter(pk__in=by_table)}
    results = {r.table_id: r for r in Result.objects.filter(table_id__in=by_table)}
    lost = 0
    for table_id, items in by_table.items():
        last = items[-1]
        table, result = tables.get(table_id), results.get(table_id)
        if table is None or table.version != last["version"]:
            lost += 1
        if result is None or (result.tantos_a, result.tantos_b) != (last["a"], last["b"]):
            lost += 1
    history = Counter(
        Result.history.filter(table_id__in=by_table, history_type__in=["+", "~"]).values_list(
            "table_id", "tantos_a", "tantos_b"
        )
    )
    wanted = Counter((s["table"], s["a"], s["b"]) for s in saves)
    lost += sum((wanted - history).values())
    t = Tournament.objects.get(name=NAME)
    before = [r.as_tuple() for r in LedgerRow.objects.order_by("order_key", "side", "player_id")]
    ledger_rows = LedgerRow.objects.filter(tournament=t).count()
    ledger.rebuild()
    after = [r.as_tuple() for r in LedgerRow.objects.order_by("order_key", "side", "player_id")]
    consistent = before == after
    print(
        f"LOAD writer saves={len(saves)} tables={len(by_table)} lost={lost} "
        f"ledger_rows={ledger_rows} ledger_equals_rebuild={'yes' if consistent else 'NO'}"
    )
    return 0 if lost == 0 and consistent else 1


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "setup":
        setup()
    elif command == "run":
        sys.exit(run(float(sys.argv[2]), sys.argv[3]))
    elif command == "verify":
        sys.exit(verify(sys.argv[2]))
    else:
        sys.exit(__doc__)
