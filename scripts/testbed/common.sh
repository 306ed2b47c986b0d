# Sourced by the test bed scripts (after they set ME and, where they keep one, STATE): what every bed does alike, and
# ensure_packages (../packages.sh), with which each bed installs the Debian packages it names.

source "$(dirname "${BASH_SOURCE[0]}")/../packages.sh"

log() { printf '%s: %s\n' "$ME" "$*" >&2; }
die() { printf '%s: error: %s\n' "$ME" "$*" >&2; exit 1; }

# Where builds and venvs are cached, outside the checkout and keyed by version by each script.
default_cache_root() {
  if [ "$(id -u)" -eq 0 ] || { mkdir -p /var/cache/mcloud 2>/dev/null && [ -w /var/cache/mcloud ]; }; then
    echo /var/cache/mcloud
  else
    echo "${XDG_CACHE_HOME:-$HOME/.cache}/mcloud"
  fi
}

# `env`: the env file of a running bed (the script's bed_state says whether it runs).
cmd_env() {
  local rc=0
  bed_state || rc=$?
  [ $rc -eq 0 ] || die "not running (scripts/testbed/$(basename "$0") start)"
  cat "$STATE/env"
}

# `reset`: stop, then delete the state folder, but only one a bed made (it carries the marker).
cmd_reset() {
  cmd_stop
  if [ -d "$STATE" ]; then
    [ -f "$STATE/.mcloud-testbed" ] || die "$STATE has no .mcloud-testbed marker; not deleting it"
    exec 9>&-
    rm -rf "$STATE"
    log "deleted $STATE"
  fi
}
