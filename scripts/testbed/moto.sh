#!/usr/bin/env bash
# moto_server (an AWS API emulator: EC2, RDS, EKS, S3, CloudFront, STS, IAM) on 127.0.0.1 for mcloud's AWS
# integration tests. Two servers:
# - "auth" (MCLOUD_TEST_MOTO_URL) checks signatures: it starts with INITIAL_NO_AUTH_ACTION_COUNT=0, then opens three
#   unauthenticated actions (POST /moto-api/reset-auth) to create an IAM user with an allow-all policy and an access
#   key, which go into the env file. Every later request must be signed with that key. With it, a second user with
#   S3 rights only, the backup identity database VMs get (MCLOUD_TEST_MOTO_BACKUP_*; docs/security.md, H2).
# - "open" (MCLOUD_TEST_MOTO_OPEN_URL) checks nothing. moto's checker rebuilds a bodiless non-S3 request wrongly
#   and rejects correct signatures there (CloudFront and EKS GET/DELETE), so those calls are tested on this one.
#
#   scripts/testbed/moto.sh start    install moto into a cached venv if needed, start the servers, print the env file
#   scripts/testbed/moto.sh stop     stop the servers (by PID file; only the processes this script started)
#   scripts/testbed/moto.sh status   exit 0 running and ready, 3 stopped, 1 running but not answering
#   scripts/testbed/moto.sh env      print the env file of the running server
#
# Environment: MCLOUD_CACHE_DIR (default /var/cache/mcloud, or ~/.cache/mcloud when that is not writable; the
# venv is $MCLOUD_CACHE_DIR/venv-moto-<version>-py<Debian's Python version>), MCLOUD_TESTBED_MOTO_DIR (default /tmp/mcloud-testbed/moto),
# MCLOUD_TESTBED_MOTO_PORT (default 24566; the open server takes the next port). See docs/aws.md.
set -euo pipefail

readonly MOTO_VERSION=5.2.5
readonly ME="moto testbed"
# The Debian packages the bed needs: Python with venv for moto, curl for the readiness probe and the IAM setup.
readonly PACKAGES=(python3 python3-venv curl)

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CACHE_ROOT=${MCLOUD_CACHE_DIR:-$(default_cache_root)}
# Debian's Python (python3 on PATH may be a pyenv shim), and a venv keyed by its version: a venv made by another
# interpreter is never reused or replaced.
PY=/usr/bin/python3
VENV=$CACHE_ROOT/venv-moto-$MOTO_VERSION-py$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo none)
SERVER=$VENV/bin/moto_server
STATE=${MCLOUD_TESTBED_MOTO_DIR:-/tmp/mcloud-testbed/moto}
PORT=${MCLOUD_TESTBED_MOTO_PORT:-24566}
OPEN_PORT=$((PORT + 1))
URL=http://127.0.0.1:$PORT
OPEN_URL=http://127.0.0.1:$OPEN_PORT

case "$CACHE_ROOT$STATE" in
  *[[:space:]]* | *[\"\'\$\`\\]*) die "MCLOUD_CACHE_DIR and MCLOUD_TESTBED_MOTO_DIR must not contain spaces or quotes" ;;
esac
case "$STATE" in /*) ;; *) STATE=$PWD/$STATE ;; esac
[[ "$PORT" =~ ^[0-9]+$ ]] || die "MCLOUD_TESTBED_MOTO_PORT must be a port number"

ensure_venv() {
  ensure_packages "${PACKAGES[@]}"
  usable() { [ -x "$SERVER" ] && "$VENV/bin/python" -c "import moto, sys; sys.exit(moto.__version__ != '$MOTO_VERSION')" 2>/dev/null; }
  usable && return 0
  mkdir -p "$CACHE_ROOT"
  exec 8>"$CACHE_ROOT/.venv-moto.lock"
  flock -w 600 8 || die "another install holds $CACHE_ROOT/.venv-moto.lock"
  if ! usable; then
    log "installing moto[server]==$MOTO_VERSION into $VENV (about 20 s)"
    rm -rf "$VENV"
    "$PY" -m venv "$VENV" || die "$PY -m venv failed"
    "$VENV/bin/pip" install -q --disable-pip-version-check "moto[server]==$MOTO_VERSION" >&2 ||
      { rm -rf "$VENV"; die "pip install moto[server]==$MOTO_VERSION failed: the bed needs PyPI (or the index pip.conf names)"; }
  fi
  exec 8>&-
}

# server_pid NAME PORT: the PID in $STATE/NAME.pid if that process is alive and is a moto_server on PORT (a
# reused PID never counts).
server_pid() {
  local pid
  [ -f "$STATE/$1.pid" ] || return 1
  pid=$(cat "$STATE/$1.pid" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] && [ -r "/proc/$pid/cmdline" ] || return 1
  [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" != Z ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "/moto_server -H 127.0.0.1 -p $2 " || return 1
  echo "$pid"
}

answers() { curl -fsS -o /dev/null --max-time 3 "http://127.0.0.1:$1/moto-api/" 2>/dev/null; }

running() { server_pid moto "$PORT" >/dev/null && server_pid moto-open "$OPEN_PORT" >/dev/null && answers "$PORT" && answers "$OPEN_PORT"; }

lock_state() {
  mkdir -p "$STATE"
  chmod 700 "$STATE"
  exec 9>"$STATE/.lock"
  flock -w 120 9 || die "another start/stop holds $STATE/.lock"
}

# Creates the IAM user, its allow-all policy and its access key with the three actions moto lets through
# unauthenticated, then with that key the backup user, and writes the env file.
create_credentials() {
  curl -fsS --max-time 10 -X POST -H 'Content-Type: text/plain' --data 3 "$URL/moto-api/reset-auth" >/dev/null ||
    die "POST /moto-api/reset-auth failed"
  local keys
  keys=$(MOTO_URL=$URL "$VENV/bin/python" - <<'PY'
import json, os
import boto3
iam = boto3.client("iam", endpoint_url=os.environ["MOTO_URL"], region_name="us-east-1",
                   aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap")
iam.create_user(UserName="mcloud-test")
iam.put_user_policy(UserName="mcloud-test", PolicyName="everything", PolicyDocument=json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
key = iam.create_access_key(UserName="mcloud-test")["AccessKey"]
# The backup identity a database VM gets (docs/security.md, H2): a user of its own, S3 only, made with the test
# user's key now that the unauthenticated actions are used up.
iam = boto3.client("iam", endpoint_url=os.environ["MOTO_URL"], region_name="us-east-1",
                   aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
iam.create_user(UserName="mcloud-backup")
iam.put_user_policy(UserName="mcloud-backup", PolicyName="backups", PolicyDocument=json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
backup = iam.create_access_key(UserName="mcloud-backup")["AccessKey"]
print(key["AccessKeyId"], key["SecretAccessKey"], backup["AccessKeyId"], backup["SecretAccessKey"])
PY
  ) || die "creating the IAM test user failed (log: $STATE/moto.log)"
  local key_id secret backup_key_id backup_secret
  read -r key_id secret backup_key_id backup_secret <<<"$keys"
  (
    umask 077
    {
      echo "MCLOUD_TEST_MOTO_URL=$URL"
      echo "MCLOUD_TEST_MOTO_OPEN_URL=$OPEN_URL"
      echo "MCLOUD_TEST_MOTO_ACCESS_KEY_ID=$key_id"
      echo "MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY=$secret"
      echo "MCLOUD_TEST_MOTO_BACKUP_ACCESS_KEY_ID=$backup_key_id"
      echo "MCLOUD_TEST_MOTO_BACKUP_SECRET_ACCESS_KEY=$backup_secret"
      echo "MCLOUD_TEST_MOTO_VERSION=$MOTO_VERSION"
    } >"$STATE/env.tmp"
  )
  mv -f "$STATE/env.tmp" "$STATE/env"
}

# stop_server NAME PORT: SIGTERM, up to 10 s, then SIGKILL.
stop_server() {
  local pid i
  if pid=$(server_pid "$1" "$2"); then
    log "stopping $1 (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do server_pid "$1" "$2" >/dev/null || break; sleep 0.2; done
    if server_pid "$1" "$2" >/dev/null; then
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
    fi
  fi
  rm -f "$STATE/$1.pid" "$STATE/env"
}

stop_all() {
  stop_server moto "$PORT"
  stop_server moto-open "$OPEN_PORT"
}

# start_server NAME PORT NO_AUTH_COUNT: starts moto_server and waits until it answers.
start_server() {
  (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null && die "127.0.0.1:$2 is taken by another process (MCLOUD_TESTBED_MOTO_PORT)"
  log "starting $1 (moto_server $MOTO_VERSION) on 127.0.0.1:$2"
  echo "---- $(date -u +%Y-%m-%dT%H:%M:%SZ) start" >>"$STATE/$1.log"
  INITIAL_NO_AUTH_ACTION_COUNT=$3 setsid "$SERVER" -H 127.0.0.1 -p "$2" </dev/null >>"$STATE/$1.log" 2>&1 8>&- 9>&- &
  echo $! >"$STATE/$1.pid"
  local i
  for ((i = 0; i < 150; i++)); do  # 30 s
    answers "$2" && return 0
    server_pid "$1" "$2" >/dev/null || { tail -n 20 "$STATE/$1.log" >&2; rm -f "$STATE/$1.pid"; stop_all; die "$1 exited (log: $STATE/$1.log)"; }
    sleep 0.2
  done
  tail -n 20 "$STATE/$1.log" >&2
  stop_all
  die "$1 did not answer within 30 s"
}

cmd_start() {
  lock_state
  if running && [ -f "$STATE/env" ]; then
    log "already running at $URL and $OPEN_URL (env: $STATE/env)"
    cat "$STATE/env"
    return 0
  fi
  stop_all
  ensure_venv
  start_server moto "$PORT" 0
  start_server moto-open "$OPEN_PORT" inf
  create_credentials
  log "ready at $URL (signatures checked) and $OPEN_URL (env: $STATE/env)"
  cat "$STATE/env"
}

cmd_stop() {
  [ -d "$STATE" ] || { log "not running (no $STATE)"; return 0; }
  lock_state
  stop_all
  log "stopped"
}

cmd_status() {
  local auth open
  auth=$(server_pid moto "$PORT" || true)
  open=$(server_pid moto-open "$OPEN_PORT" || true)
  if [ -z "$auth" ] && [ -z "$open" ]; then echo "stopped"; return 3; fi
  if running && [ -f "$STATE/env" ]; then
    echo "running: moto_server $MOTO_VERSION pid $auth at $URL (signatures checked), pid $open at $OPEN_URL; env: $STATE/env"
    return 0
  fi
  echo "not ready: moto pid ${auth:--} at $URL, moto-open pid ${open:--} at $OPEN_URL (logs: $STATE/*.log); run stop or start"
  return 1
}

# Its own `env`: moto has no bed_state, only whether its two servers run.
cmd_env() {
  running && [ -f "$STATE/env" ] || die "not running (scripts/testbed/moto.sh start)"
  cat "$STATE/env"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  *)
    echo "usage: $0 start|stop|status|env" >&2
    exit 2
    ;;
esac
