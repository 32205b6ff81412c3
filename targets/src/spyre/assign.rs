//! Stick layout assignment over a [`Program`] (torch-spyre's layout propagation;
//! `../shared/research/spyre_ascend.md`, "Stick layouts"), as plain data.
//!
//! Every op picks a *stick dim* among its dims; that fixes its output's layout (the
//! output dim it writes; a reduced dim gives a **sparse** result, one value per stick).
//! Per-op constraints:
//! - pointwise: every input and the output share the stick dim — a read is compatible
//!   when the op's stick dim walks the buffer's stick dim with its unit stride (index
//!   coefficient = that dim's row-major stride), or does not move it (coefficient 0: the
//!   value is broadcast across the stick's lanes);
//! - matmul: A sticked on K, B and the output on N;
//! - reductions take their input's layout (torch-spyre inserts no restickify before a
//!   reduction; only a reshaped view's copy, which must be materialized anyway, may feed
//!   one); reducing along the stick dim gives a sparse result, which a reader may
//!   broadcast but not walk along its stick: that needs elements gathered from several
//!   sticks, which Spyre has no mechanism for — infeasible;
//! - convolution and other externs: the generic layout (stick on the last dim) in and out
//!   (no torch-spyre rule: fuselab's simplification).
//!
//! Edge costs: 0 when compatible; a *restickify* of the buffer (its device element count,
//! paid once per buffer and target stick) otherwise — inside a kernel, between two of its
//! members, the copy is an on-chip relayout priced the same; infeasible when the buffer is
//! sparse, read by a reduction, or walked along no single dim. Graph inputs come in the generic layout; constants adopt
//! whatever stick a reader needs at cost 0; outputs may leave in any layout.
//!
//! An op may also take no stick dim: it then computes a sparse result stick by stick,
//! from sparse inputs (any index: it moves whole sticks) and broadcast scalars only (a
//! chain of per-row statistics after a row reduction, as layer norm's mean and rstd).
//!
//! Solvers: `greedy` (ops in program order, each its cheapest stick given its producers;
//! ties: the last dim first) and `beam` (the `width` cheapest partial assignments).

use super::attrs::DeviceLayout;
use super::layout::row_major_strides;
use super::program::{BufferDef, OpKind, Program};
use std::collections::BTreeSet;

/// A buffer's stick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stick {
    /// Along this host dim.
    Dim(usize),
    /// One value per stick (a reduction along its input's stick dim).
    Sparse,
    /// Along the buffer's dims from this one on, merged (a reshaped view's layout; only a
    /// restickify makes it).
    Merged(usize),
}

/// One restickify: buffer `buffer` copied into a layout sticked on host dim `to`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Restickify {
    /// The buffer.
    pub buffer: usize,
    /// The new stick.
    pub to: Stick,
    /// The ops reading the copy.
    pub readers: Vec<usize>,
    /// The kernel computing both the buffer and its readers, where the copy is an
    /// on-chip relayout inside it (`None`: between kernels).
    pub inside: Option<usize>,
    /// Device elements copied.
    pub elements: i64,
}

/// A complete assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    /// Each op's stick dim (`None`: a scalar op).
    pub op_stick: Vec<Option<usize>>,
    /// Each buffer's stick.
    pub layouts: Vec<Stick>,
    /// The restickifies, by buffer then target dim.
    pub restickify: Vec<Restickify>,
    /// Device elements restickified in all.
    pub cost: i64,
}

/// A layout solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// Op by op, cheapest first.
    Greedy,
    /// The `width` cheapest partial assignments.
    Beam(usize),
}

/// No assignment exists: why, at which op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Infeasible {
    /// The op.
    pub op: usize,
    /// Why.
    pub message: String,
}

#[derive(Clone, Debug)]
struct State {
    choice: Vec<Option<usize>>,
    layouts: Vec<Option<Stick>>,
    restick: BTreeSet<(usize, Stick, Option<usize>)>,
    readers: Vec<(usize, Stick, Option<usize>, usize)>,
    cost: i64,
}

/// The device layout of `buffer` under `stick`.
pub fn layout_of(buffer: &super::program::Buffer, stick: Stick) -> Option<DeviceLayout> {
    match stick {
        Stick::Dim(k) => DeviceLayout::of(&buffer.shape, buffer.dtype, Some(k)),
        Stick::Sparse => DeviceLayout::of(&buffer.shape, buffer.dtype, None),
        Stick::Merged(from) => DeviceLayout::merged(&buffer.shape, buffer.dtype, from),
    }
}

/// The generic layout's stick of a buffer of `shape`: its last dim of size > 1.
pub fn generic_stick(shape: &[i64]) -> usize {
    (0..shape.len()).rev().find(|&d| shape[d] > 1).unwrap_or(0)
}

/// The host dim of a buffer of `shape` whose row-major stride is `stride` (size > 1).
fn dim_with_stride(shape: &[i64], stride: i64) -> Option<usize> {
    let strides = row_major_strides(shape);
    (0..shape.len()).find(|&k| shape[k] > 1 && strides[k] == stride)
}

/// The op's stick candidates, in preference order.
fn candidates(p: &Program, o: usize) -> Vec<Option<usize>> {
    let op = &p.ops[o];
    match op.kind {
        OpKind::Matmul => vec![Some(op.dims.len() - 2)],
        OpKind::Extern(_) => {
            let out = &p.buffers[op.out].shape;
            let g = generic_stick(out);
            vec![op.out_dims.iter().position(|&d| d == Some(g))]
        }
        _ => {
            let mut c: Vec<Option<usize>> = (0..op.dims.len())
                .rev()
                .filter(|&j| op.dims[j] > 1)
                .map(Some)
                .collect();
            // Kept dims before reduced ones (a dense result before a sparse one); last, no
            // stick dim at all: a sparse result computed stick by stick from sparse inputs.
            c.sort_by_key(|j| j.is_some_and(|j| j >= op.kept));
            c.push(None);
            c
        }
    }
}

/// The stick an op's choice gives its output.
fn output_stick(p: &Program, o: usize, j: Option<usize>) -> Stick {
    let op = &p.ops[o];
    match j {
        Some(j) if j >= op.kept => Stick::Sparse,
        Some(j) => op.out_dims[j].map_or(Stick::Dim(generic_stick(&p.buffers[op.out].shape)), Stick::Dim),
        None if sparse_mode(p, o) => Stick::Sparse,
        None => Stick::Dim(generic_stick(&p.buffers[op.out].shape)),
    }
}

/// Whether op `o` without a stick dim computes a sparse result (it has a kept dim of size
/// more than one; otherwise it computes a single value).
fn sparse_mode(p: &Program, o: usize) -> bool {
    let op = &p.ops[o];
    op.dims[..op.kept].iter().any(|&n| n > 1)
}

/// The buffer dim read `r` of op `o` needs sticked under stick choice `j`: `Ok(None)`
/// when any stick will do (broadcast), `Ok(Some(k))` for dim `k`, `Err` when no dim.
fn needed(p: &Program, o: usize, r: usize, j: Option<usize>) -> Need {
    let op = &p.ops[o];
    let read = &op.reads[r];
    let buffer = &p.buffers[read.buffer];
    match &op.kind {
        OpKind::Matmul if r < 2 => {
            // A on K, B on N: the buffer dim the view's last dim walks (a last dim of size
            // 1 walks nothing: any stick will do).
            let (size, stride) = if read.view.is_empty() {
                (*buffer.shape.last().unwrap_or(&1), 1)
            } else {
                let rank = (read.view.len() - 1) / 2;
                (read.view[rank], *read.view.last().unwrap_or(&1))
            };
            if size <= 1 {
                return Ok(None);
            }
            dim_with_stride(&buffer.shape, stride)
                .map(|k| Some(Stick::Dim(k)))
                .ok_or_else(|| format!("operand {r} of the matmul walks no single dim of {}", buffer.name))
        }
        OpKind::Matmul | OpKind::Extern(_) => Ok(Some(Stick::Dim(generic_stick(&buffer.shape)))),
        _ => {
            let Some(j) = j else { return Ok(None) };
            let Some(index) = &read.index else { return Ok(None) };
            let e = super::plan::op_stick_elements(p, o);
            stick_walk(index, &op.dims, j, &buffer.shape, e)
                .map_err(|m| format!("its stick dim walks {} {m}", buffer.name))
        }
    }
}

/// What one read needs under one stick choice ([`needed`]).
type Need = Result<Option<Stick>, String>;

/// The most values of an op dim [`stick_walk`] evaluates.
const WALK_LIMIT: i64 = 4096;

/// The host dim of a buffer of `shape` that op dim `j` (of an op over `dims`, `e` values
/// per stick) walks along its sticks through `index`: within every block of `e`
/// consecutive values of `d_j` — one stick of the op — each step must move the buffer's
/// coordinates by +1 along one and the same dim (a stick of the buffer read in order), or
/// not at all (`Ok(None)`: a value broadcast across the stick). Across blocks anything
/// goes. Checked by evaluating the index (any affine form, floordiv and mod included) over
/// `d_j`'s first [`WALK_LIMIT`] values, the other dims at 0 and at their last values, so
/// an unsimplified reshape that is the identity passes and a walk that leaves a padded
/// stick (a row of 8 fp32 in a 32-lane stick) does not. Offsets outside the buffer are
/// masked positions (a concatenation's other inputs) and are skipped. Consecutive host
/// elements across dims are a stick of a reshaped view (`Stick::Merged`: only a
/// restickify into that view can serve it).
pub fn stick_walk(
    index: &fuselab_dialects::loops::index::IndexExpr,
    dims: &[i64],
    j: usize,
    shape: &[i64],
    e: i64,
) -> Result<Option<Stick>, String> {
    let strides = row_major_strides(shape);
    let coords = |flat: i64| -> Vec<i64> {
        strides
            .iter()
            .zip(shape)
            .map(|(&st, &n)| flat / st % n.max(1))
            .collect()
    };
    let syms = vec![0; index.symbol_count()];
    let numel: i64 = shape.iter().product();
    // Over the in-block steps: whether one stayed, whether all moved +1 along one dim
    // (which), whether all moved to the next host element, the outermost dim moved.
    let (mut stayed, mut moved_any) = (false, false);
    let mut single: Option<Option<usize>> = None;
    let mut contiguous = true;
    let mut outermost = usize::MAX;
    let bases = [
        vec![0; dims.len()],
        dims.iter().map(|&n| (n - 1).max(0)).collect::<Vec<i64>>(),
    ];
    for base in bases {
        let mut point = base;
        let mut prev: Option<(i64, Vec<i64>)> = None;
        for t in 0..dims[j].min(WALK_LIMIT) {
            point[j] = t;
            let flat = index.eval(&point, &syms);
            if flat < 0 || flat >= numel {
                // A masked position (a concatenation's other part): not read.
                prev = None;
                continue;
            }
            let here = coords(flat);
            if let Some((before_flat, before)) = prev.filter(|_| t % e != 0) {
                let moved: Vec<usize> = (0..shape.len()).filter(|&k| here[k] != before[k]).collect();
                if moved.is_empty() {
                    stayed = true;
                } else {
                    moved_any = true;
                    contiguous &= flat == before_flat + 1;
                    outermost = outermost.min(moved[0]);
                    let one = match moved[..] {
                        [k] if here[k] == before[k] + 1 => Some(k),
                        _ => None,
                    };
                    single = match single {
                        None => Some(one),
                        Some(s) if s == one => Some(s),
                        Some(_) => Some(None),
                    };
                }
            }
            prev = Some((flat, here));
        }
    }
    match (stayed, moved_any, single.flatten()) {
        (_, false, _) => Ok(None),
        (true, true, _) => Err("unevenly (elements from several sticks)".into()),
        (false, true, Some(k)) => Ok(Some(Stick::Dim(k))),
        // Consecutive host elements across dims: one stick of a reshaped view (a
        // restickify into the merged layout can serve it).
        (false, true, None) if contiguous => Ok(Some(Stick::Merged(outermost))),
        (false, true, None) => Err("across several dims (elements from several sticks)".into()),
    }
}

impl State {
    fn stick_of(&self, p: &Program, b: usize) -> Option<Stick> {
        match p.buffers[b].def {
            BufferDef::Input(_) => Some(Stick::Dim(generic_stick(&p.buffers[b].shape))),
            BufferDef::Constant => None,
            BufferDef::Op(_) => self.layouts[b],
            // The passes run before any restickify exists; one already there keeps the
            // stick it names (read by the later passes, not here).
            BufferDef::Restickify(_) => self.layouts[b],
        }
    }

    /// The state after op `o` takes stick `j`, or why it cannot.
    /// `needs[r]`: what read `r` needs under stick `j` ([`needed`], computed once).
    fn extend(&self, p: &Program, o: usize, j: Option<usize>, needs: &[Need]) -> Result<State, String> {
        let op = &p.ops[o];
        let mut next = self.clone();
        for (read, need) in op.reads.iter().zip(needs) {
            let b = read.buffer;
            let buffer = &p.buffers[b];
            if j.is_none() && sparse_mode(p, o) {
                // One value per stick: sparse inputs move whole sticks; a dense input can
                // only be a broadcast scalar.
                let walks = read
                    .index
                    .as_ref()
                    .is_none_or(|i| (0..op.dims.len()).any(|d| op.dims[d] > 1 && i.uses_dim(d)));
                let dense = self.stick_of(p, b).is_some_and(|s| s != Stick::Sparse);
                if dense && walks {
                    return Err(format!(
                        "a result of one value per stick cannot take the elements of {}, which is dense",
                        buffer.name
                    ));
                }
                continue;
            }
            let want = need.clone()?;
            let Some(have) = self.stick_of(p, b) else {
                // A constant takes the first stick a reader needs, free; a later reader
                // needing another gets its own copy, free as well.
                if let (Some(want), None) = (want, next.layouts[b]) {
                    next.layouts[b] = Some(want);
                }
                continue;
            };
            let Some(want) = want else { continue };
            if have == want {
                continue;
            }
            if have == Stick::Sparse {
                return Err(format!(
                    "{} is a reduction along its stick dim (one value per stick); reading it along this op's stick dim needs elements gathered from multiple sticks, and Spyre has no mechanism for that",
                    buffer.name
                ));
            }
            // A reshaped view's copy may feed a reduction (the view has to be materialized
            // anyway); a plain change of stick may not.
            if matches!(op.kind, OpKind::Reduction(_)) && !matches!(want, Stick::Merged(_)) {
                return Err(format!(
                    "a reduction takes its input's layout, and {} is not sticked along the dim this stick choice walks",
                    buffer.name
                ));
            }
            let same_kernel = match buffer.def {
                BufferDef::Op(k) => op.kernel.is_some() && p.ops[k].kernel == op.kernel,
                _ => false,
            };
            // Inside a kernel the copy is an on-chip relayout, priced as a restickify.
            let scope = if same_kernel { op.kernel } else { None };
            if next.restick.insert((b, want, scope)) {
                let layout = layout_of(buffer, want)
                    .ok_or_else(|| format!("{} has no dim for {want:?}", buffer.name))?;
                next.cost += layout.device_elements();
            }
            next.readers.push((b, want, scope, o));
        }
        next.choice[o] = j;
        next.layouts[op.out] = Some(output_stick(p, o, j));
        Ok(next)
    }

    fn finish(self, p: &Program) -> Assignment {
        let layouts = (0..p.buffers.len())
            .map(|b| {
                self.stick_of(p, b).or(self.layouts[b]).unwrap_or_else(|| {
                    // A constant nobody constrained: the generic layout.
                    Stick::Dim(generic_stick(&p.buffers[b].shape))
                })
            })
            .collect();
        let restickify = self
            .restick
            .iter()
            .map(|&(buffer, to, inside)| {
                let b = &p.buffers[buffer];
                Restickify {
                    buffer,
                    to,
                    readers: self
                        .readers
                        .iter()
                        .filter(|&&(rb, rt, rs, _)| rb == buffer && rt == to && rs == inside)
                        .map(|&(_, _, _, o)| o)
                        .collect(),
                    inside,
                    elements: layout_of(b, to).map_or(0, |l| l.device_elements()),
                }
            })
            .collect();
        Assignment {
            op_stick: self.choice,
            layouts,
            restickify,
            cost: self.cost,
        }
    }
}

/// Assigns layouts to `p` with `solver`.
pub fn assign(p: &Program, solver: Solver) -> Result<Assignment, Infeasible> {
    let width = match solver {
        Solver::Greedy => 1,
        Solver::Beam(w) => w.max(1),
    };
    let mut beam = vec![State {
        choice: vec![None; p.ops.len()],
        layouts: vec![None; p.buffers.len()],
        restick: BTreeSet::new(),
        readers: Vec::new(),
        cost: 0,
    }];
    for o in 0..p.ops.len() {
        let choices: Vec<(Option<usize>, Vec<Need>)> = candidates(p, o)
            .into_iter()
            .map(|j| (j, (0..p.ops[o].reads.len()).map(|r| needed(p, o, r, j)).collect()))
            .collect();
        let mut next: Vec<State> = Vec::new();
        let mut first_error: Option<String> = None;
        for state in &beam {
            for (j, needs) in &choices {
                match state.extend(p, o, *j, needs) {
                    Ok(s) => next.push(s),
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
        }
        if next.is_empty() {
            return Err(Infeasible {
                op: o,
                message: first_error.unwrap_or_else(|| "no stick choice".into()),
            });
        }
        // Stable: among equal costs the earlier state and candidate (preference order).
        next.sort_by_key(|s| s.cost);
        next.truncate(width);
        beam = next;
    }
    let best = beam.into_iter().next().ok_or(Infeasible {
        op: 0,
        message: "no assignment".into(),
    })?;
    Ok(best.finish(p))
}
