// RUN: fuse-opt %s --target=gpu --aten-decompose --lower-aten-to-loop --unroll-small-reductions --inline-pointwise --split-reductions | FileCheck %s
// RUN: fuse-opt %s --target=gpu --aten-decompose --lower-aten-to-loop=channels-last=false --unroll-small-reductions --inline-pointwise --split-reductions | FileCheck %s --check-prefix=NCHW
// RUN: fuse-run %s --target gpu --strategy inductor | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --jit --strategy inductor | FileCheck %s --check-prefix=EXEC

// Inductor's layout optimization past the convolution (torch 2.11 graph.py
// find_nodes_prefer_channels_last, run_node's maybe_apply_channels_last_stride_order):
// the convolution's result is channels-last (its input is), and the batch norm after
// it — realized because its two users (sigmoid and mul of the SiLU) would recompute 5
// reads — prefers channels-last (the squeeze-excite mean it feeds reaches the next
// convolution), so it is stored [N, H, W, C] where it is realized. The mean over H and
// W then reads it with strides 256 and 8 (the gate's product reads it
// too): an outer reduction, which the GPU target splits in 4 (Inductor's
// outer_reduction_splits; EfficientNet's first block on the H100: triton_red_fused_mean_silu_4 + triton_per_fused_mean_silu_5).
// CHECK-LABEL: func.func @se_block
// CHECK: result_order = array<i64: 0, 2, 3, 1>
// CHECK: %[[BN:.*]] = "loop.pointwise"() ({
// CHECK: origins = ["add", "mul", "sub"], ranges = array<i64: 1, 16, 32, 8>} : () -> tensor<1x16x32x8xf32>
// CHECK: "loop.reduction"() ({
// CHECK-NEXT: ^bb0(
// CHECK-NEXT: "loop.load"(%[[BN]])
// CHECK: kind = "sum", name = "buf4_split", origins = ["mean", "mul", "sigmoid"], ranges = array<i64: 1, 8, 4>, reduction_ranges = array<i64: 128>}
// CHECK: kind = "sum", name = "buf4", origins = ["mean", "mul", "sigmoid"], ranges = array<i64: 1, 8>, reduction_ranges = array<i64: 4>}

// Without layout optimization every buffer is NCHW and the mean an inner reduction of
// 512 elements per channel: not split.
// NCHW-LABEL: func.func @se_block
// NCHW: ranges = array<i64: 1, 8, 16, 32>} : () -> tensor<1x8x16x32xf32>
// NCHW-NOT: _split
// NCHW: kind = "sum", name = "buf2", origins = ["mean", "mul", "sigmoid"], ranges = array<i64: 1, 8>, reduction_ranges = array<i64: 16, 32>}

// EXEC: inductor output #0 {{.*}} 0 mismatches  PASS
func.func @se_block(%x: tensor<1x8x16x32xf32>, %w: tensor<8x8x3x3xf32>, %m: tensor<1x8x1x1xf32>, %s: tensor<1x8x1x1xf32>, %g: tensor<1x8x1x1xf32>, %b: tensor<1x8x1x1xf32>, %w2: tensor<8x8x1x1xf32>) -> tensor<1x8x16x32xf32> {
  %c = "aten.convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x16x32xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x32xf32>
  %0 = "aten.sub"(%c, %m) : (tensor<1x8x16x32xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x16x32xf32>
  %1 = "aten.mul"(%0, %s) : (tensor<1x8x16x32xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x16x32xf32>
  %2 = "aten.mul"(%1, %g) : (tensor<1x8x16x32xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x16x32xf32>
  %bn = "aten.add"(%2, %b) : (tensor<1x8x16x32xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x16x32xf32>
  %sg = "aten.sigmoid"(%bn) : (tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  %si = "aten.mul"(%bn, %sg) : (tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  %mean = "aten.mean"(%si) {dims = array<i64: 2, 3>, keepdim = true} : (tensor<1x8x16x32xf32>) -> tensor<1x8x1x1xf32>
  %se = "aten.convolution"(%mean, %w2) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x1x1xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %gate = "aten.sigmoid"(%se) : (tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
  %y = "aten.mul"(%si, %gate) : (tensor<1x8x16x32xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x16x32xf32>
  return %y : tensor<1x8x16x32xf32>
}
