// Long f16 / bf16 sums accumulate in f32, as Inductor's kernels (the upcast acc_type)
// and ATen's reductions do, and round once: a row of 4,096 f16 ones sums to 4,096 and
// 2,048 bf16 ones to 2,048 (torch's values, recorded in the expectation files). The loop
// interpreter and the Spyre simulator accumulated in the storage type and stopped at
// 2,048 (f16: 2,048 + 1 rounds back to 2,048) and 256 (bf16).
// RUN: fuse-run %s --function f16_sum --expect %S/Inputs/f16-sum-4096.expect.json | FileCheck %s
// RUN: fuse-run %s --function bf16_sum --expect %S/Inputs/bf16-sum-2048.expect.json | FileCheck %s
// RUN: fuse-run %s --function f16_sum --expect %S/Inputs/f16-sum-4096.expect.json --target spyre --jit | FileCheck %s
// RUN: fuse-run %s --function bf16_sum --expect %S/Inputs/bf16-sum-2048.expect.json --target spyre --jit | FileCheck %s
// RUN: fuse-run %s --function f16_sum --expect %S/Inputs/f16-sum-4096.expect.json --target ascend --jit | FileCheck %s
// RUN: fuse-run %s --function f16_sum --expect %S/Inputs/f16-sum-4096.expect.json --jit | FileCheck %s
// CHECK: reference output #0 {{.*}} PASS
// CHECK: inductor output #0 {{.*}} 0 mismatches  PASS
// CHECK: tvm output #0 {{.*}} 0 mismatches  PASS
// CHECK-NOT: FAIL

func.func @f16_sum(%x: tensor<2x4096xf16>) -> tensor<2xf16> {
  %s = "aten.sum"(%x) {dims = array<i64: 1>, keepdim = false} : (tensor<2x4096xf16>) -> tensor<2xf16>
  return %s : tensor<2xf16>
}

func.func @bf16_sum(%x: tensor<2x2048xbf16>) -> tensor<2xbf16> {
  %s = "aten.sum"(%x) {dims = array<i64: 1>, keepdim = false} : (tensor<2x2048xbf16>) -> tensor<2xbf16>
  return %s : tensor<2xbf16>
}
