#!/usr/bin/env bash
# Two app servers, one database (docs/scale-out.md): a login made through one gunicorn process
# is valid on the other, and a logout through the second ends it on the first, because
# sessions live in the database, not in a process.
#
#   bench/two_servers.sh                                   # a throw-away SQLite file
#   bench/two_servers.sh --postgres                        # a throw-away PostgreSQL database
#   PY=/path/to/venv/bin/python bench/two_servers.sh ...   # default: .venv/bin/python
#
# --postgres creates (and drops at the end) the database "clubsite_two_servers" next to
# $BENCH_POSTGRES (default postgres://postgres@127.0.0.1:5432/postgres). Both servers run in
# debug settings on loopback ports (no TLS, so no Secure cookies); what is shown is process
# independence, which does not depend on that. Prints OK, or what failed (exit status 1).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PY:-.venv/bin/python}
[ -x "$PY" ] || { echo "no Python at $PY (make setup, or set PY=...)" >&2; exit 2; }
GUNICORN="$(dirname "$PY")/gunicorn"
WORK=$(mktemp -d -t clubsite-two-servers.XXXXXX)
JAR="$WORK/cookies.txt"
PIDS=()
PG_NAME=clubsite_two_servers
PG_BASE=${BENCH_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}

pg() {  # run one statement on the maintenance database
    "$PY" -c 'import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as c: c.execute(sys.argv[2])' "$PG_BASE" "$1"
}

cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ "${USE_PG:-0}" = 1 ]; then pg "DROP DATABASE IF EXISTS \"$PG_NAME\" WITH (FORCE)" || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

fail() { echo "FAILED: $*" >&2; exit 1; }

if [ "${1:-}" = "--postgres" ]; then
    USE_PG=1
    pg "DROP DATABASE IF EXISTS \"$PG_NAME\" WITH (FORCE)"
    pg "CREATE DATABASE \"$PG_NAME\""
    export DATABASE_URL="${PG_BASE%/*}/$PG_NAME"
else
    export DATABASE_URL="sqlite:///$WORK/two_servers.sqlite3"
fi
export DJANGO_SETTINGS_MODULE=clubsite.settings DJANGO_DEBUG=1 DJANGO_LOG_LEVEL=ERROR
unset DATABASE_REPLICA_URL DJANGO_CACHE_URL
echo "database: ${DATABASE_URL}"

"$PY" manage.py migrate --noinput --verbosity 0
"$PY" manage.py createcachetable
PASSWORD=$("$PY" -c 'import secrets; print(secrets.token_urlsafe(16))')
"$PY" manage.py shell --no-imports -c "
from django.contrib.auth.models import Group, User
from tournaments.permissions import DIRECTORS_GROUP
user = User.objects.create_user('two-servers', password='$PASSWORD', is_staff=True)
user.groups.add(Group.objects.get_or_create(name=DIRECTORS_GROUP)[0])
"

# Two free loopback ports, two gunicorn masters with one worker each: two separate processes.
read -r PORT_A PORT_B < <("$PY" -c 'import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
for port in "$PORT_A" "$PORT_B"; do
    "$GUNICORN" clubsite.wsgi --bind "127.0.0.1:$port" --workers 1 --log-level warning &
    PIDS+=("$!")
done
for port in "$PORT_A" "$PORT_B"; do
    for _ in $(seq 1 100); do
        curl -s -o /dev/null "http://127.0.0.1:$port/" && break
        sleep 0.1
    done
    curl -s -o /dev/null "http://127.0.0.1:$port/" || fail "server on port $port did not start"
done
A="http://127.0.0.1:$PORT_A"
B="http://127.0.0.1:$PORT_B"
echo "server A: $A (gunicorn pid ${PIDS[0]})"
echo "server B: $B (gunicorn pid ${PIDS[1]})"

code=$(curl -s -o /dev/null -w '%{http_code}' "$B/gestion/")
[ "$code" = 302 ] || fail "B /gestion/ without a session: expected 302 to the login page, got $code"
echo "B /gestion/ without a session: $code (to the login page)"

# Log in through A.
token=$(curl -s -c "$JAR" -b "$JAR" "$A/entrar/" | grep -o 'name="csrfmiddlewaretoken" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
[ -n "$token" ] || fail "no CSRF token on A's login page"
read -r code location < <(curl -s -c "$JAR" -b "$JAR" -o /dev/null -w '%{http_code} %{redirect_url}\n' \
    --data-urlencode "username=two-servers" --data-urlencode "password=$PASSWORD" \
    --data-urlencode "csrfmiddlewaretoken=$token" -H "Referer: $A/entrar/" "$A/entrar/")
[ "$code" = 302 ] && [[ "$location" == */gestion/ ]] || fail "login through A: got $code $location"
echo "A login: $code -> $location"

# The same cookie on B: the directors' home page, not the login page.
code=$(curl -s -b "$JAR" -o "$WORK/b.html" -w '%{http_code}' "$B/gestion/")
[ "$code" = 200 ] || fail "B /gestion/ with A's session cookie: expected 200, got $code"
grep -q 'action="/salir/"' "$WORK/b.html" || fail "B's page does not show the logged-in menu"
echo "B /gestion/ with A's session cookie: $code (logged in)"

# Log out through B; A no longer accepts the very same cookie (the session row is gone).
cp "$JAR" "$WORK/before_logout.txt"
csrf=$(awk '$6 == "csrftoken" { print $7 }' "$JAR")
code=$(curl -s -c "$JAR" -b "$JAR" -o /dev/null -w '%{http_code}' -X POST \
    -H "X-CSRFToken: $csrf" -H "Referer: $B/gestion/" "$B/salir/")
[ "$code" = 302 ] || fail "logout through B: got $code"
code=$(curl -s -b "$WORK/before_logout.txt" -o /dev/null -w '%{http_code}' "$A/gestion/")
[ "$code" = 302 ] || fail "A /gestion/ with the old cookie after logging out through B: expected 302, got $code"
echo "B logout, then A /gestion/ with the old cookie: $code (to the login page)"
echo OK
