#!/usr/bin/env bash
# The chaos harness (docs/reliability.md): starts the test beds, builds mcloud, and runs scripts/testbed/chaos.py
# with the arguments given (--quick for CI's small counts; --help for all). Prints a table; exit 1 when a count
# that must be 0 is not (a crash, a duplicate, an orphan, an unloadable state, a leak, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
# --help needs no test bed: answer it before installing or starting anything.
for arg in "$@"; do
  case "$arg" in -h | --help) exec python3 scripts/testbed/chaos.py --help ;; esac
done
scripts/install-deps.sh build test
scripts/testbed/kubernetes.sh start >/dev/null
scripts/testbed/postgres.sh start >/dev/null
scripts/testbed/moto.sh start >/dev/null
scripts/testbed/openstack.sh up >/dev/null
source scripts/toolchain.sh
swift build --product mcloud -Xswiftc -warnings-as-errors >/dev/null
# The harness's five clusters run beside the bed's; stopped after, as they would slow whatever runs next.
rc=0
python3 scripts/testbed/chaos.py "$@" || rc=$?
scripts/testbed/kubernetes.sh stop-clusters >/dev/null
exit "$rc"
