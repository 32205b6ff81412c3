// RUN: fuse-opt %s | FileCheck %s
// CHECK-LABEL: func.func @f
// CHECK: "aten.add"
func.func @f(%x: tensor<4x4xf32>, %y: tensor<4xf32>) -> tensor<4x4xf32> {
  %0 = "aten.add"(%x, %y) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
