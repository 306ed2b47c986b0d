#!/usr/bin/env bash
# A real PostgreSQL 15 server on loopback for the postgres:// state backend's tests: Debian's binaries
# (/usr/lib/postgresql/15/bin), a private cluster in the state folder, TCP on 127.0.0.1 only with SCRAM passwords,
# a role and a database both named `mcloud`. Never touches Debian's own cluster (`pg_lsclusters`).
#
#   scripts/testbed/postgres.sh start    install packages if needed, initdb once, start, write the env file
#   scripts/testbed/postgres.sh stop     stop this bed's server (pg_ctl on its own data folder)
#   scripts/testbed/postgres.sh status   exit 0 running and accepting connections, 3 stopped, 1 anything else
#   scripts/testbed/postgres.sh env      print the env file of the running bed
#   scripts/testbed/postgres.sh reset    stop and delete the state folder (cluster, password, logs)
#
# Environment: MCLOUD_POSTGRES_TESTBED_DIR (default /tmp/mcloud-testbed/postgres), MCLOUD_POSTGRES_TESTBED_PORT
# (default 55432). As root the server runs as the `postgres` user that Debian's package creates (initdb refuses
# root); otherwise as the calling user. See scripts/testbed/README.md and docs/state.md.
set -euo pipefail

readonly PG_VERSION=15
readonly PG_BIN=/usr/lib/postgresql/$PG_VERSION/bin
readonly ME="postgres testbed"

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

STATE=${MCLOUD_POSTGRES_TESTBED_DIR:-/tmp/mcloud-testbed/postgres}
# Below Linux's ephemeral range (32768-60999): a port in it can be held for a moment by any outgoing connection's
# local end, and PostgreSQL then cannot bind it (CI of 9a1af18 failed so on 55432, the former default).
PORT=${MCLOUD_POSTGRES_TESTBED_PORT:-25432}
case "$STATE" in /*) ;; *) STATE=$PWD/$STATE ;; esac
case "$STATE" in *[[:space:]]* | *[\"\'\$\`\\]*) die "MCLOUD_POSTGRES_TESTBED_DIR must not contain spaces or quotes" ;; esac
[[ "$PORT" =~ ^[0-9]+$ ]] && [ "$PORT" -ge 1024 ] && [ "$PORT" -le 65535 ] || die "MCLOUD_POSTGRES_TESTBED_PORT must be a port number from 1024 to 65535"
DATA=$STATE/data
RUN=$STATE/run
LOGS=$STATE/logs

if [ "$(id -u)" -eq 0 ]; then OWNER=postgres; else OWNER=$(id -un); fi

# as_owner COMMAND...: runs a command as the user that owns the cluster.
as_owner() {
  # From /, which the owner can enter whatever the caller's folder (a checkout under /root is closed to it).
  if [ "$(id -u)" -eq 0 ]; then (cd / && runuser -u "$OWNER" -- "$@"); else "$@"; fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# The server of this bed's data folder runs (pg_ctl reads its postmaster.pid and checks the process).
server_running() { [ -f "$DATA/PG_VERSION" ] && as_owner "$PG_BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

server_ready() { "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" -d postgres -t 3; }

# psql as the cluster's superuser over the bed's private socket (peer authentication).
admin_psql() {
  as_owner "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$RUN" -p "$PORT" -d postgres -tA "$@"
}

# 0: running, accepting connections, env file in place; 3: not running; 1: anything else.
bed_state() {
  server_running || return 3
  if server_ready && [ -f "$STATE/env" ]; then return 0; fi
  return 1
}

lock_state() {
  mkdir -p "$STATE"
  touch "$STATE/.mcloud-testbed"
  exec 9>"$STATE/.lock"
  flock -w 300 9 || die "another start/stop holds $STATE/.lock"
}

ensure_cluster() {
  # The owner must reach the data folder through /tmp/mcloud-testbed and the state folder.
  chmod 755 "$STATE"
  [ "$(id -u)" -ne 0 ] || chmod 755 "$(dirname "$STATE")"
  mkdir -p "$LOGS" "$RUN"
  [ "$(id -u)" -ne 0 ] || chown "$OWNER" "$LOGS" "$RUN"
  chmod 700 "$RUN"
  if [ ! -f "$STATE/password" ]; then
    (umask 077 && od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$STATE/password.tmp")
    mv -f "$STATE/password.tmp" "$STATE/password"
  fi
  [ -f "$DATA/PG_VERSION" ] && return 0
  rm -rf "$DATA"
  mkdir -p "$DATA"
  [ "$(id -u)" -ne 0 ] || chown "$OWNER" "$DATA"
  chmod 700 "$DATA"
  log "initdb $DATA (owner $OWNER)"
  as_owner "$PG_BIN/initdb" -D "$DATA" --auth-local=peer --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 \
    >"$LOGS/initdb.log" 2>&1 || { tail -n 20 "$LOGS/initdb.log" >&2; die "initdb failed (log: $LOGS/initdb.log)"; }
}

# The role and database the tests use; the password is set on every start, so the env file always matches it.
ensure_role() {
  local password
  password=$(cat "$STATE/password")
  [[ "$password" =~ ^[0-9a-f]{32}$ ]] || die "$STATE/password is damaged; run reset"
  admin_psql -c "SET password_encryption = 'scram-sha-256'" -c "DO \$\$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mcloud') THEN CREATE ROLE mcloud LOGIN; END IF;
    END \$\$" -c "ALTER ROLE mcloud PASSWORD '$password'" >/dev/null
  if [ -z "$(admin_psql -c "SELECT 1 FROM pg_database WHERE datname = 'mcloud'")" ]; then
    admin_psql -c "CREATE DATABASE mcloud OWNER mcloud" >/dev/null
  fi
  printf 'MCLOUD_TEST_POSTGRES_URL=postgres://mcloud:%s@127.0.0.1:%s/mcloud\n' "$password" "$PORT" >"$STATE/env.tmp"
  chmod 600 "$STATE/env.tmp"
  mv -f "$STATE/env.tmp" "$STATE/env"
}

cmd_start() {
  lock_state
  local rc=0
  bed_state || rc=$?
  if [ $rc -eq 0 ]; then
    log "already running at 127.0.0.1:$PORT (env: $STATE/env)"
    cat "$STATE/env"
    return 0
  fi
  ensure_packages "postgresql-$PG_VERSION" libpq-dev
  [ -x "$PG_BIN/pg_ctl" ] || die "$PG_BIN/pg_ctl is missing (package postgresql-$PG_VERSION)"
  ensure_cluster
  if [ $rc -eq 3 ]; then
    port_free "$PORT" || die "127.0.0.1:$PORT is taken by another program; set MCLOUD_POSTGRES_TESTBED_PORT"
    log "starting PostgreSQL $PG_VERSION on 127.0.0.1:$PORT (data: $DATA)"
    echo "---- $(date -u +%Y-%m-%dT%H:%M:%SZ) start" >>"$LOGS/postgres.log"
    [ "$(id -u)" -ne 0 ] || chown "$OWNER" "$LOGS/postgres.log"
    as_owner "$PG_BIN/pg_ctl" -D "$DATA" -l "$LOGS/postgres.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $PORT -k $RUN -c max_connections=200" start >/dev/null 9>&- ||
      { tail -n 25 "$LOGS/postgres.log" >&2; die "the server did not start (log: $LOGS/postgres.log)"; }
  fi
  local i
  for ((i = 0; i < 50; i++)); do server_ready && break; sleep 0.2; done
  server_ready || die "the server runs but does not accept connections on 127.0.0.1:$PORT (log: $LOGS/postgres.log)"
  ensure_role
  log "ready at 127.0.0.1:$PORT (env: $STATE/env)"
  cat "$STATE/env"
}

cmd_stop() {
  [ -d "$STATE" ] || { log "not running (no $STATE)"; return 0; }
  lock_state
  if server_running; then
    log "stopping the server of $DATA"
    as_owner "$PG_BIN/pg_ctl" -D "$DATA" -m fast -w -t 60 stop >/dev/null || die "pg_ctl stop failed (log: $LOGS/postgres.log)"
  fi
  log "stopped"
}

cmd_status() {
  local rc=0
  [ -d "$STATE" ] || { echo "stopped (no $STATE)"; return 3; }
  bed_state || rc=$?
  case $rc in
    0) echo "running: PostgreSQL $PG_VERSION at 127.0.0.1:$PORT, data $DATA; env: $STATE/env" ;;
    3) echo "stopped" ;;
    *) echo "not ready: the server of $DATA runs but does not answer on 127.0.0.1:$PORT or has no env file (log: $LOGS/postgres.log); run start" ;;
  esac
  return $rc
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  reset) cmd_reset ;;
  *)
    echo "usage: $0 start|stop|status|env|reset" >&2
    exit 2
    ;;
esac
