// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop --print-post-dominators -o /dev/null | FileCheck %s --check-prefix=SEED
// RUN: fuse-opt %S/../../../examples/seed_10op.mlir --aten-decompose --lower-aten-to-loop --print-post-dominators="mode=relay" -o /dev/null | FileCheck %s --check-prefix=RELAY
// RUN: fuse-opt %s --split-input-file --lower-aten-to-loop --print-post-dominators -o /dev/null | FileCheck %s

// The seed model (seed 000 §9): relu's two branches meet at s = p + q, so s is relu's
// immediate post-dominator; s feeds mean and s - m, which meet at s - m. One node per
// op: mean's sum and divide blocks are one node, named after its result (buf7). The
// dominance pattern of s is the max over its edges: kOutEWiseFusable (mean, Relax) or
// kCommReduce (Relay); a function output has none (kOpaque).
// SEED-LABEL: // PostDominators of @seed_10op
// SEED: arg0_1 (param) kOpaque: ipdom = buf0
// SEED: buf2 (relu) kElemWise: ipdom = buf5, depth = 5, dom pattern = kElemWise
// SEED: buf5 (add) kElemWise: ipdom = buf8, depth = 4, dom pattern = kOutEWiseFusable
// SEED-NEXT: buf7 (mean) kOutEWiseFusable: ipdom = buf8, depth = 4, dom pattern = kElemWise
// SEED-NEXT: buf8 (sub) kElemWise: ipdom = buf9
// SEED: buf10 (add) kElemWise: ipdom = <none>, depth = 1, dom pattern = kOpaque
// RELAY: buf5 (add) kBroadcast: ipdom = buf8, depth = 4, dom pattern = kCommReduce
// RELAY-NEXT: buf7 (mean) kCommReduce: ipdom = buf8, depth = 4, dom pattern = kBroadcast

// Nested diamonds: the inner one closes at buf3, the outer one at buf5.
// CHECK-LABEL: // PostDominators of @nested
// CHECK: buf0 (exp) kElemWise: ipdom = buf5
// CHECK: buf1 (sin) kElemWise: ipdom = buf3
// CHECK: buf2 (cos) kElemWise: ipdom = buf3
// CHECK: buf3 (add) kElemWise: ipdom = buf5
// CHECK: buf4 (neg) kElemWise: ipdom = buf5
// CHECK: buf5 (mul) kElemWise: ipdom = <none>
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
// CHECK: buf0 (exp) kElemWise: ipdom = <none>
// CHECK: buf1 (sin) kElemWise: ipdom = <none>
// CHECK: buf2 (cos) kElemWise: ipdom = <none>
func.func @outputs(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = "aten.exp"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "aten.sin"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "aten.cos"(%0) : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
