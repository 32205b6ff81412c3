// fuselab `spyre` dialect: what the Spyre target's passes add to fused loop IR
// (docs/dialects/spyre.md). Decisions ride as discardable attributes on the loop ops
// (`spyre.stick`, `spyre.layout`, `spyre.core_split`, `spyre.lx`); the one op is the
// data movement a layout decision inserts.
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
}
