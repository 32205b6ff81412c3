// Splat constants as operands: the lowering keeps a splat as a value with no shape, and
// used that empty shape for a view's map (a transposed splat panicked), a cat's sizes
// (panicked), a reduction's ranges ("ranges do not cover the result") and a returned
// splat's copy (invalid IR: a tensor<f32> returned for a tensor<2x3xf32>). Each uses the
// declared shape now.
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop | FileCheck %s
// RUN: fuse-run %s | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @transposed_splat
// CHECK: "loop.pointwise"
// CHECK: arith.constant 1.500000e+00 : f32
// CHECK-NOT: "loop.load"(%cst
// EXEC-COUNT-6: PASS
// EXEC-LABEL: @sum_splat
// EXEC-COUNT-6: PASS
// EXEC-LABEL: @return_splat
// EXEC-COUNT-12: PASS
// EXEC-LABEL: @view_splat_out
// EXEC-COUNT-6: PASS
// EXEC-LABEL: @cat_splat
// EXEC-COUNT-6: PASS
// EXEC-NOT: {{FAIL|ERROR}}
func.func @transposed_splat(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %c = arith.constant dense<1.5> : tensor<4x8xf32>
  %t = "aten.transpose"(%c) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %y = "aten.add"(%t, %x) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
func.func @sum_splat(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<1.5> : tensor<4x8xf32>
  %s = "aten.sum"(%c) {dims = array<i64: 1>, keepdim = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  %y = "aten.add"(%s, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @return_splat(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x3xf32>) {
  %c = arith.constant dense<1.5> : tensor<2x3xf32>
  return %x, %c : tensor<4xf32>, tensor<2x3xf32>
}
func.func @view_splat_out(%x: tensor<4xf32>) -> tensor<3x2xf32> {
  %c = arith.constant dense<1.5> : tensor<2x3xf32>
  %t = "aten.transpose"(%c) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}
func.func @cat_splat(%x: tensor<4xf32>) -> tensor<6xf32> {
  %c = arith.constant dense<1.5> : tensor<2xf32>
  %t = "aten.cat"(%c, %x) {dim = 0 : i64} : (tensor<2xf32>, tensor<4xf32>) -> tensor<6xf32>
  return %t : tensor<6xf32>
}
