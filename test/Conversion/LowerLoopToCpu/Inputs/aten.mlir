// Input of lower-loop-to-cpu.mlir: aten ops the CPU code generator refuses.
func.func @not_lowered(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "aten.add"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
