// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --tvm-fuse-ops | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops | FileCheck %s --check-prefix=VIEWS
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --tvm-fuse-ops="mode=relay" | FileCheck %s --check-prefix=RELAY

// TVM FuseOps rules (graph_partitioner.cc; ../shared/research/tvm_rules.md). A group of
// two or more ops is a loop.kernel "fused_<ops>"; a group of one op stays unfused.

// The seed model. Relax: mean (sum + divide blocks) is kOutEWiseFusable, so s (whose
// dominance pattern is kOutEWiseFusable) cannot fuse into s - m: 2 groups. Relay: mean
// is kCommReduce, never starts a fusion, and blocks the path from s: 3 groups.
// CHECK-LABEL: func.func @seed
// CHECK: name = "fused_mul_add_relu_mul_mul_add", strategy = "tvm"
// CHECK: name = "fused_mean_sub_mul_add", strategy = "tvm"
// CHECK-NOT: loop.kernel
// CHECK: return
// RELAY-LABEL: func.func @seed
// RELAY: name = "fused_mul_add_relu_mul_mul_add", strategy = "tvm"
// RELAY: name = "mean", strategy = "tvm"
// RELAY: name = "fused_sub_mul_add", strategy = "tvm"
// RELAY-NOT: loop.kernel
// RELAY: return
func.func @seed(%x: tensor<64x128xf32>, %bias: tensor<128xf32>, %gamma: tensor<128xf32>, %beta: tensor<128xf32>) -> tensor<64x128xf32> {
  %c11 = arith.constant dense<1.1> : tensor<f32>
  %c01 = arith.constant dense<0.1> : tensor<f32>
  %t0 = "aten.mul"(%x, %c11) : (tensor<64x128xf32>, tensor<f32>) -> tensor<64x128xf32>
  %t = "aten.add"(%t0, %bias) : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %a = "aten.relu"(%t) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %p = "aten.mul"(%a, %a) : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %q = "aten.mul"(%a, %c01) : (tensor<64x128xf32>, tensor<f32>) -> tensor<64x128xf32>
  %s = "aten.add"(%p, %q) : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %m = "aten.mean"(%s) {dims = array<i64: 1>, keepdim = true} : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %d = "aten.sub"(%s, %m) : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
  %g = "aten.mul"(%d, %gamma) : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %y = "aten.add"(%g, %beta) : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// layer_norm written in primitives: {mean, x - m}, {d * d} alone (its post-dominator
// is reached through the second mean, kOutEWiseFusable), {mean, + eps, rsqrt, *, *w, +b}:
// 3 groups, as TVM Relax 0.27.
// CHECK-LABEL: func.func @layernorm_primitives
// CHECK: name = "fused_mean_sub", strategy = "tvm"
// CHECK: name = "buf3", origins = ["mul"]
// CHECK: name = "fused_mean_add_rsqrt_mul_mul_add", strategy = "tvm"
// CHECK-NOT: loop.kernel
// CHECK: return
func.func @layernorm_primitives(%x: tensor<64x128xf32>, %w: tensor<128xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %m = "aten.mean"(%x) {dims = array<i64: -1>, keepdim = true} : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %d = "aten.sub"(%x, %m) : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
  %d2 = "aten.mul"(%d, %d) : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %v = "aten.mean"(%d2) {dims = array<i64: -1>, keepdim = true} : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %ve = "aten.add"(%v, %eps) : (tensor<64x1xf32>, tensor<f32>) -> tensor<64x1xf32>
  %r = "aten.rsqrt"(%ve) : (tensor<64x1xf32>) -> tensor<64x1xf32>
  %n = "aten.mul"(%d, %r) : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
  %y = "aten.mul"(%n, %w) : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %o = "aten.add"(%y, %b) : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  return %o : tensor<64x128xf32>
}

// -----

// softmax in primitives: amax and sum are kCommReduce (never start a fusion, and block
// the path from exp to the divide): {amax}, {x - max, exp}, {sum}, {divide}: 4 groups.
// CHECK-LABEL: func.func @softmax_primitives
// CHECK: name = "buf0", origins = ["amax"]
// CHECK: name = "fused_sub_exp", strategy = "tvm"
// CHECK: name = "buf3", origins = ["sum"]
// CHECK: name = "buf4", origins = ["div"]
// CHECK-NOT: loop.kernel
// CHECK: return
func.func @softmax_primitives(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %mx = "aten.amax"(%x) {dims = array<i64: -1>, keepdim = true} : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %d = "aten.sub"(%x, %mx) : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
  %e = "aten.exp"(%d) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %s = "aten.sum"(%e) {dims = array<i64: -1>, keepdim = true} : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %y = "aten.div"(%e, %s) : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// Attention as a hand-built Relax graph (3-D, no reshapes). The softmax op is one
// kOutEWiseFusable node (its 4 blocks become one kernel named after it); the matmul
// absorbs the scaling. With views materialized the transpose is an op of its own that
// cannot fuse into the matmul (dominance pattern kOutEWiseFusable): 4 groups, TVM's count.
// CHECK-LABEL: func.func @attention
// CHECK: name = "fused_bmm_div", strategy = "tvm"
// CHECK: name = "softmax", strategy = "tvm"
// CHECK: "loop.extern"
// CHECK-SAME: origins = ["bmm"]
// CHECK-NOT: loop.kernel
// CHECK: return
// VIEWS-LABEL: func.func @attention
// VIEWS: name = "buf0", origins = ["transpose"]
// VIEWS: name = "fused_bmm_div", strategy = "tvm"
// VIEWS: name = "softmax", strategy = "tvm"
// VIEWS: "loop.extern"
// VIEWS-NOT: loop.kernel
// VIEWS: return
func.func @attention(%q: tensor<16x64x32xf32>, %k: tensor<16x64x32xf32>, %v: tensor<16x64x32xf32>) -> tensor<16x64x32xf32> {
  %c8 = arith.constant dense<8.0> : tensor<f32>
  %kt = "aten.transpose"(%k) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<16x64x32xf32>) -> tensor<16x32x64xf32>
  %s = "aten.bmm"(%q, %kt) : (tensor<16x64x32xf32>, tensor<16x32x64xf32>) -> tensor<16x64x64xf32>
  %sc = "aten.div"(%s, %c8) : (tensor<16x64x64xf32>, tensor<f32>) -> tensor<16x64x64xf32>
  %p = "aten.softmax"(%sc) {dim = -1 : i64} : (tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %o = "aten.bmm"(%p, %v) : (tensor<16x64x64xf32>, tensor<16x64x32xf32>) -> tensor<16x64x32xf32>
  return %o : tensor<16x64x32xf32>
}

// -----

// The same attention with softmax written in primitives: 7 groups with views
// materialized ({transpose}, {bmm, div}, {amax}, {sub, exp}, {sum}, {div}, {bmm}).
// VIEWS-LABEL: func.func @attention_softmax_primitives
// VIEWS: name = "buf0", origins = ["transpose"]
// VIEWS: name = "fused_bmm_div", strategy = "tvm"
// VIEWS: origins = ["amax"]
// VIEWS: name = "fused_sub_exp", strategy = "tvm"
// VIEWS: origins = ["sum"]
// VIEWS: origins = ["div"]
// VIEWS: "loop.extern"
// VIEWS-NOT: loop.kernel
// VIEWS: return
func.func @attention_softmax_primitives(%q: tensor<16x64x32xf32>, %k: tensor<16x64x32xf32>, %v: tensor<16x64x32xf32>) -> tensor<16x64x32xf32> {
  %c8 = arith.constant dense<8.0> : tensor<f32>
  %kt = "aten.transpose"(%k) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<16x64x32xf32>) -> tensor<16x32x64xf32>
  %s = "aten.bmm"(%q, %kt) : (tensor<16x64x32xf32>, tensor<16x32x64xf32>) -> tensor<16x64x64xf32>
  %sc = "aten.div"(%s, %c8) : (tensor<16x64x64xf32>, tensor<f32>) -> tensor<16x64x64xf32>
  %mx = "aten.amax"(%sc) {dims = array<i64: -1>, keepdim = true} : (tensor<16x64x64xf32>) -> tensor<16x64x1xf32>
  %d = "aten.sub"(%sc, %mx) : (tensor<16x64x64xf32>, tensor<16x64x1xf32>) -> tensor<16x64x64xf32>
  %e = "aten.exp"(%d) : (tensor<16x64x64xf32>) -> tensor<16x64x64xf32>
  %sm = "aten.sum"(%e) {dims = array<i64: -1>, keepdim = true} : (tensor<16x64x64xf32>) -> tensor<16x64x1xf32>
  %p = "aten.div"(%e, %sm) : (tensor<16x64x64xf32>, tensor<16x64x1xf32>) -> tensor<16x64x64xf32>
  %o = "aten.bmm"(%p, %v) : (tensor<16x64x64xf32>, tensor<16x64x32xf32>) -> tensor<16x64x32xf32>
  return %o : tensor<16x64x32xf32>
}

// -----

// A matmul absorbs elementwise epilogues only: the residual add and relu join it, the
// transpose after them (kInjective) does not. (A full-shape residual: a [N] bias would
// be folded into the extern by the lowering on the CPU target, Inductor's addmm rule.)
// VIEWS-LABEL: func.func @matmul_epilogue
// VIEWS: "loop.extern"
// VIEWS: name = "fused_mm_add_relu", strategy = "tvm"
// VIEWS: name = "buf3", origins = ["transpose"]
// VIEWS-NOT: loop.kernel
// VIEWS: return
func.func @matmul_epilogue(%a: tensor<32x16xf32>, %w: tensor<16x8xf32>, %b: tensor<32x8xf32>) -> tensor<8x32xf32> {
  %mm = "aten.mm"(%a, %w) : (tensor<32x16xf32>, tensor<16x8xf32>) -> tensor<32x8xf32>
  %y = "aten.add"(%mm, %b) : (tensor<32x8xf32>, tensor<32x8xf32>) -> tensor<32x8xf32>
  %r = "aten.relu"(%y) : (tensor<32x8xf32>) -> tensor<32x8xf32>
  %t = "aten.transpose"(%r) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<32x8xf32>) -> tensor<8x32xf32>
  return %t : tensor<8x32xf32>
}

// -----

// Nothing fuses through a function output: %e is returned, so exp stays alone even
// though its only other consumer is elementwise.
// CHECK-LABEL: func.func @through_output
// CHECK: name = "buf0", origins = ["exp"]
// CHECK: name = "fused_neg_abs", strategy = "tvm"
// CHECK-NOT: loop.kernel
// CHECK: return
func.func @through_output(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = "aten.exp"(%x) : (tensor<64xf32>) -> tensor<64xf32>
  %n = "aten.neg"(%e) : (tensor<64xf32>) -> tensor<64xf32>
  %a = "aten.abs"(%n) : (tensor<64xf32>) -> tensor<64xf32>
  return %e, %a : tensor<64xf32>, tensor<64xf32>
}
