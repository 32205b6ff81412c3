// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile | FileCheck %s
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile=hoist-loads=true | FileCheck %s --check-prefix=HOIST

// rmsnorm's shape: the epilogue's weight load follows the row's reduction by default;
// with hoist-loads=true it (and its index arithmetic) is issued before the reduction,
// beside the row's own load. The epilogue's read of the row moves too (the same block:
// the GPU lowering reuses the first load's registers for it).
// CHECK-LABEL: "tile.kernel"
// CHECK: "tile.load"(%arg1
// CHECK: "tile.reduce"
// CHECK: "tile.load"(%arg2
// CHECK: "tile.store"
// HOIST-LABEL: "tile.kernel"
// HOIST: "tile.load"(%arg1
// HOIST: "tile.load"(%arg2
// HOIST: "tile.reduce"
// HOIST-NOT: "tile.load"(%arg2
// HOIST: "tile.store"
func.func @rmsnorm(%x: tensor<64x4096xf32>, %w: tensor<4096xf32>) -> tensor<64x4096xf32> {
  %sq = "aten.mul"(%x, %x) : (tensor<64x4096xf32>, tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %ms = "aten.mean"(%sq) {dims = array<i64: -1>, keepdim = true} : (tensor<64x4096xf32>) -> tensor<64x1xf32>
  %c0 = arith.constant dense<1.0e-06> : tensor<f32>
  %ms_eps = "aten.add"(%ms, %c0) : (tensor<64x1xf32>, tensor<f32>) -> tensor<64x1xf32>
  %r = "aten.rsqrt"(%ms_eps) : (tensor<64x1xf32>) -> tensor<64x1xf32>
  %xr = "aten.mul"(%x, %r) : (tensor<64x4096xf32>, tensor<64x1xf32>) -> tensor<64x4096xf32>
  %y = "aten.mul"(%xr, %w) : (tensor<64x4096xf32>, tensor<4096xf32>) -> tensor<64x4096xf32>
  return %y : tensor<64x4096xf32>
}
