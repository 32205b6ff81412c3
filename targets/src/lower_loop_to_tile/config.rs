//! The launch rule: block sizes and warps of a kernel (see the module documentation
//! of `--lower-loop-to-tile`).

/// The launch rule's knobs (the pass options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileConfig {
    /// The widest RBLOCK: rows wider are looped over in chunks of it.
    pub max_rblock: i64,
    /// Elements of a row kernel's block (XBLOCK = this / RBLOCK rows).
    pub block_elements: i64,
    /// XBLOCK of a pointwise-only kernel (Inductor's 1-D pointwise config: 1024).
    pub max_xblock: i64,
    /// Block elements per warp of a row kernel (1 to `max_warps` warps).
    pub elements_per_warp: i64,
    /// The most warps of a row kernel.
    pub max_warps: i64,
    /// The most warps of a row kernel that is one program.
    pub max_warps_single: i64,
    /// Keep f16 / bf16 values in f32 between a kernel's ops: round only at stores and
    /// explicit casts (the Ascend target's fused-kernel numerics); `false`: after every
    /// op, as eager PyTorch.
    pub fp32_inside: bool,
    /// Issue loads of read-only inputs before the kernel's first reduction
    /// (`hoist.rs`).
    pub hoist_loads: bool,
    /// Block of a kernel whose reduction reads across rows (Inductor's
    /// `ReductionHint.OUTER`), looped over the row; `None` to launch it by the row rule.
    /// 32 x 16 by measurement (H200, 5 programs x 4 shapes,
    /// docs/gpu-results/h200-outer-reductions.json: geo-mean 1.03x Inductor, against
    /// 1.22 for Inductor's own 64 x 8 and 1.92 for the row rule): this layout gives each
    /// thread 4 consecutive inner elements, Triton's outer layout runs threads along x.
    pub outer: Option<(i64, i64)>,
    /// Convert a 2-D tiled kernel's transposing loads to its store order with
    /// `tile.transpose` (the GPU's shared memory); `false` for a target without one
    /// (the Ascend lowering), whose loads are then read in the store's order.
    pub layout_conversion: bool,
    /// Divide rows into dims on 32-bit integers where a kernel's buffers are small
    /// enough (the GPU); `false` keeps `index` arithmetic (the Ascend lowering).
    pub narrow_index: bool,
}

impl TileConfig {
    /// Triton-like launch parameters for `xnumel` rows of at most `rnumel` inner
    /// elements (see the module documentation): `(XBLOCK, RBLOCK, num_warps)`.
    pub fn launch(&self, xnumel: i64, rnumel: i64) -> (i64, i64, i64) {
        let np2 = |v: i64| (v.max(1) as u64).next_power_of_two() as i64;
        if rnumel <= 1 {
            let xb = np2(xnumel).min(self.max_xblock);
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

    /// [`TileConfig::launch_outer`] for a kernel with a reduction reading across rows
    /// (`outer`, when configured), else [`TileConfig::launch`].
    pub fn launch_for(&self, outer: bool, xnumel: i64, rnumel: i64) -> (i64, i64, i64) {
        outer
            .then(|| self.launch_outer(xnumel, rnumel))
            .flatten()
            .unwrap_or_else(|| self.launch(xnumel, rnumel))
    }

    /// The launch of a kernel whose reduction reads across rows (triton_heuristics
    /// `reduction`'s `outer_config`): many rows, a few inner elements per chunk, so that
    /// neighbouring threads read neighbouring rows; warps as Inductor's
    /// `triton_config_reduction`, `XBLOCK * RBLOCK / 128` clamped to 2..=8.
    pub fn launch_outer(&self, xnumel: i64, rnumel: i64) -> Option<(i64, i64, i64)> {
        let (x, r) = self.outer?;
        let np2 = |v: i64| (v.max(1) as u64).next_power_of_two() as i64;
        let (xb, rb) = (x.min(np2(xnumel)), r.min(np2(rnumel)));
        Some((xb, rb, (xb * rb / 128).clamp(2, 8)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declared_defaults_are_the_gpus_launch_rule() {
        // Inductor's Triton heuristics on the H200: RBLOCK up to 4096 (wider rows
        // looped), 1024-element row blocks and 1-D pointwise blocks, 256 elements a
        // warp, 8 warps (16 for a single program); the outer block 32 x 16 measured
        // (docs/gpu.md).
        let gpu = TileConfig {
            max_rblock: 4096,
            block_elements: 1024,
            max_xblock: 1024,
            elements_per_warp: 256,
            max_warps: 8,
            max_warps_single: 16,
            fp32_inside: false,
            hoist_loads: false,
            outer: Some((32, 16)),
            layout_conversion: true,
            narrow_index: true,
        };
        assert_eq!(TileConfig::default(), gpu);
    }

    #[test]
    fn outer_reductions_take_the_outer_block() {
        let c = TileConfig::default();
        // reorder_permute_3d's kernel: 4096 rows of 128.
        assert_eq!(c.launch_outer(4096, 128), Some((32, 16, 4)));
        assert_eq!(c.launch_outer(4, 2), Some((4, 2, 2)));
        assert_eq!(c.launch_for(true, 4096, 128), (32, 16, 4));
        assert_eq!(c.launch_for(false, 4096, 128), (8, 128, 4));
        let rows = TileConfig { outer: None, ..c };
        assert_eq!(rows.launch_for(true, 4096, 128), (8, 128, 4));
    }
}
