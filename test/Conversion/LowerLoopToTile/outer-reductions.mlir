// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose --lower-aten-to-loop --inductor-fuse=loop-ordering-after-fusion=false --lower-loop-to-tile | FileCheck %s
// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose --lower-aten-to-loop --inductor-fuse=loop-ordering-after-fusion=false --lower-loop-to-tile=outer-hint=false | FileCheck %s --check-prefix=ROWS
// RUN: fuse-opt %s --split-input-file --target=gpu --aten-decompose --lower-aten-to-loop --inductor-fuse=loop-ordering-after-fusion=false --lower-loop-to-tile="outer-xblock=64 outer-rblock=8" | FileCheck %s --check-prefix=INDUCTOR

// A reduction that reads across rows (Inductor's ReductionHint.OUTER: every reduction
// index strided) is launched with many rows and a short looped chunk, so neighbouring
// threads read neighbouring rows; the row rule puts the whole 128-wide column chunk in
// one row of the block (loads 256 elements apart). Measured on the H200
// (docs/gpu-results/h200-outer-reductions.json), the same sum over (32, 64, 128)
// (program outer_sum_3d): 1.2 us with 32 x 16, 1.7 with the row rule, Inductor 1.4.
// CHECK-LABEL: "tile.kernel"
// CHECK: scf.for
// CHECK: block = array<i64: 32, 16>, grid = array<i64: 128>, num_warps = 4 : i64
// ROWS: block = array<i64: 8, 128>, grid = array<i64: 512>
// INDUCTOR: block = array<i64: 64, 8>, grid = array<i64: 64>, num_warps = 4 : i64
func.func @outer_sum(%x: tensor<16x128x256xf32>) -> tensor<16x256xf32> {
  %s = "aten.sum"(%x) {dims = array<i64: 1>, keepdim = false} : (tensor<16x128x256xf32>) -> tensor<16x256xf32>
  return %s : tensor<16x256xf32>
}

// -----

// A row reduction keeps the row rule.
// CHECK-LABEL: "tile.kernel"
// CHECK: block = array<i64: 8, 128>
// ROWS: block = array<i64: 8, 128>
// INDUCTOR: block = array<i64: 8, 128>
func.func @row_sum(%x: tensor<4096x128xf32>) -> tensor<4096xf32> {
  %s = "aten.sum"(%x) {dims = array<i64: 1>, keepdim = false} : (tensor<4096x128xf32>) -> tensor<4096xf32>
  return %s : tensor<4096xf32>
}
