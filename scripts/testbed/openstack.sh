#!/usr/bin/env bash
# A real OpenStack control plane (Debian 12's Zed packages) on 127.0.0.1 for mcloud's integration tests:
# Keystone, Placement, Glance, Nova (fake compute driver), Neutron (API), Cinder (fake volume driver) and Trove
# (fake guest agent), on PostgreSQL and RabbitMQ. No Apache, systemd, qemu or libvirt. Background and the
# pitfalls behind each choice: docs/openstack.md.
#
#   openstack.sh up|start   install what is missing, start everything, register users and endpoints, print the env file
#   openstack.sh status     exit 0 running and ready, 3 stopped, 1 half running
#   openstack.sh env        print the env file of the running bed (exit 1 when not running)
#   openstack.sh stop       stop exactly the processes this script started (by PID file)
#   openstack.sh sweep      delete what earlier runs left in project mcloud (scripts/test.sh does, before the tests)
set -euo pipefail

DIR=${MCLOUD_TESTBED_DIR:-/tmp/mcloud-testbed/openstack}
PGDATA=${MCLOUD_TESTBED_PGDATA:-/var/lib/postgresql/mcloud-testbed-openstack}
CACHE=${MCLOUD_CACHE_DIR:-/var/cache/mcloud}/openstack
PIDS=$DIR/pids
LOGS=$DIR/logs
ETC=$DIR/etc
BIN=$DIR/bin
PY=/usr/bin/python3  # python3 on PATH may be a pyenv shim without Debian's packages
PG_PORT=${PG_PORT:-15432} EPMD_PORT=${EPMD_PORT:-14369} AMQP_PORT=${AMQP_PORT:-25671} DIST_PORT=${DIST_PORT:-25681}
KS_PORT=${KS_PORT:-15000} PLACEMENT_PORT=${PLACEMENT_PORT:-18778} GLANCE_PORT=${GLANCE_PORT:-19292}
NOVA_PORT=${NOVA_PORT:-18774} NEUTRON_PORT=${NEUTRON_PORT:-19696} CINDER_PORT=${CINDER_PORT:-18776} TROVE_PORT=${TROVE_PORT:-18779}
KS=http://127.0.0.1:$KS_PORT
SERVICE_PASS=service-pass
DB=postgresql+psycopg2://mcloud:mcloud@127.0.0.1:$PG_PORT
RABBIT=rabbit://guest:guest@127.0.0.1:$AMQP_PORT/
# The library packages only: the daemon packages pull qemu, libvirt, Apache and dbconfig-common.
PACKAGES=(python3-keystone python3-nova python3-neutron python3-cinder python3-glance python3-placement python3-trove
  python3-proboscis python3-psycopg2 uwsgi-core uwsgi-plugin-python3 postgresql rabbitmq-server curl jq procps iproute2)
# api-paste.ini files live in the *-common packages, whose maintainer scripts are unwanted: unpacked privately.
COMMON=(nova-common neutron-common cinder-common glance-common trove-common)

log() { printf '%s\n' "$*" >&2; }
die() { log "openstack.sh: $*"; exit 1; }

usage() {
  sed -n '6,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# --- processes --------------------------------------------------------------------------------------------

alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

pid_of() { [ -f "$PIDS" ] && awk -v n="$1" '$1 == n { print $2 }' "$PIDS" | tail -1; }

# Starts a daemon in its own session (pid == process group), so stop reaches its workers and nothing else.
launch() {
  local name=$1; shift
  if alive "$(pid_of "$name")"; then return; fi
  setsid "$@" >>"$LOGS/$name.log" 2>&1 </dev/null &
  echo "$name $!" >>"$PIDS"
}

stop_all() {
  [ -f "$PIDS" ] || return 0
  local name pid signal groups=()
  # Reverse start order: the API services first, PostgreSQL and RabbitMQ last.
  while read -r name pid; do
    alive "$pid" || continue
    signal=TERM
    [ "$name" = postgres ] && signal=INT  # fast shutdown; TERM would wait for the services' connections
    kill -s "$signal" -- "-$pid" 2>/dev/null || kill -s "$signal" "$pid" 2>/dev/null || true
    groups+=("$pid")
    [ "$name" = rabbitmq ] || [ "$name" = postgres ] && wait_gone "$pid" 30
  done < <(tac "$PIDS")
  for pid in "${groups[@]}"; do wait_gone "$pid" 20 || kill -KILL -- "-$pid" 2>/dev/null || true; done
  rm -f "$PIDS"
}

wait_gone() {
  local pid=$1 tries=$(( $2 * 10 ))
  while alive "$pid" && [ "$tries" -gt 0 ]; do sleep 0.1; tries=$((tries - 1)); done
  ! alive "$pid"
}

wait_http() {
  local name=$1 url=$2 seconds=${3:-90} deadline=$((SECONDS + ${3:-90}))
  until curl -s -o /dev/null -m 5 "$url"; do
    alive "$(pid_of "$name")" || { tail -n 30 "$LOGS/$name.log" >&2; die "$name exited (log: $LOGS/$name.log)"; }
    [ $SECONDS -lt "$deadline" ] || { tail -n 30 "$LOGS/$name.log" >&2; die "$name did not answer at $url within $seconds s"; }
    sleep 0.5
  done
}

# --- installation -----------------------------------------------------------------------------------------

install_packages() {
  local missing=() package
  for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq eatmydata >/dev/null
    # postgresql and rabbitmq-server start system services from their postinst where an init system runs;
    # policy-rc.d keeps them off: the bed runs its own instances on its own ports.
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    eatmydata apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-unsafe-io \
      "${missing[@]}" >"$LOGS/apt.log" 2>&1 || { tail -n 20 "$LOGS/apt.log" >&2; die "apt-get install failed"; }
    rm -f /usr/sbin/policy-rc.d
  fi
  if [ ! -f "$CACHE/common/.done" ]; then
    mkdir -p "$CACHE/common" "$CACHE/debs"
    (cd "$CACHE/debs" && apt-get download -q "${COMMON[@]}" >/dev/null 2>&1) || die "apt-get download ${COMMON[*]} failed"
    for deb in "$CACHE"/debs/*.deb; do dpkg-deb -x "$deb" "$CACHE/common"; done
    touch "$CACHE/common/.done"
  fi
}

# --- configuration ----------------------------------------------------------------------------------------

authtoken() {  # the keystonemiddleware section every API service shares, as service user $1
  cat <<EOF
[keystone_authtoken]
www_authenticate_uri = $KS
auth_url = $KS
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $1
password = $SERVICE_PASS
service_token_roles_required = true
EOF
}

service_auth() {  # a [section] with service credentials for calls between services
  cat <<EOF
[$1]
auth_type = password
auth_url = $KS
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $2
password = $SERVICE_PASS
region_name = RegionOne
EOF
}

write_configs() {
  mkdir -p "$ETC" "$BIN" "$DIR"/{keystone/fernet-keys,keystone/credential-keys,glance/images,glance/staging,glance/tasks,nova,neutron,cinder,trove,locks}
  local paste=$CACHE/common/usr/share
  cat >"$ETC/keystone.conf" <<EOF
[DEFAULT]
[database]
connection = $DB/keystone
[token]
provider = fernet
[fernet_tokens]
key_repository = $DIR/keystone/fernet-keys
[credential]
key_repository = $DIR/keystone/credential-keys
[identity]
password_hash_rounds = 4
EOF
  cat >"$ETC/placement.conf" <<EOF
[DEFAULT]
[api]
auth_strategy = keystone
[placement_database]
connection = $DB/placement
$(authtoken placement)
EOF
  cat >"$ETC/glance-api.conf" <<EOF
[DEFAULT]
bind_host = 127.0.0.1
bind_port = $GLANCE_PORT
workers = 1
enabled_backends = fs:file
[glance_store]
default_backend = fs
[fs]
filesystem_store_datadir = $DIR/glance/images
[os_glance_staging_store]
filesystem_store_datadir = $DIR/glance/staging
[os_glance_tasks_store]
filesystem_store_datadir = $DIR/glance/tasks
[database]
connection = $DB/glance
[paste_deploy]
flavor = keystone
config_file = $paste/glance-common/glance-api-paste.ini
[oslo_concurrency]
lock_path = $DIR/locks
$(authtoken glance)
EOF
  cat >"$ETC/nova-common.conf" <<EOF
[DEFAULT]
transport_url = $RABBIT
my_ip = 127.0.0.1
host = mcloud-compute
state_path = $DIR/nova
compute_driver = fake.FakeDriver
periodic_fuzzy_delay = 0
[oslo_concurrency]
lock_path = $DIR/locks
$(service_auth placement nova)
$(service_auth neutron nova)
# Cinder lets only Nova delete the attachments Nova made (ConflictNovaUsingAttachment otherwise): a service token.
$(service_auth service_user nova)
send_service_user_token = true
[glance]
region_name = RegionOne
[cinder]
os_region_name = RegionOne
[vnc]
enabled = false
[os_vif_linux_bridge]
[scheduler]
discover_hosts_in_cells_interval = 2
EOF
  # nova-compute gets no database sections (it would log "No DB access allowed" tracebacks).
  cp "$ETC/nova-common.conf" "$ETC/nova-compute.conf"
  cat "$ETC/nova-common.conf" >"$ETC/nova.conf"
  cat >>"$ETC/nova.conf" <<EOF
[api]
auth_strategy = keystone
[api_database]
connection = $DB/nova_api
[database]
connection = $DB/nova
[wsgi]
api_paste_config = $paste/nova-common/api-paste.ini
[conductor]
workers = 1
[scheduler]
workers = 1
$(authtoken nova)
EOF
  # oslo.config lets the last value of a repeated option win; the [scheduler] and [DEFAULT] API options:
  cat >>"$ETC/nova.conf" <<EOF
[DEFAULT]
enabled_apis = osapi_compute
osapi_compute_listen = 127.0.0.1
osapi_compute_listen_port = $NOVA_PORT
osapi_compute_workers = 1
EOF
  cat >"$ETC/neutron.conf" <<EOF
[DEFAULT]
bind_host = 127.0.0.1
bind_port = $NEUTRON_PORT
core_plugin = ml2
service_plugins =
auth_strategy = keystone
transport_url = $RABBIT
api_paste_config = $paste/neutron-common/api-paste.ini
api_workers = 1
rpc_workers = 0
rpc_state_report_workers = 0
state_path = $DIR/neutron
notify_nova_on_port_status_changes = false
notify_nova_on_port_data_changes = false
[database]
connection = $DB/neutron
[ml2]
type_drivers = flat,vlan,vxlan
tenant_network_types = vxlan
mechanism_drivers =
extension_drivers = port_security
[ml2_type_vxlan]
vni_ranges = 1:1000
[oslo_concurrency]
lock_path = $DIR/locks
$(authtoken neutron)
EOF
  cat >"$ETC/cinder.conf" <<EOF
[DEFAULT]
transport_url = $RABBIT
auth_strategy = keystone
my_ip = 127.0.0.1
host = mcloud-volume
state_path = $DIR/cinder
osapi_volume_listen = 127.0.0.1
osapi_volume_listen_port = $CINDER_PORT
osapi_volume_workers = 1
api_paste_config = $paste/cinder-common/api-paste.ini
enabled_backends = fake
periodic_fuzzy_delay = 0
[database]
connection = $DB/cinder
[fake]
volume_driver = cinder.tests.fake_driver.FakeLoggingVolumeDriver
volume_backend_name = fake
[oslo_concurrency]
lock_path = $DIR/locks
$(service_auth nova cinder)
$(authtoken cinder)
EOF
  cat >"$ETC/trove.conf" <<EOF
[DEFAULT]
bind_host = 127.0.0.1
bind_port = $TROVE_PORT
trove_api_workers = 1
transport_url = $RABBIT
control_exchange = trove
api_paste_config = $paste/trove-common/api-paste.ini
remote_guest_client = trove.tests.fakes.guestagent.fake_create_guest_client
trove_volume_support = true
os_region_name = RegionOne
trove_auth_url = $KS/v3
usage_timeout = 120
state_change_wait_time = 120
# The retail-bank example's databases (up to 500 GB each; volumes are fake) for the engine end-to-end test.
max_accepted_volume_size = 2000
max_volumes_per_tenant = 100000
max_instances_per_tenant = 100
[database]
connection = sqlite:///$DIR/trove/trove.sqlite
[mysql]
volume_support = true
$(service_auth service_credentials trove)
[oslo_concurrency]
lock_path = $DIR/locks
$(authtoken trove)
EOF
  cat >"$BIN/keystone.wsgi" <<'EOF'
from keystone.server.wsgi import initialize_public_application
application = initialize_public_application()
EOF
  cat >"$BIN/placement.wsgi" <<'EOF'
from placement.wsgi import init_application
application = init_application()
EOF
  # Trove 18 on Python 3.11: inspect.getargspec is gone, and the packaged fake guest predates `ds_version`.
  cat >"$BIN/trove_shim.py" <<'EOF'
import collections, inspect
if not hasattr(inspect, "getargspec"):
    ArgSpec = collections.namedtuple("ArgSpec", "args varargs keywords defaults")
    inspect.getargspec = lambda f: ArgSpec(*inspect.getfullargspec(f)[:4])
def patch_fake_guest():
    from trove.tests.fakes import guestagent
    prepare = guestagent.FakeGuest.prepare
    def tolerant(self, *args, **kwargs):
        kwargs.pop("ds_version", None)
        return prepare(self, *args, **kwargs)
    guestagent.FakeGuest.prepare = tolerant
EOF
  local name module
  for name in nova-api:nova.cmd.api nova-conductor:nova.cmd.conductor nova-scheduler:nova.cmd.scheduler \
      nova-compute:nova.cmd.compute glance-api:glance.cmd.api neutron-server:neutron.cmd.eventlet.server \
      cinder-api:cinder.cmd.api cinder-scheduler:cinder.cmd.scheduler cinder-volume:cinder.cmd.volume; do
    module=${name#*:}
    printf 'import sys\nfrom %s import main\nsys.exit(main())\n' "$module" >"$BIN/${name%%:*}.py"
  done
  for name in trove-api:api trove-taskmanager:taskmanager trove-manage:manage; do
    module=${name#*:}
    printf 'import sys\nsys.path.insert(0, "%s")\nimport trove_shim\nimport trove.cmd\ntrove_shim.patch_fake_guest()\nfrom trove.cmd.%s import main\nsys.exit(main())\n' \
      "$BIN" "$module" >"$BIN/${name%%:*}.py"
  done
}

# --- infrastructure ---------------------------------------------------------------------------------------

start_postgres() {
  local pgbin
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  if [ ! -f "$PGDATA/PG_VERSION" ]; then
    mkdir -p "$PGDATA" && chown postgres:postgres "$PGDATA" && chmod 700 "$PGDATA"
    setpriv --reuid=postgres --regid=postgres --init-groups "$pgbin/initdb" -D "$PGDATA" -U postgres --auth=trust >>"$LOGS/postgres.log" 2>&1
  fi
  # The log is written by the postgres user: it gets its own file under $LOGS.
  touch "$LOGS/postgres.log" && chown postgres "$LOGS/postgres.log"
  launch postgres setpriv --reuid=postgres --regid=postgres --init-groups "$pgbin/postgres" -D "$PGDATA" \
    -c listen_addresses=127.0.0.1 -c port="$PG_PORT" -c unix_socket_directories= -c fsync=off \
    -c synchronous_commit=off -c full_page_writes=off -c max_connections=300
  local deadline=$((SECONDS + 60))
  until "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; do
    [ $SECONDS -lt "$deadline" ] || { tail -n 20 "$LOGS/postgres.log" >&2; die "postgres did not start"; }
    sleep 0.3
  done
  local psql=("$pgbin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -qtA)
  local existing
  existing=$("${psql[@]}" -c "select rolname from pg_roles where rolname='mcloud'")
  [ -n "$existing" ] || "${psql[@]}" -c "create role mcloud login password 'mcloud'"
  existing=$("${psql[@]}" -c "select datname from pg_database")
  for db in keystone placement glance nova_api nova nova_cell0 neutron cinder; do
    grep -qx "$db" <<<"$existing" || "${psql[@]}" -c "create database $db owner mcloud"
  done
}

start_rabbitmq() {
  mkdir -p "$DIR/rabbitmq"
  launch epmd epmd -address 127.0.0.1 -port "$EPMD_PORT"
  cat >"$DIR/rabbitmq/rabbitmq.conf" <<EOF
listeners.tcp.1 = 127.0.0.1:$AMQP_PORT
loopback_users.guest = true
EOF
  # Empty enabled-plugins file: no management plugin, no extra listeners.
  : >"$DIR/rabbitmq/enabled_plugins"
  launch rabbitmq env HOME="$DIR/rabbitmq" ERL_EPMD_PORT="$EPMD_PORT" ERL_EPMD_ADDRESS=127.0.0.1 \
    RABBITMQ_NODENAME=mcloud-testbed@localhost RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_DIST_PORT="$DIST_PORT" \
    RABBITMQ_CONFIG_FILE="$DIR/rabbitmq/rabbitmq" RABBITMQ_ENABLED_PLUGINS_FILE="$DIR/rabbitmq/enabled_plugins" \
    RABBITMQ_MNESIA_BASE="$DIR/rabbitmq/mnesia" RABBITMQ_LOG_BASE="$LOGS/rabbitmq" RABBITMQ_LOGS=- \
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" \
    /usr/lib/rabbitmq/bin/rabbitmq-server
  local deadline=$((SECONDS + 90))
  until (exec 3<>"/dev/tcp/127.0.0.1/$AMQP_PORT") 2>/dev/null; do
    alive "$(pid_of rabbitmq)" || { tail -n 20 "$LOGS/rabbitmq.log" >&2; die "rabbitmq exited"; }
    [ $SECONDS -lt "$deadline" ] || { tail -n 20 "$LOGS/rabbitmq.log" >&2; die "rabbitmq did not listen on $AMQP_PORT"; }
    sleep 0.5
  done
}

# --- OpenStack ----------------------------------------------------------------------------------------------

start_keystone() {
  local manage=(keystone-manage --config-file "$ETC/keystone.conf")
  "${manage[@]}" db_sync >>"$LOGS/keystone-manage.log" 2>&1 || die "keystone db_sync failed (log: $LOGS/keystone-manage.log)"
  [ -f "$DIR/keystone/fernet-keys/0" ] || "${manage[@]}" fernet_setup --keystone-user root --keystone-group root >>"$LOGS/keystone-manage.log" 2>&1
  [ -f "$DIR/keystone/credential-keys/0" ] || "${manage[@]}" credential_setup --keystone-user root --keystone-group root >>"$LOGS/keystone-manage.log" 2>&1
  "${manage[@]}" bootstrap --bootstrap-password admin-pass --bootstrap-region-id RegionOne \
    --bootstrap-admin-url "$KS/v3/" --bootstrap-internal-url "$KS/v3/" --bootstrap-public-url "$KS/v3/" \
    >>"$LOGS/keystone-manage.log" 2>&1 || die "keystone bootstrap failed (log: $LOGS/keystone-manage.log)"
  launch keystone uwsgi --plugin python3 --http11-socket "127.0.0.1:$KS_PORT" --wsgi-file "$BIN/keystone.wsgi" \
    --master --processes 2 --threads 4 --die-on-term --lazy-apps --env OS_KEYSTONE_CONFIG_DIR="$ETC" \
    --env OS_KEYSTONE_CONFIG_FILES=keystone.conf
  wait_http keystone "$KS/v3"
}

# The *-manage commands ship in the daemon packages (not installed): run their modules' main().
pymain() {
  local module=$1; shift
  "$PY" -c "import sys; from $module import main; sys.argv[0] = '$module'; sys.exit(main())" "$@"
}

db_sync() {
  placement-manage --config-file "$ETC/placement.conf" db sync
  pymain glance.cmd.manage --config-file "$ETC/glance-api.conf" db_sync
  local nova=(pymain nova.cmd.manage --config-file "$ETC/nova.conf")
  "${nova[@]}" api_db sync
  "${nova[@]}" cell_v2 map_cell0 --database_connection "$DB/nova_cell0"
  local cells  # captured first: `| grep -q` under pipefail fails with SIGPIPE (141)
  cells=$("${nova[@]}" cell_v2 list_cells 2>/dev/null)
  grep -q " cell1 " <<<"$cells" || "${nova[@]}" cell_v2 create_cell --name cell1 --transport-url "$RABBIT" --database_connection "$DB/nova"
  "${nova[@]}" db sync
  pymain neutron.db.migration.cli --config-file "$ETC/neutron.conf" upgrade heads
  pymain cinder.cmd.manage --config-file "$ETC/cinder.conf" db sync
  $PY "$BIN/trove-manage.py" --config-file "$ETC/trove.conf" db_sync
}

start_services() {
  # One thread per worker, the app loaded in each: placement's libraries use eventlet, whose hub belongs to the thread
  # that made it, and a request on another uWSGI thread then hangs on "cannot switch to a different thread" (seen once
  # on a fresh root, 2026-12-06: placement never answered).
  launch placement uwsgi --plugin python3 --http11-socket "127.0.0.1:$PLACEMENT_PORT" --wsgi-file "$BIN/placement.wsgi" \
    --master --processes 2 --threads 1 --lazy-apps --die-on-term --env OS_PLACEMENT_CONFIG_DIR="$ETC"
  launch glance-api $PY "$BIN/glance-api.py" --config-file "$ETC/glance-api.conf"
  launch nova-api $PY "$BIN/nova-api.py" --config-file "$ETC/nova.conf"
  launch nova-conductor $PY "$BIN/nova-conductor.py" --config-file "$ETC/nova.conf"
  launch nova-scheduler $PY "$BIN/nova-scheduler.py" --config-file "$ETC/nova.conf"
  launch nova-compute $PY "$BIN/nova-compute.py" --config-file "$ETC/nova-compute.conf"
  launch neutron-server $PY "$BIN/neutron-server.py" --config-file "$ETC/neutron.conf"
  launch cinder-api $PY "$BIN/cinder-api.py" --config-file "$ETC/cinder.conf"
  launch cinder-scheduler $PY "$BIN/cinder-scheduler.py" --config-file "$ETC/cinder.conf"
  launch cinder-volume $PY "$BIN/cinder-volume.py" --config-file "$ETC/cinder.conf"
  launch trove-api $PY "$BIN/trove-api.py" --config-file "$ETC/trove.conf"
  launch trove-taskmanager $PY "$BIN/trove-taskmanager.py" --config-file "$ETC/trove.conf"
  wait_http placement "http://127.0.0.1:$PLACEMENT_PORT/"
  wait_http glance-api "http://127.0.0.1:$GLANCE_PORT/"
  wait_http nova-api "http://127.0.0.1:$NOVA_PORT/"
  wait_http neutron-server "http://127.0.0.1:$NEUTRON_PORT/"
  wait_http cinder-api "http://127.0.0.1:$CINDER_PORT/"
  wait_http trove-api "http://127.0.0.1:$TROVE_PORT/"
}

# Keystone objects (phase register), then images, flavors, the datastore, quotas, the application credential,
# clouds.yaml and the env file (phase resources).
setup() {
  "$PY" "$(dirname "$0")/openstack_setup.py" "$1" \
    --keystone "$KS" --dir "$DIR" --service-password "$SERVICE_PASS" --trove-manage "$PY $BIN/trove-manage.py --config-file $ETC/trove.conf" \
    --endpoint "compute=http://127.0.0.1:$NOVA_PORT/v2.1" --endpoint "placement=http://127.0.0.1:$PLACEMENT_PORT" \
    --endpoint "image=http://127.0.0.1:$GLANCE_PORT" --endpoint "network=http://127.0.0.1:$NEUTRON_PORT" \
    --endpoint "block-storage=http://127.0.0.1:$CINDER_PORT/v3" --endpoint "volumev3=http://127.0.0.1:$CINDER_PORT/v3" \
    --endpoint "database=http://127.0.0.1:$TROVE_PORT/v1.0/%(tenant_id)s" >>"$LOGS/setup.log" 2>&1 \
    || { tail -n 30 "$LOGS/setup.log" >&2; die "setup $1 failed (log: $LOGS/setup.log)"; }
}

# --- commands -----------------------------------------------------------------------------------------------

ready() {
  [ -f "$DIR/env" ] && [ -f "$PIDS" ] || return 1
  local name pid
  while read -r name pid; do alive "$pid" || return 1; done <"$PIDS"
  curl -sf -o /dev/null -m 5 "$KS/v3" && curl -s -o /dev/null -m 5 "http://127.0.0.1:$NOVA_PORT/"
}

cmd_up() {
  [ "$(id -u)" -eq 0 ] || die "runs as root (apt-get, postgres via setpriv)"
  if ready; then cat "$DIR/env"; return; fi
  mkdir -p "$DIR" "$LOGS"
  stop_all
  rm -f "$DIR/env"
  install_packages
  write_configs
  start_postgres
  start_rabbitmq
  start_keystone
  setup register
  db_sync >>"$LOGS/db-sync.log" 2>&1 || { tail -n 30 "$LOGS/db-sync.log" >&2; die "db sync failed (log: $LOGS/db-sync.log)"; }
  start_services
  setup resources
  cat "$DIR/env"
}

cmd_status() {
  if ready; then echo "running"; return 0; fi
  local name pid any=0
  if [ -f "$PIDS" ]; then
    while read -r name pid; do alive "$pid" && any=1 && echo "$name running" || echo "$name stopped"; done <"$PIDS"
  fi
  [ "$any" -eq 1 ] && return 1
  echo "stopped"
  return 3
}

case "${1:-}" in
  up|start) cmd_up ;;
  stop) stop_all; rm -f "$DIR/env" ;;
  status) cmd_status ;;
  sweep) ready || die "not running (scripts/testbed/openstack.sh up)"; setup sweep ;;
  env) ready || die "not running (scripts/testbed/openstack.sh up)"; cat "$DIR/env" ;;
  *) usage ;;
esac
