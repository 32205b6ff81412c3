// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile --tile-warp-variants | FileCheck %s
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile --tile-warp-variants=max-warps=2 | FileCheck %s --check-prefix=TWO
// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse --lower-loop-to-tile --tile-warp-variants --lower-tile-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: fuse-gpu %s --function softmax -o %t
// RUN: fuse-gpu --validate %t | FileCheck %s --check-prefix=VALID
// RUN: cat %t/manifest.json | FileCheck %s --check-prefix=BUNDLE
// RUN: cat %t/kernels.ptx | FileCheck %s --check-prefix=PTX
// RUN: fuse-gpu %s --function softmax --autotune=false -o %t.plain
// RUN: cat %t.plain/manifest.json | FileCheck %s --check-prefix=PLAIN
// RUN: not fuse-gpu %s --emit tile --autotune true 2>&1 | FileCheck %s --check-prefix=TILE

// Inductor autotunes its reductions (several configs, each timed on the device at the
// first call). A row kernel of 2 x 512 elements at 4 warps is cloned with 1, 2 and 8
// warps (32, 16 and 4 elements per thread): same block, same grid, same buffers; its
// launch lists the clones as variants.
// CHECK-LABEL: block = array<i64: 2, 512>, grid = array<i64: 32>, num_warps = 1 : i64, sym_name = "softmax_fused_softmax_0__w1"
// CHECK: "tile.kernel"
// CHECK: num_warps = 2 : i64, sym_name = "softmax_fused_softmax_0__w2"
// CHECK: "tile.kernel"
// CHECK: num_warps = 8 : i64, sym_name = "softmax_fused_softmax_0__w8"
// CHECK: "tile.kernel"
// CHECK: block = array<i64: 2, 512>, grid = array<i64: 32>, num_warps = 4 : i64, sym_name = "softmax_fused_softmax_0"}
// CHECK: func.func @softmax
// CHECK: "tile.launch"
// CHECK: kernel = @softmax_fused_softmax_0, variants = [@softmax_fused_softmax_0__w1, @softmax_fused_softmax_0__w2, @softmax_fused_softmax_0__w8]
// TWO: sym_name = "softmax_fused_softmax_0__w1"
// TWO: sym_name = "softmax_fused_softmax_0__w2"
// TWO-NOT: __w8
// TWO: variants = [@softmax_fused_softmax_0__w1, @softmax_fused_softmax_0__w2]}
// After --lower-tile-to-gpu each variant is a gpu.func of its own threads, and the
// launch carries them beside its own kernel.
// GPU: gpu.func @softmax_fused_softmax_0__w1(
// GPU-SAME: known_block_size = array<i32: 32, 1, 1>
// GPU: gpu.func @softmax_fused_softmax_0__w8(
// GPU-SAME: known_block_size = array<i32: 256, 1, 1>
// GPU: kernel = @fuselab_kernels::@softmax_fused_softmax_0, threads = 128 : i64, variant_threads = array<i64: 32, 64, 256>, variants = [@fuselab_kernels::@softmax_fused_softmax_0__w1, @fuselab_kernels::@softmax_fused_softmax_0__w2, @fuselab_kernels::@softmax_fused_softmax_0__w8]
// The bundle's launch step: its own kernel, then the variants with their blocks.
// VALID: valid bundle
// BUNDLE: "kernel": "softmax_fused_softmax_0",
// BUNDLE: "variants": [
// BUNDLE-NEXT: {
// BUNDLE-NEXT: "kernel": "softmax_fused_softmax_0__w1",
// BUNDLE-NEXT: "block": [
// BUNDLE-NEXT: 32,
// BUNDLE: "kernel": "softmax_fused_softmax_0__w8"
// PTX-DAG: .entry softmax_fused_softmax_0(
// PTX-DAG: .entry softmax_fused_softmax_0__w1(
// PTX-DAG: .entry softmax_fused_softmax_0__w2(
// PTX-DAG: .entry softmax_fused_softmax_0__w8(
// PLAIN: "kernel": "softmax_fused_softmax_0",
// PLAIN-NOT: variants
// TILE: --autotune adds variants after the tile stage: not with --emit tile
func.func @softmax(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %y = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<64x512xf32>) -> tensor<64x512xf32>
  return %y : tensor<64x512xf32>
}

// -----

// A pointwise kernel has no reduction: no variants (Inductor's pointwise configs are
// not timed here).
// CHECK-NOT: __w
// CHECK-LABEL: sym_name = "relu_fused_relu_0"
// CHECK: "tile.launch"
// CHECK-NOT: variants
// CHECK: return
func.func @relu(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %y = "aten.relu"(%x) : (tensor<64x512xf32>) -> tensor<64x512xf32>
  return %y : tensor<64x512xf32>
}

// -----

// A row of 4096 in registers at 8 warps: 4 (32 per thread) and 16 (8 per thread).
// CHECK-LABEL: block = array<i64: 1, 4096>, grid = array<i64: 256>, num_warps = 4 : i64, sym_name = "row_sum_fused_sum_0__w4"
// CHECK: num_warps = 16 : i64, sym_name = "row_sum_fused_sum_0__w16"
// CHECK: num_warps = 8 : i64, sym_name = "row_sum_fused_sum_0"}
// CHECK: variants = [@row_sum_fused_sum_0__w4, @row_sum_fused_sum_0__w16]
func.func @row_sum(%x: tensor<256x4096xf32>) -> tensor<256xf32> {
  %y = "aten.sum"(%x) {dims = array<i64: -1>, keepdim = false} : (tensor<256x4096xf32>) -> tensor<256xf32>
  return %y : tensor<256xf32>
}
