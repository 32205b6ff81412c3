// RUN: fuse-opt %s --split-input-file --verify-diagnostics --lower-loop-to-tile

// argmax / argmin reductions are not generated for the GPU yet: a located error.
func.func @argmax(%x: tensor<8x16xf32>) -> tensor<8x1xi64> {
  // expected-error@+1 {{cannot lower to tile kernels: reduction kind 'argmax' is not supported by the GPU code generator}}
  %0 = "loop.reduction"() ({
  ^bb0(%i: index, %j: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 16 + d1)>} : (tensor<8x16xf32>) -> f32
    gpu.yield %v : f32
  }) {kind = "argmax", name = "buf0", origins = ["argmax"], ranges = array<i64: 8>, reduction_ranges = array<i64: 16>} : () -> tensor<8x1xi64>
  return %0 : tensor<8x1xi64>
}
