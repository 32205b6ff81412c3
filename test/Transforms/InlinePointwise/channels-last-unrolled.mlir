// RUN: fuse-opt %s --target=gpu --aten-decompose --lower-aten-to-loop --unroll-small-reductions --inline-pointwise | FileCheck %s
// RUN: fuse-run %s --target gpu --strategy inductor | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --jit --strategy inductor | FileCheck %s --check-prefix=EXEC

// A variance over 5 rows is unrolled (unroll-small-reductions): a pointwise node that
// iterates only the kept dims [5, 3, 4] of its [1, 5, 3, 4] result. It prefers
// channels-last (it feeds the convolution) and is realized for its reads, but its body
// is indexed by its ranges, not its result's dims, so it is not rebuilt channels-last
// (fuse-fuzz seed 76000856 found the rebuild reading the wrong elements); the negation
// after it is the convolution's channels-last copy, as before.
// CHECK-LABEL: func.func @unrolled_var
// CHECK: origins = ["relu", "var"], ranges = array<i64: 5, 3, 4>} : () -> tensor<1x5x3x4xf32>
// CHECK: origins = ["neg", "var"], ranges = array<i64: 1, 3, 4, 5>} : () -> tensor<1x3x4x5xf32>
// EXEC: inductor output #0 {{.*}} 0 mismatches  PASS
func.func @unrolled_var(%a1: tensor<5x5x3x4xf32>, %w: tensor<5x5x3x3xf32>, %b: tensor<5xf32>) -> tensor<1x5x3x4xf32> {
  %r = "aten.relu"(%a1) : (tensor<5x5x3x4xf32>) -> tensor<5x5x3x4xf32>
  %v = "aten.var"(%r) {dims = array<i64: 0>, keepdim = true, correction = 1 : i64} : (tensor<5x5x3x4xf32>) -> tensor<1x5x3x4xf32>
  %n = "aten.neg"(%v) : (tensor<1x5x3x4xf32>) -> tensor<1x5x3x4xf32>
  %y = "aten.convolution"(%n, %w, %b) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x5x3x4xf32>, tensor<5x5x3x3xf32>, tensor<5xf32>) -> tensor<1x5x3x4xf32>
  return %y : tensor<1x5x3x4xf32>
}
