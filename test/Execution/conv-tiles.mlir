// Convolutions whose im2col matrix exceeds COL_TILE_BYTES (4 MiB) are computed in tiles
// of output rows, each filled and multiplied while it is in cache
// (targets/src/cpu/lower_loop_to_cpu/externs.rs): 1152 x 1600 f32 columns are 7.4 MB,
// two tiles of 20 rows. Checked against the aten interpreter on one thread and with
// --parallel (the tiles' GEMMs split in column bands).
// RUN: fuse-run %s --jit --strategy inductor | FileCheck %s
// RUN: fuse-run %s --jit --strategy inductor --parallel | FileCheck %s

// CHECK-NOT: {{FAIL|ERROR}}
// CHECK-COUNT-2: PASS

func.func @padded(%x: tensor<1x128x40x40xf32>, %w: tensor<8x128x3x3xf32>) -> tensor<1x8x40x40xf32> {
  %y = "aten.convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x128x40x40xf32>, tensor<8x128x3x3xf32>) -> tensor<1x8x40x40xf32>
  return %y : tensor<1x8x40x40xf32>
}

// Strided and dilated: a tile's window starts stride x 20 input rows after the last.
func.func @strided_dilated(%x: tensor<1x128x80x80xf32>, %w: tensor<8x128x3x3xf32>) -> tensor<1x8x40x40xf32> {
  %y = "aten.convolution"(%x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 2, 2>, dilation = array<i64: 2, 2>, groups = 1 : i64} : (tensor<1x128x80x80xf32>, tensor<8x128x3x3xf32>) -> tensor<1x8x40x40xf32>
  return %y : tensor<1x8x40x40xf32>
}
