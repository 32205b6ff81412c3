#!/usr/bin/env bash
# Writes the output of every fusion pipeline (and the CPU lowering) on every bundled
# example and every importable test archive (test/Import, test/Models) into DIR, one file
# per input x pipeline, and the device targets' artefacts: Spyre's KTIR, the Ascend C of
# three strategies, and the GPU bundles (kernels.ptx, manifest.json; fuse-gpu, inductor
# and tvm). DEVICES=0 skips the device artefacts (seconds instead of minutes).
# Used to show that a refactoring changes no output:
#   scripts/snapshot-outputs.sh /tmp/before   # on the old commit
#   scripts/snapshot-outputs.sh /tmp/after    # on the new one
#   diff -r /tmp/before /tmp/after            # must print nothing
# BIN defaults to target/debug (after `make build`).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/snapshot-outputs.sh DIR}
bin=${BIN:-target/debug}
mkdir -p "$out"

pipelines=(
  "unfused:--aten-decompose --lower-aten-to-loop"
  "inductor:--aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --fusion-report=-"
  "tvm:--aten-decompose --lower-aten-to-loop=materialize-views=true --tvm-fuse-ops --fusion-report=-"
  "tvm-folded:--aten-decompose --lower-aten-to-loop --tvm-fuse-ops"
  "fuse-tvm:--aten-decompose --lower-aten-to-loop --fuse=strategy=tvm"
  "inductor-cpu:--aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu"
  "tvm-cpu:--aten-decompose --lower-aten-to-loop=materialize-views=true --tvm-fuse-ops --lower-loop-to-cpu"
)

# Imported archives go to one fixed folder, so diagnostics name the same paths in
# every snapshot.
imports=${TMPDIR:-/tmp}/fuselab-snapshot-imports
mkdir -p "$imports"
inputs=()
for f in examples/*.mlir; do inputs+=("$f"); done
for a in test/Import/Inputs/*.pt2 test/Models/Inputs/*.pt2; do
  name=$(basename "$a" .pt2)
  case "$name" in bad_*) continue ;; esac
  # An archive the importer refuses (located) is skipped; its message is kept.
  if "$bin/fuse-import" "$a" -o "$imports/import_$name.mlir" 2> "$out/import_$name.import.err"; then
    inputs+=("$imports/import_$name.mlir")
  fi
done

for input in "${inputs[@]}"; do
  name=$(basename "$input" .mlir)
  for entry in "${pipelines[@]}"; do
    label=${entry%%:*}
    flags=${entry#*:}
    # shellcheck disable=SC2086
    if ! "$bin/fuse-opt" "$input" $flags > "$out/$name.$label.out" 2> "$out/$name.$label.err"; then
      echo "exit $?" >> "$out/$name.$label.err"
    fi
  done
done
if [ "${DEVICES:-1}" != 0 ]; then
  # The device targets' own stages (`--emit=STAGE`, Target::stages) after a strategy.
  spyre="--target=spyre --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --emit=ktir"
  ascend=(
    "inductor:--inline-pointwise --inductor-fuse"
    "ascend:--inline-pointwise --fuse=strategy=ascend"
    "tvm:--tvm-fuse-ops"
  )
  for input in "${inputs[@]}"; do
    name=$(basename "$input" .mlir)
    # shellcheck disable=SC2086
    "$bin/fuse-opt" "$input" $spyre > "$out/$name.spyre-ktir.out" 2> "$out/$name.spyre-ktir.err" \
      || echo "exit $?" >> "$out/$name.spyre-ktir.err"
    for entry in "${ascend[@]}"; do
      label=${entry%%:*}
      flags=${entry#*:}
      # shellcheck disable=SC2086
      "$bin/fuse-opt" "$input" --target=ascend --aten-decompose --lower-aten-to-loop $flags \
        --emit=ascendc \
        > "$out/$name.ascend-c-$label.out" 2> "$out/$name.ascend-c-$label.err" \
        || echo "exit $?" >> "$out/$name.ascend-c-$label.err"
    done
    for strategy in inductor tvm; do
      bundle=$out/$name.gpu-$strategy
      if "$bin/fuse-gpu" "$input" --strategy "$strategy" --samples 16 -o "$bundle" \
        > "$bundle.err" 2>&1; then
        # The bundle's files, flat (the manifest names the input, at a fixed path).
        mv "$bundle/kernels.ptx" "$bundle.ptx"
        mv "$bundle/manifest.json" "$bundle.manifest.json"
        rm -rf "$bundle"
      else
        echo "exit $?" >> "$bundle.err"
      fi
    done
  done
fi
echo "snapshot-outputs: $(ls "$out" | wc -l) files in $out"
