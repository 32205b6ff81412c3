// RUN: fuse-opt %s --split-input-file --verify-diagnostics --tile-warp-variants
// RUN: not fuse-opt %s --split-input-file --tile-warp-variants=max-warps=12 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not fuse-opt %s --split-input-file --tile-warp-variants="min-per-thread=64 max-per-thread=32" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not fuse-opt %S/../../../examples/softmax.mlir --tile-warp-variants 2>&1 | FileCheck %s --check-prefix=LOOP

// WARPS: error: --tile-warp-variants: max-warps=12 is not a power of two in 1..=32
// RANGE: error: --tile-warp-variants: min-per-thread=64 must be at least 1 and at most max-per-thread=32
// Before --lower-loop-to-tile there is nothing to vary: the pipeline is out of order.
// LOOP: softmax.mlir:4:8: error: --tile-warp-variants: 'aten.{{[a-z_]+}}' is not lowered to tile kernels yet: run after --lower-loop-to-tile

// After --lower-tile-to-gpu the kernels are gpu.funcs: too late.
// expected-error@+1 {{--tile-warp-variants: the kernels are lowered to GPU code already: run before --lower-tile-to-gpu}}
gpu.module @fuselab_kernels {
}

// -----

// Variants are made once.
"tile.kernel"() ({
^bb0(%arg0: memref<1024xf32>):
  %cst = arith.constant 0.0 : f32
  %b = "tile.splat"(%cst) : (f32) -> tensor<1x1024xf32>
  %r = "tile.reduce"(%b) {axis = 1 : i64, kind = "sum"} : (tensor<1x1024xf32>) -> tensor<1x1xf32>
  gpu.yield
}) {block = array<i64: 1, 1024>, grid = array<i64: 1>, num_warps = 4 : i64, sym_name = "k"} : () -> ()
func.func @f(%a: memref<1024xf32>) attributes {fuselab.num_inputs = 1 : i64} {
  // expected-error@+1 {{--tile-warp-variants: this launch has variants already}}
  "tile.launch"() ({
    gpu.yield %a : memref<1024xf32>
  }) {kernel = @k, variants = [@k]} : () -> ()
  return
}

// -----

// A variant's name must be free.
"tile.kernel"() ({
^bb0(%arg0: memref<1024xf32>):
  gpu.yield
}) {block = array<i64: 1, 1024>, grid = array<i64: 1>, num_warps = 4 : i64, sym_name = "k__w1"} : () -> ()
// expected-error@+1 {{--tile-warp-variants: a kernel named @k__w1 exists already}}
"tile.kernel"() ({
^bb0(%arg0: memref<1024xf32>):
  %cst = arith.constant 0.0 : f32
  %b = "tile.splat"(%cst) : (f32) -> tensor<1x1024xf32>
  %r = "tile.reduce"(%b) {axis = 1 : i64, kind = "sum"} : (tensor<1x1024xf32>) -> tensor<1x1xf32>
  gpu.yield
}) {block = array<i64: 1, 1024>, grid = array<i64: 1>, num_warps = 4 : i64, sym_name = "k"} : () -> ()
