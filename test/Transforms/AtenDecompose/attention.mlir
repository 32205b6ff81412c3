// aten.scaled_dot_product_attention stays one op where the target runs the fused kernel
// (on the GPU target, for the lowering's sdpa extern; on the CPU target for f32 with
// equal head dims, PyTorch's CPU flash attention) and becomes torch's math form elsewhere: q and
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
// EXEC-COUNT-24: PASS
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

// f32 self-attention with equal head dims stays one op on the CPU too (its blocked
// sdpa extern). The mask hides key s from query l where s >= l: query 0 sees no key
// and gives zeros (torch's _safe_softmax), the others the softmax of the keys before
// them.
// CHECK-LABEL: func.func @masked_row
// CHECK: "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2, %{{.*}}) {scale = 3.5{{0*}}e-01 : f64}
// CHECK-NOT: "aten.bmm"
// GPU-LABEL: func.func @masked_row
// GPU: "aten.scaled_dot_product_attention"
func.func @masked_row(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %i = "aten.arange"() {start = 0.0 : f64, step = 1.0 : f64} : () -> tensor<4xf32>
  %l = "aten.view"(%i) : (tensor<4xf32>) -> tensor<4x1xf32>
  %s = "aten.view"(%i) : (tensor<4xf32>) -> tensor<1x4xf32>
  %d = "aten.sub"(%s, %l) : (tensor<1x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %hidden = "aten.ge"(%d, %zero) : (tensor<4x4xf32>, tensor<f32>) -> tensor<4x4xi1>
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %bias = "aten.where"(%hidden, %ninf, %zero) : (tensor<4x4xi1>, tensor<f32>, tensor<f32>) -> tensor<4x4xf32>
  %m = "aten.view"(%bias) : (tensor<4x4xf32>) -> tensor<1x1x4x4xf32>
  %0 = "aten.scaled_dot_product_attention"(%q, %k, %v, %m) {scale = 0.35 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}
