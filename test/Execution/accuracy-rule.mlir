// The verdict follows Inductor's own accuracy rule (torch._dynamo.utils.same with an
// fp64 reference): an output outside the elementwise tolerance passes when its RMS
// error against the exact result is at most 2x eager's (3x for f16/bf16 and small
// outputs) + tol/10. sin(exp(x^T)) in f16: every strategy keeps exp's result in f32
// inside the kernel (one rounding where stored), so it differs from eager by up to 9e-2
// (sin of a large argument) and is 14x closer to the exact result than eager is.
// RUN: fuse-run %s --function sin_exp --target ascend --jit | FileCheck %s
// CHECK: inductor output #0 tensor<48x64xf16>: {{.*}} mismatches  PASS (fp64 rule: rms vs fp64 {{.*}}, eager's {{.*}})
// CHECK-NOT: FAIL
// A result further from the exact one than twice eager's error fails (run/accuracy.rs's
// tests inject such results).

func.func @sin_exp(%x: tensor<64x48xf16>) -> tensor<48x64xf16> {
  %t = "aten.permute"(%x) {dims = array<i64: 1, 0>} : (tensor<64x48xf16>) -> tensor<48x64xf16>
  %e = "aten.exp"(%t) : (tensor<48x64xf16>) -> tensor<48x64xf16>
  %s = "aten.sin"(%e) : (tensor<48x64xf16>) -> tensor<48x64xf16>
  return %s : tensor<48x64xf16>
}
