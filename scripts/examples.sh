#!/usr/bin/env bash
# Installs what mcloud needs, builds it, validates every bundled example and plans the retail bank.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
source scripts/toolchain.sh
swift build -c release --product mcloud
for application in Manifests/*/; do
  .build/release/mcloud validate -f "${application%/}" --providers Providers
done
echo
source scripts/age-identity.sh
.build/release/mcloud plan -f Manifests/retail-bank --providers Providers
