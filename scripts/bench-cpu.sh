#!/usr/bin/env bash
# Execution time of every strategy on every shared workload on the CPU JIT, next to the
# unfused pipeline and the copy rooflines (docs/performance.md). Writes one JSON file per
# workload into ${OUT:-target/bench-cpu}. Usage: scripts/bench-cpu.sh [runs] [extra fuse-run flags]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}"
shift || true
out="${OUT:-target/bench-cpu}"
mkdir -p "$out"
cargo build --release --bin fuse-run
for f in examples/*.mlir; do
  name="$(basename "$f" .mlir)"
  ./target/release/fuse-run "$f" --bench --no-check --runs "$runs" --bench-json "$out/$name.json" "$@"
done
