//! MindSpore's splitter against its literal rescans, on seeded graphs and a wide fan-out.

use super::*;
use crate::analysis::memory_deps::MemoryDep;
use fuselab_dialects::loops::index::contiguous_index;

/// MindSpore's `fuse` as written: after each fusion the scan starts again from the
/// first area.
fn fuse_rescanning<'g>(s: &mut Splitter<'g>, pattern: Pattern<'g>) -> bool {
    let mut changed = false;
    'scan: loop {
        let order: Vec<usize> = s.areas.keys().copied().collect();
        for dom in order {
            let Some((mut areas, forward)) = pattern(s, dom) else {
                continue;
            };
            s.limit_area_size(dom, &mut areas);
            if areas.is_empty() {
                continue;
            }
            if forward {
                for a in areas {
                    s.absorb(dom, a);
                }
            } else {
                let mut inner = dom;
                for a in areas {
                    s.absorb(a, inner);
                    inner = a;
                }
            }
            changed = true;
            continue 'scan;
        }
        return changed;
    }
}

/// A seeded graph of every area type: pointwise ops (elementwise, broadcasting
/// reads, reshapes, expands, opaque copies) over two shapes, row reductions and
/// matmuls, each reading up to three of the eight nodes before it.
fn random_graph(seed: u64, n: usize) -> SchedGraph {
    let mut next = crate::analysis::test_rng(seed);
    let mut nodes: Vec<SchedNode> = Vec::new();
    for i in 0..n {
        let (kind, origin) = match next(10) {
            0 => (NodeKind::Extern, ["mm", "bmm"][next(2)]),
            1 | 2 => (NodeKind::Reduction, "sum"),
            _ => (
                NodeKind::Pointwise,
                ["add", "mul", "exp", "expand", "view", "cat"][next(6)],
            ),
        };
        let ranges = if kind == NodeKind::Reduction || next(4) == 0 {
            vec![16]
        } else {
            vec![16, 16]
        };
        let mut producers: Vec<usize> = (0..next(4))
            .filter(|_| i > 0)
            .map(|_| i - 1 - next(i.min(8)))
            .collect();
        producers.sort_unstable();
        producers.dedup();
        let reads = producers
            .iter()
            .map(|&p| {
                let elements: i64 = nodes[p].ranges.iter().product();
                MemoryDep {
                    buffer: nodes[p].name.clone(),
                    index: contiguous_index(&nodes[p].ranges),
                    ranges: nodes[p].ranges.clone(),
                    star: false,
                    elem_bytes: 4,
                    buffer_bytes: 4 * elements as u64,
                }
            })
            .collect();
        nodes.push(SchedNode {
            name: format!("buf{i}"),
            kind,
            reduction_ranges: if kind == NodeKind::Reduction {
                vec![16]
            } else {
                vec![]
            },
            out_bytes: 4 * ranges.iter().product::<i64>() as u64,
            ranges,
            reads,
            writes: vec![],
            origins: vec![origin.to_string()],
            loc: None,
            producers,
            is_output: i + 1 == n || next(10) == 0,
            nop: false,
        });
    }
    SchedGraph {
        nodes,
        inputs: vec![],
        unfused: None,
    }
}

/// A wide fan-out: node 0 read by `k` elementwise readers, which a chain adds up
/// (`fuse-bench`'s `fan` graph).
fn fan_graph(k: usize) -> SchedGraph {
    let mut nodes: Vec<SchedNode> = Vec::new();
    let add = |producers: Vec<usize>, nodes: &mut Vec<SchedNode>| {
        let i = nodes.len();
        let reads = producers
            .iter()
            .map(|&p: &usize| MemoryDep {
                buffer: format!("buf{p}"),
                index: contiguous_index(&[16, 16]),
                ranges: vec![16, 16],
                star: false,
                elem_bytes: 4,
                buffer_bytes: 1024,
            })
            .collect();
        nodes.push(SchedNode {
            name: format!("buf{i}"),
            kind: NodeKind::Pointwise,
            reduction_ranges: vec![],
            out_bytes: 1024,
            ranges: vec![16, 16],
            reads,
            writes: vec![],
            origins: vec!["add".to_string()],
            loc: None,
            producers,
            is_output: false,
            nop: false,
        });
    };
    add(vec![], &mut nodes);
    for _ in 0..k {
        add(vec![0], &mut nodes);
    }
    let mut sum = 1;
    for r in 2..=k {
        add(vec![sum, r], &mut nodes);
        sum = nodes.len() - 1;
    }
    nodes[sum].is_output = true;
    SchedGraph {
        nodes,
        inputs: vec![],
        unfused: None,
    }
}

/// On a fan-out wider than an area holds, the areas hit the 200-node cap: skipping
/// the cycle tests of areas the cap drops anyway (no report) decides the same.
#[test]
fn a_fan_out_over_the_area_cap_decides_as_rescanning() {
    let graph = fan_graph(700);
    let slow = plan_with(&graph, fuse_rescanning, true);
    assert!(slow.groups.iter().any(|g| g.len() > 150), "no area near the cap");
    for record in [true, false] {
        let fast = plan_with(&graph, Splitter::fuse, record);
        assert_eq!(fast.groups, slow.groups, "record {record}: groups differ");
        assert_eq!(fast.rounds, slow.rounds, "record {record}: rounds differ");
    }
}

/// Asking again only the areas that changed or neighbour a change, smallest first,
/// decides as MindSpore's rescans: same areas, same refusals and reasons, same
/// rounds, on 300 seeded graphs (up to 400 nodes: areas reach the 200-node cap);
/// without refusals recorded (areas over the cap not tested for cycles), the same
/// areas and rounds.
#[test]
fn skipping_unchanged_areas_decides_as_rescanning() {
    for seed in 0..300u64 {
        let graph = random_graph(seed * 104_729 + 7, if seed % 10 == 0 { 400 } else { 60 });
        let fast = plan_with(&graph, Splitter::fuse, true);
        let slow = plan_with(&graph, fuse_rescanning, true);
        assert_eq!(fast.groups, slow.groups, "seed {seed}: groups differ");
        assert_eq!(fast.rejections, slow.rejections, "seed {seed}: refusals differ");
        assert_eq!(fast.rounds, slow.rounds, "seed {seed}: rounds differ");
        let silent = plan_with(&graph, Splitter::fuse, false);
        assert_eq!(
            silent.groups, slow.groups,
            "seed {seed}: unrecorded groups differ"
        );
        assert_eq!(
            silent.rounds, slow.rounds,
            "seed {seed}: unrecorded rounds differ"
        );
        assert!(silent.rejections.is_empty(), "seed {seed}: recorded anyway");
    }
}
