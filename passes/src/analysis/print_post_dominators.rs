//! `--print-post-dominators`: prints the post-dominator tree (see `post_dominators.rs`)
//! of each function's dataflow graph: function arguments, then `loop` nodes and externs
//! in program order; an edge goes from a buffer to every node that reads it. Run it
//! after `--lower-aten-to-loop` (one node per aten op, as TVM's bindings) or later.

use super::{memory_deps::analyze_in_pass, post_dominators::PostDominatorTree};
use crate::registry::{PassContext, PassFailed, PassId, PassInfo};
use melior::ir::OperationRef;
use std::{collections::HashMap, fmt::Write as _};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "print-post-dominators",
    summary: "Print each node's immediate post-dominator in the dataflow graph (TVM FuseOps' tree)",
    anchor: "func.func",
    options: &[],
    run,
    id: &ID,
};

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let (graph, name) = analyze_in_pass(func, cx)?;
    let mut names: Vec<String> = graph.inputs.iter().map(|(n, _)| n.clone()).collect();
    names.extend(graph.nodes.iter().map(|n| n.name.clone()));
    let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    let mut consumers = vec![Vec::new(); names.len()];
    let mut is_output = vec![false; names.len()];
    let first_node = graph.inputs.len();
    for (j, node) in graph.nodes.iter().enumerate() {
        is_output[first_node + j] = node.is_output;
        for dep in &node.reads {
            if let Some(&p) = index.get(dep.buffer.as_str()) {
                if !consumers[p].contains(&(first_node + j)) {
                    consumers[p].push(first_node + j);
                }
            }
        }
    }
    let tree = PostDominatorTree::new(&consumers, &is_output);
    let mut out = format!("// PostDominators of @{name}\n");
    for (i, n) in names.iter().enumerate() {
        let parent = tree.parent[i].map_or_else(|| "<none>".to_string(), |p| names[p].clone());
        let origins = if i >= first_node {
            graph.nodes[i - first_node].origins.join(",")
        } else {
            "param".to_string()
        };
        let _ = writeln!(
            out,
            "{n} ({origins}): ipdom = {parent}, depth = {}",
            tree.depth[i]
        );
    }
    print!("{out}");
    Ok(())
}
