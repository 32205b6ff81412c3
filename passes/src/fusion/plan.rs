//! The output of every fusion strategy, as plain data: which scheduler nodes share a
//! kernel ([`FusionPlan`]), which candidate pairs were refused and why ([`Rejection`]),
//! and the naming a strategy gives its kernels ([`Decision`]). `fusion::apply` turns a
//! decision into `loop.kernel` ops; `fusion::report` measures it.

/// A candidate pair that was not fused, with the reason in the strategy's words.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rejection {
    /// Buffer names of the first group.
    pub node1: Vec<String>,
    /// Buffer names of the second group.
    pub node2: Vec<String>,
    /// Why.
    pub reason: String,
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
