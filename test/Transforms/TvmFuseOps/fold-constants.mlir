// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops="fold-constants=false" | FileCheck %s --check-prefix=NOFOLD
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop="materialize-views=true" --tvm-fuse-ops --fusion-report=- -o /dev/null | FileCheck %s --check-prefix=REPORT

// Relax's FoldConstant before FuseOps (fusion/tvm/fold_constant.rs): an op whose every
// argument is a constant is evaluated when TVM builds the module. Buffers and tensor
// constants are constants (Relax's importer binds them), parameters and user inputs are
// not; an op without tensor arguments (arange) is. Folded ops fuse with nothing and are
// marked fuselab.evaluation = "folded" (fuselab still runs them).

// A BERT-like prologue: position ids sliced from a buffer and gathered from a parameter
// table, a mask from arange. The slice, its views and the mask fold; the gather reads a
// parameter and stays, and so does everything computed from the input.
// CHECK-LABEL: func.func @prologue
// CHECK: fuselab.evaluation = "folded", name = "buf0", origins = ["slice"]
// CHECK: fuselab.evaluation = "folded", name = "buf1", origins = ["view"]
// CHECK: fuselab.evaluation = "folded", name = "buf6", origins = ["arange"]
// CHECK: fuselab.evaluation = "folded", name = "buf7", origins = ["ge"]
// CHECK-NOT: fuselab.evaluation
// CHECK: name = "buf4", origins = ["gather"]
// CHECK: name = "fused_view_add_mul_where", strategy = "tvm"
// CHECK: return
// Without folding the mask fuses with the slice's views into one injective group.
// NOFOLD-LABEL: func.func @prologue
// NOFOLD-NOT: fuselab.evaluation
// NOFOLD: return
// REPORT: "function": "prologue"
// REPORT: "name": "slice"
// REPORT: "evaluation": "folded"
// REPORT: "name": "gather"
// REPORT-NOT: "evaluation"
// REPORT: "name": "fused_view_add_mul_where"
// REPORT: "folded_kernels": 6
func.func @prologue(%x: tensor<1x16x32xf32> {fuselab.input = "user_input", fuselab.name = "x"}, %w: tensor<32xf32> {fuselab.input = "parameter", fuselab.name = "w"}, %pos: tensor<1x64xi64> {fuselab.input = "buffer", fuselab.name = "position_ids"}, %table: tensor<64x32xf32> {fuselab.input = "parameter", fuselab.name = "table"}) -> tensor<1x16x32xf32> {
  %s = "aten.slice"(%pos) {dim = 1 : i64, start = 0 : i64, end = 16 : i64, step = 1 : i64} : (tensor<1x64xi64>) -> tensor<1x16xi64>
  %sv = "aten.view"(%s) : (tensor<1x16xi64>) -> tensor<16xi64>
  %su = "aten.unsqueeze"(%sv) {dim = 1 : i64} : (tensor<16xi64>) -> tensor<16x1xi64>
  %se = "aten.expand"(%su) : (tensor<16x1xi64>) -> tensor<16x32xi64>
  %g = "aten.gather"(%table, %se) {dim = 0 : i64} : (tensor<64x32xf32>, tensor<16x32xi64>) -> tensor<16x32xf32>
  %gv = "aten.view"(%g) : (tensor<16x32xf32>) -> tensor<1x16x32xf32>
  %a = "aten.arange"() {start = 0.0 : f64, step = 1.0 : f64} : () -> tensor<32xi64>
  %zero = arith.constant dense<0> : tensor<i64>
  %ge = "aten.ge"(%a, %zero) : (tensor<32xi64>, tensor<i64>) -> tensor<32xi1>
  %y = "aten.add"(%x, %gv) : (tensor<1x16x32xf32>, tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
  %yw = "aten.mul"(%y, %w) : (tensor<1x16x32xf32>, tensor<32xf32>) -> tensor<1x16x32xf32>
  %fz = arith.constant dense<0.0> : tensor<f32>
  %o = "aten.where"(%ge, %yw, %fz) : (tensor<32xi1>, tensor<1x16x32xf32>, tensor<f32>) -> tensor<1x16x32xf32>
  return %o : tensor<1x16x32xf32>
}

// -----

// Relax's index_tensor (fuse-import's origin for several index tensors) takes its
// indices as a tuple, which FoldConstant does not look through: never folded, and
// neither is what reads it. A cumsum is no TIR function in Relax 0.27 (no legalization):
// never folded, opaque, a builtin (not a call_tir).
// CHECK-LABEL: func.func @not_foldable
// CHECK: fuselab.evaluation = "folded", name = "buf0", origins = ["arange"]
// CHECK: fuselab.evaluation = "folded", name = "buf1", origins = ["arange"]
// CHECK: fuselab.evaluation = "builtin", kind = "sum", name = "buf3", origins = ["cumsum"]
// CHECK-NOT: fuselab.evaluation
// CHECK: name = "buf2", origins = ["index_tensor"]
// CHECK: name = "fused_index_tensor_add", strategy = "tvm"
// CHECK: name = "buf4", origins = ["add"]
// CHECK: return
// REPORT: "function": "not_foldable"
// REPORT: "name": "cumsum"
// REPORT: "evaluation": "builtin"
// REPORT: "folded_kernels": 2
// REPORT: "builtin_kernels": 1
func.func @not_foldable(%x: tensor<8x8xi64> {fuselab.input = "user_input", fuselab.name = "x"}, %t: tensor<8x8xi64> {fuselab.input = "tensor_constant", fuselab.name = "t"}) -> (tensor<8xi64>, tensor<8x8xi64>) {
  %i = "aten.arange"() {start = 0.0 : f64, step = 1.0 : f64} : () -> tensor<8xi64>
  %j = "aten.arange"() {start = 0.0 : f64, step = 1.0 : f64} : () -> tensor<8xi64>
  %lin = "aten.add"(%i, %j) {fuselab.origin = "index_tensor", fuselab.op_group = "index"} : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi64>
  %c = "aten.sum"(%t) {dims = array<i64: 1>, keepdim = false, fuselab.origin = "cumsum", fuselab.op_group = "cumsum"} : (tensor<8x8xi64>) -> tensor<8xi64>
  %y = "aten.add"(%x, %c) : (tensor<8x8xi64>, tensor<8xi64>) -> tensor<8x8xi64>
  %z = "aten.add"(%lin, %c) : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi64>
  return %z, %y : tensor<8xi64>, tensor<8x8xi64>
}
