//! Whether two groups of nodes may share a kernel, as a target sees them: the groups'
//! iteration shapes ([`GroupShape`]), the reasons a target gives ([`Refusal`], in the
//! reference systems' words) and the SIMD code generators' rule ([`simd_can_fuse`], the
//! default of [`super::Target::can_fuse`]).

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
