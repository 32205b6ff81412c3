// floor, ceil, round (half to even, as torch.round) and trunc: upstream math ops on
// floats, the identity on integers; checked by execution (interpreted and compiled).
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop | FileCheck %s
// RUN: fuse-run %s | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @rounding
// CHECK-DAG: math.floor
// CHECK-DAG: math.ceil
// CHECK-DAG: math.roundeven
// CHECK-DAG: math.trunc
// CHECK-LABEL: func.func @integers
// CHECK-NOT: math.
// CHECK: return
// EXEC-NOT: {{FAIL|ERROR}}
// EXEC-LABEL: @rounding
// EXEC-COUNT-6: PASS
// EXEC-LABEL: @integers
// EXEC-COUNT-6: PASS
func.func @rounding(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %c = arith.constant dense<2.5> : tensor<f32>
  %s = "aten.mul"(%x, %c) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %a = "aten.floor"(%s) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %b = "aten.ceil"(%s) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = "aten.round"(%s) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %t = "aten.trunc"(%s) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %ab = "aten.add"(%a, %b) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %rt = "aten.mul"(%r, %t) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = "aten.sub"(%ab, %rt) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  // Exact halves (k / 2): ties go to even, in the interpreter and in compiled code alike.
  %half = arith.constant dense<0.5> : tensor<f32>
  %k = "aten.floor"(%s) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %kh = "aten.mul"(%k, %half) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %ties = "aten.round"(%kh) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %z = "aten.add"(%y, %ties) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %z : tensor<8x16xf32>
}
func.func @integers(%x: tensor<16xi64>) -> tensor<16xi64> {
  %a = "aten.floor"(%x) : (tensor<16xi64>) -> tensor<16xi64>
  %r = "aten.round"(%a) : (tensor<16xi64>) -> tensor<16xi64>
  return %r : tensor<16xi64>
}
