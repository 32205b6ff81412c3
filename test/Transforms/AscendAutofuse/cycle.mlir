// Regression: GE AutoFuse's cycle check walks kernels, not nodes. With at most two nodes a
// kernel, exp and add fuse first (they share x); neg and mul then share no node path
// through a third node (neg -> add, exp -> mul), yet {neg, mul} would feed the kernel
// {exp, add} and read it. The node walk fused them, and on larger graphs (a 400-node
// in-tree of fuse-bench) wrote kernels whose operands did not dominate their uses.
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse="max-fusion-size=2" --fusion-explain 2>&1 | FileCheck %s

// CHECK: cycle.mlir:[[# @LINE + 7]]:8: remark: not fusing buf0 with buf3: fusion would create a cycle
// CHECK-LABEL: func.func @through_a_kernel
// CHECK: name = "fused_add_exp_1"
func.func @through_a_kernel(%x: tensor<64x32xf32>, %y: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  %a = "aten.neg"(%y) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %e = "aten.exp"(%x) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %c = "aten.add"(%x, %a) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %b = "aten.mul"(%a, %e) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  return %c, %b : tensor<64x32xf32>, tensor<64x32xf32>
}
