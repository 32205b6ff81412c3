//! Tests of the scheduler on hand-made and seeded random MemoryDep graphs.

use super::*;
use crate::fusion::test_graphs::{assert_acyclic_partition, dep, node, random_graph};
use crate::target::Generic;
use fuselab_dialects::loops::index::{contiguous_index, IndexExpr};

/// Every node lands in exactly one group, groups respect the size cap, and the group
/// order is topological (no producer in a later group): fusion never creates a cycle.
#[test]
fn plans_are_acyclic_partitions_on_random_graphs() {
    for seed in 0..200u64 {
        let graph = random_graph(seed * 7919 + 1, 60);
        let config = FusionConfig {
            max_fusion_size: 8,
            ..Default::default()
        };
        let plan = plan_fusion(&graph, config, &Generic);
        assert_acyclic_partition(&graph, &plan.groups, 8, seed);
    }
}

#[test]
fn reduction_and_its_epilogue_fuse_but_mismatched_rows_do_not() {
    let mut nodes = vec![node(0, true, &[None], &[])];
    nodes.push(node(1, false, &[None, Some(0)], &nodes));
    let graph = SchedGraph {
        nodes,
        inputs: vec![("arg0_1".to_string(), 256)],
        unfused: None,
    };
    let plan = plan_fusion(&graph, FusionConfig::default(), &Generic);
    assert_eq!(plan.groups, vec![vec![0, 1]]);
    // A pointwise node over 16 elements cannot join a (8, 8) reduction.
    let mut odd = node(1, false, &[Some(0)], &graph.nodes);
    odd.ranges = vec![4, 4];
    let graph = SchedGraph {
        nodes: vec![graph.nodes[0].clone(), odd],
        ..graph
    };
    let plan = plan_fusion(&graph, FusionConfig::default(), &Generic);
    assert_eq!(plan.groups.len(), 2);
}

/// A target that allows `max_inputs` inputs per kernel and otherwise says what
/// [`Generic`] says.
struct FewInputs(usize);

impl Target for FewInputs {
    fn name(&self) -> &'static str {
        "few-inputs"
    }
    fn summary(&self) -> &'static str {
        "test target"
    }
    fn limits(&self) -> crate::target::KernelLimits {
        crate::target::KernelLimits {
            max_inputs: Some(self.0),
            on_chip_bytes: None,
            on_chip_alignment: 0,
        }
    }
    fn costs(&self) -> crate::target::Costs {
        Generic.costs()
    }
    fn stages(&self) -> &'static [crate::target::Stage] {
        &[]
    }
}

/// A chain reading one new input per node fuses whole on the generic target, and
/// stops where the target's input limit would be exceeded.
#[test]
fn the_targets_input_limit_splits_kernels() {
    let mut nodes = vec![node(0, false, &[None], &[])];
    for i in 1..4 {
        let mut next = node(i, false, &[Some(i - 1)], &nodes);
        next.reads
            .push(dep(&format!("arg{i}_1"), contiguous_index(&[8, 8]), &[8, 8]));
        nodes.push(next);
    }
    let graph = SchedGraph {
        nodes,
        inputs: (0..4).map(|i| (format!("arg{i}_1"), 256)).collect(),
        unfused: None,
    };
    let plan = plan_fusion(&graph, FusionConfig::default(), &Generic);
    assert_eq!(plan.groups, vec![vec![0, 1, 2, 3]]);
    let plan = plan_fusion(&graph, FusionConfig::default(), &FewInputs(2));
    assert!(plan.groups.iter().all(|g| g.len() < 4), "{:?}", plan.groups);
    assert!(
        plan.rejections
            .iter()
            .any(|r| r.reason.contains("allows 2 inputs per kernel")),
        "{:?}",
        plan.rejections
    );
}

#[test]
fn vertical_deps_compare_without_unit_dims_and_normalized_across_loop_counts() {
    use super::deps::fusable_read_and_write;
    let d = IndexExpr::dim;
    // A pointwise write over [1, 16, 32] and a reduction read of it as [16] x [32].
    let write = dep("buf0", d(1).scale(32).add(&d(2)), &[1, 16, 32]);
    let read = dep("buf0", d(0).scale(32).add(&d(1)), &[16, 32]);
    assert!(fusable_read_and_write(&read, &write, true));
    assert!(fusable_read_and_write(&read, &write, false));
    // Read transposed: not the write.
    let transposed = dep("buf0", d(0).add(&d(1).scale(16)), &[16, 32]);
    assert!(!fusable_read_and_write(&transposed, &write, true));
    // Another buffer, or an offset: no.
    assert!(!fusable_read_and_write(
        &dep("buf1", d(0).scale(32).add(&d(1)), &[16, 32]),
        &write,
        true
    ));
    let shifted = dep(
        "buf0",
        d(0).scale(32).add(&d(1)).add(&IndexExpr::constant(1)),
        &[16, 32],
    );
    assert!(!fusable_read_and_write(&shifted, &write, true));
    // Over [512] against [16] x [32]: equal only normalized (loop ordering after fusion).
    let flat = dep("buf0", d(0), &[512]);
    assert!(fusable_read_and_write(&read, &flat, true));
    assert!(!fusable_read_and_write(&read, &flat, false));
}

/// Without rejections recorded (no report asked for), the decision is the same: the
/// checks skipped then (a pair over the size cap) only ever named a reason.
#[test]
fn recording_rejections_does_not_change_the_decision() {
    for seed in 0..200u64 {
        let graph = random_graph(seed * 104_729 + 3, 80);
        let recorded = FusionConfig {
            max_fusion_size: 6,
            ..Default::default()
        };
        let silent = FusionConfig {
            record_rejections: false,
            ..recorded.clone()
        };
        let (a, b) = (
            plan_fusion(&graph, recorded, &Generic),
            plan_fusion(&graph, silent, &Generic),
        );
        assert_eq!(a.groups, b.groups, "seed {seed}");
        assert!(b.rejections.is_empty(), "seed {seed}: rejections recorded anyway");
        assert!(!a.rejections.is_empty(), "seed {seed}: nothing was rejected");
    }
}
