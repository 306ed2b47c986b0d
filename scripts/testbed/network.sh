#!/usr/bin/env bash
# Clouds as networks: each test cloud is a network namespace with its private subnet on a bridge, a public address
# range and NAT at its edge, joined to the others through an "internet" namespace; an "operator" namespace stands
# for the machine mcloud runs on. A packet from one cloud to another leaves with the cloud's egress address, so a
# security group, pg_hba or allow-list rule written for the catalog's egressCIDRs is tested by real packets.
# Cutting a cloud's link stands for losing that cloud. Nothing leaves the machine: every address lives inside
# namespaces this script made, each held by a process of its own (no named netns, so it works in a chroot too).
#
#   scripts/testbed/network.sh start                    make the internet and the operator (idempotent), print the env
#   scripts/testbed/network.sh status                   exit 0 started, 3 stopped, 1 half (a holder died)
#   scripts/testbed/network.sh env                      print the env file of the started bed
#   scripts/testbed/network.sh stop                     end every namespace of the bed (its containers' links go too)
#   scripts/testbed/network.sh reset                    stop, delete the state folder
#   scripts/testbed/network.sh add-cloud NAME --subnet CIDR --public CIDR
#                                                       a cloud: the subnet's first address is its gateway, the public
#                                                       range's first its egress address (idempotent when the same)
#   scripts/testbed/network.sh remove-cloud NAME        end the cloud's namespace and forget it (idempotent)
#   scripts/testbed/network.sh attach CLOUD PID ADDRESS a link from the cloud's bridge into the network namespace of
#                                                       PID, with ADDRESS (in the subnet) and a default route
#   scripts/testbed/network.sh expose CLOUD ADDRESS PUBLIC
#                                                       a floating address: PUBLIC leads to ADDRESS, and ADDRESS leaves
#                                                       the cloud as PUBLIC
#   scripts/testbed/network.sh unexpose CLOUD PUBLIC   remove that floating address
#   scripts/testbed/network.sh cut CLOUD | restore CLOUD
#                                                       drop every packet over the cloud's link to the internet, or not
#   scripts/testbed/network.sh exec NAME [--] COMMAND...
#                                                       run COMMAND in a cloud's, the operator's or the internet's
#                                                       network namespace (stdin, stdout, exit code pass)
#   scripts/testbed/network.sh pid NAME                 the PID whose network namespace is NAME's (for nsenter)
#
# Addresses: the internet links are 100.127.N.0/30 (N the cloud's number), the operator is 100.127.0.2. Environment:
# MCLOUD_TESTBED_NETWORK_DIR (default /tmp/mcloud-testbed/network). Needs root. See docs/testbeds.md.
set -euo pipefail

readonly ME="network testbed"
readonly PACKAGES=(iproute2 nftables util-linux)
readonly MAX_CLOUDS=250

# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SCRIPT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
STATE=${MCLOUD_TESTBED_NETWORK_DIR:-/tmp/mcloud-testbed/network}
case "$STATE" in /*) ;; *) STATE=$PWD/$STATE ;; esac

require_root() { [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, nftables)"; }

# ---------------------------------------------------------------- addresses

# ip_to_int A.B.C.D / int_to_ip N
ip_to_int() {
  local IFS=. a b c d
  read -r a b c d <<<"$1"
  echo $(((a << 24) | (b << 16) | (c << 8) | d))
}
int_to_ip() { echo "$((($1 >> 24) & 255)).$((($1 >> 16) & 255)).$((($1 >> 8) & 255)).$(($1 & 255))"; }

valid_ip() {
  local IFS=. part
  [[ "$1" =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}$ ]] || return 1
  for part in $1; do [ "$part" -le 255 ] || return 1; done
}

# cidr_parts CIDR WHAT: prints the network address, the prefix length and the first host, or fails for a CIDR that
# is malformed, has host bits set or leaves no room for two hosts.
cidr_parts() {
  local cidr=$1 what=$2 addr prefix net mask
  [[ "$cidr" =~ ^([0-9.]+)/([0-9]{1,2})$ ]] || die "$what $cidr: a CIDR such as 10.1.0.0/24"
  addr=${BASH_REMATCH[1]} prefix=${BASH_REMATCH[2]}
  valid_ip "$addr" || die "$what $cidr: $addr is no IPv4 address"
  [[ "$prefix" -ge 8 && "$prefix" -le 30 ]] || die "$what $cidr: the prefix must be 8 to 30"
  mask=$(((0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF))
  net=$(ip_to_int "$addr")
  [ $((net & mask)) -eq "$net" ] || die "$what $cidr: host bits are set (the network is $(int_to_ip $((net & mask)))/$prefix)"
  echo "$addr $prefix $(int_to_ip $((net + 1)))"
}

# in_cidr ADDRESS NETWORK PREFIX
in_cidr() {
  local mask=$(((0xFFFFFFFF << (32 - $3)) & 0xFFFFFFFF))
  [ $(($(ip_to_int "$1") & mask)) -eq "$(ip_to_int "$2")" ]
}

# overlaps NET1 PREFIX1 NET2 PREFIX2
overlaps() {
  local shorter=$2
  [ "$4" -lt "$shorter" ] && shorter=$4
  local mask=$(((0xFFFFFFFF << (32 - shorter)) & 0xFFFFFFFF))
  [ $(($(ip_to_int "$1") & mask)) -eq $(($(ip_to_int "$3") & mask)) ]
}

# ---------------------------------------------------------------- namespaces held by processes

valid_name() { [[ "$1" =~ ^[a-z][a-z0-9-]{0,30}$ ]] || die "$2 '$1': lower-case letters, digits and '-', starting with a letter"; }

alive() { kill -0 "$1" 2>/dev/null; }

# Holders are ended with SIGKILL: one started under a test runner inherits its blocked signals, SIGTERM among them.
end_holder() { kill -KILL "$1" 2>/dev/null || true; }

# holder NAME: the PID holding NAME's namespace, if that process is alive and is the bed's holder of NAME.
holder() {
  local pid
  pid=$(cat "$STATE/holders/$1" 2>/dev/null) || return 1
  [ "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" = "mcloud-network-hold $1 infinity " ] || return 1
  echo "$pid"
}

# make_namespace NAME: a new network namespace with its loopback up and forwarding on, held by a sleeping process
# of its own session that names itself after NAME (so a recycled PID is never taken for it).
make_namespace() {
  local name=$1 i
  mkdir -p "$STATE/holders"
  rm -f "$STATE/holders/$name"
  # shellcheck disable=SC2016 # expanded by the inner bash
  (
    close_inherited_fds
    exec setsid unshare --net -- bash -c 'echo $$ >"$1.tmp" && mv -f "$1.tmp" "$1" && exec -a "mcloud-network-hold $0" sleep infinity' \
      "$name" "$STATE/holders/$name"
  ) </dev/null >/dev/null 2>&1 &
  for ((i = 0; i < 50; i++)); do holder "$name" >/dev/null && break; sleep 0.1; done
  holder "$name" >/dev/null || die "the namespace of $name did not come up"
  in_ns "$name" ip link set lo up
  in_ns "$name" sysctl -qw net.ipv4.ip_forward=1
}

in_ns() {
  local name=$1 pid
  shift
  pid=$(holder "$name") || die "no namespace $name (scripts/testbed/network.sh start / add-cloud)"
  nsenter --target "$pid" --net -- "$@"
}

# ---------------------------------------------------------------- clouds

cloud_file() { echo "$STATE/clouds/$1"; }

# cloud_field NAME KEY: a value of the cloud's record (number, subnet, public).
cloud_field() {
  [ -f "$(cloud_file "$1")" ] || die "no cloud $1 (scripts/testbed/network.sh add-cloud $1 --subnet CIDR --public CIDR)"
  sed -n "s/^$2=//p" "$(cloud_file "$1")"
}

free_number() {
  local n used
  used=$(cat "$STATE"/clouds/* 2>/dev/null | sed -n 's/^number=//p')
  for ((n = 1; n <= MAX_CLOUDS; n++)); do
    grep -qx "$n" <<<"$used" || { echo "$n"; return 0; }
  done
  die "no room for more than $MAX_CLOUDS clouds"
}

cmd_add_cloud() {
  local name=${1:-} subnet="" public=""
  [[ -n "$name" && "${name#-}" = "$name" ]] || die "usage: add-cloud NAME --subnet CIDR --public CIDR"
  shift
  valid_name "$name" "cloud"
  case "$name" in internet | operator) die "cloud '$name': the name is the bed's own" ;; esac
  while [ $# -gt 0 ]; do
    case "$1" in
      --subnet) subnet=${2:?--subnet CIDR}; shift 2 ;;
      --public) public=${2:?--public CIDR}; shift 2 ;;
      *) die "add-cloud: unknown option $1" ;;
    esac
  done
  [[ -n "$subnet" && -n "$public" ]] || die "add-cloud $name: --subnet CIDR and --public CIDR are required"
  require_root
  started || die "not started (scripts/testbed/network.sh start)"
  local s_net s_prefix gateway p_net p_prefix egress other
  read -r s_net s_prefix gateway < <(cidr_parts "$subnet" "--subnet")
  read -r p_net p_prefix egress < <(cidr_parts "$public" "--public")
  if overlaps "$s_net" "$s_prefix" 100.127.0.0 16 || overlaps "$p_net" "$p_prefix" 100.127.0.0 16; then
    die "add-cloud $name: 100.127.0.0/16 is the bed's links"
  fi
  ! overlaps "$s_net" "$s_prefix" "$p_net" "$p_prefix" || die "add-cloud $name: --subnet $subnet and --public $public overlap"
  if [ -f "$(cloud_file "$name")" ]; then
    [[ "$(cloud_field "$name" subnet)" = "$subnet" && "$(cloud_field "$name" public)" = "$public" ]] ||
      die "cloud $name exists with subnet $(cloud_field "$name" subnet), public $(cloud_field "$name" public) (remove it with stop)"
    holder "cloud-$name" >/dev/null || die "cloud $name is half made (its namespace is gone); run stop, then start"
    log "cloud $name exists"
    return 0
  fi
  for other in "$STATE"/clouds/*; do
    [ -f "$other" ] || continue
    local o_public
    o_public=$(sed -n 's/^public=//p' "$other")
    overlaps "$p_net" "$p_prefix" "${o_public%/*}" "${o_public#*/}" &&
      die "add-cloud $name: --public $public overlaps cloud $(basename "$other")'s $o_public"
  done
  local number link_inet link_cloud
  number=$(free_number)
  link_inet=100.127.$number.1 link_cloud=100.127.$number.2
  make_namespace "cloud-$name"
  in_ns "cloud-$name" ip link add br0 type bridge
  in_ns "cloud-$name" ip addr add "$gateway/$s_prefix" dev br0
  in_ns "cloud-$name" ip link set br0 up
  in_ns internet ip link add "cl$number" type veth peer name uplink netns "$(holder "cloud-$name")"
  in_ns internet ip addr add "$link_inet/30" dev "cl$number"
  in_ns internet ip link set "cl$number" up
  in_ns internet ip route add "$public" via "$link_cloud"
  in_ns "cloud-$name" ip addr add "$link_cloud/30" dev uplink
  in_ns "cloud-$name" ip link set uplink up
  in_ns "cloud-$name" ip route add default via "$link_inet"
  # A public address nothing is exposed at ends here, not back on the default route. Whatever leaves the cloud (its
  # machines, and commands run in the cloud's own namespace) leaves by the egress address unless it has its own.
  in_ns "cloud-$name" ip route add blackhole "$public"
  in_ns "cloud-$name" nft -f - <<EOF
table ip mcloud {
  chain prerouting { type nat hook prerouting priority dstnat; }
  chain postrouting {
    type nat hook postrouting priority srcnat;
    oifname "uplink" snat to $egress
  }
}
EOF
  mkdir -p "$STATE/clouds"
  printf 'number=%s\nsubnet=%s\npublic=%s\ngateway=%s\negress=%s\n' "$number" "$subnet" "$public" "$gateway" "$egress" >"$(cloud_file "$name").tmp"
  mv -f "$(cloud_file "$name").tmp" "$(cloud_file "$name")"
  log "cloud $name: subnet $subnet (gateway $gateway), public $public (egress $egress), link cl$number"
}

cmd_remove_cloud() {
  local name=${1:-} number public pid
  [ -n "$name" ] || die "usage: remove-cloud NAME"
  valid_name "$name" "cloud"
  require_root
  [ -f "$(cloud_file "$name")" ] || { log "no cloud $name"; return 0; }
  number=$(cloud_field "$name" number)
  public=$(cloud_field "$name" public)
  if pid=$(holder "cloud-$name"); then end_holder "$pid"; fi
  rm -f "$STATE/holders/cloud-$name"
  if holder internet >/dev/null; then
    in_ns internet ip route del "$public" 2>/dev/null || true
    in_ns internet ip link del "cl$number" 2>/dev/null || true
    in_ns internet nft delete element ip mcloud cut "{ cl$number }" 2>/dev/null || true
  fi
  rm -f "$(cloud_file "$name")"
  log "removed cloud $name"
}

cmd_attach() {
  local cloud=${1:-} pid=${2:-} address=${3:-}
  [[ -n "$cloud" && -n "$pid" && -n "$address" ]] || die "usage: attach CLOUD PID ADDRESS"
  if ! [[ "$pid" =~ ^[0-9]+$ ]] || ! alive "$pid"; then die "attach: no process $pid"; fi
  valid_ip "$address" || die "attach: $address is no IPv4 address"
  require_root
  local subnet gateway net prefix link
  subnet=$(cloud_field "$cloud" subnet)
  gateway=$(cloud_field "$cloud" gateway)
  net=${subnet%/*} prefix=${subnet#*/}
  in_cidr "$address" "$net" "$prefix" || die "attach: $address is not in cloud $cloud's subnet $subnet"
  [ "$address" != "$gateway" ] || die "attach: $address is cloud $cloud's gateway"
  [ "$address" != "$(int_to_ip $(($(ip_to_int "$net") | ((1 << (32 - prefix)) - 1))))" ] || die "attach: $address is $subnet's broadcast address"
  if in_ns "cloud-$cloud" ip -o addr show 2>/dev/null | grep -q " $address/"; then die "attach: $address is taken in cloud $cloud"; fi
  link=v$pid
  in_ns "cloud-$cloud" ip link del "$link" 2>/dev/null || true
  in_ns "cloud-$cloud" ip link add "$link" type veth peer name eth0 netns "$pid"
  in_ns "cloud-$cloud" ip link set "$link" master br0 up
  nsenter --target "$pid" --net -- ip addr add "$address/$prefix" dev eth0
  nsenter --target "$pid" --net -- ip link set eth0 up
  nsenter --target "$pid" --net -- ip route replace default via "$gateway"
  log "attached process $pid to cloud $cloud at $address"
}

cmd_expose() {
  local cloud=${1:-} address=${2:-} public_address=${3:-}
  [[ -n "$cloud" && -n "$address" && -n "$public_address" ]] || die "usage: expose CLOUD ADDRESS PUBLIC"
  valid_ip "$address" || die "expose: $address is no IPv4 address"
  valid_ip "$public_address" || die "expose: $public_address is no IPv4 address"
  require_root
  local subnet public egress
  subnet=$(cloud_field "$cloud" subnet)
  public=$(cloud_field "$cloud" public)
  egress=$(cloud_field "$cloud" egress)
  in_cidr "$address" "${subnet%/*}" "${subnet#*/}" || die "expose: $address is not in cloud $cloud's subnet $subnet"
  in_cidr "$public_address" "${public%/*}" "${public#*/}" || die "expose: $public_address is not in cloud $cloud's public range $public"
  [ "$public_address" != "$egress" ] || die "expose: $public_address is cloud $cloud's egress address"
  if in_ns "cloud-$cloud" nft list chain ip mcloud prerouting | grep -q "ip daddr $public_address "; then
    die "expose: $public_address is exposed already in cloud $cloud"
  fi
  in_ns "cloud-$cloud" nft add rule ip mcloud prerouting ip daddr "$public_address" dnat to "$address"
  in_ns "cloud-$cloud" nft insert rule ip mcloud postrouting ip saddr "$address" oifname uplink snat to "$public_address"
  log "cloud $cloud: $public_address leads to $address"
}

cmd_unexpose() {
  local cloud=${1:-} public_address=${2:-} chain handle
  [[ -n "$cloud" && -n "$public_address" ]] || die "usage: unexpose CLOUD PUBLIC"
  valid_ip "$public_address" || die "unexpose: $public_address is no IPv4 address"
  require_root
  cloud_field "$cloud" number >/dev/null
  # Each rule that names the address: the DNAT to it and the SNAT from its private address.
  for chain in prerouting postrouting; do
    in_ns "cloud-$cloud" nft -a list chain ip mcloud "$chain" | grep -E "(daddr|to) $public_address( |$)" |
      sed -n 's/.*# handle \([0-9]*\)$/\1/p' | while read -r handle; do
      in_ns "cloud-$cloud" nft delete rule ip mcloud "$chain" handle "$handle"
    done
  done
  log "cloud $cloud: $public_address leads nowhere"
}

# cut CLOUD / restore CLOUD: the internet drops (or forwards again) whatever crosses the cloud's link.
cmd_cut() {
  local cloud=${1:-} how=$2 number
  [ -n "$cloud" ] || die "usage: $how CLOUD"
  require_root
  number=$(cloud_field "$cloud" number)
  if [ "$how" = cut ]; then
    in_ns internet nft add element ip mcloud cut "{ cl$number }"
    log "cloud $cloud is cut off"
  else
    in_ns internet nft delete element ip mcloud cut "{ cl$number }" 2>/dev/null || true
    log "cloud $cloud is reachable"
  fi
}

# ---------------------------------------------------------------- the bed

write_env() {
  {
    echo "MCLOUD_TEST_NETWORK_BED=$SCRIPT"
    echo "MCLOUD_TEST_NETWORK_STATE=$STATE"
    echo "MCLOUD_TEST_NETWORK_OPERATOR_ADDRESS=100.127.0.2"
  } >"$STATE/env.tmp"
  mv -f "$STATE/env.tmp" "$STATE/env"
}

started() { [ -f "$STATE/env" ] && holder internet >/dev/null && holder operator >/dev/null; }

# 0 started, 3 nothing of the bed runs, 1 else.
bed_state() {
  local file name any=0 dead=0
  for file in "$STATE"/holders/*; do
    [ -f "$file" ] || continue
    name=$(basename "$file")
    if holder "$name" >/dev/null; then any=1; else dead=1; fi
  done
  if [ -f "$STATE/env" ]; then
    [ $dead -eq 0 ] && started && return 0
    return 1
  fi
  [ $any -eq 0 ] && return 3
  return 1
}

cmd_start() {
  require_root
  ensure_packages "${PACKAGES[@]}"
  started_already && return 0
  [ "$BED_STATE" -eq 3 ] || { log "half started; stopping what is left first"; cmd_stop >/dev/null; }
  mkdir -p "$STATE"
  touch "$STATE/.mcloud-testbed"
  make_namespace internet
  in_ns internet nft -f - <<'EOF'
table ip mcloud {
  set cut { type ifname; }
  chain forward {
    type filter hook forward priority filter;
    iifname @cut drop
    oifname @cut drop
  }
}
EOF
  make_namespace operator
  in_ns internet ip link add cl0 type veth peer name uplink netns "$(holder operator)"
  in_ns internet ip addr add 100.127.0.1/30 dev cl0
  in_ns internet ip link set cl0 up
  in_ns operator ip addr add 100.127.0.2/30 dev uplink
  in_ns operator ip link set uplink up
  in_ns operator ip route add default via 100.127.0.1
  write_env
  log "ready: the internet and the operator (100.127.0.2); add clouds with add-cloud (env: $STATE/env)"
  cat "$STATE/env"
}

cmd_stop() {
  local file pid
  [ -d "$STATE" ] || { log "not started (no $STATE)"; return 0; }
  require_root
  for file in "$STATE"/holders/*; do
    [ -f "$file" ] || continue
    if pid=$(holder "$(basename "$file")"); then end_holder "$pid"; fi
    rm -f "$file"
  done
  rm -rf "$STATE/clouds" "$STATE/env"
  log "stopped"
}

# One line on a cloud: its addresses and whether its namespace lives and its link is cut.
describe_cloud() {
  local name=$1 line
  line="$name: subnet $(cloud_field "$name" subnet), public $(cloud_field "$name" public), egress $(cloud_field "$name" egress)"
  if ! holder "cloud-$name" >/dev/null; then
    line="$line, namespace gone"
  elif in_ns internet nft list set ip mcloud cut 2>/dev/null | grep -qw "cl$(cloud_field "$name" number)"; then
    line="$line, cut off"
  fi
  echo "$line"
}

cmd_status() {
  local rc=0 file
  bed_state || rc=$?
  case $rc in
    0) echo "started: env $STATE/env" ;;
    3) echo "stopped" ;;
    *) echo "half: a namespace's holder is gone; run stop (or start)" ;;
  esac
  for file in "$STATE"/clouds/*; do
    [ -f "$file" ] || continue
    describe_cloud "$(basename "$file")"
  done
  return $rc
}

namespace_of() {
  case "$1" in
    internet | operator) echo "$1" ;;
    *) valid_name "$1" "cloud"; [ -f "$(cloud_file "$1")" ] || die "no cloud $1"; echo "cloud-$1" ;;
  esac
}

cmd_exec() {
  local name=${1:-}
  [ -n "$name" ] || die "usage: exec NAME [--] COMMAND..."
  shift
  [ "${1:-}" != -- ] || shift
  [ $# -gt 0 ] || die "usage: exec NAME [--] COMMAND..."
  require_root
  local namespace pid
  namespace=$(namespace_of "$name")
  pid=$(holder "$namespace") || die "no namespace for $name (start / add-cloud)"
  exec nsenter --target "$pid" --net -- "$@"
}

cmd_pid() {
  [ -n "${1:-}" ] || die "usage: pid NAME"
  local namespace
  namespace=$(namespace_of "$1")
  holder "$namespace" || die "no namespace for $1 (start / add-cloud)"
}

# lock_bed: the commands that change namespaces, links or rules run one at a time. Tests add clouds concurrently,
# and two add-clouds at once picked the same link number ("RTNETLINK answers: File exists"). The holders close the
# descriptor (close_inherited_fds), so the lock ends with the command.
lock_bed() {
  mkdir -p "$(dirname "$STATE")"
  exec 8>"$STATE.lock"
  flock 8
}

command=${1:-}
[ $# -eq 0 ] || shift
case "$command" in
  start | stop | reset | add-cloud | remove-cloud | attach | expose | unexpose | cut | restore) lock_bed ;;
esac
case "$command" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  reset) require_root; cmd_reset ;;
  add-cloud) cmd_add_cloud "$@" ;;
  remove-cloud) cmd_remove_cloud "$@" ;;
  attach) cmd_attach "$@" ;;
  expose) cmd_expose "$@" ;;
  unexpose) cmd_unexpose "$@" ;;
  cut) cmd_cut "${1:-}" cut ;;
  restore) cmd_cut "${1:-}" restore ;;
  exec) cmd_exec "$@" ;;
  pid) cmd_pid "$@" ;;
  *)
    echo "usage: $0 start|status|env|stop|reset|add-cloud NAME --subnet CIDR --public CIDR|remove-cloud NAME|attach CLOUD PID ADDRESS|expose CLOUD ADDRESS PUBLIC|unexpose CLOUD PUBLIC|cut CLOUD|restore CLOUD|exec NAME -- COMMAND...|pid NAME" >&2
    exit 2
    ;;
esac
