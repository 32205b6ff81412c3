// mean([3e38, 3e38]) in f32 is inf in PyTorch: ATen's mean is the sum in the
// accumulation type (f32 here), then the division (`sum(...).div_(N)` on the CPU,
// `MeanOps<float, float>` on CUDA), and 6e38 overflows f32. Every strategy follows that
// rule (the decomposition's sum op is a stored f32), and so does the oracle now: it
// summed in f64 and gave 3e38, flagged against torch.
// RUN: fuse-run %s --expect %S/Inputs/mean-overflow.expect.json | FileCheck %s
// RUN: fuse-run %s --expect %S/Inputs/mean-overflow.expect.json --jit | FileCheck %s
// RUN: fuse-run %s --expect %S/Inputs/mean-overflow.expect.json --target ascend --jit | FileCheck %s
// RUN: fuse-run %s --expect %S/Inputs/mean-overflow.expect.json --target spyre --jit | FileCheck %s
// CHECK: reference output #0 tensor<f32>: max abs 0.000e0, max rel 0.000e0, 0 mismatches  PASS
// CHECK: ascend-mindspore output #0 tensor<f32>: {{.*}} 0 mismatches  PASS
// CHECK-NOT: FAIL

func.func @m(%x: tensor<2xf32>) -> tensor<f32> {
  %m = "aten.mean"(%x) {dims = array<i64: 0>, keepdim = false} : (tensor<2xf32>) -> tensor<f32>
  return %m : tensor<f32>
}
