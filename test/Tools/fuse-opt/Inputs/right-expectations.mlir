// Input for verify-diagnostics.mlir: every designator form, all satisfied.
func.func @above(%x: tensor<4xf32>) -> tensor<5xf32> {
  %0 = "aten.view"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  // expected-error@above {{cannot view [4]}}
  return %0 : tensor<5xf32>
}

// -----

func.func @below(%x: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error@below {{(4 elements) as [5]}}
  %0 = "aten.view"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @same_line_and_regex(%x: tensor<4xf32>) -> tensor<5xf32> {
  %0 = "aten.view"(%x) : (tensor<4xf32>) -> tensor<5xf32> // expected-error-re {{cannot view {{\[[0-9]+\]}} ({{[0-9]+}} elements)}}
  return %0 : tensor<5xf32>
}
