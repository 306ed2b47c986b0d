#!/usr/bin/env bash
# Installs what mcloud needs, builds it, and runs it on every bundled example application.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/toolchain.sh
swift build -c release --product mcloud
for application in Manifests/*/; do
  echo "== ${application%/}"
  .build/release/mcloud validate -f "${application%/}" --providers Providers
done
