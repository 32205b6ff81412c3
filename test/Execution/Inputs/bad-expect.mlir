func.func @one(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "aten.neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
