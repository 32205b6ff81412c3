// A dtype fuselab does not execute.
func.func @double(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = "aten.neg"(%x) : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
