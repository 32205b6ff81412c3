func.func @f(%x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{cannot view
  %0 = "aten.view"(%x) {size = array<i64: 5>} : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
