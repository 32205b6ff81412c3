// MLIR bytecode in and out: --emit-bytecode writes the result as bytecode, and any
// input that starts with bytecode's magic number is read as bytecode (about twice as
// fast to parse as text at 100k ops: docs/performance.md).
// RUN: fuse-opt %s --emit-bytecode -o %t.mlirbc
// RUN: fuse-opt %t.mlirbc | FileCheck %s
// RUN: cat %t.mlirbc | fuse-opt - | FileCheck %s
// Passes run on bytecode input as on text, and their result can be bytecode again.
// RUN: fuse-opt %t.mlirbc --aten-decompose --lower-aten-to-loop --inductor-fuse | FileCheck %s --check-prefix=FUSED
// RUN: fuse-opt %t.mlirbc --aten-decompose --lower-aten-to-loop --inductor-fuse --emit-bytecode -o %t.fused.mlirbc
// RUN: fuse-opt %t.fused.mlirbc | FileCheck %s --check-prefix=FUSED
// --fusion-compare reads bytecode too (fuse-import --emit-bytecode writes it).
// RUN: fuse-opt %t.mlirbc --fusion-compare | FileCheck %s --check-prefix=COMPARE
// RUN: fuse-import %S/../../Models/Inputs/gru_cell.pt2 --emit-bytecode -o %t.gru.mlirbc
// RUN: fuse-opt %t.gru.mlirbc --fusion-compare | FileCheck %s --check-prefix=IMPORTED
// The locations travel in the bytecode.
// RUN: fuse-opt %t.mlirbc --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// Options that read text are refused on bytecode, and options --emit-bytecode would
// ignore are refused with it.
// RUN: not fuse-opt %t.mlirbc --split-input-file 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not fuse-opt %t.mlirbc --verify-diagnostics 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: not fuse-opt %s --emit-bytecode --mlir-print-op-generic 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: not fuse-opt %s --emit-bytecode --split-input-file 2>&1 | FileCheck %s --check-prefix=ONE
// Truncated bytecode: the reader's error, exit 1.
// RUN: head -c 100 %t.mlirbc > %t.bad.mlirbc
// RUN: not fuse-opt %t.bad.mlirbc 2>&1 | FileCheck %s --check-prefix=TRUNC

// CHECK: module {
// CHECK-NEXT: func.func @f(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: "aten.exp"
// CHECK-NEXT: "aten.neg"
// FUSED: "loop.kernel"() ({
// FUSED: name = "fused_exp_neg_0", strategy = "inductor"
// LOC: "aten.exp"{{.*}} loc(#[[EXP:loc[0-9]*]])
// LOC: #[[EXP]] = loc("{{.*}}bytecode.mlir":{{[0-9]+}}:{{[0-9]+}})
// COMPARE: @f
// COMPARE: inductor
// IMPORTED: @forward
// IMPORTED: inductor
// SPLIT: fuse-opt: error: {{.*}}.mlirbc: --split-input-file reads text input, and this is MLIR bytecode
// VERIFY: fuse-opt: error: {{.*}}.mlirbc: --verify-diagnostics reads text input, and this is MLIR bytecode
// GENERIC: fuse-opt: error: --emit-bytecode writes one module as bytecode; it cannot be combined with --mlir-print-op-generic
// ONE: fuse-opt: error: --emit-bytecode writes one module as bytecode; it cannot be combined with --split-input-file
// TRUNC: bad.mlirbc:0:0: error: {{.*}}
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = "aten.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "aten.neg"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
