#!/usr/bin/env bash
# Builds every target with warnings as errors, starts the test beds the integration tests talk to (a real
# kube-apiserver, PostgreSQL, moto for AWS, Debian's OpenStack, Debian 12 system containers that boot the database
# VMs' user data, network namespaces that stand for clouds), and runs the whole test suite. The first run on a machine builds kube-apiserver from Debian's
# source (about 10 minutes; cached), installs the OpenStack packages and moto from PyPI, and debootstraps the
# containers' root and their package mirror (about 4 minutes; cached). The beds keep running afterwards, so the
# next run starts at once; scripts/testbed/stop-all.sh stops them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build test
scripts/testbed/kubernetes.sh start >/dev/null
scripts/testbed/postgres.sh start >/dev/null
scripts/testbed/moto.sh start >/dev/null
scripts/testbed/openstack.sh up >/dev/null
scripts/testbed/openstack.sh sweep
scripts/testbed/container.sh start >/dev/null
scripts/testbed/network.sh start >/dev/null
source scripts/toolchain.sh
swift build --build-tests -Xswiftc -warnings-as-errors
# Line-buffered (a pipe would hold the runner's output in blocks, so the tail of a stopped run lied about where it
# stood) and kept, so that a run stopped at its limit (MCLOUD_TEST_TIME_LIMIT seconds, within CI's 90 minutes) names
# the tests still running. The beds' own waits end earlier: a stuck program is killed at its time-out
# (Tests/MCloudTestSupport/Command.swift) and fails its test.
log=$(mktemp /tmp/mcloud-test.XXXXXX.log)
started=$(mktemp /tmp/mcloud-test-started.XXXXXX)
limit=${MCLOUD_TEST_TIME_LIMIT:-3600}
status=0
# At a terminal the tests stay in its foreground, so that Ctrl-C reaches them (timeout otherwise gives them a process
# group of their own, which it can stop whole: what CI needs).
foreground=()
[ ! -t 0 ] || foreground=(--foreground)
timeout "${foreground[@]}" --kill-after=30 "$limit" stdbuf -oL -eL swift test -Xswiftc -warnings-as-errors "$@" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
  echo "test.sh: the tests ran past their limit of $limit s (MCLOUD_TEST_TIME_LIMIT) and were stopped; still running:" >&2
  scripts/unfinished-tests.sh "$log" | sed 's/^/  /' >&2
fi
rm -f "$log"
# Readings of a running container that failed before one succeeded (docs/testbeds.md, "A running container taken for
# a stopped one"): said, so that their cause can be found.
misreads=${MCLOUD_TESTBED_CONTAINER_DIR:-/tmp/mcloud-testbed/container}/misreads.log
if [ -s "$misreads" ] && [ "$misreads" -nt "$started" ]; then
  echo "test.sh: the container bed misread a running container (the last lines of $misreads):" >&2
  tail -n 20 "$misreads" | sed 's/^/  /' >&2
fi
rm -f "$started"
exit "$status"
