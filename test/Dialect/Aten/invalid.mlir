// RUN: fuse-opt %s --split-input-file --verify-diagnostics

// Broadcasting: trailing dims 3 and 5 differ.
func.func @broadcast_mismatch(%a: tensor<4x3xf32>, %b: tensor<5xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'aten.add' op operands have incompatible shapes for broadcasting: [4, 3] and [5]}}
  %0 = "aten.add"(%a, %b) : (tensor<4x3xf32>, tensor<5xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// The declared result must be the broadcast shape.
func.func @broadcast_wrong_result(%a: tensor<4x1xf32>, %b: tensor<3xf32>) -> tensor<4x1xf32> {
  // expected-error@+1 {{'aten.mul' op result shape [4, 1] does not match the expected shape [4, 3]}}
  %0 = "aten.mul"(%a, %b) : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @unary_shape(%a: tensor<4x3xf32>) -> tensor<3x4xf32> {
  // expected-error@+1 {{'aten.relu' op result shape [3, 4] does not match the expected shape [4, 3]}}
  %0 = "aten.relu"(%a) : (tensor<4x3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @where_condition(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'aten.where' op condition element type f32 does not match the expected i1}}
  %0 = "aten.where"(%c, %a, %a) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Reduction dims must be in range for the input rank.
func.func @reduction_dim_out_of_range(%a: tensor<4x3xf32>) -> tensor<4x1xf32> {
  // expected-error@+1 {{'aten.sum' op dimension 2 is out of range for a tensor of rank 2 (expected [-2, 1])}}
  %0 = "aten.sum"(%a) {dims = array<i64: 2>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @reduction_repeated_dim(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'aten.amax' op dimension -1 appears more than once in 'dims'}}
  %0 = "aten.amax"(%a) {dims = array<i64: 1, -1>, keepdim = false} : (tensor<4x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// keepdim = false drops the reduced dim.
func.func @reduction_keepdim(%a: tensor<4x3xf32>) -> tensor<4x1xf32> {
  // expected-error@+1 {{'aten.mean' op result shape [4, 1] does not match the expected shape [4]}}
  %0 = "aten.mean"(%a) {dims = array<i64: 1>, keepdim = false} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @var_correction(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'aten.var' op 'correction' must be non-negative, got -1}}
  %0 = "aten.var"(%a) {dims = array<i64: 1>, keepdim = false, correction = -1 : i64} : (tensor<4x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mean_of_integers(%a: tensor<4x3xi64>) -> tensor<4xi64> {
  // expected-error@+1 {{'aten.mean' op requires a floating-point input, got i64}}
  %0 = "aten.mean"(%a) {dims = array<i64: 1>, keepdim = false} : (tensor<4x3xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @softmax_dim(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'aten.softmax' op dimension -3 is out of range for a tensor of rank 2}}
  %0 = "aten.softmax"(%a) {dim = -3 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @layer_norm_shape(%x: tensor<8x16xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'aten.layer_norm' op normalized_shape [8] must be a non-empty suffix of the input shape [8, 16]}}
  %0 = "aten.layer_norm"(%x, %w, %b) {normalized_shape = array<i64: 8>, eps = 1.0e-05 : f64} : (tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @layer_norm_weight(%x: tensor<8x16xf32>, %w: tensor<8xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'aten.layer_norm' op weight shape [8] does not match the expected shape [16]}}
  %0 = "aten.layer_norm"(%x, %w, %b) {normalized_shape = array<i64: 16>, eps = 1.0e-05 : f64} : (tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Matmul inner dimensions must agree.
func.func @mm_inner(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<4x5xf32> {
  // expected-error@+1 {{'aten.mm' op inner dimensions do not match: [4, 3] x [4, 5] (3 vs 4)}}
  %0 = "aten.mm"(%a, %b) : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @mm_rank(%a: tensor<2x4x3xf32>, %b: tensor<3x5xf32>) -> tensor<4x5xf32> {
  // expected-error@+1 {{'aten.mm' op expects a matrix of rank 2, got [2, 4, 3]}}
  %0 = "aten.mm"(%a, %b) : (tensor<2x4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @bmm_batch(%a: tensor<2x4x3xf32>, %b: tensor<3x3x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error@+1 {{'aten.bmm' op batch dimensions do not match: [2, 4, 3] x [3, 3, 5]}}
  %0 = "aten.bmm"(%a, %b) : (tensor<2x4x3xf32>, tensor<3x3x5xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

func.func @linear_bias(%x: tensor<8x4xf32>, %w: tensor<6x4xf32>, %b: tensor<4xf32>) -> tensor<8x6xf32> {
  // expected-error@+1 {{'aten.linear' op bias shape [4] does not match the expected shape [6]}}
  %0 = "aten.linear"(%x, %w, %b) : (tensor<8x4xf32>, tensor<6x4xf32>, tensor<4xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

func.func @addmm_bias(%bias: tensor<3xf32>, %a: tensor<4x3xf32>, %b: tensor<3x5xf32>) -> tensor<4x5xf32> {
  // expected-error@+1 {{'aten.addmm' op operands have incompatible shapes for broadcasting: [3] and [4, 5]}}
  %0 = "aten.addmm"(%bias, %a, %b) : (tensor<3xf32>, tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @conv_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{'aten.convolution' op weight [4, 2, 3, 3] expects 2 input channels, input [1, 3, 8, 8] has 3}}
  %0 = "aten.convolution"(%x, %w) {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Output size: (8 + 2*1 - 1*(3-1) - 1) / 2 + 1 = 4.
func.func @conv_output_size(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error@+1 {{'aten.convolution' op result shape [1, 4, 8, 8] does not match the expected shape [1, 4, 4, 4]}}
  %0 = "aten.convolution"(%x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @conv_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{'aten.convolution' op 'stride' must have 2 positive values, got [1, 0]}}
  %0 = "aten.convolution"(%x, %w) {stride = array<i64: 1, 0>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// A view keeps the number of elements.
func.func @view_numel(%a: tensor<4x3xf32>) -> tensor<5x2xf32> {
  // expected-error@+1 {{'aten.view' op cannot view [4, 3] (12 elements) as [5, 2] (10 elements)}}
  %0 = "aten.view"(%a) : (tensor<4x3xf32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

func.func @permute_not_permutation(%a: tensor<4x3x2xf32>) -> tensor<3x4x2xf32> {
  // expected-error@+1 {{'aten.permute' op dimension 0 appears more than once in 'dims'}}
  %0 = "aten.permute"(%a) {dims = array<i64: 1, 0, 0>} : (tensor<4x3x2xf32>) -> tensor<3x4x2xf32>
  return %0 : tensor<3x4x2xf32>
}

// -----

func.func @permute_length(%a: tensor<4x3x2xf32>) -> tensor<3x4x2xf32> {
  // expected-error@+1 {{'aten.permute' op 'dims' [1, 0] is not a permutation of 3 dimensions}}
  %0 = "aten.permute"(%a) {dims = array<i64: 1, 0>} : (tensor<4x3x2xf32>) -> tensor<3x4x2xf32>
  return %0 : tensor<3x4x2xf32>
}

// -----

func.func @expand_bad(%a: tensor<4x3xf32>) -> tensor<2x4x5xf32> {
  // expected-error@+1 {{'aten.expand' op cannot expand [4, 3] to [2, 4, 5]: dimension 1 has size 3}}
  %0 = "aten.expand"(%a) : (tensor<4x3xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

func.func @transpose_dim(%a: tensor<4x3xf32>) -> tensor<3x4xf32> {
  // expected-error@+1 {{'aten.transpose' op dimension 2 is out of range for a tensor of rank 2}}
  %0 = "aten.transpose"(%a) {dim0 = 0 : i64, dim1 = 2 : i64} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @select_index(%a: tensor<4x3xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{'aten.select' op index 4 is out of range for dimension 0 of size 4}}
  %0 = "aten.select"(%a) {dim = 0 : i64, index = 4 : i64} : (tensor<4x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @slice_step(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{'aten.slice' op slice step must be positive, got 0}}
  %0 = "aten.slice"(%a) {dim = 0 : i64, start = 0 : i64, end = 4 : i64, step = 0 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @cat_mismatch(%a: tensor<4x3xf32>, %b: tensor<4x2xf32>) -> tensor<8x3xf32> {
  // expected-error@+1 {{'aten.cat' op operand #1 [4, 2] does not match [4, 3] outside dimension 0}}
  %0 = "aten.cat"(%a, %b) {dim = 0 : i64} : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

func.func @gather_index_dtype(%a: tensor<4x3xf32>, %i: tensor<4x1xf32>) -> tensor<4x1xf32> {
  // expected-error@+1 {{'aten.gather' op index element type f32 does not match the expected i64}}
  %0 = "aten.gather"(%a, %i) {dim = 1 : i64} : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Dynamic shapes are rejected with the offending type named.
func.func @dynamic_shape(%a: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error@+1 {{'aten.relu' op operand #0: dynamic shapes are not supported: 'tensor<?x3xf32>' has a dynamic dimension}}
  %0 = "aten.relu"(%a) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Unranked tensors are rejected by the IRDL definition.
func.func @unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error@+1 {{expected base type 'builtin.tensor' but got 'builtin.unranked_tensor'}}
  %0 = "aten.exp"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// f64 is not a supported element type.
func.func @unsupported_dtype(%a: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error@+1 {{'aten.neg' op operand #0: unsupported element type 'f64' in 'tensor<4xf64>' (supported: f32, f16, bf16, i64, i32, i1)}}
  %0 = "aten.neg"(%a) : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// int32 is supported, int16 is not.
func.func @unsupported_int_dtype(%a: tensor<4xi16>) -> tensor<4xi16> {
  // expected-error@+1 {{unsupported element type 'i16'}}
  %0 = "aten.abs"(%a) : (tensor<4xi16>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

func.func @dtype_mismatch(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error@+1 {{'aten.sigmoid' op result element type f16 does not match the expected f32}}
  %0 = "aten.sigmoid"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Arity is checked by the IRDL definition.
func.func @wrong_arity(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{op expects exactly 2 operands, but got 1}}
  %0 = "aten.add"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Attribute kinds are checked by the IRDL definition.
func.func @bad_attribute(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{expected base attribute 'builtin.dense_array' but got 'builtin.integer'}}
  %0 = "aten.sum"(%a) {dims = 1 : i64, keepdim = false} : (tensor<4x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @missing_attribute(%a: tensor<4x3xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{attribute "keepdim" is expected but not provided}}
  %0 = "aten.sum"(%a) {dims = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @operand_not_a_tensor(%a: f32) -> tensor<4xf32> {
  // expected-error@+1 {{expected base type 'builtin.tensor' but got 'builtin.f32'}}
  %0 = "aten.relu"(%a) : (f32) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An op the dialect does not define.
func.func @unknown_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unregistered operation 'aten.frobnicate' found in dialect ('aten') that does not allow unknown operations}}
  %0 = "aten.frobnicate"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Comparisons, logical_not and any return i1.
func.func @comparison_result(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'aten.lt' op result element type f32 does not match the expected i1}}
  %0 = "aten.lt"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @any_result(%a: tensor<4x2xi1>) -> tensor<4xf32> {
  // expected-error@+1 {{'aten.any' op result element type f32 does not match the expected i1}}
  %0 = "aten.any"(%a) {dims = array<i64: 1>, keepdim = false} : (tensor<4x2xi1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @logical_not_result(%a: tensor<4xi1>) -> tensor<4xi64> {
  // expected-error@+1 {{'aten.logical_not' op result element type i64 does not match the expected i1}}
  %0 = "aten.logical_not"(%a) : (tensor<4xi1>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Sizes whose products overflow are refused before any shape arithmetic (issue 13,
// item 9): at most 2^48 elements per tensor.
func.func @too_large(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error@+1 {{'aten.relu' op operand #0: 'tensor<4611686018427387904x4xf32>' has more than 2^48 elements}}
  %0 = "aten.relu"(%x) : (tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32>
  return %0 : tensor<4611686018427387904x4xf32>
}

// -----

// Zero-size dimensions are refused with a located error (issue 13, item 10: a softmax
// over a 0-length dim panicked in the lowering).
func.func @zero_size(%x: tensor<4x0xf32>) -> tensor<4x0xf32> {
  // expected-error@+1 {{'aten.softmax' op operand #0: zero-size dimensions are not supported: 'tensor<4x0xf32>' has a dimension of size 0}}
  %0 = "aten.softmax"(%x) {dim = 1 : i64} : (tensor<4x0xf32>) -> tensor<4x0xf32>
  return %0 : tensor<4x0xf32>
}

// -----

// Extreme slice bounds clamp as in ATen, without overflow: [1, 3) of 3 with any step.
func.func @slice_extremes(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error@+1 {{'aten.slice' op result shape [2, 3, 4] does not match the expected shape [2, 1, 4]}}
  %0 = "aten.slice"(%x) {dim = 1 : i64, start = 1 : i64, end = 9223372036854775807 : i64, step = 9223372036854775807 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @conv_padding_overflow(%x: tensor<2x3x8x8xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<2x6x4x4xf32> {
  // expected-error@+1 {{spatial size 0 overflows with padding 4611686018427387904 and dilation 2}}
  %0 = "aten.convolution"(%x, %w) {stride = array<i64: 2, 2>, padding = array<i64: 4611686018427387904, 2>, dilation = array<i64: 2, 2>, groups = 3 : i64} : (tensor<2x3x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<2x6x4x4xf32>
  return %0 : tensor<2x6x4x4xf32>
}

// -----

func.func @group_norm_groups(%x: tensor<2x6x4xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<2x6x4xf32> {
  // expected-error@+1 {{'aten.group_norm' op 6 channels do not split into 4 groups}}
  %0 = "aten.group_norm"(%x, %w, %b) {num_groups = 4 : i64, eps = 1.0e-05 : f64} : (tensor<2x6x4xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x6x4xf32>
  return %0 : tensor<2x6x4xf32>
}

// -----

func.func @group_norm_weight(%x: tensor<2x6x4xf32>, %w: tensor<4xf32>, %b: tensor<6xf32>) -> tensor<2x6x4xf32> {
  // expected-error@+1 {{'aten.group_norm' op weight shape [4] does not match the expected shape [6]}}
  %0 = "aten.group_norm"(%x, %w, %b) {num_groups = 3 : i64, eps = 1.0e-05 : f64} : (tensor<2x6x4xf32>, tensor<4xf32>, tensor<6xf32>) -> tensor<2x6x4xf32>
  return %0 : tensor<2x6x4xf32>
}

// -----

func.func @group_norm_rank(%x: tensor<6xf32>, %w: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error@+1 {{'aten.group_norm' op expects an [N, C, ...] input, got [6]}}
  %0 = "aten.group_norm"(%x, %w, %b) {num_groups = 3 : i64, eps = 1.0e-05 : f64} : (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @arange_step() -> tensor<4xi64> {
  // expected-error@+1 {{'aten.arange' op 'step' must be a finite non-zero number, got 0}}
  %0 = "aten.arange"() {start = 0.0 : f64, step = 0.0 : f64} : () -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @arange_rank() -> tensor<2x2xf32> {
  // expected-error@+1 {{'aten.arange' op result tensor<2x2xf32> must be a 1-D tensor of numbers}}
  %0 = "aten.arange"() {start = 0.0 : f64, step = 1.0 : f64} : () -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @attention_keys(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error@+1 {{'aten.scaled_dot_product_attention' op query [1, 2, 8, 16], key [1, 2, 8, 8] and value [1, 2, 8, 16] do not fit [B,H,L,E], [B,H,S,E], [B,H,S,Ev]}}
  %0 = "aten.scaled_dot_product_attention"(%q, %k, %v) {scale = 0.25 : f64} : (tensor<1x2x8x16xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_mask(%q: tensor<1x2x8x16xf32>, %m: tensor<1x1x4x8xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error@+1 {{'aten.scaled_dot_product_attention' op operands have incompatible shapes for broadcasting: [1, 1, 4, 8] and [1, 2, 8, 8]}}
  %0 = "aten.scaled_dot_product_attention"(%q, %q, %q, %m) {scale = 0.25 : f64} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x1x4x8xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// A fused GRU cell's products are 3H wide (the LSTM's are 4H).
func.func @gru_cell_width(%g: tensor<8x128xf32>, %h: tensor<4x32xf32>) -> tensor<4x32xf32> {
  // expected-error@+1 {{'aten.fused_gru_cell' op expects the two gate products stacked as [8, 96] for the state tensor<4x32xf32>, got tensor<8x128xf32>}}
  %0 = "aten.fused_gru_cell"(%g, %h) : (tensor<8x128xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// The fused LSTM cell's result stacks hy and cy: [2, B, H].
func.func @lstm_cell_result(%g: tensor<8x128xf32>, %c: tensor<4x32xf32>) -> tensor<4x32xf32> {
  // expected-error@+1 {{'aten.fused_lstm_cell' op result shape [4, 32] does not match the expected shape [2, 4, 32]}}
  %0 = "aten.fused_lstm_cell"(%g, %c) : (tensor<8x128xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// Biases come in pairs (input and hidden), each [G*H].
func.func @lstm_cell_bias(%g: tensor<8x128xf32>, %c: tensor<4x32xf32>, %b: tensor<96xf32>) -> tensor<2x4x32xf32> {
  // expected-error@+1 {{'aten.fused_lstm_cell' op expects biases [128], got tensor<96xf32>}}
  %0 = "aten.fused_lstm_cell"(%g, %c, %b, %b) : (tensor<8x128xf32>, tensor<4x32xf32>, tensor<96xf32>, tensor<96xf32>) -> tensor<2x4x32xf32>
  return %0 : tensor<2x4x32xf32>
}
