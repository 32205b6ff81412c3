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

// -----

// Aten ops nested in a region are refused, never left unlowered (issue 13, item 4).
func.func @in_loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    // expected-error@+1 {{'aten.exp' inside 'scf.for' cannot be lowered: fuselab lowers aten ops of a function's top-level block only}}
    %e = "aten.exp"(%acc) : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @in_region(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.execute_region -> tensor<4xf32> {
    // expected-error@+1 {{'aten.relu' inside 'scf.execute_region' cannot be lowered}}
    %e = "aten.relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
