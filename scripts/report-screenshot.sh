#!/usr/bin/env bash
# Makes the README's picture of the report again: `mcloud report` of the retail bank (placed without state or
# credentials), opened in headless Chromium with the network off, its placement map saved as a PNG.
#
#   scripts/report-screenshot.sh [PNG]     default: docs/images/report-retail-bank.png
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/images/report-retail-bank.png}
scripts/install-deps.sh build test
source scripts/toolchain.sh
swift build -c release --product mcloud
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.build/release/mcloud report -f Manifests/retail-bank --providers Providers --out "$work/report.html"
mkdir -p "$(dirname "$out")"
/usr/bin/python3 scripts/headless_page.py "file://$work/report.html" --out "$work/page.json" --width 1440 --element "#map" "$out"
/usr/bin/python3 - "$work/page.json" <<'PY'
import json, sys
page = json.load(open(sys.argv[1]))
problems = page["console"] + page["exceptions"] + page["log"] + page["failedRequests"]
if problems or 'data-ready="true"' not in page["dom"]:
    sys.exit("report-screenshot: the page did not load cleanly: %s" % problems[:5])
PY
echo "report-screenshot: wrote $out"
