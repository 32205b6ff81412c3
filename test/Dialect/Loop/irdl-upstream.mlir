// The loop dialect definition is plain IRDL: upstream mlir-opt loads the same file
// and round-trips fuselab's loop IR.
// RUN: mlir-opt --irdl-file=%dialects/loop.irdl.mlir %S/ops.mlir | fuse-opt | FileCheck %s
// CHECK-LABEL: func.func @seed_fused
// CHECK: "loop.kernel"
// CHECK: "loop.reduction"
// CHECK: "loop.pointwise"
// CHECK: "loop.output"
// CHECK-LABEL: func.func @externs
// CHECK-COUNT-2: "loop.extern"
