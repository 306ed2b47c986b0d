#!/usr/bin/env bash
# moto_server (an AWS API emulator: EC2, RDS, EKS, S3, CloudFront, STS, IAM) on 127.0.0.1 for mcloud's AWS
# integration tests. Two servers:
# - "auth" (MCLOUD_TEST_MOTO_URL) checks signatures: it starts with INITIAL_NO_AUTH_ACTION_COUNT=0, then opens three
#   unauthenticated actions (POST /moto-api/reset-auth) to create an IAM user with an allow-all policy and an access
#   key, which go into the env file. Every later request must be signed with that key. With it, a second user with
#   S3 rights only, the backup identity database VMs get (MCLOUD_TEST_MOTO_BACKUP_*; docs/security.md, H2).
# - "open" (MCLOUD_TEST_MOTO_OPEN_URL) checks nothing. moto's checker rebuilds a bodiless non-S3 request wrongly
#   and rejects correct signatures there (CloudFront and EKS GET/DELETE), so those calls are tested on this one.
# - a TLS front (MCLOUD_TEST_MOTO_TLS_URL, https://localhost:PORT+33) to the auth server: socat with a server
#   certificate for DNS:localhost,IP:127.0.0.1 from an Ed25519 bed CA (MCLOUD_TEST_MOTO_CA). pgBackRest speaks S3
#   over TLS only (pgbackrest#2612) and 2.45 matches DNS names only; socat passes the bytes through, so the
#   signatures still check.
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
# The Debian packages the bed needs: Python with venv for moto, curl for the readiness probe and the IAM setup,
# socat and openssl for the TLS front.
readonly PACKAGES=(python3 python3-venv curl socat openssl)

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
TLS_PORT=${MCLOUD_TESTBED_MOTO_TLS_PORT:-$((PORT + 33))}
URL=http://127.0.0.1:$PORT
OPEN_URL=http://127.0.0.1:$OPEN_PORT
TLS_URL=https://localhost:$TLS_PORT
TLS=$STATE/tls

case "$CACHE_ROOT$STATE" in
  *[[:space:]]* | *[\"\'\$\`\\]*) die "MCLOUD_CACHE_DIR and MCLOUD_TESTBED_MOTO_DIR must not contain spaces or quotes" ;;
esac
case "$STATE" in /*) ;; *) STATE=$PWD/$STATE ;; esac
[[ "$PORT" =~ ^[0-9]+$ ]] || die "MCLOUD_TESTBED_MOTO_PORT must be a port number"
[[ "$TLS_PORT" =~ ^[0-9]+$ ]] || die "MCLOUD_TESTBED_MOTO_TLS_PORT must be a port number"

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

# live_pid NAME COMMAND: the PID in $STATE/NAME.pid if that process is alive and its command line holds COMMAND (a
# reused PID never counts).
live_pid() {
  local pid
  [ -f "$STATE/$1.pid" ] || return 1
  pid=$(cat "$STATE/$1.pid" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] && [ -r "/proc/$pid/cmdline" ] || return 1
  [ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" != Z ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$2" || return 1
  echo "$pid"
}

# server_pid NAME PORT: a moto_server on PORT.
server_pid() { live_pid "$1" "/moto_server -H 127.0.0.1 -p $2 "; }

# front_pid: this bed's socat on $TLS_PORT.
front_pid() { live_pid tls-front "socat OPENSSL-LISTEN:$TLS_PORT,"; }

answers() { curl -fsS -o /dev/null --max-time 3 "http://127.0.0.1:$1/moto-api/" 2>/dev/null; }

# The front answers with a certificate the bed CA verifies for localhost.
front_answers() { curl -fsS -o /dev/null --max-time 3 --cacert "$TLS/ca.crt" "$TLS_URL/moto-api/" 2>/dev/null; }

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

stop_front() {
  local pid
  if pid=$(front_pid); then
    log "stopping the TLS front (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    sleep 0.2
  fi
  rm -f "$STATE/tls-front.pid"
}

stop_all() {
  stop_front
  stop_server moto "$PORT"
  stop_server moto-open "$OPEN_PORT"
}

# The bed CA and the front's certificate, made once and kept across restarts: Ed25519, as mcloud's own CAs are,
# and a DNS name in the certificate because pgBackRest 2.45 ignores IP addresses there.
ensure_certificates() {
  [ -s "$TLS/ca.crt" ] && [ -s "$TLS/s3.crt" ] && [ -s "$TLS/s3.key" ] && return 0
  log "making the bed CA and the TLS front's certificate in $TLS"
  rm -rf "$TLS"
  mkdir -p "$TLS"
  (
    set -e
    cd "$TLS"
    umask 077
    openssl genpkey -algorithm ed25519 -out ca.key
    openssl req -x509 -new -key ca.key -subj "/CN=mcloud moto bed CA" -days 3650 -out ca.crt \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
    openssl genpkey -algorithm ed25519 -out s3.key
    openssl req -new -key s3.key -subj "/CN=localhost" -out s3.csr
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >s3.ext
    openssl x509 -req -in s3.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 -out s3.crt -extfile s3.ext
    chmod 644 ca.crt
  ) >>"$STATE/tls-front.log" 2>&1 || die "making the TLS front's certificates failed (log: $STATE/tls-front.log)"
}

# start_front: the socat TLS terminator in front of the auth server, and its two lines in the env file.
start_front() {
  ensure_certificates
  if ! front_pid >/dev/null; then
    (exec 3<>"/dev/tcp/127.0.0.1/$TLS_PORT") 2>/dev/null && die "127.0.0.1:$TLS_PORT is taken by another process (MCLOUD_TESTBED_MOTO_TLS_PORT)"
    log "starting the TLS front on 127.0.0.1:$TLS_PORT"
    echo "---- $(date -u +%Y-%m-%dT%H:%M:%SZ) start" >>"$STATE/tls-front.log"
    (
      close_inherited_fds
      exec setsid socat "OPENSSL-LISTEN:$TLS_PORT,reuseaddr,fork,bind=127.0.0.1,cert=$TLS/s3.crt,key=$TLS/s3.key,verify=0" "TCP:127.0.0.1:$PORT"
    ) </dev/null >>"$STATE/tls-front.log" 2>&1 &
    echo $! >"$STATE/tls-front.pid"
  fi
  local i
  for ((i = 0; i < 50; i++)); do  # 10 s
    front_answers && break
    front_pid >/dev/null || { tail -n 20 "$STATE/tls-front.log" >&2; die "the TLS front exited (log: $STATE/tls-front.log)"; }
    sleep 0.2
  done
  front_answers || die "the TLS front did not answer within 10 s (log: $STATE/tls-front.log)"
  if [ -f "$STATE/env" ] && ! grep -q '^MCLOUD_TEST_MOTO_TLS_URL=' "$STATE/env"; then
    (
      umask 077
      { cat "$STATE/env"; echo "MCLOUD_TEST_MOTO_TLS_URL=$TLS_URL"; echo "MCLOUD_TEST_MOTO_CA=$TLS/ca.crt"; } >"$STATE/env.tmp"
    )
    mv -f "$STATE/env.tmp" "$STATE/env"
  fi
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
    # A bed started before the TLS front existed gains it without losing moto's state.
    ensure_packages "${PACKAGES[@]}"
    start_front
    log "already running at $URL, $OPEN_URL and $TLS_URL (env: $STATE/env)"
    cat "$STATE/env"
    return 0
  fi
  stop_all
  ensure_venv
  start_server moto "$PORT" 0
  start_server moto-open "$OPEN_PORT" inf
  create_credentials
  start_front
  log "ready at $URL (signatures checked), $OPEN_URL and $TLS_URL (env: $STATE/env)"
  cat "$STATE/env"
}

cmd_stop() {
  [ -d "$STATE" ] || { log "not running (no $STATE)"; return 0; }
  lock_state
  stop_all
  log "stopped"
}

cmd_status() {
  local auth open front
  auth=$(server_pid moto "$PORT" || true)
  open=$(server_pid moto-open "$OPEN_PORT" || true)
  front=$(front_pid || true)
  if [ -z "$auth" ] && [ -z "$open" ] && [ -z "$front" ]; then echo "stopped"; return 3; fi
  if running && [ -n "$front" ] && front_answers && [ -f "$STATE/env" ]; then
    echo "running: moto_server $MOTO_VERSION pid $auth at $URL (signatures checked), pid $open at $OPEN_URL, TLS front pid $front at $TLS_URL; env: $STATE/env"
    return 0
  fi
  echo "not ready: moto pid ${auth:--} at $URL, moto-open pid ${open:--} at $OPEN_URL, TLS front pid ${front:--} at $TLS_URL (logs: $STATE/*.log); run stop or start"
  return 1
}

# Its own `env`: moto has no bed_state, only whether its servers run.
cmd_env() {
  running && front_pid >/dev/null && [ -f "$STATE/env" ] || die "not running (scripts/testbed/moto.sh start)"
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
