#!/usr/bin/env bash
# Benchmark: requests/s of gunicorn (2 sync workers) on loopback against PostgreSQL, with a
# generated club, for the standings page of a 512-entry tournament, the ranking page of the
# year, and a trivial Django view (a small template, no query) in the same run.
#
#   bench/throughput.sh                  # 5000 players, 1000 tournaments, 20 s per page
#   PLAYERS=500 TOURNAMENTS=50 DURATION=5s bench/throughput.sh     # a quick smoke run
#
# Environment: PYTHON (default /tmp/v/bin/python, else .venv/bin/python), BENCH_POSTGRES
# (server URL, default postgres://postgres@127.0.0.1:5432/postgres), PORT (8765), DURATION
# (20s), CONNECTIONS (8), PLAYERS, TOURNAMENTS, KEEP=1 (keep the database afterwards).
# It creates the database clubsite_bench_throughput, starts gunicorn on 127.0.0.1 only, runs
# wrk for a bounded time per page, prints requests/s and the ratios to the trivial view
# (target >= 50 %), then stops gunicorn (by its pid) and drops the database.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-}"
if [ -z "$PYTHON" ]; then
  if [ -x /tmp/v/bin/python ]; then PYTHON=/tmp/v/bin/python; else PYTHON="$ROOT/.venv/bin/python"; fi
fi
PORT="${PORT:-8765}"
DURATION="${DURATION:-20s}"
CONNECTIONS="${CONNECTIONS:-8}"
PLAYERS="${PLAYERS:-5000}"
TOURNAMENTS="${TOURNAMENTS:-1000}"
SERVER="${BENCH_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}"
DB="${BENCH_DB:-clubsite_bench_throughput}"
YEAR=2026

if ! command -v wrk >/dev/null 2>&1; then
  echo "wrk missing: installing it (apt-get install -y wrk)"
  apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
fi

export DATABASE_URL="${SERVER%/*}/$DB"
export DJANGO_SETTINGS_MODULE=clubsite.settings
export DJANGO_DEBUG=0
export DJANGO_SECRET_KEY="bench-only-not-a-secret-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
export DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost"
export DJANGO_SECURE_SSL_REDIRECT=0
export DJANGO_LOG_LEVEL=ERROR
export CLUB_BENCH_VIEWS=1

GUNICORN_PID=""
cleanup() {
  if [ -n "$GUNICORN_PID" ] && kill -0 "$GUNICORN_PID" 2>/dev/null; then
    kill "$GUNICORN_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$GUNICORN_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$GUNICORN_PID" 2>/dev/null || true
  fi
  if [ "${KEEP:-0}" != "1" ]; then
    "$PYTHON" - "$SERVER" "$DB" <<'EOF' || true
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    conn.execute(f'DROP DATABASE IF EXISTS "{sys.argv[2]}" WITH (FORCE)')
EOF
  fi
}
trap cleanup EXIT

"$PYTHON" - "$SERVER" "$DB" <<'EOF'
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    conn.execute(f'DROP DATABASE IF EXISTS "{sys.argv[2]}" WITH (FORCE)')
    conn.execute(f'CREATE DATABASE "{sys.argv[2]}"')
EOF
"$PYTHON" manage.py migrate -v0
"$PYTHON" manage.py createcachetable -v0 2>/dev/null || true
"$PYTHON" manage.py collectstatic --noinput -v0
START=$(date +%s)
"$PYTHON" manage.py generate_club --players "$PLAYERS" --tournaments "$TOURNAMENTS" --seed 1 \
  --end "$YEAR-11-30" --single-tournament-size 512 --rounds 9 --slug bench-domino-512 | sed 's/^/  /'
echo "  generated in $(( $(date +%s) - START )) s"
"$PYTHON" - "$DATABASE_URL" <<'EOF'
import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    conn.execute("VACUUM ANALYZE")  # what autovacuum does after a bulk load
EOF

"$PYTHON" -m gunicorn clubsite.wsgi:application --workers 2 --bind "127.0.0.1:$PORT" \
  --log-level warning --access-logfile /dev/null &
GUNICORN_PID=$!
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do
  curl -fs -o /dev/null "$BASE/bench/trivial/" && break
  sleep 0.2
done

declare -A URLS=(
  [trivial]="$BASE/bench/trivial/"
  [standings]="$BASE/torneos/bench-domino-512/clasificacion/"
  [ranking]="$BASE/ranking/?year=$YEAR"
)
declare -A RPS
for name in trivial standings ranking; do
  url="${URLS[$name]}"
  code=$(curl -s -o /dev/null -w '%{http_code}' "$url")
  [ "$code" = 200 ] || { echo "$name: HTTP $code at $url"; exit 1; }
  for _ in 1 2 3; do curl -fs -o /dev/null "$url"; done   # warm both workers
  out=$(wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --timeout 30s --latency "$url")
  RPS[$name]=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
  p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
  p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
  errors=$(echo "$out" | awk '/Non-2xx|Socket errors/ {print}' | tr '\n' ' ')
  echo "$name: ${RPS[$name]} requests/s (latency p50 $p50, p99 $p99) $errors"
done

# A phone that already has the standings asks again with its ETag (conditional GET -> 304).
etag=$(curl -s -D - -o /dev/null "${URLS[standings]}" | awk 'tolower($1) == "etag:" {sub(/\r$/, ""); $1=""; sub(/^ /, ""); print}')
if [ -n "$etag" ]; then
  out=$(wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --timeout 30s -H "If-None-Match: $etag" "${URLS[standings]}")
  RPS[standings_304]=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
  echo "standings revalidated (If-None-Match, 304): ${RPS[standings_304]} requests/s"
fi

echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for name in standings ranking standings_304; do
  [ -n "${RPS[$name]:-}" ] || continue
  "$PYTHON" -c "import sys; r = float(sys.argv[2]) / float(sys.argv[3]); print(f'{sys.argv[1]} / trivial: {r:.1%} (target >= 50%: {\"met\" if r >= 0.5 else \"MISSED\"})')" \
    "$name" "${RPS[$name]}" "${RPS[trivial]}"
done
