// A view of a splat constant (here its transpose) is the same splat: the lowering used
// the splat's empty access shape for the view's map and panicked (index out of bounds).
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop | FileCheck %s
// RUN: fuse-run %s | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @transposed_splat
// CHECK: "loop.pointwise"
// CHECK: arith.constant 1.500000e+00 : f32
// CHECK-NOT: "loop.load"(%cst
// EXEC-COUNT-6: PASS
func.func @transposed_splat(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %c = arith.constant dense<1.5> : tensor<4x8xf32>
  %t = "aten.transpose"(%c) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %y = "aten.add"(%t, %x) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
