#!/usr/bin/env bash
# Builds GPU bundles of random graphs for the device runner:
#   scripts/gpu-fuzz.sh COUNT SEED DIR [fuse-gpu options...]
# writes COUNT fuse-fuzz graphs (seeds SEED..) and, for every fusion strategy (the
# table fuse-opt --help lists; STRATEGIES="a b" picks some), a bundle each (DIR/<seed>.<strategy>) with the oracle's samples; extra options go to
# every fuse-gpu call (e.g. --approx-exp=true). Then, on the device:
#   python3 tools/gpu/run.py DIR/* --runs 1 --warmup 0 --no-inductor
# BIN defaults to target/release.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:?usage: scripts/gpu-fuzz.sh COUNT SEED DIR}
seed=${2:?usage: scripts/gpu-fuzz.sh COUNT SEED DIR}
out=${3:?usage: scripts/gpu-fuzz.sh COUNT SEED DIR}
shift 3
bin=${BIN:-target/release}
strategies=${STRATEGIES:-$("$bin/fuse-opt" --help | awk '/^FUSION STRATEGIES/{f=1;next} f&&/^$/{exit} f&&/^  [a-z]/{print $1}')}
graphs=$(mktemp -d)
"$bin/fuse-fuzz" --emit "$graphs" --count "$count" --seed "$seed"
failed=0
for g in "$graphs"/*.mlir; do
  s=$(basename "$g" .mlir)
  for strategy in $strategies; do
    if ! "$bin/fuse-gpu" "$g" --strategy "$strategy" "$@" -o "$out/$s.$strategy" 2> "$graphs/$s.$strategy.err"; then
      echo "$s $strategy: fuse-gpu failed: $(head -c 300 "$graphs/$s.$strategy.err")"
      cp "$g" "$out/$s.mlir" 2>/dev/null || true
      failed=$((failed + 1))
    fi
  done
done
echo "gpu-fuzz: $count graphs, $failed compilations failed"
rm -rf "$graphs"
