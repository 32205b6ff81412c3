#!/usr/bin/env bash
# Builds the GPU bundles of docs/gpu.md's tables for the device runner:
#   scripts/gpu-bundles.sh DIR [fuse-gpu options...]
# DIR/<workload>.<strategy> for the 12 examples and both strategies, DIR/x16/... for the
# six workloads at 16x the rows (no oracle samples: the interpreter is not run at 1 GiB
# sizes), DIR/half/<workload>.{bf16,f16} for four of them in half precision. Extra
# options go to every fuse-gpu call (e.g. --approx-exp=true). Then, on the device:
#   python3 tools/gpu/run.py DIR/*.* DIR/x16/* DIR/half/* --runs 30 --warmup 3 --json run.json
# BIN defaults to target/release.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-bundles.sh DIR [fuse-gpu options...]}
shift
bin=${BIN:-target/release}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$out/x16" "$out/half"
for f in examples/*.mlir; do
  n=$(basename "$f" .mlir)
  for s in inductor tvm; do
    "$bin/fuse-gpu" "$f" --strategy "$s" "$@" -o "$out/$n.$s"
  done
done
for w in seed_10op layernorm softmax rmsnorm two_reductions pointwise_chain_100; do
  scripts/scale-rows.py "examples/$w.mlir" 16 > "$scratch/$w.mlir"
  for s in inductor tvm; do
    "$bin/fuse-gpu" "$scratch/$w.mlir" --strategy "$s" --samples 0 "$@" -o "$out/x16/$w.$s"
  done
done
for w in softmax layernorm rmsnorm seed_10op; do
  sed 's/xf32>/xbf16>/g; s/tensor<f32>/tensor<bf16>/g' "examples/$w.mlir" > "$scratch/$w.bf16.mlir"
  sed 's/xf32>/xf16>/g; s/tensor<f32>/tensor<f16>/g' "examples/$w.mlir" > "$scratch/$w.f16.mlir"
  for t in bf16 f16; do
    "$bin/fuse-gpu" "$scratch/$w.$t.mlir" "$@" -o "$out/half/$w.$t"
  done
done
echo "gpu-bundles: $(find "$out" -name manifest.json | wc -l) bundles in $out"
