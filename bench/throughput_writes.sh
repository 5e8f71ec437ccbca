#!/usr/bin/env bash
# Benchmark: requests/s of every public page (from the page cache) against the trivial view WHILE
# results are being saved (three a second, into other tournaments) and the ledger replay worker
# runs.
#
#   bench/throughput_writes.sh               # 5000 players, 1000 tournaments, every public page
#   PLAYERS=500 TOURNAMENTS=50 DURATION=5s bench/throughput_writes.sh      # a quick check
#   PAGES="public:standings rankings:ranking" PAIRS=3 bench/throughput_writes.sh   # some pages
#
# Like bench/throughput.sh: gunicorn (2 sync workers) on 127.0.0.1 against PostgreSQL with the
# generated club (plus a 512-entry, 9-round dominó tournament, the largest: the tournament pages
# are its pages), DEBUG off, the page cache on, wrk with CONNECTIONS connections. Besides:
# `manage.py db_worker` (DJANGO_TASKS_BACKEND=database: every save's ledger replay runs there)
# and bench/throughput_writer.py, which saves RATE (3) results a second through the directors'
# result-row view into WRITER_TOURNAMENTS (2) running dominó tournaments of its own (rated, dated
# today: each save asks for a replay), never into the pages measured.
# Pages: every public page of bench/_pages.py (the URL resolver's public patterns, arguments
# chosen in the club as bench/page_scale.py chooses them; a league is made when the club has
# none), but the heavy outputs (PDFs, workbooks, the year's ledger CSV: one at a time on the
# site, the others answer "preparing") and the calculator's answer to a game (computed for
# every request and limited per network: wrk from one address gets 429), each skipped with the
# reason printed. PAGES (pattern names, space-separated) keeps only those. Alternating pairs:
# wrk on the trivial view for DURATION, then on the page for DURATION, PAIRS (1) times per page;
# the ratio of each pair and their median (target >= 60 %). At the end: the saves actually made
# per second, the replays the worker ran, one line per page.
#
# wrk asks as a phone's browser does (Accept-Encoding: gzip, deflate, br): the large pages
# travel compressed (clubsite/compression.py); ENCODING= (empty) asks for them uncompressed.
#
# Environment: PYTHON (default .venv/bin/python), BENCH_POSTGRES (server URL, default
# postgres://postgres@127.0.0.1:5432/postgres), DURATION (10s), PAIRS (1), CONNECTIONS (8),
# PLAYERS (5000), TOURNAMENTS (1000), RATE (3; 0: no writer, the same pages without writes),
# WRITER_TOURNAMENTS (2), PAGES (all), KEEP=1 (keep the database), DJANGO_CACHE_URL
# (redis://…: the cache in Redis instead of the database), ENCODING (the Accept-Encoding
# header), TEMPLATE=1: keep the generated club, before any write, as the database
# "$DB"_template and start from a copy of it when it is there (the next runs skip the
# generation; drop it by hand when the code's migrations change).
# The server listens on a free loopback port. Everything started here (gunicorn, the worker,
# the writer) is stopped by its pid and the database dropped at the end, also on failure.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
DURATION="${DURATION:-10s}"
PAIRS="${PAIRS:-1}"
PAGES="${PAGES:-}"
CONNECTIONS="${CONNECTIONS:-8}"
ENCODING="${ENCODING-gzip, deflate, br}"
TEMPLATE="${TEMPLATE:-0}"
PLAYERS="${PLAYERS:-5000}"
TOURNAMENTS="${TOURNAMENTS:-1000}"
RATE="${RATE:-3}"
WRITER_TOURNAMENTS="${WRITER_TOURNAMENTS:-2}"
SERVER="${BENCH_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}"
DB="${BENCH_DB:-clubsite_bench_throughput_writes}"
END="$(date -d yesterday +%F)"

if ! command -v wrk >/dev/null 2>&1; then
  echo "wrk missing: installing it (apt-get install -y wrk)"
  apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
fi

export DATABASE_URL="${SERVER%/*}/$DB"
export DJANGO_SETTINGS_MODULE=clubsite.settings
export DJANGO_DEBUG=0
export DJANGO_SECRET_KEY="bench-only-not-a-secret-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
export DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost,testserver"
export DJANGO_SECURE_SSL_REDIRECT=0
export DJANGO_LOG_LEVEL=ERROR
export DJANGO_TASKS_BACKEND=database
export CLUB_BENCH_VIEWS=1
export BENCH_WRITER_PASSWORD="writer-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
unset DATABASE_REPLICA_URL DJANGO_PAGE_CACHE

WORK="$(mktemp -d /tmp/clubsite-throughput-writes.XXXXXX)"
GUNICORN_PID=""
WORKER_PID=""
WRITER_PID=""
stop_pid() {
  local pid="$1"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stop_pid "$WRITER_PID"
  stop_pid "$GUNICORN_PID"
  stop_pid "$WORKER_PID"
  if [ "${KEEP:-0}" != "1" ]; then
    "$PYTHON" - "$SERVER" "$DB" <<'EOF' || true
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    conn.execute(f'DROP DATABASE IF EXISTS "{sys.argv[2]}" WITH (FORCE)')
EOF
  fi
  rm -rf "$WORK"
  exit $status
}
trap cleanup EXIT INT TERM

# The database: a copy of the kept club (TEMPLATE=1, when there is one), else generated.
FROM_TEMPLATE=$("$PYTHON" - "$SERVER" "$DB" "$TEMPLATE" <<'EOF'
import sys, psycopg
server, db, template = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
with psycopg.connect(server, autocommit=True) as conn:
    conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
    kept = template and conn.execute(
        "SELECT 1 FROM pg_database WHERE datname = %s", [db + "_template"]
    ).fetchone()
    if kept:
        conn.execute(f'CREATE DATABASE "{db}" TEMPLATE "{db}_template"')
    else:
        conn.execute(f'CREATE DATABASE "{db}"')
print(1 if kept else 0)
EOF
)
"$PYTHON" manage.py migrate -v0
"$PYTHON" manage.py collectstatic --noinput -v0
if [ "$FROM_TEMPLATE" = 1 ]; then
  echo "  the club: a copy of ${DB}_template (TEMPLATE=1)"
  "$PYTHON" - <<'EOF'
import os

import django

django.setup()
from django.contrib.auth import get_user_model

writer = get_user_model().objects.get(username="bench-writer")  # this run's password
writer.set_password(os.environ["BENCH_WRITER_PASSWORD"])
writer.save()
EOF
else
  START=$(date +%s)
  "$PYTHON" manage.py generate_club --players "$PLAYERS" --tournaments "$TOURNAMENTS" --seed 1 \
    --end "$END" --single-tournament-size 512 --rounds 9 --slug bench-domino-512 | sed 's/^/  /'
  "$PYTHON" bench/throughput_writer.py setup "$WRITER_TOURNAMENTS" 16
  echo "  generated in $(( $(date +%s) - START )) s; the writer's $WRITER_TOURNAMENTS tournaments made"
  "$PYTHON" - "$DATABASE_URL" <<'EOF'
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    conn.execute("VACUUM ANALYZE")  # what autovacuum does after a bulk load
EOF
  if [ "$TEMPLATE" = 1 ]; then
    "$PYTHON" - "$SERVER" "$DB" <<'EOF'
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    conn.execute(f'CREATE DATABASE "{sys.argv[2]}_template" TEMPLATE "{sys.argv[2]}"')
EOF
    echo "  kept as ${DB}_template (TEMPLATE=1)"
  fi
fi

"$PYTHON" manage.py db_worker --interval 0.1 --no-reload --no-startup-delay --verbosity 0 \
  >"$WORK/worker.log" 2>&1 &
WORKER_PID=$!

PORT=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$PYTHON" -m gunicorn clubsite.wsgi:application --workers 2 --bind "127.0.0.1:$PORT" \
  --log-level warning --access-logfile /dev/null >"$WORK/gunicorn.log" 2>&1 &
GUNICORN_PID=$!
BASE="http://127.0.0.1:$PORT"

# The pages (bench/_pages.py), one line each: "key<TAB>label<TAB>path" to measure, or
# "skip<TAB>label<TAB>why"; the first line is the trivial view.
"$PYTHON" - "$PAGES" >"$WORK/pages.tsv" <<'EOF'
import sys

sys.path.insert(0, "bench")
import django

django.setup()
from django.urls import reverse

import _pages

_pages.ensure_league()
wanted = set(sys.argv[1].split())
print(f"trivial\ttrivial\t{reverse('bench_trivial')}")
for n, page in enumerate(_pages.public_pages()):
    if wanted and page.name not in wanted:
        continue
    if page.heavy:
        print(f"skip\t{page.label}\theavy output: {_pages.HEAVY[page.name]}")
    elif page.computed:
        print(f"skip\t{page.label}\tcomputed for every request, limited per network")
    else:
        print(f"page{n}\t{page.label}\t{page.path}")
EOF
declare -A URLS LABELS
NAMES=()
SKIPPED=()
while IFS=$'\t' read -r key label path; do
  if [ "$key" = skip ]; then SKIPPED+=("$label: skipped ($path)"); continue; fi
  URLS[$key]="$BASE$path"
  LABELS[$key]="$label"
  [ "$key" = trivial ] || NAMES+=("$key")
done <"$WORK/pages.tsv"
[ "${#NAMES[@]}" -gt 0 ] || { echo "no page to measure (PAGES=$PAGES)"; exit 1; }
for _ in $(seq 1 150); do
  curl -fs -o /dev/null "${URLS[trivial]}" && break
  kill -0 "$GUNICORN_PID" 2>/dev/null || { cat "$WORK/gunicorn.log" >&2; exit 1; }
  sleep 0.2
done
for name in trivial "${NAMES[@]}"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "${URLS[$name]}")
  [ "$code" = 200 ] || { echo "${LABELS[$name]}: HTTP $code at ${URLS[$name]}"; exit 1; }
done

if [ "$RATE" != 0 ]; then
  "$PYTHON" bench/throughput_writer.py run "$RATE" "$WORK/stop" >"$WORK/writer.out" 2>"$WORK/writer.err" &
  WRITER_PID=$!
  sleep 3  # the writer logs in and reads its round pages; the first replays run
  kill -0 "$WRITER_PID" 2>/dev/null || { cat "$WORK/writer.err" >&2; exit 1; }
fi

# wrk for DURATION on one URL: "<requests/s> <p50> <non-2xx and socket errors>"
measure() {
  local out rps p50 errors
  out=$(wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --timeout 30s --latency \
    ${ENCODING:+-H "Accept-Encoding: $ENCODING"} "$1")
  rps=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
  p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
  errors=$(echo "$out" | awk '/Non-2xx|Socket errors/ {print}' | tr '\n' ' ')
  echo "$rps $p50 $errors"
}

echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$RATE" != 0 ]; then WHEN="under writes"; else WHEN="without writes"; fi
echo "pages $WHEN: $RATE saves/s asked into $WRITER_TOURNAMENTS other tournaments, worker running; wrk -c$CONNECTIONS, $DURATION per run, $PAIRS pairs per page, Accept-Encoding: ${ENCODING:-none}"
declare -A MEDIAN
for name in "${NAMES[@]}"; do
  for _ in 1 2 3; do curl -fs -o /dev/null "${URLS[$name]}"; done
  ratios=()
  for pair in $(seq 1 "$PAIRS"); do
    read -r t_rps t_p50 t_err < <(measure "${URLS[trivial]}")
    read -r p_rps p_p50 p_err < <(measure "${URLS[$name]}")
    ratio=$("$PYTHON" -c "import sys; print(f'{float(sys.argv[2]) / float(sys.argv[1]):.4f}')" "$t_rps" "$p_rps")
    ratios+=("$ratio")
    echo "  ${LABELS[$name]} pair $pair: trivial $t_rps requests/s (p50 $t_p50) ${t_err}| page $p_rps requests/s (p50 $p_p50) ${p_err}| ratio $("$PYTHON" -c "import sys; print(f'{float(sys.argv[1]):.1%}')" "$ratio")"
  done
  MEDIAN[$name]=$("$PYTHON" -c "import statistics, sys; print(statistics.median(map(float, sys.argv[1:])))" "${ratios[@]}")
done

touch "$WORK/stop"
WRITER_STATUS=0
if [ -n "$WRITER_PID" ]; then
  wait "$WRITER_PID" || WRITER_STATUS=$?
  WRITER_PID=""
  cat "$WORK/writer.out"
  if [ -s "$WORK/writer.err" ]; then sed 's/^/  /' "$WORK/writer.err" | tail -n 5; fi
else
  echo "writer: not started (RATE=0: the same pages without writes)"
fi
"$PYTHON" - <<'EOF'
import statistics

import django

django.setup()
from django_tasks_db.models import DBTaskResult

from rankings import health

done = list(DBTaskResult.objects.successful().values_list("started_at", "finished_at"))
failed = DBTaskResult.objects.failed().count()
spans = [(b - a).total_seconds() * 1000 for a, b in done if a and b]
median = f"{statistics.median(spans):.0f} ms" if spans else "-"
print(f"worker: {len(done)} replays done (median {median} each), {failed} failed; "
      f"ranking {'current' if health.pending() is None else 'waiting for a replay'} at the end")
EOF
# The ledger afterwards: once the last replay is done (at most a minute), equal to a rebuild.
for _ in $(seq 1 60); do
  "$PYTHON" -c 'import django; django.setup(); from rankings import health; import sys; sys.exit(health.pending() is not None)' && break
  sleep 1
done
if "$PYTHON" manage.py check_ledger >"$WORK/check_ledger.out" 2>&1; then
  echo "check_ledger: $(tail -n 1 "$WORK/check_ledger.out")"
else
  echo "check_ledger: NOT CURRENT"; sed 's/^/  /' "$WORK/check_ledger.out" | tail -n 12
fi
echo "machine at the end: load average $(cut -d' ' -f1-3 /proc/loadavg)"
for name in "${NAMES[@]}"; do
  "$PYTHON" -c "import sys; r = float(sys.argv[2]); print(f'{sys.argv[1]} / trivial {sys.argv[4]}: median {r:.1%} of {sys.argv[3]} pairs (target >= 60%: {\"met\" if r >= 0.6 else \"MISSED\"})')" \
    "${LABELS[$name]}" "${MEDIAN[$name]}" "$PAIRS" "$WHEN"
done
for line in "${SKIPPED[@]}"; do echo "$line"; done
[ "$WRITER_STATUS" -eq 0 ] || echo "the writer had refused saves (status $WRITER_STATUS)"
