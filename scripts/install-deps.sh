#!/usr/bin/env bash
# Installs the Debian packages a task needs, only those missing (with sudo when not root):
#
#   scripts/install-deps.sh [GROUP...]        default: build
#   scripts/install-deps.sh --list [GROUP...] print the packages instead
#
#   build   the headers mcloud builds against (libyaml, libcurl, OpenSSL, libpq), pkg-config, Graphviz, which
#           draws `mcloud graph --format svg|html`, and age, whose age-keygen makes the operator's identity that
#           database VMs' TLS and passwords are derived from (examples.sh makes a throwaway one)
#   test    what the test suite runs beside the test beds: python3 (the tests' fixture servers), openssl (the
#           tests' certificates) and ca-certificates (the system store a VM's CAs are compared with), chromium (the
#           report test opens the HTML report headless), age and
#           python3-cryptography with python3-yaml (the secrets tests' age interop and independent SOPS reader),
#           prometheus (its promtool checks `status --prometheus`'s metrics and docs/alerts/mcloud-rules.yml),
#           clickhouse-client (the ClickHouse access bed test's client)
#   python  python3-venv, for the venvs of the optional scripts (check-placements.sh, validate-rendered.sh)
#
# scripts/examples.sh installs build; scripts/test.sh build and test; every test bed installs its own packages when
# it starts (the PACKAGES of each scripts/testbed/*.sh). So the README's commands and .ci/run, which only calls them,
# install the same packages.
set -euo pipefail
ME="install-deps"
source "$(dirname "${BASH_SOURCE[0]}")/packages.sh"

packages_of() {
  case "$1" in
    build) echo libyaml-dev libcurl4-openssl-dev libssl-dev libpq-dev zlib1g-dev pkg-config graphviz age ;;
    test) echo python3 openssl ca-certificates chromium age python3-cryptography python3-yaml prometheus clickhouse-client ;;
    python) echo python3 python3-venv ;;
    *) echo "$ME: error: unknown group '$1' (build, test, python)" >&2; return 1 ;;
  esac
}

list=0
if [ "${1:-}" = "--list" ]; then list=1; shift; fi
[ $# -gt 0 ] || set -- build
packages=()
for group in "$@"; do
  names=$(packages_of "$group")
  read -r -a found <<<"$names"
  packages+=("${found[@]}")
done
if [ $list -eq 1 ]; then
  printf '%s\n' "${packages[@]}"
else
  ensure_packages "${packages[@]}"
fi
