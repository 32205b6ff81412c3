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
//!
//! TVM's `LeastCommonAncestor` climbs the tree one parent at a time, which costs
//! consumers x depth for a node read by many (a weight or an input read by every layer:
//! quadratic on a 100k-node fan). The tree keeps binary-lifting tables instead (each
//! node's 2^k-th ancestor and the max pattern on the way), filled as nodes get their
//! parents: the same LCA and the same pattern, in log(depth) steps (tested against the
//! one-step walk below).

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
    /// `jump[k][n]`: `n`'s 2^k-th ancestor ([`NONE`] where there is none).
    jump: Vec<Vec<u32>>,
    /// `jump_pattern[k][n]`: the max pattern of the 2^k nodes from `n` up to
    /// `jump[k][n]` (`n` included, the ancestor not).
    jump_pattern: Vec<Vec<OpPatternKind>>,
}

/// No ancestor.
const NONE: u32 = u32::MAX;

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
        let levels = (usize::BITS - n.leading_zeros()).max(1) as usize;
        let mut tree = Self {
            parent: vec![None; n],
            depth: vec![1; n],
            pattern: vec![OpPatternKind::ElemWise; n],
            jump: vec![vec![NONE; n]; levels],
            jump_pattern: vec![vec![OpPatternKind::ElemWise; n]; levels],
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
            if let Some(p) = lca {
                tree.link(i, p);
            }
        }
        tree
    }

    /// Fills `i`'s lifting tables once its parent `p` (already linked) is known.
    fn link(&mut self, i: usize, p: usize) {
        self.jump[0][i] = p as u32;
        self.jump_pattern[0][i] = self.pattern[i];
        for k in 1..self.jump.len() {
            let mid = self.jump[k - 1][i];
            if mid == NONE || self.jump[k - 1][mid as usize] == NONE {
                break;
            }
            self.jump[k][i] = self.jump[k - 1][mid as usize];
            self.jump_pattern[k][i] = self.jump_pattern[k - 1][i].max(self.jump_pattern[k - 1][mid as usize]);
        }
    }

    /// Climbs `steps` levels from `v` (fewer than its depth), combining into `pattern`
    /// the pattern of every node climbed from.
    fn lift(&self, mut v: usize, steps: usize, pattern: &mut OpPatternKind) -> usize {
        for k in 0..self.jump.len() {
            if steps >> k & 1 == 1 {
                *pattern = (*pattern).max(self.jump_pattern[k][v]);
                v = self.jump[k][v] as usize;
            }
        }
        v
    }

    /// Least common ancestor of two nodes, or `None` if they are in different trees.
    pub fn lca(&self, a: usize, b: usize) -> Option<usize> {
        self.lca_with_pattern(a, b, &mut OpPatternKind::ElemWise)
    }

    /// The LCA, combining into `pattern` the pattern of every node climbed from (TVM's
    /// walk: the deeper node climbs to the other's depth, then both climb together; in
    /// different trees both climb to their roots and there is none).
    fn lca_with_pattern(&self, a: usize, b: usize, pattern: &mut OpPatternKind) -> Option<usize> {
        let (mut a, mut b) = match self.depth[a].cmp(&self.depth[b]) {
            std::cmp::Ordering::Greater => (self.lift(a, self.depth[a] - self.depth[b], pattern), b),
            std::cmp::Ordering::Less => (a, self.lift(b, self.depth[b] - self.depth[a], pattern)),
            std::cmp::Ordering::Equal => (a, b),
        };
        if a == b {
            return Some(a);
        }
        for k in (0..self.jump.len()).rev() {
            let (up_a, up_b) = (self.jump[k][a], self.jump[k][b]);
            if up_a != up_b {
                *pattern = (*pattern)
                    .max(self.jump_pattern[k][a])
                    .max(self.jump_pattern[k][b]);
                (a, b) = (up_a as usize, up_b as usize);
            }
        }
        *pattern = (*pattern).max(self.pattern[a]).max(self.pattern[b]);
        self.parent[a]
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

    /// TVM's walk, one parent at a time (graph_partitioner.cc `LeastCommonAncestor`),
    /// over a tree's plain fields: the reference the lifting tables must agree with.
    fn walk(
        tree: &PostDominatorTree,
        mut a: usize,
        mut b: usize,
        pattern: &mut OpPatternKind,
    ) -> Option<usize> {
        while a != b {
            if tree.depth[a] < tree.depth[b] {
                *pattern = (*pattern).max(tree.pattern[b]);
                b = tree.parent[b]?;
            } else if tree.depth[b] < tree.depth[a] {
                *pattern = (*pattern).max(tree.pattern[a]);
                a = tree.parent[a]?;
            } else {
                *pattern = (*pattern).max(tree.pattern[a]).max(tree.pattern[b]);
                a = tree.parent[a]?;
                b = tree.parent[b]?;
            }
        }
        Some(a)
    }

    /// Random DAGs with random edge kinds (outputs and consumer-less nodes making several
    /// roots): the tree built with the lifting tables equals the tree built with TVM's
    /// walk, parents and patterns, and every pair's LCA and pattern agree too (pairs in
    /// one tree and in different trees).
    #[test]
    fn lifting_agrees_with_tvms_walk() {
        use OpPatternKind::*;
        let kinds = [
            ElemWise,
            Broadcast,
            Injective,
            CommReduce,
            OutEWiseFusable,
            Opaque,
        ];
        for seed in 1..40u64 {
            let n = 20 + (seed as usize * 37) % 300;
            let (consumers, is_output) = random_dag(seed, n);
            let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let kind: Vec<Vec<OpPatternKind>> = consumers
                .iter()
                .map(|cs| {
                    cs.iter()
                        .map(|_| kinds[(next() % kinds.len() as u64) as usize])
                        .collect()
                })
                .collect();
            let tree = PostDominatorTree::with_patterns(&consumers, &is_output, &kind);
            // The same construction with the walk.
            let mut reference = PostDominatorTree::with_patterns(&consumers, &is_output, &kind);
            for i in (0..n).rev() {
                if is_output[i] || consumers[i].is_empty() {
                    continue;
                }
                let mut pattern = kind[i][0];
                let mut lca = Some(consumers[i][0]);
                for (&c, &edge) in consumers[i][1..].iter().zip(&kind[i][1..]) {
                    lca = lca.and_then(|a| walk(&reference, a, c, &mut pattern));
                    pattern = pattern.max(edge);
                }
                reference.parent[i] = lca;
                reference.depth[i] = lca.map_or(1, |p| reference.depth[p] + 1);
                reference.pattern[i] = pattern;
            }
            assert_eq!(tree.parent, reference.parent, "seed {seed}");
            assert_eq!(tree.pattern, reference.pattern, "seed {seed}");
            for _ in 0..200 {
                let (a, b) = ((next() % n as u64) as usize, (next() % n as u64) as usize);
                let (mut lifted, mut walked) = (ElemWise, ElemWise);
                assert_eq!(
                    tree.lca_with_pattern(a, b, &mut lifted),
                    walk(&tree, a, b, &mut walked),
                    "seed {seed}: lca({a}, {b})"
                );
                assert_eq!(lifted, walked, "seed {seed}: pattern of lca({a}, {b})");
            }
        }
    }
}
