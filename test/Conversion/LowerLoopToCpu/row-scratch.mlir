// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-cpu="parallel=true parallel-min-work=1" | FileCheck %s --check-prefix=PAR
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --jit --parallel --parallel-min-work 1 | FileCheck %s --check-prefix=EXEC

// Row scratch (targets/src/cpu/lower_loop_to_cpu/row_scratch.rs): softmax's row sum
// reduces exp(x - max), which the output computes again; the sum stores each exp into a
// row-sized stack buffer and the output loads it, so exp is evaluated once per element
// (one polynomial, one roundeven) instead of twice.
// CHECK-LABEL: func.func private @softmax_fused_softmax_0(
// CHECK: %[[ROW:.*]] = memref.alloca() {alignment = 64 : i64} : memref<96xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c32
// CHECK: arith.maximumf
// CHECK: scf.for %{{.*}} = %{{.*}} to %c96{{.*}} iter_args
// CHECK: math.roundeven
// CHECK: memref.store %[[E:.*]], %[[ROW]][%{{.*}}] : memref<96xf32>
// CHECK: arith.addf %{{.*}}, %[[E]] fastmath<reassoc>
// CHECK: scf.for
// CHECK-NOT: math.roundeven
// CHECK: %[[L:.*]] = memref.load %[[ROW]][%{{.*}}] : memref<96xf32>
// CHECK: arith.divf %[[L]], %{{.*}} : f32
// CHECK-NOT: math.roundeven
// CHECK: func.func @softmax(
// Under --parallel each thread's rows function has its own buffer.
// PAR-LABEL: func.func private @softmax_fused_softmax_0_rows(
// PAR: memref.alloca() {alignment = 64 : i64} : memref<96xf32>
// EXEC: inductor output #0 tensor<32x96xf32>: {{.*}} PASS
func.func @softmax(%x: tensor<32x96xf32>) -> tensor<32x96xf32> {
  %y = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<32x96xf32>) -> tensor<32x96xf32>
  return %y : tensor<32x96xf32>
}

// -----

// Not when the value a reduction reduces calls no math function (layer norm's squared
// deviations are recomputed: cheaper than a store and a load).
// CHECK-LABEL: func.func private @no_scratch_
// CHECK-NOT: memref.alloca
// CHECK: func.func @no_scratch(
func.func @no_scratch(%x: tensor<32x96xf32>, %w: tensor<96xf32>, %b: tensor<96xf32>) -> tensor<32x96xf32> {
  %y = "aten.layer_norm"(%x, %w, %b) {normalized_shape = array<i64: 96>, eps = 1.0e-05 : f64} : (tensor<32x96xf32>, tensor<96xf32>, tensor<96xf32>) -> tensor<32x96xf32>
  return %y : tensor<32x96xf32>
}
