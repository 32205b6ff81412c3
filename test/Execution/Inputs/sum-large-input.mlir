func.func @s(%x: tensor<1000000000xf32>) -> tensor<f32> {
  %0 = "aten.sum"(%x) {dims = array<i64>, keepdim = false} : (tensor<1000000000xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
