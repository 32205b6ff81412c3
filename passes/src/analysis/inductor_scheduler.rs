//! Inductor's fusion decision as plain data (torch/_inductor/scheduler.py and
//! choices.py at v2.11; `../shared/research/inductor_rules.md`; seed 000 §7).
//!
//! Input: the [`SchedGraph`] (realized nodes with MemoryDeps, program order =
//! topological order). Output: a [`FusionPlan`]: groups in topological order and every
//! rejected candidate pair with Inductor's reason. The rules implemented:
//! - `fuse_nodes`: up to `max_rounds` rounds of `fuse_nodes_once`, stopping when the
//!   node count no longer drops or is 1;
//! - `get_possible_fusions`: nodes grouped by every buffer name they read or write
//!   (and by (numel, rnumel) with `aggressive`); inside a group each node is paired with
//!   the next `pairwise_attempts` nodes; pairs passing `can_fuse` are kept and sorted by
//!   [`FusionScore`] (descending, `__lt__` with the 16x memory rule);
//! - `_try_fusion_pairs`: greedily, pairs are mapped to the nodes' current fused groups,
//!   `can_fuse` is re-checked, then `will_fusion_create_cycle`, then they are fused;
//! - `can_fuse`: not the same node; no extern ("node1 is extern or nop"); node2 not an
//!   ancestor of node1 ("node1 must go before node2"); shared bytes
//!   (`score_fusion_memory`: common deps, same buffer AND same index) > 0 ("no shared
//!   data"); combined size <= `max_fusion_size` ("exceeds max fusion"); then vertical
//!   (`can_fuse_vertical`: every read of node1's buffers matches a write exactly —
//!   "memory deps did not match"; no other path from node1 — "intermediate nodes between
//!   node1 & node2") or horizontal (shared bytes >= `score_threshold` —
//!   "score_fusion_memory_threshold"; order distance <= 64 — "Nodes are too far away");
//!   then the Triton backend's iteration rules (codegen/simd.py `can_fuse`): equal
//!   (numel, rnumel) for two reductions or two pointwise nodes; a pointwise node with a
//!   reduction when numel_pw = numel_red * rnumel_red and its ranges split into
//!   (numel_red, rnumel_red), or numel_pw = numel_red (an epilogue on the reduced values).
//!
//! Not modelled (documented in docs/strategies/inductor.md): templates and
//! prologue/epilogue fusion into them, loop reordering to create shared data, peak
//! memory and unique-IO caps, tiling heuristics, benchmark_fusion.

use super::memory_deps::{MemoryDep, NodeKind, SchedGraph};
use std::{
    cmp::Ordering,
    collections::{BTreeSet, HashMap, HashSet},
};

/// The knobs of `--inductor-fuse` (defaults = Inductor's config).
#[derive(Clone, Debug)]
pub struct FusionConfig {
    /// `max_fusion_size`: nodes per kernel.
    pub max_fusion_size: usize,
    /// `score_fusion_memory_threshold`: bytes a horizontal pair must share.
    pub score_threshold: u64,
    /// `max_fusion_buffer_group_pairwise_attempts`.
    pub pairwise_attempts: usize,
    /// Rounds of `fuse_nodes_once`.
    pub max_rounds: usize,
    /// `aggressive_fusion`.
    pub aggressive: bool,
}

impl Default for FusionConfig {
    fn default() -> Self {
        Self {
            max_fusion_size: 64,
            score_threshold: 10,
            pairwise_attempts: 64,
            max_rounds: 10,
            aggressive: false,
        }
    }
}

/// Inductor's `FusionScore` (choices.py `score_fusion`; seed 000 §7.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FusionScore {
    /// 2 for an ordinary fusion with shared data, 1 otherwise (no templates here).
    pub template: i64,
    /// 1 if both or neither are reductions and memory > 0.
    pub node_type: i64,
    /// Bytes of common dependencies.
    pub memory: u64,
    /// Bytes of buffers both read at different indices (only when memory is 0).
    pub buffer_overlap: u64,
    /// `-max(|min1 - max2|, |min2 - max1|)`.
    pub proximity: i64,
}

impl FusionScore {
    /// `FusionScore.__lt__`: template first; when one memory score is more than 16x the
    /// other, memory decides; else (node_type, memory, overlap, proximity).
    pub fn less_than(&self, other: &FusionScore) -> bool {
        if self.template != other.template {
            return self.template < other.template;
        }
        let (hi, lo) = (self.memory.max(other.memory), self.memory.min(other.memory));
        if hi > lo.saturating_mul(16) {
            return self.memory < other.memory;
        }
        (self.node_type, self.memory, self.buffer_overlap, self.proximity)
            < (
                other.node_type,
                other.memory,
                other.buffer_overlap,
                other.proximity,
            )
    }
}

/// A candidate pair that was not fused, with the reason in Inductor's words.
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
    /// Rejected candidate pairs, first occurrence only, in discovery order.
    pub rejections: Vec<Rejection>,
    /// Rounds of `fuse_nodes_once` executed.
    pub rounds: usize,
}

#[derive(Clone, Debug)]
struct Group {
    members: Vec<usize>,
    min_order: usize,
    max_order: usize,
    reads: Vec<MemoryDep>,
    writes: Vec<MemoryDep>,
    names: HashSet<String>,
    reduction: Option<(i64, i64)>,
    numel: i64,
    is_extern: bool,
}

struct Scheduler<'g> {
    graph: &'g SchedGraph,
    config: FusionConfig,
    group_of: Vec<usize>,
    groups: Vec<Option<Group>>,
    consumers: Vec<Vec<usize>>,
    producer_of: HashMap<String, usize>,
    rejections: Vec<Rejection>,
    seen_rejections: HashSet<Rejection>,
}

impl<'g> Scheduler<'g> {
    fn new(graph: &'g SchedGraph, config: FusionConfig) -> Self {
        let n = graph.nodes.len();
        let mut consumers = vec![Vec::new(); n];
        for (i, node) in graph.nodes.iter().enumerate() {
            for &p in &node.producers {
                consumers[p].push(i);
            }
        }
        let groups = graph
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| {
                let (numel, rnumel) = node.iteration();
                Some(Group {
                    members: vec![i],
                    min_order: i,
                    max_order: i,
                    reads: node.reads.clone(),
                    writes: node.writes.clone(),
                    names: std::iter::once(node.name.clone()).collect(),
                    reduction: (node.kind == NodeKind::Reduction).then_some((numel, rnumel)),
                    numel,
                    is_extern: node.kind == NodeKind::Extern,
                })
            })
            .collect();
        let producer_of = graph
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| (node.name.clone(), i))
            .collect();
        Self {
            graph,
            config,
            group_of: (0..n).collect(),
            groups,
            consumers,
            producer_of,
            rejections: Vec::new(),
            seen_rejections: HashSet::new(),
        }
    }

    fn group(&self, g: usize) -> &Group {
        self.groups[g].as_ref().expect("live group")
    }

    fn names(&self, g: usize) -> Vec<String> {
        self.group(g)
            .members
            .iter()
            .map(|&m| self.graph.nodes[m].name.clone())
            .collect()
    }

    fn reject(&mut self, g1: usize, g2: usize, reason: impl Into<String>) -> bool {
        let r = Rejection {
            node1: self.names(g1),
            node2: self.names(g2),
            reason: reason.into(),
        };
        if self.seen_rejections.insert(r.clone()) {
            self.rejections.push(r);
        }
        false
    }

    /// Whether some member of `from` reaches some member of `to` through consumer edges
    /// (`from` is an ancestor of `to`). With `avoid_pair`, the path must leave both
    /// groups before arriving (a cycle through an outside node).
    fn reaches(&self, from: usize, to: usize, avoid_pair: bool) -> bool {
        let limit = self.group(to).max_order;
        let mut stack: Vec<usize> = Vec::new();
        let mut visited: HashSet<usize> = HashSet::new();
        for &m in &self.group(from).members {
            for &c in &self.consumers[m] {
                let g = self.group_of[c];
                if avoid_pair && (g == from || g == to) {
                    continue;
                }
                stack.push(c);
            }
        }
        while let Some(node) = stack.pop() {
            if node > limit || !visited.insert(node) {
                continue;
            }
            let g = self.group_of[node];
            if g == to {
                return true;
            }
            if g == from {
                continue;
            }
            stack.extend(self.consumers[node].iter().copied());
        }
        false
    }

    fn all_deps(g: &Group) -> BTreeSet<&MemoryDep> {
        g.reads.iter().chain(g.writes.iter()).collect()
    }

    /// `score_fusion_memory`: bytes of deps common to both (same buffer and index).
    fn shared_bytes(&self, g1: usize, g2: usize) -> u64 {
        let (a, b) = (Self::all_deps(self.group(g1)), Self::all_deps(self.group(g2)));
        a.intersection(&b).map(|d| d.numbytes()).sum()
    }

    fn buffer_overlap(&self, g1: usize, g2: usize) -> u64 {
        let names = |g: &Group| -> HashMap<String, u64> {
            g.reads
                .iter()
                .chain(g.writes.iter())
                .map(|d| (d.buffer.clone(), d.buffer_bytes))
                .collect()
        };
        let (a, b) = (names(self.group(g1)), names(self.group(g2)));
        a.iter()
            .filter(|(n, _)| b.contains_key(*n))
            .map(|(_, bytes)| *bytes)
            .sum()
    }

    fn score(&self, g1: usize, g2: usize) -> FusionScore {
        let (a, b) = (self.group(g1), self.group(g2));
        let memory = self.shared_bytes(g1, g2);
        let both_reduction = a.reduction.is_some() == b.reduction.is_some();
        let buffer_overlap = if memory == 0 && a.reduction.is_none() && b.reduction.is_none() {
            self.buffer_overlap(g1, g2)
        } else {
            0
        };
        FusionScore {
            template: 1 + i64::from(memory > 0),
            node_type: i64::from(both_reduction && memory > 0),
            memory,
            buffer_overlap,
            proximity: -((a.min_order as i64 - b.max_order as i64).abs())
                .max((b.min_order as i64 - a.max_order as i64).abs()),
        }
    }

    /// Reads of `g` from buffers no member of `g` produces (Inductor's unmet deps).
    fn unmet(&self, g: usize) -> Vec<&MemoryDep> {
        let group = self.group(g);
        group
            .reads
            .iter()
            .filter(|d| !group.names.contains(&d.buffer) && self.producer_of.contains_key(&d.buffer))
            .collect()
    }

    /// `fusable_read_and_write`.
    fn fusable_read_and_write(read: &MemoryDep, write: &MemoryDep) -> bool {
        read.buffer == write.buffer
            && !read.star
            && !write.star
            && !read.is_indirect()
            && read.index == write.index
            && read.ranges.len() >= write.ranges.len()
            && read.ranges[..write.ranges.len()] == write.ranges[..]
    }

    fn can_fuse_vertical(&mut self, g1: usize, g2: usize) -> bool {
        let writes = self.group(g1).writes.clone();
        let g1_names = self.group(g1).names.clone();
        let mut remaining: Vec<MemoryDep> = self.unmet(g2).into_iter().cloned().collect();
        remaining.retain(|read| !writes.iter().any(|w| Self::fusable_read_and_write(read, w)));
        if remaining.iter().any(|d| g1_names.contains(&d.buffer)) {
            return self.reject(g1, g2, "memory deps did not match");
        }
        let mut checked: HashSet<usize> = HashSet::new();
        for dep in &remaining {
            let Some(&producer) = self.producer_of.get(&dep.buffer) else {
                continue;
            };
            let pg = self.group_of[producer];
            if pg != g1 && checked.insert(pg) && self.reaches(g1, pg, false) {
                return self.reject(g1, g2, "intermediate nodes between node1 & node2");
            }
        }
        true
    }

    /// The Triton backend's iteration-space rules (codegen/simd.py `can_fuse`).
    fn backend_can_fuse(&mut self, g1: usize, g2: usize) -> bool {
        let (a, b) = (self.group(g1).clone(), self.group(g2).clone());
        match (a.reduction, b.reduction) {
            (Some(ra), Some(rb)) => {
                ra == rb
                    || self.reject(
                        g1,
                        g2,
                        format!(
                            "numel/rnumel mismatch (reduce) ({}, {}), ({}, {})",
                            ra.0, rb.0, ra.1, rb.1
                        ),
                    )
            }
            (None, None) => {
                a.numel == b.numel
                    || self.reject(
                        g1,
                        g2,
                        format!(
                            "numel/rnumel mismatch (non-reduce) ({}, {}), (1, 1)",
                            a.numel, b.numel
                        ),
                    )
            }
            (Some((numel, rnumel)), None) | (None, Some((numel, rnumel))) => {
                let pw = if a.reduction.is_none() { &a } else { &b };
                if pw.numel == numel * rnumel {
                    let splits = pw.members.iter().all(|&m| {
                        let ranges = &self.graph.nodes[m].ranges;
                        (0..=ranges.len()).any(|k| ranges[..k].iter().product::<i64>() == numel)
                    });
                    splits || self.reject(g1, g2, "nodes numel/rnumel incompatibility")
                } else {
                    pw.numel == numel || self.reject(g1, g2, "nodes numel incompatibility")
                }
            }
        }
    }

    fn can_fuse(&mut self, g1: usize, g2: usize) -> bool {
        if g1 == g2 {
            return false;
        }
        if self.group(g1).is_extern || self.group(g2).is_extern {
            let which = if self.group(g1).is_extern {
                "node1"
            } else {
                "node2"
            };
            return self.reject(g1, g2, format!("{which} is extern or nop"));
        }
        if self.reaches(g2, g1, false) {
            return self.reject(g1, g2, "node1 must go before node2");
        }
        let shared = self.shared_bytes(g1, g2);
        let (r1, r2) = (
            self.group(g1).reduction.is_some(),
            self.group(g2).reduction.is_some(),
        );
        if shared == 0 && (!self.config.aggressive || r1 || r2) {
            return self.reject(g1, g2, "no shared data");
        }
        if self.group(g1).members.len() + self.group(g2).members.len() > self.config.max_fusion_size {
            return self.reject(g1, g2, "exceeds max fusion");
        }
        if self.reaches(g1, g2, false) {
            self.can_fuse_vertical(g1, g2) && self.backend_can_fuse(g1, g2)
        } else {
            if shared < self.config.score_threshold {
                return self.reject(g1, g2, "score_fusion_memory_threshold");
            }
            let (a, b) = (self.group(g1), self.group(g2));
            let distance = a
                .min_order
                .abs_diff(b.max_order)
                .max(b.min_order.abs_diff(a.max_order));
            if distance > 64 {
                return self.reject(
                    g1,
                    g2,
                    "Nodes are too far away. Fusing them may increase peak memory.",
                );
            }
            self.backend_can_fuse(g1, g2)
        }
    }

    fn fuse(&mut self, g1: usize, g2: usize) {
        let b = self.groups[g2].take().expect("live group");
        let a = self.groups[g1].as_mut().expect("live group");
        for &m in &b.members {
            a.members.push(m);
        }
        a.members.sort_unstable();
        a.min_order = a.min_order.min(b.min_order);
        a.max_order = a.max_order.max(b.max_order);
        a.names.extend(b.names);
        a.writes.extend(b.writes);
        a.writes.sort();
        a.writes.dedup();
        a.reads.extend(b.reads);
        a.reads.sort();
        a.reads.dedup();
        // ReadWrites.merge: reads satisfied by the merged writes are no longer reads.
        let writes = a.writes.clone();
        a.reads.retain(|r| !writes.contains(r));
        if a.reduction.is_none() {
            a.reduction = b.reduction;
            if b.reduction.is_none() {
                a.numel = a.numel.max(b.numel);
            }
        }
        for &m in &b.members {
            self.group_of[m] = g1;
        }
    }

    /// Live groups in topological order (Kahn, smallest min_order first).
    fn ordered_groups(&self) -> Vec<usize> {
        let live: Vec<usize> = (0..self.groups.len())
            .filter(|&g| self.groups[g].is_some())
            .collect();
        let mut indegree: HashMap<usize, usize> = live.iter().map(|&g| (g, 0)).collect();
        let mut succ: HashMap<usize, BTreeSet<usize>> = HashMap::new();
        for &g in &live {
            for &m in &self.group(g).members {
                for &c in &self.consumers[m] {
                    let cg = self.group_of[c];
                    if cg != g && succ.entry(g).or_default().insert(cg) {
                        *indegree.get_mut(&cg).expect("live") += 1;
                    }
                }
            }
        }
        let mut ready: BTreeSet<(usize, usize)> = live
            .iter()
            .filter(|g| indegree[g] == 0)
            .map(|&g| (self.group(g).min_order, g))
            .collect();
        let mut out = Vec::with_capacity(live.len());
        while let Some(&first) = ready.iter().next() {
            ready.remove(&first);
            let g = first.1;
            out.push(g);
            for &s in succ
                .get(&g)
                .map(|s| s.iter().copied().collect::<Vec<_>>())
                .unwrap_or_default()
                .iter()
            {
                let d = indegree.get_mut(&s).expect("live");
                *d -= 1;
                if *d == 0 {
                    ready.insert((self.group(s).min_order, s));
                }
            }
        }
        out
    }

    fn fuse_nodes_once(&mut self, order: &[usize]) {
        // get_possible_fusions: group by buffer name, pair within a window.
        let mut by_buffer: Vec<(String, Vec<usize>)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut add = |key: String, g: usize, by_buffer: &mut Vec<(String, Vec<usize>)>| {
            let slot = *index.entry(key.clone()).or_insert_with(|| {
                by_buffer.push((key, Vec::new()));
                by_buffer.len() - 1
            });
            if by_buffer[slot].1.last() != Some(&g) {
                by_buffer[slot].1.push(g);
            }
        };
        for &g in order {
            let group = self.group(g);
            let mut used: BTreeSet<String> = BTreeSet::new();
            for d in group.reads.iter().chain(group.writes.iter()) {
                used.insert(d.buffer.clone());
            }
            for name in used {
                add(name, g, &mut by_buffer);
            }
            if self.config.aggressive {
                let key = format!("#group {:?} {}", group.reduction, group.numel);
                add(key, g, &mut by_buffer);
            }
        }
        let mut seen: HashSet<(usize, usize)> = HashSet::new();
        let mut candidates: Vec<(usize, usize)> = Vec::new();
        for (_, nodes) in &by_buffer {
            for (i, &g1) in nodes.iter().enumerate() {
                for &g2 in nodes.iter().skip(i + 1).take(self.config.pairwise_attempts) {
                    if seen.insert((g1, g2)) && self.can_fuse(g1, g2) {
                        candidates.push((g1, g2));
                    }
                }
            }
        }
        // Remember each candidate by one member node, so it maps to the current groups.
        let mut scored: Vec<((usize, usize), FusionScore)> = candidates
            .into_iter()
            .map(|(g1, g2)| {
                (
                    (self.group(g1).members[0], self.group(g2).members[0]),
                    self.score(g1, g2),
                )
            })
            .collect();
        scored.sort_by(|a, b| {
            if b.1.less_than(&a.1) {
                Ordering::Less
            } else if a.1.less_than(&b.1) {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        });
        // _try_fusion_pairs: greedy on the current fused groups.
        for ((n1, n2), _) in scored {
            let (g1, g2) = (self.group_of[n1], self.group_of[n2]);
            if g1 == g2 || !self.can_fuse(g1, g2) {
                continue;
            }
            if self.reaches(g1, g2, true) || self.reaches(g2, g1, true) {
                self.reject(g1, g2, "will create cycle");
                continue;
            }
            self.fuse(g1, g2);
        }
    }
}

/// Runs Inductor's `fuse_nodes` on `graph`.
pub fn plan_fusion(graph: &SchedGraph, config: FusionConfig) -> FusionPlan {
    let mut scheduler = Scheduler::new(graph, config);
    let mut order = scheduler.ordered_groups();
    let mut rounds = 0;
    for _ in 0..scheduler.config.max_rounds {
        let before = order.len();
        scheduler.fuse_nodes_once(&order);
        rounds += 1;
        order = scheduler.ordered_groups();
        if order.len() == before || order.len() == 1 {
            break;
        }
    }
    FusionPlan {
        groups: order
            .iter()
            .map(|&g| scheduler.group(g).members.clone())
            .collect(),
        rejections: scheduler.rejections,
        rounds,
    }
}
