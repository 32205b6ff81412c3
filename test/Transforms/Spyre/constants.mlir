// Constants adopt the stick their reader needs at no cost (torch-spyre: a constant is
// laid out when it is materialized): c.t() + x with c a dense [2, 64] constant. The op's
// stick is x's dim 1; the constant is read along it with stride 64, so it takes its dim 0.
// RUN: fuse-opt %s --spyre-assign-layouts | FileCheck %s

// CHECK-LABEL: func.func @constant
// CHECK-NOT: spyre.restickify
// CHECK: arith.constant
// CHECK-SAME: spyre.layout = {device_size = array<i64: 1, 64, 32>, stick_dim = 0 : i64, stride_map = array<i64: 2048, 1, 64>}
// CHECK: name = "buf0"{{.*}}spyre.stick = 1 : i64
func.func @constant(%x: tensor<64x2xf32>) -> tensor<64x2xf32> {
  %c = arith.constant dense<[[-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0], [-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, -3.0, -2.0]]> : tensor<2x64xf32>
  %0 = "loop.pointwise"() ({
  ^bb0(%i: index, %j: index):
    %a = "loop.load"(%c) {index = affine_map<(d0, d1) -> (d1 * 64 + d0)>} : (tensor<2x64xf32>) -> f32
    %b = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 2 + d1)>} : (tensor<64x2xf32>) -> f32
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {name = "buf0", ranges = array<i64: 64, 2>, origins = ["add"]} : () -> tensor<64x2xf32>
  return %0 : tensor<64x2xf32>
}
