// RUN: fuse-gpu %s --emit ptx | FileCheck %s
// RUN: fuse-gpu %s --emit ptx --fp-fusion=false | FileCheck %s --check-prefix=EXACT
// RUN: not fuse-gpu %s --emit tile --fp-fusion false 2>&1 | FileCheck %s --check-prefix=IGNORED
// RUN: not fuse-gpu %s --emit ptx --fp-fusion maybe 2>&1 | FileCheck %s --check-prefix=VALUE

// A multiply feeding an add is one fma by default (Triton's enable_fp_fusion, nvcc's
// --fmad=true); with --fp-fusion=false each op rounds on its own.
// CHECK-LABEL: .visible .entry axpy_fused_add_mul_0(
// CHECK: fma.rn.f32
// CHECK-NOT: add.rn.f32
// CHECK: ret;
// EXACT-LABEL: .visible .entry axpy_fused_add_mul_0(
// EXACT-NOT: fma.rn.f32
// EXACT: mul.rn.f32
// EXACT: add.rn.f32
// EXACT-NOT: fma.rn.f32
// EXACT: ret;
// IGNORED: fuse-gpu: --fp-fusion, --approx-exp and --approx-div apply to PTX: they need --emit ptx or -o <dir>
// VALUE: fuse-gpu: --fp-fusion: 'maybe' is not true or false
func.func @axpy(%x: tensor<256x256xf32>, %y: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %c = arith.constant dense<3.0> : tensor<f32>
  %m = "aten.mul"(%x, %c) : (tensor<256x256xf32>, tensor<f32>) -> tensor<256x256xf32>
  %a = "aten.add"(%m, %y) : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %a : tensor<256x256xf32>
}
