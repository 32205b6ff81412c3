//! TVM's `GraphPartitioner` (src/relax/analysis/graph_partitioner.cc, shared by Relay and
//! Relax; `../shared/research/tvm_rules.md`): union-find groups over the op graph,
//! three phases of `RunFuse` in post-DFS order, each node trying to fuse into its
//! immediate post-dominator.
//!
//! Per node (skipped if its group is kOpaque or it has no post-dominator):
//! - depth limit: refuse if the ipdom's group size plus the own-group sizes of every node
//!   on the paths up to it (`CountFusedNodesWithNewChild`) exceeds `max_depth`;
//! - kOutEWiseFusable (phase 0 only): the dominance pattern must be kElemWise, and every
//!   node up to and including the sink at most kBroadcast;
//! - kElemWise / kBroadcast (phases 0, 1): dominance pattern at most kInjective or
//!   kCommReduce; intermediates at most kInjective; the sink anything but kTuple/kOpaque;
//! - kInjective / kTuple (phase 1 only): everything at most kInjective;
//! - kCommReduce never starts a fusion (only absorbed as a sink).
//!
//! `CheckPath` walks from the node's consumers to the sink testing each node's *group
//! root* pattern; `CommitFuse` merges every node on those paths into the sink's group.
//! A group's pattern becomes the max only when an anchored (kOutEWiseFusable) group is
//! merged into it, exactly as `MergeFromTo`. Phase 2 (tuples) never fires: fuselab has no
//! tuple nodes. Relax then leaves groups of one node unfused.

use super::{
    op_pattern::{OpPatternKind, TvmGraph},
    post_dominators::PostDominatorTree,
};

/// Configuration (`relax.FuseOps.max_depth`, TVM's `kMaxFusedOps`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartitionConfig {
    /// Most ops in one group.
    pub max_depth: usize,
}

/// Why a node did not fuse into its post-dominator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotFused {
    /// The node.
    pub node: usize,
    /// Its immediate post-dominator.
    pub ipdom: usize,
    /// The rule that refused it.
    pub reason: String,
}

/// The partition: `group[n]` is the representative node of `n`'s group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// Group representative of every node (arguments are their own group).
    pub group: Vec<usize>,
    /// For nodes not in their post-dominator's group, the last refusal.
    pub not_fused: Vec<NotFused>,
}

impl Partition {
    /// Groups of op nodes (arguments excluded) in order of their first node.
    pub fn groups(&self, graph: &TvmGraph) -> Vec<Vec<usize>> {
        let mut index_of_root = vec![usize::MAX; self.group.len()];
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for n in graph.param_count()..graph.nodes.len() {
            let root = self.group[n];
            if index_of_root[root] == usize::MAX {
                index_of_root[root] = groups.len();
                groups.push(Vec::new());
            }
            groups[index_of_root[root]].push(n);
        }
        groups
    }
}

struct Group {
    parent: Option<usize>,
    pattern: OpPatternKind,
    num_nodes: usize,
    anchored: bool,
}

struct Partitioner<'g> {
    graph: &'g TvmGraph,
    tree: &'g PostDominatorTree,
    groups: Vec<Group>,
    /// `visited[n] == stamp` marks a node visited in the current walk.
    visited: Vec<u32>,
    stamp: u32,
    reasons: Vec<Option<String>>,
}

impl Partitioner<'_> {
    /// The root of `g`'s group, without path compression.
    fn root_of(&self, g: usize) -> usize {
        let mut root = g;
        while let Some(p) = self.groups[root].parent {
            root = p;
        }
        root
    }

    /// `FindRoot`, compressing the path.
    fn find_root(&mut self, g: usize) -> usize {
        let root = self.root_of(g);
        let mut cur = g;
        while let Some(p) = self.groups[cur].parent {
            self.groups[cur].parent = Some(root);
            cur = p;
        }
        root
    }

    fn new_walk(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.visited.iter_mut().for_each(|v| *v = 0);
            self.stamp = 1;
        }
    }

    fn merge(&mut self, child: usize, parent: usize) {
        let (child, parent) = (self.find_root(child), self.find_root(parent));
        if child == parent {
            return;
        }
        self.groups[parent].num_nodes += self.groups[child].num_nodes;
        self.groups[child].parent = Some(parent);
        if self.groups[child].anchored {
            self.groups[parent].anchored = true;
            self.groups[parent].pattern = self.groups[parent].pattern.max(self.groups[child].pattern);
        }
    }

    /// `CheckPath`: every node reachable from `src`'s consumers up to `sink` passes
    /// `cond(root pattern, is_sink)`; returns the first failing node.
    fn check_path(
        &mut self,
        src: usize,
        sink: usize,
        cond: fn(OpPatternKind, bool) -> bool,
    ) -> Result<(), usize> {
        self.new_walk();
        let mut stack: Vec<usize> = self.graph.consumers[src].iter().rev().copied().collect();
        while let Some(n) = stack.pop() {
            if self.visited[n] == self.stamp {
                continue;
            }
            self.visited[n] = self.stamp;
            let root = self.find_root(n);
            if !cond(self.groups[root].pattern, n == sink) {
                return Err(n);
            }
            if n != sink {
                stack.extend(self.graph.consumers[n].iter().rev());
            }
        }
        Ok(())
    }

    /// The nodes on the paths from `src` (included) up to `sink` (excluded).
    fn nodes_up_to(&mut self, src: usize, sink: usize) -> Vec<usize> {
        self.new_walk();
        let mut found = Vec::new();
        let mut stack = vec![src];
        while let Some(n) = stack.pop() {
            if n == sink || self.visited[n] == self.stamp {
                continue;
            }
            self.visited[n] = self.stamp;
            found.push(n);
            stack.extend(self.graph.consumers[n].iter().rev());
        }
        found
    }

    /// `CommitFuse`: merges `src` and every node on its paths to `sink` into `sink`'s group.
    fn commit_fuse(&mut self, src: usize, sink: usize) {
        for n in self.nodes_up_to(src, sink) {
            self.merge(n, sink);
        }
    }

    /// `CountFusedNodesWithNewChild`: the sink group's size plus the own-group sizes of
    /// the nodes on the paths from `child` up to it.
    fn count_fused(&mut self, child: usize, sink: usize) -> usize {
        let root = self.find_root(sink);
        let on_paths = self.nodes_up_to(child, sink);
        self.groups[root].num_nodes + on_paths.iter().map(|&n| self.groups[n].num_nodes).sum::<usize>()
    }

    fn refuse(&mut self, node: usize, reason: String) {
        self.reasons[node] = Some(reason);
    }

    fn path_failure(&self, at: usize, rule: &str) -> String {
        let node = &self.graph.nodes[at];
        format!(
            "{} ({}) on the path is {} ({rule})",
            node.name,
            node.op,
            self.groups[self.root_of(at)].pattern.name()
        )
    }

    fn run_phase(&mut self, phase: u8, max_depth: usize) {
        use OpPatternKind::*;
        for n in 0..self.graph.nodes.len() {
            let pattern = self.groups[n].pattern;
            if pattern == Opaque {
                continue;
            }
            let Some(sink) = self.tree.parent[n] else { continue };
            let count = self.count_fused(n, sink);
            if count > max_depth {
                self.refuse(
                    n,
                    format!("the group would hold {count} ops, more than max-depth {max_depth}"),
                );
                continue;
            }
            if phase == 2 {
                continue; // Tuples only; fuselab has none.
            }
            if self.find_root(n) == self.find_root(sink) {
                continue;
            }
            let dom = self.tree.pattern[n];
            let outcome = match pattern {
                OutEWiseFusable => {
                    if phase != 0 {
                        continue;
                    }
                    if dom != ElemWise {
                        Err(format!(
                            "a kOutEWiseFusable op absorbs only elementwise consumers; the dominance pattern is {dom}"
                        ))
                    } else {
                        self.check_path(n, sink, |k, _| k <= Broadcast)
                            .map_err(|at| self.path_failure(at, "must be at most kBroadcast"))
                    }
                }
                ElemWise | Broadcast => {
                    if dom <= Injective || dom == CommReduce {
                        self.check_path(n, sink, |k, is_sink| {
                            if is_sink {
                                k <= OutEWiseFusable
                            } else {
                                k <= Injective
                            }
                        })
                        .map_err(|at| self.path_failure(at, "must be at most kInjective"))
                    } else {
                        Err(format!(
                            "an elementwise op fuses only into an injective or reduction post-dominator; \
                             the dominance pattern is {dom}"
                        ))
                    }
                }
                Injective | Tuple => {
                    if phase != 1 {
                        continue;
                    }
                    self.check_path(n, sink, |k, _| k <= Injective)
                        .map_err(|at| self.path_failure(at, "must be at most kInjective"))
                }
                CommReduce => Err("a kCommReduce op never starts a fusion".to_string()),
                Opaque => continue,
            };
            match outcome {
                Ok(()) => {
                    self.commit_fuse(n, sink);
                    self.reasons[n] = None;
                }
                Err(reason) => self.refuse(n, reason),
            }
        }
    }
}

/// Partitions `graph` (whose post-dominator tree, built with the graph's kinds, is
/// `tree`) as TVM's `GraphPartitioner::Partition`.
pub fn partition(graph: &TvmGraph, tree: &PostDominatorTree, config: PartitionConfig) -> Partition {
    let n = graph.nodes.len();
    let mut p = Partitioner {
        graph,
        tree,
        groups: graph
            .nodes
            .iter()
            .map(|node| Group {
                parent: None,
                pattern: node.kind,
                num_nodes: 1,
                anchored: node.kind == OpPatternKind::OutEWiseFusable,
            })
            .collect(),
        visited: vec![0; n],
        stamp: 0,
        reasons: vec![None; n],
    };
    for phase in 0..3 {
        p.run_phase(phase, config.max_depth);
    }
    let group: Vec<usize> = (0..n).map(|i| p.find_root(i)).collect();
    let not_fused = (0..n)
        .filter_map(|i| {
            let ipdom = tree.parent[i]?;
            let reason = p.reasons[i].clone()?;
            (group[i] != group[ipdom]).then_some(NotFused {
                node: i,
                ipdom,
                reason,
            })
        })
        .collect();
    Partition { group, not_fused }
}

/// Builds the post-dominator tree of `graph` with its kinds and partitions it.
pub fn partition_graph(graph: &TvmGraph, config: PartitionConfig) -> Partition {
    let tree = post_dominator_tree(graph);
    partition(graph, &tree, config)
}

/// The post-dominator tree of `graph` with its edges' kinds ([`TvmGraph::edge_kind`]).
pub fn post_dominator_tree(graph: &TvmGraph) -> PostDominatorTree {
    let is_output: Vec<bool> = graph.nodes.iter().map(|n| n.extern_ref).collect();
    let kinds: Vec<Vec<OpPatternKind>> = graph
        .consumers
        .iter()
        .enumerate()
        .map(|(p, cs)| cs.iter().map(|&c| graph.edge_kind(p, c)).collect())
        .collect();
    PostDominatorTree::with_patterns(&graph.consumers, &is_output, &kinds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fusion::tvm::op_pattern::TvmNode;
    use OpPatternKind::*;

    #[test]
    fn the_declared_default_is_tvms_max_depth() {
        // relax.transform.FuseOps(fuse_opt_level, max_depth=256) / relay's kMaxFusedOps.
        assert_eq!(PartitionConfig::default(), PartitionConfig { max_depth: 256 });
    }

    /// A graph from `(op, kind, producers)`; node 0 is an argument; the last is returned.
    fn graph(ops: &[(&str, OpPatternKind, &[usize])]) -> TvmGraph {
        let mut g = TvmGraph::default();
        g.nodes.push(TvmNode {
            name: "arg0_1".into(),
            op: "param".into(),
            members: vec![],
            kind: Opaque,
            extern_ref: false,
        });
        g.consumers.push(vec![]);
        for (i, (op, kind, producers)) in ops.iter().enumerate() {
            let n = g.nodes.len();
            g.nodes.push(TvmNode {
                name: format!("buf{i}"),
                op: op.to_string(),
                members: vec![i],
                kind: *kind,
                extern_ref: i + 1 == ops.len(),
            });
            g.consumers.push(vec![]);
            for &p in producers.iter() {
                g.consumers[p].push(n);
            }
        }
        g
    }

    fn group_sizes(g: &TvmGraph, config: PartitionConfig) -> Vec<usize> {
        partition_graph(g, config)
            .groups(g)
            .iter()
            .map(Vec::len)
            .collect()
    }

    /// The seed model with Relax kinds (mean = kOutEWiseFusable) and Relay kinds.
    fn seed(mean: OpPatternKind, binary: OpPatternKind) -> TvmGraph {
        graph(&[
            ("mul", binary, &[0]),    // 1: t0 = x * 1.1
            ("add", binary, &[1]),    // 2: t = t0 + bias
            ("relu", ElemWise, &[2]), // 3: a
            ("mul", binary, &[3]),    // 4: p = a * a
            ("mul", binary, &[3]),    // 5: q = a * 0.1
            ("add", binary, &[4, 5]), // 6: s
            ("mean", mean, &[6]),     // 7: m
            ("sub", binary, &[6, 7]), // 8
            ("mul", binary, &[8]),    // 9
            ("add", binary, &[9]),    // 10
        ])
    }

    #[test]
    fn seed_groups_relax_and_relay() {
        // Relax: {x*1.1 .. s}, {mean, s - m, *gamma, +beta}.
        assert_eq!(
            group_sizes(&seed(OutEWiseFusable, ElemWise), PartitionConfig::default()),
            vec![6, 4]
        );
        // Relay: mean is kCommReduce and never starts a fusion: 3 groups.
        assert_eq!(
            group_sizes(&seed(CommReduce, Broadcast), PartitionConfig::default()),
            vec![6, 1, 3]
        );
    }

    #[test]
    fn softmax_primitives_make_four_groups() {
        let g = graph(&[
            ("amax", CommReduce, &[0]),
            ("sub", ElemWise, &[0, 1]),
            ("exp", ElemWise, &[2]),
            ("sum", CommReduce, &[3]),
            ("div", ElemWise, &[3, 4]),
        ]);
        assert_eq!(group_sizes(&g, PartitionConfig::default()), vec![1, 2, 1, 1]);
    }

    #[test]
    fn elementwise_prologue_fuses_into_a_pure_reduction() {
        // x -> {sin, cos} -> add -> sum: one group.
        let g = graph(&[
            ("sin", ElemWise, &[0]),
            ("cos", ElemWise, &[0]),
            ("add", ElemWise, &[1, 2]),
            ("sum", CommReduce, &[3]),
        ]);
        assert_eq!(group_sizes(&g, PartitionConfig::default()), vec![4]);
    }

    #[test]
    fn injective_waits_for_phase_one_and_stops_at_complex_ops() {
        // transpose -> matmul (kOutEWiseFusable) -> add: the transpose stays alone (its
        // dominance pattern is kOutEWiseFusable); matmul absorbs the add.
        let g = graph(&[
            ("transpose", Injective, &[0]),
            ("matmul", OutEWiseFusable, &[0, 1]),
            ("add", ElemWise, &[2]),
        ]);
        assert_eq!(group_sizes(&g, PartitionConfig::default()), vec![1, 2]);
        // reshape -> transpose -> exp: all injective or less, one group.
        let g = graph(&[
            ("reshape", Injective, &[0]),
            ("transpose", Injective, &[1]),
            ("exp", ElemWise, &[2]),
        ]);
        assert_eq!(group_sizes(&g, PartitionConfig::default()), vec![3]);
    }

    #[test]
    fn depth_limit_splits_long_chains_as_tvm_counts() {
        let ops: Vec<(&str, OpPatternKind, Vec<usize>)> =
            (0..1000).map(|i| ("exp", ElemWise, vec![i])).collect();
        let ops: Vec<(&str, OpPatternKind, &[usize])> =
            ops.iter().map(|(o, k, p)| (*o, *k, p.as_slice())).collect();
        let g = graph(&ops);
        let sizes = group_sizes(&g, PartitionConfig { max_depth: 256 });
        assert_eq!(sizes, vec![256, 256, 256, 232]);
        assert_eq!(group_sizes(&g, PartitionConfig { max_depth: 64 }).len(), 16);
    }

    #[test]
    fn groups_are_convex_on_random_dags() {
        let mut next = crate::analysis::test_rng(7);
        let kinds = [
            ElemWise,
            Broadcast,
            Injective,
            CommReduce,
            OutEWiseFusable,
            Opaque,
        ];
        for _ in 0..200 {
            let n = 60;
            let mut ops: Vec<(&str, OpPatternKind, Vec<usize>)> = Vec::new();
            for i in 1..=n {
                let mut producers = vec![i - 1 - next(i.min(8))];
                if next(2) == 0 {
                    let p = i - 1 - next(i.min(8));
                    if !producers.contains(&p) {
                        producers.push(p);
                    }
                }
                ops.push(("op", kinds[next(kinds.len())], producers));
            }
            let ops: Vec<(&str, OpPatternKind, &[usize])> =
                ops.iter().map(|(o, k, p)| (*o, *k, p.as_slice())).collect();
            let g = graph(&ops);
            let part = partition_graph(&g, PartitionConfig::default());
            // Convex: no path leaves a group and comes back (checked by reachability
            // from each node's out-of-group consumers).
            for a in 0..g.nodes.len() {
                let mut seen = vec![false; g.nodes.len()];
                let mut stack: Vec<usize> = g.consumers[a]
                    .iter()
                    .copied()
                    .filter(|&c| part.group[c] != part.group[a])
                    .collect();
                while let Some(x) = stack.pop() {
                    if std::mem::replace(&mut seen[x], true) {
                        continue;
                    }
                    assert_ne!(part.group[x], part.group[a], "group of node {a} is not convex");
                    stack.extend(g.consumers[x].iter().copied());
                }
            }
            // At most one kOutEWiseFusable op (one anchor) per group.
            for group in part.groups(&g) {
                let anchors = group
                    .iter()
                    .filter(|&&m| g.nodes[m].kind == OutEWiseFusable)
                    .count();
                assert!(anchors <= 1, "group {group:?} has {anchors} anchors");
            }
        }
    }
}
