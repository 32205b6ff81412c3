// RUN: fuse-opt %s --target=gpu --aten-decompose --lower-aten-to-loop | FileCheck %s --check-prefix=GPU
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop | FileCheck %s --check-prefix=CPU
// RUN: fuse-opt %s --target=gpu --aten-decompose --lower-aten-to-loop=channels-last=false | FileCheck %s --check-prefix=NCHW
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop="materialize-views=true channels-last=false convolution-bias=add" | FileCheck %s --check-prefix=RELAX
// RUN: not fuse-opt %s --aten-decompose --lower-aten-to-loop=convolution-bias=both 2>&1 | FileCheck %s --check-prefix=BADBIAS
// RUN: fuse-run %s --target gpu | FileCheck %s --check-prefix=EXEC
// RUN: fuse-opt %s --target=gpu --fusion-compare | FileCheck %s --check-prefix=LAUNCHES
// RUN: fuse-opt %s --target=gpu --aten-decompose --lower-aten-to-loop --inductor-fuse --lower-loop-to-tile | FileCheck %s --check-prefix=TILE
// RUN: fuse-run %s --jit | FileCheck %s --check-prefix=EXEC
// RUN: env FUSELAB_BLAS=openblas fuse-run %s --jit | FileCheck %s --check-prefix=EXEC

// Two rules of Inductor's convolution lowering (torch 2.11):
// - layout optimization (graph.py decide_layout_opt, ExternKernel.require_channels_last;
//   on the GPU and the CPU):
//   a 2-D convolution reads a graph-input input or weight through a copy into
//   channels-last order, one kernel each, unless that order is the stored one (one
//   channel, as a depthwise weight [C, 1, k, k], or one spatial element, as a 1x1
//   weight); an input computed by a pointwise kernel that only the convolution reads
//   is computed in channels-last order instead (Inductor fixes its FlexibleLayout
//   channels-last: the copy reads it, and takes its place once it is inlined — no
//   kernel more), a library call's output is read as it is; a convolution with a
//   channels-last input or weight writes a channels-last result (the library's
//   suggest_memory_format; Inductor's conv_layout takes the meta kernel's strides):
//   its buffer is [N, H, W, C] (`result_order`), read as NCHW through strides, and
//   the next convolution takes it as it is (no copy);
// - on GPUs, kernel/conv.py "peel off the bias, cudnn is slower with it": the library call
//   convolves without the bias and a pointwise node of origin `convolution` adds it.
// Measured on the model corpus (test/Models/corpus.mlir): ResNet 12 calls, ResNet-18 36,
// SqueezeNet 31, MobileNetV2/V3 54/60, ViT 17 — Inductor's counts.

// On the GPU the image [1, 3, 8, 8] is written as [1, 8, 8, 3], the weight [4, 3, 3, 3] as
// [4, 3, 3, 3] in (O, kh, kw, I) order, and the extern reads both as NCHW views with
// channels-last strides (offset, sizes, strides).
// GPU-LABEL: func.func @stem
// GPU: %[[X:.*]] = "loop.pointwise"() ({
// GPU: "loop.load"(%arg0)
// GPU: origins = ["convolution"], ranges = array<i64: 1, 8, 8, 3>} : () -> tensor<1x8x8x3xf32>
// GPU: %[[W:.*]] = "loop.pointwise"() ({
// GPU: "loop.load"(%arg1)
// GPU: origins = ["convolution"], ranges = array<i64: 4, 3, 3, 3>} : () -> tensor<4x3x3x3xf32>
// GPU: %[[C:.*]] = "loop.extern"(%[[X]], %[[W]]) {{.*}}kind = "convolution"{{.*}}operand_views = [array<i64: 0, 1, 3, 8, 8, 192, 1, 24, 3>, array<i64: 0, 4, 3, 3, 3, 27, 1, 9, 3>]
// GPU: "loop.pointwise"() ({
// GPU: "loop.load"(%[[C]])
// GPU: "loop.load"(%arg2) {index = #{{.*}}} : (tensor<4xf32>) -> f32
// GPU: arith.addf
// GPU: origins = ["convolution"], ranges = array<i64: 1, 4, 8, 8>}
// GPU: origins = ["relu"], ranges = array<i64: 1, 8, 8, 4>} : () -> tensor<1x8x8x4xf32>
// GPU: %[[P:.*]] = "loop.extern"(%{{.*}}, %arg3) {{.*}}operand_views = [array<i64: 0, 1, 4, 8, 8, 256, 1, 32, 4>, array<i64>]{{.*}}result_order = array<i64: 0, 2, 3, 1>{{.*}} -> tensor<1x8x8x4xf32>
// GPU: %[[D:.*]] = "loop.extern"(%[[P]], %arg4) {{.*}}groups = 4 : i64{{.*}}operand_views = [array<i64: 0, 1, 4, 8, 8, 256, 1, 32, 4>, array<i64>]{{.*}}result_order = array<i64: 0, 2, 3, 1>{{.*}} -> tensor<1x8x8x4xf32>
// GPU: %[[V:.*]] = "loop.view"(%[[D]]) {layout = array<i64: 0, 1, 4, 8, 8, 256, 1, 32, 4>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x8x8xf32>
// GPU: return %[[V]]

// The GPU's library calls write their results through the channels-last view
// (bundle `out_view`; the stored shape is `fuselab.shape`).
// TILE-LABEL: func.func @stem
// TILE: fuselab.out_view = array<i64: 0, 1, 4, 8, 8, 256, 1, 32, 4>, fuselab.shape = array<i64: 1, 8, 8, 4>, groups = 1 : i64, kind = "convolution"
// TILE: fuselab.out_view = array<i64: 0, 1, 4, 8, 8, 256, 1, 32, 4>, fuselab.shape = array<i64: 1, 8, 8, 4>, groups = 1 : i64, kind = "convolution"
// TILE: fuselab.out_view = array<i64: 0, 1, 4, 8, 8, 256, 1, 32, 4>, fuselab.shape = array<i64: 1, 8, 8, 4>, groups = 4 : i64, kind = "convolution"

// On the CPU the same copies (Inductor's layout optimization holds there too: torch
// 2.15's cpp_fused_convolution_0), and the bias stays in the library call.
// CPU-LABEL: func.func @stem
// CPU: ranges = array<i64: 1, 8, 8, 3>} : () -> tensor<1x8x8x3xf32>
// CPU: ranges = array<i64: 4, 3, 3, 3>} : () -> tensor<4x3x3x3xf32>
// CPU: "loop.extern"(%0, %1, %arg2) {{.*}}kind = "convolution"{{.*}}operand_views = [array<i64: 0, 1, 3, 8, 8, 192, 1, 24, 3>, array<i64: 0, 4, 3, 3, 3, 27, 1, 9, 3>, array<i64>]

// With channels-last=false (the TVM and Ascend strategies) no copies; the bias is still
// peeled.
// NCHW-LABEL: func.func @stem
// NCHW-NOT: tensor<1x8x8x3xf32>
// NCHW: "loop.extern"(%arg0, %arg1) {{.*}}kind = "convolution"

// The TVM strategy's form (Relax's importer writes conv2d, reshape(bias) and add): the
// bias reshaped to [1, 4, 1, 1] by a node of its own op, before the convolution and
// its add, which share one op.
// RELAX-LABEL: func.func @stem
// RELAX: fuselab.eager_id = 1 : i64, name = "buf0", origins = ["view"], ranges = array<i64: 1, 4, 1, 1>}
// RELAX-NEXT: "loop.extern"(%arg0, %arg1) {{.*}}fuselab.eager_id = 0 : i64{{.*}}kind = "convolution"
// RELAX: "loop.load"(%0)
// RELAX: fuselab.eager_id = 0 : i64, name = "buf2", origins = ["convolution"], ranges = array<i64: 1, 4, 8, 8>}

// BADBIAS: convolution-layout.mlir:{{[0-9]+}}:1: error: unknown convolution-bias 'both' (expected target, add or extern)

// EXEC: @stem
// EXEC: inductor output #0 {{.*}} PASS
// EXEC: tvm output #0 {{.*}} PASS
// EXEC-NOT: FAIL

// Inductor for the gpu target has 2 copies and the bias add with the relu (3 kernels) and 3
// library calls.
// LAUNCHES: @stem
// LAUNCHES: {{^inductor +3 +3 +6 }}
func.func @stem(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %w1: tensor<4x4x1x1xf32>, %dw: tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %c = "aten.convolution"(%x, %w, %b) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = "aten.relu"(%c) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %p = "aten.convolution"(%r, %w1) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %d = "aten.convolution"(%p, %dw) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %d : tensor<1x4x8x8xf32>
}
