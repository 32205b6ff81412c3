//! Post-dominator tree of a dataflow graph, as TVM's FuseOps builds it
//! (src/relax/analysis/graph_partitioner.cc `DominatorTree::PostDom`; seed 000 §9;
//! `../shared/research/tvm_rules.md`).
//!
//! Nodes are given in a topological order (producers first) with their consumers. One
//! pass in reverse topological order: a function output (TVM's `extern_ref`) has no
//! parent, so nothing fuses *through* it; a node without consumers has no parent;
//! otherwise the immediate post-dominator is the least common ancestor of its
//! consumers in the tree built so far. Plain data, reused by the TVM strategy.
//!
//! Each node also gets TVM's *dominance pattern*: the max of the pattern of every edge to
//! a consumer (an edge carries the consumer's kind) and of the pattern of every tree node
//! the LCA walk climbs from. FuseOps uses it to decide whether a node may fuse into its
//! post-dominator (e.g. kOutEWiseFusable ops need it to be kElemWise).

use super::op_pattern::OpPatternKind;

/// The tree: `parent[n]` is `n`'s immediate post-dominator (`None` at a root).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostDominatorTree {
    /// Immediate post-dominator of each node.
    pub parent: Vec<Option<usize>>,
    /// Depth in the tree (roots have depth 1), as TVM counts it.
    pub depth: Vec<usize>,
    /// Dominance pattern of each node (kOpaque at function outputs, as in TVM).
    pub pattern: Vec<OpPatternKind>,
}

impl PostDominatorTree {
    /// Builds the tree for nodes `0..n` in topological order with `consumers[i]` and
    /// `is_output[i]` (returned from the function); every edge is elementwise.
    pub fn new(consumers: &[Vec<usize>], is_output: &[bool]) -> Self {
        let kinds: Vec<Vec<OpPatternKind>> = consumers
            .iter()
            .map(|cs| vec![OpPatternKind::ElemWise; cs.len()])
            .collect();
        Self::with_patterns(consumers, is_output, &kinds)
    }

    /// As [`Self::new`], with `kind[p][i]` the pattern of the edge from `p` to its
    /// consumer `consumers[p][i]`.
    pub fn with_patterns(consumers: &[Vec<usize>], is_output: &[bool], kind: &[Vec<OpPatternKind>]) -> Self {
        let n = consumers.len();
        let mut tree = Self {
            parent: vec![None; n],
            depth: vec![1; n],
            pattern: vec![OpPatternKind::ElemWise; n],
        };
        for i in (0..n).rev() {
            if is_output[i] {
                tree.pattern[i] = OpPatternKind::Opaque;
                continue;
            }
            let Some((&first, rest)) = consumers[i].split_first() else {
                continue;
            };
            let mut pattern = kind[i][0];
            let mut lca = Some(first);
            for (&c, &edge) in rest.iter().zip(&kind[i][1..]) {
                lca = lca.and_then(|a| tree.lca_with_pattern(a, c, &mut pattern));
                pattern = pattern.max(edge);
            }
            tree.parent[i] = lca;
            tree.depth[i] = lca.map_or(1, |p| tree.depth[p] + 1);
            tree.pattern[i] = pattern;
        }
        tree
    }

    /// Least common ancestor of two nodes, or `None` if they are in different trees.
    pub fn lca(&self, a: usize, b: usize) -> Option<usize> {
        self.lca_with_pattern(a, b, &mut OpPatternKind::ElemWise)
    }

    /// The LCA, combining into `pattern` the pattern of every node climbed from.
    fn lca_with_pattern(&self, mut a: usize, mut b: usize, pattern: &mut OpPatternKind) -> Option<usize> {
        while a != b {
            if self.depth[a] < self.depth[b] {
                *pattern = (*pattern).max(self.pattern[b]);
                b = self.parent[b]?;
            } else if self.depth[b] < self.depth[a] {
                *pattern = (*pattern).max(self.pattern[a]);
                a = self.parent[a]?;
            } else {
                *pattern = (*pattern).max(self.pattern[a]).max(self.pattern[b]);
                a = self.parent[a]?;
                b = self.parent[b]?;
            }
        }
        Some(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference: post-dominator sets by data flow over bitsets, with a virtual sink
    /// after every output and every node without consumers; the immediate
    /// post-dominator is the strict post-dominator with the most post-dominators
    /// itself (the nearest), unless only the sink remains.
    fn brute_force(consumers: &[Vec<usize>], is_output: &[bool]) -> Vec<Option<usize>> {
        let n = consumers.len();
        let words = (n + 1).div_ceil(64);
        let sink = n;
        let mut pd: Vec<Vec<u64>> = vec![vec![0; words]; n + 1];
        pd[sink][sink / 64] |= 1 << (sink % 64);
        for i in (0..n).rev() {
            let mut succ: Vec<usize> = consumers[i].clone();
            if is_output[i] || succ.is_empty() {
                succ.push(sink);
            }
            let mut acc = vec![!0u64; words];
            for s in succ {
                for w in 0..words {
                    acc[w] &= pd[s][w];
                }
            }
            acc[i / 64] |= 1 << (i % 64);
            pd[i] = acc;
        }
        let count = |v: &Vec<u64>| v.iter().map(|w| w.count_ones()).sum::<u32>();
        (0..n)
            .map(|i| {
                (0..n)
                    .filter(|&m| m != i && pd[i][m / 64] >> (m % 64) & 1 == 1)
                    .max_by_key(|&m| count(&pd[m]))
            })
            .collect()
    }

    fn random_dag(seed: u64, n: usize) -> (Vec<Vec<usize>>, Vec<bool>) {
        let mut next = crate::analysis::test_rng(seed);
        let mut consumers = vec![Vec::new(); n];
        for i in 1..n {
            for _ in 0..1 + next(3) {
                let p = i - 1 - next(i.min(12));
                if !consumers[p].contains(&i) {
                    consumers[p].push(i);
                }
            }
        }
        let is_output = (0..n).map(|i| i + 1 == n || next(50) == 0).collect();
        (consumers, is_output)
    }

    #[test]
    fn matches_brute_force_on_a_10k_random_dag() {
        let (consumers, is_output) = random_dag(42, 10_000);
        let tree = PostDominatorTree::new(&consumers, &is_output);
        assert_eq!(tree.parent, brute_force(&consumers, &is_output));
    }

    #[test]
    fn matches_brute_force_on_many_small_dags() {
        for seed in 1..300u64 {
            let (consumers, is_output) = random_dag(seed, 40);
            let tree = PostDominatorTree::new(&consumers, &is_output);
            assert_eq!(tree.parent, brute_force(&consumers, &is_output), "seed {seed}");
        }
    }

    #[test]
    fn diamonds_chains_and_outputs() {
        // 0 -> {1, 2} -> 3 -> 4 (output); 3 is also used by 5 (output).
        let consumers = vec![vec![1, 2], vec![3], vec![3], vec![4, 5], vec![], vec![]];
        let is_output = vec![false, false, false, false, true, true];
        let tree = PostDominatorTree::new(&consumers, &is_output);
        // A node with two outputs as consumers has no post-dominator (outputs are roots).
        assert_eq!(tree.parent, vec![Some(3), Some(3), Some(3), None, None, None]);
        // Nothing is post-dominated *through* an output: 0 -> 1 (output) -> 2.
        let tree = PostDominatorTree::new(&[vec![1], vec![2], vec![]], &[false, true, true]);
        assert_eq!(tree.parent, vec![Some(1), None, None]);
    }

    /// Every edge into `c` with the kind `kind[c]`.
    fn into(consumers: &[Vec<usize>], kind: &[OpPatternKind]) -> Vec<Vec<OpPatternKind>> {
        consumers
            .iter()
            .map(|cs| cs.iter().map(|&c| kind[c]).collect())
            .collect()
    }

    #[test]
    fn an_edge_kind_of_its_own_counts_for_its_producer_only() {
        use OpPatternKind::*;
        // conv (0) -> add (1, kBroadcast) -> out (2); 3 -> add too. Relay's same-shape
        // rule makes 0 -> 1 kElemWise; 3 -> 1 stays kBroadcast.
        let consumers = vec![vec![1], vec![2], vec![], vec![1]];
        let kind = vec![vec![ElemWise], vec![ElemWise], vec![], vec![Broadcast]];
        let tree = PostDominatorTree::with_patterns(&consumers, &[false, false, true, false], &kind);
        assert_eq!(tree.pattern[0], ElemWise);
        assert_eq!(tree.pattern[3], Broadcast);
    }

    #[test]
    fn dominance_pattern_is_max_over_edges_and_climbed_nodes() {
        use OpPatternKind::*;
        // The seed shape: s -> {mean, sub}, mean -> sub, sub -> out (output).
        // Edges carry the consumer's kind: mean is kOutEWiseFusable (Relax).
        let consumers = vec![vec![1, 2], vec![2], vec![3], vec![]];
        let kind = into(&consumers, &[ElemWise, OutEWiseFusable, ElemWise, ElemWise]);
        let tree = PostDominatorTree::with_patterns(&consumers, &[false, false, false, true], &kind);
        assert_eq!(tree.parent, vec![Some(2), Some(2), Some(3), None]);
        assert_eq!(tree.pattern, vec![OutEWiseFusable, ElemWise, ElemWise, Opaque]);
        // A climbed node's own dominance pattern counts: 0 -> {1, 3}, 1 -> 2 (kCommReduce)
        // -> 3; climbing from 1 adds the pattern of edge 1 -> 2.
        let consumers = vec![vec![1, 3], vec![2], vec![3], vec![]];
        let kind = into(&consumers, &[ElemWise, ElemWise, CommReduce, ElemWise]);
        let tree = PostDominatorTree::with_patterns(&consumers, &[false, false, false, true], &kind);
        assert_eq!(tree.parent[0], Some(3));
        assert_eq!(tree.pattern[0], CommReduce);
    }
}
