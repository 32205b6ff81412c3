// Command-line mistakes are errors with exit status 1 and a clear message.
// RUN: not fuse-opt --no-such-flag %s 2>&1 | FileCheck %s --check-prefix=FLAG
// Input nested deeper than MLIR's recursive parser can take is refused before parsing
// (issue 13, item 14: ~3,900 nested regions overflowed the stack, exit 134).
// RUN: not fuse-opt %S/Inputs/too-deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: too-deep.mlir:1002:20: error: the input nests brackets more than 1000 deep
// FLAG: fuse-opt: error: unknown option '--no-such-flag' (see --help; upstream passes go through --pass-pipeline='builtin.module(no-such-flag)')
// RUN: not fuse-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: fuse-opt: error: more than one input file
// RUN: not fuse-opt %t.does-not-exist 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: fuse-opt: error: cannot open input file '{{.*}}does-not-exist'
// RUN: not fuse-opt --aten-verify-shapes=strict=true %s 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: fuse-opt: error: pass 'aten-verify-shapes' has no option 'strict' (options: none)
// RUN: not fuse-opt --pass-pipeline='builtin.module(no-such-pass)' %s 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM: fuse-opt: error: {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline
// RUN: not fuse-opt --pass-pipeline='canonicalize' %s 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: fuse-opt: error: pass pipeline must be anchored on the top-level module: write 'builtin.module(canonicalize)'
// RUN: not fuse-opt --pass-pipeline='builtin.module(func.func(cse)' %s 2>&1 | FileCheck %s --check-prefix=PAREN
// PAREN: fuse-opt: error: missing ')' after 'builtin.module(' in pass pipeline
// RUN: not fuse-opt -o 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: fuse-opt: error: option '-o' requires a file name

func.func @f() {
  return
}
