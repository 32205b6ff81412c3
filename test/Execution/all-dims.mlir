// An empty dim list reduces every dim (PyTorch's `dim=[]` / `dim=None`): the verifier,
// the decomposition, the lowering and the interpreters read it one way. mean and var
// over all dims gave "type of return operand 0 ('tensor<3x5x7xf32>') doesn't match
// function result type" in every pipeline (the decomposition summed over no dim).
// RUN: fuse-run %s | FileCheck %s
// RUN: fuse-run %s --jit | FileCheck %s
// RUN: fuse-run %s --target spyre --jit | FileCheck %s
// RUN: fuse-run %s --target ascend --jit | FileCheck %s
// RUN: fuse-opt %s --aten-decompose | FileCheck %s --check-prefix=DECOMPOSED
// CHECK: @mean_all
// CHECK: inductor output #0 tensor<f32>: {{.*}} PASS
// CHECK: @var_all
// CHECK: inductor output #0 tensor<f32>: {{.*}} PASS
// CHECK: @mean_all_keepdim
// CHECK: inductor output #0 tensor<1x1x1xf32>: {{.*}} PASS
// CHECK-NOT: FAIL
// CHECK-NOT: ERROR
// DECOMPOSED-LABEL: func.func @mean_all
// DECOMPOSED: "aten.sum"(%arg0) {dims = array<i64: 0, 1, 2>, {{.*}}keepdim = false{{.*}}} : (tensor<3x5x7xf32>) -> tensor<f32>
// DECOMPOSED: arith.constant dense<1.050000e+02> : tensor<f32>

func.func @mean_all(%x: tensor<3x5x7xf32>) -> tensor<f32> {
  %m = "aten.mean"(%x) {dims = array<i64>, keepdim = false} : (tensor<3x5x7xf32>) -> tensor<f32>
  return %m : tensor<f32>
}

func.func @var_all(%x: tensor<3x5x7xf32>) -> tensor<f32> {
  %v = "aten.var"(%x) {dims = array<i64>, keepdim = false, correction = 1 : i64} : (tensor<3x5x7xf32>) -> tensor<f32>
  return %v : tensor<f32>
}

func.func @mean_all_keepdim(%x: tensor<3x5x7xf32>) -> tensor<1x1x1xf32> {
  %m = "aten.mean"(%x) {dims = array<i64>, keepdim = true} : (tensor<3x5x7xf32>) -> tensor<1x1x1xf32>
  return %m : tensor<1x1x1xf32>
}
