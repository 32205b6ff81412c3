// Regression (fuse-fuzz seed 25000016): MindSpore's matmul pattern must check the cycle
// direction a fusion can close (matmul -> another area -> its user); with MindSpore's own
// check the addmm's kernel read a transposed weight defined after it (invalid IR).
// RUN: fuse-run %s --strategy ascend-mindspore | FileCheck %s
// RUN: fuse-run %s --strategy ascend-mindspore --jit | FileCheck %s
// RUN: fuse-opt %s --aten-decompose --lower-aten-to-loop=materialize-views=true --ascend-autofuse=mode=mindspore -o /dev/null
// CHECK: ascend-mindspore output #0 tensor<2x2xf32>: {{.*}} PASS
func.func @fuzz(%a0: tensor<4x2x2xf32>, %a1: tensor<2x2xf32>, %a2: tensor<2x2xf32>, %a3: tensor<2xf32>, %a4: tensor<2x2xf32>, %a5: tensor<2xf32>) -> (tensor<2x2xf32>) {
  %v1 = "aten.linear"(%a1, %a2, %a3) : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %v2 = "aten.gelu"(%v1) {approximate = "none"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %v3 = "aten.minimum"(%a1, %v1) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %v4 = "aten.to_dtype"(%a4) : (tensor<2x2xf32>) -> tensor<2x2xbf16>
  %v5 = "aten.to_dtype"(%v4) : (tensor<2x2xbf16>) -> tensor<2x2xf32>
  %v6 = "aten.add"(%v1, %v5) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %v7 = "aten.rms_norm"(%v3, %a5) {normalized_shape = array<i64: 2>, eps = 1.0e-05 : f64} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %v8 = arith.constant dense<-1.5> : tensor<f32>
  %v9 = "aten.add"(%v2, %v8) : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %v10 = "aten.relu"(%v7) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %v11 = "aten.permute"(%v6) {dims = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %v12 = "aten.cos"(%v11) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %v13 = "aten.permute"(%v12) {dims = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %v14 = "aten.add"(%v9, %v13) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %v14 : tensor<2x2xf32>
}
