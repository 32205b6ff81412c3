// Views through every pipeline, interpreted and compiled.
// RUN: fuse-run %s | FileCheck %s
// RUN: fuse-run %s --jit | FileCheck %s
// The squeezed dim is the one `dims` names, not the first size-1 dim (found by the
// fuzzer: [1, 3, 1, 4] squeezed at 2 was lowered as a squeeze of dim 0):
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --mlir-print-local-scope | FileCheck %s --check-prefix=LAYOUT

// CHECK-LABEL: @squeeze_inner_unit_dim
// CHECK-COUNT-4: output #0 tensor<1x3x4xf32>: {{.*}} PASS
// CHECK-NOT: FAIL
// LAYOUT-LABEL: func.func @squeeze_inner_unit_dim
// LAYOUT: "loop.view"(%{{.*}}) {layout = array<i64: 0, 1, 3, 4, 12, 4, 1>} : (tensor<1x3x1x4xf32>) -> tensor<1x3x4xf32>
func.func @squeeze_inner_unit_dim(%a: tensor<1x3x1x4xf32>) -> tensor<1x3x4xf32> {
  %n = "aten.neg"(%a) : (tensor<1x3x1x4xf32>) -> tensor<1x3x1x4xf32>
  %s = "aten.squeeze"(%n) {dims = array<i64: 2>} : (tensor<1x3x1x4xf32>) -> tensor<1x3x4xf32>
  return %s : tensor<1x3x4xf32>
}

// A transpose round trip, then unsqueeze / clone / squeeze (the fuzzer's reproducer).
// CHECK-LABEL: @transpose_unsqueeze_squeeze
// CHECK-COUNT-4: output #0 tensor<1x3x4xf32>: {{.*}} PASS
// CHECK-NOT: FAIL
func.func @transpose_unsqueeze_squeeze(%a0: tensor<1x3x4xf32>) -> tensor<1x3x4xf32> {
  %v1 = "aten.transpose"(%a0) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<1x3x4xf32>) -> tensor<1x4x3xf32>
  %v2 = "aten.sin"(%v1) : (tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  %v3 = "aten.transpose"(%v2) {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<1x4x3xf32>) -> tensor<1x3x4xf32>
  %v8 = "aten.unsqueeze"(%v3) {dim = 2 : i64} : (tensor<1x3x4xf32>) -> tensor<1x3x1x4xf32>
  %v9 = "aten.clone"(%v8) : (tensor<1x3x1x4xf32>) -> tensor<1x3x1x4xf32>
  %v10 = "aten.squeeze"(%v9) {dims = array<i64: 2>} : (tensor<1x3x1x4xf32>) -> tensor<1x3x4xf32>
  return %v10 : tensor<1x3x4xf32>
}

// Squeezing every unit dim (empty `dims`) of [1, 3, 1, 1].
// CHECK-LABEL: @squeeze_all
// CHECK-COUNT-4: output #0 tensor<3xf32>: {{.*}} PASS
// CHECK-NOT: FAIL
func.func @squeeze_all(%a: tensor<1x3x1x1xf32>) -> tensor<3xf32> {
  %n = "aten.exp"(%a) : (tensor<1x3x1x1xf32>) -> tensor<1x3x1x1xf32>
  %s = "aten.squeeze"(%n) {dims = array<i64>} : (tensor<1x3x1x1xf32>) -> tensor<3xf32>
  return %s : tensor<3xf32>
}

// A convolution whose input and weight are views (a permutation, a selected slice): the
// compiled code copies each view to a contiguous buffer before im2col (it refused them
// before: "convolution operands with views are not generated yet").
// CHECK-LABEL: @conv_of_views
// CHECK-COUNT-4: output #0 tensor<4x3x5xf32>: {{.*}} PASS
// CHECK-NOT: FAIL
func.func @conv_of_views(%x: tensor<4x5x2xf32>, %w: tensor<3x2x2x1xf32>, %b: tensor<3xf32>) -> tensor<4x3x5xf32> {
  %xt = "aten.permute"(%x) {dims = array<i64: 0, 2, 1>} : (tensor<4x5x2xf32>) -> tensor<4x2x5xf32>
  %ws = "aten.select"(%w) {dim = 2 : i64, index = 1 : i64} : (tensor<3x2x2x1xf32>) -> tensor<3x2x1xf32>
  %y = "aten.convolution"(%xt, %ws, %b) {stride = array<i64: 1>, padding = array<i64: 0>, dilation = array<i64: 1>, groups = 1 : i64} : (tensor<4x2x5xf32>, tensor<3x2x1xf32>, tensor<3xf32>) -> tensor<4x3x5xf32>
  return %y : tensor<4x3x5xf32>
}
