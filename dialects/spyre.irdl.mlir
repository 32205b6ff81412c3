// fuselab `spyre` dialect: what the Spyre target's passes add to fused loop IR
// (docs/dialects/spyre.md). Decisions ride as discardable attributes on the loop ops
// (`spyre.stick`, `spyre.layout`, `spyre.core_split`, `spyre.lx`); the one op is the
// data movement a layout decision inserts.
//
// The KTIR form (`--spyre-lower-to-ktir`; IBM's KTIR, RFC 0682, whose `ktdp` ops these
// mirror) makes the decisions explicit: a `kernel` per op, run by every compute tile
// (core); `memory_view`s over device memory (HBM, a buffer in its stick layout at a byte
// address) or the cores' scratchpads (LX, one piece per core at the planned address);
// `access_tile`s (coordinates of a view, from an affine map of the loop variables) read
// by `load` and written by `store`. Compute stays upstream `arith` / `math`, loops
// `scf.for`, per-core tables `arith.constant` tensors read by `tensor.extract`.
//
// IRDL ops print and parse in generic form only.
irdl.dialect @spyre {
  // A copy of a buffer into another stick layout (`layout`: the new layout as a
  // dictionary {stick_dim, device_size, stride_map}). The host values are unchanged;
  // its cost is the buffer's device element count.
  irdl.operation @restickify {
    %layout = irdl.base "#builtin.dictionary"
    irdl.attributes { "layout" = %layout }
    %in = irdl.base "!builtin.tensor"
    irdl.operands(input: %in)
    %out = irdl.base "!builtin.tensor"
    irdl.results(result: %out)
  }

  // --- KTIR form -----------------------------------------------------------------------

  // One kernel: its body runs once per compute tile 0 .. cores-1 (KTIR's kernel over
  // the device's cores). Bodies end with `gpu.yield`.
  irdl.operation @kernel {
    %name = irdl.base "#builtin.string"
    %cores = irdl.base "#builtin.integer"
    irdl.attributes { "sym_name" = %name, "cores" = %cores }
    %body = irdl.region with size 1
    irdl.regions(body: %body)
  }

  // The id of the compute tile (core) running the kernel (ktdp.get_compute_tile_id).
  irdl.operation @compute_tile_id {
    %i = irdl.is index
    irdl.results(id: %i)
  }

  // A view of a buffer at byte `address` of `memory_space` ("hbm": device memory, the
  // buffer in the stick layout of its `layout` dictionary; "lx": each core's scratchpad,
  // core c holding the host-coordinate box `pieces[c]` row-major, stick dim in whole
  // sticks). The result type is the buffer's host shape in that memory space
  // (ktdp.construct_memory_view; an "lx" view is ktdp's distributed view of the cores'
  // pieces). It allocates and moves nothing.
  irdl.operation @memory_view {
    %space = irdl.base "#builtin.string"
    %address = irdl.base "#builtin.integer"
    irdl.attributes { "memory_space" = %space, "address" = %address }
    %r = irdl.base "!builtin.memref"
    irdl.results(view: %r)
  }

  // The element of `view` at host coordinates `base_map(indices)`
  // (ktdp.construct_access_tile, a one-point tile): no memory access yet.
  irdl.operation @access_tile {
    %map = irdl.base "#builtin.affine_map"
    irdl.attributes { "base_map" = %map }
    %v = irdl.base "!builtin.memref"
    %i = irdl.is index
    irdl.operands(view: %v, indices: variadic %i)
    %r = irdl.base "!builtin.memref"
    irdl.results(tile: %r)
  }

  // Reads an access tile's element (ktdp.load).
  irdl.operation @load {
    %t = irdl.base "!builtin.memref"
    irdl.operands(tile: %t)
    %r = irdl.any
    irdl.results(value: %r)
  }

  // Writes `value` to an access tile (ktdp.store), rounded to the view's element type.
  // With `combine = "sum" | "max" | ...` (a reduction split over cores) the kernel's
  // first store to an element writes it and later ones combine with it.
  irdl.operation @store {
    %v = irdl.any
    %t = irdl.base "!builtin.memref"
    irdl.operands(value: %v, tile: %t)
  }

  // Host side: copies a host tensor into a view (a graph input or a constant into its
  // device layout).
  irdl.operation @copy_in {
    %t = irdl.base "!builtin.tensor"
    %v = irdl.base "!builtin.memref"
    irdl.operands(source: %t, view: %v)
  }

  // Host side: reads a view back as a host tensor (a result of the function).
  irdl.operation @copy_out {
    %v = irdl.base "!builtin.memref"
    irdl.operands(view: %v)
    %t = irdl.base "!builtin.tensor"
    irdl.results(result: %t)
  }

  // Host side: a library kernel (matmul, convolution) reading the views its body yields
  // and writing the last; the loop extern's attributes ride along. (IRDL binds a
  // constraint variable to one type, so the views come through a region, as tile.launch.)
  irdl.operation @extern {
    %kind = irdl.base "#builtin.string"
    irdl.attributes { "kind" = %kind }
    %body = irdl.region with size 1
    irdl.regions(views: %body)
  }
}
