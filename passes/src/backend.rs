//! What Inductor's back end for a device does that Inductor's decisions depend on, as
//! one policy value per target: [`InductorBackend`], returned by
//! [`crate::target::Target::backend`].
//!
//! These are not properties of the device but of PyTorch's code for it — which
//! reductions `Reduction.num_splits` splits, whether a bias add is folded into `addmm`
//! or peeled off a convolution, the layout optimization, which attention and RNN cells
//! become one library call, how the C++ back end groups kernels — so they sit apart
//! from [`crate::target::Target`]'s legality, limits, costs and stages. They live in
//! the core, not beside the Inductor strategy, because the transforms and the aten
//! lowering read them too (`--split-reductions`, `--fuse-attention`, `--fuse-rnn-cells`,
//! `--lower-aten-to-loop`), and a transform imports no fusion strategy.

/// The Inductor back end of one device. Every method has the default of a device whose
/// back end does none of it ([`NoBackend`]); a target overrides what its back end does.
pub trait InductorBackend: Sync {
    /// Into how many parts a reduction of `rnumel` elements per output, `numel` outputs,
    /// is split (Inductor's `Reduction.num_splits`); `outer` when it reads its inputs
    /// with every reduction index strided (a column reduction, Inductor's
    /// `ReductionHint.OUTER`). 1: not split. Devices that reduce to a single element
    /// well (Inductor's C++ back end: `REDUCE_TO_SINGLE_ELEMENT`) never split, which is
    /// the default.
    fn reduction_split(&self, numel: i64, rnumel: i64, outer: bool) -> i64 {
        let _ = (numel, rnumel, outer);
        1
    }

    /// Whether a reduction over fewer than Inductor's `unroll_reductions_threshold`
    /// elements is unrolled even when it has a single output (Inductor does on GPUs:
    /// `sympy_product(ranges) != 1 or is_gpu(device)`).
    fn unrolls_single_output_reductions(&self) -> bool {
        false
    }

    /// Whether a bias add that only pointwise ops consume is left out of the matmul (into
    /// their kernel) instead of folded into an `addmm` extern: Inductor's post-grad
    /// `should_prefer_unfused_addmm`, which holds only on GPUs (`is_gpu(device)`); on
    /// the CPU every valid bias is folded.
    fn prefers_unfused_bias_add(&self) -> bool {
        false
    }

    /// Whether 2-D convolutions read their graph-input operands in channels-last order,
    /// converted by a copy kernel each, and a pointwise result only the convolution
    /// reads computed in that order (Inductor's layout optimization, graph.py
    /// `decide_layout_opt`, on GPUs and the CPU: `require_channels_last` on the input and
    /// weight of every convolution; the flop-weighted heuristic that can turn it off for
    /// a graph is not modelled). The default is no.
    fn converts_convolutions_to_channels_last(&self) -> bool {
        false
    }

    /// Whether a convolution's bias is peeled off the library call into a pointwise add
    /// (Inductor's `convolution` lowering, kernel/conv.py: on a device other than the
    /// CPU, "peel off the bias, cudnn is slower with it"). The default is no.
    fn peels_convolution_bias(&self) -> bool {
        false
    }

    /// Whether `F.scaled_dot_product_attention` over `dtype` query/key/value of head
    /// dims `head_dims` (query-key, value) runs here as one fused kernel — PyTorch's
    /// backend choice at trace time, which `torch.compile` keeps as a library call
    /// (`--fuse-attention`). The default is no: the math form stays.
    fn fused_attention(&self, dtype: fuselab_dialects::types::DType, head_dims: &[i64]) -> bool {
        let _ = (dtype, head_dims);
        false
    }

    /// Whether Inductor's attention patterns replace an explicitly written attention
    /// over `dtype` by the fused call here (fx_passes/fuse_attention.py, joint-graph
    /// passes: `_sfdp_pattern_1` `softmax(q @ k^T / c) @ v` and `_sfdp_pattern_2`
    /// `softmax(q @ k^T * c) @ v`, then [`InductorBackend::fused_attention`] as the dispatcher
    /// decides). `_sfdp_params_check` refuses f32 on CUDA unless matmuls may use TF32
    /// (off by default). The default is no.
    fn rewrites_attention_patterns(&self, dtype: fuselab_dialects::types::DType) -> bool {
        let _ = dtype;
        false
    }

    /// Whether an LSTM or GRU cell over `dtype` runs here as PyTorch's fused cell kernel
    /// (`_thnn_fused_lstm_cell` / `_thnn_fused_gru_cell`: RNN.cpp takes them for CUDA
    /// inputs), which Inductor keeps as a library call (`--fuse-rnn-cells`). The default
    /// is no: the cell's gates stay pointwise ops.
    fn fused_rnn_cells(&self, dtype: fuselab_dialects::types::DType) -> bool {
        let _ = dtype;
        false
    }

    /// Whether Inductor's back end for this device writes the kernels scheduled between
    /// two library calls into one function called once (the C++ back end:
    /// `CppScheduling.codegen_node` adds each fused node to the open `KernelGroup`, and
    /// `Scheduler.codegen` flushes the group — one `cpp_fused_*` function — only before
    /// an extern or template node, on a device change, or past 500 kernel arguments).
    /// Triton back ends launch every fused node. The default is no.
    fn groups_kernels_between_library_calls(&self) -> bool {
        false
    }

    /// Whether Inductor's loop reordering after fusion applies to nodes on this device
    /// (scheduler.py `shared_data_after_reordering_loop`: never for CPU nodes, whose C++
    /// back end does not reorder). The default is no.
    fn reorders_loops(&self) -> bool {
        false
    }
}

/// A back end with every default: no split reductions, biases folded, no layout
/// optimization, no fused library calls.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoBackend;

impl InductorBackend for NoBackend {}

/// Inductor's `num_splits` for a GPU of `num_sm` multiprocessors (torch/_inductor/ir.py
/// `Reduction.num_splits`, the split factors of `InductorChoices.reduction_split_factor`):
/// one output: [`inner_reduction_splits`]; else no split for at most 32 elements per
/// output or at least `64 num_sm` outputs, and otherwise the inner or the outer factor by
/// how the reduction reads its inputs.
pub fn gpu_reduction_split(numel: i64, rnumel: i64, outer: bool, num_sm: i64) -> i64 {
    if numel == 1 {
        return inner_reduction_splits(rnumel, numel, num_sm);
    }
    if rnumel <= 32 || numel >= num_sm * 2 * 32 {
        return 1;
    }
    if outer {
        outer_reduction_splits(rnumel, numel, num_sm)
    } else {
        inner_reduction_splits(rnumel, numel, num_sm)
    }
}

/// Inductor's constants for split reductions (`Reduction.num_splits`).
const MIN_PER_THREAD: i64 = 32;
const MAX_PER_THREAD: i64 = 512;
const THREADS_PER_SM: i64 = 2048;
const THREADS: i64 = 32 * 8;

/// The divisor of `n` closest to `target` (the smaller on ties).
fn closest_divisor(n: i64, target: i64) -> i64 {
    let mut best = 1;
    let mut d = 1;
    while d * d <= n {
        if n % d == 0 {
            for c in [d, n / d] {
                if (c - target).abs() < (best - target).abs() {
                    best = c;
                }
            }
        }
        d += 1;
    }
    best
}

/// Inductor prefers even splits: the divisor of `n` nearest `target` when it is within
/// `tolerance`.
fn even_split(n: i64, target: i64, tolerance: i64) -> Option<i64> {
    let closest = closest_divisor(n, target);
    ((closest - target).abs() < tolerance).then_some(closest)
}

/// The split size of a reduction too large for the device at 512 elements per thread.
fn largest_split_size(rnumel: i64) -> i64 {
    even_split(rnumel, MAX_PER_THREAD, 50).unwrap_or(MAX_PER_THREAD)
}

/// Inductor's split factor for an outer (column) reduction: 4 reduced values per thread
/// in blocks of 128 outputs and 256 threads; 32 to 512 elements per split (a divisor of
/// `rnumel` near the target where one is within 20, or 50 at the top).
pub fn outer_reduction_splits(rnumel: i64, numel: i64, num_sm: i64) -> i64 {
    const RVALS_PER_THREAD: i64 = 4;
    const XVALS_PER_BLOCK: i64 = 128;
    let xblocks = (numel + XVALS_PER_BLOCK - 1) / XVALS_PER_BLOCK;
    let total = rnumel.saturating_mul(numel);
    let split_size = if total < MIN_PER_THREAD * num_sm * THREADS_PER_SM {
        MIN_PER_THREAD
    } else if total < MAX_PER_THREAD * num_sm * THREADS_PER_SM {
        let target_blocks = num_sm * THREADS_PER_SM / THREADS;
        let target_blocks = (target_blocks + xblocks - 1) / xblocks;
        let tmp = (rnumel + RVALS_PER_THREAD * target_blocks - 1) / (RVALS_PER_THREAD * target_blocks);
        even_split(rnumel, tmp, 20).map_or(tmp, |c| c.max(MIN_PER_THREAD))
    } else {
        largest_split_size(rnumel)
    };
    (rnumel + RVALS_PER_THREAD * split_size - 1) / (RVALS_PER_THREAD * split_size)
}

/// Inductor's split factor for an inner reduction on a GPU of `num_sm` multiprocessors
/// (torch/_inductor/ir.py `Reduction.num_splits`, `inner_reduction_splits`): no split
/// when there are at least `2 num_sm` outputs or at most 8192 elements per output;
/// otherwise enough parts that each of `num_sm * 2048 / 512` blocks of 256 threads gets
/// 32 to 512 elements per thread (a divisor of `rnumel` near that size where one is
/// within 30, or 50 at the top).
pub fn inner_reduction_splits(rnumel: i64, numel: i64, num_sm: i64) -> i64 {
    if numel >= 2 * num_sm || rnumel <= 8192 {
        return 1;
    }
    let total = rnumel.saturating_mul(numel);
    let split_size = if total <= MIN_PER_THREAD * num_sm * THREADS_PER_SM {
        MIN_PER_THREAD
    } else if total < MAX_PER_THREAD * num_sm * THREADS_PER_SM {
        let target_blocks = num_sm * THREADS_PER_SM / (2 * THREADS);
        let blocks_per_output = (target_blocks + numel - 1) / numel;
        let tmp = (rnumel + THREADS * blocks_per_output - 1) / (THREADS * blocks_per_output);
        even_split(rnumel, tmp, 30).map_or(tmp, |c| c.max(MIN_PER_THREAD))
    } else {
        largest_split_size(rnumel)
    };
    (rnumel + split_size * THREADS - 1) / (split_size * THREADS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inductor_split_factors_on_an_h200() {
        // Worked by hand from the rule with 132 SMs: a full amax over 2^25 elements lies
        // between the per-device minimum (8,650,752) and maximum (138,412,032): 528
        // target blocks, a split size near ceil(2^25 / (256 * 528)) = 249 -> the divisor
        // 256, so 2^25 / (256 * 256) = 512 parts.
        assert_eq!(inner_reduction_splits(1 << 25, 1, 132), 512);
        // Below the minimum: 32 elements per thread, ceil(2^20 / (32 * 256)) = 128.
        assert_eq!(inner_reduction_splits(1 << 20, 1, 132), 128);
        // Above the maximum: 512 per thread, 2^28 / (512 * 256) = 2048.
        assert_eq!(inner_reduction_splits(1 << 28, 1, 132), 2048);
        // Small rows and many outputs are never split.
        assert_eq!(inner_reduction_splits(8192, 1, 132), 1);
        assert_eq!(inner_reduction_splits(1 << 25, 264, 132), 1);
    }

    #[test]
    fn outer_split_factors_on_an_h200() {
        // A column sum of 1024 x 512 (512 outputs of 1024): 4 blocks of 128 outputs,
        // 2^19 elements below the minimum -> 32 per split, ceil(1024 / (4 * 32)) = 8
        // (real Inductor: two kernels).
        assert_eq!(gpu_reduction_split(512, 1024, true, 132), 8);
        // The same shape read along its rows is not split (512 >= 2 * 132 outputs).
        assert_eq!(gpu_reduction_split(512, 1024, false, 132), 1);
        // Few elements per output or very many outputs: never.
        assert_eq!(gpu_reduction_split(512, 32, true, 132), 1);
        assert_eq!(gpu_reduction_split(132 * 64, 4096, true, 132), 1);
        // One output: the inner rule whatever the layout.
        assert_eq!(gpu_reduction_split(1, 1 << 20, true, 132), 128);
    }
}
