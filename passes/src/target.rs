//! What differs per device, as one interface: [`Target`].
//!
//! Strategies ask the target, they never hard-code a device: whether two groups of
//! nodes may share a kernel on it ([`Target::can_fuse`]), how many inputs and how many
//! on-chip bytes one kernel may have ([`KernelLimits`]), what memory traffic and a
//! launch cost there ([`Costs`]), and which stages lower a fused module to its code
//! ([`Target::stages`]). How a result is *run* needs the interpreters' tensors and
//! lives beside each implementation in `fuselab-targets`, which depends on this crate
//! (never the reverse). `fuse-opt --target=NAME` chooses one; the implementations are
//! listed in `fuselab_targets::TARGETS`.
//!
//! [`Generic`] is what a pipeline gets when no target is named (the passes run as a
//! library, e.g. in unit tests): the SIMD code generators' rules and no limits.

use std::fmt;

/// What a target sees of one (possibly already fused) group of nodes when asked
/// whether two groups may share a kernel.
#[derive(Clone, Debug)]
pub struct GroupShape<'a> {
    /// The group's pointwise element count (a reduction group: its output count).
    pub numel: i64,
    /// `(numel, rnumel)` when the group reduces.
    pub reduction: Option<(i64, i64)>,
    /// The index ranges of each member (ranges, then reduction ranges).
    pub member_ranges: Vec<&'a [i64]>,
}

impl<'a> GroupShape<'a> {
    /// The shape of a group of `graph`'s nodes `members` iterating over `numel`
    /// (reducing `reduction`).
    pub fn of(
        graph: &'a crate::analysis::memory_deps::SchedGraph,
        members: &[usize],
        numel: i64,
        reduction: Option<(i64, i64)>,
    ) -> Self {
        GroupShape {
            numel,
            reduction,
            member_ranges: members
                .iter()
                .map(|&m| graph.nodes[m].ranges.as_slice())
                .collect(),
        }
    }
}

/// Why a target refuses to put two groups in one kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// A fixed reason in the reference system's words.
    Fixed(&'static str),
    /// Two reductions of different `(numel, rnumel)`: `(a, b), (c, d)`.
    ReduceMismatch(i64, i64, i64, i64),
    /// Two pointwise groups of different numel.
    PointwiseMismatch(i64, i64),
    /// The fused kernel would read more distinct buffers than the target allows.
    TooManyInputs {
        /// Distinct buffers the fused kernel would read.
        inputs: usize,
        /// The target's limit.
        limit: usize,
    },
    /// The fused kernel's smallest tile does not fit the target's on-chip memory.
    WorkingSet {
        /// Elements per buffer of the smallest tile (a reduction row, else one aligned
        /// block).
        elements: i64,
        /// Bytes that tile needs ([`smallest_tile_bytes`]).
        bytes: u64,
        /// The target's on-chip bytes.
        limit: u64,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Fixed(text) => f.write_str(text),
            Refusal::ReduceMismatch(a, b, c, d) => {
                write!(f, "numel/rnumel mismatch (reduce) ({a}, {b}), ({c}, {d})")
            }
            Refusal::PointwiseMismatch(a, b) => {
                write!(f, "numel/rnumel mismatch (non-reduce) ({a}, {b}), (1, 1)")
            }
            Refusal::TooManyInputs { inputs, limit } => {
                write!(
                    f,
                    "the target allows {limit} inputs per kernel, the fusion would read {inputs}"
                )
            }
            Refusal::WorkingSet { elements, bytes, limit } => write!(
                f,
                "the fused kernel's smallest tile ({elements} elements per buffer) needs {bytes} bytes on chip, the target has {limit}"
            ),
        }
    }
}

/// Per-kernel limits of a target (`None`: no limit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelLimits {
    /// Most distinct buffers one kernel may read (Ascend: 8 inputs per fused kernel).
    pub max_inputs: Option<usize>,
    /// On-chip bytes one kernel's working set may take (Spyre LX: 1,625,344 B per core;
    /// Ascend UB: 192 KiB).
    pub on_chip_bytes: Option<u64>,
    /// Alignment of every on-chip buffer in bytes (Ascend UB: 32; 0 or 1: none).
    pub on_chip_alignment: u64,
}

/// The bytes of a fused kernel's smallest tile on chip (the on-chip capacity rule, issue
/// 17): per buffer one tile of `elements` fp32 values (a reduction keeps a whole row of
/// `rnumel` on chip; a pointwise kernel can shrink its tile to one aligned block), each
/// buffer rounded up to `alignment`; buffers: every input twice (double buffering) and
/// one per member (its value, an output or an fp32 temporary). Returns (elements, bytes).
pub fn smallest_tile_bytes(
    reduction: Option<(i64, i64)>,
    inputs: usize,
    members: usize,
    alignment: u64,
) -> (i64, u64) {
    let alignment = alignment.max(1);
    let elements = match reduction {
        Some((_, rnumel)) => rnumel.max(1),
        None => (alignment / 4).max(1) as i64,
    };
    let per_buffer = (elements as u64 * 4).div_ceil(alignment) * alignment;
    (elements, per_buffer * (2 * inputs + members) as u64)
}

/// Whether a fused kernel of `members` nodes reading `inputs` buffers (reducing when
/// `reduction`) keeps `limits`: at most `max_inputs` inputs, and its smallest tile on
/// chip ([`fits_on_chip`]).
pub fn within_limits(
    limits: &KernelLimits,
    reduction: Option<(i64, i64)>,
    inputs: usize,
    members: usize,
) -> Result<(), Refusal> {
    if let Some(limit) = limits.max_inputs {
        if inputs > limit {
            return Err(Refusal::TooManyInputs { inputs, limit });
        }
    }
    fits_on_chip(limits, reduction, inputs, members)
}

/// Whether a fused kernel of `members` nodes reading `inputs` buffers (reducing when
/// `reduction`) fits `limits`' on-chip memory ([`smallest_tile_bytes`]).
pub fn fits_on_chip(
    limits: &KernelLimits,
    reduction: Option<(i64, i64)>,
    inputs: usize,
    members: usize,
) -> Result<(), Refusal> {
    let Some(limit) = limits.on_chip_bytes else {
        return Ok(());
    };
    let (elements, bytes) = smallest_tile_bytes(reduction, inputs, members, limits.on_chip_alignment);
    if bytes > limit {
        return Err(Refusal::WorkingSet {
            elements,
            bytes,
            limit,
        });
    }
    Ok(())
}

/// Cost parameters of a target, for cost models and estimates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Costs {
    /// Sustained memory bandwidth, bytes per second.
    pub bytes_per_second: f64,
    /// Cost of one kernel launch (or call), seconds.
    pub launch_seconds: f64,
}

impl Costs {
    /// The estimated time of moving `bytes` in `launches` kernels: the memory-bound
    /// roofline plus launch overhead.
    pub fn estimate_seconds(&self, bytes: u64, launches: u64) -> f64 {
        bytes as f64 / self.bytes_per_second + launches as f64 * self.launch_seconds
    }
}

/// One named stage of a target's lowering: a `fuse-opt` pipeline (fuselab passes and
/// upstream MLIR passes), as Triton's backends add named stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stage {
    /// The stage's name (`codegen`, `llvm`).
    pub name: &'static str,
    /// The pipeline, in `--pass-pipeline` syntax without the `builtin.module(...)`.
    pub pipeline: &'static str,
}

/// A device fuselab compiles for.
pub trait Target: Sync {
    /// The name `--target=` takes (`cpu`).
    fn name(&self) -> &'static str;

    /// One line for `--help`.
    fn summary(&self) -> &'static str;

    /// Whether groups of these shapes may share one kernel here (Inductor's
    /// `backend.can_fuse`). The default is [`simd_can_fuse`].
    fn can_fuse(&self, a: &GroupShape, b: &GroupShape) -> Result<(), Refusal> {
        simd_can_fuse(a, b)
    }

    /// Per-kernel limits.
    fn limits(&self) -> KernelLimits {
        KernelLimits::default()
    }

    /// Bandwidth and launch cost.
    fn costs(&self) -> Costs;

    /// The stages that lower fused `loop` IR to this target's code, in order.
    fn stages(&self) -> &'static [Stage];

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
    /// `softmax(q @ k^T * c) @ v`, then [`Target::fused_attention`] as the dispatcher
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

    /// The priority of fusing groups `a` and `b` here (higher first; `vertical`: one
    /// reads what the other writes) — the first sort key of GE AutoFuse's candidates
    /// ("backend priority"). The default states no preference: every pair 0.
    fn fusion_priority(&self, a: &GroupShape, b: &GroupShape, vertical: bool) -> i64 {
        let _ = (a, b, vertical);
        0
    }
}

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

impl fmt::Debug for dyn Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Target({})", self.name())
    }
}

/// The iteration-space rule of Inductor's SIMD code generators (Triton, and fuselab's
/// row-nest CPU code; torch/_inductor/codegen/simd.py `can_fuse`): two reductions or
/// two pointwise groups need equal `(numel, rnumel)`; a pointwise group joins a
/// reduction when `numel_pw = numel_red * rnumel_red` and each of its members' ranges
/// splits there into `(numel_red, rnumel_red)`, or when `numel_pw = numel_red` (an
/// epilogue on the reduced values).
pub fn simd_can_fuse(a: &GroupShape, b: &GroupShape) -> Result<(), Refusal> {
    match (a.reduction, b.reduction) {
        (Some(ra), Some(rb)) if ra == rb => Ok(()),
        (Some(ra), Some(rb)) => Err(Refusal::ReduceMismatch(ra.0, rb.0, ra.1, rb.1)),
        (None, None) if a.numel == b.numel => Ok(()),
        (None, None) => Err(Refusal::PointwiseMismatch(a.numel, b.numel)),
        (Some((numel, rnumel)), None) | (None, Some((numel, rnumel))) => {
            let pw = if a.reduction.is_none() { a } else { b };
            if pw.numel == numel.saturating_mul(rnumel) {
                let splits = pw
                    .member_ranges
                    .iter()
                    .all(|ranges| (0..=ranges.len()).any(|k| ranges[..k].iter().product::<i64>() == numel));
                if splits {
                    Ok(())
                } else {
                    Err(Refusal::Fixed("nodes numel/rnumel incompatibility"))
                }
            } else if pw.numel == numel {
                Ok(())
            } else {
                Err(Refusal::Fixed("nodes numel incompatibility"))
            }
        }
    }
}

/// The target of a pipeline that names none: [`simd_can_fuse`], no limits, and the
/// costs of the H200 in `../shared/anchors.md` (4.25 TB/s, 4 µs launches) as neutral
/// figures. It lowers nowhere.
#[derive(Clone, Copy, Debug, Default)]
pub struct Generic;

impl Target for Generic {
    fn name(&self) -> &'static str {
        "generic"
    }

    fn summary(&self) -> &'static str {
        "no device: SIMD fusion rules, no limits, no lowering"
    }

    fn costs(&self) -> Costs {
        Costs {
            bytes_per_second: 4.25e12,
            launch_seconds: 4e-6,
        }
    }

    fn stages(&self) -> &'static [Stage] {
        &[]
    }
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

    fn shape<'a>(numel: i64, reduction: Option<(i64, i64)>, ranges: &'a [&'a [i64]]) -> GroupShape<'a> {
        GroupShape {
            numel,
            reduction,
            member_ranges: ranges.to_vec(),
        }
    }

    #[test]
    fn simd_rule_matches_inductor_cases() {
        let row: &[&[i64]] = &[&[64, 128]];
        let flat: &[&[i64]] = &[&[8192]];
        let red: &[&[i64]] = &[&[64, 128]];
        // Two reductions of the same shape fuse; different ones do not.
        assert_eq!(
            simd_can_fuse(&shape(64, Some((64, 128)), red), &shape(64, Some((64, 128)), red)),
            Ok(())
        );
        assert_eq!(
            simd_can_fuse(&shape(64, Some((64, 128)), red), &shape(32, Some((32, 256)), red)),
            Err(Refusal::ReduceMismatch(64, 32, 128, 256))
        );
        // A pointwise prologue over (64, 128) splits at 64; a flat 8192 does not.
        assert_eq!(
            simd_can_fuse(&shape(8192, None, row), &shape(64, Some((64, 128)), red)),
            Ok(())
        );
        assert_eq!(
            simd_can_fuse(&shape(8192, None, flat), &shape(64, Some((64, 128)), red))
                .map_err(|r| r.to_string()),
            Err("nodes numel/rnumel incompatibility".to_string())
        );
        // An epilogue on the 64 reduced values fuses; 100 elements do not.
        assert_eq!(
            simd_can_fuse(&shape(64, Some((64, 128)), red), &shape(64, None, &[&[64]])),
            Ok(())
        );
        assert_eq!(
            simd_can_fuse(&shape(64, Some((64, 128)), red), &shape(100, None, &[&[100]])),
            Err(Refusal::Fixed("nodes numel incompatibility"))
        );
        assert_eq!(
            simd_can_fuse(&shape(10, None, &[&[10]]), &shape(12, None, &[&[12]])).map_err(|r| r.to_string()),
            Err("numel/rnumel mismatch (non-reduce) (10, 12), (1, 1)".to_string())
        );
    }
}
