#!/usr/bin/env bash
# Robustness sweep: every fuse-opt pass alone, and every strategy through every target's
# lowering, on every .mlir file of test/ and examples/ (or the files given):
#   scripts/pass-sweep.sh [--timeout SECONDS] [FILE.mlir...]
# A run may fail with located diagnostics (exit 1: most passes refuse most inputs); a
# finding is anything else: a crash or another exit status, a Rust panic, an LLVM
# assertion, "processing failed without a diagnostic", an "internal error" diagnostic,
# or a run longer than the timeout (default 60 s: an exponential or quadratic blow-up,
# e.g. the x*x chains of test/Conversion/LowerLoopToCpu/shared-reads.mlir before the
# code generators reused recomputed values). One line per finding; exit 1 if any.
# BIN defaults to target/release (build it first: cargo build --release).
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-target/release}
timeout=60
if [[ "${1:-}" == "--timeout" ]]; then
  timeout=${2:?--timeout needs seconds}
  shift 2
fi
if [[ $# -gt 0 ]]; then
  files=("$@")
else
  mapfile -t files < <(find test examples -name '*.mlir' | sort)
fi
opt="$bin/fuse-opt"
[[ -x "$opt" ]] || { echo "pass-sweep: $opt is missing (cargo build --release)" >&2; exit 1; }
# Every pass fuse-opt lists (driver options excluded), alone.
mapfile -t passes < <("$opt" --help | awk '/^  --[a-z]/{print $1}' |
  grep -vE '^--(split-input-file|verify-diagnostics|pass-pipeline|mlir-|emit-bytecode|fusion-|target|help|version)')
pre="--aten-decompose --lower-aten-to-loop"
pipelines=("${passes[@]}"
  "$pre --inline-pointwise --inductor-fuse"
  "$pre --tvm-fuse-ops"
  "$pre --ascend-autofuse"
  "$pre --ascend-autofuse=mode=mindspore"
  "$pre --fuse=strategy=inductor --lower-loop-to-cpu"
  "$pre --fuse=strategy=tvm --lower-loop-to-cpu=parallel=true --cpu-codegen-choices"
  "$pre --fuse=strategy=inductor --lower-loop-to-tile --tile-warp-variants --lower-tile-to-gpu"
  "$pre --tvm-fuse-ops --lower-loop-to-tile --lower-tile-to-gpu"
  "$pre --fuse=strategy=inductor --lower-loop-to-ascend --emit-ascendc"
  "$pre --tvm-fuse-ops --lower-loop-to-ascend"
  "$pre --spyre-assign-layouts --spyre-divide-work --spyre-plan-scratchpad --spyre-lower-to-ktir"
  "$pre --unroll-small-reductions --split-reductions --print-memory-deps --print-post-dominators --annotate-op-pattern"
  "--fuse-attention --fuse-rnn-cells --pointless-cumsum $pre --fuse=strategy=inductor")
findings=0
runs=0
for f in "${files[@]}"; do
  for p in "${pipelines[@]}"; do
    # shellcheck disable=SC2086 # a pipeline is several words
    out=$(timeout "$timeout" "$opt" --split-input-file "$f" $p -o /dev/null 2>&1)
    rc=$?
    runs=$((runs + 1))
    why=""
    if [[ $rc -eq 124 ]]; then
      why="over ${timeout} s"
    elif [[ $rc -gt 1 ]]; then
      why="exit status $rc"
    elif grep -qE 'panicked|without a diagnostic|Assertion|LLVM ERROR|Stack dump|internal error' <<<"$out"; then
      why=$(grep -m1 -E 'panicked|without a diagnostic|Assertion|LLVM ERROR|Stack dump|internal error' <<<"$out")
    fi
    if [[ -n "$why" ]]; then
      echo "$f [$p]: $why"
      findings=$((findings + 1))
    fi
  done
done
echo "pass-sweep: ${#files[@]} files x ${#pipelines[@]} pipelines ($runs runs), $findings findings"
[[ $findings -eq 0 ]]
