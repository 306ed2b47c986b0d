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

# A daemon keeps none of its caller's descriptors beyond the standard three: a caller that waits for the end of
# its pipes or sockets (a $(...) around boot, a test runner watching its child) would otherwise wait for the
# daemon's end.
close_inherited_fds() {
  local fd
  for fd in /proc/"$BASHPID"/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi
  done
}

# started_already: when bed_state says the bed runs, rewrites its env file (a start from another checkout, a clone
# since deleted or a chroot's path, names this one's script), prints it and succeeds; else fails with bed_state's
# code in BED_STATE.
started_already() {
  BED_STATE=0
  bed_state || BED_STATE=$?
  [ "$BED_STATE" -eq 0 ] || return 1
  write_env
  log "already started (env: $STATE/env)"
  cat "$STATE/env"
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
