#!/usr/bin/env bash
# Optional comparison, beside the tests: plans every bundled example and every benchmark instance of the shared
# bench (../shared/bench, or MCLOUD_BENCH_DIR: instances with reference costs, and the independent checker
# check.py), prints the planner benchmark table, and has the checker verify each placement and recompute its cost.
# A clone of the repository alone does not have that folder; the project's own tests do not need it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bench=${MCLOUD_BENCH_DIR:-$root/../shared/bench}
if [ ! -f "$bench/check.py" ] || [ ! -d "$bench/instances" ]; then
  echo "check-placements: the shared benchmark is not here: no $bench/check.py and instances/ (CI puts shared/ beside the clone; elsewhere set MCLOUD_BENCH_DIR). Nothing was checked." >&2
  exit 1
fi
scripts/install-deps.sh build python
source scripts/toolchain.sh
source scripts/age-identity.sh

# PyYAML for the checker, in a venv kept outside the checkout and keyed by the Python version.
python_version=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
venv=${XDG_CACHE_HOME:-$HOME/.cache}/mcloud/venv-py$python_version
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import yaml' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet pyyaml
fi

swift build -c release --product mcloud
swift build -c release --product mcloud-bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

.build/release/mcloud-bench plan "$bench"/instances/*/ --out "$work/bench" --check "$venv/bin/python" "$bench/check.py"

failed=0
check() { # DIR PLACEMENT.json
  local output
  output=$("$venv/bin/python" "$bench/check.py" "$1" "$2" --quiet --strict-cost) || { echo "$output"; failed=1; return; }
  echo "  $(basename "$1"): $(tail -n 2 <<<"$output" | tr '\n' ' ')"
}
echo "Checker on the benchmark placements:"
for instance in "$bench"/instances/*/; do
  name=$(basename "$instance")
  check "$instance" "$work/bench/$name.json"
done
echo "Checker on the bundled examples:"
for application in Manifests/*/; do
  name=$(basename "$application")
  mkdir -p "$work/examples/$name"
  ln -s "$root/Providers" "$work/examples/$name/Providers"
  # Policies gate pipelines and take no part in placement; the checker knows only the placement kinds.
  "$venv/bin/python" - "$application" "$work/examples/$name/Manifests" <<'PY'
import pathlib, sys, yaml
source, target = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
target.mkdir()
for path in sorted(source.glob("*.yaml")):
    documents = [d for d in yaml.safe_load_all(path.read_text()) if d and d.get("kind") != "Policy"]
    if documents:
        (target / path.name).write_text(yaml.safe_dump_all(documents, sort_keys=False))
PY
  .build/release/mcloud plan --json -f "$application" --providers Providers \
    | "$venv/bin/python" -c 'import json, sys; p = json.load(sys.stdin)["placement"]; p["cost"] = p["cost"]["monthly"]; json.dump(p, sys.stdout)' \
    > "$work/examples/$name.json"
  check "$work/examples/$name" "$work/examples/$name.json"
done
exit $failed
