// RUN: fuse-opt %s --split-input-file --aten-decompose --lower-aten-to-loop --inline-pointwise --inductor-fuse | FileCheck %s
// RUN: fuse-opt %S/Inputs/mismatched-index.mlir --inductor-fuse --fusion-explain --verify-diagnostics
// RUN: fuse-opt %S/Inputs/long-chain.mlir --aten-decompose --lower-aten-to-loop --inline-pointwise=realize-opcount-threshold=0 --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=CHAIN
// RUN: fuse-opt %S/Inputs/long-chain.mlir --aten-decompose --lower-aten-to-loop --inline-pointwise=realize-opcount-threshold=0 --inductor-fuse="max-fusion-size=8" --fusion-report=%t.json
// RUN: FileCheck %s --check-prefix=SMALL --input-file=%t.json
// RUN: fuse-opt %S/Inputs/far-apart.mlir --aten-decompose --lower-aten-to-loop --inline-pointwise=realize-opcount-threshold=0 --inductor-fuse --fusion-report=- | FileCheck %s --check-prefix=FAR

// The seed model: one kernel holding the row-sum reduction and its epilogue; buf0 is
// kernel-local (not yielded), only buf1 leaves the kernel.
// CHECK-LABEL: func.func @seed
// CHECK: %[[K:.*]] = "loop.kernel"() ({
// CHECK: %[[B0:.*]] = "loop.reduction"
// CHECK: name = "buf0"
// CHECK: %[[B1:.*]] = "loop.pointwise"
// CHECK: name = "buf1"
// CHECK: gpu.yield %[[B1]] : tensor<1024x1024xf32>
// CHECK-NEXT: }) {iteration = array<i64: 1024, 1024>, name = "fused_add_mean_mul_relu_sub_0", strategy = "inductor"} : () -> tuple<tensor<1024x1024xf32>>
// CHECK-NEXT: %[[Y:.*]] = "loop.output"(%[[K]]) {index = 0 : i64}
// CHECK-NEXT: return %[[Y]]
func.func @seed(%x: tensor<1024x1024xf32>, %bias: tensor<1024xf32>, %gamma: tensor<1024xf32>, %beta: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %c0 = arith.constant dense<1.1> : tensor<f32>
  %x11 = "aten.mul"(%x, %c0) : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024x1024xf32>
  %t = "aten.add"(%x11, %bias) : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  %a = "aten.relu"(%t) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %p = "aten.mul"(%a, %a) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %c1 = arith.constant dense<0.1> : tensor<f32>
  %q = "aten.mul"(%a, %c1) : (tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024x1024xf32>
  %s = "aten.add"(%p, %q) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %m = "aten.mean"(%s) {dims = array<i64: 1>, keepdim = true} : (tensor<1024x1024xf32>) -> tensor<1024x1xf32>
  %d = "aten.sub"(%s, %m) : (tensor<1024x1024xf32>, tensor<1024x1xf32>) -> tensor<1024x1024xf32>
  %g = "aten.mul"(%d, %gamma) : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  %y = "aten.add"(%g, %beta) : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  return %y : tensor<1024x1024xf32>
}

// -----

// A residual around a matmul: relu(x) feeds the mm and the add. The add reads relu's
// buffer exactly as it is written, but also the mm's output, and the mm depends on
// relu: fusing relu and add would need the mm in between ("intermediate nodes between
// node1 & node2"), so there are two kernels around the extern.
// CHECK-LABEL: func.func @residual
// CHECK: %[[K0:.*]] = "loop.kernel"
// CHECK: name = "fused_relu_0"
// CHECK: %[[R:.*]] = "loop.output"(%[[K0]]) {index = 0 : i64}
// CHECK: %[[MM:.*]] = "loop.extern"(%[[R]], %arg1)
// CHECK: "loop.kernel"
// CHECK: name = "fused_add_1"
func.func @residual(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = "aten.relu"(%x) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = "aten.mm"(%r, %w) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = "aten.add"(%r, %m) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// -----

// Two reductions over the same rows with a pointwise epilogue: one kernel (equal
// (numel, rnumel), and the epilogue's loops split into (4096, 1024)).
// CHECK-LABEL: func.func @two_reductions
// CHECK: "loop.kernel"
// CHECK-COUNT-2: "loop.reduction"
// CHECK: "loop.pointwise"
// CHECK: name = "fused_add_div_mean_pow_sqrt_sub_0"
// CHECK-NOT: "loop.kernel"
func.func @two_reductions(%x: tensor<4096x1024xf32>) -> tensor<4096x1024xf32> {
  %m = "aten.mean"(%x) {dims = array<i64: -1>, keepdim = true} : (tensor<4096x1024xf32>) -> tensor<4096x1xf32>
  %d = "aten.sub"(%x, %m) : (tensor<4096x1024xf32>, tensor<4096x1xf32>) -> tensor<4096x1024xf32>
  %c2 = arith.constant dense<2.0> : tensor<f32>
  %sq = "aten.pow"(%d, %c2) : (tensor<4096x1024xf32>, tensor<f32>) -> tensor<4096x1024xf32>
  %v = "aten.mean"(%sq) {dims = array<i64: -1>, keepdim = true} : (tensor<4096x1024xf32>) -> tensor<4096x1xf32>
  %eps = arith.constant dense<1.0e-05> : tensor<f32>
  %ve = "aten.add"(%v, %eps) : (tensor<4096x1xf32>, tensor<f32>) -> tensor<4096x1xf32>
  %sd = "aten.sqrt"(%ve) : (tensor<4096x1xf32>) -> tensor<4096x1xf32>
  %d2 = "aten.sub"(%x, %m) : (tensor<4096x1024xf32>, tensor<4096x1xf32>) -> tensor<4096x1024xf32>
  %y = "aten.div"(%d2, %sd) : (tensor<4096x1024xf32>, tensor<4096x1xf32>) -> tensor<4096x1024xf32>
  return %y : tensor<4096x1024xf32>
}

// -----

// Reductions over different row lengths do not fuse ("numel/rnumel mismatch (reduce)"),
// and a scalar epilogue joins the small reduction (numel_pw == numel_red).
// CHECK-LABEL: func.func @different_reductions
// CHECK: name = "fused_sum_0"
// CHECK: name = "fused_mean_neg_1"
func.func @different_reductions(%x: tensor<64x32xf32>) -> tensor<f32> {
  %s = "aten.sum"(%x) {dims = array<i64: 1>, keepdim = false} : (tensor<64x32xf32>) -> tensor<64xf32>
  %m = "aten.mean"(%s) {dims = array<i64: 0>, keepdim = false} : (tensor<64xf32>) -> tensor<f32>
  %n = "aten.neg"(%m) : (tensor<f32>) -> tensor<f32>
  return %n : tensor<f32>
}

// -----

// Horizontal fusion: two independent consumers of x fuse (shared reads >= 10 bytes,
// close together), and their outputs both leave the kernel.
// CHECK-LABEL: func.func @horizontal
// CHECK: %[[K:.*]] = "loop.kernel"
// CHECK: gpu.yield %{{.*}}, %{{.*}} : tensor<256xf32>, tensor<256xf32>
// CHECK: name = "fused_cos_sin_0"
// CHECK: "loop.output"(%[[K]]) {index = 0 : i64}
// CHECK: "loop.output"(%[[K]]) {index = 1 : i64}
func.func @horizontal(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %0 = "aten.sin"(%x) : (tensor<256xf32>) -> tensor<256xf32>
  %1 = "aten.cos"(%x) : (tensor<256xf32>) -> tensor<256xf32>
  return %0, %1 : tensor<256xf32>, tensor<256xf32>
}

// The chain of 70 realized pointwise nodes splits at max_fusion_size = 64.
// CHAIN: "name": "fused_neg_0"
// CHAIN: "members": [
// CHAIN-COUNT-64: "buf
// CHAIN: "name": "fused_neg_1"
// CHAIN: "kernels": 2,
// CHAIN: "reason": "exceeds max fusion"
// With max-fusion-size=8, 70 nodes need 9 kernels.
// SMALL: "kernels": 9,
// SMALL: "reason": "exceeds max fusion"
// exp(x) and sin(x) share x but 70 realized nodes separate them: not fused.
// FAR-DAG: "name": "fused_exp_0"
// FAR-DAG: "name": "fused_sin_3"
// FAR: "node1": "buf0",
// FAR-NEXT: "node2": "buf71",
// FAR-NEXT: "reason": "Nodes are too far away. Fusing them may increase peak memory."
