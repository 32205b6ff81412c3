// fuselab `tile` dialect: block-level kernels as Triton writes them (the GPU target's
// kernel IR; docs/dialects/tile.md).
//
// A `tile.kernel` is one GPU kernel: a grid of programs, each computing a block of
// `block = [XBLOCK, RBLOCK]` elements (rows x, inner positions r) with `num_warps` warps.
// Its body takes flat buffers (`memref<N x T>`) and computes on *blocks*: ranked tensors
// of the kernel's block shape or one of its slices ([XBLOCK, 1] per row, [1, RBLOCK] per
// inner position). Elementwise math on blocks is upstream `arith`/`math` on those
// tensors; the index vectors (`arange`), masked loads/stores and reductions are the ops
// below; loops over RBLOCK chunks (looped reductions) are upstream `scf.for` carrying
// blocks. Bodies end with `gpu.yield` (IRDL cannot declare terminators).
//
// KTIR notions (IBM's kernel IR for Spyre, see docs/dialects/tile.md): a program is a
// *compute tile* (`program_id` = compute-tile id); a flat buffer plus an index block is a
// *memory view*; a masked `load`/`store` of a block is an *access tile*.
//
// IRDL ops print and parse in generic form only.
irdl.dialect @tile {
  // One kernel: `grid` programs of `block` elements each, `num_warps` warps per program.
  irdl.operation @kernel {
    %name = irdl.base "#builtin.string"
    %grid = irdl.base "#builtin.dense_array"
    %block = irdl.base "#builtin.dense_array"
    %warps = irdl.base "#builtin.integer"
    irdl.attributes { "sym_name" = %name, "grid" = %grid, "block" = %block, "num_warps" = %warps }
    %body = irdl.region with size 1
    irdl.regions(body: %body)
  }

  // The id of this program (compute tile) along grid axis `axis`.
  irdl.operation @program_id {
    %axis = irdl.base "#builtin.integer"
    irdl.attributes { "axis" = %axis }
    %i = irdl.is index
    irdl.results(id: %i)
  }

  // The index vector 0 .. size-1 along block axis `axis`: tensor<Nx1xindex> (axis 0) or
  // tensor<1xNxindex> (axis 1).
  irdl.operation @arange {
    %axis = irdl.base "#builtin.integer"
    irdl.attributes { "axis" = %axis }
    %r = irdl.base "!builtin.tensor"
    irdl.results(result: %r)
  }

  // A scalar repeated over a block.
  irdl.operation @splat {
    %v = irdl.any
    irdl.operands(value: %v)
    %r = irdl.base "!builtin.tensor"
    irdl.results(result: %r)
  }

  // A block broadcast along its size-1 dims to the result's shape.
  irdl.operation @broadcast {
    %v = irdl.base "!builtin.tensor"
    irdl.operands(value: %v)
    %r = irdl.base "!builtin.tensor"
    irdl.results(result: %r)
  }

  // Masked block load: result[i] = mask[i] ? buffer[offsets[i]] : other.
  irdl.operation @load {
    %b = irdl.base "!builtin.memref"
    %o = irdl.base "!builtin.tensor"
    %m = irdl.base "!builtin.tensor"
    %other = irdl.any
    irdl.operands(buffer: %b, offsets: %o, mask: %m, other: %other)
    %r = irdl.base "!builtin.tensor"
    irdl.results(result: %r)
  }

  // Masked block store: buffer[offsets[i]] = value[i] where mask[i].
  irdl.operation @store {
    %b = irdl.base "!builtin.memref"
    %o = irdl.base "!builtin.tensor"
    %v = irdl.base "!builtin.tensor"
    %m = irdl.base "!builtin.tensor"
    irdl.operands(buffer: %b, offsets: %o, value: %v, mask: %m)
  }

  // Block reduction along `axis` (the result keeps it with size 1, as Inductor's
  // generated `tl.sum(x, 1)[:, None]`).
  irdl.operation @reduce {
    %k_sum = irdl.is "sum"
    %k_max = irdl.is "max"
    %k_min = irdl.is "min"
    %k_prod = irdl.is "prod"
    %kind = irdl.any_of(%k_sum, %k_max, %k_min, %k_prod)
    %axis = irdl.base "#builtin.integer"
    irdl.attributes { "kind" = %kind, "axis" = %axis }
    %v = irdl.base "!builtin.tensor"
    irdl.operands(value: %v)
    %r = irdl.base "!builtin.tensor"
    irdl.results(result: %r)
  }

  // A layout conversion (Triton's convert_layout through shared memory): the block's
  // elements, row-major, viewed as a `shape = [A, B]` matrix, transposed:
  // result[b * A + a] = value[a * B + b]. Lets a program load a tile along the dim its
  // source is contiguous in and compute and store it along another.
  irdl.operation @transpose {
    %shape = irdl.base "#builtin.dense_array"
    irdl.attributes { "shape" = %shape }
    %v = irdl.base "!builtin.tensor"
    irdl.operands(value: %v)
    %r = irdl.base "!builtin.tensor"
    irdl.results(result: %r)
  }

  // Every thread of the program waits until all have arrived; their earlier global
  // stores are then visible to each other (a member reading another member's buffer).
  irdl.operation @barrier {
  }

  // Host side: launch kernel `kernel` on the buffers its body yields (its arguments,
  // in order: `gpu.yield %a, %b, ...`; IRDL binds a constraint variable to one type, so
  // a variadic operand list would force every buffer to have the same memref type).
  irdl.operation @launch {
    %k = irdl.base "#builtin.symbol_ref"
    irdl.attributes { "kernel" = %k }
    %body = irdl.region with size 1
    irdl.regions(buffers: %body)
  }

  // Host side: a library kernel (mm, bmm, convolution: cuBLAS/cuDNN, as Inductor's
  // extern kernels) on the buffers its body yields, writing the last; the loop op's
  // attributes (kind, views: each input's strided view, stride, padding, ...) ride along.
  irdl.operation @extern {
    %kind = irdl.base "#builtin.string"
    irdl.attributes { "kind" = %kind }
    %body = irdl.region with size 1
    irdl.regions(buffers: %body)
  }
}
