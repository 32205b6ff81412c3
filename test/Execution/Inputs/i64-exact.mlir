func.func @add_one(%x: tensor<2xi64>) -> tensor<2xi64> {
  %one = arith.constant dense<1> : tensor<i64>
  %0 = "aten.add"(%x, %one) : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
