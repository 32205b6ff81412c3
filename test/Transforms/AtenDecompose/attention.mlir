// aten.scaled_dot_product_attention stays one op where the target runs the fused kernel
// (on the GPU target, for the lowering's sdpa extern) and becomes torch's math form elsewhere: q and
// k^T scaled by sqrt(scale), bmm, the mask added, softmax, _safe_softmax's guard (rows
// of -inf scores give 0), bmm with v. Checked by execution on every target's runner.
// RUN: fuse-opt %s --target=cpu --aten-decompose | FileCheck %s
// RUN: fuse-opt %s --target=gpu --aten-decompose | FileCheck %s --check-prefix=GPU
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --target ascend --jit | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --target gpu | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @masked
// CHECK: %[[ROOT:.*]] = arith.constant dense<5.000000e-01> : tensor<f16>
// CHECK: "aten.mul"(%arg0, %[[ROOT]])
// CHECK: "aten.permute"(%arg1) {dims = array<i64: 0, 1, 3, 2>
// CHECK: "aten.bmm"
// CHECK: "aten.add"({{.*}}, %arg3)
// CHECK: "aten.amax"
// CHECK: arith.constant dense<0xFC00> : tensor<f16>
// CHECK: "aten.any"
// CHECK: "aten.where"
// CHECK: "aten.bmm"
// CHECK-NOT: "aten.scaled_dot_product_attention"
// GPU-LABEL: func.func @masked
// GPU: "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2, %arg3)
// GPU-NOT: aten.bmm
// EXEC-NOT: {{FAIL|ERROR}}
// EXEC-COUNT-18: PASS
func.func @masked(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>, %m: tensor<1x1x8x8xf16>) -> tensor<1x2x8x16xf16> {
  %0 = "aten.scaled_dot_product_attention"(%q, %k, %v, %m) {scale = 0.25 : f64} : (tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x1x8x8xf16>) -> tensor<1x2x8x16xf16>
  return %0 : tensor<1x2x8x16xf16>
}

// Masked cross-attention (4 queries, 8 keys) is decomposed on the GPU too: the sdpa
// extern's four operands need two of one buffer type (was kept, then refused by the
// lowering).
// CHECK-LABEL: func.func @cross
// CHECK: "aten.bmm"
// GPU-LABEL: func.func @cross
// GPU-NOT: "aten.scaled_dot_product_attention"
// GPU: "aten.bmm"
func.func @cross(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x8xf32>, %m: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %0 = "aten.scaled_dot_product_attention"(%q, %k, %v, %m) {scale = 0.25 : f64} : (tensor<1x2x4x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// Without a mask fewer keys than queries stay one op on the GPU (SegFormer's spatially
// reduced keys and values; the extern's operands need no shared type).
// CHECK-LABEL: func.func @cross_unmasked
// CHECK: "aten.bmm"
// GPU-LABEL: func.func @cross_unmasked
// GPU: "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2) {scale = 2.500000e-01 : f64}
// GPU-NOT: "aten.bmm"
func.func @cross_unmasked(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32> {
  %0 = "aten.scaled_dot_product_attention"(%q, %k, %v) {scale = 0.25 : f64} : (tensor<1x2x8x16xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}
