//! CANN GE AutoFuse's fusion decision as plain data (`../shared/research/spyre_ascend.md`,
//! "Ascend"; seed 004). Like Inductor's scheduler it fuses greedily in rounds, but with
//! GE's candidate rules and order:
//! - up to `max_rounds` rounds (10); a round that fuses nothing ends the loop;
//! - candidates are pairs of groups that share a buffer: **vertical** (one writes a
//!   buffer the other reads) or **horizontal** (both read the same buffer);
//! - rejected: the same group ("self"); an extern (cube) op; a node whose fusion pass is
//!   switched off ([`PassSet`]: reduce, concat, slice, gather, transpose are off by
//!   default); memory score 0 (no bytes shared); a pair the target's legality refuses
//!   ("vertical/horizontal not allowed by the target"); a horizontal-only pair more
//!   than `max_proximity` (64) apart in program order (GE's peak-memory guard); more than
//!   `max_nodes` (64) nodes or `max_inputs` (8; 14 on the A5 generation) distinct inputs
//!   in the fused kernel; a kernel whose smallest tile does not fit the target's
//!   on-chip memory ([`fits_on_chip`]: the Ascend target's Unified Buffer); a fusion
//!   that would create a cycle;
//! - order: the target's priority (descending, [`Target::fusion_priority`]), memory score
//!   (bytes shared, descending), proximity (ascending), then program order.
//!
//! The memory score counts whole buffers (bytes of each shared buffer once), not
//! Inductor's per-index MemoryDeps; proximity is the distance of the groups' program
//! positions, `max(|min1 - max2|, |min2 - max1|)` (Inductor's `proximity_score`).

use crate::{
    analysis::memory_deps::{NodeKind, SchedGraph, SchedNode},
    fusion::{group_order::GroupOrder, plan::FusionPlan},
    target::{fits_on_chip, GroupShape, Refusal, Target},
};
use std::{
    cell::RefCell,
    collections::{BTreeMap, BTreeSet},
};

/// GE AutoFuse's fusion passes: the node kinds a switch turns on or off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FusionPass {
    /// Elementwise ops (always on).
    Elementwise,
    /// Broadcasts, reshapes and other pointwise copies (always on).
    Broadcast,
    /// Reductions.
    Reduce,
    /// `cat` / `stack`.
    Concat,
    /// `slice` / `select` / `narrow`.
    Slice,
    /// `gather` / `index` / `embedding`.
    Gather,
    /// `transpose` / `permute`.
    Transpose,
}

impl FusionPass {
    /// Every pass, in GE's switch order.
    pub const ALL: [FusionPass; 7] = [
        FusionPass::Elementwise,
        FusionPass::Broadcast,
        FusionPass::Reduce,
        FusionPass::Concat,
        FusionPass::Slice,
        FusionPass::Gather,
        FusionPass::Transpose,
    ];

    /// The name in `--autofuse_enable_pass=` lists.
    pub fn name(self) -> &'static str {
        match self {
            FusionPass::Elementwise => "elementwise",
            FusionPass::Broadcast => "broadcast",
            FusionPass::Reduce => "reduce",
            FusionPass::Concat => "concat",
            FusionPass::Slice => "slice",
            FusionPass::Gather => "gather",
            FusionPass::Transpose => "transpose",
        }
    }

    /// The pass of `name`.
    pub fn from_name(name: &str) -> Option<FusionPass> {
        FusionPass::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether a switch may turn it off (elementwise and broadcast fusion cannot be
    /// disabled).
    pub fn can_disable(self) -> bool {
        !matches!(self, FusionPass::Elementwise | FusionPass::Broadcast)
    }

    /// The pass a node belongs to: reductions are `reduce`; a pointwise node by its aten
    /// origins (the data-movement ops first, then copies as `broadcast`).
    pub fn of(node: &SchedNode) -> FusionPass {
        if node.kind == NodeKind::Reduction {
            return FusionPass::Reduce;
        }
        let has = |names: &[&str]| node.origins.iter().any(|o| names.contains(&o.as_str()));
        if has(&["cat", "concat", "stack"]) {
            FusionPass::Concat
        } else if has(&["gather", "index", "index_select", "embedding"]) {
            FusionPass::Gather
        } else if has(&["slice", "select", "narrow", "split", "chunk"]) {
            FusionPass::Slice
        } else if has(&["transpose", "permute", "t"]) {
            FusionPass::Transpose
        } else if has(&[
            "expand",
            "broadcast_to",
            "view",
            "reshape",
            "unsqueeze",
            "squeeze",
            "clone",
            "copy",
        ]) {
            FusionPass::Broadcast
        } else {
            FusionPass::Elementwise
        }
    }
}

/// The fusion passes switched on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassSet(pub BTreeSet<FusionPass>);

impl Default for PassSet {
    /// GE's default: elementwise and broadcast only.
    fn default() -> Self {
        PassSet(
            [FusionPass::Elementwise, FusionPass::Broadcast]
                .into_iter()
                .collect(),
        )
    }
}

/// The decision's parameters (the pass options).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutoFuseConfig {
    /// Rounds at most (10).
    pub max_rounds: usize,
    /// Nodes per fused kernel at most (`max_fusion_size`, 64).
    pub max_nodes: usize,
    /// Distinct inputs per fused kernel at most (8 on A2/A3, 14 on A5).
    pub max_inputs: usize,
    /// Program-order distance of a horizontal pair at most (64).
    pub max_proximity: usize,
    /// `false`: no fusion at all (`--enable_autofuse=false`, the debug switch).
    pub enabled: bool,
    /// The fusion passes on.
    pub passes: PassSet,
    /// Whether refused pairs are recorded (for a report); never changes the decision.
    pub record_rejections: bool,
}

/// One group while deciding.
#[derive(Clone, Debug)]
struct Group {
    members: Vec<usize>,
    min_order: usize,
    max_order: usize,
    /// Buffers read from outside the group.
    reads: BTreeSet<usize>,
    /// Buffers the members write.
    writes: BTreeSet<usize>,
    is_extern: bool,
    reduction: Option<(i64, i64)>,
    numel: i64,
    /// The first member (in program order) whose fusion pass is switched off.
    disabled: Option<usize>,
}

/// Why GE refuses a pair (formatted only where it is recorded).
#[derive(Clone, Debug)]
enum Refused {
    SelfPair,
    Extern,
    PassOff(FusionPass),
    NoBytes,
    Target { vertical: bool, refusal: Refusal },
    Proximity { proximity: usize, max: usize },
    Nodes { nodes: usize, max: usize },
    Inputs { inputs: usize, max: usize },
    OnChip(Refusal),
    Cycle,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::SelfPair => write!(f, "self: a node is not fused with itself"),
            Refused::Extern => write!(f, "extern (cube) op: not an AutoFuse candidate"),
            Refused::PassOff(pass) => write!(
                f,
                "{} fusion is off (--autofuse_enable_pass={} turns it on)",
                pass.name(),
                pass.name()
            ),
            Refused::NoBytes => write!(f, "memory score 0: no bytes shared"),
            Refused::Target { vertical, refusal } => {
                let kind = if *vertical { "vertical" } else { "horizontal" };
                write!(f, "{kind} fusion not allowed by the target: {refusal}")
            }
            Refused::Proximity { proximity, max } => {
                write!(f, "horizontal fusion with proximity {proximity} > {max}")
            }
            Refused::Nodes { nodes, max } => {
                write!(f, "fused kernel of {nodes} nodes > max_fusion_size {max}")
            }
            Refused::Inputs { inputs, max } => write!(f, "fused kernel of {inputs} inputs > {max}"),
            Refused::OnChip(refusal) => write!(f, "{refusal}"),
            Refused::Cycle => write!(f, "fusion would create a cycle"),
        }
    }
}

/// A candidate pair (a member node of each group) with its sort keys.
#[derive(Clone, Debug)]
struct Candidate {
    a: usize,
    b: usize,
    priority: i64,
    score: u64,
    proximity: usize,
}

struct Decider<'g> {
    graph: &'g SchedGraph,
    config: &'g AutoFuseConfig,
    target: &'g dyn Target,
    /// Buffer ids: graph inputs then nodes' buffers.
    bytes: Vec<u64>,
    /// Consumers of each node (indices of nodes reading its buffer).
    consumers: Vec<Vec<usize>>,
    /// Each node's fusion pass.
    pass: Vec<FusionPass>,
    groups: Vec<Option<Group>>,
    group_of: Vec<usize>,
    rejections: BTreeMap<(Vec<usize>, Vec<usize>), String>,
    /// A topological order of the live groups, for the cycle test.
    order: RefCell<GroupOrder>,
}

impl<'g> Decider<'g> {
    fn new(graph: &'g SchedGraph, config: &'g AutoFuseConfig, target: &'g dyn Target) -> Self {
        let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
        let mut bytes = Vec::new();
        for (name, size) in &graph.inputs {
            ids.insert(name, bytes.len());
            bytes.push(*size);
        }
        let mut node_buffer = Vec::new();
        for node in &graph.nodes {
            let id = *ids.entry(&node.name).or_insert_with(|| {
                bytes.push(node.out_bytes);
                bytes.len() - 1
            });
            node_buffer.push(id);
        }
        let mut consumers = vec![Vec::new(); graph.nodes.len()];
        for (i, node) in graph.nodes.iter().enumerate() {
            for &p in &node.producers {
                consumers[p].push(i);
            }
        }
        let pass: Vec<FusionPass> = graph.nodes.iter().map(FusionPass::of).collect();
        let groups = graph
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| {
                let reads = node
                    .reads
                    .iter()
                    .filter_map(|d| ids.get(d.buffer.as_str()).copied())
                    .filter(|&b| b != node_buffer[i])
                    .collect();
                let (numel, rnumel) = node.iteration();
                Some(Group {
                    members: vec![i],
                    min_order: i,
                    max_order: i,
                    reads,
                    writes: [node_buffer[i]].into_iter().collect(),
                    is_extern: node.kind == NodeKind::Extern,
                    reduction: (node.kind == NodeKind::Reduction).then_some((numel, rnumel)),
                    numel,
                    disabled: (!config.passes.0.contains(&pass[i])).then_some(i),
                })
            })
            .collect();
        Self {
            graph,
            config,
            target,
            bytes,
            consumers,
            pass,
            groups,
            group_of: (0..graph.nodes.len()).collect(),
            rejections: BTreeMap::new(),
            order: RefCell::new(GroupOrder::new(graph.nodes.len())),
        }
    }

    fn group(&self, g: usize) -> &Group {
        self.groups[g].as_ref().expect("a live group")
    }

    fn reject(&mut self, a: usize, b: usize, reason: Refused) {
        if !self.config.record_rejections {
            return;
        }
        let key = (self.group(a).members.clone(), self.group(b).members.clone());
        self.rejections.entry(key).or_insert_with(|| reason.to_string());
    }

    /// Candidate pairs of the live groups: every writer with each reader of its buffers,
    /// and the readers of each buffer with one another (each with the later readers up to
    /// the first beyond `max_proximity`, which is recorded as refused).
    fn candidates(&self) -> Vec<(usize, usize)> {
        let mut writers: BTreeMap<usize, usize> = BTreeMap::new();
        let mut readers: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (g, group) in self.groups.iter().enumerate() {
            let Some(group) = group else { continue };
            for &w in &group.writes {
                writers.insert(w, g);
            }
            for &r in &group.reads {
                readers.entry(r).or_default().push(g);
            }
        }
        let mut pairs = Vec::new();
        for (buffer, rs) in &readers {
            if let Some(&w) = writers.get(buffer) {
                for &r in rs {
                    pairs.push((w.min(r), w.max(r)));
                }
            }
            let mut rs = rs.clone();
            rs.sort_by_key(|&g| self.group(g).min_order);
            for (i, &a) in rs.iter().enumerate() {
                for &b in &rs[i + 1..] {
                    pairs.push((a.min(b), a.max(b)));
                    if self.proximity(a, b) > self.config.max_proximity {
                        break;
                    }
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    fn proximity(&self, a: usize, b: usize) -> usize {
        let (a, b) = (self.group(a), self.group(b));
        a.min_order
            .abs_diff(b.max_order)
            .max(b.min_order.abs_diff(a.max_order))
    }

    /// Bytes the pair shares (each shared buffer once) and whether one writes what the
    /// other reads. (A group's reads and writes are disjoint, so a buffer `b` reads is
    /// met once among `a`'s reads and writes, and once more only as one `b` writes.)
    fn shared(&self, a: usize, b: usize) -> (u64, bool) {
        let (ga, gb) = (self.group(a), self.group(b));
        let mut bytes = 0;
        let mut vertical = false;
        for r in &gb.reads {
            if ga.writes.contains(r) {
                vertical = true;
                bytes += self.bytes[*r];
            } else if ga.reads.contains(r) {
                bytes += self.bytes[*r];
            }
        }
        for r in &ga.reads {
            if gb.writes.contains(r) {
                vertical = true;
                bytes += self.bytes[*r];
            }
        }
        (bytes, vertical)
    }

    /// The pair as a candidate, or why GE refuses it.
    fn check(&self, a: usize, b: usize) -> Result<Candidate, Refused> {
        if a == b {
            return Err(Refused::SelfPair);
        }
        let (ga, gb) = (self.group(a), self.group(b));
        let nodes = ga.members.len() + gb.members.len();
        if nodes > self.config.max_nodes && !self.config.record_rejections {
            // Every earlier check only names the reason: the pair never fuses.
            return Err(Refused::Nodes {
                nodes,
                max: self.config.max_nodes,
            });
        }
        if ga.is_extern || gb.is_extern {
            return Err(Refused::Extern);
        }
        if let Some(m) = ga.disabled.or(gb.disabled) {
            return Err(Refused::PassOff(self.pass[m]));
        }
        let (score, vertical) = self.shared(a, b);
        if score == 0 {
            return Err(Refused::NoBytes);
        }
        let shape = |g: &Group| GroupShape::of(self.graph, &g.members, g.numel, g.reduction);
        let (sa, sb) = (shape(ga), shape(gb));
        if let Err(refusal) = self.target.can_fuse(&sa, &sb) {
            return Err(Refused::Target { vertical, refusal });
        }
        let proximity = self.proximity(a, b);
        if !vertical && proximity > self.config.max_proximity {
            return Err(Refused::Proximity {
                proximity,
                max: self.config.max_proximity,
            });
        }
        if nodes > self.config.max_nodes {
            return Err(Refused::Nodes {
                nodes,
                max: self.config.max_nodes,
            });
        }
        // Distinct buffers read from outside the fused kernel.
        let outside = |r: &&usize, other: &Group| !other.writes.contains(*r);
        let inputs = ga.reads.iter().filter(|r| outside(r, gb)).count()
            + gb.reads
                .iter()
                .filter(|r| outside(r, ga) && !ga.reads.contains(*r))
                .count();
        if inputs > self.config.max_inputs {
            return Err(Refused::Inputs {
                inputs,
                max: self.config.max_inputs,
            });
        }
        let reduction = ga.reduction.or(gb.reduction);
        fits_on_chip(&self.target.limits(), reduction, inputs, nodes).map_err(Refused::OnChip)?;
        if self.creates_cycle(a, b) {
            return Err(Refused::Cycle);
        }
        Ok(Candidate {
            a: ga.members[0],
            b: gb.members[0],
            priority: self.target.fusion_priority(&sa, &sb, vertical),
            score,
            proximity,
        })
    }

    /// The groups `g`'s members feed (itself included where members feed each other).
    fn successors(&self, g: usize) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .group(g)
            .members
            .iter()
            .flat_map(|&m| self.consumers[m].iter().map(|&c| self.group_of[c]))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether a path leaves `a` or `b` and comes back to the other through a third
    /// group: then the fused kernel would both feed and consume that group. Searched
    /// over groups in their topological order ([`GroupOrder`]): a path may enter a group
    /// through a late member and leave it through an early one, so node order cannot
    /// bound the search (a node walk missed such paths on 400-node in-trees, and a
    /// node-order bound on the group walk on 20k-node random DAGs: both wrote kernels
    /// whose operands did not dominate their uses).
    fn creates_cycle(&self, a: usize, b: usize) -> bool {
        self.order
            .borrow_mut()
            .reaches_through_other(a, b, |g| self.successors(g))
    }

    fn merge(&mut self, a: usize, b: usize) {
        self.order.borrow_mut().merge(a, b, |g| self.successors(g));
        let gb = self.groups[b].take().expect("a live group");
        let ga = self.groups[a].as_mut().expect("a live group");
        ga.members.extend(gb.members.iter().copied());
        ga.members.sort_unstable();
        ga.min_order = ga.min_order.min(gb.min_order);
        ga.max_order = ga.max_order.max(gb.max_order);
        ga.writes.extend(gb.writes);
        let writes = ga.writes.clone();
        ga.reads.extend(gb.reads);
        ga.reads.retain(|r| !writes.contains(r));
        ga.reduction = ga.reduction.or(gb.reduction);
        ga.disabled = match (ga.disabled, gb.disabled) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        ga.numel = match ga.reduction {
            Some((numel, _)) => numel,
            None => ga.numel.max(gb.numel),
        };
        for &m in &gb.members {
            self.group_of[m] = a;
        }
    }

    /// One round: candidates checked and sorted, then fused greedily (each re-checked on
    /// the groups as they are by then). Returns how many fusions happened.
    fn round(&mut self) -> usize {
        let mut accepted = Vec::new();
        let candidates = self.candidates();
        // The pairs come sorted by first group: the cycle tests of a group with the
        // partners placed after it share one search (groups do not change meanwhile).
        for run in candidates.chunk_by(|x, y| x.0 == y.0) {
            self.order
                .borrow_mut()
                .expect_pairs_from(run[0].0, run.iter().map(|&(_, b)| b));
            for &(a, b) in run {
                match self.check(a, b) {
                    Ok(c) => accepted.push(c),
                    Err(reason) => self.reject(a, b, reason),
                }
            }
        }
        // (a, b) is unique, so the order is total.
        accepted.sort_unstable_by(|x, y| {
            (y.priority, y.score, x.proximity, x.a, x.b).cmp(&(x.priority, x.score, y.proximity, y.a, y.b))
        });
        let mut fused = 0;
        for c in accepted {
            // The groups the two nodes are in now (earlier fusions of the round merged
            // some): re-checked as they are.
            let (a, b) = (self.group_of[c.a], self.group_of[c.b]);
            if a == b {
                continue;
            }
            let (a, b) = (a.min(b), a.max(b));
            match self.check(a, b) {
                Ok(_) => {
                    self.merge(a, b);
                    fused += 1;
                }
                Err(reason) => self.reject(a, b, reason),
            }
        }
        fused
    }
}

/// GE AutoFuse's decision for `graph` on `target`.
pub fn plan_autofuse(graph: &SchedGraph, config: &AutoFuseConfig, target: &dyn Target) -> FusionPlan {
    let mut decider = Decider::new(graph, config, target);
    let mut rounds = 0;
    if config.enabled {
        while rounds < config.max_rounds {
            rounds += 1;
            if decider.round() == 0 {
                break;
            }
        }
    }
    let live = decider
        .groups
        .iter()
        .flatten()
        .map(|g| g.members.clone())
        .collect();
    super::plan(graph, live, &decider.rejections, rounds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fusion::test_graphs::{assert_acyclic_partition, random_graph};
    use crate::target::Generic;

    /// Without rejections recorded (no report asked for), the decision is the same (the
    /// size cap checked first then only ever named another reason), nothing is
    /// recorded, and the plan is an acyclic partition within the size cap.
    #[test]
    fn recording_rejections_does_not_change_the_decision() {
        for seed in 0..200u64 {
            let graph = random_graph(seed * 7_919 + 5, 80);
            let recorded = AutoFuseConfig {
                max_nodes: 6,
                ..AutoFuseConfig::default()
            };
            let silent = AutoFuseConfig {
                record_rejections: false,
                ..recorded.clone()
            };
            let (a, b) = (
                plan_autofuse(&graph, &recorded, &Generic),
                plan_autofuse(&graph, &silent, &Generic),
            );
            assert_eq!(a.groups, b.groups, "seed {seed}");
            assert!(b.rejections.is_empty(), "seed {seed}: rejections recorded anyway");
            assert!(
                a.rejections.iter().any(|r| r.reason.contains("max_fusion_size")),
                "seed {seed}: the size cap refused nothing"
            );
            assert_acyclic_partition(&graph, &a.groups, 6, seed);
        }
    }

    #[test]
    fn the_declared_defaults_are_ges() {
        // CANN GE AutoFuse: 10 rounds, max_fusion_size 64, 8 inputs on A2/A3, a
        // horizontal pair at most 64 apart; elementwise and broadcast passes on.
        let ge = AutoFuseConfig {
            max_rounds: 10,
            max_nodes: 64,
            max_inputs: 8,
            max_proximity: 64,
            enabled: true,
            passes: PassSet::default(),
            record_rejections: true,
        };
        assert_eq!(AutoFuseConfig::default(), ge);
    }
}
