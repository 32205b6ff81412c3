// Convolutions whose im2col matrix exceeds COL_TILE_BYTES (4 MiB) are computed in tiles
// of output rows, each filled and multiplied while it is in cache
// (targets/src/cpu/lower_loop_to_cpu/externs.rs): 1152 x 1600 f32 columns are 7.4 MB,
// two tiles of 20 rows. With parallel steps the tiles are PARALLEL_COL_TILE_BYTES (1 MiB:
// 8 tiles of 5 rows here) and every (image, group, tile) is a chunk of an scf.parallel,
// its tile on its own stack, its GEMM on its own thread. Checked against the aten
// interpreter on one thread and with parallel steps (every step parallel with
// --parallel-min-work 1: @grouped's chunks are its 2 images x 2 groups). Where oneDNN
// loads, the generated code calls its convolution first (`fuselab_conv`) and runs the
// im2col code only when that refuses; FUSELAB_BLAS=openblas keeps oneDNN out, so the
// first three runs check the im2col code and the last two oneDNN's primitive (or the
// im2col code again on a machine without libdnnl2).
// RUN: env FUSELAB_BLAS=openblas fuse-run %s --jit --strategy inductor --parallel false | FileCheck %s
// RUN: env FUSELAB_BLAS=openblas fuse-run %s --jit --strategy inductor --parallel | FileCheck %s
// RUN: env FUSELAB_BLAS=openblas fuse-run %s --jit --strategy inductor --parallel-min-work 1 | FileCheck %s
// RUN: fuse-run %s --jit --strategy inductor --parallel false | FileCheck %s
// RUN: fuse-run %s --jit --strategy inductor --parallel | FileCheck %s

// CHECK-NOT: {{FAIL|ERROR}}
// CHECK-COUNT-4: PASS

func.func @padded(%x: tensor<1x128x40x40xf32>, %w: tensor<8x128x3x3xf32>) -> tensor<1x8x40x40xf32> {
  %y = "aten.convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x128x40x40xf32>, tensor<8x128x3x3xf32>) -> tensor<1x8x40x40xf32>
  return %y : tensor<1x8x40x40xf32>
}

// Strided and dilated: a tile's window starts stride x 20 input rows after the last.
func.func @strided_dilated(%x: tensor<1x128x80x80xf32>, %w: tensor<8x128x3x3xf32>) -> tensor<1x8x40x40xf32> {
  %y = "aten.convolution"(%x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 2, 2>, dilation = array<i64: 2, 2>, groups = 1 : i64} : (tensor<1x128x80x80xf32>, tensor<8x128x3x3xf32>) -> tensor<1x8x40x40xf32>
  return %y : tensor<1x8x40x40xf32>
}

// Two images, two groups, a bias: each chunk reads its own image and group.
func.func @grouped(%x: tensor<2x64x20x20xf32>, %w: tensor<16x32x3x3xf32>, %b: tensor<16xf32>) -> tensor<2x16x20x20xf32> {
  %y = "aten.convolution"(%x, %w, %b) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64} : (tensor<2x64x20x20xf32>, tensor<16x32x3x3xf32>, tensor<16xf32>) -> tensor<2x16x20x20xf32>
  return %y : tensor<2x16x20x20xf32>
}

// One output row's columns are 2.9 MB, above a parallel chunk's 1 MiB stack tile: the
// tile stays in a global, the tiles run on one thread and each fill is split over input
// channels (its outlined function takes the global itself).
func.func @wide_rows(%x: tensor<1x512x4x160xf32>, %w: tensor<8x512x3x3xf32>) -> tensor<1x8x4x160xf32> {
  %y = "aten.convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x512x4x160xf32>, tensor<8x512x3x3xf32>) -> tensor<1x8x4x160xf32>
  return %y : tensor<1x8x4x160xf32>
}
