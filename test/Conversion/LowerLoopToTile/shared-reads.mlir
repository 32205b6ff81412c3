// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop --tvm-fuse-ops --lower-loop-to-tile | FileCheck %s
// RUN: fuse-run %s --target ascend --jit --strategy tvm | FileCheck %s --check-prefix=EXEC

// A kernel-local node read twice at the same position (x * x) is built once per
// program: the second read reuses the block (targets/src/lower_loop_to_tile/kernel/eval.rs,
// `Recomputed`, Inductor's kernel CSE). Built per read, the kernel doubled at every
// level of this chain (2^10 loads of %y; the Ascend lowering, which starts from these
// tile kernels, took seconds at 16 levels). The Ascend target runs it against the
// aten oracle.
// CHECK-LABEL: "tile.kernel"
// CHECK-COUNT-2: "tile.load"
// CHECK-NOT: "tile.load"
// CHECK: "tile.store"
// CHECK-NOT: "tile.load"
// CHECK-LABEL: func.func @squares(

// EXEC-NOT: {{FAIL|ERROR}}
// EXEC: PASS

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
