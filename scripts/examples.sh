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
# Database VMs with clients derive their TLS and passwords from the operator's age identity: a throwaway one when
# none is configured (docs/connectivity.md, "Secrets").
if [ -z "${MCLOUD_AGE_KEY_FILE:-}${SOPS_AGE_KEY_FILE:-}" ] && [ ! -e "$HOME/.config/mcloud/age.key" ]; then
  MCLOUD_AGE_KEY_FILE=$(mktemp -d)/age.key
  export MCLOUD_AGE_KEY_FILE
  age-keygen -o "$MCLOUD_AGE_KEY_FILE" 2>/dev/null
fi
.build/release/mcloud plan -f Manifests/retail-bank --providers Providers
