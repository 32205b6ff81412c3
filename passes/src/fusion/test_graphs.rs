//! Seeded random MemoryDep graphs for the strategies' tests (test builds only).

use crate::analysis::memory_deps::{MemoryDep, NodeKind, SchedGraph, SchedNode};
use fuselab_dialects::loops::index::{contiguous_index, IndexExpr};

/// A dependence on `buffer` at `index` over `ranges` (f32, contiguous).
pub(crate) fn dep(buffer: &str, index: IndexExpr, ranges: &[i64]) -> MemoryDep {
    MemoryDep {
        buffer: buffer.to_string(),
        index,
        ranges: ranges.to_vec(),
        star: false,
        elem_bytes: 4,
        buffer_bytes: 4 * ranges.iter().product::<i64>() as u64,
    }
}

/// A pointwise [8, 8] node or a row reduction reading `inputs` (node indices or
/// graph inputs as `None`).
pub(crate) fn node(i: usize, reduction: bool, inputs: &[Option<usize>], nodes: &[SchedNode]) -> SchedNode {
    let full = contiguous_index(&[8, 8]);
    let reads = inputs
        .iter()
        .map(|input| match input {
            Some(p) if nodes[*p].kind == NodeKind::Reduction => dep(&nodes[*p].name, IndexExpr::dim(0), &[8]),
            Some(p) => dep(&nodes[*p].name, full.clone(), &[8, 8]),
            None => dep("arg0_1", full.clone(), &[8, 8]),
        })
        .collect();
    let (ranges, reduction_ranges, write) = if reduction {
        (vec![8], vec![8], dep(&format!("buf{i}"), IndexExpr::dim(0), &[8]))
    } else {
        (vec![8, 8], vec![], dep(&format!("buf{i}"), full.clone(), &[8, 8]))
    };
    SchedNode {
        name: format!("buf{i}"),
        kind: if reduction {
            NodeKind::Reduction
        } else {
            NodeKind::Pointwise
        },
        ranges,
        reduction_ranges,
        reads,
        writes: vec![write],
        origins: vec![],
        loc: None,
        out_bytes: 256,
        producers: inputs.iter().flatten().copied().collect(),
        is_output: false,
        nop: false,
    }
}

/// A random graph of `n` nodes: each reads one to three of the six previous nodes
/// or the graph input, one in seven a row reduction.
pub(crate) fn random_graph(seed: u64, n: usize) -> SchedGraph {
    let mut next = crate::analysis::test_rng(seed);
    let mut nodes: Vec<SchedNode> = Vec::new();
    for i in 0..n {
        let mut inputs = vec![];
        for _ in 0..1 + next(3) {
            inputs.push(if i == 0 || next(5) == 0 {
                None
            } else {
                Some(i - 1 - next(i.min(6)))
            });
        }
        inputs.sort();
        inputs.dedup();
        nodes.push(node(i, next(7) == 0, &inputs, &nodes));
    }
    SchedGraph {
        nodes,
        inputs: vec![("arg0_1".to_string(), 256)],
        unfused: None,
    }
}

/// Asserts that `groups` partition `graph`'s nodes (each in exactly one), none over
/// `cap` members, in a topological order (no producer in a later group).
pub(crate) fn assert_acyclic_partition(graph: &SchedGraph, groups: &[Vec<usize>], cap: usize, seed: u64) {
    let mut group_of = vec![usize::MAX; graph.nodes.len()];
    for (g, members) in groups.iter().enumerate() {
        assert!(members.len() <= cap, "seed {seed}: group over the cap");
        for &m in members {
            assert_eq!(group_of[m], usize::MAX, "seed {seed}: node {m} in two groups");
            group_of[m] = g;
        }
    }
    assert!(
        group_of.iter().all(|&g| g != usize::MAX),
        "seed {seed}: a node in no group"
    );
    for (i, node) in graph.nodes.iter().enumerate() {
        for &p in &node.producers {
            assert!(
                group_of[p] <= group_of[i],
                "seed {seed}: buf{p} -> buf{i} goes backwards between groups"
            );
        }
    }
}
