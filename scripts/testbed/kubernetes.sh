#!/usr/bin/env bash
# A real Kubernetes API server on loopback for mcloud's integration tests: kube-apiserver v1.20.2 built once from
# Debian's `kubernetes` source package (cached outside the checkout), Debian's etcd-server, a self-made PKI
# (openssl), a static token file and RBAC. Everything listens on 127.0.0.1 only.
#
#   scripts/testbed/kubernetes.sh build    build and cache kube-apiserver (does nothing when it is cached)
#   scripts/testbed/kubernetes.sh start    build if needed, start etcd + kube-apiserver, write kubeconfig and env
#   scripts/testbed/kubernetes.sh stop     stop both (by PID files)
#   scripts/testbed/kubernetes.sh status   exit 0 running and ready, 3 stopped, 1 half running or not ready
#   scripts/testbed/kubernetes.sh env      print the env file of the running bed
#   scripts/testbed/kubernetes.sh reset    stop and delete the state folder (PKI, etcd data, kubeconfigs)
#   scripts/testbed/kubernetes.sh clusters NAME...   start the bed and one more API server per NAME on its etcd
#                                          (a cluster of its own: etcd prefix /clusters/NAME), print their env file
#   scripts/testbed/kubernetes.sh stop-clusters      stop those (stop stops them too)
#
# Environment: MCLOUD_CACHE_DIR (default /var/cache/mcloud, or ~/.cache/mcloud when that is not writable),
# MCLOUD_TESTBED_DIR (default /tmp/mcloud-testbed/kubernetes), MCLOUD_TESTBED_TIMEOUT (seconds to wait for
# /readyz, default 120), MCLOUD_TESTBED_API_PORT (fixed API server port; default: a free one, kept across
# restarts), MCLOUD_KEEP_BUILD_DIR=1 (keep the source tree and Go cache after a build).
# See scripts/testbed/README.md and docs/testbeds.md.
set -euo pipefail

readonly KUBE_VERSION=1.20.2
readonly SOURCE_PACKAGE=kubernetes
readonly ME="kubernetes testbed"

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CACHE_ROOT=${MCLOUD_CACHE_DIR:-$(default_cache_root)}
BIN_DIR=$CACHE_ROOT/kube-apiserver/$KUBE_VERSION
BIN=$BIN_DIR/kube-apiserver
WORK_DIR=$CACHE_ROOT/kube-apiserver/build-$KUBE_VERSION
STATE=${MCLOUD_TESTBED_DIR:-/tmp/mcloud-testbed/kubernetes}
READY_TIMEOUT=${MCLOUD_TESTBED_TIMEOUT:-120}
ETCD_BIN=/usr/bin/etcd
PKI=$STATE/pki
LOGS=$STATE/logs

case "$CACHE_ROOT$STATE" in
  *[[:space:]]* | *[\"\'\$\`\\]*) die "MCLOUD_CACHE_DIR and MCLOUD_TESTBED_DIR must not contain spaces or quotes" ;;
esac
case "$STATE" in /*) ;; *) STATE=$PWD/$STATE; PKI=$STATE/pki; LOGS=$STATE/logs ;; esac
case "$CACHE_ROOT" in /*) ;; *) die "MCLOUD_CACHE_DIR must be an absolute path" ;; esac
[[ "$READY_TIMEOUT" =~ ^[0-9]+$ ]] || die "MCLOUD_TESTBED_TIMEOUT must be a number of seconds"

# ---------------------------------------------------------------- packages

has_source_package() { apt-cache showsrc "$SOURCE_PACKAGE" 2>/dev/null | grep -q "^Package: $SOURCE_PACKAGE\$"; }

# Adds a deb-src line for the machine's Debian release (main), on the same mirror as its deb line, unless apt
# already knows the source package.
ensure_deb_src() {
  has_source_package && return 0
  [ "$APT_UPDATED" -eq 1 ] || apt_update
  has_source_package && return 0
  local codename uri keyring file=/etc/apt/sources.list.d/mcloud-deb-src.sources
  # shellcheck disable=SC1091
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [ -n "$codename" ] || die "cannot tell the Debian release from /etc/os-release"
  # shellcheck disable=SC2016 # $(...) are apt's format fields
  uri=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 'Identifier: Packages' 2>/dev/null |
    awk -v r="$codename" '$2 == r && $3 == "main" { print $1; exit }')
  [ -n "$uri" ] || die "no 'deb' source for $codename main is configured, so no deb-src line can be derived from it"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  log "adding a deb-src line for $codename main ($file)"
  {
    echo "# Added by mcloud scripts/testbed/kubernetes.sh for 'apt-get source $SOURCE_PACKAGE'."
    echo "Types: deb-src"
    echo "URIs: $uri"
    echo "Suites: $codename"
    echo "Components: main"
    [ -f "$keyring" ] && echo "Signed-By: $keyring"
  } | as_root tee "$file" >/dev/null
  apt_update
  has_source_package || die "apt still has no source package '$SOURCE_PACKAGE' after adding $file"
}

# ---------------------------------------------------------------- build

binary_ok() { [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -qx "Kubernetes v$KUBE_VERSION"; }

BUILD_LOG=""
build_failed() {
  local rc=$?
  [ $rc -eq 0 ] && return 0
  if [ -n "$BUILD_LOG" ] && [ -f "$BUILD_LOG" ]; then
    printf '%s: last lines of %s:\n' "$ME" "$BUILD_LOG" >&2
    tail -n 30 "$BUILD_LOG" >&2
  fi
  printf '%s: error: the build failed (rc %s); its work folder is kept for inspection: %s\n' "$ME" "$rc" "$WORK_DIR" >&2
}

cmd_build() {
  if binary_ok; then
    log "kube-apiserver v$KUBE_VERSION is cached: $BIN"
    return 0
  fi
  mkdir -p "$CACHE_ROOT/kube-apiserver"
  exec 8>"$CACHE_ROOT/kube-apiserver/.build.lock"
  if ! flock -n 8; then
    log "another build is running; waiting for it (up to 30 minutes)"
    flock -w 1800 8 || die "another build still holds $CACHE_ROOT/kube-apiserver/.build.lock"
  fi
  if binary_ok; then  # built by another process while we waited
    exec 8>&-
    log "kube-apiserver v$KUBE_VERSION is cached: $BIN"
    return 0
  fi

  local started=$SECONDS avail_kb
  avail_kb=$(df -Pk "$CACHE_ROOT" | awk 'NR == 2 { print $4 }')
  [ "${avail_kb:-0}" -ge $((3 * 1024 * 1024)) ] || die "the build needs about 3 GB free in $CACHE_ROOT (free: $((avail_kb / 1024)) MB)"

  ensure_deb_src
  ensure_packages golang-go rsync jq make dpkg-dev golang-github-modern-go-reflect2-dev

  local reflect2=/usr/share/gocode/src/github.com/modern-go/reflect2
  [ -f "$reflect2/reflect2.go" ] || die "$reflect2 is missing (package golang-github-modern-go-reflect2-dev)"
  [ -x /usr/lib/go/bin/go ] || die "/usr/lib/go/bin/go is missing (package golang-go)"

  rm -rf "$WORK_DIR"
  mkdir -p "$WORK_DIR/source" "$WORK_DIR/gopath/src/k8s.io" "$WORK_DIR/gocache" "$WORK_DIR/tmp"
  BUILD_LOG=$WORK_DIR/build.log
  : >"$BUILD_LOG"
  trap build_failed EXIT

  log "fetching the Debian source package '$SOURCE_PACKAGE' (apt-get source)"
  (cd "$WORK_DIR/source" && apt-get -o APT::Sandbox::User=root source -qq "$SOURCE_PACKAGE") >>"$BUILD_LOG" 2>&1 ||
    die "apt-get source $SOURCE_PACKAGE failed"
  local tree
  tree=$(find "$WORK_DIR/source" -mindepth 1 -maxdepth 1 -type d -name "$SOURCE_PACKAGE-*" | head -n 1)
  [ -n "$tree" ] || die "apt-get source left no $SOURCE_PACKAGE-* folder in $WORK_DIR/source"
  case "$tree" in
    *"really$KUBE_VERSION" | *"-$KUBE_VERSION") ;;
    *) die "Debian's $SOURCE_PACKAGE source is $(basename "$tree"), not upstream v$KUBE_VERSION" ;;
  esac
  local debian_version
  debian_version=$(cd "$tree" && dpkg-parsechangelog -S Version 2>/dev/null) || debian_version=$(basename "$tree")
  log "source: $SOURCE_PACKAGE $debian_version"

  # Fix 1: the vendored reflect2 v1.0.1 breaks under Go 1.18+ (every encoded object panics); use Debian's 1.0.2.
  grep -q '^# github.com/modern-go/reflect2 v1.0.1' "$tree/vendor/modules.txt" ||
    log "warning: vendor/modules.txt does not list reflect2 v1.0.1 any more; replacing it anyway"
  rm -rf "$tree/vendor/github.com/modern-go/reflect2"
  cp -a "$reflect2" "$tree/vendor/github.com/modern-go/reflect2"
  rm -f "$tree/vendor/github.com/modern-go/reflect2/go.mod"
  sed -i 's|^# github.com/modern-go/reflect2 v1.0.1|# github.com/modern-go/reflect2 v1.0.2|' "$tree/vendor/modules.txt"

  # Fix 2: a GOPATH-mode build (as 1.20's hack/ does), with Debian's Go, the tree linked into GOPATH, and all
  # caches in the work folder (outside the checkout and outside $HOME).
  ln -s "$tree" "$WORK_DIR/gopath/src/k8s.io/kubernetes"
  export GOPATH=$WORK_DIR/gopath GOCACHE=$WORK_DIR/gocache GOTMPDIR=$WORK_DIR/tmp GO111MODULE=off GOFLAGS='' \
    CGO_ENABLED=0 GOTOOLCHAIN=local PATH=/usr/lib/go/bin:$PATH
  unset GOROOT GOBIN
  local pkgdir=$GOPATH/src/k8s.io/kubernetes

  # Fix 3: pkg/generated/openapi/zz_generated.openapi.go is not in the tarball.
  log "generating OpenAPI definitions (make gen_openapi)"
  local t
  t=$(now)
  (cd "$pkgdir" && make gen_openapi) >>"$BUILD_LOG" 2>&1 || die "make gen_openapi failed"
  log "make gen_openapi took $(elapsed "$t") s"
  [ -f "$tree/pkg/generated/openapi/zz_generated.openapi.go" ] || die "make gen_openapi wrote no zz_generated.openapi.go"

  # Fix 4: the version goes into both vendored version packages, or /version is empty.
  local ldflags="-s -w" pkg key build_date
  build_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  for pkg in k8s.io/kubernetes/vendor/k8s.io/component-base/version k8s.io/kubernetes/vendor/k8s.io/client-go/pkg/version; do
    for key in gitVersion=v$KUBE_VERSION gitMajor=${KUBE_VERSION%%.*} gitMinor=$(echo "$KUBE_VERSION" | cut -d. -f2) \
      gitTreeState=archive buildDate=$build_date; do
      ldflags+=" -X $pkg.$key"
    done
  done
  log "building kube-apiserver v$KUBE_VERSION with $(go version | awk '{print $3}') (4-10 minutes on 2 cores, depending on load)"
  mkdir -p "$BIN_DIR"
  local out=$BIN_DIR/.kube-apiserver.$$
  t=$(now)
  (cd "$pkgdir" && go build -o "$out" -ldflags "$ldflags" ./cmd/kube-apiserver) >>"$BUILD_LOG" 2>&1 ||
    { rm -f "$out"; die "go build ./cmd/kube-apiserver failed"; }
  log "go build took $(elapsed "$t") s; work folder $(du -sm "$WORK_DIR" | cut -f1) MB"
  "$out" --version 2>/dev/null | grep -qx "Kubernetes v$KUBE_VERSION" ||
    { rm -f "$out"; die "the built binary does not report v$KUBE_VERSION: $("$out" --version 2>&1 | head -n 1)"; }
  mv -f "$out" "$BIN"
  {
    echo "kube-apiserver v$KUBE_VERSION"
    echo "source: Debian $SOURCE_PACKAGE $debian_version (vendored reflect2 replaced by Debian's $(dpkg-query -W -f='${Version}' golang-github-modern-go-reflect2-dev))"
    echo "go: $(go version)"
    echo "built: $build_date in $((SECONDS - started)) s"
  } >"$BIN_DIR/BUILD-INFO"
  trap - EXIT
  if [ "${MCLOUD_KEEP_BUILD_DIR:-0}" = 1 ]; then
    log "keeping the work folder $WORK_DIR"
  else
    chmod -R u+w "$WORK_DIR" 2>/dev/null || true
    rm -rf "$WORK_DIR"
  fi
  exec 8>&-
  log "built $BIN ($(du -m "$BIN" | cut -f1) MB) in $((SECONDS - started)) s"
}

# ---------------------------------------------------------------- processes

# pid_of NAME BINARY: prints the PID in $STATE/NAME.pid if that process is alive, runs BINARY and belongs to this
# state folder (so a reused PID is never taken for ours).
pid_of() {
  local file=$STATE/$1.pid pid argv0 stat
  [ -f "$file" ] || return 1
  pid=$(cat "$file" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ -r "/proc/$pid/cmdline" ] || return 1
  stat=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null) || return 1
  [ "$stat" != Z ] || return 1
  argv0=$(tr '\0' '\n' <"/proc/$pid/cmdline" | head -n 1)
  [ "$argv0" = "$2" ] || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qF "$STATE/" || return 1
  echo "$pid"
}

# stop_one NAME BINARY: SIGTERM, up to 20 s, then SIGKILL, up to 5 s more.
stop_one() {
  local pid i
  if pid=$(pid_of "$1" "$2"); then
    log "stopping $1 (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do pid_of "$1" "$2" >/dev/null || break; sleep 0.2; done
    if pid_of "$1" "$2" >/dev/null; then
      log "$1 (pid $pid) ignored SIGTERM for 20 s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      for ((i = 0; i < 25; i++)); do pid_of "$1" "$2" >/dev/null || break; sleep 0.2; done
      pid_of "$1" "$2" >/dev/null && die "$1 (pid $pid) is still alive after SIGKILL"
    fi
  fi
  rm -f "$STATE/$1.pid"
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pick_port NAME PREVIOUS: keeps the previous port when it is still free, else a free one in 20000-32767 (below
# the kernel's ephemeral range, so outgoing connections never take it meanwhile).
pick_port() {
  local port i
  if [[ "${2:-}" =~ ^[0-9]+$ ]] && [[ " ${TAKEN_PORTS:-} " != *" $2 "* ]] && port_free "$2"; then
    echo "$2"
    return 0
  fi
  for ((i = 0; i < 200; i++)); do
    port=$((20000 + RANDOM % 12768))
    case " ${TAKEN_PORTS:-} " in *" $port "*) continue ;; esac
    if port_free "$port"; then echo "$port"; return 0; fi
  done
  die "found no free port on 127.0.0.1 for $1"
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

show_logs() {
  local f
  for f in "$@"; do
    [ -f "$f" ] || continue
    printf '%s: last lines of %s (this start):\n' "$ME" "$f" >&2
    awk '/^---- .* start$/ { n = 0; delete lines; next } { lines[++n] = $0 }
      END { for (i = (n > 25 ? n - 24 : 1); i <= n; i++) print "  " lines[i] }' "$f" >&2
  done
}

# ---------------------------------------------------------------- PKI

write_openssl_config() {
  cat >"$PKI/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
[v3_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign, digitalSignature
subjectKeyIdentifier = hash
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[client]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
}

# pki_run COMMAND...: runs an openssl command, its output in $PKI/openssl.log, and stops on failure.
pki_run() { "$@" >>"$PKI/openssl.log" 2>&1 || { tail -n 10 "$PKI/openssl.log" >&2; die "creating the PKI failed: $*"; }; }

# sign NAME SUBJECT EXTENSIONS: a certificate for $PKI/NAME.key signed by the CA, valid 10 years.
sign() {
  pki_run openssl req -new -config "$PKI/openssl.cnf" -key "$PKI/$1.key" -subj "$2" -out "$PKI/$1.csr"
  pki_run openssl x509 -req -in "$PKI/$1.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -set_serial "0x1$(openssl rand -hex 15)" \
    -days 3650 -sha256 -extfile "$PKI/openssl.cnf" -extensions "$3" -out "$PKI/$1.crt"
  rm -f "$PKI/$1.csr"
}

# Made once per state folder: a CA; a serving certificate for 127.0.0.1 and localhost; client certificates for
# an admin (O=system:masters, RSA key in PKCS#1 like kubeadm writes) and `lab-dev` (no RBAC, EC P-256 key in SEC1);
# a service-account key pair; static tokens for an admin (group system:masters) and `token-viewer` (no RBAC).
ensure_pki() {
  [ -f "$PKI/.complete" ] && return 0
  log "creating the PKI and tokens in $PKI"
  rm -rf "$PKI"
  mkdir -p "$PKI"
  chmod 700 "$PKI"
  local old_umask
  old_umask=$(umask)
  umask 077
  write_openssl_config
  pki_run openssl genrsa -traditional -out "$PKI/ca.key" 2048
  pki_run openssl req -x509 -new -config "$PKI/openssl.cnf" -extensions v3_ca -key "$PKI/ca.key" \
    -subj "/CN=mcloud-testbed-ca" -days 3650 -sha256 -out "$PKI/ca.crt"
  pki_run openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/server.key"
  sign server "/CN=kube-apiserver" server
  pki_run openssl genrsa -traditional -out "$PKI/admin.key" 2048
  sign admin "/O=system:masters/CN=mcloud-admin" client
  pki_run openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/dev.key"
  sign dev "/CN=lab-dev" client
  pki_run openssl genrsa -traditional -out "$PKI/sa.key" 2048
  pki_run openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub"
  pki_run openssl rand -hex -out "$PKI/admin.token" 24
  pki_run openssl rand -hex -out "$PKI/viewer.token" 24
  {
    echo "$(cat "$PKI/admin.token"),mcloud-admin-token,mcloud-admin-token,system:masters"
    echo "$(cat "$PKI/viewer.token"),token-viewer,token-viewer"
  } >"$PKI/tokens.csv"
  umask "$old_umask"
  chmod 644 "$PKI"/*.crt "$PKI/sa.pub"
  pki_run openssl verify -CAfile "$PKI/ca.crt" "$PKI/server.crt" "$PKI/admin.crt" "$PKI/dev.crt"
  touch "$PKI/.complete"
}

# ---------------------------------------------------------------- kubeconfig and env

b64() { base64 -w0 <"$1"; }

# The contexts both kubeconfigs share: one per credential, all on the bed's cluster.
contexts_yaml() {
  cat <<'CONTEXTS'
contexts:
- name: admin-cert
  context:
    cluster: mcloud-testbed
    user: admin-cert
- name: admin-token
  context:
    cluster: mcloud-testbed
    user: admin-token
- name: viewer-token
  context:
    cluster: mcloud-testbed
    user: viewer-token
- name: dev-cert
  context:
    cluster: mcloud-testbed
    user: dev-cert
- name: insecure
  context:
    cluster: mcloud-testbed-insecure
    user: admin-token
current-context: admin-cert
CONTEXTS
}

write_kubeconfigs() {
  local server=$1 admin_token viewer_token
  admin_token=$(cat "$PKI/admin.token")
  viewer_token=$(cat "$PKI/viewer.token")
  (
    umask 077
    cat >"$STATE/kubeconfig.tmp" <<EOF
# Written by scripts/testbed/kubernetes.sh for the test API server; credentials inline (*-data, token).
apiVersion: v1
kind: Config
clusters:
- name: mcloud-testbed
  cluster:
    server: $server
    certificate-authority-data: $(b64 "$PKI/ca.crt")
- name: mcloud-testbed-insecure
  cluster:
    server: $server
    insecure-skip-tls-verify: true
users:
- name: admin-cert
  user:
    client-certificate-data: $(b64 "$PKI/admin.crt")
    client-key-data: $(b64 "$PKI/admin.key")
- name: admin-token
  user:
    token: $admin_token
- name: viewer-token
  user:
    token: $viewer_token
- name: dev-cert
  user:
    client-certificate-data: $(b64 "$PKI/dev.crt")
    client-key-data: $(b64 "$PKI/dev.key")
$(contexts_yaml)
preferences: {}
EOF
    cat >"$STATE/kubeconfig-files.tmp" <<EOF
# Written by scripts/testbed/kubernetes.sh: the same contexts as ./kubeconfig, with credentials referenced by
# path (certificate-authority, client-certificate, client-key, tokenFile).
apiVersion: v1
kind: Config
clusters:
- name: mcloud-testbed
  cluster:
    server: $server
    certificate-authority: $PKI/ca.crt
- name: mcloud-testbed-insecure
  cluster:
    server: $server
    insecure-skip-tls-verify: true
users:
- name: admin-cert
  user:
    client-certificate: $PKI/admin.crt
    client-key: $PKI/admin.key
- name: admin-token
  user:
    tokenFile: $PKI/admin.token
- name: viewer-token
  user:
    tokenFile: $PKI/viewer.token
- name: dev-cert
  user:
    client-certificate: $PKI/dev.crt
    client-key: $PKI/dev.key
$(contexts_yaml)
EOF
    cat >"$STATE/env.tmp" <<EOF
MCLOUD_TEST_KUBECONFIG=$STATE/kubeconfig
MCLOUD_TEST_KUBECONFIG_FILES=$STATE/kubeconfig-files
MCLOUD_TEST_KUBE_SERVER=$server
MCLOUD_TEST_KUBE_VERSION=v$KUBE_VERSION
MCLOUD_TEST_KUBE_ADMIN_TOKEN=$admin_token
MCLOUD_TEST_KUBE_VIEWER_TOKEN=$viewer_token
MCLOUD_TEST_KUBE_VIEWER_USER=token-viewer
MCLOUD_TEST_KUBE_DEV_USER=lab-dev
MCLOUD_TEST_KUBE_CA_FILE=$PKI/ca.crt
MCLOUD_TEST_KUBE_ADMIN_CERT_FILE=$PKI/admin.crt
MCLOUD_TEST_KUBE_ADMIN_KEY_FILE=$PKI/admin.key
MCLOUD_TEST_KUBE_DEV_CERT_FILE=$PKI/dev.crt
MCLOUD_TEST_KUBE_DEV_KEY_FILE=$PKI/dev.key
MCLOUD_TEST_KUBE_ADMIN_TOKEN_FILE=$PKI/admin.token
MCLOUD_TEST_KUBE_VIEWER_TOKEN_FILE=$PKI/viewer.token
MCLOUD_TEST_ETCD_ENDPOINT=http://127.0.0.1:$ETCD_PORT
EOF
  )
  mv -f "$STATE/kubeconfig.tmp" "$STATE/kubeconfig"
  mv -f "$STATE/kubeconfig-files.tmp" "$STATE/kubeconfig-files"
  mv -f "$STATE/env.tmp" "$STATE/env"
}

# ---------------------------------------------------------------- start / stop / status

read_ports() {
  API_PORT="" ETCD_PORT="" PEER_PORT=""
  [ -f "$STATE/ports" ] || return 0
  API_PORT=$(awk -F= '$1 == "API_PORT" { print $2 }' "$STATE/ports")
  ETCD_PORT=$(awk -F= '$1 == "ETCD_PORT" { print $2 }' "$STATE/ports")
  PEER_PORT=$(awk -F= '$1 == "PEER_PORT" { print $2 }' "$STATE/ports")
}

api_ready() {
  curl -fsS -o /dev/null --max-time 3 --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
    "https://127.0.0.1:${1:-$API_PORT}/readyz" 2>/dev/null
}

etcd_healthy() { curl -fsS --max-time 2 "http://127.0.0.1:$ETCD_PORT/health" 2>/dev/null | grep -q '"health":"true"'; }

# 0: both processes alive and /readyz answers 200 with the env file in place; 3: neither runs; 1: anything else.
bed_state() {
  read_ports
  local api etcd
  api=$(pid_of kube-apiserver "$BIN" || true)
  etcd=$(pid_of etcd "$ETCD_BIN" || true)
  if [ -z "$api" ] && [ -z "$etcd" ]; then return 3; fi
  if [ -n "$api" ] && [ -n "$etcd" ] && [ -n "$API_PORT" ] && [ -f "$STATE/env" ] && api_ready; then return 0; fi
  return 1
}

# start_apiserver NAME PORT CERT_DIR [FLAG...]: kube-apiserver on the bed's etcd, PKI and tokens, in the background
# (log logs/NAME.log, pid NAME.pid).
start_apiserver() {
  local name=$1 port=$2 certs=$3
  shift 3
  setsid "$BIN" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$port" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" "$@" \
    --tls-cert-file="$PKI/server.crt" --tls-private-key-file="$PKI/server.key" --cert-dir="$certs" \
    --client-ca-file="$PKI/ca.crt" --token-auth-file="$PKI/tokens.csv" --authorization-mode=RBAC \
    --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$PKI/sa.pub" \
    --service-account-signing-key-file="$PKI/sa.key" --service-cluster-ip-range=10.96.0.0/24 \
    --endpoint-reconciler-type=none \
    </dev/null >>"$LOGS/$name.log" 2>&1 8>&- 9>&- &
  echo $! >"$STATE/$name.pid"
}

lock_state() {
  mkdir -p "$STATE"
  chmod 700 "$STATE"
  touch "$STATE/.mcloud-testbed"
  exec 9>"$STATE/.lock"
  flock -w 1800 9 || die "another start/stop holds $STATE/.lock"
}

cmd_start() {
  lock_state
  local rc=0
  bed_state || rc=$?
  if [ $rc -eq 0 ]; then
    log "already running and ready at https://127.0.0.1:$API_PORT (env: $STATE/env)"
    cat "$STATE/env"
    return 0
  fi
  if [ $rc -eq 1 ]; then
    log "half running or not ready: restarting"
    stop_one kube-apiserver "$BIN"
    stop_one etcd "$ETCD_BIN"
  fi

  local t_start
  t_start=$(now)
  cmd_build
  ensure_packages etcd-server openssl curl
  [ -x "$ETCD_BIN" ] || die "$ETCD_BIN is missing (package etcd-server)"
  ensure_pki
  mkdir -p "$LOGS" "$STATE/etcd-data" "$STATE/apiserver-certs"
  chmod 700 "$STATE/etcd-data"

  read_ports
  TAKEN_PORTS=""
  ETCD_PORT=$(pick_port etcd "$ETCD_PORT"); TAKEN_PORTS="$ETCD_PORT"
  PEER_PORT=$(pick_port "etcd peers" "$PEER_PORT"); TAKEN_PORTS="$TAKEN_PORTS $PEER_PORT"
  if [ -n "${MCLOUD_TESTBED_API_PORT:-}" ]; then
    port_free "$MCLOUD_TESTBED_API_PORT" || die "MCLOUD_TESTBED_API_PORT=$MCLOUD_TESTBED_API_PORT is taken on 127.0.0.1"
    API_PORT=$MCLOUD_TESTBED_API_PORT
  else
    API_PORT=$(pick_port kube-apiserver "$API_PORT")
  fi
  printf 'API_PORT=%s\nETCD_PORT=%s\nPEER_PORT=%s\n' "$API_PORT" "$ETCD_PORT" "$PEER_PORT" >"$STATE/ports"

  local i t0
  t0=$(now)
  log "starting etcd on 127.0.0.1:$ETCD_PORT (data: $STATE/etcd-data)"
  echo "---- $(date -u +%Y-%m-%dT%H:%M:%SZ) start" >>"$LOGS/etcd.log"
  setsid "$ETCD_BIN" --name mcloud-testbed --data-dir "$STATE/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$PEER_PORT" \
    --initial-cluster "mcloud-testbed=http://127.0.0.1:$PEER_PORT" --logger zap --log-outputs stderr \
    </dev/null >>"$LOGS/etcd.log" 2>&1 8>&- 9>&- &
  echo $! >"$STATE/etcd.pid"
  for ((i = 0; i < 150; i++)); do  # 30 s
    etcd_healthy && break
    pid_of etcd "$ETCD_BIN" >/dev/null || [ $i -lt 5 ] || { show_logs "$LOGS/etcd.log"; rm -f "$STATE/etcd.pid"; die "etcd exited"; }
    sleep 0.2
  done
  etcd_healthy || { show_logs "$LOGS/etcd.log"; stop_one etcd "$ETCD_BIN"; die "etcd was not healthy within 30 s"; }
  log "etcd healthy after $(elapsed "$t0") s"

  local t1
  t1=$(now)
  log "starting kube-apiserver v$KUBE_VERSION on 127.0.0.1:$API_PORT"
  echo "---- $(date -u +%Y-%m-%dT%H:%M:%SZ) start" >>"$LOGS/kube-apiserver.log"
  start_apiserver kube-apiserver "$API_PORT" "$STATE/apiserver-certs"
  local deadline=$((SECONDS + READY_TIMEOUT))
  until api_ready; do
    if ! pid_of kube-apiserver "$BIN" >/dev/null && [ $((SECONDS + READY_TIMEOUT - deadline)) -ge 2 ]; then
      show_logs "$LOGS/kube-apiserver.log"
      rm -f "$STATE/kube-apiserver.pid"
      stop_one etcd "$ETCD_BIN"
      die "kube-apiserver exited before it was ready (log: $LOGS/kube-apiserver.log)"
    fi
    if [ $SECONDS -ge $deadline ]; then
      show_logs "$LOGS/kube-apiserver.log" "$LOGS/etcd.log"
      stop_one kube-apiserver "$BIN"
      stop_one etcd "$ETCD_BIN"
      die "kube-apiserver was not ready within $READY_TIMEOUT s (MCLOUD_TESTBED_TIMEOUT)"
    fi
    sleep 0.2
  done

  write_kubeconfigs "https://127.0.0.1:$API_PORT"
  log "kube-apiserver ready after $(elapsed "$t1") s"
  log "ready at https://127.0.0.1:$API_PORT, start took $(elapsed "$t_start") s (env: $STATE/env, kubeconfig: $STATE/kubeconfig)"
  cat "$STATE/env"
}

# ---------------------------------------------------------------- more clusters on the same etcd

# The API servers `clusters` starts: their names, one a line.
cluster_names() {
  local file
  for file in "$STATE"/cluster-*.pid; do
    [ -f "$file" ] || continue
    file=${file##*/cluster-}
    echo "${file%.pid}"
  done
}

# `clusters NAME...`: one more kube-apiserver per NAME, each a cluster of its own (etcd prefix /clusters/NAME, a port
# kept in clusters/ports), with the bed's PKI and tokens; then clusters/kubeconfig (a context per NAME, the admin
# token) and clusters/env (MCLOUD_TEST_KUBE_CLUSTERS_KUBECONFIG and one MCLOUD_TEST_KUBE_CLUSTER_<NAME> URL each).
cmd_clusters() {
  [ $# -gt 0 ] || die "usage: $0 clusters NAME..."
  local name port previous pending=() deadline
  for name in "$@"; do
    [[ "$name" =~ ^[a-z0-9][a-z0-9-]{0,40}$ ]] || die "cluster name $name: lowercase letters, digits and -, at most 41"
  done
  cmd_start >/dev/null
  lock_state
  read_ports
  mkdir -p "$STATE/clusters"
  touch "$STATE/clusters/ports"
  for name in "$@"; do
    pid_of "cluster-$name" "$BIN" >/dev/null && continue
    previous=$(awk -F= -v n="$name" '$1 == n { print $2 }' "$STATE/clusters/ports")
    TAKEN_PORTS="$API_PORT $ETCD_PORT $PEER_PORT $(awk -F= -v n="$name" '$1 != n { print $2 }' "$STATE/clusters/ports" | tr '\n' ' ')"
    port=$(pick_port "cluster $name" "$previous")
    { grep -v "^$name=" "$STATE/clusters/ports" || true; echo "$name=$port"; } >"$STATE/clusters/ports.tmp"
    mv -f "$STATE/clusters/ports.tmp" "$STATE/clusters/ports"
    mkdir -p "$STATE/clusters/$name-certs"
    log "starting cluster $name on 127.0.0.1:$port (etcd prefix /clusters/$name)"
    echo "---- $(date -u +%Y-%m-%dT%H:%M:%SZ) start" >>"$LOGS/cluster-$name.log"
    start_apiserver "cluster-$name" "$port" "$STATE/clusters/$name-certs" --etcd-prefix="/clusters/$name"
  done
  deadline=$((SECONDS + READY_TIMEOUT))
  for name in "$@"; do
    port=$(awk -F= -v n="$name" '$1 == n { print $2 }' "$STATE/clusters/ports")
    until api_ready "$port"; do
      pid_of "cluster-$name" "$BIN" >/dev/null || { show_logs "$LOGS/cluster-$name.log"; die "cluster $name exited (log: $LOGS/cluster-$name.log)"; }
      [ $SECONDS -lt $deadline ] || { show_logs "$LOGS/cluster-$name.log"; die "cluster $name was not ready within $READY_TIMEOUT s"; }
      sleep 0.3
    done
  done
  write_cluster_files
  cat "$STATE/clusters/env"
}

write_cluster_files() {
  local name port token ca
  token=$(cat "$PKI/admin.token")
  ca=$(b64 "$PKI/ca.crt")
  (
    umask 077
    {
      echo "# Written by scripts/testbed/kubernetes.sh clusters: a context per cluster, the admin token."
      echo "apiVersion: v1"
      echo "kind: Config"
      echo "clusters:"
      while IFS== read -r name port; do
        pid_of "cluster-$name" "$BIN" >/dev/null || continue
        printf -- '- name: %s\n  cluster:\n    server: https://127.0.0.1:%s\n    certificate-authority-data: %s\n' "$name" "$port" "$ca"
      done <"$STATE/clusters/ports"
      printf 'users:\n- name: admin-token\n  user:\n    token: %s\ncontexts:\n' "$token"
      while IFS== read -r name port; do
        pid_of "cluster-$name" "$BIN" >/dev/null || continue
        printf -- '- name: %s\n  context:\n    cluster: %s\n    user: admin-token\n' "$name" "$name"
      done <"$STATE/clusters/ports"
    } >"$STATE/clusters/kubeconfig.tmp"
    {
      echo "MCLOUD_TEST_KUBE_CLUSTERS_KUBECONFIG=$STATE/clusters/kubeconfig"
      while IFS== read -r name port; do
        pid_of "cluster-$name" "$BIN" >/dev/null || continue
        echo "MCLOUD_TEST_KUBE_CLUSTER_$(echo "$name" | tr 'a-z-' 'A-Z_')=https://127.0.0.1:$port"
      done <"$STATE/clusters/ports"
    } >"$STATE/clusters/env.tmp"
  )
  mv -f "$STATE/clusters/kubeconfig.tmp" "$STATE/clusters/kubeconfig"
  mv -f "$STATE/clusters/env.tmp" "$STATE/clusters/env"
}

cmd_stop_clusters() {
  [ -d "$STATE" ] || return 0
  local name
  for name in $(cluster_names); do stop_one "cluster-$name" "$BIN"; done
  [ ! -f "$STATE/clusters/ports" ] || write_cluster_files
}

cmd_stop() {
  if [ ! -d "$STATE" ]; then
    log "not running (no $STATE)"
    return 0
  fi
  lock_state
  cmd_stop_clusters
  stop_one kube-apiserver "$BIN"
  stop_one etcd "$ETCD_BIN"
  log "stopped"
}

cmd_status() {
  local rc=0 api etcd
  [ -d "$STATE" ] || { echo "stopped (no $STATE)"; return 3; }
  bed_state || rc=$?
  api=$(pid_of kube-apiserver "$BIN" || echo "-")
  etcd=$(pid_of etcd "$ETCD_BIN" || echo "-")
  case $rc in
    0) echo "running: kube-apiserver v$KUBE_VERSION pid $api at https://127.0.0.1:$API_PORT (ready), etcd pid $etcd at 127.0.0.1:$ETCD_PORT; env: $STATE/env" ;;
    3) echo "stopped" ;;
    *) echo "not ready: kube-apiserver pid $api, etcd pid $etcd (logs: $LOGS); run stop or start" ;;
  esac
  return $rc
}

case "${1:-}" in
  build) cmd_build ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  reset) cmd_reset ;;
  clusters) shift; cmd_clusters "$@" ;;
  stop-clusters) lock_state; cmd_stop_clusters ;;
  *)
    echo "usage: $0 build|start|stop|status|env|reset|clusters NAME...|stop-clusters" >&2
    exit 2
    ;;
esac
