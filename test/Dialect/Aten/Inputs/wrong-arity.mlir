// Input for irdl-upstream.mlir: aten.add with one operand.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "aten.add"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
