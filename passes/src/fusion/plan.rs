//! The output of every fusion strategy, as plain data: which scheduler nodes share a
//! kernel ([`FusionPlan`]), which candidate pairs were refused and why ([`Rejection`]),
//! and the naming a strategy gives its kernels ([`Decision`]). `fusion::apply` turns a
//! decision into `loop.kernel` ops; `fusion::report` measures it.

use crate::analysis::memory_deps::SchedGraph;
use std::rc::Rc;

/// A candidate pair that was not fused, with the reason in the strategy's words. The
/// groups are node indices (shared with the strategy's own group lists: a scheduler
/// refuses millions of pairs on a 100k-node graph, and names are only needed when a
/// report or `--fusion-explain` prints them).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rejection {
    /// Node indices (analysis order) of the first group.
    pub node1: Rc<[usize]>,
    /// Node indices of the second group.
    pub node2: Rc<[usize]>,
    /// Why.
    pub reason: Rc<str>,
}

impl Rejection {
    /// The buffer names of `nodes` joined by commas, as reports print a group.
    pub fn names(graph: &SchedGraph, nodes: &[usize]) -> String {
        let names: Vec<&str> = nodes.iter().map(|&m| graph.nodes[m].name.as_str()).collect();
        names.join(",")
    }
}

/// The decision: groups (node indices, sorted) in topological order.
#[derive(Clone, Debug, Default)]
pub struct FusionPlan {
    /// Node indices per group; each group becomes one kernel (externs stay alone).
    pub groups: Vec<Vec<usize>>,
    /// Rejected candidate pairs, first occurrence only, sorted by node.
    pub rejections: Vec<Rejection>,
    /// Rounds the strategy ran (Inductor: `fuse_nodes_once` rounds; TVM: its phases).
    pub rounds: usize,
    /// Pointwise nodes whose loops the strategy reordered (Inductor's loop reordering
    /// after fusion), each with its order: iteration dim `k` is the node's dim
    /// `order[k]`. Applying the plan records it as the node's `loop_order`.
    pub loop_orders: Vec<(usize, Vec<usize>)>,
}

/// What a strategy decided for one function.
#[derive(Clone, Debug, Default)]
pub struct Decision {
    /// Groups of node indices (analysis order), in a topological order.
    pub plan: FusionPlan,
    /// Kernel names per group, replacing the report's `fused_<origins>_<n>`.
    pub kernel_names: Option<Vec<String>>,
    /// Leave a group of one node as a bare node instead of a `loop.kernel` (TVM).
    pub keep_single_nodes: bool,
}
