// Input for malformed.mlir: missing ':' before the type list.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.relu"(%a) (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
