// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops="mode=relay" --fusion-report=- -o /dev/null | FileCheck %s

// Relay's registry and its same-shape edge rule (relay_pattern in
// passes/src/fusion/tvm/op_pattern.rs cites the registrations).

// Relay's graph creator gives the edge conv -> multiply the kind kElemWise (the
// multiply's result has the conv's shape), so the conv's dominance pattern is
// elementwise and it absorbs the folded batch norm and relu: Relay's classic
// `fused_nn_conv2d_multiply_add_nn_relu` (one kernel; without the rule the edge is
// kBroadcast and the conv stays alone: 2 kernels).
// CHECK-LABEL: "function": "conv_bn_relu"
// CHECK: "name": "fused_convolution_mul_add_relu"
// CHECK-NOT: "name":
// CHECK: "totals"
func.func @conv_bn_relu(%x: tensor<2x8x16x16xf32>, %w: tensor<8x8x3x3xf32>, %s: tensor<1x8x1x1xf32>, %t: tensor<1x8x1x1xf32>) -> tensor<2x8x16x16xf32> {
  %c = "aten.convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x16x16xf32>
  %m = "aten.mul"(%c, %s) : (tensor<2x8x16x16xf32>, tensor<1x8x1x1xf32>) -> tensor<2x8x16x16xf32>
  %a = "aten.add"(%m, %t) : (tensor<2x8x16x16xf32>, tensor<1x8x1x1xf32>) -> tensor<2x8x16x16xf32>
  %r = "aten.relu"(%a) : (tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  return %r : tensor<2x8x16x16xf32>
}

// -----

// The rule needs equal shapes: a [1, 8] matmul result broadcast into [32, 8] is a
// kBroadcast edge, and the matmul does not absorb the add.
// CHECK-LABEL: "function": "row_times_matrix"
// CHECK: "name": "mm"
// CHECK: "name": "fused_add_relu"
func.func @row_times_matrix(%a: tensor<1x16xf32>, %w: tensor<16x8xf32>, %y: tensor<32x8xf32>) -> tensor<32x8xf32> {
  %h = "aten.mm"(%a, %w) : (tensor<1x16xf32>, tensor<16x8xf32>) -> tensor<1x8xf32>
  %s = "aten.add"(%h, %y) : (tensor<1x8xf32>, tensor<32x8xf32>) -> tensor<32x8xf32>
  %r = "aten.relu"(%s) : (tensor<32x8xf32>) -> tensor<32x8xf32>
  return %r : tensor<32x8xf32>
}

// -----

// nn.softmax is registered OUT_ELEMWISE_FUSABLE: it absorbs the elementwise scale
// (fused_nn_softmax_multiply).
// CHECK-LABEL: "function": "softmax_scaled"
// CHECK: "name": "fused_softmax_mul"
// CHECK-NOT: "name":
// CHECK: "totals"
func.func @softmax_scaled(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %p = "aten.softmax"(%x) {dim = 1 : i64} : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %c = arith.constant dense<2.0> : tensor<f32>
  %y = "aten.mul"(%p, %c) : (tensor<64x128xf32>, tensor<f32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// expand_dims (unsqueeze) is kBroadcast, not kInjective: it fuses in phase 0 with its
// producer into the reduction, one kernel.
// CHECK-LABEL: "function": "unsqueeze_sum"
// CHECK: "name": "fused_exp_unsqueeze_sum"
// CHECK-NOT: "name":
// CHECK: "totals"
func.func @unsqueeze_sum(%x: tensor<64x128xf32>) -> tensor<1x64xf32> {
  %e = "aten.exp"(%x) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %u = "aten.unsqueeze"(%e) {dim = 0 : i64} : (tensor<64x128xf32>) -> tensor<1x64x128xf32>
  %s = "aten.sum"(%u) {dims = array<i64: 2>, keepdim = false} : (tensor<1x64x128xf32>) -> tensor<1x64xf32>
  return %s : tensor<1x64xf32>
}

// -----

// nn.layer_norm has no pattern of its own: Relay's SimplifyInference rewrites it into
// mean / variance / subtract / add / sqrt / divide / multiply / add before FuseOps, so
// its primitives are fused like any others — here the last of them with the relu.
// (fuselab's primitives are aten-decompose's: mean as sum + div, the variance sharing
// the centred values; Relay's mean and variance are single ops, so the group count
// may differ from Relay's.)
// CHECK-LABEL: "function": "layer_norm_relu"
// CHECK: "name": "layer_norm"
// CHECK: "name": "fused_layer_norm_{{.*}}_relu"
// CHECK: "totals"
func.func @layer_norm_relu(%x: tensor<64x128xf32>, %w: tensor<128xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %y = "aten.layer_norm"(%x, %w, %b) {normalized_shape = array<i64: 128>, eps = 1.0e-05 : f64} : (tensor<64x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %r = "aten.relu"(%y) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
