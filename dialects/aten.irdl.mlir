// fuselab `aten` dialect: ATen tensor operators, the compiler's input.
// Values are builtin ranked tensors with static shapes; scalars are rank-0 tensors.
// Integer lists are `array<i64: ...>` (#builtin.dense_array), flags are i1 `true`/`false`.
// IRDL checks arity and attribute kinds; shapes and dtypes are checked by fuselab's Rust
// shape verifier (dialects/src/aten/verify.rs). IRDL ops print and parse in generic form only.
// Ops are listed in the order of dialects/src/aten/ops.rs; a test keeps the two in sync.
irdl.dialect @aten {
  // ---- elementwise unary: result has the operand's shape
  // neg(self)
  irdl.operation @neg {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // exp(self)
  irdl.operation @exp {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // log(self)
  irdl.operation @log {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // sqrt(self)
  irdl.operation @sqrt {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // rsqrt(self)
  irdl.operation @rsqrt {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // relu(self)
  irdl.operation @relu {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // sigmoid(self)
  irdl.operation @sigmoid {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // tanh(self)
  irdl.operation @tanh {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // sin(self)
  irdl.operation @sin {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // cos(self)
  irdl.operation @cos {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // abs(self)
  irdl.operation @abs {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // floor(self), ceil(self), round(self) (half to even), trunc(self): the identity on
  // integers
  irdl.operation @floor {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  irdl.operation @ceil {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  irdl.operation @round {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  irdl.operation @trunc {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // erf(self)
  irdl.operation @erf {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // silu(self)
  irdl.operation @silu {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // reciprocal(self)
  irdl.operation @reciprocal {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // gelu(self) {approximate = "none" | "tanh"}
  irdl.operation @gelu {
    %t0 = irdl.base "!builtin.tensor"
    %approximate_n = irdl.is "none"
    %approximate_t = irdl.is "tanh"
    %approximate = irdl.any_of(%approximate_n, %approximate_t)
    irdl.attributes { "approximate" = %approximate }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // to_dtype(self): element-type conversion; the result type names the dtype
  irdl.operation @to_dtype {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // clone(self): a copy
  irdl.operation @clone {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // logical_not(self): result i1
  irdl.operation @logical_not {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // ---- elementwise binary / ternary with broadcasting
  // add(self, other): broadcasting
  irdl.operation @add {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // sub(self, other): broadcasting
  irdl.operation @sub {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // mul(self, other): broadcasting
  irdl.operation @mul {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // div(self, other): broadcasting
  irdl.operation @div {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // maximum(self, other): broadcasting
  irdl.operation @maximum {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // minimum(self, other): broadcasting
  irdl.operation @minimum {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // pow(self, other): broadcasting
  irdl.operation @pow {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // where(condition: i1, self, other): broadcasting
  irdl.operation @where {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %t2 = irdl.base "!builtin.tensor"
    irdl.operands(condition: %t0, self: %t1, other: %t2)
    %t3 = irdl.base "!builtin.tensor"
    irdl.results(result: %t3)
  }
  // eq(self, other): broadcasting comparison, result i1
  irdl.operation @eq {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // ne(self, other): broadcasting comparison, result i1
  irdl.operation @ne {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // lt(self, other): broadcasting comparison, result i1
  irdl.operation @lt {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // le(self, other): broadcasting comparison, result i1
  irdl.operation @le {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // gt(self, other): broadcasting comparison, result i1
  irdl.operation @gt {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // ge(self, other): broadcasting comparison, result i1
  irdl.operation @ge {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // ---- reductions over `dims`; `keepdim` keeps reduced dims as size 1
  // sum(self) {dims, keepdim}
  irdl.operation @sum {
    %t0 = irdl.base "!builtin.tensor"
    %dims = irdl.base "#builtin.dense_array"
    %keepdim_t = irdl.is true
    %keepdim_f = irdl.is false
    %keepdim = irdl.any_of(%keepdim_t, %keepdim_f)
    irdl.attributes { "dims" = %dims, "keepdim" = %keepdim }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // prod(self) {dims, keepdim}: bools and integers multiply in int64, as PyTorch
  irdl.operation @prod {
    %t0 = irdl.base "!builtin.tensor"
    %dims = irdl.base "#builtin.dense_array"
    %keepdim_t = irdl.is true
    %keepdim_f = irdl.is false
    %keepdim = irdl.any_of(%keepdim_t, %keepdim_f)
    irdl.attributes { "dims" = %dims, "keepdim" = %keepdim }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // mean(self) {dims, keepdim}
  irdl.operation @mean {
    %t0 = irdl.base "!builtin.tensor"
    %dims = irdl.base "#builtin.dense_array"
    %keepdim_t = irdl.is true
    %keepdim_f = irdl.is false
    %keepdim = irdl.any_of(%keepdim_t, %keepdim_f)
    irdl.attributes { "dims" = %dims, "keepdim" = %keepdim }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // amax(self) {dims, keepdim}
  irdl.operation @amax {
    %t0 = irdl.base "!builtin.tensor"
    %dims = irdl.base "#builtin.dense_array"
    %keepdim_t = irdl.is true
    %keepdim_f = irdl.is false
    %keepdim = irdl.any_of(%keepdim_t, %keepdim_f)
    irdl.attributes { "dims" = %dims, "keepdim" = %keepdim }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // amin(self) {dims, keepdim}
  irdl.operation @amin {
    %t0 = irdl.base "!builtin.tensor"
    %dims = irdl.base "#builtin.dense_array"
    %keepdim_t = irdl.is true
    %keepdim_f = irdl.is false
    %keepdim = irdl.any_of(%keepdim_t, %keepdim_f)
    irdl.attributes { "dims" = %dims, "keepdim" = %keepdim }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // var(self) {dims, keepdim, correction}: variance with Bessel-style correction
  irdl.operation @var {
    %t0 = irdl.base "!builtin.tensor"
    %dims = irdl.base "#builtin.dense_array"
    %keepdim_t = irdl.is true
    %keepdim_f = irdl.is false
    %keepdim = irdl.any_of(%keepdim_t, %keepdim_f)
    %correction = irdl.base "#builtin.integer"
    irdl.attributes { "dims" = %dims, "keepdim" = %keepdim, "correction" = %correction }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // any(self) {dims, keepdim}: logical or over dims, result i1
  irdl.operation @any {
    %t0 = irdl.base "!builtin.tensor"
    %dims = irdl.base "#builtin.dense_array"
    %keepdim_t = irdl.is true
    %keepdim_f = irdl.is false
    %keepdim = irdl.any_of(%keepdim_t, %keepdim_f)
    irdl.attributes { "dims" = %dims, "keepdim" = %keepdim }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // ---- composites (decomposed by --aten-decompose)
  // softmax(self) {dim}
  irdl.operation @softmax {
    %t0 = irdl.base "!builtin.tensor"
    %dim = irdl.base "#builtin.integer"
    irdl.attributes { "dim" = %dim }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // log_softmax(self) {dim}
  irdl.operation @log_softmax {
    %t0 = irdl.base "!builtin.tensor"
    %dim = irdl.base "#builtin.integer"
    irdl.attributes { "dim" = %dim }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // layer_norm(input, weight, bias) {normalized_shape, eps}
  irdl.operation @layer_norm {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %t2 = irdl.base "!builtin.tensor"
    %normalized_shape = irdl.base "#builtin.dense_array"
    %eps = irdl.base "#builtin.float"
    irdl.attributes { "normalized_shape" = %normalized_shape, "eps" = %eps }
    irdl.operands(input: %t0, weight: %t1, bias: %t2)
    %t3 = irdl.base "!builtin.tensor"
    irdl.results(result: %t3)
  }
  // rms_norm(input, weight) {normalized_shape, eps}
  irdl.operation @rms_norm {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %normalized_shape = irdl.base "#builtin.dense_array"
    %eps = irdl.base "#builtin.float"
    irdl.attributes { "normalized_shape" = %normalized_shape, "eps" = %eps }
    irdl.operands(input: %t0, weight: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // group_norm(input, weight, bias) {num_groups, eps}: input [N, C, ...], weight and
  // bias [C]; statistics over each group of C / num_groups channels and all the dims
  // after them.
  irdl.operation @group_norm {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %t2 = irdl.base "!builtin.tensor"
    %num_groups = irdl.base "#builtin.integer"
    %eps = irdl.base "#builtin.float"
    irdl.attributes { "num_groups" = %num_groups, "eps" = %eps }
    irdl.operands(input: %t0, weight: %t1, bias: %t2)
    %t3 = irdl.base "!builtin.tensor"
    irdl.results(result: %t3)
  }
  // batch_norm(input, weight, bias, running_mean, running_var) {eps}: inference batch
  // norm, input [N, C, ...], the four others [C]: (x - mean) * rsqrt(var + eps) * w + b.
  irdl.operation @batch_norm {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %t2 = irdl.base "!builtin.tensor"
    %t3 = irdl.base "!builtin.tensor"
    %t4 = irdl.base "!builtin.tensor"
    %eps = irdl.base "#builtin.float"
    irdl.attributes { "eps" = %eps }
    irdl.operands(input: %t0, weight: %t1, bias: %t2, running_mean: %t3, running_var: %t4)
    %t5 = irdl.base "!builtin.tensor"
    irdl.results(result: %t5)
  }
  // ---- matmul family and convolution (extern kernels after lowering)
  // mm(self [M,K], mat2 [K,N]) -> [M,N]
  irdl.operation @mm {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, mat2: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // bmm(self [B,M,K], mat2 [B,K,N]) -> [B,M,N]
  irdl.operation @bmm {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, mat2: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // scaled_dot_product_attention(query [B,H,L,E], key [B,H,S,E], value [B,H,S,Ev],
  // attn_mask? (additive, broadcast to [B,H,L,S])) {scale} -> [B,H,L,Ev]:
  // softmax(query @ key^T * scale + attn_mask) @ value, a row whose scores are all -inf
  // giving zeros (torch's _safe_softmax). Made by --fuse-attention where the target
  // runs the fused kernel.
  irdl.operation @scaled_dot_product_attention {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %t2 = irdl.base "!builtin.tensor"
    %t3 = irdl.base "!builtin.tensor"
    %scale = irdl.base "#builtin.float"
    irdl.attributes { "scale" = %scale }
    irdl.operands(query: %t0, key: %t1, value: %t2, attn_mask: optional %t3)
    %t4 = irdl.base "!builtin.tensor"
    irdl.results(result: %t4)
  }
  // fused_lstm_cell(gates [2B,4H], cx [B,H], biases (none, or input and hidden bias
  // [4H])) -> [2,B,H]: PyTorch's `_thnn_fused_lstm_cell` (the cell `lstm_cell` runs on
  // CUDA) with the input and hidden gate products stacked along dim 0 (rows 0..B and
  // B..2B) and hy, cy stacked in the result. Gates g = input + hidden (+ biases), split
  // in four along dim 1: cy = sigmoid(g1) * cx + sigmoid(g0) * tanh(g2),
  // hy = sigmoid(g3) * tanh(cy). Made by --fuse-rnn-cells where the target runs it.
  irdl.operation @fused_lstm_cell {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %t2 = irdl.base "!builtin.tensor"
    irdl.operands(gates: %t0, cx: %t1, biases: variadic %t2)
    %t3 = irdl.base "!builtin.tensor"
    irdl.results(result: %t3)
  }
  // fused_gru_cell(gates [2B,3H], hx [B,H], biases (none, or input and hidden bias
  // [3H])) -> [B,H]: PyTorch's `_thnn_fused_gru_cell` (the cell `gru_cell` runs on CUDA),
  // gate products stacked as in fused_lstm_cell. With i = input (+ its bias) and
  // h = hidden (+ its bias) split in three along dim 1: r = sigmoid(i0 + h0),
  // z = sigmoid(i1 + h1), n = tanh(i2 + r * h2), hy = n + z * (hx - n).
  irdl.operation @fused_gru_cell {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %t2 = irdl.base "!builtin.tensor"
    irdl.operands(gates: %t0, hx: %t1, biases: variadic %t2)
    %t3 = irdl.base "!builtin.tensor"
    irdl.results(result: %t3)
  }
  // addmm(self (bias, broadcast to [M,N]), mat1 [M,K], mat2 [K,N])
  irdl.operation @addmm {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %t2 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0, mat1: %t1, mat2: %t2)
    %t3 = irdl.base "!builtin.tensor"
    irdl.results(result: %t3)
  }
  // linear(input [..., K], weight [N,K], bias? [N]) -> [..., N]
  irdl.operation @linear {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %t2 = irdl.base "!builtin.tensor"
    irdl.operands(input: %t0, weight: %t1, bias: optional %t2)
    %t3 = irdl.base "!builtin.tensor"
    irdl.results(result: %t3)
  }
  // convolution(input [N,C,H,W], weight [O,C/groups,kH,kW], bias? [O]) {stride, padding, dilation, groups}
  irdl.operation @convolution {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %t2 = irdl.base "!builtin.tensor"
    %stride = irdl.base "#builtin.dense_array"
    %padding = irdl.base "#builtin.dense_array"
    %dilation = irdl.base "#builtin.dense_array"
    %groups = irdl.base "#builtin.integer"
    irdl.attributes { "stride" = %stride, "padding" = %padding, "dilation" = %dilation, "groups" = %groups }
    irdl.operands(input: %t0, weight: %t1, bias: optional %t2)
    %t3 = irdl.base "!builtin.tensor"
    irdl.results(result: %t3)
  }
  // ---- views and data movement (index remappings after lowering)
  // view(self): same elements, shape from the result type
  irdl.operation @view {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // reshape(self): same elements, shape from the result type
  irdl.operation @reshape {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // permute(self) {dims}: a permutation of the dimensions
  irdl.operation @permute {
    %t0 = irdl.base "!builtin.tensor"
    %dims = irdl.base "#builtin.dense_array"
    irdl.attributes { "dims" = %dims }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // transpose(self) {dim0, dim1}
  irdl.operation @transpose {
    %t0 = irdl.base "!builtin.tensor"
    %dim0 = irdl.base "#builtin.integer"
    %dim1 = irdl.base "#builtin.integer"
    irdl.attributes { "dim0" = %dim0, "dim1" = %dim1 }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // expand(self): broadcast to the result type's shape
  irdl.operation @expand {
    %t0 = irdl.base "!builtin.tensor"
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // unsqueeze(self) {dim}: insert a size-1 dim
  irdl.operation @unsqueeze {
    %t0 = irdl.base "!builtin.tensor"
    %dim = irdl.base "#builtin.integer"
    irdl.attributes { "dim" = %dim }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // squeeze(self) {dims}: drop size-1 dims
  irdl.operation @squeeze {
    %t0 = irdl.base "!builtin.tensor"
    %dims = irdl.base "#builtin.dense_array"
    irdl.attributes { "dims" = %dims }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // slice(self) {dim, start, end, step}
  irdl.operation @slice {
    %t0 = irdl.base "!builtin.tensor"
    %dim = irdl.base "#builtin.integer"
    %start = irdl.base "#builtin.integer"
    %end = irdl.base "#builtin.integer"
    %step = irdl.base "#builtin.integer"
    irdl.attributes { "dim" = %dim, "start" = %start, "end" = %end, "step" = %step }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // select(self) {dim, index}: drop `dim`, keeping one index
  irdl.operation @select {
    %t0 = irdl.base "!builtin.tensor"
    %dim = irdl.base "#builtin.integer"
    %index = irdl.base "#builtin.integer"
    irdl.attributes { "dim" = %dim, "index" = %index }
    irdl.operands(self: %t0)
    %t1 = irdl.base "!builtin.tensor"
    irdl.results(result: %t1)
  }
  // cat(self, other) {dim}: binary. IRDL binds one constraint variable to one type, so
  // the operands of a variadic segment would all need the same type; N-way
  // torch.cat([a, b, c]) is written as nested binary cats (an index remapping after
  // lowering, so nesting costs no extra buffer).
  irdl.operation @cat {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %dim = irdl.base "#builtin.integer"
    irdl.attributes { "dim" = %dim }
    irdl.operands(self: %t0, other: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // gather(self, index: i64) {dim}: result shape = index shape
  irdl.operation @gather {
    %t0 = irdl.base "!builtin.tensor"
    %t1 = irdl.base "!builtin.tensor"
    %dim = irdl.base "#builtin.integer"
    irdl.attributes { "dim" = %dim }
    irdl.operands(self: %t0, index: %t1)
    %t2 = irdl.base "!builtin.tensor"
    irdl.results(result: %t2)
  }
  // ---- creation: a tensor from attributes alone
  // arange {start, step}: result[i] = start + i * step, a 1-D tensor of the result's
  // length and dtype (torch.arange with static bounds).
  irdl.operation @arange {
    %start = irdl.base "#builtin.float"
    %step = irdl.base "#builtin.float"
    irdl.attributes { "start" = %start, "step" = %step }
    irdl.operands()
    %t0 = irdl.base "!builtin.tensor"
    irdl.results(result: %t0)
  }
}
