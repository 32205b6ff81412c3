// Input for split-input-file.mlir: the middle chunk is invalid.
func.func @ok_before() {
  return
}

// -----

// The error is on line 10 of this file.
func.func @bad(%x: tensor<4xf32>) -> tensor<5xf32> {
  %0 = "aten.view"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @ok_after() {
  return
}
