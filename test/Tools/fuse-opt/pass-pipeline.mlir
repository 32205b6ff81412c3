// fuselab and upstream passes in one pipeline, from flags or --pass-pipeline, in order.
// RUN: fuse-opt --pass-pipeline='builtin.module(aten-verify-shapes,canonicalize,func.func(cse),aten-verify-shapes)' %s | FileCheck %s
// RUN: fuse-opt --aten-verify-shapes --pass-pipeline='builtin.module(func.func(canonicalize,cse))' %s | FileCheck %s
// Upstream passes get their options through MLIR's own parser.
// RUN: fuse-opt --pass-pipeline='builtin.module(canonicalize{max-iterations=2 test-convergence=false})' %s | FileCheck %s --check-prefix=OPTS
// OPTS: func.func @dedup

// cse merges the two identical constants and canonicalize drops the unused one;
// the aten op (no side-effect interface under IRDL) stays.
// CHECK-LABEL: func.func @dedup
// CHECK: arith.constant dense<2.000000e+00>
// CHECK-NOT: arith.constant
// CHECK: "aten.mul"
func.func @dedup(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant dense<2.0> : tensor<f32>
  %c1 = arith.constant dense<2.0> : tensor<f32>
  %unused = arith.constant dense<3.0> : tensor<f32>
  %0 = "aten.mul"(%x, %c0) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "aten.mul"(%0, %c1) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// A failing fuselab pass inside a pipeline stops it with a located error.
// RUN: not fuse-opt --pass-pipeline='builtin.module(canonicalize,aten-verify-shapes)' %S/../../Dialect/Aten/Inputs/shape-mismatch.mlir 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: shape-mismatch.mlir:3:8: error: 'aten.mm' op inner dimensions do not match

// --mlir-print-ir-after-all prints after each pass, fuselab and upstream alike.
// RUN: fuse-opt --mlir-print-ir-after-all --pass-pipeline='builtin.module(aten-verify-shapes,canonicalize)' %s 2>%t.ir
// RUN: FileCheck %s --check-prefix=PRINT --input-file=%t.ir
// PRINT: IR Dump After aten-verify-shapes
// PRINT: IR Dump After Canonicalizer
