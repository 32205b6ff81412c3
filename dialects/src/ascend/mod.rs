//! The `ascend` dialect (Ascend AI Core kernels over Unified Buffer tiles;
//! `dialects/ascend.irdl.mlir` defines it): its op names. The Ascend lowering builds it
//! from the `tile` dialect, the Ascend C emitter and the simulator read it.

/// Op names of the `ascend` dialect, usable in `match` patterns.
pub mod names {
    op_names! { "ascend";
        KERNEL = "kernel",
        ALLOC = "alloc",
        BLOCK_LOOP = "block_loop",
        COPY_IN = "copy_in",
        COPY_OUT = "copy_out",
        UNARY = "unary",
        BINARY = "binary",
        SELECT = "select",
        DUP = "dup",
        ARANGE = "arange",
        BROADCAST = "broadcast",
        REDUCE = "reduce",
        BARRIER = "barrier",
        LAUNCH = "launch",
        EXTERN = "extern",
    }

    /// The `ascend` op a `tile` op of the same role becomes (`tile.launch` ->
    /// `ascend.launch`); `None` for a name outside the `tile` dialect or with no `ascend` op.
    pub fn from_tile(name: &str) -> Option<&'static str> {
        let op = name.strip_prefix(crate::tile::names::PREFIX)?;
        ALL.iter().copied().find(|n| n.strip_prefix(PREFIX) == Some(op))
    }
}

#[cfg(test)]
mod tests {
    use super::names;
    use crate::context::irdl_op_names;

    #[test]
    fn names_match_irdl_file() {
        let declared: Vec<String> = irdl_op_names(crate::context::ASCEND_IRDL)
            .into_iter()
            .map(|op| format!("{}{op}", names::PREFIX))
            .collect();
        assert_eq!(declared, names::ALL);
    }

    #[test]
    fn tile_ops_map_to_their_ascend_namesakes() {
        use crate::tile::names as tile;
        assert_eq!(names::from_tile(tile::LAUNCH), Some(names::LAUNCH));
        assert_eq!(names::from_tile(tile::EXTERN), Some(names::EXTERN));
        assert_eq!(names::from_tile(tile::SPLAT), None);
        assert_eq!(names::from_tile("arith.addf"), None);
    }
}
