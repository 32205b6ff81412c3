// RUN: fuse-opt %s --split-input-file --verify-diagnostics

// A load's index map takes one dim per index of its node.
func.func @load_arity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = "loop.pointwise"() ({
  ^bb0(%d0: index, %d1: index):
    // expected-error@+1 {{'loop.load' op index affine_map<(d0) -> (d0)> takes 1 dims but the enclosing node has 2 indices}}
    %v = "loop.load"(%x) {index = affine_map<(d0) -> (d0)>} : (tensor<4x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf0", ranges = array<i64: 4, 8>, origins = []} : () -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The node's body takes one index argument per range.
func.func @block_arity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'loop.pointwise' op body takes 1 index arguments, expected 2}}
  %0 = "loop.pointwise"() ({
  ^bb0(%d0: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 8 + d1)>} : (tensor<4x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf0", ranges = array<i64: 4, 8>, origins = []} : () -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Ranges must cover the result's elements.
func.func @ranges_numel(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'loop.pointwise' op result [4, 8] has 32 elements but 'ranges' [4, 4] cover 16}}
  %0 = "loop.pointwise"() ({
  ^bb0(%d0: index, %d1: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 8 + d1)>} : (tensor<4x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf0", ranges = array<i64: 4, 4>, origins = []} : () -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// An unknown reduction kind is rejected by the IRDL definition.
func.func @bad_kind(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'"mode"' does not satisfy the constraint}}
  %0 = "loop.reduction"() ({
  ^bb0(%d0: index, %r0: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 8 + d1)>} : (tensor<4x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf0", ranges = array<i64: 4>, reduction_ranges = array<i64: 8>, kind = "mode", origins = []} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A load outside a node has no indices to use.
func.func @load_outside(%x: tensor<4xf32>) -> f32 {
  // expected-error@+1 {{'loop.load' op must be nested in a loop.pointwise or loop.reduction}}
  %v = "loop.load"(%x) {index = affine_map<(d0) -> (d0)>} : (tensor<4xf32>) -> f32
  return %v : f32
}

// -----

// The kernel's result tuple must list the yielded buffers.
func.func @kernel_outputs(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'loop.kernel' op yields (tensor<4xf32>) but its result tuple holds (tensor<8xf32>)}}
  %k = "loop.kernel"() ({
    %0 = "loop.pointwise"() ({
    ^bb0(%d0: index):
      %v = "loop.load"(%x) {index = affine_map<(d0) -> (d0)>} : (tensor<4xf32>) -> f32
      gpu.yield %v : f32
    }) {name = "buf0", ranges = array<i64: 4>, origins = []} : () -> tensor<4xf32>
    gpu.yield %0 : tensor<4xf32>
  }) {name = "fused_0", iteration = array<i64: 4, 1>, strategy = "inductor"} : () -> tuple<tensor<8xf32>>
  %y = "loop.output"(%k) {index = 0 : i64} : (tuple<tensor<8xf32>>) -> tensor<8xf32>
  return %x : tensor<4xf32>
}

// -----

func.func @output_index(%k: tuple<tensor<4xf32>>) -> tensor<4xf32> {
  // expected-error@+1 {{'loop.output' op index 1 is out of range for a kernel with 1 outputs}}
  %y = "loop.output"(%k) {index = 1 : i64} : (tuple<tensor<4xf32>>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @kernel_iteration(%x: tensor<4xf32>) {
  // expected-error@+1 {{'loop.kernel' op 'iteration' must be (numel, rnumel), got [4]}}
  %k = "loop.kernel"() ({
    gpu.yield
  }) {name = "fused_0", iteration = array<i64: 4>, strategy = "inductor"} : () -> tuple<>
  return
}

// -----

// The extern kind is one of mm, bmm, convolution.
func.func @extern_kind(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'"gemv"' does not satisfy the constraint}}
  %0 = "loop.extern"(%a, %a) {name = "buf0", kind = "gemv", origins = []} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A node body must end in gpu.yield of one scalar.
func.func @yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'loop.pointwise' op body must end in 'gpu.yield' of one scalar}}
  %0 = "loop.pointwise"() ({
  ^bb0(%d0: index):
    %v = "loop.load"(%x) {index = affine_map<(d0) -> (d0)>} : (tensor<4xf32>) -> f32
    gpu.yield %v, %v : f32, f32
  }) {name = "buf0", ranges = array<i64: 4>, origins = []} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A loop order (set by Inductor's loop reordering) permutes a pointwise node's dims.
func.func @loop_order_not_a_permutation(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'loop.pointwise' op 'loop_order' [0, 0] must be a permutation of the 2 dims of a pointwise node}}
  %0 = "loop.pointwise"() ({
  ^bb0(%d0: index, %d1: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 8 + d1)>} : (tensor<4x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf0", ranges = array<i64: 4, 8>, origins = [], loop_order = array<i64: 0, 0>} : () -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @loop_order_on_a_reduction(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'loop.reduction' op 'loop_order' [0] must be a permutation of the 1 dims of a pointwise node}}
  %0 = "loop.reduction"() ({
  ^bb0(%d0: index, %r0: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 8 + d1)>} : (tensor<4x8xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf0", ranges = array<i64: 4>, reduction_ranges = array<i64: 8>, kind = "sum", origins = [], loop_order = array<i64: 0>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A concat extern takes mm results that only it reads (they are written into its slices).
func.func @concat_of_an_input(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x16xf32> {
  %0 = "loop.extern"(%x, %w) {kind = "mm", name = "buf0", origins = []} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  // expected-error@+1 {{'loop.extern' op concat operand #1 must be the result of an mm extern (no bias) that only this concat reads}}
  %1 = "loop.extern"(%0, %x) {kind = "concat", dim = 1 : i64, name = "buf1", origins = []} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

func.func @concat_sizes(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x12xf32> {
  %0 = "loop.extern"(%x, %w) {kind = "mm", name = "buf0", origins = []} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = "loop.extern"(%x, %w) {kind = "mm", name = "buf1", origins = []} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  // expected-error@+1 {{'loop.extern' op concat operands add up to 16 along dim 1, the result has 12}}
  %2 = "loop.extern"(%0, %1) {kind = "concat", dim = 1 : i64, name = "buf2", origins = []} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x12xf32>
  return %2 : tensor<4x12xf32>
}

// -----

func.func @mm_with_four_operands(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'loop.extern' op a 'mm' extern takes two operands and an optional bias, got 4}}
  %0 = "loop.extern"(%x, %w, %b, %b) {kind = "mm", name = "buf0", origins = []} : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A gru_cell extern's gate products are read through their view: here the first two
// rows only, which do not hold both products for two rows of state.
func.func @gru_cell_view(%g: tensor<4x96xf32>, %h: tensor<2x32xf32>) -> tensor<2x32xf32> {
  // expected-error@+1 {{'loop.extern' op a 'gru_cell' extern expects the two gate products stacked as [4, 96] for the state tensor<2x32xf32>, got tensor<2x96xf32>}}
  %0 = "loop.extern"(%g, %h) {name = "buf0", kind = "gru_cell", origins = [], operand_views = [array<i64: 0, 2, 96, 96, 1>, array<i64>]} : (tensor<4x96xf32>, tensor<2x32xf32>) -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}

// -----

// An lstm_cell extern writes hy and cy stacked, [2, B, H].
func.func @lstm_cell_result(%g: tensor<4x128xf32>, %c: tensor<2x32xf32>) -> tensor<2x32xf32> {
  // expected-error@+1 {{'loop.extern' op a 'lstm_cell' extern over these operands gives tensor<2x2x32xf32>, not tensor<2x32xf32>}}
  %0 = "loop.extern"(%g, %c) {name = "buf0", kind = "lstm_cell", origins = []} : (tensor<4x128xf32>, tensor<2x32xf32>) -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}

// -----

// A convolution's `result_order` is a permutation of its result's dims.
func.func @result_order_rank(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x8x8x4xf32> {
  // expected-error@+1 {{'loop.extern' op 'result_order' [0, 2, 1] is not a permutation of the result's 4 dims}}
  %0 = "loop.extern"(%x, %w) {kind = "convolution", name = "buf0", origins = [], result_order = array<i64: 0, 2, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x8x8x4xf32>
  return %0 : tensor<1x8x8x4xf32>
}

// -----

// Only a convolution stores its result in another order (the other externs' code
// generators write theirs contiguously).
func.func @result_order_kind(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'loop.extern' op only a 'convolution' extern may store its result in another 'result_order'}}
  %0 = "loop.extern"(%a, %b) {kind = "mm", name = "buf0", origins = [], result_order = array<i64: 1, 0>} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
