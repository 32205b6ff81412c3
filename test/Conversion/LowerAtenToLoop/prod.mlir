// aten.prod: a loop.reduction of kind prod (bools and integers multiply in int64, as
// PyTorch promotes them), checked by execution interpreted and compiled.
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop | FileCheck %s
// RUN: fuse-run %s | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @rows
// CHECK: kind = "prod"
// CHECK-LABEL: func.func @mask_count
// CHECK: kind = "prod"{{.*}}-> tensor<4xi64>
// EXEC-NOT: {{FAIL|ERROR}}
// EXEC-LABEL: @rows
// EXEC-COUNT-6: PASS
// EXEC-LABEL: @mask_count
// EXEC-COUNT-6: PASS
func.func @rows(%x: tensor<8x16xf32>) -> tensor<8x1xf32> {
  %c = arith.constant dense<0.1> : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %s = "aten.mul"(%x, %c) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %t = "aten.add"(%s, %one) : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  %p = "aten.prod"(%t) {dims = array<i64: 1>, keepdim = true} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  return %p : tensor<8x1xf32>
}
func.func @mask_count(%x: tensor<4x6xf32>) -> tensor<4xi64> {
  %z = arith.constant dense<-0.9> : tensor<f32>
  %m = "aten.gt"(%x, %z) : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xi1>
  %p = "aten.prod"(%m) {dims = array<i64: 1>, keepdim = false} : (tensor<4x6xi1>) -> tensor<4xi64>
  return %p : tensor<4xi64>
}
