// Op math of half-precision ops: each op computes in f32 and rounds its result once
// (PyTorch's opmath_t); that rounding is marked `fuselab.opmath`, which a target keeping
// f32 inside fused kernels (Ascend) skips. A user's dtype conversion is not op math: its
// rounding is the op itself and stays. A conversion that a decomposition made (the mean
// of a half tensor: an f32 sum, a division, one rounding to f16) rounds the composite's
// result: op math again.
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop | FileCheck %s

// CHECK-LABEL: func.func @ops_and_casts
// CHECK: "loop.pointwise"
// CHECK: arith.mulf {{.*}} : f32
// CHECK: arith.truncf {{.*}} {fuselab.opmath} : f32 to f16
// CHECK: origins = ["mul"]
// CHECK: "loop.pointwise"
// CHECK-NOT: fuselab.opmath
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: origins = ["to_dtype"]
func.func @ops_and_casts(%x: tensor<8x16xf16>, %y: tensor<8x16xf32>) -> (tensor<8x16xf16>, tensor<8x16xf16>) {
  %m = "aten.mul"(%x, %x) : (tensor<8x16xf16>, tensor<8x16xf16>) -> tensor<8x16xf16>
  %c = "aten.to_dtype"(%y) : (tensor<8x16xf32>) -> tensor<8x16xf16>
  return %m, %c : tensor<8x16xf16>, tensor<8x16xf16>
}

// CHECK-LABEL: func.func @mean
// CHECK: kind = "sum"
// CHECK: arith.divf
// CHECK: arith.truncf {{.*}} {fuselab.opmath} : f32 to f16
// CHECK: origins = ["mean"]
func.func @mean(%x: tensor<8x16xf16>) -> tensor<8x1xf16> {
  %m = "aten.mean"(%x) {dims = array<i64: 1>, keepdim = true} : (tensor<8x16xf16>) -> tensor<8x1xf16>
  return %m : tensor<8x1xf16>
}
