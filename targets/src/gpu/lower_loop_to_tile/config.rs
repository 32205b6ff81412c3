//! The launch rule: block sizes and warps of a kernel (see the module documentation
//! of `--lower-loop-to-tile`).

/// The launch rule's knobs (the pass options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileConfig {
    /// The widest RBLOCK: rows wider are looped over in chunks of it.
    pub max_rblock: i64,
    /// Elements of a row kernel's block (XBLOCK = this / RBLOCK rows).
    pub block_elements: i64,
    /// Block elements per warp of a row kernel (1 to `max_warps` warps).
    pub elements_per_warp: i64,
    /// The most warps of a row kernel.
    pub max_warps: i64,
    /// The most warps of a row kernel that is one program.
    pub max_warps_single: i64,
    /// Issue loads of read-only inputs before the kernel's first reduction
    /// (`hoist.rs`).
    pub hoist_loads: bool,
}

impl Default for TileConfig {
    fn default() -> Self {
        Self {
            max_rblock: 4096,
            block_elements: 1024,
            elements_per_warp: 256,
            max_warps: 8,
            max_warps_single: 16,
            hoist_loads: false,
        }
    }
}

impl TileConfig {
    /// Triton-like launch parameters for `xnumel` rows of at most `rnumel` inner
    /// elements (see the module documentation): `(XBLOCK, RBLOCK, num_warps)`.
    pub fn launch(&self, xnumel: i64, rnumel: i64) -> (i64, i64, i64) {
        let np2 = |v: i64| (v.max(1) as u64).next_power_of_two() as i64;
        if rnumel <= 1 {
            let xb = np2(xnumel).min(1024);
            return (xb, 1, (xb / 32).clamp(1, 4));
        }
        let rb = np2(rnumel).min(self.max_rblock);
        let xb = (self.block_elements / rb).min(np2(xnumel)).max(1);
        // One program for all the rows (a full reduction): its whole work runs on one
        // SM, and more warps hide more of its loads' latency.
        let cap = if xnumel <= xb {
            self.max_warps_single
        } else {
            self.max_warps
        };
        let warps = (xb * rb / self.elements_per_warp).clamp(1, cap);
        (xb, rb, warps)
    }
}
