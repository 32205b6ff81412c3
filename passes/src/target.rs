//! What differs per device, as one interface: [`Target`].
//!
//! Strategies ask the target, they never hard-code a device: whether two groups of
//! nodes may share a kernel on it ([`Target::can_fuse`]), how many inputs and how many
//! on-chip bytes one kernel may have ([`KernelLimits`]), what memory traffic and a
//! launch cost there ([`Costs`]), and which stages lower a fused module to its code
//! ([`Target::stages`]). What PyTorch's Inductor back end does on the device (split
//! reductions, bias and layout handling, fused library calls) is a policy value of its
//! own that the target returns ([`Target::backend`], `crate::backend`). How a result is *run* needs the interpreters' tensors and
//! lives beside each implementation in `fuselab-targets`, which depends on this crate
//! (never the reverse). `fuse-opt --target=NAME` chooses one; the implementations are
//! listed in `fuselab_targets::TARGETS`.
//!
//! [`Generic`] is what a pipeline gets when no target is named (the passes run as a
//! library, e.g. in unit tests): the SIMD code generators' rules and no limits.

pub use crate::backend::{InductorBackend, NoBackend};
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

    /// What Inductor's back end for this device does that the Inductor strategy's
    /// passes read (split reductions, bias handling, layout, fused library calls): a
    /// policy value of its own ([`InductorBackend`]). The default, [`NoBackend`], does
    /// none of it.
    fn backend(&self) -> &dyn InductorBackend {
        &NoBackend
    }

    /// The priority of fusing groups `a` and `b` here (higher first; `vertical`: one
    /// reads what the other writes) — the first sort key of GE AutoFuse's candidates
    /// ("backend priority"). The default states no preference: every pair 0.
    fn fusion_priority(&self, a: &GroupShape, b: &GroupShape, vertical: bool) -> i64 {
        let _ = (a, b, vertical);
        0
    }
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
