// Input for malformed.mlir: matmul with mismatched inner dimensions.
func.func @f(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = "aten.mm"(%a, %b) : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
