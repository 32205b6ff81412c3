// fuselab `loop` dialect: Inductor's loop-level IR (seed 000, §6.3).
//
// A node (`loop.pointwise`, `loop.reduction`) is a named buffer computed by a scalar body
// over an index space. The body's block arguments are the loop indices (`index`), its
// computation is upstream `arith`/`math` on scalars, and it reads other buffers with
// `loop.load`, whose `index` affine map gives the flat offset into the source buffer's
// storage as a function of the loop indices: this is Inductor's MemoryDep index.
// The body ends with the upstream terminator `gpu.yield %value` (IRDL cannot declare
// terminators; `gpu.yield` is the one upstream terminator with no parent constraint).
// The yielded value is stored at the node's own contiguous output index; for a
// reduction it is the value combined with `kind` over `reduction_ranges`.
//
// IRDL ops print and parse in generic form only. Attributes are discardable
// (`{...}`), so passes may attach more (origins, strides of externs, ...).
irdl.dialect @loop {
  // A pointwise node: result[d...] = body(d...) for d in `ranges`.
  irdl.operation @pointwise {
    %name = irdl.base "#builtin.string"
    %ranges = irdl.base "#builtin.dense_array"
    %origins = irdl.base "#builtin.array"
    irdl.attributes { "name" = %name, "ranges" = %ranges, "origins" = %origins }
    %body = irdl.region with size 1
    irdl.regions(body: %body)
    %r = irdl.base "!builtin.tensor"
    irdl.results(result: %r)
  }

  // A reduction node: result[d...] = combine_{r in reduction_ranges} body(d..., r...).
  irdl.operation @reduction {
    %name = irdl.base "#builtin.string"
    %ranges = irdl.base "#builtin.dense_array"
    %rranges = irdl.base "#builtin.dense_array"
    %k_sum = irdl.is "sum"
    %k_max = irdl.is "max"
    %k_min = irdl.is "min"
    %k_prod = irdl.is "prod"
    %k_argmax = irdl.is "argmax"
    %k_argmin = irdl.is "argmin"
    %kind = irdl.any_of(%k_sum, %k_max, %k_min, %k_prod, %k_argmax, %k_argmin)
    %origins = irdl.base "#builtin.array"
    irdl.attributes { "name" = %name, "ranges" = %ranges, "reduction_ranges" = %rranges, "kind" = %kind, "origins" = %origins }
    %body = irdl.region with size 1
    irdl.regions(body: %body)
    %r = irdl.base "!builtin.tensor"
    irdl.results(result: %r)
  }

  // Read one scalar of `buffer` at flat storage offset `index(d...)[s...]`. The map's
  // dims are the enclosing node's indices; its symbols are the `indices` operands
  // (run-time values, e.g. the index read by `gather`: an indirect load).
  irdl.operation @load {
    %buffer = irdl.base "!builtin.tensor"
    %index = irdl.base "#builtin.affine_map"
    irdl.attributes { "index" = %index }
    %idx = irdl.is index
    irdl.operands(buffer: %buffer, indices: variadic %idx)
    %value = irdl.any
    irdl.results(value: %value)
  }

  // An extern kernel (matmul, convolution): a fusion barrier, inputs realized in memory,
  // output a real buffer (Inductor's ExternKernel). Operands: the two matrices (or the
  // convolution input and weight) and an optional bias; a `concat` (Inductor's
  // ConcatKernel, `dim` attribute) takes two or more mm results that are written into
  // its slices; an `sdpa` (fused scaled dot-product attention, `scale` attribute) takes
  // value, an optional additive mask, query and key (this order: IRDL binds one type to
  // all of the variadic operands, and query and key agree) and writes [B, L, H, Ev]; an
  // `lstm_cell` / `gru_cell` (PyTorch's fused recurrent cells) takes the two gate products
  // stacked [2B, G*H], the state [B, H] and none or two biases [G*H]. The
  // verifier checks each kind's arity. Further attributes (stride, padding, ...) ride
  // along as discardable attributes.
  irdl.operation @extern {
    %name = irdl.base "#builtin.string"
    %k_mm = irdl.is "mm"
    %k_bmm = irdl.is "bmm"
    %k_conv = irdl.is "convolution"
    %k_cat = irdl.is "concat"
    %k_sdpa = irdl.is "sdpa"
    %k_lstm = irdl.is "lstm_cell"
    %k_gru = irdl.is "gru_cell"
    %kind = irdl.any_of(%k_mm, %k_bmm, %k_conv, %k_cat, %k_sdpa, %k_lstm, %k_gru)
    %origins = irdl.base "#builtin.array"
    irdl.attributes { "name" = %name, "kind" = %kind, "origins" = %origins }
    %input = irdl.base "!builtin.tensor"
    %other = irdl.base "!builtin.tensor"
    %more = irdl.base "!builtin.tensor"
    irdl.operands(input: %input, other: %other, more: variadic %more)
    %r = irdl.base "!builtin.tensor"
    irdl.results(result: %r)
  }

  // A strided view of a buffer (offset, sizes..., strides... in elements), no copy:
  // Inductor's ReinterpretView. Used for graph outputs that are views of a buffer.
  irdl.operation @view {
    %layout = irdl.base "#builtin.dense_array"
    irdl.attributes { "layout" = %layout }
    %b = irdl.base "!builtin.tensor"
    irdl.operands(buffer: %b)
    %r = irdl.base "!builtin.tensor"
    irdl.results(result: %r)
  }

  // A fused group: one generated kernel. The body holds the member nodes in execution
  // order and ends with `gpu.yield` of the buffers that leave the kernel; the kernel's
  // single result is the tuple of those buffers, read with `loop.output`. (IRDL binds a
  // constraint variable to one type, so a variadic result list would force every output
  // to have the same tensor type.)
  irdl.operation @kernel {
    %name = irdl.base "#builtin.string"
    %iteration = irdl.base "#builtin.dense_array"
    %strategy = irdl.base "#builtin.string"
    irdl.attributes { "name" = %name, "iteration" = %iteration, "strategy" = %strategy }
    %body = irdl.region with size 1
    irdl.regions(body: %body)
    %r = irdl.base "!builtin.tuple"
    irdl.results(outputs: %r)
  }

  // Output `index` of a kernel's result tuple.
  irdl.operation @output {
    %outputs = irdl.base "!builtin.tuple"
    %index = irdl.base "#builtin.integer"
    irdl.attributes { "index" = %index }
    irdl.operands(kernel: %outputs)
    %r = irdl.base "!builtin.tensor"
    irdl.results(result: %r)
  }
}
