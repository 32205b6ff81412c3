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
    /// Per group (empty: every group is a kernel): how the modelled compiler runs it,
    /// where that is not a generated kernel per call. Marked in the report and the IR;
    /// fuselab runs every group.
    pub evaluation: Vec<Evaluation>,
}

/// How the modelled compiler runs a group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Evaluation {
    /// A generated kernel, launched per call.
    #[default]
    Kernel,
    /// Computed from constants only: evaluated when the module is built (Relax's
    /// FoldConstant, `fusion/tvm/fold_constant.rs`).
    Folded,
    /// An op the compiler does not lower to a generated kernel and runs as a runtime
    /// builtin (Relax 0.27's `cumsum`, which LegalizeOps leaves a relax op).
    Builtin,
    /// Written into the function of the generated kernel before it, which runs both in
    /// one call (Inductor's C++ back end: `fusion/inductor/kernel_group.rs`): no call
    /// of its own.
    Grouped,
}

impl Evaluation {
    /// The report's and the IR's name for it (`None` for a kernel).
    pub fn name(self) -> Option<&'static str> {
        match self {
            Evaluation::Kernel => None,
            Evaluation::Folded => Some("folded"),
            Evaluation::Builtin => Some("builtin"),
            Evaluation::Grouped => Some("grouped"),
        }
    }
}

/// Why a plan cannot be applied as it stands: `fusion::apply` emits the groups in
/// their order, so every node must be in exactly one group and every producer in the
/// same group or an earlier one. A strategy that fuses across a third kernel (a
/// cycle: the fused kernel would both feed and read it) breaks the second rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanDefect {
    /// A node in no group or in two.
    NotAPartition {
        /// The node.
        node: usize,
    },
    /// `node` of group `group` reads `producer`, which a later group computes.
    ReadsLaterGroup {
        /// The group's position in the plan.
        group: usize,
        /// The reading node.
        node: usize,
        /// The node it reads.
        producer: usize,
    },
}

impl FusionPlan {
    /// The first defect that makes the plan impossible to apply to `graph`, if any
    /// (linear in the graph's edges).
    pub fn defect(&self, graph: &SchedGraph) -> Option<PlanDefect> {
        let mut group_of = vec![usize::MAX; graph.nodes.len()];
        for (g, members) in self.groups.iter().enumerate() {
            for &m in members {
                match group_of.get_mut(m) {
                    Some(slot) if *slot == usize::MAX => *slot = g,
                    _ => return Some(PlanDefect::NotAPartition { node: m }),
                }
            }
        }
        if let Some(node) = group_of.iter().position(|&g| g == usize::MAX) {
            return Some(PlanDefect::NotAPartition { node });
        }
        for (node, n) in graph.nodes.iter().enumerate() {
            let group = group_of[node];
            if let Some(&producer) = n.producers.iter().find(|&&p| group_of[p] > group) {
                return Some(PlanDefect::ReadsLaterGroup {
                    group,
                    node,
                    producer,
                });
            }
        }
        None
    }
}

/// Builders for the fusion tests: a bare node and a plan of given groups.
#[cfg(test)]
pub(crate) mod test_support {
    use super::FusionPlan;
    use crate::analysis::memory_deps::{NodeKind, SchedNode};

    /// A node `name` of `kind` over 4 elements reading `producers` (no deps).
    pub(crate) fn node(name: &str, kind: NodeKind, producers: &[usize]) -> SchedNode {
        SchedNode {
            name: name.to_string(),
            kind,
            ranges: vec![4],
            reduction_ranges: vec![],
            reads: vec![],
            writes: vec![],
            origins: vec![],
            loc: None,
            out_bytes: 16,
            producers: producers.to_vec(),
            is_output: false,
            nop: false,
        }
    }

    /// The plan of `groups`.
    pub(crate) fn plan(groups: &[&[usize]]) -> FusionPlan {
        FusionPlan {
            groups: groups.iter().map(|g| g.to_vec()).collect(),
            ..FusionPlan::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::{node, plan};
    use super::*;
    use crate::analysis::memory_deps::NodeKind;

    /// The graph of test/Transforms/AscendAutofuse/cycle.mlir: 0 = neg(y), 1 = exp(x),
    /// 2 = add(x, #0), 3 = mul(#0, #1).
    fn graph() -> SchedGraph {
        let node = |i: usize, producers: &[usize]| node(&format!("buf{i}"), NodeKind::Pointwise, producers);
        SchedGraph {
            nodes: vec![node(0, &[]), node(1, &[]), node(2, &[0]), node(3, &[0, 1])],
            ..SchedGraph::default()
        }
    }

    #[test]
    fn dependence_ordered_partitions_have_no_defect() {
        let g = graph();
        assert_eq!(plan(&[&[0], &[1], &[2], &[3]]).defect(&g), None);
        assert_eq!(plan(&[&[0], &[1, 2], &[3]]).defect(&g), None);
        assert_eq!(plan(&[&[1], &[0, 2, 3]]).defect(&g), None);
    }

    #[test]
    fn a_fusion_across_a_third_kernel_is_a_defect() {
        // {0, 3} reads #1, {1, 2} reads #0: a cycle, so either order fails.
        let g = graph();
        assert_eq!(
            plan(&[&[0, 3], &[1, 2]]).defect(&g),
            Some(PlanDefect::ReadsLaterGroup {
                group: 0,
                node: 3,
                producer: 1
            })
        );
        assert_eq!(
            plan(&[&[1, 2], &[0, 3]]).defect(&g),
            Some(PlanDefect::ReadsLaterGroup {
                group: 0,
                node: 2,
                producer: 0
            })
        );
        // Acyclic but out of order.
        assert_eq!(
            plan(&[&[3], &[0], &[1], &[2]]).defect(&g),
            Some(PlanDefect::ReadsLaterGroup {
                group: 0,
                node: 3,
                producer: 0
            })
        );
    }

    #[test]
    fn a_node_in_no_group_or_two_is_a_defect() {
        let g = graph();
        assert_eq!(
            plan(&[&[0], &[1], &[2]]).defect(&g),
            Some(PlanDefect::NotAPartition { node: 3 })
        );
        assert_eq!(
            plan(&[&[0], &[1, 2], &[2, 3]]).defect(&g),
            Some(PlanDefect::NotAPartition { node: 2 })
        );
    }
}
