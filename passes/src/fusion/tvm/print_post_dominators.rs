//! `--print-post-dominators`: prints the post-dominator tree (see `post_dominators.rs`)
//! of each function's op graph as TVM's FuseOps builds it (`op_pattern.rs`): function
//! arguments, then ops in program order (the loop nodes of one aten op are one node,
//! named after the buffer it produces); an edge goes from an op to every op that reads
//! its result and carries the consumer's pattern kind. Per node: its kind, immediate
//! post-dominator, depth, and dominance pattern. Run it after `--lower-aten-to-loop`.

use super::{op_pattern::tvm_graph_in_pass, partition::post_dominator_tree};
use crate::registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use melior::ir::OperationRef;
use std::fmt::Write as _;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "print-post-dominators",
    summary: "Print each op's immediate post-dominator and dominance pattern (TVM FuseOps' tree)",
    anchor: "func.func",
    options: &[PassOption {
        name: "mode",
        kind: OptionKind::String,
        default: "relax",
        help: "pattern kinds on the edges: 'relax' or 'relay'",
    }],
    run,
    id: &ID,
};

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let (_, graph, name) = tvm_graph_in_pass(func, cx)?;
    let tree = post_dominator_tree(&graph);
    let mut out = format!("// PostDominators of @{name}\n");
    for (i, node) in graph.nodes.iter().enumerate() {
        let parent = tree.parent[i].map_or_else(|| "<none>".to_string(), |p| graph.nodes[p].name.clone());
        let _ = writeln!(
            out,
            "{} ({}) {}: ipdom = {parent}, depth = {}, dom pattern = {}",
            node.name, node.op, node.kind, tree.depth[i], tree.pattern[i]
        );
    }
    print!("{out}");
    Ok(())
}
