// What the oracle accepts (issue 13, items 6-8): infinities match only themselves,
// `var` divides by max(0, N - correction) as PyTorch does, and recorded inputs must fit
// the function.
// RUN: not fuse-run %S/Inputs/relu-inf.mlir --expect %S/Inputs/relu-inf-expect.json | FileCheck %s --check-prefix=INF
// RUN: not fuse-run %S/Inputs/relu-inf.mlir --expect %S/Inputs/wrong-shape-expect.json 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not fuse-run %S/Inputs/relu-inf.mlir --jit --expect %S/Inputs/wrong-shape-expect.json 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not fuse-run %S/Inputs/sum-large-input.mlir 2>&1 | FileCheck %s --check-prefix=ARGS
// RUN: fuse-run %s --expect %S/Inputs/var-correction-expect.json | FileCheck %s --check-prefix=VAR
// RUN: fuse-run %s --jit --expect %S/Inputs/var-correction-expect.json | FileCheck %s --check-prefix=VAR

// relu([1, 2, 3, 4]) is not [inf, -inf, 3, 4]: the reference FAILs against torch.
// INF: reference output #0 tensor<4xf32>: {{.*}} FAIL

// The memory guard counts function arguments too (issue 13, item 11: a 10^9-element
// input summed to a scalar was allocated, 8 GB of f64s).
// ARGS: sum-large-input.mlir: @s holds 1000000001 tensor elements, more than the interpreters run

// SHAPE: relu-inf.mlir: @relu: expected input #0 has shape [8] and dtype f32, the argument is tensor<4xf32>

// Row 0 (1, 2, 3, 4) with correction 5: 5 / max(0, 4 - 5) = inf (not -5); row 1 (all 2):
// 0 / 0 = NaN.
// Correction 1 on the same rows: 5 / 3 and 0.
// VAR: reference output #0 tensor<2xf32>: {{.*}} PASS
// VAR: reference output #1 tensor<2xf32>: {{.*}} PASS
// VAR: unfused output #0 {{.*}} PASS
// VAR: inductor output #0 {{.*}} PASS
// VAR: tvm output #0 {{.*}} PASS
// VAR: tvm-folded output #0 {{.*}} PASS
// VAR-NOT: FAIL
func.func @var_correction(%x: tensor<2x4xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %v = "aten.var"(%x) {dims = array<i64: 1>, keepdim = false, correction = 5 : i64} : (tensor<2x4xf32>) -> tensor<2xf32>
  %u = "aten.var"(%x) {dims = array<i64: 1>, keepdim = false, correction = 1 : i64} : (tensor<2x4xf32>) -> tensor<2xf32>
  return %v, %u : tensor<2xf32>, tensor<2xf32>
}
