//! Per-kernel limits of a target ([`KernelLimits`]: inputs, on-chip bytes, alignment)
//! and whether a fused kernel keeps them ([`within_limits`], [`fits_on_chip`], with the
//! on-chip capacity rule of [`smallest_tile_bytes`]).

use super::Refusal;

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
