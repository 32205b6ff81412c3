// RUN: fuse-opt %s --lower-loop-to-cpu | FileCheck %s --check-prefix=EAGER
// RUN: fuse-opt %s --lower-loop-to-cpu=fp32-in-kernels=true | FileCheck %s --check-prefix=FP32

// f16 inside a fused kernel. By default every op's result is rounded to f16 (truncf +
// extf after the mul and after the add: eager PyTorch). With fp32-in-kernels (the
// Ascend target's numerics) the chain stays f32 and is rounded once, at the store.
// EAGER-LABEL: func.func private @f_fused_chain_0
// EAGER: arith.mulf
// EAGER-NEXT: arith.truncf {{.*}} : f32 to f16
// EAGER: arith.addf
// EAGER-NEXT: arith.truncf {{.*}} : f32 to f16
// EAGER: memref.store
// FP32-LABEL: func.func private @f_fused_chain_0
// FP32: %[[X:.*]] = arith.extf {{.*}} : f16 to f32
// FP32-NOT: arith.truncf
// FP32: %[[M:.*]] = arith.mulf %[[X]], {{.*}} : f32
// FP32-NOT: arith.truncf
// FP32: %[[A:.*]] = arith.addf %[[M]], {{.*}} : f32
// FP32-NEXT: %[[H:.*]] = arith.truncf %[[A]] : f32 to f16
// FP32-NOT: arith.truncf
// FP32: memref.store %[[H]]
func.func @f(%x: tensor<256xf16>) -> tensor<256xf16> {
  %k = "loop.kernel"() ({
    %n = "loop.pointwise"() ({
    ^bb0(%i: index):
      %v0 = "loop.load"(%x) {index = affine_map<(d0) -> (d0)>} : (tensor<256xf16>) -> f16
      %c0 = arith.constant 1.0009765625 : f16
      %v1 = arith.mulf %v0, %c0 : f16
      %c1 = arith.constant 0.0001 : f16
      %v2 = arith.addf %v1, %c1 : f16
      gpu.yield %v2 : f16
    }) {name = "buf0", ranges = array<i64: 256>, origins = ["chain"]} : () -> tensor<256xf16>
    gpu.yield %n : tensor<256xf16>
  }) {iteration = array<i64: 256, 1>, name = "fused_chain_0", strategy = "test"} : () -> tuple<tensor<256xf16>>
  %o = "loop.output"(%k) {index = 0 : i64} : (tuple<tensor<256xf16>>) -> tensor<256xf16>
  return %o : tensor<256xf16>
}
