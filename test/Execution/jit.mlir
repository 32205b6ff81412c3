// The CPU code generator's less common paths, compiled and checked against the aten
// reference interpreter under every strategy: convolutions (im2col + sgemm) with groups,
// stride, padding and dilation in 1-D and 2-D; f16 and bf16 graphs (computed in f32,
// bf16 stored as bits) with reductions, softmax and matmuls; bmm on a transposed view;
// every f32 math function that is expanded into polynomials.
// RUN: fuse-run %s --jit --seed 11 | FileCheck %s
// RUN: fuse-run %s --jit --seed 11 --parallel | FileCheck %s
// Every step of two or more rows as OpenMP chunks of an outlined rows function:
// RUN: fuse-run %s --jit --seed 11 --parallel --parallel-min-work 1 | FileCheck %s

// CHECK-LABEL: @convs (seed 11
// CHECK-COUNT-8: PASS
// CHECK-NOT: FAIL
func.func @convs(%x: tensor<2x6x9x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %w2: tensor<5x6x1x2xf32>) -> (tensor<2x4x5x4xf32>, tensor<2x5x9x7xf32>) {
  %y = "aten.convolution"(%x, %w, %b) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64} : (tensor<2x6x9x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x5x4xf32>
  %r = "aten.relu"(%y) : (tensor<2x4x5x4xf32>) -> tensor<2x4x5x4xf32>
  %z = "aten.convolution"(%x, %w2) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x6x9x8xf32>, tensor<5x6x1x2xf32>) -> tensor<2x5x9x7xf32>
  return %r, %z : tensor<2x4x5x4xf32>, tensor<2x5x9x7xf32>
}

// CHECK-LABEL: @conv1d_dilated (seed 11
// CHECK-COUNT-4: PASS
// CHECK-NOT: FAIL
func.func @conv1d_dilated(%s: tensor<3x4x20xf32>, %w: tensor<6x4x3xf32>) -> tensor<3x6x9xf32> {
  %y = "aten.convolution"(%s, %w) {stride = array<i64: 2>, padding = array<i64: 2>, dilation = array<i64: 3>, groups = 1 : i64} : (tensor<3x4x20xf32>, tensor<6x4x3xf32>) -> tensor<3x6x9xf32>
  return %y : tensor<3x6x9xf32>
}

// CHECK-LABEL: @half_softmax_f16 (seed 11
// CHECK-COUNT-8: PASS
// CHECK-NOT: FAIL
func.func @half_softmax_f16(%x: tensor<64x256xf16>, %w: tensor<256xf16>) -> (tensor<64x256xf16>, tensor<64x1xf16>) {
  %s = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<64x256xf16>) -> tensor<64x256xf16>
  %y = "aten.mul"(%s, %w) : (tensor<64x256xf16>, tensor<256xf16>) -> tensor<64x256xf16>
  %e = "aten.exp"(%x) : (tensor<64x256xf16>) -> tensor<64x256xf16>
  %m = "aten.mean"(%e) {dims = array<i64: 1>, keepdim = true} : (tensor<64x256xf16>) -> tensor<64x1xf16>
  return %y, %m : tensor<64x256xf16>, tensor<64x1xf16>
}

// CHECK-LABEL: @half_mlp_bf16 (seed 11
// CHECK-COUNT-8: PASS
// CHECK-NOT: FAIL
func.func @half_mlp_bf16(%x: tensor<4x8x16xbf16>, %w: tensor<32x16xbf16>, %b: tensor<32xbf16>, %y: tensor<4x16x8xbf16>) -> (tensor<4x8x32xbf16>, tensor<4x8x8xbf16>) {
  %l = "aten.linear"(%x, %w, %b) : (tensor<4x8x16xbf16>, tensor<32x16xbf16>, tensor<32xbf16>) -> tensor<4x8x32xbf16>
  %g = "aten.gelu"(%l) {approximate = "none"} : (tensor<4x8x32xbf16>) -> tensor<4x8x32xbf16>
  %m = "aten.bmm"(%x, %y) : (tensor<4x8x16xbf16>, tensor<4x16x8xbf16>) -> tensor<4x8x8xbf16>
  return %g, %m : tensor<4x8x32xbf16>, tensor<4x8x8xbf16>
}

// CHECK-LABEL: @bmm_transposed (seed 11
// CHECK-COUNT-4: PASS
// CHECK-NOT: FAIL
func.func @bmm_transposed(%q: tensor<3x5x7xf32>, %k: tensor<3x6x7xf32>) -> tensor<3x5x6xf32> {
  %kt = "aten.transpose"(%k) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<3x6x7xf32>) -> tensor<3x7x6xf32>
  %s = "aten.bmm"(%q, %kt) : (tensor<3x5x7xf32>, tensor<3x7x6xf32>) -> tensor<3x5x6xf32>
  return %s : tensor<3x5x6xf32>
}

// CHECK-LABEL: @math (seed 11
// CHECK-COUNT-4: PASS
// CHECK-NOT: FAIL
func.func @math(%x: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %a = "aten.sin"(%x) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %b = "aten.cos"(%a) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %c = "aten.tanh"(%b) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %d = "aten.exp"(%c) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %e = "aten.log"(%d) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %f = "aten.gelu"(%e) {approximate = "none"} : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %g = "aten.add"(%f, %x) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
  return %g : tensor<32x64xf32>
}

// The attention head split of examples/transformer_block.mlir at small sizes: the
// reshapes of permuted views are copies which TVM (views folded) fuses with the bmm
// that reads them; such a kernel-local value must be stored (an extern reads its
// buffer), not recomputed at loads. It failed with "reads a value the CPU code
// generator has no buffer for" before.
// CHECK-LABEL: @attention_heads (seed 11
// CHECK-COUNT-4: PASS
// CHECK-NOT: FAIL
func.func @attention_heads(%x: tensor<2x8x8xf32>, %w: tensor<24x8xf32>, %b: tensor<24xf32>) -> tensor<2x2x8x8xf32> {
  %qkv = "aten.linear"(%x, %w, %b) : (tensor<2x8x8xf32>, tensor<24x8xf32>, tensor<24xf32>) -> tensor<2x8x24xf32>
  %qkv5 = "aten.view"(%qkv) : (tensor<2x8x24xf32>) -> tensor<2x8x3x2x4xf32>
  %qkvp = "aten.permute"(%qkv5) {dims = array<i64: 2, 0, 3, 1, 4>} : (tensor<2x8x3x2x4xf32>) -> tensor<3x2x2x8x4xf32>
  %q = "aten.select"(%qkvp) {dim = 0 : i64, index = 0 : i64} : (tensor<3x2x2x8x4xf32>) -> tensor<2x2x8x4xf32>
  %k = "aten.select"(%qkvp) {dim = 0 : i64, index = 1 : i64} : (tensor<3x2x2x8x4xf32>) -> tensor<2x2x8x4xf32>
  %kt = "aten.transpose"(%k) {dim0 = -1 : i64, dim1 = -2 : i64} : (tensor<2x2x8x4xf32>) -> tensor<2x2x4x8xf32>
  %q3 = "aten.reshape"(%q) : (tensor<2x2x8x4xf32>) -> tensor<4x8x4xf32>
  %kt3 = "aten.reshape"(%kt) : (tensor<2x2x4x8xf32>) -> tensor<4x4x8xf32>
  %s3 = "aten.bmm"(%q3, %kt3) : (tensor<4x8x4xf32>, tensor<4x4x8xf32>) -> tensor<4x8x8xf32>
  %s = "aten.view"(%s3) : (tensor<4x8x8xf32>) -> tensor<2x2x8x8xf32>
  %p = "aten.softmax"(%s) {dim = -1 : i64} : (tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
  return %p : tensor<2x2x8x8xf32>
}
