// Input for lower-aten-to-loop.mlir: what the lowering refuses, with located errors.

// Composite ops must be decomposed first.
func.func @composite(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'aten.softmax' op cannot be lowered to loop: 'aten.softmax' is a composite op; run --aten-decompose before --lower-aten-to-loop}}
  %0 = "aten.softmax"(%x) {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Non-splat tensor constants are not supported as operands.
func.func @dense_constant(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // expected-error@+1 {{'aten.add' op cannot be lowered to loop: operand is not produced by an aten op, a splat constant or a function argument}}
  %0 = "aten.add"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Integer true division has no integer result.
func.func @int_div(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error@+1 {{integer true division needs a floating-point result type}}
  %0 = "aten.div"(%a, %b) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// A view (an index map, not a buffer) used by an op the lowering does not know is a
// located error.
func.func private @external(tensor<2x2xf32>)

func.func @view_used_by_call(%x: tensor<4xf32>) {
  // expected-error@+1 {{'aten.view' result is used by 'func.call', which --lower-aten-to-loop cannot lower (only aten ops, splat constants and func.return)}}
  %0 = "aten.view"(%x) : (tensor<4xf32>) -> tensor<2x2xf32>
  func.call @external(%0) : (tensor<2x2xf32>) -> ()
  return
}
