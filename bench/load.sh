#!/usr/bin/env bash
# Load test (issue "reliability and security", point 7).
#
#   bench/load.sh [SECONDS]        default 60 (or LOAD_DURATION)
#
# 1. creates the scratch PostgreSQL database "clubsite_load" (dropped first if present),
#    migrates it and loads the demo club, plus the writer's tournament (bench/load_writer.py);
# 2. starts the site under gunicorn, 2 workers, on a free loopback port, DEBUG off;
# 3. drives it with wrk (installed with apt-get if missing) for SECONDS at 50 connections over
#    the public pages (bench/load.lua rotates over home, tournaments, standings, rounds,
#    ranking and player pages) while bench/load_writer.py saves and corrects results through
#    the services the whole time, reading the public round page after every save (through the
#    page cache, as a phone would) to check that it already shows that save;
# 4. prints requests per second, latency percentiles, the error count (non-2xx/3xx answers plus
#    socket errors) and checks that no result was lost (every save the writer made is in the
#    database, and the ledger equals a full rebuild);
# 5. stops everything it started, drops the scratch database (LOAD_KEEP_DB=1 keeps it) and
#    exits 0 — or 1 if a result was lost or a step failed.
#
# Only loopback addresses are used: the site binds 127.0.0.1 and PostgreSQL must be local.
# Settings: LOAD_CONNECTIONS (50), LOAD_THREADS (4), LOAD_POSTGRES (server URL, default
# postgres://postgres@127.0.0.1:5432/postgres), LOAD_GUNICORN_ARGS (extra gunicorn options),
# PYTHON (default .venv/bin/python, else python3).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

DURATION=${1:-${LOAD_DURATION:-60}}
CONNECTIONS=${LOAD_CONNECTIONS:-50}
THREADS=${LOAD_THREADS:-4}
PG_BASE=${LOAD_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}
DB_NAME=clubsite_load
if [[ -z "${PYTHON:-}" ]]; then
    if [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi

[[ "$DURATION" =~ ^[0-9]+$ && "$DURATION" -ge 1 ]] || { echo "SECONDS must be a whole number ≥ 1" >&2; exit 2; }
case "$PG_BASE" in
    postgres://*@127.0.0.1[:/]*|postgres://*@localhost[:/]*|postgres://*@\[::1\][:/]*) ;;
    *) echo "LOAD_POSTGRES must point at a loopback address (127.0.0.1, localhost, [::1])" >&2; exit 2 ;;
esac
DB_URL="${PG_BASE%/*}/$DB_NAME"

if ! command -v wrk >/dev/null; then
    echo "== installing wrk"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi

WORK=$(mktemp -d /tmp/clubsite-load.XXXXXX)
GUNICORN_PID=""
WRITER_PID=""
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    for pid in $WRITER_PID $GUNICORN_PID; do
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    if [[ "${LOAD_KEEP_DB:-0}" != "1" ]]; then
        psql -q "$PG_BASE" -c "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" >/dev/null 2>&1 || true
    fi
    rm -rf "$WORK"
    exit $status
}
trap cleanup EXIT INT TERM

# Settings: the project's own, read from the environment, with static files collected into the
# scratch folder (DEBUG off serves them from the manifest).
cat > "$WORK/load_settings.py" <<EOF
from clubsite.settings import *  # noqa: F401,F403
STATIC_ROOT = "$WORK/static"
EOF
export PYTHONPATH="$ROOT:$WORK${PYTHONPATH:+:$PYTHONPATH}"
export DJANGO_SETTINGS_MODULE=load_settings
export DATABASE_URL="$DB_URL"
export DJANGO_DEBUG=0
export DJANGO_SECRET_KEY="load-test-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export DJANGO_ALLOWED_HOSTS=127.0.0.1
export DJANGO_SECURE_SSL_REDIRECT=0
export DJANGO_TRUSTED_PROXY_COUNT=0
export DJANGO_LOG_LEVEL=ERROR
unset DATABASE_REPLICA_URL DJANGO_CACHE_URL

echo "== scratch database $DB_NAME"
PGOPTIONS="-c client_min_messages=warning" psql -q "$PG_BASE" -c "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" >/dev/null
psql -q "$PG_BASE" -c "CREATE DATABASE $DB_NAME" >/dev/null
"$PYTHON" manage.py migrate --noinput -v0
"$PYTHON" manage.py createcachetable -v0
"$PYTHON" manage.py collectstatic --noinput -v0
"$PYTHON" manage.py load_demo >/dev/null
SLUG=$("$PYTHON" bench/load_writer.py setup)
"$PYTHON" manage.py rebuild_ledger >/dev/null

# The pages wrk rotates over.
"$PYTHON" - "$WORK/paths.txt" <<'EOF'
import sys

import django

django.setup()
from django.urls import reverse

from rankings.models import LedgerRow
from tournaments.models import Tournament

paths = [reverse("public:home"), reverse("public:tournaments"), reverse("rankings:ranking")]
for t in Tournament.objects.exclude(status="draft").order_by("pk"):
    paths += [reverse("public:tournament", args=[t.slug]), reverse("public:standings", args=[t.slug])]
    paths += [reverse("public:round", args=[t.slug, n]) for n in t.rounds.values_list("number", flat=True)[:5]]
players = LedgerRow.objects.order_by("player_id").values_list("player_id", flat=True).distinct()[:40]
paths += [reverse("rankings:player", args=[pk]) for pk in players]
with open(sys.argv[1], "w") as fh:
    fh.write("\n".join(paths) + "\n")
print(f"{len(paths)} pages")
EOF

PORT=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "== gunicorn on 127.0.0.1:$PORT (2 workers)"
"$PYTHON" -m gunicorn clubsite.wsgi:application --bind "127.0.0.1:$PORT" --workers 2 \
    --timeout 60 --graceful-timeout 5 ${LOAD_GUNICORN_ARGS:-} >"$WORK/gunicorn.log" 2>&1 &
GUNICORN_PID=$!
for _ in $(seq 1 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/" 2>/dev/null && break
    kill -0 "$GUNICORN_PID" 2>/dev/null || { cat "$WORK/gunicorn.log" >&2; exit 1; }
    sleep 0.2
done
curl -fsS -o /dev/null "http://127.0.0.1:$PORT/torneos/$SLUG/clasificacion/"

echo "== ${DURATION}s: wrk, $CONNECTIONS connections, $THREADS threads; writer saving results"
LOAD_SITE_URL="http://127.0.0.1:$PORT" "$PYTHON" bench/load_writer.py run "$DURATION" "$WORK/saves.jsonl" 2>"$WORK/writer.log" &
WRITER_PID=$!
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s -s bench/load.lua \
    "http://127.0.0.1:$PORT" -- "$WORK/paths.txt" >"$WORK/wrk.txt" 2>&1 || { cat "$WORK/wrk.txt" >&2; exit 1; }
WRITER_STATUS=0
wait "$WRITER_PID" || WRITER_STATUS=$?
WRITER_PID=""
sed -n 's/^LOAD //p' "$WORK/wrk.txt"
tail -n 3 "$WORK/writer.log"
[[ $WRITER_STATUS -eq 0 ]] || { echo "the writer failed (status $WRITER_STATUS)" >&2; exit 1; }

kill -TERM "$GUNICORN_PID"; wait "$GUNICORN_PID" 2>/dev/null || true
GUNICORN_PID=""
if grep -q "Traceback" "$WORK/gunicorn.log"; then
    echo "server errors:" >&2; grep -B2 -A12 -m3 "Traceback" "$WORK/gunicorn.log" >&2
fi

echo "== checking the writer's saves"
"$PYTHON" bench/load_writer.py verify "$WORK/saves.jsonl" | sed 's/^LOAD //'
