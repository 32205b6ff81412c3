// RUN: fuse-gpu %s --emit ptx | FileCheck %s

// gelu's erf on the GPU: a fitted polynomial and one exp (Math::erf_gpu), so one
// ex2.approx.ftz per element (8 a thread: 1024-element programs of 128 threads) and no
// IEEE division (fuselab's CPU erf divides, and
// takes a second exp scheme); Inductor's kernel calls libdevice's erf.
// CHECK-LABEL: .entry gelu_fused_gelu_0(
// CHECK-NOT: div.rn.f32
// CHECK-NOT: cvt.rni
// CHECK-COUNT-8: ex2.approx.ftz.f32
// CHECK-NOT: ex2.approx
// CHECK-NOT: div.rn.f32
// CHECK: ret;
func.func @gelu(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %g = "aten.gelu"(%x) {approximate = "none"} : (tensor<64x512xf32>) -> tensor<64x512xf32>
  return %g : tensor<64x512xf32>
}
