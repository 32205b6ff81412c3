// The Spyre target end to end, in fp16 at small shapes: every strategy's result is laid
// out, divided over 32 cores and planned in LX (the target's stages), then run on the
// functional simulator and compared with the aten oracle. Row reductions give sparse
// results (one value per stick) that the per-row statistics keep until they are
// broadcast back along the sticks.
// RUN: fuse-run %s --target spyre --jit | FileCheck %s
// RUN: fuse-opt %s --target=spyre --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --spyre-assign-layouts --spyre-divide-work --spyre-plan-scratchpad | FileCheck %s --check-prefix=IR

// CHECK-NOT: FAIL
// CHECK-NOT: ERROR
// CHECK-LABEL: @layernorm
// CHECK-COUNT-6: PASS
// (layer norm sums in fp32: 32 lanes per stick)
// IR-LABEL: func.func @layernorm
// IR: kind = "sum"{{.*}}spyre.layout = {device_size = array<i64: 64, 32>, sparse = true}
func.func @layernorm(%x: tensor<64x256xf16>, %weight: tensor<256xf16>, %bias: tensor<256xf16>) -> tensor<64x256xf16> {
  %y = "aten.layer_norm"(%x, %weight, %bias) {normalized_shape = array<i64: 256>, eps = 1.0e-05 : f64} : (tensor<64x256xf16>, tensor<256xf16>, tensor<256xf16>) -> tensor<64x256xf16>
  return %y : tensor<64x256xf16>
}

// CHECK-LABEL: @softmax
// CHECK-COUNT-6: PASS
func.func @softmax(%x: tensor<64x256xf16>) -> tensor<64x256xf16> {
  %y = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<64x256xf16>) -> tensor<64x256xf16>
  return %y : tensor<64x256xf16>
}

// CHECK-LABEL: @rmsnorm
// CHECK-COUNT-6: PASS
func.func @rmsnorm(%x: tensor<64x256xf16>, %w: tensor<256xf16>) -> tensor<64x256xf16> {
  %sq = "aten.mul"(%x, %x) : (tensor<64x256xf16>, tensor<64x256xf16>) -> tensor<64x256xf16>
  %ms = "aten.mean"(%sq) {dims = array<i64: -1>, keepdim = true} : (tensor<64x256xf16>) -> tensor<64x1xf16>
  %c0 = arith.constant dense<1.0e-03> : tensor<f16>
  %ms_eps = "aten.add"(%ms, %c0) : (tensor<64x1xf16>, tensor<f16>) -> tensor<64x1xf16>
  %r = "aten.rsqrt"(%ms_eps) : (tensor<64x1xf16>) -> tensor<64x1xf16>
  %xr = "aten.mul"(%x, %r) : (tensor<64x256xf16>, tensor<64x1xf16>) -> tensor<64x256xf16>
  %y = "aten.mul"(%xr, %w) : (tensor<64x256xf16>, tensor<256xf16>) -> tensor<64x256xf16>
  return %y : tensor<64x256xf16>
}

// CHECK-LABEL: @mlp
// CHECK-COUNT-6: PASS
func.func @mlp(%x: tensor<64x128xf16>, %W1: tensor<128x256xf16>, %b1: tensor<256xf16>, %W2: tensor<256x128xf16>) -> tensor<64x128xf16> {
  %h = "aten.mm"(%x, %W1) : (tensor<64x128xf16>, tensor<128x256xf16>) -> tensor<64x256xf16>
  %hb = "aten.add"(%h, %b1) : (tensor<64x256xf16>, tensor<256xf16>) -> tensor<64x256xf16>
  %g = "aten.gelu"(%hb) {approximate = "none"} : (tensor<64x256xf16>) -> tensor<64x256xf16>
  %o = "aten.mm"(%g, %W2) : (tensor<64x256xf16>, tensor<256x128xf16>) -> tensor<64x128xf16>
  return %o : tensor<64x128xf16>
}

// CHECK-LABEL: @attention
// CHECK-COUNT-6: PASS
func.func @attention(%q: tensor<2x2x64x64xf16>, %k: tensor<2x2x64x64xf16>, %v: tensor<2x2x64x64xf16>) -> tensor<2x2x64x64xf16> {
  %q3 = "aten.view"(%q) : (tensor<2x2x64x64xf16>) -> tensor<4x64x64xf16>
  %k3 = "aten.view"(%k) : (tensor<2x2x64x64xf16>) -> tensor<4x64x64xf16>
  %kt = "aten.transpose"(%k3) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<4x64x64xf16>) -> tensor<4x64x64xf16>
  %s3 = "aten.bmm"(%q3, %kt) : (tensor<4x64x64xf16>, tensor<4x64x64xf16>) -> tensor<4x64x64xf16>
  %s = "aten.view"(%s3) : (tensor<4x64x64xf16>) -> tensor<2x2x64x64xf16>
  %c0 = arith.constant dense<8.0> : tensor<f16>
  %scaled = "aten.div"(%s, %c0) : (tensor<2x2x64x64xf16>, tensor<f16>) -> tensor<2x2x64x64xf16>
  %p = "aten.softmax"(%scaled) {dim = -1 : i64} : (tensor<2x2x64x64xf16>) -> tensor<2x2x64x64xf16>
  %p3 = "aten.view"(%p) : (tensor<2x2x64x64xf16>) -> tensor<4x64x64xf16>
  %v3 = "aten.view"(%v) : (tensor<2x2x64x64xf16>) -> tensor<4x64x64xf16>
  %o3 = "aten.bmm"(%p3, %v3) : (tensor<4x64x64xf16>, tensor<4x64x64xf16>) -> tensor<4x64x64xf16>
  %o = "aten.view"(%o3) : (tensor<4x64x64xf16>) -> tensor<2x2x64x64xf16>
  return %o : tensor<2x2x64x64xf16>
}

// CHECK-LABEL: @log_softmax_nll
// CHECK-COUNT-6: PASS
func.func @log_softmax_nll(%logits: tensor<64x100xf32>, %targets: tensor<64xi64>) -> tensor<f32> {
  %lp = "aten.log_softmax"(%logits) {dim = -1 : i64} : (tensor<64x100xf32>) -> tensor<64x100xf32>
  %idx = "aten.unsqueeze"(%targets) {dim = 1 : i64} : (tensor<64xi64>) -> tensor<64x1xi64>
  %picked = "aten.gather"(%lp, %idx) {dim = 1 : i64} : (tensor<64x100xf32>, tensor<64x1xi64>) -> tensor<64x1xf32>
  %picked1 = "aten.squeeze"(%picked) {dims = array<i64: 1>} : (tensor<64x1xf32>) -> tensor<64xf32>
  %m = "aten.mean"(%picked1) {dims = array<i64: 0>, keepdim = false} : (tensor<64xf32>) -> tensor<f32>
  %loss = "aten.neg"(%m) : (tensor<f32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// CHECK-LABEL: @conv_block
// CHECK-COUNT-6: PASS
func.func @conv_block(%x: tensor<1x8x10x10xf32>, %w1: tensor<8x8x3x3xf32>, %s1: tensor<8xf32>) -> tensor<1x8x10x10xf32> {
  %c1 = "aten.convolution"(%x, %w1) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x10x10xf32>
  %s1v = "aten.view"(%s1) : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
  %bn = "aten.mul"(%c1, %s1v) : (tensor<1x8x10x10xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x10x10xf32>
  %res = "aten.add"(%bn, %x) : (tensor<1x8x10x10xf32>, tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  %y = "aten.relu"(%res) : (tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  return %y : tensor<1x8x10x10xf32>
}

// A flattening read across sub-stick rows goes through a restickify into the flat view.
// CHECK-LABEL: @flatten
// CHECK-COUNT-6: PASS
func.func @flatten(%x: tensor<4x16xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %f = "aten.reshape"(%x) : (tensor<4x16xf32>) -> tensor<64xf32>
  %z = "aten.mul"(%f, %y) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %z : tensor<64xf32>
}

// Group norm's grouped sum reads the view through a copy into the view's layout.
// CHECK-LABEL: @group_norm
// CHECK-COUNT-6: PASS
func.func @group_norm(%x: tensor<2x16x8x8xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x16x8x8xf32> {
  %y = "aten.group_norm"(%x, %w, %b) {num_groups = 4 : i64, eps = 1.0e-05 : f64} : (tensor<2x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x8x8xf32>
  return %y : tensor<2x16x8x8xf32>
}
