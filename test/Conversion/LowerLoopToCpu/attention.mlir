// --lower-loop-to-cpu, the sdpa extern: blocked attention. Per batch and head and per
// block of query rows, fuselab_sgemm writes Q K^T into a row-block scratch (the key
// read transposed through its strides: rows 1 apart, columns 8), each row is scaled,
// masked (the [1, 1, L, S] mask broadcast over batch and heads), its max and the sum
// of exp(x - max) taken (exp as the f32 polynomial, no math.exp left), the second
// fuselab_sgemm writes e V, and each output row is scaled by its 1 / sum (0 for a row
// without a finite score). The result [B, L, H, Ev] is read only by the returned view
// back to [B, H, L, Ev]: e V goes straight into the function's output (rows Ev = 8
// apart) and the view's function copies nothing.
// RUN: fuse-opt %s --split-input-file --verify-diagnostics --lower-loop-to-cpu | FileCheck %s
// With parallel steps the heads are split into chunks: an scf.parallel calls the
// blocks as an outlined function whose block scratch is on its own stack (one per
// thread) and whose GEMMs are fuselab_sgemm_serial (the threads are taken already).
// RUN: fuse-opt %s --split-input-file --verify-diagnostics --lower-loop-to-cpu="parallel=true parallel-min-work=1" | FileCheck %s --check-prefix=PAR

// CHECK-NOT: fuselab_sgemm_serial
// PAR-NOT: func.func private @fuselab_sgemm(
// PAR-LABEL: func.func private @masked_buf0_rows(
// PAR: memref.alloca() {{.*}} : memref<4xf32>
// PAR: memref.alloca() {{.*}} : memref<16xf32>
// PAR-COUNT-2: func.call @fuselab_sgemm_serial(
// PAR-LABEL: func.func private @masked_buf0(
// PAR: scf.parallel
// PAR: func.call @masked_buf0_rows(

// CHECK-LABEL: func.func private @masked_buf0(
// CHECK-SAME: %[[MASK:[a-z0-9]+]]: memref<16xf32>, %[[OUT:[a-z0-9]+]]: memref<64xf32>)
// CHECK: %[[SCORES:.*]] = memref.get_global @masked_g{{[0-9]+}} : memref<16xf32>
// CHECK: %[[INV:.*]] = memref.get_global @masked_g{{[0-9]+}} : memref<4xf32>
// m, n, k, then the (row, column) strides of Q, K^T and the scores.
// CHECK: arith.constant 4 : i64
// CHECK-NEXT: arith.constant 4 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: arith.constant 4 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK: func.call @fuselab_sgemm(
// CHECK: %[[SCALE:.*]] = arith.constant 3.500000e-01 : f32
// CHECK: %[[RAW:.*]] = memref.load %[[SCORES]]
// CHECK: arith.mulf %[[RAW]], %[[SCALE]] : f32
// CHECK: memref.load %[[MASK]]
// CHECK: arith.maximumf {{.*}} fastmath<reassoc> : f32
// CHECK: arith.cmpf oeq
// CHECK: math.roundeven
// CHECK: arith.addf {{.*}} fastmath<reassoc> : f32
// CHECK: arith.divf
// CHECK: memref.store {{.*}}, %[[INV]]
// m, n, k, then the strides of the weights, V and the output rows.
// CHECK: arith.constant 4 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: arith.constant 4 : i64
// CHECK-NEXT: arith.constant 4 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 8 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK: func.call @fuselab_sgemm(
// CHECK: memref.load %[[OUT]]
// CHECK: memref.load %[[INV]]
// CHECK: arith.mulf
// CHECK: memref.store {{.*}}, %[[OUT]]
// CHECK-NOT: math.exp
// CHECK-LABEL: func.func private @masked_node(
// CHECK-NEXT: return
func.func @masked(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %m: tensor<1x1x4x4xf32>) -> tensor<1x2x4x8xf32> {
  %0 = "loop.extern"(%v, %m, %q, %k) {kind = "sdpa", name = "buf0", operand_views = [array<i64>, array<i64>, array<i64>, array<i64>], origins = ["scaled_dot_product_attention"], scale = 3.500000e-01 : f64, sdpa_operands = array<i64: 2, 3, 0, 1>} : (tensor<1x2x4x8xf32>, tensor<1x1x4x4xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x4x2x8xf32>
  %1 = "loop.view"(%0) {layout = array<i64: 0, 1, 2, 4, 8, 64, 8, 16, 1>} : (tensor<1x4x2x8xf32>) -> tensor<1x2x4x8xf32>
  return %1 : tensor<1x2x4x8xf32>
}

// -----

// The CPU generates f32 attention only (the CPU target keeps half attention as its
// math form).
func.func @half(%q: tensor<1x2x4x8xf16>, %k: tensor<1x2x4x8xf16>, %v: tensor<1x2x4x8xf16>) -> tensor<1x2x4x8xf16> {
  // expected-error @+1 {{f16 attention is not generated for the CPU (f32 only)}}
  %0 = "loop.extern"(%q, %k, %v) {kind = "sdpa", name = "buf0", operand_views = [array<i64>, array<i64>, array<i64>], origins = ["scaled_dot_product_attention"], scale = 3.500000e-01 : f64, sdpa_operands = array<i64: 0, 1, 2>} : (tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>) -> tensor<1x4x2x8xf16>
  %1 = "loop.view"(%0) {layout = array<i64: 0, 1, 2, 4, 8, 64, 8, 16, 1>} : (tensor<1x4x2x8xf16>) -> tensor<1x2x4x8xf16>
  return %1 : tensor<1x2x4x8xf16>
}
