// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops | FileCheck %s

// Forms fuse-import writes so that the TVM strategy sees Relax's bindings
// (docs/strategies/tvm.md, "Fidelity on the model corpus").

// A split is one op with several results (fuselab.op_group = "split" on its slices):
// fused with its elementwise producer as Relax's `split`, its consumers apart (each
// reads it as a TupleGetItem; the results leave the function, so the split has no
// post-dominator). Without the group each slice would fuse into its sigmoid instead.
// CHECK-LABEL: func.func @split
// CHECK: name = "fused_exp_split", strategy = "tvm"
// CHECK-NOT: loop.kernel
// CHECK-COUNT-3: origins = ["sigmoid"]
// CHECK: return
func.func @split(%x: tensor<4x12xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = "aten.exp"(%x) : (tensor<4x12xf32>) -> tensor<4x12xf32>
  %a = "aten.slice"(%e) {dim = 1 : i64, start = 0 : i64, end = 4 : i64, step = 1 : i64, fuselab.origin = "split", fuselab.op_group = "split"} : (tensor<4x12xf32>) -> tensor<4x4xf32>
  %b = "aten.slice"(%e) {dim = 1 : i64, start = 4 : i64, end = 8 : i64, step = 1 : i64, fuselab.origin = "split", fuselab.op_group = "split"} : (tensor<4x12xf32>) -> tensor<4x4xf32>
  %c = "aten.slice"(%e) {dim = 1 : i64, start = 8 : i64, end = 12 : i64, step = 1 : i64, fuselab.origin = "split", fuselab.op_group = "split"} : (tensor<4x12xf32>) -> tensor<4x4xf32>
  %sa = "aten.sigmoid"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sb = "aten.sigmoid"(%b) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %sc = "aten.sigmoid"(%c) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %sa, %sb, %sc : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A view to its own shape is no op, unless its sizes were written with a -1
// (fuselab.inferred_size): Relax's importer keeps that reshape, a copy of its own after
// the layer norm (kOutEWiseFusable does not absorb an injective op).
// CHECK-LABEL: func.func @identity_views
// CHECK: origins = ["layer_norm"]
// CHECK: name = "buf{{[0-9]+}}", origins = ["view"]
// CHECK-NOT: origins = ["view"]
// CHECK: return
func.func @identity_views(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %n = "aten.layer_norm"(%x, %w, %b) {normalized_shape = array<i64: 8>, eps = 1.0e-5 : f64} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %kept = "aten.view"(%n) {fuselab.inferred_size} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %dropped = "aten.view"(%n) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = "aten.relu"(%dropped) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %kept, %y : tensor<2x8xf32>, tensor<2x8xf32>
}
