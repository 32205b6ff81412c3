// RUN: fuse-run %s --seed 3 | FileCheck %s
// RUN: fuse-run %s --seed 3 --jit | FileCheck %s
// RUN: fuse-run %s --function gather_rows --strategy inductor --strategy tvm | FileCheck %s --check-prefix=ONE
// RUN: not fuse-run %s --function missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not fuse-run %s --strategy xla 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not fuse-run %s --bench --no-check --runs 1 --strategy xla 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not fuse-run %s --max-elements 10 2>&1 | FileCheck %s --check-prefix=LARGE
// RUN: not fuse-run %S/Inputs/f64.mlir 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not fuse-run 2>&1 | FileCheck %s --check-prefix=NOINPUT
// RUN: not fuse-run %S/Inputs/bad-expect.mlir --expect %S/Inputs/bad-expect.json 2>&1 | FileCheck %s --check-prefix=EXPECT
// RUN: not fuse-run %s --target gpu --jit 2>&1 | FileCheck %s --check-prefix=NORUNNER
// RUN: not fuse-run %s --fp-fusion false 2>&1 | FileCheck %s --check-prefix=COMPILEDONLY
// RUN: not fuse-run %s --jit --vector-width 384 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: not fuse-run %s --jit --parallel false --parallel-min-work 1 2>&1 | FileCheck %s --check-prefix=MINWORK
// RUN: not fuse-run %s --target ascend --jit --parallel-min-work 1 2>&1 | FileCheck %s --check-prefix=MINWORK1
// RUN: not fuse-run %s --jit --parallel=maybe 2>&1 | FileCheck %s --check-prefix=PARVALUE
// RUN: not fuse-run %s --jit --parallel auto --parallel true 2>&1 | FileCheck %s --check-prefix=TWICE
// Parallel steps are the default where the code has more than one thread to run on.
// RUN: env OMP_NUM_THREADS=2 fuse-run %s --bench --no-check --runs 1 --strategy inductor | FileCheck %s --check-prefix=AUTO2
// RUN: env OMP_NUM_THREADS=1 fuse-run %s --bench --no-check --runs 1 --strategy inductor | FileCheck %s --check-prefix=AUTO1
// RUN: env OMP_NUM_THREADS=1 fuse-run %s --bench --no-check --runs 1 --strategy inductor --parallel | FileCheck %s --check-prefix=FORCED
// AUTO2: compiled code: parallel steps, 2 threads
// AUTO1: compiled code: one thread
// FORCED: compiled code: parallel steps, 1 thread

// RUN: not fuse-run %s --jit --parallel --parallel-min-work 0 2>&1 | FileCheck %s --check-prefix=MINWORK0
// NORUNNER: fuse-run: error: target 'gpu' cannot run code on this machine (--jit / --bench need its runner; without them the loop interpreter checks its decisions)
// NORUNNER-NOT: ERROR
// COMPILEDONLY: fuse-run: error: --fp-fusion applies to compiled code: add --jit or --bench
// WIDTH: fuse-run: error: --vector-width: vector-width must be host, llvm, 128, 256 or 512, not '384'
// MINWORK: fuse-run: error: --parallel-min-work applies to parallel code (--parallel false was given)
// MINWORK1: fuse-run: error: --parallel-min-work applies to parallel code (the target's compiled code runs on one thread)
// PARVALUE: fuse-run: error: --parallel expects auto, true or false, got 'maybe'
// TWICE: fuse-run: error: --parallel given twice
// MINWORK0: fuse-run: error: --parallel-min-work expects a positive integer

// Seeded inputs, the aten interpreter as the oracle, every strategy through the loop
// interpreter: a normalization with a broadcast parameter and two outputs.
// CHECK-LABEL: @norm_two_outputs (seed 3; reference: aten interpreter)
// CHECK-NEXT: unfused output #0 tensor<4x8xf32>: max abs {{.*}} PASS
// CHECK-NEXT: unfused output #1 tensor<4x1xf32>: max abs {{.*}} PASS
// CHECK-NEXT: inductor output #0 {{.*}} PASS
// CHECK-NEXT: inductor output #1 {{.*}} PASS
// CHECK-NEXT: tvm output #0 {{.*}} PASS
// CHECK-NEXT: tvm output #1 {{.*}} PASS
// CHECK-NEXT: tvm-folded output #0 {{.*}} PASS
// CHECK-NEXT: tvm-folded output #1 {{.*}} PASS
func.func @norm_two_outputs(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %m = "aten.mean"(%x) {dims = array<i64: 1>, keepdim = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = "aten.sub"(%x, %m) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = "aten.exp"(%d) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = "aten.mul"(%e, %w) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y, %m : tensor<4x8xf32>, tensor<4x1xf32>
}

// An int64 index input feeding a gather gets values inside the gathered dimension.
// CHECK-LABEL: @gather_rows
// CHECK: tvm-folded output #0 tensor<4x3xf32>: {{.*}} PASS
// ONE-LABEL: @gather_rows
// ONE-NEXT: inductor output #0 {{.*}} PASS
// ONE-NEXT: tvm output #0 {{.*}} PASS
// ONE-NOT: unfused
func.func @gather_rows(%x: tensor<4x5xf32>, %i: tensor<4x3xi64>) -> tensor<4x3xf32> {
  %g = "aten.gather"(%x, %i) {dim = 1 : i64} : (tensor<4x5xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
  %r = "aten.relu"(%g) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// MISSING: fuse-run.mlir: no function @missing
// STRATEGY: unknown strategy 'xla' (expected unfused, inductor, tvm, tvm-folded, ascend, ascend-mindspore or all)
// LARGE: fuse-run.mlir: @norm_two_outputs holds {{[0-9]+}} tensor elements, more than the interpreters run (--max-elements 10)
// DTYPE: f64.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}f64
// NOINPUT: fuse-run: error: no input file (see --help)
// EXPECT: bad-expect.json: tensor data does not match its shape
