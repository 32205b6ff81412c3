//! Which ops prefer a channels-last layout under Inductor's layout optimization
//! (torch/_inductor/graph.py `find_nodes_prefer_channels_last`): every convolution; then,
//! walking the graph backwards, every op one of whose users prefers it (an op reading a
//! convolution's input, however indirectly); then, walking forwards up to the last
//! convolution, every user of an op that prefers it. A `bmm` neither joins nor passes
//! the preference on (`nodes_cannot_propagate`). A 4-D buffer of such an op that
//! Inductor realizes because it is reused or reads too much is stored channels-last
//! (`maybe_apply_channels_last_stride_order` in `GraphLowering.run_node`): the
//! `--inline-pointwise` pass applies that.
//!
//! The set is computed over plain data ([`prefer_channels_last`]); [`of_block`] builds
//! that data from a function's top-level loop ops. Layout optimization is on when a
//! convolution extern stores a channels-last result (`result_order`, written by
//! `--lower-aten-to-loop` where the target converts convolutions).

use fuselab_dialects::ir;
use fuselab_dialects::loops::{attr, names, ExternKind};
use mlir_sys::{MlirBlock, MlirOperation};
use std::collections::{HashMap, HashSet};

/// An op of the graph, in program order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphOp {
    /// What the op is, for the rule.
    pub kind: OpKind,
    /// The positions of the ops that read its result.
    pub users: Vec<usize>,
}

/// The op kinds the rule tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// A convolution (prefers channels-last).
    Convolution,
    /// A batched matmul (does not propagate the preference).
    Bmm,
    /// Anything else.
    Other,
}

/// Per op (program order), whether it prefers channels-last.
pub fn prefer_channels_last(ops: &[GraphOp]) -> Vec<bool> {
    let mut prefer = vec![false; ops.len()];
    let mut last_conv = None;
    for (i, op) in ops.iter().enumerate().rev() {
        match op.kind {
            OpKind::Convolution => {
                prefer[i] = true;
                last_conv = last_conv.or(Some(i));
            }
            OpKind::Bmm => {}
            OpKind::Other => prefer[i] = op.users.iter().any(|&u| prefer[u]),
        }
    }
    let Some(last_conv) = last_conv else {
        return prefer;
    };
    for i in 0..last_conv {
        if prefer[i] {
            for &u in &ops[i].users {
                if ops[u].kind != OpKind::Bmm {
                    prefer[u] = true;
                }
            }
        }
    }
    prefer
}

/// The top-level `loop` ops of `block` that prefer channels-last (none when no
/// convolution extern stores a channels-last result: layout optimization is off).
pub fn of_block(block: MlirBlock) -> HashSet<usize> {
    let ops: Vec<MlirOperation> = ir::block_ops(block);
    let position: HashMap<usize, usize> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| (op.ptr as usize, i))
        .collect();
    let extern_kind = |op: MlirOperation| {
        (ir::op_name(op) == names::EXTERN)
            .then(|| fuselab_dialects::loops::extern_kind(op))
            .flatten()
    };
    let layout_opt = ops.iter().any(|&op| {
        extern_kind(op) == Some(ExternKind::Convolution) && ir::attr(op, attr::RESULT_ORDER).is_some()
    });
    if !layout_opt {
        return HashSet::new();
    }
    let graph: Vec<GraphOp> = ops
        .iter()
        .map(|&op| {
            let kind = match extern_kind(op) {
                Some(ExternKind::Convolution) => OpKind::Convolution,
                Some(ExternKind::Bmm) => OpKind::Bmm,
                _ => OpKind::Other,
            };
            let mut users: Vec<usize> = (0..ir::result_count(op))
                .flat_map(|r| ir::users(ir::result(op, r)))
                .filter_map(|user| {
                    position
                        .get(&(ir::ancestor_in(user, block).ptr as usize))
                        .copied()
                })
                .collect();
            users.sort_unstable();
            users.dedup();
            GraphOp { kind, users }
        })
        .collect();
    prefer_channels_last(&graph)
        .into_iter()
        .zip(&ops)
        .filter(|(prefer, _)| *prefer)
        .map(|(_, op)| op.ptr as usize)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(kind: OpKind, users: &[usize]) -> GraphOp {
        GraphOp {
            kind,
            users: users.to_vec(),
        }
    }

    #[test]
    fn conv_chain_prefers_channels_last_up_to_the_last_conv() {
        use OpKind::*;
        // 0 input copy -> 1 conv -> 2 bn -> 3 relu -> 4 conv -> 5 add -> 6 mean
        // 7 a side computation read by nothing.
        let ops = [
            op(Other, &[1]),
            op(Convolution, &[2]),
            op(Other, &[3]),
            op(Other, &[4, 5]),
            op(Convolution, &[5]),
            op(Other, &[6]),
            op(Other, &[]),
            op(Other, &[]),
        ];
        // Backwards: 3 (reads into conv 4), 2, 0; forwards up to conv 4: users of 1, 2, 3
        // — 5 joins as a user of 3; after the last conv nothing is added, so 6 stays out.
        assert_eq!(
            prefer_channels_last(&ops),
            [true, true, true, true, true, true, false, false]
        );
    }

    #[test]
    fn bmm_stops_the_preference() {
        use OpKind::*;
        // 0 -> 1 bmm -> 3 conv; 2 -> 3 too; 3 -> 4 -> 5 conv, 3 -> 6 bmm.
        let ops = [
            op(Other, &[1]),
            op(Bmm, &[3]),
            op(Other, &[3]),
            op(Convolution, &[4, 6]),
            op(Other, &[5]),
            op(Convolution, &[]),
            op(Bmm, &[]),
        ];
        // The bmm does not join backwards, so 0 (read only by it) does not either; the
        // bmm user of conv 3 is not added forwards.
        assert_eq!(
            prefer_channels_last(&ops),
            [false, false, true, true, true, true, false]
        );
    }

    #[test]
    fn no_convolution_no_preference() {
        let ops = [op(OpKind::Other, &[1]), op(OpKind::Other, &[])];
        assert_eq!(prefer_channels_last(&ops), [false, false]);
    }
}
