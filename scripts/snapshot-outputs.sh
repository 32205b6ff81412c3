#!/usr/bin/env bash
# Writes the output of every fusion pipeline (and the CPU lowering) on every bundled
# example and every importable test archive into DIR, one file per input x pipeline.
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
for a in test/Import/Inputs/*.pt2; do
  name=$(basename "$a" .pt2)
  case "$name" in bad_*) continue ;; esac
  "$bin/fuse-import" "$a" -o "$imports/import_$name.mlir"
  inputs+=("$imports/import_$name.mlir")
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
echo "snapshot-outputs: $(ls "$out" | wc -l) files in $out"
