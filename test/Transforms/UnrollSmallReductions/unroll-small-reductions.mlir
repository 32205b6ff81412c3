// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --unroll-small-reductions | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --unroll-small-reductions=threshold=1 | FileCheck %s --check-prefix=NEVER
// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose --lower-aten-to-loop --unroll-small-reductions | FileCheck %s --check-prefix=GPU
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --fuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=FUSED
// RUN: fuse-opt %s --split-input-file --fuse --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=FUSED
// RUN: not fuse-opt %s --split-input-file --unroll-small-reductions -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNLOWERED-UNROLL

// Loop-IR passes refuse aten input (they would do nothing), at the first aten op; a
// strategy flag (--fuse) on aten input runs the strategy's whole pipeline instead.
// UNLOWERED-UNROLL: error: 'aten.exp' is not lowered: --unroll-small-reductions works on loop IR

// Inductor's Reduction.create: a reduction over fewer than unroll_reductions_threshold
// (8) elements with more than one output element is a Pointwise node that computes it
// inline — the body at each reduction index, combined left to right.
// CHECK-LABEL: func.func @sum_then_broadcast
// CHECK: "loop.pointwise"
// CHECK: math.exp
// CHECK: "loop.pointwise"() ({
// CHECK-NEXT: ^bb0(%{{.*}}: index):
// CHECK-NEXT: %[[A:.*]] = "loop.load"(%{{.*}}) {index = #[[M0:.*]]}
// CHECK-NEXT: %[[B:.*]] = "loop.load"(%{{.*}}) {index = #[[M1:.*]]}
// CHECK-NEXT: %[[AB:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[C:.*]] = "loop.load"
// CHECK-NEXT: %[[ABC:.*]] = arith.addf %[[AB]], %[[C]] : f32
// CHECK-NEXT: %[[D:.*]] = "loop.load"
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ABC]], %[[D]] : f32
// CHECK-NEXT: gpu.yield %[[S]] : f32
// CHECK-NEXT: }) {fuselab.eager_id = 1 : i64, name = "buf1", origins = ["sum"], ranges = array<i64: 4096>} : () -> tensor<4096x1xf32>
// CHECK-NOT: loop.reduction
// CHECK: return
// NEVER-LABEL: func.func @sum_then_broadcast
// NEVER: "loop.reduction"
// With the Inductor strategy the sum is then inlined into the multiply: one kernel, as
// real Inductor makes (tools/fidelity/inductor_probe.py on the H200, torch 2.11: 1
// kernel; without the rule fuselab made 2, writing and reading the row sums).
// FUSED: "function": "sum_then_broadcast"
// FUSED: "name": "fused_exp_mul_sum_0"
// FUSED-NOT: "name": "fused
// FUSED: "kernels": 1,
func.func @sum_then_broadcast(%x: tensor<4096x4xf32>, %z: tensor<4096x64xf32>) -> tensor<4096x64xf32> {
  %e = "aten.exp"(%x) : (tensor<4096x4xf32>) -> tensor<4096x4xf32>
  %s = "aten.sum"(%e) {dims = array<i64: 1>, keepdim = true} : (tensor<4096x4xf32>) -> tensor<4096x1xf32>
  %y = "aten.mul"(%z, %s) : (tensor<4096x64xf32>, tensor<4096x1xf32>) -> tensor<4096x64xf32>
  return %y : tensor<4096x64xf32>
}

// -----

// 8 elements is not below the threshold: a reduction, and real Inductor makes 2 kernels
// (same probe), as fuselab does.
// CHECK-LABEL: func.func @eight_sum_then_broadcast
// CHECK: "loop.reduction"
// FUSED: "function": "eight_sum_then_broadcast"
// FUSED: "kernels": 2,
func.func @eight_sum_then_broadcast(%x: tensor<4096x8xf32>, %z: tensor<4096x64xf32>) -> tensor<4096x64xf32> {
  %e = "aten.exp"(%x) : (tensor<4096x8xf32>) -> tensor<4096x8xf32>
  %s = "aten.sum"(%e) {dims = array<i64: 1>, keepdim = true} : (tensor<4096x8xf32>) -> tensor<4096x1xf32>
  %y = "aten.mul"(%z, %s) : (tensor<4096x64xf32>, tensor<4096x1xf32>) -> tensor<4096x64xf32>
  return %y : tensor<4096x64xf32>
}

// -----

// One output element (a full reduction of 4 values) stays a reduction (the rule needs
// more than one) — except on a GPU target, where Inductor unrolls it too
// (`sympy_product(ranges) != 1 or is_gpu(device)`); max over ints and an `any` (bool
// max) below 8 unroll with maxsi / ori.
// GPU-LABEL: func.func @kinds
// GPU-NOT: "loop.reduction"
// GPU: return
// CHECK-LABEL: func.func @kinds
// CHECK: "loop.reduction"
// CHECK: kind = "sum", {{.*}}ranges = array<i64>, reduction_ranges = array<i64: 4>} : () -> tensor<f32>
// CHECK: arith.maxsi
// CHECK: arith.ori
// CHECK: arith.maximumf
// CHECK: return
func.func @kinds(%x: tensor<4xf32>, %i: tensor<16x3xi64>, %b: tensor<16x3xi1>, %f: tensor<16x2xf32>) -> (tensor<f32>, tensor<16xi64>, tensor<16xi1>, tensor<16xf32>) {
  %s = "aten.sum"(%x) {dims = array<i64: 0>, keepdim = false} : (tensor<4xf32>) -> tensor<f32>
  %m = "aten.amax"(%i) {dims = array<i64: 1>, keepdim = false} : (tensor<16x3xi64>) -> tensor<16xi64>
  %a = "aten.any"(%b) {dims = array<i64: 1>, keepdim = false} : (tensor<16x3xi1>) -> tensor<16xi1>
  %n = "aten.amax"(%f) {dims = array<i64: 1>, keepdim = false} : (tensor<16x2xf32>) -> tensor<16xf32>
  return %s, %m, %a, %n : tensor<f32>, tensor<16xi64>, tensor<16xi1>, tensor<16xf32>
}
