func.func @"my model"(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = "aten.exp"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = "aten.relu"(%e) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
