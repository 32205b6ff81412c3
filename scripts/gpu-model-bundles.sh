#!/usr/bin/env bash
# Builds GPU bundles of corpus models for the device runner:
#   scripts/gpu-model-bundles.sh DIR [ARCHIVE ...]
# DIR/<model>.<strategy> for each archive and each of STRATEGIES (default "inductor
# tvm"; e.g. STRATEGIES="inductor tvm tvm-folded ascend ascend-mindspore"; an archive
# fuse-import refuses is skipped with its located error) (default archives: the corpus models
# whose TVM decisions use Relax's FoldConstant, split, select and reshape rules, from
# test/Models/Inputs/tvm/), each with oracle samples. Then, on the device:
#   python3 tools/gpu/run.py DIR/* --check-only --json check.json
# BIN defaults to target/release.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-model-bundles.sh DIR [ARCHIVE ...]}
shift
bin=${BIN:-target/release}
archives=("$@")
if [ ${#archives[@]} -eq 0 ]; then
  for m in bert roberta gpt2 llama bloom t5_encoder mpnet opt lstm_cell vit swin levit; do
    archives+=("test/Models/Inputs/tvm/$m.pt2")
  done
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$out"
for a in "${archives[@]}"; do
  n=$(basename "$a" .pt2)
  if ! "$bin/fuse-import" "$a" -o "$scratch/$n.mlir"; then
    echo "gpu-model-bundles: skipped $a" >&2
    continue
  fi
  for s in ${STRATEGIES:-inductor tvm}; do
    "$bin/fuse-gpu" "$scratch/$n.mlir" --strategy "$s" -o "$out/$n.$s"
  done
done
echo "gpu-model-bundles: $(find "$out" -name manifest.json | wc -l) bundles in $out"
