#!/usr/bin/env bash
# Prints the tests a Swift Testing log shows started and never ended (passed or failed), one per line: what was
# still running when a run was stopped at its time limit (scripts/test.sh).
set -euo pipefail
if [ $# -ne 1 ] || [ ! -r "$1" ]; then echo "usage: scripts/unfinished-tests.sh LOG" >&2; exit 1; fi
awk '
  /^◇ Test .* started\.$/ && !/^◇ Test (case passing|run )/ {
    name = substr($0, length("◇ Test ") + 1)
    name = substr(name, 1, length(name) - length(" started."))
    running[name] = NR
  }
  /^(✔|✘) Test .* (passed|failed) after / {
    name = substr($0, length("✔ Test ") + 1)
    sub(/ (with [0-9]+ test cases? )?(passed|failed) after .*$/, "", name)
    delete running[name]
  }
  END { for (name in running) print running[name] "\t" name }
' "$1" | sort -n | cut -f 2-
