// fuselab `ascend` dialect: vector kernels of an Ascend 910B-class NPU as Ascend C
// writes them (docs/dialects/ascend.md). Produced by `--lower-loop-to-ascend`, emitted as
// Ascend C source by `--emit-ascendc`, run by the interpreter in `exec` (`fuse-run
// --target ascend --jit`).
//
// A `kernel` runs on `block_dim` vector cores. Its body takes the global-memory (GM)
// buffers (flat `memref<N x T>`), declares its Unified Buffer (UB) tiles (`alloc`: a
// `memref<shape x T, "ub">` at a fixed UB address, `depth` slots for double buffering)
// and ends with one `block_loop`: core `c` runs programs (tiles) `c, c + block_dim, ...`.
// Inside, `copy_in` / `copy_out` move a tile between GM and UB at an offsets tile
// (`DataCopy` where the offsets are strided, a gather otherwise), vector ops compute on
// UB tiles (destination first, as Ascend C's `Add(dst, src0, src1, n)`), scalars are
// upstream `arith` on the program id, loops over chunks are upstream `scf.for`.
// Bodies end with `gpu.yield` (IRDL cannot declare terminators).
//
// IRDL ops print and parse in generic form only.
irdl.dialect @ascend {
  // One vector kernel: `programs` tiles of `tile = [rows, cols]` elements over
  // `block_dim` cores; `ub_bytes` of the UB's `ub_capacity` are used.
  irdl.operation @kernel {
    %name = irdl.base "#builtin.string"
    %dim = irdl.base "#builtin.integer"
    %programs = irdl.base "#builtin.integer"
    %tile = irdl.base "#builtin.dense_array"
    %used = irdl.base "#builtin.integer"
    %cap = irdl.base "#builtin.integer"
    irdl.attributes { "sym_name" = %name, "block_dim" = %dim, "programs" = %programs, "tile" = %tile, "ub_bytes" = %used, "ub_capacity" = %cap }
    %body = irdl.region with size 1
    irdl.regions(body: %body)
  }

  // A UB tile at byte `address`, `depth` slots of its size (2: double buffered; program
  // k of a core uses slot k mod depth); `queue` is Ascend C's TQue position it stands
  // for: "vecin" (filled by copy_in), "vecout" (drained by copy_out) or "veccalc".
  irdl.operation @alloc {
    %address = irdl.base "#builtin.integer"
    %depth = irdl.base "#builtin.integer"
    %queue = irdl.base "#builtin.string"
    irdl.attributes { "address" = %address, "depth" = %depth, "queue" = %queue }
    %r = irdl.base "!builtin.memref"
    irdl.results(result: %r)
  }

  // The per-core loop over the kernel's programs; its block argument is the program id
  // (KTIR's compute-tile id).
  irdl.operation @block_loop {
    %body = irdl.region with size 1
    irdl.regions(body: %body)
  }

  // GM -> UB: dst[i] = mask[i] ? gm[offsets[i]] : other. `stride = [row, col]` when the
  // offsets are offsets[0] + row * r + col * c (a strided DataCopy), absent for a gather.
  irdl.operation @copy_in {
    %gm = irdl.base "!builtin.memref"
    %offsets = irdl.base "!builtin.memref"
    %mask = irdl.base "!builtin.memref"
    %other = irdl.any
    %dst = irdl.base "!builtin.memref"
    irdl.operands(gm: %gm, offsets: %offsets, mask: %mask, other: %other, dst: %dst)
  }

  // UB -> GM: gm[offsets[i]] = src[i] where mask[i] (rounded to gm's element type).
  irdl.operation @copy_out {
    %gm = irdl.base "!builtin.memref"
    %offsets = irdl.base "!builtin.memref"
    %src = irdl.base "!builtin.memref"
    %mask = irdl.base "!builtin.memref"
    irdl.operands(gm: %gm, offsets: %offsets, src: %src, mask: %mask)
  }

  // dst = op(src) elementwise; `op` names the upstream arith/math op whose semantics
  // apply ("math.exp", "arith.extf", ...) or "copy".
  irdl.operation @unary {
    %op = irdl.base "#builtin.string"
    irdl.attributes { "op" = %op }
    %dst = irdl.base "!builtin.memref"
    %a = irdl.base "!builtin.memref"
    irdl.operands(dst: %dst, a: %a)
  }

  // dst = op(a, b) elementwise (a comparison carries its `predicate` too).
  irdl.operation @binary {
    %op = irdl.base "#builtin.string"
    irdl.attributes { "op" = %op }
    %dst = irdl.base "!builtin.memref"
    %a = irdl.base "!builtin.memref"
    %b = irdl.base "!builtin.memref"
    irdl.operands(dst: %dst, a: %a, b: %b)
  }

  // dst = mask ? a : b elementwise.
  irdl.operation @select {
    %dst = irdl.base "!builtin.memref"
    %m = irdl.base "!builtin.memref"
    %a = irdl.base "!builtin.memref"
    %b = irdl.base "!builtin.memref"
    irdl.operands(dst: %dst, mask: %m, a: %a, b: %b)
  }

  // dst = scalar everywhere (Ascend C `Duplicate`).
  irdl.operation @dup {
    %dst = irdl.base "!builtin.memref"
    %v = irdl.any
    irdl.operands(dst: %dst, value: %v)
  }

  // dst = 0 .. size-1 along tile axis `axis` (`ArithProgression`).
  irdl.operation @arange {
    %axis = irdl.base "#builtin.integer"
    irdl.attributes { "axis" = %axis }
    %dst = irdl.base "!builtin.memref"
    irdl.operands(dst: %dst)
  }

  // dst = src broadcast along its size-1 dims (`Broadcast`).
  irdl.operation @broadcast {
    %dst = irdl.base "!builtin.memref"
    %src = irdl.base "!builtin.memref"
    irdl.operands(dst: %dst, src: %src)
  }

  // dst = sum / max / min / prod of src along `axis`, kept with size 1 (`ReduceSum`,
  // `ReduceMax`, ...); `work` is the scratch tile the intrinsic overwrites (one lane
  // along `axis`, in src's type).
  irdl.operation @reduce {
    %kind = irdl.base "#builtin.string"
    %axis = irdl.base "#builtin.integer"
    irdl.attributes { "kind" = %kind, "axis" = %axis }
    %dst = irdl.base "!builtin.memref"
    %src = irdl.base "!builtin.memref"
    %work = irdl.base "!builtin.memref"
    irdl.operands(dst: %dst, src: %src, work: %work)
  }

  // All pipes of the core wait (`PipeBarrier<PIPE_ALL>`): earlier copies to GM are
  // visible to later copies from it.
  irdl.operation @barrier {
  }

  // Host: launch `@kernel` on the GM buffers its region yields.
  irdl.operation @launch {
    %kernel = irdl.base "#builtin.symbol_ref"
    irdl.attributes { "kernel" = %kernel }
    %body = irdl.region with size 1
    irdl.regions(body: %body)
  }

  // Host: a library kernel on the cube unit or a copy engine (mm, bmm, convolution) on
  // the buffers its region yields, writing the last (the loop extern's attributes ride
  // along).
  irdl.operation @extern {
    %kind = irdl.base "#builtin.string"
    irdl.attributes { "kind" = %kind }
    %body = irdl.region with size 1
    irdl.regions(body: %body)
  }
}
