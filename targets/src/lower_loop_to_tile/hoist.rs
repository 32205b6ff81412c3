//! Loads of read-only inputs issued before a kernel's first reduction (the
//! `hoist-loads` option of `--lower-loop-to-tile`).
//!
//! A persistent reduction's epilogue (rmsnorm's `* w`, layernorm's `* w + b`) loads its
//! other inputs after the row's reduction, behind the reduction's barriers: each
//! program waits for that load's latency once more, with nothing of its own in flight.
//! Inductor's looped kernels load them in the loop after the reduction too, but their
//! second loop re-reads the row alongside. Moving such a load (and the pure index
//! arithmetic it needs) before the first `tile.reduce` puts it in flight with the row's
//! own loads, for a block of registers more. Only loads at the kernel's top level, of a
//! buffer the kernel never stores to, whose offsets, mask and `other` are computed by
//! pure ops from the program id and aranges: the value loaded is the same wherever the
//! load stands.

use fuselab_dialects::ir;
use fuselab_dialects::tile::names as tile_op;
use mlir_sys::{MlirBlock, MlirOperation};
use std::collections::HashSet;

/// Ops that compute index blocks and constants, with no memory effect.
fn is_pure(name: &str) -> bool {
    name.starts_with("arith.")
        || matches!(
            name,
            tile_op::SPLAT | tile_op::BROADCAST | tile_op::ARANGE | tile_op::PROGRAM_ID
        )
}

/// The ops of `block` (in order) that `op`'s operands need, if all are pure; `None`
/// otherwise. Block arguments need nothing.
fn pure_slice(op: MlirOperation, block: MlirBlock) -> Option<Vec<MlirOperation>> {
    let mut seen: HashSet<usize> = HashSet::new();
    let mut stack = vec![op];
    let mut slice = Vec::new();
    while let Some(o) = stack.pop() {
        for v in ir::operands(o) {
            let Some(d) = ir::defining_op(v) else { continue };
            if ir::parent_block(d).ptr != block.ptr || !seen.insert(d.ptr as usize) {
                continue;
            }
            if !is_pure(&ir::op_name(d)) {
                return None;
            }
            slice.push(d);
            stack.push(d);
        }
    }
    let position: std::collections::HashMap<usize, usize> = ir::block_ops(block)
        .iter()
        .enumerate()
        .map(|(i, o)| (o.ptr as usize, i))
        .collect();
    slice.sort_by_key(|o| position[&(o.ptr as usize)]);
    Some(slice)
}

/// Moves the hoistable `tile.load`s of `kernel` (a `tile.kernel`) before its first
/// top-level `tile.reduce`; returns how many moved.
pub(super) fn hoist_input_loads(kernel: MlirOperation) -> usize {
    let Some(block) = ir::body(kernel) else { return 0 };
    let ops = ir::block_ops(block);
    let Some(first) = ops.iter().position(|&o| ir::op_name(o) == tile_op::REDUCE) else {
        return 0;
    };
    let anchor = ops[first];
    let stored: HashSet<usize> = ir::collect_ops(kernel, |n| n == tile_op::STORE)
        .into_iter()
        .map(|s| ir::operand(s, 0).ptr as usize)
        .collect();
    let mut before: HashSet<usize> = ops[..first].iter().map(|o| o.ptr as usize).collect();
    let mut moved = 0;
    for &load in &ops[first + 1..] {
        if ir::op_name(load) != tile_op::LOAD || stored.contains(&(ir::operand(load, 0).ptr as usize)) {
            continue;
        }
        let Some(slice) = pure_slice(load, block) else {
            continue;
        };
        for op in slice.into_iter().chain([load]) {
            if before.insert(op.ptr as usize) {
                ir::detach(op);
                ir::insert_before(anchor, op);
            }
        }
        moved += 1;
    }
    moved
}
