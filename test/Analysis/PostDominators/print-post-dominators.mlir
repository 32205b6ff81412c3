// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop --print-post-dominators -o /dev/null | FileCheck %s --check-prefix=SEED
// RUN: fuse-opt %s --split-input-file --lower-aten-to-loop --print-post-dominators -o /dev/null | FileCheck %s

// The seed model (seed 000 §9): relu's two branches meet at s = p + q, so s is relu's
// immediate post-dominator; s feeds mean and s - m, which meet at s - m.
// SEED-LABEL: // PostDominators of @seed_10op
// SEED: buf2 (relu): ipdom = buf5
// SEED: buf5 (add): ipdom = buf8
// SEED: buf6 (mean): ipdom = buf7
// SEED: buf8 (sub): ipdom = buf9
// SEED: buf10 (add): ipdom = <none>, depth = 1

// Nested diamonds: the inner one closes at buf3, the outer one at buf5.
// CHECK-LABEL: // PostDominators of @nested
// CHECK: buf0 (exp): ipdom = buf5
// CHECK: buf1 (sin): ipdom = buf3
// CHECK: buf2 (cos): ipdom = buf3
// CHECK: buf3 (add): ipdom = buf5
// CHECK: buf4 (neg): ipdom = buf5
// CHECK: buf5 (mul): ipdom = <none>
func.func @nested(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "aten.exp"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "aten.sin"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "aten.cos"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  %3 = "aten.add"(%1, %2) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = "aten.neg"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  %5 = "aten.mul"(%3, %4) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %5 : tensor<8xf32>
}

// -----

// Two outputs: a node feeding both has no post-dominator, and nothing is
// post-dominated through an output (buf0 is returned and also feeds buf1).
// CHECK-LABEL: // PostDominators of @outputs
// CHECK: buf0 (exp): ipdom = <none>
// CHECK: buf1 (sin): ipdom = <none>
// CHECK: buf2 (cos): ipdom = <none>
func.func @outputs(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = "aten.exp"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "aten.sin"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "aten.cos"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
