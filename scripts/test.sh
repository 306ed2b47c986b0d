#!/usr/bin/env bash
# Builds every target with warnings as errors, starts the test beds the integration tests talk to, and runs the
# whole test suite. The first run on a machine builds kube-apiserver from Debian's source (5-10 minutes; cached).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/testbed/kubernetes.sh start >/dev/null
source scripts/toolchain.sh
swift build --build-tests -Xswiftc -warnings-as-errors
swift test -Xswiftc -warnings-as-errors "$@"
