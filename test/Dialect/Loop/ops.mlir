// RUN: fuse-opt %s | fuse-opt | FileCheck %s
// The loop dialect: the seed example after lowering and fusion, written by hand.
// Every loop op parses, verifies (IRDL + fuselab's structure verifier) and round-trips.

// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0 * 1024 + d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[RED:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @seed_fused
func.func @seed_fused(%x: tensor<1024x1024xf32>, %bias: tensor<1024xf32>, %gamma: tensor<1024xf32>, %beta: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  // CHECK: %[[K:.*]] = "loop.kernel"() ({
  %k = "loop.kernel"() ({
    // CHECK: %[[BUF0:.*]] = "loop.reduction"() ({
    // CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index):
    // CHECK-NEXT: "loop.load"(%{{.*}}) {index = #[[ROW]]} : (tensor<1024x1024xf32>) -> f32
    // CHECK: gpu.yield %{{.*}} : f32
    // CHECK-NEXT: }) {kind = "sum", name = "buf0", origins = ["add", "mean", "mul", "relu"], ranges = array<i64: 1024>, reduction_ranges = array<i64: 1024>} : () -> tensor<1024x1xf32>
    %buf0 = "loop.reduction"() ({
    ^bb0(%d0: index, %r0: index):
      %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 1024 + d1)>} : (tensor<1024x1024xf32>) -> f32
      %b = "loop.load"(%bias) {index = affine_map<(d0, d1) -> (d1)>} : (tensor<1024xf32>) -> f32
      %c = arith.constant 1.1 : f32
      %t0 = arith.mulf %v, %c : f32
      %t = arith.addf %t0, %b : f32
      %zero = arith.constant 0.0 : f32
      %a = arith.maximumf %t, %zero : f32
      %p = arith.mulf %a, %a : f32
      %c01 = arith.constant 0.1 : f32
      %q = arith.mulf %a, %c01 : f32
      %s = arith.addf %p, %q : f32
      gpu.yield %s : f32
    }) {name = "buf0", ranges = array<i64: 1024>, reduction_ranges = array<i64: 1024>, kind = "sum", origins = ["add", "mean", "mul", "relu"]} : () -> tensor<1024x1xf32>
    // CHECK: "loop.pointwise"() ({
    // CHECK: "loop.load"(%[[BUF0]]) {index = #[[RED]]} : (tensor<1024x1xf32>) -> f32
    // CHECK: }) {name = "buf1", origins = ["add", "mean", "mul", "relu", "sub"], ranges = array<i64: 1024, 1024>} : () -> tensor<1024x1024xf32>
    %buf1 = "loop.pointwise"() ({
    ^bb0(%d0: index, %d1: index):
      %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 1024 + d1)>} : (tensor<1024x1024xf32>) -> f32
      %sum = "loop.load"(%buf0) {index = affine_map<(d0, d1) -> (d0)>} : (tensor<1024x1xf32>) -> f32
      %g = "loop.load"(%gamma) {index = affine_map<(d0, d1) -> (d1)>} : (tensor<1024xf32>) -> f32
      %n = arith.constant 1024.0 : f32
      %m = arith.divf %sum, %n : f32
      %d = arith.subf %v, %m : f32
      %y = arith.mulf %d, %g : f32
      gpu.yield %y : f32
    }) {name = "buf1", ranges = array<i64: 1024, 1024>, origins = ["add", "mean", "mul", "relu", "sub"]} : () -> tensor<1024x1024xf32>
    // CHECK: gpu.yield %{{.*}} : tensor<1024x1024xf32>
    gpu.yield %buf1 : tensor<1024x1024xf32>
  // CHECK-NEXT: }) {iteration = array<i64: 1024, 1024>, name = "fused_add_mean_mul_relu_sub_0", strategy = "inductor"} : () -> tuple<tensor<1024x1024xf32>>
  }) {name = "fused_add_mean_mul_relu_sub_0", iteration = array<i64: 1024, 1024>, strategy = "inductor"} : () -> tuple<tensor<1024x1024xf32>>
  // CHECK: "loop.output"(%[[K]]) {index = 0 : i64} : (tuple<tensor<1024x1024xf32>>) -> tensor<1024x1024xf32>
  %y = "loop.output"(%k) {index = 0 : i64} : (tuple<tensor<1024x1024xf32>>) -> tensor<1024x1024xf32>
  return %y : tensor<1024x1024xf32>
}

// CHECK-LABEL: func.func @externs
func.func @externs(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %img: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>, %kb: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<1x4x8x8xf32>) {
  // CHECK: "loop.extern"(%{{.*}}, %{{.*}}) {kind = "mm", name = "buf0", origins = ["mm"]} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %0 = "loop.extern"(%x, %w) {name = "buf0", kind = "mm", origins = ["mm"]} : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  // CHECK: "loop.extern"(%{{.*}}, %{{.*}}, %{{.*}}) {dilation = array<i64: 1, 1>, groups = 1 : i64, kind = "convolution"
  %1 = "loop.extern"(%img, %k, %kb) {name = "buf1", kind = "convolution", origins = ["convolution"], stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<1x4x8x8xf32>
}

// Every reduction kind is accepted.
// CHECK-LABEL: func.func @reduction_kinds
// CHECK-COUNT-6: "loop.reduction"
func.func @reduction_kinds(%x: tensor<4x8xf32>) {
  %sum = "loop.reduction"() ({
  ^bb0(%d0: index, %r0: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 8 + d1)>} : (tensor<4x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf0", ranges = array<i64: 4>, reduction_ranges = array<i64: 8>, kind = "sum", origins = ["sum"]} : () -> tensor<4xf32>
  %max = "loop.reduction"() ({
  ^bb0(%d0: index, %r0: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 8 + d1)>} : (tensor<4x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf1", ranges = array<i64: 4>, reduction_ranges = array<i64: 8>, kind = "max", origins = ["amax"]} : () -> tensor<4xf32>
  %min = "loop.reduction"() ({
  ^bb0(%d0: index, %r0: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 8 + d1)>} : (tensor<4x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf2", ranges = array<i64: 4>, reduction_ranges = array<i64: 8>, kind = "min", origins = ["amin"]} : () -> tensor<4xf32>
  %prod = "loop.reduction"() ({
  ^bb0(%d0: index, %r0: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 8 + d1)>} : (tensor<4x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf3", ranges = array<i64: 4>, reduction_ranges = array<i64: 8>, kind = "prod", origins = ["prod"]} : () -> tensor<4xf32>
  %amax = "loop.reduction"() ({
  ^bb0(%d0: index, %r0: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 8 + d1)>} : (tensor<4x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf4", ranges = array<i64: 4>, reduction_ranges = array<i64: 8>, kind = "argmax", origins = ["argmax"]} : () -> tensor<4xi64>
  %amin = "loop.reduction"() ({
  ^bb0(%d0: index, %r0: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 8 + d1)>} : (tensor<4x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf5", ranges = array<i64: 4>, reduction_ranges = array<i64: 8>, kind = "argmin", origins = ["argmin"]} : () -> tensor<4xi64>
  return
}
