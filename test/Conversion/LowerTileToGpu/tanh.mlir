// RUN: fuse-gpu %s --emit ptx | FileCheck %s

// tanh on the GPU: sign(x) (1-t)/(1+t) with t = exp(-2|x|) computed by the GPU's own
// exp (Math::exp_base2: one ex2.approx.ftz, no float-to-int conversion), so 8 ex2 a
// thread (1024-element programs of 128 threads) and no cvt.rzi/cvt.rni of the CPU's
// exp scheme. That scheme builds 2^n from integer `add (shl n, 23), 127 << 23`; in one
// long straight-line block (a fused chain of tanh) LLVM 22's straight-line strength
// reduction on NVPTX took time quadratic in the block's length (40 levels of
// tanh(x*x): 5.8 s in LLVM, docs/performance.md).
// CHECK-LABEL: .entry act_fused_mul_tanh_0(
// CHECK-NOT: cvt.rzi
// CHECK-NOT: cvt.rni
// CHECK-COUNT-16: ex2.approx.ftz.f32
// CHECK-NOT: ex2.approx
// CHECK: ret;
func.func @act(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %m0 = "aten.mul"(%x, %x) : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %t0 = "aten.tanh"(%m0) : (tensor<64x512xf32>) -> tensor<64x512xf32>
  %m1 = "aten.mul"(%t0, %t0) : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %t1 = "aten.tanh"(%m1) : (tensor<64x512xf32>) -> tensor<64x512xf32>
  return %t1 : tensor<64x512xf32>
}
