#!/usr/bin/env bash
# Every imported model of test/Models/Inputs (and Inputs/tvm/) through every strategy and
# every target's lowering, checked by execution:
#   scripts/model-sweep.sh [--timeout SECONDS] [ARCHIVE.pt2...]
# Per archive: fuse-import; `fuse-run --jit` on the CPU, `--target spyre --jit` and
# `--target ascend --jit` (each runs every strategy, on torch's own inputs and outputs when
# the archive has a NAME.expect.json beside it, else on seeded inputs against the aten
# interpreter); `fuse-gpu --validate` of a bundle per strategy fuse-gpu accepts (the
# device run is tools/gpu/run.py's). One line per run: ok, refused (exit 1, every
# diagnostic located: `file:line:col: error:`, after the strategy's name in fuse-run), or a finding: a wrong answer (a FAIL
# line), a crash or another exit status, a panic, an LLVM error, an unlocated
# diagnostic, or a run past the timeout (default 300 s). Exit 1 if any finding.
# BIN defaults to target/release (build it first: cargo build --release -p fuselab-tools).
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-target/release}
timeout=300
if [[ "${1:-}" == "--timeout" ]]; then
  timeout=${2:?--timeout needs seconds}
  shift 2
fi
if [[ $# -gt 0 ]]; then
  archives=("$@")
else
  mapfile -t archives < <(ls test/Models/Inputs/*.pt2 test/Models/Inputs/tvm/*.pt2)
fi
for t in fuse-import fuse-run fuse-gpu; do
  [[ -x "$bin/$t" ]] || { echo "model-sweep: $bin/$t is missing" >&2; exit 1; }
done
# The strategies fuse-run's --help lists (its one list), `all` left out.
mapfile -t strategies < <("$bin/fuse-run" --help |
  sed -n 's/^  --strategy <s> *\([^(]*\)(default.*/\1/p' | tr '|' '\n' | tr -d ' ;' |
  grep -v '^all$' | grep -v '^$')
[[ ${#strategies[@]} -gt 0 ]] || { echo "model-sweep: no strategy list in fuse-run --help" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
findings=0
runs=0
refusals=0
# verdict RC OUTPUT: prints ok, refused (located) or the finding.
verdict() {
  local rc=$1 out=$2 bad
  if [[ $rc -eq 124 ]]; then
    echo "FINDING over ${timeout} s"
  elif [[ $rc -gt 1 ]]; then
    echo "FINDING exit status $rc"
  elif bad=$(grep -m1 -E 'panicked|without a diagnostic|Assertion|LLVM ERROR|Stack dump|internal error' <<<"$out"); then
    echo "FINDING $bad"
  elif bad=$(grep -m1 -E ' FAIL$' <<<"$out"); then
    echo "FINDING wrong answer: ${bad# }"
  elif [[ $rc -eq 0 ]]; then
    echo ok
  elif bad=$(grep -E 'error' <<<"$out" | grep -m1 -vE '^ *([a-z-]+ ERROR: )?[^ :]+:[0-9]+:[0-9]+: error: '); then
    echo "FINDING unlocated: $bad"
  else
    echo "refused: $(grep -m1 -E ': error: ' <<<"$out" | sed 's/^.*[0-9]: error: //' | cut -c1-120)"
  fi
}
record() {
  local what=$1 v=$2
  runs=$((runs + 1))
  case $v in
    FINDING*) findings=$((findings + 1)) ;;
    refused*) refusals=$((refusals + 1)) ;;
  esac
  echo "$what: $v"
}
for a in "${archives[@]}"; do
  name=$(basename "$a" .pt2)
  m="$work/$name.mlir"
  out=$(timeout "$timeout" "$bin/fuse-import" "$a" -o "$m" 2>&1)
  v=$(verdict $? "$out")
  if [[ $v != ok ]]; then
    record "$a [import]" "$v"
    continue
  fi
  expect=()
  [[ -f "${a%.pt2}.expect.json" ]] && expect=(--expect "${a%.pt2}.expect.json")
  for target in cpu spyre ascend; do
    out=$(timeout "$timeout" "$bin/fuse-run" "$m" "${expect[@]}" --target "$target" --jit 2>&1)
    record "$a [fuse-run --target $target --jit]" "$(verdict $? "$out")"
  done
  for s in "${strategies[@]}"; do
    [[ $s == unfused ]] && continue
    rm -rf "$work/bundle"
    out=$(timeout "$timeout" "$bin/fuse-gpu" "$m" --strategy "$s" --samples 64 -o "$work/bundle" 2>&1)
    rc=$?
    if [[ $rc -eq 0 ]]; then
      out=$(timeout "$timeout" "$bin/fuse-gpu" --validate "$work/bundle" 2>&1)
      rc=$?
    fi
    record "$a [fuse-gpu --strategy $s]" "$(verdict $rc "$out")"
  done
done
echo "model-sweep: ${#archives[@]} archives, $runs runs, $refusals located refusals, $findings findings"
[[ $findings -eq 0 ]]
