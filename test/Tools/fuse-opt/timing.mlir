// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --inductor-fuse --mlir-timing -o /dev/null 2>&1 | FileCheck %s
// RUN: fuse-opt %s --aten-decompose --mlir-timing --emit-bytecode -o %t.bc 2>&1 | FileCheck %s --check-prefix=BYTECODE
// RUN: fuse-opt %s --aten-decompose -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty

// --mlir-timing: each phase's wall time, then MLIR's pass timing report (stderr).
// CHECK: fuse-opt phases (wall time):
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} s  parse
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} s  verify
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} s  passes
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} s  print
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} s  teardown
// CHECK-NEXT: {{[0-9]+\.[0-9]+}} s  total
// CHECK: Execution time report
// CHECK: aten-decompose
// CHECK: lower-aten-to-loop
// CHECK: inductor-fuse
// BYTECODE: s  write bytecode
// QUIET-NOT: phases
func.func @softmax(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %y = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<64x512xf32>) -> tensor<64x512xf32>
  return %y : tensor<64x512xf32>
}
