// The dialect definition is plain IRDL: upstream mlir-opt loads the same file.
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %s | FileCheck %s
// RUN: mlir-opt --irdl-file=%dialects/aten.irdl.mlir %s | fuse-opt | FileCheck %s

// CHECK-LABEL: func.func @seed_prefix
// CHECK: "aten.mul"
// CHECK: "aten.add"
// CHECK: "aten.relu"
// CHECK: "aten.mean"(%{{.*}}) {dims = array<i64: 1>, keepdim = true}
func.func @seed_prefix(%x: tensor<8x8xf32>, %bias: tensor<8xf32>) -> tensor<8x1xf32> {
  %c = arith.constant dense<1.1> : tensor<f32>
  %0 = "aten.mul"(%x, %c) : (tensor<8x8xf32>, tensor<f32>) -> tensor<8x8xf32>
  %1 = "aten.add"(%0, %bias) : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  %2 = "aten.relu"(%1) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %3 = "aten.mean"(%2) {dims = array<i64: 1>, keepdim = true} : (tensor<8x8xf32>) -> tensor<8x1xf32>
  return %3 : tensor<8x1xf32>
}

// Upstream mlir-opt enforces the IRDL constraints too (but not fuselab's shape rules).
// RUN: not mlir-opt --irdl-file=%dialects/aten.irdl.mlir %S/Inputs/wrong-arity.mlir 2>&1 | FileCheck %s --check-prefix=ARITY
// ARITY: wrong-arity.mlir:3:8: error: op expects exactly 2 operands, but got 1
