// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile=max-warps-single=8 | FileCheck %s --check-prefix=EIGHT
// RUN: not fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --lower-loop-to-tile=max-warps-single=12 2>&1 | FileCheck %s --check-prefix=BAD

// A full reduction is one program: it takes up to max-warps-single (16) warps, its
// whole work on one SM (log_softmax_nll's mean over 4096 rows: 5.2 -> 4.4 us on the
// H200 with 16 warps instead of 8); row kernels of many programs stay at max-warps (8).
// CHECK-LABEL: "tile.kernel"
// CHECK: block = array<i64: 1, 4096>, grid = array<i64: 1>, num_warps = 16 : i64, sym_name = "full_sum_fused_exp_neg_sum_0"
// EIGHT: block = array<i64: 1, 4096>, grid = array<i64: 1>, num_warps = 8 : i64
// BAD: error: --lower-loop-to-tile: max-warps-single=12 is not a power of two in 1..=32
func.func @full_sum(%x: tensor<64x4096xf32>) -> tensor<f32> {
  %e = "aten.exp"(%x) : (tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %n = "aten.neg"(%e) : (tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %s = "aten.sum"(%n) {dims = array<i64: 0, 1>, keepdim = false} : (tensor<64x4096xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// CHECK-LABEL: "tile.kernel"
// CHECK: block = array<i64: 1, 4096>, grid = array<i64: 64>, num_warps = 8 : i64, sym_name = "row_sums_fused_sum_0"
func.func @row_sums(%x: tensor<64x4096xf32>) -> tensor<64xf32> {
  %s = "aten.sum"(%x) {dims = array<i64: 1>, keepdim = false} : (tensor<64x4096xf32>) -> tensor<64xf32>
  return %s : tensor<64xf32>
}
