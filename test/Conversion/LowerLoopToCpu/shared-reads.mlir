// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --tvm-fuse-ops --lower-loop-to-cpu | FileCheck %s
// RUN: fuse-run %s --jit --strategy tvm | FileCheck %s --check-prefix=EXEC
// RUN: fuse-run %s --jit --strategy tvm --parallel --parallel-min-work 1 | FileCheck %s --check-prefix=EXEC

// A kernel-local node is computed where it is read (never stored); a node that reads
// it twice at the same position (x * x) gets one computation, the second read reuses
// its value, as Inductor's kernel CSE does (targets/src/cpu/lower_loop_to_cpu/nodes.rs,
// `Recomputed`). TVM fuses the whole chain into one kernel. Built once per read, the
// body doubled at every level: 2^10 loads of %y here, and a 70-level chain never
// finished. Now: the first node's own two loads, and each level's tanh once.
// CHECK-LABEL: func.func private @squares_fused_
// CHECK-COUNT-2: memref.load
// CHECK-NOT: memref.load
// CHECK: memref.store
// CHECK-NOT: memref.load
// CHECK-LABEL: func.func @squares(

// EXEC-NOT: {{FAIL|ERROR}}
// EXEC-COUNT-3: PASS

func.func @squares(%y: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m0 = "aten.mul"(%y, %y) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c0 = "aten.tanh"(%m0) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m1 = "aten.mul"(%c0, %c0) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c1 = "aten.tanh"(%m1) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m2 = "aten.mul"(%c1, %c1) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c2 = "aten.tanh"(%m2) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m3 = "aten.mul"(%c2, %c2) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c3 = "aten.tanh"(%m3) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m4 = "aten.mul"(%c3, %c3) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c4 = "aten.tanh"(%m4) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m5 = "aten.mul"(%c4, %c4) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c5 = "aten.tanh"(%m5) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m6 = "aten.mul"(%c5, %c5) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c6 = "aten.tanh"(%m6) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m7 = "aten.mul"(%c6, %c6) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c7 = "aten.tanh"(%m7) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m8 = "aten.mul"(%c7, %c7) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c8 = "aten.tanh"(%m8) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m9 = "aten.mul"(%c8, %c8) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c9 = "aten.tanh"(%m9) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  return %c9 : tensor<8x128xf32>
}

// -----

// Two results of the chain: the row analysis (analysis/rows.rs) looks through the
// recomputed nodes once per position, not once per path.
// CHECK-LABEL: func.func @squares_and_sum(
func.func @squares_and_sum(%y: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8xf32>) {
  %m0 = "aten.mul"(%y, %y) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c0 = "aten.tanh"(%m0) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m1 = "aten.mul"(%c0, %c0) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c1 = "aten.tanh"(%m1) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m2 = "aten.mul"(%c1, %c1) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c2 = "aten.tanh"(%m2) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m3 = "aten.mul"(%c2, %c2) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c3 = "aten.tanh"(%m3) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m4 = "aten.mul"(%c3, %c3) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c4 = "aten.tanh"(%m4) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m5 = "aten.mul"(%c4, %c4) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c5 = "aten.tanh"(%m5) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m6 = "aten.mul"(%c5, %c5) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c6 = "aten.tanh"(%m6) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m7 = "aten.mul"(%c6, %c6) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c7 = "aten.tanh"(%m7) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m8 = "aten.mul"(%c7, %c7) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c8 = "aten.tanh"(%m8) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %m9 = "aten.mul"(%c8, %c8) : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
  %c9 = "aten.tanh"(%m9) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %s = "aten.sum"(%c9) {dims = array<i64: -1>, keepdim = false} : (tensor<8x128xf32>) -> tensor<8xf32>
  return %c9, %s : tensor<8x128xf32>, tensor<8xf32>
}
