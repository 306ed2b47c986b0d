#!/usr/bin/env bash
# Booted for real: Debian 12 system containers (systemd-nspawn --boot) with Debian's cloud-init and the NoCloud
# datasource, to run exactly the user data mcloud's providers send to a database VM. Every instance is an overlay
# over one cached root, boots in a network namespace of its own (only its loopback; nothing reaches the internet),
# gets a loop-device file as its second disk (/dev/vdb), and finds apt packages only in a local mirror that `build`
# downloads once from Debian's registry. TCP ports cross between the host's and the container's 127.0.0.1 through
# Unix sockets (socat): `--publish` makes a container port reachable from the host, `--reach` a host port (the
# moto bed's S3) from the container.
#
#   scripts/testbed/container.sh build                  debootstrap the root and fill the mirror once (cached)
#   scripts/testbed/container.sh start                  build if needed, boot a probe instance, write the env file
#   scripts/testbed/container.sh status [NAME]          exit 0 started (NAME: running), 3 stopped, 1 half
#   scripts/testbed/container.sh env                    print the env file of the started bed
#   scripts/testbed/container.sh stop [NAME]            stop NAME, or every instance and the bed
#   scripts/testbed/container.sh reset                  stop everything, delete the state folder
#   scripts/testbed/container.sh boot NAME --user-data FILE [--meta-data FILE] [--disk SIZE | --disk-file FILE |
#       --no-disk] [--disk-device PATH] [--publish [HOSTPORT:]PORT]... [--reach [ADDR:]PORT[=HOSTPORT]]...
#       [--network CLOUD --address ADDR [--public ADDR]]
#                                                       --network: the container's eth0 in that cloud of the network
#                                                       bed (network.sh) at ADDR, reachable at the floating --public
#   scripts/testbed/container.sh wait NAME [--timeout SECONDS] [--format tabular|json|yaml]
#                                                       cloud-init status --wait: exit 0 done, 1 error or timeout
#   scripts/testbed/container.sh exec NAME [--] COMMAND...   run COMMAND inside (stdin, stdout, exit code pass)
#   scripts/testbed/container.sh port NAME PORT         the host port published for the container's PORT
#   scripts/testbed/container.sh logs NAME [console|cloud-init|journal]
#   scripts/testbed/container.sh destroy NAME           stop NAME and delete its overlay, disk and logs
#   scripts/testbed/container.sh schema FILE...         cloud-init schema --config-file of each FILE, with the root's
#                                                       cloud-init (Debian 12's): exit 0 when every one is valid
#
# Environment: MCLOUD_CACHE_DIR (default /var/cache/mcloud; the root and the mirror go to
# $MCLOUD_CACHE_DIR/container), MCLOUD_TESTBED_CONTAINER_DIR (default /tmp/mcloud-testbed/container),
# MCLOUD_TESTBED_CONTAINER_TIMEOUT (seconds `wait` waits for cloud-init, default 900),
# MCLOUD_DEBIAN_URL / MCLOUD_DEBIAN_SECURITY_URL (Debian's registry for `build`). Needs root.
# See scripts/testbed/README.md and docs/testbeds.md.
set -euo pipefail

readonly ME="container testbed"
readonly DEBIAN_SUITE=bookworm DEBIAN_RELEASE=12
# Bumped when the steps that make the root or the mirror change: both are part of the cache keys.
readonly ROOT_RECIPE=1 MIRROR_RECIPE=1
# The cached root: a Debian cloud image's base that database user data relies on (systemd, cloud-init, cron,
# sudo, locales), and no engine.
readonly ROOT_PACKAGES=(systemd systemd-sysv dbus cloud-init locales sudo cron iproute2 procps less netbase
  ca-certificates curl gnupg e2fsprogs)
# Everything the database user data may install: the mirror holds these with all their dependencies and
# recommends, and the container's apt sees nothing else. Extend it for a new recipe; the mirror is rebuilt, keyed
# by this list.
readonly MIRROR_PACKAGES=(postgresql postgresql-15 postgresql-client-15 pgbackrest mariadb-server mariadb-client
  redis-server redis-tools clickhouse-server clickhouse-client awscli jq age gzip zstd xz-utils)
# Debian's shellcheck checks the scripts of the database user data that the bed cannot boot (vendor repositories);
# mariadb-client is the remote client DatabaseAccessBedTests connects to a booted MariaDB with.
readonly HOST_PACKAGES=(debootstrap systemd-container socat dpkg-dev iproute2 procps shellcheck mariadb-client)
# Where the mirror appears inside a container, read-only.
readonly MIRROR_MOUNT=/srv/mcloud-apt
readonly PATH_INSIDE=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
readonly CGROUP_FS=/sys/fs/cgroup

# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SCRIPT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
NETWORK_BED=$(dirname "$SCRIPT")/network.sh
CACHE_ROOT=${MCLOUD_CACHE_DIR:-$(default_cache_root)}
CACHE=$CACHE_ROOT/container
STATE=${MCLOUD_TESTBED_CONTAINER_DIR:-/tmp/mcloud-testbed/container}
WAIT_TIMEOUT=${MCLOUD_TESTBED_CONTAINER_TIMEOUT:-900}
DEBIAN_URL=${MCLOUD_DEBIAN_URL:-http://deb.debian.org/debian}
DEBIAN_SECURITY_URL=${MCLOUD_DEBIAN_SECURITY_URL:-http://deb.debian.org/debian-security}

case "$CACHE_ROOT$STATE" in
  *[[:space:]]* | *[\"\'\$\`\\:,]*) die "MCLOUD_CACHE_DIR and MCLOUD_TESTBED_CONTAINER_DIR must not contain spaces, quotes, ':' or ','" ;;
esac
case "$STATE" in /*) ;; *) STATE=$PWD/$STATE ;; esac
case "$CACHE_ROOT" in /*) ;; *) die "MCLOUD_CACHE_DIR must be an absolute path" ;; esac
[[ "$WAIT_TIMEOUT" =~ ^[0-9]+$ ]] || die "MCLOUD_TESTBED_CONTAINER_TIMEOUT must be a number of seconds"

key() { printf '%s\n' "$@" | sha256sum | cut -c1-12; }
ROOT_KEY=$(key "$DEBIAN_SUITE" "$ROOT_RECIPE" "${ROOT_PACKAGES[@]}")
MIRROR_KEY=$(key "$ROOT_KEY" "$MIRROR_RECIPE" "${MIRROR_PACKAGES[@]}")
ROOT_DIR=$CACHE/debian$DEBIAN_RELEASE-root-$ROOT_KEY
ROOTFS=$ROOT_DIR/rootfs
MIRROR_DIR=$CACHE/debian$DEBIAN_RELEASE-apt-$MIRROR_KEY
MIRROR_REPO=$MIRROR_DIR/repo
# Instances of different state folders must not share cgroup or machine names.
STATE_TAG=$(key "$STATE" | cut -c1-6)

# ---------------------------------------------------------------- host

require_root() { [ "$(id -u)" -eq 0 ] || die "needs root (systemd-nspawn, mount, losetup)"; }

# The containers need overlayfs and a cgroup v1 devices controller (the device policy systemd would set as
# DeviceAllow= for a unit; here nspawn runs without a host systemd). In a chroot that has /sys but no cgroup
# mounts, the hybrid layout is mounted as on the host.
ensure_kernel() {
  grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || die "the kernel has no overlay filesystem"
  # A chroot's root is no mount namespace root: nspawn cannot make it a slave mount, and user namespaces (units with
  # PrivateUsers=, such as redis-server's) are refused to chrooted processes.
  if ! mountpoint -q / || ! unshare --user true 2>/dev/null; then
    die "systemd-nspawn cannot run in a chroot; run in a mount namespace whose root is pivot_root'ed (docs/testbeds.md)"
  fi
  if ! awk -v fs="$CGROUP_FS/" 'index($2, fs) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
    [ -d "$CGROUP_FS" ] || die "$CGROUP_FS is missing (is /sys mounted?)"
    log "no cgroup hierarchies under $CGROUP_FS; mounting devices, name=systemd and unified"
    mount -t tmpfs -o mode=755,nosuid,nodev,noexec cgroup "$CGROUP_FS"
    mkdir -p "$CGROUP_FS/devices" "$CGROUP_FS/systemd" "$CGROUP_FS/unified"
    mount -t cgroup -o devices cgroup "$CGROUP_FS/devices"
    mount -t cgroup -o none,name=systemd cgroup "$CGROUP_FS/systemd"
    mount -t cgroup2 cgroup2 "$CGROUP_FS/unified"
  fi
  [ -f "$CGROUP_FS/devices/devices.allow" ] ||
    die "no cgroup v1 devices controller at $CGROUP_FS/devices (a pure cgroup v2 host is not supported)"
  [ -d "$CGROUP_FS/systemd" ] || die "no name=systemd cgroup hierarchy at $CGROUP_FS/systemd"
}

need_space() {
  local avail_kb
  avail_kb=$(df -Pk "$1" | awk 'NR == 2 { print $4 }')
  [ "${avail_kb:-0}" -ge $(($2 * 1024 * 1024)) ] || die "needs about $2 GB free in $1 (free: $((avail_kb / 1024)) MB)"
}

# remove_tree DIR: deletes DIR, after unmounting anything left mounted below it, never crossing into a mount.
remove_tree() {
  local mount
  [ -e "$1" ] || return 0
  awk -v dir="$1/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | sort -r | while read -r mount; do
    umount "$mount" || umount -l "$mount"
  done
  rm -rf --one-file-system "$1"
}

# ---------------------------------------------------------------- a plain chroot

# In a plain chroot (../shared/tools/fresh-machine.sh) the root is no mount, so systemd-nspawn cannot make it a
# slave, and the kernel refuses user namespaces to chrooted processes (redis-server's unit needs one). The bed then
# runs in a mount namespace of its own whose root is the chroot's directory, bind-mounted onto itself and
# pivot_root'ed into: made once by a holder process started from outside the chroot, entered by every later call,
# and ended with the chroot's session, its instances stopped first.
in_plain_chroot() {
  [ -z "${MCLOUD_CONTAINER_NAMESPACE:-}" ] || return 1
  ! mountpoint -q / || ! unshare --user true 2>/dev/null
}

parent_of() { awk '/^PPid:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

# Whether process $1 has this process's root.
shares_root() { [ "$(stat -Lc %d:%i "/proc/$1/root/" 2>/dev/null)" = "$(stat -Lc %d:%i /)" ]; }

# Runs outside the chroot, in a new mount namespace: $1 the chroot's directory there, $2 the state folder, $3 the
# session to outlive, $4 this script.
# shellcheck disable=SC2016 # expanded by the bash inside
readonly NAMESPACE_HOLDER='set -e
root=$1 state=$2 session=$3 script=$4
mount --rbind "$root" "$root"
cd "$root"
mkdir -p .mcloud-old-root
pivot_root . .mcloud-old-root
cd /
umount -l /.mcloud-old-root
rmdir /.mcloud-old-root || true
echo $$ >"$state/namespace.pid"
while kill -0 "$session" 2>/dev/null; do sleep 2; done
MCLOUD_CONTAINER_NAMESPACE=1 "$script" stop >/dev/null 2>&1 || true
rm -f "$state/namespace.pid"'

# Re-runs this command in the bed's mount namespace, making it first if needed.
enter_bed_namespace() {
  local holder parent pid=$$ outside=1 root i
  mkdir -p "$STATE"
  holder=$(cat "$STATE/namespace.pid" 2>/dev/null || true)
  if [ -z "$holder" ] || ! kill -0 "$holder" 2>/dev/null; then
    # The outermost process of this chroot's session, and the first one outside it.
    while parent=$(parent_of "$pid") && [ -n "$parent" ] && [ "$parent" -gt 1 ]; do
      if shares_root "$parent"; then pid=$parent; else outside=$parent; break; fi
    done
    root=$(nsenter --target "$outside" --mount --root -- readlink "/proc/$$/root") ||
      die "in a chroot, and its directory cannot be found from outside it (is /proc mounted?)"
    log "in a chroot ($root): making the bed's own mount namespace there"
    rm -f "$STATE/namespace.pid"
    nsenter --target "$outside" --mount --root -- unshare --mount --propagation private --fork -- \
      setsid bash -c "$NAMESPACE_HOLDER" holder "$root" "$STATE" "$pid" "$SCRIPT" </dev/null >/dev/null 2>&1 8>&- 9>&- &
    for ((i = 0; i < 100; i++)); do [ -s "$STATE/namespace.pid" ] && break; sleep 0.1; done
    holder=$(cat "$STATE/namespace.pid" 2>/dev/null) || die "the bed's mount namespace did not come up"
  fi
  exec nsenter --target "$holder" --mount --root --wd="$PWD" -- env MCLOUD_CONTAINER_NAMESPACE=1 "$SCRIPT" "$@"
}

# ---------------------------------------------------------------- cgroups

# The cgroup of one container (or build run) in every hierarchy: nspawn registers no unit, so it keeps the cgroup
# it starts in, and without a group of their own two containers' systemd would manage the same cgroups.
cgroup_paths() {
  local hierarchy
  for hierarchy in systemd unified devices; do
    [ -d "$CGROUP_FS/$hierarchy" ] && echo "$CGROUP_FS/$hierarchy/$1"
  done
  return 0
}

# cgroup_create GROUP [DEVICE_RULE...]: with rules, the group may open only those devices (devices.allow lines).
cgroup_create() {
  local group=$1 path rule
  shift
  for path in $(cgroup_paths "$group"); do mkdir -p "$path"; done
  [ $# -gt 0 ] || return 0
  echo a >"$CGROUP_FS/devices/$group/devices.deny"
  for rule in "$@"; do echo "$rule" >"$CGROUP_FS/devices/$group/devices.allow"; done
}

# join_cgroup GROUP PID [devices]: moves PID into the group, in every hierarchy or only the devices one.
join_cgroup() {
  local path
  for path in $(cgroup_paths "$1"); do
    [ "${3:-all}" = all ] || [ "${path#"$CGROUP_FS"/devices/}" != "$path" ] || continue
    echo "$2" >"$path/cgroup.procs"
  done
}

cgroup_pids() {
  local path
  for path in $(cgroup_paths "$1"); do
    if [ -d "$path" ]; then find "$path" -name cgroup.procs -exec cat {} +; fi
  done | sort -u
}

# Ends every process still in the group (SIGTERM, 5 s, SIGKILL), then deletes the group.
cgroup_remove() {
  local group=$1 path pids i
  pids=$(cgroup_pids "$group")
  if [ -n "$pids" ]; then
    # shellcheck disable=SC2086 # one PID per word
    kill -TERM $pids 2>/dev/null || true
    for ((i = 0; i < 25; i++)); do [ -z "$(cgroup_pids "$group")" ] && break; sleep 0.2; done
    pids=$(cgroup_pids "$group")
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
    for ((i = 0; i < 25; i++)); do [ -z "$(cgroup_pids "$group")" ] && break; sleep 0.2; done
    [ -z "$(cgroup_pids "$group")" ] || die "processes remain in cgroup $group: $(cgroup_pids "$group" | tr '\n' ' ')"
  fi
  for path in $(cgroup_paths "$group"); do
    if [ -d "$path" ]; then find "$path" -depth -type d -exec rmdir {} +; fi
  done
  # nspawn leaves this folder behind when /run is not a tmpfs.
  rm -rf "/run/systemd/nspawn/propagate/$group"
}

# ---------------------------------------------------------------- build

debian_sources() {
  echo "deb $DEBIAN_URL $DEBIAN_SUITE main"
  echo "deb $DEBIAN_URL $DEBIAN_SUITE-updates main"
  echo "deb $DEBIAN_SECURITY_URL $DEBIAN_SUITE-security main"
}

# build_nspawn ROOTFS NSPAWN_OPTION... COMMAND...: runs a command in the root (not booted), in a cgroup of its own.
build_nspawn() {
  local rootfs=$1 group=mcloud-build-$$ rc=0
  shift
  cgroup_create "$group"
  (
    join_cgroup "$group" "$BASHPID"
    exec systemd-nspawn --quiet --directory="$rootfs" --register=no --keep-unit --machine="$group" --console=pipe \
      --setenv=DEBIAN_FRONTEND=noninteractive --setenv=LANG=C.UTF-8 "$@"
  ) 8>&- 9>&- || rc=$?
  cgroup_remove "$group"
  return $rc
}

lock_build() {
  mkdir -p "$CACHE"
  exec 8>"$CACHE/.build.lock"
  flock -w 1800 8 || die "another build holds $CACHE/.build.lock"
}

# The root's own settings: apt sees only the mirror, cloud-init reads the NoCloud seed and leaves the network
# alone (the container shares nothing but its loopback), every instance gets its own machine ID and host name.
readonly ROOT_SETUP='set -e
apt-get update -q
apt-get install -y -q --no-install-recommends "$@"
apt-get clean
sed -i "s/^# *\(en_US.UTF-8 UTF-8\)/\1/" /etc/locale.gen
locale-gen
update-locale LANG=en_US.UTF-8
cloud-init --version
systemctl --version | head -n 1'

configure_root() {
  local rootfs=$1
  printf 'deb [trusted=yes] file:%s ./\n' "$MIRROR_MOUNT" >"$rootfs/etc/apt/sources.list"
  rm -rf "$rootfs/etc/apt/sources.list.d" "$rootfs/var/lib/apt/lists"
  mkdir -p "$rootfs/etc/apt/sources.list.d" "$rootfs/var/lib/apt/lists/partial"
  cat >"$rootfs/etc/cloud/cloud.cfg.d/90-mcloud-testbed.cfg" <<'EOF'
# mcloud's container test bed: the seed is in /var/lib/cloud/seed/nocloud, and the container's network (its own
# loopback only) is not cloud-init's to configure.
datasource_list: [ NoCloud, None ]
network: {config: disabled}
EOF
  : >"$rootfs/etc/machine-id"
  rm -f "$rootfs/etc/hostname"
  printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$rootfs/etc/hosts"
  : >"$rootfs/etc/resolv.conf"
}

build_root() {
  [ -f "$ROOT_DIR/BUILD-INFO" ] && return 0
  lock_build
  [ -f "$ROOT_DIR/BUILD-INFO" ] && { exec 8>&-; return 0; }
  need_space "$CACHE" 2
  local started=$SECONDS work=$CACHE/.build-root-$ROOT_KEY
  remove_tree "$work"
  mkdir -p "$work"
  log "debootstrap --variant=minbase $DEBIAN_SUITE (about 1 min; log: $work/debootstrap.log)"
  debootstrap --variant=minbase "$DEBIAN_SUITE" "$work/rootfs" "$DEBIAN_URL" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed (kept for inspection: $work)"; }
  debian_sources >"$work/rootfs/etc/apt/sources.list"
  log "apt-get install in the root (about 1 min; log: $work/packages.log): ${ROOT_PACKAGES[*]}"
  build_nspawn "$work/rootfs" --resolv-conf=copy-host sh -c "$ROOT_SETUP" sh "${ROOT_PACKAGES[@]}" >"$work/packages.log" 2>&1 ||
    { tail -n 20 "$work/packages.log" >&2; die "installing the root's packages failed (kept for inspection: $work)"; }
  configure_root "$work/rootfs"
  # shellcheck disable=SC2016 # dpkg-query's own ${...} fields
  {
    echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) in $((SECONDS - started)) s from $DEBIAN_URL ($DEBIAN_SUITE, -updates, -security)"
    echo "packages: ${ROOT_PACKAGES[*]}"
    chroot "$work/rootfs" dpkg-query -W -f='${Package} ${Version}\n' systemd cloud-init
    echo "installed packages: $(chroot "$work/rootfs" dpkg-query -W -f='${binary:Package}\n' | wc -l)"
    echo "size: $(du -sh "$work/rootfs" | cut -f1)"
  } >"$work/BUILD-INFO"
  mv "$work" "$ROOT_DIR"
  exec 8>&-
  log "root ready in $((SECONDS - started)) s: $ROOTFS"
}

# Resolves each package alone and then all together against the root's own dpkg state, so that any one of them
# (a recipe installs one engine) and all of them find every dependency and recommendation in the mirror.
# shellcheck disable=SC2016 # expanded by the sh inside
readonly MIRROR_DOWNLOAD='set -e
apt-get update -q
for package; do apt-get install --download-only -y -q "$package"; done
apt-get install --download-only -y -q "$@"'

# The same installs, simulated offline against the finished mirror.
# shellcheck disable=SC2016
readonly MIRROR_CHECK='set -e
apt-get update -q >&2
for package; do apt-get install --simulate -y -q "$package" >/dev/null; done
apt-get install --simulate -y -q "$@" | grep -c "^Inst "'

write_release() {
  local file
  {
    echo "Origin: mcloud-testbed"
    echo "Label: mcloud container test bed, Debian $DEBIAN_RELEASE packages"
    echo "Date: $(date -Ru)"
    echo "SHA256:"
    for file in Packages Packages.gz; do
      printf ' %s %s %s\n' "$(sha256sum "$1/$file" | cut -d' ' -f1)" "$(stat -c %s "$1/$file")" "$file"
    done
  } >"$1/Release"
}

build_mirror() {
  [ -f "$MIRROR_DIR/BUILD-INFO" ] && return 0
  lock_build
  [ -f "$MIRROR_DIR/BUILD-INFO" ] && { exec 8>&-; return 0; }
  need_space "$CACHE" 2
  local started=$SECONDS work=$CACHE/.build-apt-$MIRROR_KEY count
  remove_tree "$work"
  mkdir -p "$work/archives/partial" "$work/repo"
  debian_sources >"$work/sources.list"
  log "downloading the mirror's packages with their dependencies (about 1 min; log: $work/download.log): ${MIRROR_PACKAGES[*]}"
  build_nspawn "$ROOTFS" --volatile=overlay --resolv-conf=copy-host --bind-ro="$work/sources.list:/etc/apt/sources.list" \
    --bind="$work/archives:/var/cache/apt/archives" sh -c "$MIRROR_DOWNLOAD" sh "${MIRROR_PACKAGES[@]}" >"$work/download.log" 2>&1 ||
    { tail -n 20 "$work/download.log" >&2; die "downloading the mirror's packages failed (kept for inspection: $work)"; }
  mv "$work"/archives/*.deb "$work/repo/"
  rm -rf "$work/archives"
  (cd "$work/repo" && dpkg-scanpackages --multiversion . /dev/null >Packages 2>"$work/scanpackages.log" && gzip -9kn Packages) ||
    die "dpkg-scanpackages failed (log: $work/scanpackages.log)"
  write_release "$work/repo"
  log "checking every install offline against the mirror (log: $work/check.log)"
  count=$(build_nspawn "$ROOTFS" --volatile=overlay --private-network --bind-ro="$work/repo:$MIRROR_MOUNT" \
    sh -c "$MIRROR_CHECK" sh "${MIRROR_PACKAGES[@]}" 2>"$work/check.log") ||
    { tail -n 20 "$work/check.log" >&2; die "an install does not resolve from the mirror alone (kept for inspection: $work)"; }
  {
    echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) in $((SECONDS - started)) s from $DEBIAN_URL for root $ROOT_KEY"
    echo "packages: ${MIRROR_PACKAGES[*]}"
    echo "debs: $(find "$work/repo" -name '*.deb' | wc -l) ($(du -sh "$work/repo" | cut -f1)); all together install $count packages on the root"
    awk '/^Package:/ { p = $2 } /^Version:/ { print p, $2 }' "$work/repo/Packages" | grep -E '^(postgresql-15|mariadb-server|redis-server|clickhouse-server|awscli) '
  } >"$work/BUILD-INFO"
  mv "$work" "$MIRROR_DIR"
  exec 8>&-
  log "mirror ready in $((SECONDS - started)) s: $MIRROR_REPO"
}

ensure_built() {
  require_root
  ensure_packages "${HOST_PACKAGES[@]}" || die "cannot install ${HOST_PACKAGES[*]}"
  ensure_kernel
  build_root
  build_mirror
}

cmd_build() {
  ensure_built
  cat "$ROOT_DIR/BUILD-INFO" "$MIRROR_DIR/BUILD-INFO"
}

# ---------------------------------------------------------------- instances

inst_dir() { echo "$STATE/instances/$1"; }
machine_name() { echo "mc$STATE_TAG-$1"; }

instance_names() {
  local dir
  for dir in "$STATE"/instances/*/; do [ -d "$dir" ] && basename "$dir"; done
  return 0
}

valid_name() { [[ "$1" =~ ^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$ ]] || die "instance name '$1': 1-32 of a-z, 0-9, '-' (a host name)"; }

alive() { [ -r "/proc/$1/cmdline" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]; }

# nspawn_pid NAME: the PID of the instance's systemd-nspawn, if that process is alive and runs this instance's root.
nspawn_pid() {
  local dir pid
  dir=$(inst_dir "$1")
  pid=$(cat "$dir/nspawn.pid" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] && alive "$pid" || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qxF -- "--directory=$dir/root" || return 1
  echo "$pid"
}

# leader_pid NAME: the container's PID 1 (as the host numbers it): a child of nspawn whose PID inside is 1, from the
# kernel's list of nspawn's children, else a scan of every process.
leader_pid() {
  local nspawn child
  nspawn=$(nspawn_pid "$1") || return 1
  for child in $(cat "/proc/$nspawn/task/$nspawn/children" 2>/dev/null) $(pgrep -P "$nspawn"); do
    [ "$(awk '/^NSpid:/ { print NF == 3 ? $3 : "" }' "/proc/$child/status" 2>/dev/null)" = 1 ] && { echo "$child"; return 0; }
  done
  return 1
}

# The forwarders recorded for an instance that are not alive.
dead_forwarders() {
  local file pid
  for file in "$(inst_dir "$1")"/forward/*.pid; do
    [ -f "$file" ] || continue
    pid=$(cat "$file")
    alive "$pid" || basename "$file" .pid
  done
}

# instance_state NAME: 0 running (container, leader and forwarders), 3 stopped with nothing left behind, 1 else.
instance_state() {
  local dir machine leftovers=0
  dir=$(inst_dir "$1")
  machine=$(machine_name "$1")
  { mountpoint -q "$dir/root" || [ -f "$dir/loop" ] || [ -d "$CGROUP_FS/devices/$machine" ]; } && leftovers=1
  if leader_pid "$1" >/dev/null || { nspawn_pid "$1" >/dev/null && steady_leader "$1" >/dev/null; }; then
    [ -z "$(dead_forwarders "$1")" ] && return 0
    return 1
  fi
  [ $leftovers -eq 0 ] && ! nspawn_pid "$1" >/dev/null && return 3
  return 1
}

# A running container was taken for a stopped one under load, twice in one run (its systemd went on serving): so
# "not running" is said only after five readings 0.5 s apart, and a reading that failed before one succeeded is
# written to $STATE/misreads.log with what each part of it saw.
steady_leader() {
  local i seen=""
  for ((i = 0; i < 5; i++)); do
    if leader_pid "$1"; then
      [ -z "$seen" ] || printf '%s %s: PID 1 found on reading %d; the first saw %s\n' "$(date -u +%FT%TZ)" "$1" $((i + 1)) "$seen" >>"$STATE/misreads.log"
      return 0
    fi
    [ -n "$seen" ] || seen=$(leader_facts "$1")
    sleep 0.5
  done
  return 1
}

# What leader_pid reads, part by part.
leader_facts() {
  local dir pid child children=()
  dir=$(inst_dir "$1")
  pid=$(cat "$dir/nspawn.pid" 2>/dev/null) || { printf 'no nspawn.pid'; return 0; }
  if ! [[ "$pid" =~ ^[0-9]+$ ]] || ! alive "$pid"; then printf 'systemd-nspawn %s is gone' "$pid"; return 0; fi
  printf 'systemd-nspawn %s' "$pid"
  tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | grep -qxF -- "--directory=$dir/root" || printf ' (not of this root)'
  read -ra children 2>/dev/null <"/proc/$pid/task/$pid/children" || true
  printf ', children [%s], pgrep -P [%s]' "${children[*]}" "$(pgrep -P "$pid" | tr '\n' ' ')"
  for child in "${children[@]}"; do
    printf ', %s NSpid [%s]' "$child" "$(awk '/^NSpid:/ { $1 = ""; print }' "/proc/$child/status" 2>&1)"
  done
}

running_leader() {
  [ -d "$(inst_dir "$1")" ] || die "no instance $1 (scripts/testbed/container.sh boot $1 ...)"
  steady_leader "$1" && return 0
  die "instance $1 is not running ($(leader_facts "$1"); scripts/testbed/container.sh status $1)"
}

lock_state() {
  mkdir -p "$STATE/instances"
  chmod 700 "$STATE"
  touch "$STATE/.mcloud-testbed"
  exec 9>"$STATE/.lock"
  flock -w 300 9 || die "another boot/stop holds $STATE/.lock"
}

# Device rules of a container: the pseudo devices nspawn creates, ptys, and its data disk.
device_rules() {
  printf '%s\n' 'c 1:3 rwm' 'c 1:5 rwm' 'c 1:7 rwm' 'c 1:8 rwm' 'c 1:9 rwm' 'c 5:0 rwm' 'c 5:1 rwm' 'c 5:2 rwm' \
    'c 136:* rwm' 'c 10:200 rwm'
  if [ -n "$1" ]; then
    local major minor
    read -r major minor < <(stat -c '%t %T' "$1")
    echo "b $((16#$major)):$((16#$minor)) rwm"
  fi
}

valid_port() { [[ "$1" =~ ^[0-9]{1,5}$ && "$1" -ge 1 && "$1" -le 65535 ]] || die "$2: $1 is not a port (1-65535)"; }

host_port_free() { [ -z "$(ss -Hltn "sport = :$1")" ]; }

pick_host_port() {
  local port i
  for ((i = 0; i < 200; i++)); do
    port=$((20000 + RANDOM % 12768))
    host_port_free "$port" && ! grep -qs " $port\$" "$STATE"/instances/*/publish && { echo "$port"; return 0; }
  done
  die "no free port found in 20000-32767"
}

# spawn_forwarder NAME LABEL COMMAND...: a socat in the background, in the instance's devices cgroup (so that
# stopping the instance ends it), its PID in forward/LABEL.pid.
spawn_forwarder() {
  local name=$1 label=$2 dir
  shift 2
  dir=$(inst_dir "$name")
  (
    join_cgroup "$(machine_name "$name")" "$BASHPID" devices
    close_inherited_fds
    exec setsid "$@"
  ) </dev/null >>"$dir/forward.log" 2>&1 8>&- 9>&- &
  echo $! >"$dir/forward/$label.pid"
}

# wait_listening DESCRIPTION COMMAND...: until COMMAND succeeds (5 s).
wait_listening() {
  local what=$1 i
  shift
  for ((i = 0; i < 50; i++)); do "$@" && return 0; sleep 0.1; done
  die "$what is not listening (log: $STATE/instances/*/forward.log)"
}

tcp_listening_on_host() { [ -n "$(ss -Hltn "src 127.0.0.1 and sport = :$1")" ]; }

tcp_listening_inside() { [ -n "$(nsenter --target "$1" --net ss -Hltn "src $2 and sport = :$3")" ]; }

# reach NAME LEADER SPEC: the container's ADDR:PORT (127.0.0.1 by default) leads to the host's 127.0.0.1:HOSTPORT.
reach() {
  local name=$1 leader=$2 spec=$3 addr port host_port dir sock
  dir=$(inst_dir "$name")
  [[ "$spec" =~ ^(([0-9]{1,3}\.){3}[0-9]{1,3}:)?([0-9]{1,5})(=([0-9]{1,5}))?$ ]] || die "--reach $spec: [ADDR:]PORT[=HOSTPORT]"
  addr=${BASH_REMATCH[1]%:}
  addr=${addr:-127.0.0.1}
  port=${BASH_REMATCH[3]}
  host_port=${BASH_REMATCH[5]:-$port}
  valid_port "$port" "--reach $spec"
  valid_port "$host_port" "--reach $spec"
  sock=$dir/forward/reach-$addr-$port.sock
  [ "$addr" = 127.0.0.1 ] || nsenter --target "$leader" --net ip address add "$addr/32" dev lo
  spawn_forwarder "$name" "reach-$addr-$port-host" socat "UNIX-LISTEN:$sock,fork,unlink-early,mode=600" "TCP:127.0.0.1:$host_port"
  spawn_forwarder "$name" "reach-$addr-$port-container" nsenter --target "$leader" --net \
    socat "TCP-LISTEN:$port,bind=$addr,reuseaddr,fork" "UNIX-CONNECT:$sock"
  # The image's /etc/hosts names ::1 before 127.0.0.1 as localhost, and a client that tries only the first address
  # (pgBackRest, which must name the moto TLS front as localhost) has to find the port there too.
  if [ "$addr" = 127.0.0.1 ]; then
    spawn_forwarder "$name" "reach-$addr-$port-container6" nsenter --target "$leader" --net \
      socat "TCP6-LISTEN:$port,bind=[::1],reuseaddr,fork,ipv6only=1" "UNIX-CONNECT:$sock"
  fi
  wait_listening "the forwarder to 127.0.0.1:$host_port" test -S "$sock"
  wait_listening "$addr:$port in $name" tcp_listening_inside "$leader" "$addr" "$port"
  [ "$addr" != 127.0.0.1 ] || wait_listening "[::1]:$port in $name" tcp_listening_inside "$leader" "[::1]" "$port"
  echo "$addr:$port 127.0.0.1:$host_port" >>"$dir/reach"
}

# publish NAME LEADER PORT HOSTPORT: the host's 127.0.0.1:HOSTPORT leads to the container's 127.0.0.1:PORT.
publish() {
  local name=$1 leader=$2 port=$3 host_port=$4 dir sock
  dir=$(inst_dir "$name")
  sock=$dir/forward/publish-$port.sock
  spawn_forwarder "$name" "publish-$port-container" nsenter --target "$leader" --net \
    socat "UNIX-LISTEN:$sock,fork,unlink-early,mode=600" "TCP:127.0.0.1:$port"
  wait_listening "the forwarder to port $port in $name" test -S "$sock"
  spawn_forwarder "$name" "publish-$port-host" socat "TCP-LISTEN:$host_port,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$sock"
  wait_listening "127.0.0.1:$host_port" tcp_listening_on_host "$host_port"
  echo "$port $host_port" >>"$dir/publish"
}

# teardown NAME: halts the container (SIGTERM: systemd shuts down; a second SIGTERM ends it at once; then
# SIGKILL), ends what is left in its cgroup (forwarders, exec'd commands), unmounts its root, detaches its disk.
# Safe on a half-made or already stopped instance; keeps the instance's files.
teardown() {
  local name=$1 dir machine pid i network public
  dir=$(inst_dir "$name")
  machine=$(machine_name "$name")
  if pid=$(nspawn_pid "$name"); then
    log "stopping $name (systemd-nspawn pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 150; i++)); do nspawn_pid "$name" >/dev/null || break; sleep 0.2; done
    if nspawn_pid "$name" >/dev/null; then
      log "$name did not halt within 30 s; terminating it"
      kill -TERM "$pid" 2>/dev/null || true
      for ((i = 0; i < 25; i++)); do nspawn_pid "$name" >/dev/null || break; sleep 0.2; done
      if nspawn_pid "$name" >/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    fi
  fi
  cgroup_remove "$machine"
  if [ -f "$dir/network" ]; then
    # Its link went with its namespace; a floating address would lead nowhere (the network bed may be gone too).
    read -r network _ public <"$dir/network" || true
    [ -z "${public:-}" ] || "$NETWORK_BED" unexpose "$network" "$public" >/dev/null 2>&1 || true
    rm -f "$dir/network"
  fi
  if mountpoint -q "$dir/root"; then umount "$dir/root" || die "cannot unmount $dir/root"; fi
  if [ -f "$dir/disk-file" ]; then detach_disk "$(cat "$dir/disk-file")"; fi
  rm -f "$dir/loop"
  rm -f "$dir/nspawn.pid" "$dir"/forward/*
}

# Detaches every loop device on the disk file FILE: the one the boot recorded, one a boot killed before recording it,
# and one whose file a test removed before destroying the instance (losetup then says "FILE (deleted)"), which a
# comparison with the file's name alone left attached for good.
detach_disk() {
  local loop back
  while read -r loop back; do
    back=${back%"${back##*[! ]}"}
    [ "${back% (deleted)}" = "$1" ] || continue
    losetup -d "$loop" || die "cannot detach $loop"
  done < <(losetup -nO NAME,BACK-FILE)
}

# Undoes a boot that failed half-way (the EXIT trap of cmd_boot).
boot_failed() {
  local rc=$?
  trap - EXIT
  [ $rc -eq 0 ] && return 0
  log "boot of $BOOTING failed; tearing it down (files kept in $(inst_dir "$BOOTING"))"
  teardown "$BOOTING" || true
  exit $rc
}

# Each container's systemd, journald and udev take inotify instances of their own, all counted against root: with
# twenty containers at once (the bed tests boot theirs in parallel) the kernel's default of 128 runs out, and a new
# container's systemd cannot start (kind documents the same). PIDs: the kernel's default of 32,768 (systemd's hosts
# set 4,194,304) is reused within minutes by a run's churn, so a signal meant for an ended helper could reach a
# container. Raised, never lowered; a kernel that refuses is said.
raise_kernel_limits() {
  local setting want have
  for setting in fs.inotify.max_user_instances=8192 fs.inotify.max_user_watches=524288 kernel.pid_max=4194304; do
    want=${setting#*=}
    have=$(sysctl -n "${setting%%=*}" 2>/dev/null || echo 0)
    [ "$have" -ge "$want" ] || sysctl -qw "$setting" >/dev/null 2>&1 ||
      log "warning: cannot raise ${setting%%=*} from $have to $want: many containers at once may not start"
  done
}

cmd_boot() {
  local name=${1:-} user_data="" meta_data="" disk_size=2G disk_file="" disk_device=/dev/vdb publish_specs=() reach_specs=()
  local network="" address="" public=""
  [[ -n "$name" && "${name#-}" == "$name" ]] || die "usage: boot NAME --user-data FILE [options] (see the script's header)"
  shift
  valid_name "$name"
  while [ $# -gt 0 ]; do
    case "$1" in
      --user-data) user_data=${2:?--user-data FILE}; shift 2 ;;
      --meta-data) meta_data=${2:?--meta-data FILE}; shift 2 ;;
      --disk) disk_size=${2:?--disk SIZE}; disk_file=""; shift 2 ;;
      --disk-file) disk_file=${2:?--disk-file FILE}; disk_size=""; shift 2 ;;
      --no-disk) disk_size=""; disk_file=""; shift ;;
      --disk-device) disk_device=${2:?--disk-device PATH}; shift 2 ;;
      --publish) publish_specs+=("${2:?--publish [HOSTPORT:]PORT}"); shift 2 ;;
      --reach) reach_specs+=("${2:?--reach [ADDR:]PORT[=HOSTPORT]}"); shift 2 ;;
      --network) network=${2:?--network CLOUD}; shift 2 ;;
      --address) address=${2:?--address ADDR}; shift 2 ;;
      --public) public=${2:?--public ADDR}; shift 2 ;;
      *) die "boot: unknown option $1" ;;
    esac
  done
  [ -n "$user_data" ] || die "boot $name: --user-data FILE is required"
  if [ -n "$network" ]; then
    [ -n "$address" ] || die "boot $name: --network $network needs --address ADDR"
    "$NETWORK_BED" status >/dev/null || die "boot $name: the network bed is not started (scripts/testbed/network.sh start)"
  elif [ -n "$address$public" ]; then
    die "boot $name: --address and --public need --network CLOUD"
  fi
  [[ -r "$user_data" && ! -d "$user_data" ]] || die "boot $name: cannot read $user_data"
  [ -z "$meta_data" ] || [ -r "$meta_data" ] || die "boot $name: cannot read $meta_data"
  [ -z "$disk_size" ] || [[ "$disk_size" =~ ^[0-9]+[KMG]$ ]] || die "--disk $disk_size: a size like 512M or 2G"
  if [ -n "$disk_file" ]; then
    [ -f "$disk_file" ] || die "--disk-file $disk_file: no such file"
    [ -z "$(losetup -j "$disk_file")" ] || die "--disk-file $disk_file is attached already: $(losetup -j "$disk_file")"
  fi
  [[ "$disk_device" =~ ^/dev/[a-z][a-z0-9]*$ && ! "$disk_device" =~ ^/dev/(loop|null|zero|full|u?random|tty|console|ptmx|pts|net) ]] ||
    die "--disk-device $disk_device: a device name such as /dev/vdb, /dev/xvdb or /dev/nvme1n1"
  ensure_built
  lock_state
  raise_kernel_limits
  local dir machine spec port host_port loop="" leader i
  dir=$(inst_dir "$name")
  machine=$(machine_name "$name")
  [ ! -e "$dir" ] || die "instance $name exists (scripts/testbed/container.sh destroy $name)"
  local ports=()
  for spec in "${publish_specs[@]}"; do
    [[ "$spec" =~ ^(([0-9]{1,5}):)?([0-9]{1,5})$ ]] || die "--publish $spec: [HOSTPORT:]PORT"
    port=${BASH_REMATCH[3]}
    host_port=${BASH_REMATCH[2]}
    valid_port "$port" "--publish $spec"
    [ -n "$host_port" ] || host_port=$(pick_host_port)
    valid_port "$host_port" "--publish $spec"
    host_port_free "$host_port" || die "--publish $spec: 127.0.0.1:$host_port is taken"
    ports+=("$port:$host_port")
  done
  [ -f "$STATE/env" ] || write_env

  BOOTING=$name
  trap boot_failed EXIT
  mkdir -p "$dir/upper" "$dir/work" "$dir/root" "$dir/forward"
  chmod 700 "$dir"
  install -m 600 "$user_data" "$dir/user-data"
  if [ -n "$meta_data" ]; then
    install -m 600 "$meta_data" "$dir/meta-data"
  else
    printf 'instance-id: %s-%s\nlocal-hostname: %s\n' "$name" "$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')" "$name" >"$dir/meta-data"
  fi
  mount -t overlay overlay -o "lowerdir=$ROOTFS,upperdir=$dir/upper,workdir=$dir/work" "$dir/root"
  install -d -m 700 "$dir/root/var/lib/cloud/seed/nocloud"
  install -m 600 "$dir/meta-data" "$dir/root/var/lib/cloud/seed/nocloud/meta-data"
  install -m 600 "$dir/user-data" "$dir/root/var/lib/cloud/seed/nocloud/user-data"
  if [ -n "$network" ]; then
    # The bed addresses eth0 from outside, as a cloud's DHCP would; cloud-init must not reconfigure it.
    printf 'network: {config: disabled}\n' >"$dir/root/etc/cloud/cloud.cfg.d/99-mcloud-bed-network.cfg"
  fi
  local binds=("--bind-ro=$MIRROR_REPO:$MIRROR_MOUNT")
  if [ -n "$disk_size" ]; then
    truncate -s "$disk_size" "$dir/disk.img"
    disk_file=$dir/disk.img
  fi
  if [ -n "$disk_file" ]; then
    disk_file=$(realpath "$disk_file")
    echo "$disk_file" >"$dir/disk-file"
    loop=$(losetup --find --show "$disk_file")
    echo "$loop" >"$dir/loop"
    # The kernel's name too, so that libblkid finds the disk by LABEL= or UUID= (it scans /proc/partitions).
    binds+=("--bind=$loop:$disk_device" "--bind=$loop")
  fi
  local rules
  mapfile -t rules < <(device_rules "$loop")
  cgroup_create "$machine" "${rules[@]}"
  echo "---- $(date -u +%Y-%m-%dT%H:%M:%SZ) boot" >>"$dir/console.log"
  (
    join_cgroup "$machine" "$BASHPID"
    close_inherited_fds
    exec setsid systemd-nspawn --directory="$dir/root" --machine="$machine" --hostname="$name" --register=no \
      --keep-unit --boot --console=pipe --private-network --resolv-conf=off --timezone=off --link-journal=no "${binds[@]}"
  ) </dev/null >>"$dir/console.log" 2>&1 8>&- 9>&- &
  local spawned=$!
  echo "$spawned" >"$dir/nspawn.pid"
  for ((i = 0; i < 100; i++)); do
    leader=$(leader_pid "$name") && break
    alive "$spawned" || { tail -n 20 "$dir/console.log" >&2; die "systemd-nspawn exited (log: $dir/console.log)"; }
    sleep 0.1
  done
  [ -n "${leader:-}" ] || die "no PID 1 in $name after 10 s (log: $dir/console.log)"
  nsenter --target "$leader" --net ip link set lo up
  if [ -n "$network" ]; then
    "$NETWORK_BED" attach "$network" "$leader" "$address" >&2
    echo "$network $address $public" >"$dir/network"
    [ -z "$public" ] || "$NETWORK_BED" expose "$network" "$address" "$public" >&2
  fi
  for spec in "${reach_specs[@]}"; do reach "$name" "$leader" "$spec"; done
  for spec in "${ports[@]}"; do publish "$name" "$leader" "${spec%%:*}" "${spec#*:}"; done
  trap - EXIT
  log "booted $name (pid $leader)${loop:+, data disk $disk_device ($loop)}; cloud-init runs now (scripts/testbed/container.sh wait $name)"
  describe "$name"
}

# One line on an instance: its state, PID 1, disk and forwarded ports.
describe() {
  local dir rc=0 state line
  dir=$(inst_dir "$1")
  instance_state "$1" || rc=$?
  case $rc in 0) state="running (pid $(steady_leader "$1" || echo '?'))" ;; 3) state=stopped ;; *) state="half (run stop $1 or destroy $1)" ;; esac
  line="$1: $state"
  [ -f "$dir/disk-file" ] && line="$line, disk $(cat "$dir/disk-file")"
  [ -f "$dir/loop" ] && line="$line on $(cat "$dir/loop")"
  [ -f "$dir/publish" ] && line="$line, published $(awk '{ printf "%s%s->127.0.0.1:%s", sep, $1, $2; sep = " " }' "$dir/publish")"
  [ -f "$dir/reach" ] && line="$line, reaches $(awk '{ printf "%s%s->%s", sep, $1, $2; sep = " " }' "$dir/reach")"
  [ -f "$dir/network" ] && line="$line, in cloud $(awk '{ printf "%s at %s%s", $1, $2, ($3 == "" ? "" : " (public " $3 ")") }' "$dir/network")"
  echo "$line"
  return $rc
}

# in_instance LEADER COMMAND...: runs a command in all the container's namespaces and its root, with a clean
# environment, in its devices cgroup (it opens only the container's devices and ends with it).
in_instance() {
  local leader=$1 machine=$2
  shift 2
  (
    join_cgroup "$machine" "$BASHPID" devices
    exec nsenter --target "$leader" --mount --uts --ipc --net --pid --cgroup --root --wd -- \
      env -i PATH="$PATH_INSIDE" HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" "$@"
  ) 8>&- 9>&-
}

cmd_exec() {
  local name=${1:-} leader
  [ -n "$name" ] || die "usage: exec NAME [--] COMMAND..."
  shift
  [ "${1:-}" != -- ] || shift
  [ $# -gt 0 ] || die "usage: exec NAME [--] COMMAND..."
  require_root
  leader=$(running_leader "$name")
  in_instance "$leader" "$(machine_name "$name")" "$@"
}

cmd_wait() {
  local name=${1:-} timeout=$WAIT_TIMEOUT format=tabular leader machine rc=0 status
  [ -n "$name" ] || die "usage: wait NAME [--timeout SECONDS] [--format tabular|json|yaml]"
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --timeout) timeout=${2:?--timeout SECONDS}; shift 2 ;;
      --format) format=${2:?--format tabular|json|yaml}; shift 2 ;;
      *) die "wait: unknown option $1" ;;
    esac
  done
  [[ "$timeout" =~ ^[0-9]+$ ]] || die "--timeout $timeout: a number of seconds"
  case "$format" in tabular | json | yaml) ;; *) die "--format $format: tabular, json or yaml" ;; esac
  require_root
  leader=$(running_leader "$name")
  machine=$(machine_name "$name")
  in_instance "$leader" "$machine" timeout "$timeout" cloud-init status --wait >/dev/null || rc=$?
  leader=$(steady_leader "$name") || die "instance $name stopped while cloud-init ran (logs: scripts/testbed/container.sh logs $name)"
  in_instance "$leader" "$machine" cloud-init status --long --format "$format" || true
  status=$(in_instance "$leader" "$machine" cloud-init status 2>/dev/null | sed -n 's/^status: //p' || true)
  if [ "$status" = "done" ]; then
    # cloud-init reports "done" for cloud-config it could not parse (a warning in its log, nothing run).
    head -n 1 "$(inst_dir "$name")/user-data" | grep -q '^#cloud-config' || return 0
    in_instance "$leader" "$machine" cloud-init schema --config-file /var/lib/cloud/instance/user-data.txt >/dev/null 2>&1 && return 0
    log "cloud-init in $name: done, but the user data is not valid cloud-config:"
    in_instance "$leader" "$machine" cloud-init schema --config-file /var/lib/cloud/instance/user-data.txt >&2 || true
    return 1
  fi
  [ $rc -ne 124 ] || log "cloud-init in $name is still running after $timeout s"
  log "cloud-init in $name: ${status:-unknown}; the end of /var/log/cloud-init-output.log:"
  tail -n 30 "$(inst_dir "$name")/upper/var/log/cloud-init-output.log" >&2 2>/dev/null || true
  return 1
}

cmd_port() {
  local name=${1:-} port=${2:-} dir host_port=""
  [[ -n "$name" && "$port" =~ ^[0-9]+$ ]] || die "usage: port NAME PORT"
  dir=$(inst_dir "$name")
  [ -d "$dir" ] || die "no instance $name"
  [ ! -f "$dir/publish" ] || host_port=$(awk -v p="$port" '$1 == p { print $2 }' "$dir/publish")
  [ -n "$host_port" ] || die "$name publishes no port $port (boot ... --publish $port)"
  echo "$host_port"
}

cmd_logs() {
  local name=${1:-} what=${2:-all} dir
  [ -n "$name" ] || die "usage: logs NAME [console|cloud-init|journal]"
  dir=$(inst_dir "$name")
  [ -d "$dir" ] || die "no instance $name"
  case "$what" in
    all | console) echo "==== $dir/console.log (systemd-nspawn)"; cat "$dir/console.log" 2>/dev/null || true ;;&
    all | cloud-init) echo "==== /var/log/cloud-init-output.log"; cat "$dir/upper/var/log/cloud-init-output.log" 2>/dev/null || true ;;
    journal) journalctl --no-pager -D "$dir/upper/var/log/journal" ;;
    console) ;;
    *) die "logs: console, cloud-init or journal" ;;
  esac
}

stop_instance() {
  [ -d "$(inst_dir "$1")" ] || die "no instance $1"
  teardown "$1"
  log "stopped $1"
}

cmd_destroy() {
  local name=${1:-}
  [ -n "$name" ] || die "usage: destroy NAME"
  valid_name "$name"
  require_root
  lock_state
  [ -d "$(inst_dir "$name")" ] || { log "no instance $name"; return 0; }
  teardown "$name"
  remove_tree "$(inst_dir "$name")"
  log "destroyed $name"
}

# The user data of recipes the bed cannot boot is checked this way: the root's own cloud-init, in a throwaway
# overlay, without network; one Python for all files, through the function `cloud-init schema --config-file` calls.
readonly SCHEMA_CHECK='
import sys
from cloudinit.config.schema import SchemaValidationError, get_schema, validate_cloudconfig_file
schema, failed = get_schema(), False
for index, name in enumerate(sys.argv[1:]):
    try:
        validate_cloudconfig_file("/mnt/mcloud-schema-%d" % index, schema)
        print("Valid cloud-config: %s" % name)
    except SchemaValidationError as error:
        failed = True
        print("%s: invalid\n%s" % (name, error))
sys.exit(1 if failed else 0)'

cmd_schema() {
  [ $# -gt 0 ] || die "usage: schema FILE..."
  require_root
  ensure_built
  local binds=() i=0 file
  for file; do
    [[ -r "$file" && ! -d "$file" ]] || die "schema: cannot read $file"
    binds+=("--bind-ro=$(realpath "$file"):/mnt/mcloud-schema-$i")
    i=$((i + 1))
  done
  build_nspawn "$ROOTFS" --volatile=overlay --private-network "${binds[@]}" python3 -c "$SCHEMA_CHECK" "$@"
}

# ---------------------------------------------------------------- the bed

write_env() {
  (
    umask 077
    {
      echo "MCLOUD_TEST_CONTAINER_BED=$SCRIPT"
      echo "MCLOUD_TEST_CONTAINER_STATE=$STATE"
      echo "MCLOUD_TEST_CONTAINER_ROOT=$ROOTFS"
      echo "MCLOUD_TEST_CONTAINER_MIRROR=$MIRROR_REPO"
      echo "MCLOUD_TEST_CONTAINER_DISK_DEVICE=/dev/vdb"
      echo "MCLOUD_TEST_CONTAINER_DEBIAN=$DEBIAN_RELEASE"
    } >"$STATE/env.tmp"
  )
  mv -f "$STATE/env.tmp" "$STATE/env"
}

# 0: started (env file, cached root and mirror) with no half instance; 3: not started and nothing running; 1: else.
bed_state() {
  local name rc=0 half=0 running=0
  for name in $(instance_names); do
    rc=0
    instance_state "$name" || rc=$?
    case $rc in 0) running=1 ;; 3) ;; *) half=1 ;; esac
  done
  if [ -f "$STATE/env" ]; then
    [ $half -eq 0 ] && [ -f "$ROOT_DIR/BUILD-INFO" ] && [ -f "$MIRROR_DIR/BUILD-INFO" ] && return 0
    return 1
  fi
  [ $half -eq 0 ] && [ $running -eq 0 ] && return 3
  return 1
}

# The first start boots one instance to show that the bed works here: cloud-init runs its user data, the data disk
# takes a file system, and apt resolves every mirror package offline.
probe() {
  local name=mcloud-probe started=$SECONDS
  mkdir -p "$STATE"
  {
    echo "#cloud-config"
    echo "runcmd:"
    echo "  - [sh, -c, 'mkfs.ext4 -q /dev/vdb && mount /dev/vdb /mnt && umount /mnt']"
    echo "  - [apt-get, update]"
    printf '  - [apt-get, install, --simulate, -y'
    printf ', %s' "${MIRROR_PACKAGES[@]}"
    echo ']'
    # cloud-init reports "done" for user data it could not parse: the marker shows that the commands ran.
    echo "  - [touch, /var/lib/mcloud-probe-passed]"
  } >"$STATE/probe.yaml"
  [ ! -d "$(inst_dir "$name")" ] || (cmd_destroy "$name")
  log "probing: booting $name"
  if ! (cmd_boot "$name" --user-data "$STATE/probe.yaml" --disk 64M >/dev/null) ||
    ! (cmd_wait "$name" --timeout 300 >/dev/null) || [ ! -f "$(inst_dir "$name")/upper/var/lib/mcloud-probe-passed" ]; then
    rm -f "$STATE/env"
    die "the probe instance failed (scripts/testbed/container.sh logs $name; destroy $name)"
  fi
  (cmd_destroy "$name")
  log "probe passed in $((SECONDS - started)) s"
}

cmd_start() {
  started_already && return 0
  ensure_built
  probe
  lock_state
  write_env
  log "ready: root $ROOTFS, mirror $MIRROR_REPO (env: $STATE/env)"
  cat "$STATE/env"
}

cmd_stop() {
  local name
  [ -d "$STATE" ] || { log "not started (no $STATE)"; return 0; }
  require_root
  lock_state
  if [ -n "${1:-}" ]; then
    stop_instance "$1"
    return 0
  fi
  local rc
  for name in $(instance_names); do
    rc=0
    instance_state "$name" || rc=$?
    [ $rc -eq 3 ] || stop_instance "$name"
  done
  rm -f "$STATE/env"
  log "stopped"
}

cmd_status() {
  local rc=0 name
  if [ -n "${1:-}" ]; then
    [ -d "$(inst_dir "$1")" ] || { echo "$1: no such instance"; return 3; }
    describe "$1"
    return
  fi
  bed_state || rc=$?
  case $rc in
    0) echo "started: root $ROOTFS, mirror $MIRROR_REPO; env: $STATE/env" ;;
    3) echo "stopped" ;;
    *) echo "half: an instance is half running or the cache is missing; run stop (or start)" ;;
  esac
  for name in $(instance_names); do describe "$name" || true; done
  return $rc
}

if [ "$(id -u)" -eq 0 ] && in_plain_chroot; then enter_bed_namespace "$@"; fi
command=${1:-}
[ $# -eq 0 ] || shift
case "$command" in
  build) cmd_build ;;
  start) cmd_start ;;
  stop) cmd_stop "$@" ;;
  status) cmd_status "$@" ;;
  env) cmd_env ;;
  reset) require_root; cmd_reset ;;
  boot) cmd_boot "$@" ;;
  wait) cmd_wait "$@" ;;
  exec) cmd_exec "$@" ;;
  port) cmd_port "$@" ;;
  logs) cmd_logs "$@" ;;
  destroy) cmd_destroy "$@" ;;
  schema) cmd_schema "$@" ;;
  *)
    echo "usage: $0 build|start|status [NAME]|env|stop [NAME]|reset|boot NAME --user-data FILE [...]|wait NAME|exec NAME -- COMMAND...|port NAME PORT|logs NAME|destroy NAME|schema FILE..." >&2
    exit 2
    ;;
esac
