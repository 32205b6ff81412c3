// Input for verify-diagnostics.mlir: expectations that must fail.

// The message does not contain the expected text.
func.func @wrong_text(%x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{this text is not in the message}}
  %0 = "aten.view"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @unexpected(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = "aten.mm"(%a, %b) : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @missing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{never emitted}}
  %0 = "aten.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
