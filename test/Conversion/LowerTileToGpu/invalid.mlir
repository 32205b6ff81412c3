// RUN: fuse-opt %s --split-input-file --verify-diagnostics --lower-tile-to-gpu

// Blocks are distributed over threads in powers of two.
// expected-error@+1 {{cannot lower to GPU code: block sizes must be powers of two and num_warps in 1..=32}}
"tile.kernel"() ({
^bb0(%arg0: memref<12xf32>):
  gpu.yield
}) {block = array<i64: 3, 4>, grid = array<i64: 1>, num_warps = 1 : i64, sym_name = "k"} : () -> ()

// -----

// Only reductions along the inner (r) axis are lowered.
"tile.kernel"() ({
^bb0(%arg0: memref<16xf32>):
  %cst = arith.constant 0.0 : f32
  %b = "tile.splat"(%cst) : (f32) -> tensor<4x4xf32>
  // expected-error@+1 {{cannot lower to GPU code: only reductions along the inner axis are lowered}}
  %r = "tile.reduce"(%b) {axis = 0 : i64, kind = "sum"} : (tensor<4x4xf32>) -> tensor<1x4xf32>
  gpu.yield
}) {block = array<i64: 4, 4>, grid = array<i64: 1>, num_warps = 1 : i64, sym_name = "k"} : () -> ()

// -----

// An op the per-slot lowering does not know is an error at that op.
"tile.kernel"() ({
^bb0(%arg0: memref<16xf32>):
  // expected-error@+1 {{cannot lower to GPU code: the GPU lowering cannot handle 'tensor.empty' in a tile kernel}}
  %e = tensor.empty() : tensor<4x4xf32>
  gpu.yield
}) {block = array<i64: 4, 4>, grid = array<i64: 1>, num_warps = 1 : i64, sym_name = "k"} : () -> ()

// -----

// Blocks are the kernel's block shape or a slice of it.
"tile.kernel"() ({
^bb0(%arg0: memref<16xf32>):
  %cst = arith.constant 0.0 : f32
  // expected-error@+1 {{cannot lower to GPU code: a block of shape [3, 4] in a kernel of block [4, 4] (blocks are the kernel's shape or one of its [x, 1] / [1, r] slices)}}
  %b = "tile.splat"(%cst) : (f32) -> tensor<3x4xf32>
  gpu.yield
}) {block = array<i64: 4, 4>, grid = array<i64: 1>, num_warps = 1 : i64, sym_name = "k"} : () -> ()

// -----

// tile.transpose converts a whole block: [A, B] must hold its elements.
"tile.kernel"() ({
^bb0(%arg0: memref<16xf32>):
  %cst = arith.constant 0.0 : f32
  %b = "tile.splat"(%cst) : (f32) -> tensor<16x1xf32>
  // expected-error@+1 {{cannot lower to GPU code: tile.transpose of a block of shape [16, 1] as [4, 8]: the block must be the kernel's [16, 1] and hold A * B elements}}
  %t = "tile.transpose"(%b) {shape = array<i64: 4, 8>} : (tensor<16x1xf32>) -> tensor<16x1xf32>
  gpu.yield
}) {block = array<i64: 16, 1>, grid = array<i64: 1>, num_warps = 1 : i64, sym_name = "k"} : () -> ()

// -----

// A launch variant runs on its launch's grid (--tile-warp-variants varies warps only).
"tile.kernel"() ({
^bb0(%arg0: memref<16xf32>):
  gpu.yield
}) {block = array<i64: 1, 16>, grid = array<i64: 1>, num_warps = 1 : i64, sym_name = "k"} : () -> ()
"tile.kernel"() ({
^bb0(%arg0: memref<16xf32>):
  gpu.yield
}) {block = array<i64: 1, 16>, grid = array<i64: 2>, num_warps = 2 : i64, sym_name = "k__w2"} : () -> ()
func.func @f(%a: memref<16xf32>) attributes {fuselab.num_inputs = 1 : i64} {
  // expected-error@+1 {{cannot lower to GPU code: variant @k__w2 has another grid than @k}}
  "tile.launch"() ({
    gpu.yield %a : memref<16xf32>
  }) {kernel = @k, variants = [@k__w2]} : () -> ()
  return
}

// -----

// A launch variant is a tile kernel of the module.
"tile.kernel"() ({
^bb0(%arg0: memref<16xf32>):
  gpu.yield
}) {block = array<i64: 1, 16>, grid = array<i64: 1>, num_warps = 1 : i64, sym_name = "k"} : () -> ()
func.func @f(%a: memref<16xf32>) attributes {fuselab.num_inputs = 1 : i64} {
  // expected-error@+1 {{cannot lower to GPU code: variant @gone is not a tile kernel}}
  "tile.launch"() ({
    gpu.yield %a : memref<16xf32>
  }) {kernel = @k, variants = [@gone]} : () -> ()
  return
}
