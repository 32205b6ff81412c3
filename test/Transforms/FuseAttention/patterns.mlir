// --fuse-attention, Inductor's attention patterns (fx_passes/fuse_attention.py
// `_sfdp_pattern_1` / `_2`): attention a model writes out, softmax(q @ k^T / c) @ v or
// with * c, becomes one aten.scaled_dot_product_attention where Inductor rewrites it:
// on the CPU (then PyTorch's CPU flash attention: f32 here, query/key/value head dims
// equal), not on the GPU for f32 (`_sfdp_params_check` wants TF32 matmuls, off by
// default). Forms that are not the pattern stay.
// RUN: fuse-opt %s --split-input-file --target=cpu --fuse-attention | FileCheck %s
// RUN: fuse-opt %s --split-input-file --target=gpu --fuse-attention | FileCheck %s --check-prefix=GPU
// The CPU's blocked attention computes what the math form computes, every strategy
// (the Inductor strategy's runs the sdpa extern).
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --jit --parallel --parallel-min-work 1 | FileCheck %s --check-prefix=EXEC

// EXEC-NOT: {{FAIL|ERROR}}
// EXEC-COUNT-48: PASS
// GPU-NOT: scaled_dot_product_attention

// As examples/attention.mlir writes it: views merging batch and heads, the key
// transposed after its view, a division by a constant.
// CHECK-LABEL: func.func @divided
// CHECK-NEXT: %[[A:.*]] = "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2) {scale = 1.250000e-01 : f64} : (tensor<2x3x16x8xf32>, tensor<2x3x16x8xf32>, tensor<2x3x16x8xf32>) -> tensor<2x3x16x8xf32>
// CHECK-NEXT: return %[[A]]
func.func @divided(%q: tensor<2x3x16x8xf32>, %k: tensor<2x3x16x8xf32>, %v: tensor<2x3x16x8xf32>) -> tensor<2x3x16x8xf32> {
  %q3 = "aten.view"(%q) : (tensor<2x3x16x8xf32>) -> tensor<6x16x8xf32>
  %k3 = "aten.view"(%k) : (tensor<2x3x16x8xf32>) -> tensor<6x16x8xf32>
  %kt = "aten.transpose"(%k3) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<6x16x8xf32>) -> tensor<6x8x16xf32>
  %s3 = "aten.bmm"(%q3, %kt) : (tensor<6x16x8xf32>, tensor<6x8x16xf32>) -> tensor<6x16x16xf32>
  %s = "aten.view"(%s3) : (tensor<6x16x16xf32>) -> tensor<2x3x16x16xf32>
  %c = arith.constant dense<8.0> : tensor<f32>
  %d = "aten.div"(%s, %c) : (tensor<2x3x16x16xf32>, tensor<f32>) -> tensor<2x3x16x16xf32>
  %p = "aten.softmax"(%d) {dim = -1 : i64} : (tensor<2x3x16x16xf32>) -> tensor<2x3x16x16xf32>
  %p3 = "aten.view"(%p) : (tensor<2x3x16x16xf32>) -> tensor<6x16x16xf32>
  %v3 = "aten.view"(%v) : (tensor<2x3x16x8xf32>) -> tensor<6x16x8xf32>
  %o3 = "aten.bmm"(%p3, %v3) : (tensor<6x16x16xf32>, tensor<6x16x8xf32>) -> tensor<6x16x8xf32>
  %o = "aten.view"(%o3) : (tensor<6x16x8xf32>) -> tensor<2x3x16x8xf32>
  return %o : tensor<2x3x16x8xf32>
}

// -----

// As torch.export writes `torch.matmul` of 4-D tensors: the key transposed first, each
// operand expanded, the transposed key cloned contiguous before its view; a
// multiplication by the scale; more keys than queries: on the CPU 200 queries over
// 1024 keys are a block of 128 rows and a remainder of 72.
// CHECK-LABEL: func.func @multiplied
// CHECK-NEXT: %[[A:.*]] = "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2) {scale = 2.500000e-01 : f64}
// CHECK-NEXT: return %[[A]]
func.func @multiplied(%q: tensor<1x2x200x8xf32>, %k: tensor<1x2x1024x8xf32>, %v: tensor<1x2x1024x8xf32>) -> tensor<1x2x200x8xf32> {
  %kt = "aten.transpose"(%k) {dim0 = -2 : i64, dim1 = -1 : i64} : (tensor<1x2x1024x8xf32>) -> tensor<1x2x8x1024xf32>
  %qe = "aten.expand"(%q) : (tensor<1x2x200x8xf32>) -> tensor<1x2x200x8xf32>
  %q3 = "aten.view"(%qe) : (tensor<1x2x200x8xf32>) -> tensor<2x200x8xf32>
  %ke = "aten.expand"(%kt) : (tensor<1x2x8x1024xf32>) -> tensor<1x2x8x1024xf32>
  %kc = "aten.clone"(%ke) : (tensor<1x2x8x1024xf32>) -> tensor<1x2x8x1024xf32>
  %k3 = "aten.view"(%kc) : (tensor<1x2x8x1024xf32>) -> tensor<2x8x1024xf32>
  %s3 = "aten.bmm"(%q3, %k3) : (tensor<2x200x8xf32>, tensor<2x8x1024xf32>) -> tensor<2x200x1024xf32>
  %s = "aten.view"(%s3) : (tensor<2x200x1024xf32>) -> tensor<1x2x200x1024xf32>
  %c = arith.constant dense<0.25> : tensor<f32>
  %m = "aten.mul"(%s, %c) : (tensor<1x2x200x1024xf32>, tensor<f32>) -> tensor<1x2x200x1024xf32>
  %p = "aten.softmax"(%m) {dim = 3 : i64} : (tensor<1x2x200x1024xf32>) -> tensor<1x2x200x1024xf32>
  %pe = "aten.expand"(%p) : (tensor<1x2x200x1024xf32>) -> tensor<1x2x200x1024xf32>
  %p3 = "aten.view"(%pe) : (tensor<1x2x200x1024xf32>) -> tensor<2x200x1024xf32>
  %ve = "aten.expand"(%v) : (tensor<1x2x1024x8xf32>) -> tensor<1x2x1024x8xf32>
  %v3 = "aten.view"(%ve) : (tensor<1x2x1024x8xf32>) -> tensor<2x1024x8xf32>
  %o3 = "aten.bmm"(%p3, %v3) : (tensor<2x200x1024xf32>, tensor<2x1024x8xf32>) -> tensor<2x200x8xf32>
  %o = "aten.view"(%o3) : (tensor<2x200x8xf32>) -> tensor<1x2x200x8xf32>
  return %o : tensor<1x2x200x8xf32>
}

// -----

// Heads split out of a projection by a permute (strided query, key and value): the
// extern reads them through their views.
// CHECK-LABEL: func.func @permuted_heads
// CHECK: %[[Q:.*]] = "aten.permute"(%arg0) {dims = array<i64: 0, 2, 1, 3>}
// CHECK: "aten.scaled_dot_product_attention"(%[[Q]], %{{.*}}, %{{.*}}) {scale = 5.000000e-01 : f64}
// CHECK-NOT: aten.bmm
func.func @permuted_heads(%x: tensor<2x16x4x4xf32>) -> tensor<2x4x16x4xf32> {
  %q = "aten.permute"(%x) {dims = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x4xf32>) -> tensor<2x4x16x4xf32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %y = "aten.mul"(%x, %two) : (tensor<2x16x4x4xf32>, tensor<f32>) -> tensor<2x16x4x4xf32>
  %k = "aten.permute"(%y) {dims = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x4xf32>) -> tensor<2x4x16x4xf32>
  %kt = "aten.permute"(%k) {dims = array<i64: 0, 1, 3, 2>} : (tensor<2x4x16x4xf32>) -> tensor<2x4x4x16xf32>
  %qc = "aten.clone"(%q) : (tensor<2x4x16x4xf32>) -> tensor<2x4x16x4xf32>
  %q3 = "aten.view"(%qc) : (tensor<2x4x16x4xf32>) -> tensor<8x16x4xf32>
  %kc = "aten.clone"(%kt) : (tensor<2x4x4x16xf32>) -> tensor<2x4x4x16xf32>
  %k3 = "aten.view"(%kc) : (tensor<2x4x4x16xf32>) -> tensor<8x4x16xf32>
  %s3 = "aten.bmm"(%q3, %k3) : (tensor<8x16x4xf32>, tensor<8x4x16xf32>) -> tensor<8x16x16xf32>
  %s = "aten.view"(%s3) : (tensor<8x16x16xf32>) -> tensor<2x4x16x16xf32>
  %d = "aten.div"(%s, %two) : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16x16xf32>
  %p = "aten.softmax"(%d) {dim = -1 : i64} : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %p3 = "aten.view"(%p) : (tensor<2x4x16x16xf32>) -> tensor<8x16x16xf32>
  %vc = "aten.clone"(%k) : (tensor<2x4x16x4xf32>) -> tensor<2x4x16x4xf32>
  %v3 = "aten.view"(%vc) : (tensor<2x4x16x4xf32>) -> tensor<8x16x4xf32>
  %o3 = "aten.bmm"(%p3, %v3) : (tensor<8x16x16xf32>, tensor<8x16x4xf32>) -> tensor<8x16x4xf32>
  %o = "aten.view"(%o3) : (tensor<8x16x4xf32>) -> tensor<2x4x16x4xf32>
  return %o : tensor<2x4x16x4xf32>
}

// -----

// Not the pattern: the softmax runs over the queries.
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK-NOT: scaled_dot_product_attention
// CHECK: "aten.softmax"
func.func @softmax_over_queries(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %q3 = "aten.view"(%q) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %k3 = "aten.view"(%k) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %kt = "aten.transpose"(%k3) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s3 = "aten.bmm"(%q3, %kt) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = "aten.view"(%s3) : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %c = arith.constant dense<4.0> : tensor<f32>
  %d = "aten.div"(%s, %c) : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %p = "aten.softmax"(%d) {dim = 2 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p3 = "aten.view"(%p) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %v3 = "aten.view"(%v) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %o3 = "aten.bmm"(%p3, %v3) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %o = "aten.view"(%o3) : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// -----

// Not fused: the weights are returned too (an op of the form read outside it).
// CHECK-LABEL: func.func @weights_returned
// CHECK-NOT: scaled_dot_product_attention
// CHECK: "aten.softmax"
func.func @weights_returned(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) {
  %q3 = "aten.view"(%q) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %k3 = "aten.view"(%k) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %kt = "aten.transpose"(%k3) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s3 = "aten.bmm"(%q3, %kt) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = "aten.view"(%s3) : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %c = arith.constant dense<4.0> : tensor<f32>
  %d = "aten.div"(%s, %c) : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %p = "aten.softmax"(%d) {dim = -1 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p3 = "aten.view"(%p) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %v3 = "aten.view"(%v) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %o3 = "aten.bmm"(%p3, %v3) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %o = "aten.view"(%o3) : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %o, %p : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
}

// -----

// Not fused on the CPU: value heads narrower than query heads (PyTorch's CPU flash
// attention wants them equal, `check_head_dim_size_cpp`, and falls back to math).
// CHECK-LABEL: func.func @narrow_values
// CHECK-NOT: scaled_dot_product_attention
// CHECK: "aten.softmax"
func.func @narrow_values(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %q3 = "aten.view"(%q) : (tensor<1x2x8x16xf32>) -> tensor<2x8x16xf32>
  %k3 = "aten.view"(%k) : (tensor<1x2x8x16xf32>) -> tensor<2x8x16xf32>
  %kt = "aten.transpose"(%k3) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<2x8x16xf32>) -> tensor<2x16x8xf32>
  %s3 = "aten.bmm"(%q3, %kt) : (tensor<2x8x16xf32>, tensor<2x16x8xf32>) -> tensor<2x8x8xf32>
  %s = "aten.view"(%s3) : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %c = arith.constant dense<4.0> : tensor<f32>
  %d = "aten.div"(%s, %c) : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %p = "aten.softmax"(%d) {dim = -1 : i64} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
  %p3 = "aten.view"(%p) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %v3 = "aten.view"(%v) : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
  %o3 = "aten.bmm"(%p3, %v3) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %o = "aten.view"(%o3) : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// -----

// The attention's result read by another op (not returned through its view): the CPU
// writes the [B, L, H, Ev] buffer and the multiplication reads it through the view.
// CHECK-LABEL: func.func @read_after
// CHECK: %[[A:.*]] = "aten.scaled_dot_product_attention"(%arg0, %arg1, %arg2) {scale = 1.250000e-01 : f64}
// CHECK: "aten.mul"(%[[A]],
func.func @read_after(%q: tensor<2x3x16x8xf32>, %k: tensor<2x3x16x8xf32>, %v: tensor<2x3x16x8xf32>) -> tensor<2x3x16x8xf32> {
  %q3 = "aten.view"(%q) : (tensor<2x3x16x8xf32>) -> tensor<6x16x8xf32>
  %k3 = "aten.view"(%k) : (tensor<2x3x16x8xf32>) -> tensor<6x16x8xf32>
  %kt = "aten.transpose"(%k3) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<6x16x8xf32>) -> tensor<6x8x16xf32>
  %s3 = "aten.bmm"(%q3, %kt) : (tensor<6x16x8xf32>, tensor<6x8x16xf32>) -> tensor<6x16x16xf32>
  %s = "aten.view"(%s3) : (tensor<6x16x16xf32>) -> tensor<2x3x16x16xf32>
  %c = arith.constant dense<8.0> : tensor<f32>
  %d = "aten.div"(%s, %c) : (tensor<2x3x16x16xf32>, tensor<f32>) -> tensor<2x3x16x16xf32>
  %p = "aten.softmax"(%d) {dim = -1 : i64} : (tensor<2x3x16x16xf32>) -> tensor<2x3x16x16xf32>
  %p3 = "aten.view"(%p) : (tensor<2x3x16x16xf32>) -> tensor<6x16x16xf32>
  %v3 = "aten.view"(%v) : (tensor<2x3x16x8xf32>) -> tensor<6x16x8xf32>
  %o3 = "aten.bmm"(%p3, %v3) : (tensor<6x16x16xf32>, tensor<6x16x8xf32>) -> tensor<6x16x8xf32>
  %o = "aten.view"(%o3) : (tensor<6x16x8xf32>) -> tensor<2x3x16x8xf32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %y = "aten.mul"(%o, %two) : (tensor<2x3x16x8xf32>, tensor<f32>) -> tensor<2x3x16x8xf32>
  return %y : tensor<2x3x16x8xf32>
}
