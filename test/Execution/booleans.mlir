// Boolean results through every pipeline, interpreted and compiled (issue 13, item 1:
// an `aten.any` reduction made the CPU code generator write `arith.constant false : i1`,
// which does not parse).
// RUN: fuse-run %s | FileCheck %s
// RUN: fuse-run %s --jit | FileCheck %s
// RUN: fuse-run %s --seed 1 --function any_over_size_one | FileCheck %s --check-prefix=ANY1
// The README's imported encoder layer (its attention mask uses `any`), compiled:
// RUN: fuse-import %S/../Import/Inputs/transformer_encoder_layer.pt2 | fuse-run - --jit | FileCheck %s --check-prefix=LAYER

// CHECK-LABEL: @any_rows
// CHECK-COUNT-4: output #0 tensor<4xi1>: {{.*}} PASS
// CHECK-NOT: FAIL
func.func @any_rows(%x: tensor<4x8xf32>) -> tensor<4xi1> {
  %0 = "aten.any"(%x) {dims = array<i64: 1>, keepdim = false} : (tensor<4x8xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// CHECK-LABEL: @compare_select
// CHECK-COUNT-4: output #0 tensor<4x8xf32>: {{.*}} PASS
// CHECK-NOT: FAIL
func.func @compare_select(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %gt = "aten.gt"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %not = "aten.logical_not"(%gt) : (tensor<4x8xi1>) -> tensor<4x8xi1>
  %any = "aten.any"(%not) {dims = array<i64: 1>, keepdim = true} : (tensor<4x8xi1>) -> tensor<4x1xi1>
  %w = "aten.where"(%any, %x, %y) : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// `any` over a dim of size 1: the loop interpreter started bool max-reductions from
// round(-inf) = true (found by the fuzzer once it generated `any`).
// CHECK-LABEL: @any_over_size_one
// CHECK-COUNT-4: output #0 tensor<2x1xi1>: {{.*}} PASS
// CHECK-NOT: FAIL
// ANY1-COUNT-4: output #0 tensor<2x1xi1>: {{.*}} PASS
// ANY1-NOT: FAIL
func.func @any_over_size_one(%d: tensor<2x1xi1>) -> tensor<2x1xi1> {
  %0 = "aten.any"(%d) {dims = array<i64: 1>, keepdim = true} : (tensor<2x1xi1>) -> tensor<2x1xi1>
  return %0 : tensor<2x1xi1>
}

// LAYER-LABEL: @forward
// LAYER-COUNT-4: output #0 tensor<2x16x64xf32>: {{.*}} PASS

// A sum of bools counts in int64, as PyTorch promotes it (issue 15: the verifier asked
// for an i1 result, so a cross-entropy with ignore_index did not import).
// CHECK-LABEL: @count_true
// CHECK-COUNT-8: output #{{[01]}} tensor<{{.*}}xi64>: {{.*}} PASS
// CHECK-NOT: FAIL
func.func @count_true(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %i: tensor<4x8xi64>) -> (tensor<4x1xi64>, tensor<1x8xi64>) {
  %c = "aten.gt"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %s = "aten.sum"(%c) {dims = array<i64: 1>, keepdim = true} : (tensor<4x8xi1>) -> tensor<4x1xi64>
  %t = "aten.sum"(%i) {dims = array<i64: 0>, keepdim = true} : (tensor<4x8xi64>) -> tensor<1x8xi64>
  return %s, %t : tensor<4x1xi64>, tensor<1x8xi64>
}
