//! Which members of a fused kernel can be computed row by row in one loop nest (CPU) or
//! one program (GPU): a kernel's pointwise members that never leave it are recomputed
//! where they are read (Inductor inlines them into their consumers); the others share
//! their common leading ranges — the *rows* — when every read of another member's buffer
//! stays in the reader's own row. Then a row is produced and consumed by the same loop
//! iteration (the same GPU program), with no synchronisation beyond it.

use fuselab_dialects::{
    ir::{self, i64s},
    loops::{
        index::{contiguous_index, from_affine_map_attr, unravel, IndexExpr},
        iteration_ranges, loop_order, names, node_ranges, ordered_ranges,
    },
};
use mlir_sys::MlirOperation;
use std::collections::HashMap;

/// A kernel's members split by how they are generated.
#[derive(Clone, Debug, Default)]
pub struct KernelMembers {
    /// Pointwise members recomputed where they are read (never stored), by result value.
    pub inline: HashMap<usize, MlirOperation>,
    /// The members that write a buffer, in order.
    pub materialized: Vec<MlirOperation>,
}

/// A recomputed member's value as a code generator built it at one read: the member,
/// the block the value was built in, what else the value depends on in the generator
/// (`state`; the GPU kernel's mask, for one), how the read indexes it (`0`: at the
/// reader's own loop variables; else its `index` map) and the values it was indexed with.
/// A second read with the same key reuses the value — built earlier in the same block,
/// it dominates the read — instead of building the member again: the reuse Inductor's
/// kernel code gets from its CSE cache. Without it a chain whose members read their
/// producer twice (`x * x`) doubled the generated code at each member.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Recomputed {
    member: usize,
    block: usize,
    state: Vec<usize>,
    index: usize,
    values: Vec<usize>,
}

impl Recomputed {
    /// The key of `member` read by `load` in `block`, at the reader's own loop variables
    /// (`own_position`: `values` are those) or through the load's index map (`values`
    /// are the reader's variables and the load's symbols).
    pub fn new(
        member: MlirOperation,
        block: mlir_sys::MlirBlock,
        load: MlirOperation,
        own_position: bool,
        values: impl IntoIterator<Item = mlir_sys::MlirValue>,
        state: &[usize],
    ) -> Self {
        Recomputed {
            member: member.ptr as usize,
            block: block.ptr as usize,
            state: state.to_vec(),
            index: if own_position {
                0
            } else {
                ir::attr(load, "index").map_or(1, |a| a.ptr as usize)
            },
            values: values.into_iter().map(|v| v.ptr as usize).collect(),
        }
    }
}

/// Whether `load`, in `reader`'s body with `vars` loop variables and `symbols` symbol
/// operands, reads the recomputed member `producer` at the reader's own leading loop
/// variables: no symbols, the load's index is the producer's contiguous index (with or
/// without its unit dims) and the reader's ranges start with the producer's. Then a code
/// generator binds the producer's loop variables to the reader's first ones instead of
/// unravelling a flat index (and [`Recomputed`] keys the read by those variables).
pub fn reads_at_own_position(
    load: MlirOperation,
    reader: MlirOperation,
    producer: MlirOperation,
    vars: usize,
    symbols: usize,
) -> bool {
    let ranges = i64s(producer, "ranges");
    let contiguous = contiguous_index(&ranges);
    symbols == 0
        && vars >= ranges.len()
        && ir::attr(load, "index")
            .and_then(from_affine_map_attr)
            .is_some_and(|(e, _, _)| e == contiguous.drop_unit_dims(&ranges) || e == contiguous)
        && node_ranges(reader).unwrap_or_default().starts_with(&ranges)
}

/// Splits the members of `loop.kernel` `kernel`: a pointwise member whose value is not
/// yielded and is read only by `loop.load`s is inlined; the rest are materialized.
/// `None` for a kernel without a body.
pub fn kernel_members(kernel: MlirOperation) -> Option<KernelMembers> {
    let block = ir::body(kernel)?;
    let inner = ir::block_ops(block);
    let (last, members) = inner.split_last()?;
    let yielded: Vec<usize> = ir::operands(*last).iter().map(|v| v.ptr as usize).collect();
    let mut split = KernelMembers::default();
    for &m in members {
        let r = ir::result(m, 0).ptr as usize;
        // Only values every user reads through `loop.load` in a body can be recomputed
        // there; an extern or a view needs the buffer.
        let loaded_only = ir::users(ir::result(m, 0))
            .iter()
            .all(|&u| ir::op_name(u) == names::LOAD);
        if ir::op_name(m) == names::POINTWISE && !yielded.contains(&r) && loaded_only {
            split.inline.insert(r, m);
        } else {
            split.materialized.push(m);
        }
    }
    Some(split)
}

/// The most ops a kernel member may be recomputed with at more than one of its kernel's
/// loops (Inductor's `realize_opcount_threshold`, the size past which it stores a node
/// that has several users).
pub const MAX_RECOMPUTED_OPS: usize = 30;

/// [`kernel_members`] for a code generator that gives each materialized member a loop of
/// its own (the CPU's): an inline member that more than one of those loops would
/// recompute (reading it directly or through other inline members), and whose
/// recomputation — its body and the inline members it reads, each counted once — has
/// more than `max_ops` ops, is materialized instead: stored once by its own loop and
/// loaded by the others, as Inductor's kernels keep a buffer a later loop reads. Members
/// are decided in program order, a member's loops counted with every later member still
/// inline. The bound: a member recomputed in more than one loop costs at most `max_ops`
/// ops in each, so a kernel's code is at most its members' own ops plus `max_ops` per
/// (loop, recomputed member) read. Without it a chain of pointwise members, each read by
/// a row reduction, was recomputed from its start in every reduction's loop: code
/// quadratic in the chain's length (issue 44, item 4).
pub fn kernel_members_bounded(kernel: MlirOperation, max_ops: usize) -> Option<KernelMembers> {
    let mut split = kernel_members(kernel)?;
    let block = ir::body(kernel)?;
    let members: Vec<MlirOperation> = ir::block_ops(block)
        .into_iter()
        .filter(|&m| ir::op_name(m) != names::YIELD)
        .collect();
    let position: HashMap<usize, usize> = members
        .iter()
        .enumerate()
        .map(|(i, m)| (ir::result(*m, 0).ptr as usize, i))
        .collect();
    // The members each member loads, by position.
    let reads: Vec<Vec<usize>> = members
        .iter()
        .map(|&m| {
            let mut r: Vec<usize> = ir::collect_ops(m, |n| n == names::LOAD)
                .into_iter()
                .filter_map(|l| position.get(&(ir::operand(l, 0).ptr as usize)).copied())
                .collect();
            r.sort_unstable();
            r.dedup();
            r
        })
        .collect();
    let own_ops: Vec<usize> = members
        .iter()
        .map(|&m| ir::body(m).map_or(0, |b| ir::block_ops(b).len().saturating_sub(1)))
        .collect();
    let inline_at = |split: &KernelMembers, i: usize| {
        split
            .inline
            .contains_key(&(ir::result(members[i], 0).ptr as usize))
    };
    // Each inline member's recomputation: itself and the inline members it reads.
    let mut closure: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
    for i in 0..members.len() {
        if !inline_at(&split, i) {
            continue;
        }
        let mut set: Vec<usize> = vec![i];
        for &p in &reads[i] {
            if inline_at(&split, p) {
                set.extend(closure[p].iter().copied());
            }
        }
        set.sort_unstable();
        set.dedup();
        let cost: usize = set.iter().map(|&q| own_ops[q]).sum();
        if cost > max_ops && loops_reading(i, &reads, |j| inline_at(&split, j)) > 1 {
            split.inline.remove(&(ir::result(members[i], 0).ptr as usize));
        } else {
            closure[i] = set;
        }
    }
    // The materialized members, in program order, with those stored above.
    split.materialized = members
        .iter()
        .enumerate()
        .filter(|(i, _)| !inline_at(&split, *i))
        .map(|(_, &m)| m)
        .collect();
    Some(split)
}

/// How many materialized members read member `i`, directly or through inline members
/// (`inline(j)`), in a kernel whose members read `reads[j]`.
fn loops_reading(i: usize, reads: &[Vec<usize>], inline: impl Fn(usize) -> bool) -> usize {
    let mut reaches = vec![false; reads.len()];
    reaches[i] = true;
    let mut loops = 0;
    for j in i + 1..reads.len() {
        if reads[j].iter().any(|&p| reaches[p]) {
            if inline(j) {
                reaches[j] = true;
            } else {
                loops += 1;
            }
        }
    }
    loops
}

/// How many leading ranges `members` (pointwise / reduction nodes, in order) can share:
/// the longest common prefix of their ranges such that every read of a member's buffer
/// by a member (directly or through the `inline` values recomputed at the read) is at
/// an index whose row — the index `floordiv` the row size — is the reader's own row.
/// 0 when none does; for a single node, all its ranges.
pub fn shared_row_prefix(members: &[MlirOperation], inline: &HashMap<usize, MlirOperation>) -> usize {
    row_prefix(members, inline, false)
}

/// [`shared_row_prefix`] for a code generator that iterates each member in its
/// `loop_order` (the GPU's): rows are leading *iteration* ranges, and a stored member
/// iterating out of order is read at its row-major index unravelled over its own dims.
pub fn shared_row_prefix_in_loop_order(
    members: &[MlirOperation],
    inline: &HashMap<usize, MlirOperation>,
) -> usize {
    row_prefix(members, inline, true)
}

/// A stored member's loop order, when the code generator follows it.
fn order_of(m: MlirOperation, follow: bool) -> Option<Vec<usize>> {
    follow.then(|| loop_order(m)).flatten()
}

fn row_prefix(members: &[MlirOperation], inline: &HashMap<usize, MlirOperation>, follow: bool) -> usize {
    let ranges: Vec<Vec<i64>> = members
        .iter()
        .map(|&m| {
            if follow {
                ordered_ranges(m)
            } else {
                i64s(m, "ranges")
            }
        })
        .collect();
    if members.len() == 1 {
        return ranges[0].len();
    }
    let mut k = ranges.iter().map(Vec::len).min().unwrap_or(0);
    while k > 0 && ranges.iter().any(|r| r[..k] != ranges[0][..k]) {
        k -= 1;
    }
    let outputs: HashMap<usize, MlirOperation> = members
        .iter()
        .map(|&m| (ir::result(m, 0).ptr as usize, m))
        .collect();
    while k > 0 {
        let local = members.iter().all(|&m| {
            // The reader's variables as iteration dims: logical dim `order[p]` is
            // iteration dim `p`.
            let (full, dims) = match order_of(m, follow) {
                Some(order) => {
                    let mut dims = vec![IndexExpr::constant(0); order.len()];
                    for (p, &d) in order.iter().enumerate() {
                        dims[d] = IndexExpr::dim(p);
                    }
                    (iteration_ranges(m).unwrap_or_default(), dims)
                }
                None => {
                    let full = node_ranges(m).unwrap_or_default();
                    ((full.clone()), (0..full.len()).map(IndexExpr::dim).collect())
                }
            };
            reads_in_row(m, &dims, &full, k, &outputs, inline, follow, &mut HashMap::new())
        });
        if local {
            return k;
        }
        k -= 1;
    }
    0
}

/// Whether every load in `node`'s body (its loop variables being `dims`, over the
/// reader's variables with extents `full`) of a buffer in `outputs` reads the reader's
/// row for a shared prefix of `k` ranges. `checked` holds the verdicts of the recomputed
/// producers looked through so far, by producer and loop variables: a producer read
/// twice at the same position (`x * x`) is checked once, not once per path to it.
#[allow(clippy::too_many_arguments)]
fn reads_in_row(
    node: MlirOperation,
    dims: &[IndexExpr],
    full: &[i64],
    k: usize,
    outputs: &HashMap<usize, MlirOperation>,
    inline: &HashMap<usize, MlirOperation>,
    follow: bool,
    checked: &mut HashMap<(usize, Vec<IndexExpr>), bool>,
) -> bool {
    let Some(block) = ir::first_block(ir::region(node, 0)) else {
        return false;
    };
    for op in ir::block_ops(block) {
        if ir::op_name(op) != names::LOAD {
            continue;
        }
        let source = ir::operand(op, 0).ptr as usize;
        let Some((index, _, nsyms)) =
            ir::attr(op, "index").and_then(fuselab_dialects::loops::index::from_affine_map_attr)
        else {
            return false;
        };
        let syms: Vec<IndexExpr> = (0..nsyms).map(IndexExpr::sym).collect();
        let at = index.substitute(dims, &syms, full);
        if let Some(&producer) = inline.get(&source) {
            let pdims = unravel(&at, &i64s(producer, "ranges"), full);
            let key = (producer.ptr as usize, pdims);
            let in_row = match checked.get(&key) {
                Some(&in_row) => in_row,
                None => {
                    let in_row = reads_in_row(producer, &key.1, full, k, outputs, inline, follow, checked);
                    checked.insert(key, in_row);
                    in_row
                }
            };
            if !in_row {
                return false;
            }
        } else if let (Some(&writer), Some(order)) = (
            outputs.get(&source),
            outputs.get(&source).and_then(|&w| order_of(w, follow)),
        ) {
            // The writer's row is its first `k` iteration dims.
            let logical = unravel(&at, &i64s(writer, "ranges"), full);
            let in_row = !at.has_symbols()
                && (0..k).all(|p| {
                    logical[order[p]].drop_unit_dims(full) == IndexExpr::dim(p).drop_unit_dims(full)
                });
            if !in_row || ir::op_name(writer) != names::POINTWISE {
                return false;
            }
        } else if let Some(&writer) = outputs.get(&source) {
            let row: i64 = i64s(writer, "ranges")[k..].iter().product();
            let want = contiguous_index(&full[..k]).drop_unit_dims(full);
            if at.has_symbols() || at.floordiv(row.max(1), full).drop_unit_dims(full) != want {
                return false;
            }
        }
    }
    true
}

/// The node result behind `v`: `v` itself when a node (pointwise, reduction, extern,
/// view) defines it, or the kernel member a `loop.output` forwards; `None` otherwise
/// (a function argument). A code generator writes such a result straight into the
/// function's output buffer when it is returned.
pub fn produced_by_node(v: mlir_sys::MlirValue) -> Option<mlir_sys::MlirValue> {
    let d = ir::defining_op(v)?;
    match ir::op_name(d).as_str() {
        names::POINTWISE | names::REDUCTION | names::EXTERN | names::VIEW => Some(v),
        names::OUTPUT => {
            let kernel = ir::defining_op(ir::operand(d, 0))?;
            let index = ir::integer(d, "index").unwrap_or(0) as usize;
            let yielded = *ir::operands(*ir::block_ops(ir::body(kernel)?).last()?).get(index)?;
            produced_by_node(yielded)
        }
        _ => None,
    }
}
