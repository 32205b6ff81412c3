#!/usr/bin/env bash
# Differential fuzzing on the Spyre target's simulator:
#   scripts/spyre-fuzz.sh COUNT SEED [DIR]
# writes COUNT fuse-fuzz graphs (seeds SEED..) and runs each with
# `fuse-run --target spyre --jit` (every strategy, its result laid out, divided and
# planned, then simulated) against the aten oracle. A graph whose layout is infeasible on
# Spyre (a located "cannot be laid out on Spyre" error, e.g. a reduction along the stick
# read along a stick) is counted as refused, not failed; any other error or mismatch is a
# failure and the graph is kept in DIR (default: spyre-fuzz-failures). BIN defaults to
# target/release. Exit status 1 if any graph failed.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:?usage: scripts/spyre-fuzz.sh COUNT SEED [DIR]}
seed=${2:?usage: scripts/spyre-fuzz.sh COUNT SEED [DIR]}
out=${3:-spyre-fuzz-failures}
bin=${BIN:-target/release}
graphs=$(mktemp -d)
"$bin/fuse-fuzz" --emit "$graphs" --count "$count" --seed "$seed" > /dev/null
passed=0 refused=0 failed=0
for g in "$graphs"/*.mlir; do
  log="$graphs/$(basename "$g" .mlir).log"
  if "$bin/fuse-run" "$g" --target spyre --jit > "$log" 2>&1; then
    passed=$((passed + 1))
  elif ! grep -E "FAIL|ERROR" "$log" | grep -qv "cannot be laid out on Spyre"; then
    refused=$((refused + 1))
  else
    failed=$((failed + 1))
    mkdir -p "$out"
    cp "$g" "$log" "$out/"
    echo "$(basename "$g"): $(grep -E "FAIL|ERROR" "$log" | grep -v "cannot be laid out on Spyre" | head -1 | cut -c1-300)"
  fi
done
echo "spyre-fuzz: $count graphs, $passed passed, $refused refused (no Spyre layout), $failed failed"
[ "$failed" -eq 0 ]
