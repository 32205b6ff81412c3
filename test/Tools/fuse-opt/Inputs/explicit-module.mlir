// Input for io.mlir: a named module with an alias defined before it.
#id = affine_map<(d0) -> (d0)>
module @named {
  func.func @g(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = "aten.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
