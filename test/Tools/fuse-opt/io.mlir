// Input from a file or stdin ('-' or nothing), output to stdout or -o.
// RUN: fuse-opt %s -o %t
// RUN: FileCheck %s --input-file=%t
// RUN: cat %s | fuse-opt - | FileCheck %s
// RUN: cat %s | fuse-opt | FileCheck %s
// Diagnostics on stdin name the buffer <stdin>.
// RUN: cat %S/../../Dialect/Aten/Inputs/shape-mismatch.mlir | not fuse-opt 2>&1 | FileCheck %s --check-prefix=STDIN
// STDIN: <stdin>:3:8: error: 'aten.mm' op inner dimensions do not match
// An explicit module is kept as is (no second implicit module).
// RUN: fuse-opt %S/Inputs/explicit-module.mlir | FileCheck %s --check-prefix=MODULE
// MODULE: module @named {
// MODULE-NOT: module
// MODULE: func.func @g

// CHECK: module {
// CHECK-NEXT: func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT: "aten.exp"
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.exp"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
