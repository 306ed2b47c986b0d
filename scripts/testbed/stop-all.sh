#!/usr/bin/env bash
# Stops every test bed that runs (scripts/test.sh starts them and leaves them running, so the next run starts in
# seconds). Each bed stops only the processes it started, by PID file; caches and state folders stay, so a later
# `start` is quick. Beds are shared by everyone on the machine: stop them only when no one's tests need them.
#
#   scripts/testbed/stop-all.sh
set -uo pipefail
cd "$(dirname "$0")"
failed=0
for bed in kubernetes postgres moto openstack container network; do
  [ -x "$bed.sh" ] || continue
  ./"$bed.sh" status >/dev/null 2>&1
  case $? in
    3) echo "$bed: not running" ;;
    *) if ./"$bed.sh" stop >/dev/null; then echo "$bed: stopped"; else echo "$bed: stop failed" >&2; failed=1; fi ;;
  esac
done
exit $failed
