// Input for inductor-fuse.mlir: a vertical pair whose read (buf0 at d0 + 1) does not
// match the write (buf0 at d0): not fused, with Inductor's reason as a remark.
func.func @mismatched(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = "loop.pointwise"() ({
  ^bb0(%d0: index):
    %v = "loop.load"(%x) {index = affine_map<(d0) -> (d0)>} : (tensor<16xf32>) -> f32
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %v, %two : f32
    gpu.yield %m : f32
  }) {name = "buf0", ranges = array<i64: 16>, origins = ["mul"]} : () -> tensor<16xf32>
  // expected-remark@+1 {{not fusing buf0 with buf1: memory deps did not match}}
  %1 = "loop.pointwise"() ({
  ^bb0(%d0: index):
    %a = "loop.load"(%x) {index = affine_map<(d0) -> (d0)>} : (tensor<16xf32>) -> f32
    %b = "loop.load"(%0) {index = affine_map<(d0) -> ((d0 + 1) mod 16)>} : (tensor<16xf32>) -> f32
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {name = "buf1", ranges = array<i64: 16>, origins = ["add"]} : () -> tensor<16xf32>
  return %1 : tensor<16xf32>
}
