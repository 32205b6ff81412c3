//! Which buffers may live in LX, and the planning problem they make
//! ([`crate::spyre::scratchpad::Problem`]), from a [`Program`] and its layouts and
//! splits (plain data). A buffer is a candidate when it is an op's result that the
//! function does not return, its producer is a node that splits no reduction dim
//! (partial sums are combined through device memory), and every reader is a node whose
//! reads on each core stay inside what the producer computed *on the same core* (a core
//! reads only its own LX: a split mismatch makes a buffer ineligible, torch-spyre's
//! co-optimization rule without its on-chip relayout). Lifetimes are op steps in program
//! order; per-core bytes are the largest core's box (stick dim in whole sticks), 128-byte
//! aligned. A graph input read by two or more ops may be cloned into LX at its first read
//! (each core copies the box its readers touch; torch-spyre's softmax example's last
//! step). A pointwise reader may overwrite its input in place when it is that input's
//! last reader, reads it once at its own index, and both have the same shape, layout and
//! per-core boxes.

use super::attrs::piece_extents;
use super::layout::row_major_strides;
use super::plan::{core_box, Decisions};
use super::program::{BufferDef, OpKind, Program};
use super::scratchpad::{LxBuffer, Problem, LX_ALIGNMENT};

/// The LX candidates of a program and why the others stay in device memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Residency {
    /// The planning problem over the candidates.
    pub problem: Problem,
    /// The buffer of each problem entry.
    pub buffers: Vec<usize>,
    /// Why each non-candidate op result stays in device memory.
    pub reasons: Vec<(usize, String)>,
}

/// The per-buffer-dim box of buffer `b` that a read with `walked` dims and `index`
/// constant `offset` touches over the reader's box `op_box`.
fn read_box(shape: &[i64], walked: &[Option<usize>], offset: i64, op_box: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let strides = row_major_strides(shape);
    let mut rest = offset;
    let mut b: Vec<(i64, i64)> = strides
        .iter()
        .zip(shape)
        .map(|(&st, &n)| {
            let c = if n > 1 { rest / st } else { 0 };
            rest -= c * st;
            (c, c + 1)
        })
        .collect();
    for (j, h) in walked.iter().enumerate() {
        if let Some(h) = h {
            let base = b[*h].0;
            b[*h] = (base + op_box[j].0, base + op_box[j].1);
        }
    }
    b
}

/// The box of buffer `out` that op `o` computes on `core` (over the buffer's dims).
pub(crate) fn write_box(p: &Program, d: &Decisions, o: usize, core: i64) -> Option<Vec<(i64, i64)>> {
    let op = &p.ops[o];
    let bx = core_box(p, o, d.stick[o], &d.split[o], core)?;
    let shape = &p.buffers[op.out].shape;
    let mut b: Vec<(i64, i64)> = shape.iter().map(|&n| (0, n)).collect();
    for (j, h) in op.out_dims.iter().enumerate() {
        if let Some(h) = h {
            b[*h] = bx[j];
        }
    }
    Some(b)
}

/// The boxes of buffer `b` that op `r`'s reads touch on `core` (`Err`: a read that is no
/// per-dim map).
fn touched_boxes(
    p: &Program,
    d: &Decisions,
    b: usize,
    r: usize,
    core: i64,
) -> Result<Vec<Vec<(i64, i64)>>, String> {
    let reader = &p.ops[r];
    let Some(rb) = core_box(p, r, d.stick[r], &d.split[r], core) else {
        return Ok(Vec::new());
    };
    reader
        .reads
        .iter()
        .filter(|x| x.buffer == b)
        .map(|read| match (&read.dims, &read.index) {
            (Some(walked), Some(index)) => {
                Ok(read_box(&p.buffers[b].shape, walked, index.constant_part(), &rb))
            }
            _ => Err(format!(
                "{} reads it through an index that is no per-dim map",
                reader.name
            )),
        })
        .collect()
}

/// The box of buffer `b` that `core` keeps in LX: what its producer computes there, or,
/// for a graph input cloned into LX, the smallest box holding everything that core's
/// readers touch (`None`: nothing).
pub(crate) fn lx_box(p: &Program, d: &Decisions, b: usize, core: i64) -> Option<Vec<(i64, i64)>> {
    match p.buffers[b].def {
        BufferDef::Op(o) => write_box(p, d, o, core),
        _ => {
            let mut union: Option<Vec<(i64, i64)>> = None;
            for r in p.readers(b) {
                for bx in touched_boxes(p, d, b, r, core).ok()? {
                    if bx.iter().any(|&(lo, hi)| lo >= hi) {
                        continue;
                    }
                    union = Some(match union {
                        None => bx,
                        Some(u) => u
                            .iter()
                            .zip(&bx)
                            .map(|(a, c)| (a.0.min(c.0), a.1.max(c.1)))
                            .collect(),
                    });
                }
            }
            union
        }
    }
}

fn contains(outer: &[(i64, i64)], inner: &[(i64, i64)]) -> bool {
    outer
        .iter()
        .zip(inner)
        .all(|(o, i)| i.0 >= i.1 || (o.0 <= i.0 && i.1 <= o.1))
}

/// The cores an LX buffer's boxes span: its producer's, or (a cloned input) its readers'.
fn cores_of(p: &Program, d: &Decisions, b: usize) -> i64 {
    match p.buffers[b].def {
        BufferDef::Op(o) => d.split[o].iter().product(),
        _ => p
            .readers(b)
            .map(|r| d.split[r].iter().product::<i64>())
            .max()
            .unwrap_or(1),
    }
}

/// Why buffer `b` cannot live in LX, if it cannot (`clone_inputs`: graph inputs read
/// more than once may be cloned into LX at their first read).
fn ineligible(p: &Program, d: &Decisions, b: usize, clone_inputs: bool) -> Option<String> {
    let buffer = &p.buffers[b];
    match buffer.def {
        BufferDef::Op(o) => {
            let op = &p.ops[o];
            if buffer.returned {
                return Some("a result of the function".into());
            }
            if matches!(op.kind, OpKind::Matmul | OpKind::Extern(_)) {
                return Some("an extern's result".into());
            }
            if (op.kept..op.dims.len()).any(|j| d.split[o][j] > 1) {
                return Some(
                    "its producer splits a reduction dim (partial sums meet in device memory)".into(),
                );
            }
        }
        BufferDef::Input(_) if !clone_inputs => return Some("a graph input (clone-inputs=false)".into()),
        BufferDef::Input(_) if p.readers(b).count() < 2 => return Some("a graph input read once".into()),
        BufferDef::Input(_) => {}
        BufferDef::Constant | BufferDef::Restickify(_) => {
            return Some("a constant or a restickified copy".into())
        }
    }
    if p.buffers.iter().any(|x| x.def == BufferDef::Restickify(b)) {
        return Some("restickified (the copy goes through device memory)".into());
    }
    for r in p.readers(b) {
        let reader = &p.ops[r];
        if matches!(reader.kind, OpKind::Matmul | OpKind::Extern(_)) {
            return Some(format!("read by the extern {}", reader.name));
        }
        let cores: i64 = d.split[r].iter().product();
        for core in 0..cores {
            let touched = match touched_boxes(p, d, b, r, core) {
                Ok(t) => t,
                Err(m) => return Some(m),
            };
            let held = lx_box(p, d, b, core);
            if !touched
                .iter()
                .all(|t| held.as_ref().is_some_and(|h| contains(h, t)))
            {
                return Some(format!(
                    "{} on core {core} reads elements another core computed (core splits differ)",
                    reader.name
                ));
            }
        }
    }
    None
}

/// Bytes per core of buffer `b` in LX: the largest core's box (stick dim in whole
/// sticks), 128-byte aligned.
fn per_core_bytes(p: &Program, d: &Decisions, b: usize) -> i64 {
    let largest = (0..cores_of(p, d, b))
        .filter_map(|c| lx_box(p, d, b, c))
        .map(|bx| {
            let (extents, element) = lx_extents(p, d, b, &bx);
            extents.iter().product::<i64>() * element
        })
        .max()
        .unwrap_or(0);
    (largest + LX_ALIGNMENT - 1) / LX_ALIGNMENT * LX_ALIGNMENT
}

/// How a core lays out its box `bx` of LX buffer `b`: the extent of each dim (the stick
/// dim in whole sticks) row-major, and the bytes each element takes (a sparse layout's
/// element fills a stick). The planner's sizes and the simulator's addresses both come
/// from here.
pub(crate) fn lx_extents(p: &Program, d: &Decisions, b: usize, bx: &[(i64, i64)]) -> (Vec<i64>, i64) {
    piece_extents(&d.layouts[b], p.buffers[b].dtype, bx)
}

/// The op reading `b` last.
fn last_reader(p: &Program, b: usize) -> Option<usize> {
    p.readers(b).max()
}

/// The candidate `parent` that op `o` may overwrite in place: a pointwise op reading it
/// once at its own index as its last reader, of the same shape, dtype and layout, each
/// core writing exactly the box it holds of the parent.
fn in_place_parent(p: &Program, d: &Decisions, o: usize, candidates: &[usize]) -> Option<usize> {
    let op = &p.ops[o];
    if op.kind != OpKind::Pointwise {
        return None;
    }
    op.reads.iter().find_map(|r| {
        let q = r.buffer;
        let once = op.reads.iter().filter(|x| x.buffer == q).count() == 1;
        let identity = r
            .dims
            .as_ref()
            .is_some_and(|w| *w == op.out_dims && r.index.as_ref().is_some_and(|i| i.constant_part() == 0));
        let same = p.buffers[q].shape == p.buffers[op.out].shape
            && p.buffers[q].dtype == p.buffers[op.out].dtype
            && d.layouts[q] == d.layouts[op.out];
        let cores = cores_of(p, d, q).max(d.split[o].iter().product());
        let same_boxes = || (0..cores).all(|c| lx_box(p, d, q, c) == write_box(p, d, o, c));
        (candidates.contains(&q) && once && identity && same && last_reader(p, q) == Some(o) && same_boxes())
            .then_some(q)
    })
}

/// The LX problem of `p` under `d`, with `capacity` bytes per core (`clone_inputs`: graph
/// inputs read more than once are candidates too, cloned into LX at their first read).
pub fn residency(p: &Program, d: &Decisions, capacity: i64, clone_inputs: bool) -> Residency {
    let mut buffers = Vec::new();
    let mut reasons = Vec::new();
    for (b, buffer) in p.buffers.iter().enumerate() {
        if !matches!(buffer.def, BufferDef::Op(_) | BufferDef::Input(_)) {
            continue;
        }
        match ineligible(p, d, b, clone_inputs) {
            Some(reason) => reasons.push((b, reason)),
            None => buffers.push(b),
        }
    }
    let entries = buffers
        .iter()
        .map(|&b| {
            let readers: Vec<usize> = p.readers(b).collect();
            let (start, reads, intermediate) = match p.buffers[b].def {
                BufferDef::Op(o) => (o, readers.len() as i64, true),
                // A clone: its first reader still reads device memory (through the copy).
                _ => (
                    readers.iter().copied().min().unwrap_or(0),
                    readers.len() as i64 - 1,
                    false,
                ),
            };
            let end = readers.iter().copied().max().unwrap_or(start) + 1;
            let in_place_of = match p.buffers[b].def {
                BufferDef::Op(o) => {
                    in_place_parent(p, d, o, &buffers).and_then(|q| buffers.iter().position(|&x| x == q))
                }
                _ => None,
            };
            LxBuffer {
                size: per_core_bytes(p, d, b),
                start,
                end,
                reads,
                intermediate,
                in_place_of,
            }
        })
        .collect();
    Residency {
        problem: Problem {
            buffers: entries,
            capacity,
            alignment: LX_ALIGNMENT,
        },
        buffers,
        reasons,
    }
}
