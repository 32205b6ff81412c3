//! The `tile` dialect (Triton-like block kernels; `dialects/tile.irdl.mlir` defines it):
//! its op names. The loop -> tile conversion builds it, the GPU lowering and the Ascend
//! lowering read it.

/// Op names of the `tile` dialect, usable in `match` patterns.
pub mod names {
    op_names! { "tile";
        KERNEL = "kernel",
        PROGRAM_ID = "program_id",
        ARANGE = "arange",
        SPLAT = "splat",
        BROADCAST = "broadcast",
        LOAD = "load",
        STORE = "store",
        REDUCE = "reduce",
        TRANSPOSE = "transpose",
        BARRIER = "barrier",
        LAUNCH = "launch",
        EXTERN = "extern",
    }
}

#[cfg(test)]
mod tests {
    use crate::context::irdl_op_names;

    #[test]
    fn names_match_irdl_file() {
        let declared: Vec<String> = irdl_op_names(crate::context::TILE_IRDL)
            .into_iter()
            .map(|op| format!("{}{op}", super::names::PREFIX))
            .collect();
        assert_eq!(declared, super::names::ALL);
    }
}
