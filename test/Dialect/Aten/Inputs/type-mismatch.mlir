// Input for malformed.mlir: %0 is used with two different types.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "aten.exp"(%0) : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf32>
}
