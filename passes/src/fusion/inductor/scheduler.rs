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

use super::score::{FusionConfig, FusionScore};
use crate::{
    analysis::memory_deps::{MemoryDep, NodeKind, SchedGraph},
    fusion::{
        group_order::GroupOrder,
        plan::{FusionPlan, Rejection},
    },
    target::{within_limits, GroupShape, Refusal, Target},
};
use rustc_hash::{FxHashMap, FxHashSet};
use std::{borrow::Cow, cell::RefCell, cmp::Ordering, collections::BTreeMap, rc::Rc};

/// Why a pair was rejected (formatted only when first recorded).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Reason {
    Fixed(&'static str),
    Extern(&'static str),
    /// The target's legality hook refused.
    Target(Refusal),
}

impl Reason {
    fn text(&self) -> String {
        match self {
            Reason::Fixed(text) => text.to_string(),
            Reason::Extern(which) => format!("{which} is extern or nop"),
            Reason::Target(refusal) => refusal.to_string(),
        }
    }
}

/// How two groups passing `can_fuse` relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FusionKind {
    /// The first reaches the second (a producer and a consumer).
    Vertical,
    /// Neither reaches the other (they share an input).
    Horizontal,
}

/// A rejected pair as recorded: both groups' members at the time, and why (an index
/// into `Scheduler::reasons`: large graphs reject millions of pairs, few distinct ways).
type RejectedPair = (Rc<[usize]>, Rc<[usize]>, u32);

/// Interned dependency id (index into `Scheduler::deps`).
type DepId = u32;
/// Interned buffer-name id.
type BufId = u32;

#[derive(Clone, Debug)]
struct Group {
    members: Rc<[usize]>,
    min_order: usize,
    max_order: usize,
    /// Sorted, unique; reads satisfied by the group's own writes removed (ReadWrites.merge).
    reads: Vec<DepId>,
    /// Sorted, unique.
    writes: Vec<DepId>,
    /// Buffers produced by members, sorted.
    names: Vec<BufId>,
    reduction: Option<(i64, i64)>,
    numel: i64,
    is_extern: bool,
}

/// Sorted-vector union.
fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                i += 1;
                j += 1;
                x
            }
            (Some(&x), Some(&y)) if x < y => {
                i += 1;
                x
            }
            (Some(_), Some(&y)) | (None, Some(&y)) => {
                j += 1;
                y
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (None, None) => break,
        };
        out.push(next);
    }
    out
}

/// Calls `f` for every element present in both sorted slices.
fn for_common(a: &[u32], b: &[u32], mut f: impl FnMut(u32)) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                f(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
}

struct Scheduler<'g> {
    /// The graph; a node reordered by the loop-reordering round is replaced by its
    /// reordered form (the graph is copied on the first such change).
    graph: Cow<'g, SchedGraph>,
    config: FusionConfig,
    /// The device asked whether two groups may share a kernel.
    target: &'g dyn Target,
    /// Interned dependencies and their buffer ids.
    deps: Vec<MemoryDep>,
    dep_ids: FxHashMap<MemoryDep, DepId>,
    buf_ids: FxHashMap<String, BufId>,
    producer_of: FxHashMap<String, usize>,
    dep_buffer: Vec<BufId>,
    /// For each buffer id, the node producing it (None for graph inputs).
    producer: Vec<Option<usize>>,
    buffer_bytes: Vec<u64>,
    group_of: Vec<usize>,
    groups: Vec<Option<Group>>,
    consumers: Vec<Vec<usize>>,
    rejections: Vec<RejectedPair>,
    /// First occurrences: both groups' first members and sizes, and the reason's index.
    seen_rejections: FxHashSet<(u32, u32, u32, u32, u32)>,
    /// The distinct reasons, interned.
    reasons: Vec<Reason>,
    reason_ids: FxHashMap<Reason, u32>,
    /// Cached group-level successors (invalidated when a neighbour fuses).
    succ_cache: RefCell<Vec<Option<Rc<[usize]>>>>,
    /// Scratch marks deduplicating a successor list (epoch-stamped).
    succ_marks: Marks,
    /// A topological order of the live groups.
    topo: GroupOrder,
    /// Scratch marks for graph searches (epoch-stamped, so no clearing).
    mark: Marks,
    /// While candidates are screened (no fusion happens), the groups reachable from one
    /// group up to a position bound, computed once and used for all its pairs.
    oracle: RefCell<Oracle>,
    /// In the extra round after the ordinary ones: `can_fuse` may reorder loops.
    reorder_round: bool,
    /// The nodes reordered so far, each with its order relative to the input graph.
    loop_orders: BTreeMap<usize, Vec<usize>>,
}

/// Epoch-stamped marks over groups (a new epoch clears them all at once).
type Marks = RefCell<(Vec<u32>, u32)>;

/// Starts a new epoch of `marks`; returns it.
fn new_epoch(marks: &Marks) -> u32 {
    let mut marks = marks.borrow_mut();
    marks.1 += 1;
    marks.1
}

/// Marks group `g` in `epoch`; false if already marked.
fn visit(marks: &Marks, g: usize, epoch: u32) -> bool {
    let slot = &mut marks.borrow_mut().0[g];
    if *slot == epoch {
        false
    } else {
        *slot = epoch;
        true
    }
}

/// Descendants of `from` up to position `bound`, marked with `epoch` in `marks`.
struct Oracle {
    from: Option<usize>,
    bound: usize,
    marks: Vec<u32>,
    epoch: u32,
}

impl<'g> Scheduler<'g> {
    fn new(graph: &'g SchedGraph, config: FusionConfig, target: &'g dyn Target) -> Self {
        let n = graph.nodes.len();
        let mut consumers = vec![Vec::new(); n];
        for (i, node) in graph.nodes.iter().enumerate() {
            for &p in &node.producers {
                consumers[p].push(i);
            }
        }
        let mut scheduler = Self {
            graph: Cow::Borrowed(graph),
            config,
            target,
            deps: Vec::new(),
            dep_ids: FxHashMap::default(),
            buf_ids: FxHashMap::default(),
            producer_of: graph
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.name.clone(), i))
                .collect(),
            dep_buffer: Vec::new(),
            producer: Vec::new(),
            buffer_bytes: Vec::new(),
            group_of: (0..n).collect(),
            groups: Vec::with_capacity(n),
            consumers,
            rejections: Vec::new(),
            seen_rejections: FxHashSet::default(),
            reasons: Vec::new(),
            reason_ids: FxHashMap::default(),
            succ_cache: RefCell::new(vec![None; n]),
            succ_marks: RefCell::new((vec![0; n], 0)),
            topo: GroupOrder::new(n),
            mark: RefCell::new((vec![0; n], 0)),
            oracle: RefCell::new(Oracle {
                from: None,
                bound: 0,
                marks: vec![0; n],
                epoch: 0,
            }),
            reorder_round: false,
            loop_orders: BTreeMap::new(),
        };
        for i in 0..n {
            let node = &graph.nodes[i];
            let (numel, rnumel) = node.iteration();
            let (reads, writes) = scheduler.intern_node(i);
            let mut names: Vec<BufId> = writes.iter().map(|&w| scheduler.dep_buffer[w as usize]).collect();
            names.sort_unstable();
            names.dedup();
            scheduler.groups.push(Some(Group {
                members: Rc::from([i].as_slice()),
                min_order: i,
                max_order: i,
                reads,
                writes,
                names,
                reduction: (node.kind == NodeKind::Reduction).then_some((numel, rnumel)),
                numel,
                is_extern: node.kind == NodeKind::Extern,
            }));
        }
        scheduler
    }

    fn group(&self, g: usize) -> &Group {
        self.groups[g].as_ref().expect("live group")
    }

    /// [`Self::reject`] for a check that answers with a fusion kind.
    fn refuse(&mut self, g1: usize, g2: usize, reason: Reason) -> Option<FusionKind> {
        self.reject(g1, g2, reason);
        None
    }

    fn reject(&mut self, g1: usize, g2: usize, reason: Reason) -> bool {
        if !self.config.record_rejections {
            return false;
        }
        let id = match self.reason_ids.get(&reason) {
            Some(&id) => id,
            None => {
                let id = self.reasons.len() as u32;
                self.reasons.push(reason.clone());
                self.reason_ids.insert(reason, id);
                id
            }
        };
        let (a, b) = (self.group(g1), self.group(g2));
        let key = (
            a.members[0] as u32,
            b.members[0] as u32,
            a.members.len() as u32,
            b.members.len() as u32,
            id,
        );
        let members = (a.members.clone(), b.members.clone());
        if self.seen_rejections.insert(key) {
            self.rejections.push((members.0, members.1, id));
        }
        false
    }

    /// Groups consuming a buffer of `g` (group-level successors), without `g`.
    fn successors(&self, g: usize) -> Rc<[usize]> {
        if let Some(cached) = &self.succ_cache.borrow()[g] {
            return cached.clone();
        }
        // Deduplicated by an epoch mark, not by searching the list: a buffer may have
        // tens of thousands of consumers, and this list is rebuilt after each fusion of
        // one of them.
        let mut out: Vec<usize> = Vec::new();
        let epoch = new_epoch(&self.succ_marks);
        for &m in self.group(g).members.iter() {
            for &c in &self.consumers[m] {
                let cg = self.group_of[c];
                if cg != g && visit(&self.succ_marks, cg, epoch) {
                    out.push(cg);
                }
            }
        }
        let out: Rc<[usize]> = out.into();
        self.succ_cache.borrow_mut()[g] = Some(out.clone());
        out
    }

    /// Whether `from` is an ancestor of `to` in the current group graph. With
    /// `avoid_pair`, the path must pass through a third group (fusing the two would then
    /// create a cycle: `will_fusion_create_cycle`). `order` is a topological order of the
    /// groups, so only groups placed between the two are explored.
    fn reaches(&self, from: usize, to: usize, avoid_pair: bool) -> bool {
        let (start, limit) = (self.topo.position(from), self.topo.position(to));
        if start >= limit {
            return false;
        }
        {
            let oracle = self.oracle.borrow();
            if !avoid_pair && oracle.from == Some(from) && limit <= oracle.bound {
                return oracle.marks[to] == oracle.epoch;
            }
        }
        let epoch = new_epoch(&self.mark);
        let mut stack: Vec<usize> = Vec::new();
        for &s in self.successors(from).iter() {
            if s == to {
                if !avoid_pair {
                    return true;
                }
            } else if self.topo.position(s) < limit && visit(&self.mark, s, epoch) {
                stack.push(s);
            }
        }
        while let Some(g) = stack.pop() {
            for &s in self.successors(g).iter() {
                if s == to {
                    return true;
                }
                if s != from && self.topo.position(s) < limit && visit(&self.mark, s, epoch) {
                    stack.push(s);
                }
            }
        }
        false
    }

    /// Marks every group reachable from `from` at positions up to `bound`, so that the
    /// ancestor tests of all `from`'s candidate pairs are answered by one search.
    fn prime_oracle(&self, from: usize, bound: usize) {
        let mut oracle = self.oracle.borrow_mut();
        oracle.epoch += 1;
        let epoch = oracle.epoch;
        oracle.from = Some(from);
        oracle.bound = bound;
        let mut stack = vec![from];
        while let Some(g) = stack.pop() {
            for &s in self.successors(g).iter() {
                if self.topo.position(s) <= bound && oracle.marks[s] != epoch {
                    oracle.marks[s] = epoch;
                    stack.push(s);
                }
            }
        }
    }

    /// `score_fusion_memory`: bytes of deps common to both (same buffer and index).
    fn shared_bytes(&self, g1: usize, g2: usize) -> u64 {
        let (a, b) = (self.group(g1), self.group(g2));
        let mut total = 0;
        for x in [&a.reads, &a.writes] {
            for y in [&b.reads, &b.writes] {
                for_common(x, y, |d| total += self.deps[d as usize].numbytes());
            }
        }
        total
    }

    fn buffer_overlap(&self, g1: usize, g2: usize) -> u64 {
        let buffers = |g: &Group| -> Vec<u32> {
            let mut v: Vec<u32> = g
                .reads
                .iter()
                .chain(&g.writes)
                .map(|&d| self.dep_buffer[d as usize])
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let mut total = 0;
        for_common(&buffers(self.group(g1)), &buffers(self.group(g2)), |b| {
            total += self.buffer_bytes[b as usize]
        });
        total
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
            template: 1 + u8::from(memory > 0),
            node_type: u8::from(both_reduction && memory > 0),
            memory,
            buffer_overlap,
            proximity: -((a.min_order as i64 - b.max_order as i64).abs())
                .max((b.min_order as i64 - a.max_order as i64).abs()),
        }
    }

    fn can_fuse_vertical(&mut self, g1: usize, g2: usize) -> bool {
        let (a, b) = (self.group(g1), self.group(g2));
        // node2's unmet deps: reads of buffers produced by some node outside node2.
        let remaining: Vec<DepId> = b
            .reads
            .iter()
            .copied()
            .filter(|&r| {
                let buf = self.dep_buffer[r as usize];
                self.producer[buf as usize].is_some() && b.names.binary_search(&buf).is_err()
            })
            .filter(|&r| {
                // Only node1's write of the same buffer can satisfy the read.
                let buf = self.dep_buffer[r as usize];
                a.names.binary_search(&buf).is_err()
                    || !a.writes.iter().any(|&w| {
                        self.dep_buffer[w as usize] == buf
                            && deps::fusable_read_and_write(
                                &self.deps[r as usize],
                                &self.deps[w as usize],
                                self.config.loop_ordering,
                            )
                    })
            })
            .collect();
        if remaining
            .iter()
            .any(|&r| a.names.binary_search(&self.dep_buffer[r as usize]).is_ok())
        {
            return self.reject(g1, g2, Reason::Fixed("memory deps did not match"));
        }
        let mut producers: Vec<usize> = remaining
            .iter()
            .filter_map(|&r| self.producer[self.dep_buffer[r as usize] as usize])
            .map(|p| self.group_of[p])
            .filter(|&pg| pg != g1)
            .collect();
        producers.sort_unstable();
        producers.dedup();
        for pg in producers {
            if self.reaches(g1, pg, false) {
                return self.reject(g1, g2, Reason::Fixed("intermediate nodes between node1 & node2"));
            }
        }
        true
    }

    /// The target's legality (Inductor's `backend.can_fuse`: for the SIMD back ends
    /// the iteration-space rules of codegen/simd.py) and its input limit.
    fn backend_can_fuse(&mut self, g1: usize, g2: usize) -> bool {
        let shape = |g: &Group| GroupShape::of(&self.graph, &g.members, g.numel, g.reduction);
        let (a, b) = (shape(self.group(g1)), shape(self.group(g2)));
        let mut verdict = self.target.can_fuse(&a, &b);
        let limits = self.target.limits();
        if verdict.is_ok() && (limits.max_inputs.is_some() || limits.on_chip_bytes.is_some()) {
            let (x, y) = (self.group(g1), self.group(g2));
            let (reduction, members) = (x.reduction.or(y.reduction), x.members.len() + y.members.len());
            verdict = within_limits(&limits, reduction, self.fused_inputs(g1, g2), members);
        }
        match verdict {
            Ok(()) => true,
            Err(refusal) => self.reject(g1, g2, Reason::Target(refusal)),
        }
    }

    /// Distinct buffers the fusion of `g1` and `g2` would read from memory: their reads,
    /// less what either group writes.
    fn fused_inputs(&self, g1: usize, g2: usize) -> usize {
        let (a, b) = (self.group(g1), self.group(g2));
        let written = union(&a.names, &b.names);
        let mut read: Vec<BufId> = union(&a.reads, &b.reads)
            .into_iter()
            .map(|d| self.dep_buffer[d as usize])
            .filter(|buf| written.binary_search(buf).is_err())
            .collect();
        read.sort_unstable();
        read.dedup();
        read.len()
    }

    fn can_fuse(&mut self, g1: usize, g2: usize) -> bool {
        self.fusion_kind(g1, g2).is_some()
    }

    /// `can_fuse`, saying which kind of fusion passed: vertical (`g1` reaches `g2`) or
    /// horizontal (neither reaches the other).
    fn fusion_kind(&mut self, g1: usize, g2: usize) -> Option<FusionKind> {
        if g1 == g2 {
            return None;
        }
        let members = self.group(g1).members.len() + self.group(g2).members.len();
        if members > self.config.max_fusion_size && !self.config.record_rejections && !self.reorder_round {
            // Every later check only names the reason: a pair over the size cap never
            // fuses (the reordering round has its side effect first, so it goes on).
            return None;
        }
        if self.group(g1).is_extern || self.group(g2).is_extern {
            let which = if self.group(g1).is_extern {
                "node1"
            } else {
                "node2"
            };
            return self.refuse(g1, g2, Reason::Extern(which));
        }
        if self.reaches(g2, g1, false) {
            return self.refuse(g1, g2, Reason::Fixed("node1 must go before node2"));
        }
        let mut shared = self.shared_bytes(g1, g2);
        if self.reorder_round && shared < self.config.score_threshold {
            if let Some(after) = self.shared_after_reordering(g1, g2) {
                shared = after;
            }
        }
        let (r1, r2) = (
            self.group(g1).reduction.is_some(),
            self.group(g2).reduction.is_some(),
        );
        if shared == 0 && (!self.config.aggressive || r1 || r2) {
            return self.refuse(g1, g2, Reason::Fixed("no shared data"));
        }
        if members > self.config.max_fusion_size {
            return self.refuse(g1, g2, Reason::Fixed("exceeds max fusion"));
        }
        if self.reaches(g1, g2, false) {
            (self.can_fuse_vertical(g1, g2) && self.backend_can_fuse(g1, g2)).then_some(FusionKind::Vertical)
        } else {
            if shared < self.config.score_threshold {
                return self.refuse(g1, g2, Reason::Fixed("score_fusion_memory_threshold"));
            }
            let (a, b) = (self.group(g1), self.group(g2));
            let distance = a
                .min_order
                .abs_diff(b.max_order)
                .max(b.min_order.abs_diff(a.max_order));
            if distance > 64 {
                return self.refuse(
                    g1,
                    g2,
                    Reason::Fixed("Nodes are too far away. Fusing them may increase peak memory."),
                );
            }
            self.backend_can_fuse(g1, g2).then_some(FusionKind::Horizontal)
        }
    }

    fn fuse(&mut self, g1: usize, g2: usize) {
        // Keep the order topological: between the two groups, every group that depends
        // on the earlier one moves after the merged group (none of them can be an
        // ancestor of the later one: that would have been a cycle).
        let mut topo = std::mem::take(&mut self.topo);
        topo.merge(g1, g2, |g| self.successors(g).to_vec());
        self.topo = topo;
        let b = self.groups[g2].take().expect("live group");
        let a = self.groups[g1].as_mut().expect("live group");
        let mut merged: Vec<usize> = a.members.iter().chain(b.members.iter()).copied().collect();
        merged.sort_unstable();
        a.members = merged.into();
        a.min_order = a.min_order.min(b.min_order);
        a.max_order = a.max_order.max(b.max_order);
        a.names = union(&a.names, &b.names);
        a.writes = union(&a.writes, &b.writes);
        let writes = a.writes.clone();
        // ReadWrites.merge: reads satisfied by the merged writes are no longer reads.
        a.reads = union(&a.reads, &b.reads)
            .into_iter()
            .filter(|r| writes.binary_search(r).is_err())
            .collect();
        if a.reduction.is_none() {
            a.reduction = b.reduction;
            if b.reduction.is_none() {
                a.numel = a.numel.max(b.numel);
            }
        }
        for &m in b.members.iter() {
            self.group_of[m] = g1;
        }
        // Successor lists of the merged group and of every group feeding it changed.
        let mut cache = self.succ_cache.borrow_mut();
        cache[g1] = None;
        cache[g2] = None;
        for &m in self.groups[g1].as_ref().expect("live group").members.iter() {
            for &p in &self.graph.nodes[m].producers {
                cache[self.group_of[p]] = None;
            }
        }
    }

    /// Live groups in topological order.
    fn ordered_groups(&self) -> Vec<usize> {
        self.topo.groups().collect()
    }

    fn fuse_nodes_once(&mut self, order: &[usize]) {
        let candidates = self.possible_fusions(order);
        // Remember each candidate by one member node, so it maps to the current groups.
        // (40 bytes a candidate: the sort moves millions of them.)
        let mut scored: Vec<((u32, u32), FusionScore)> = candidates
            .into_iter()
            .map(|(g1, g2)| {
                (
                    (self.group(g1).members[0] as u32, self.group(g2).members[0] as u32),
                    self.score(g1, g2),
                )
            })
            .collect();
        // Descending, stable (Python's `sort(reverse=True)` keeps equal scores in order).
        scored.sort_by(|a, b| b.1.compare(&a.1));
        // _try_fusion_pairs: greedy on the current fused groups.
        for ((n1, n2), _) in scored {
            let (g1, g2) = (self.group_of[n1 as usize], self.group_of[n2 as usize]);
            // will_fusion_create_cycle: a path between the two through a third group.
            // `can_fuse` found that `g2` does not reach `g1`, and for a horizontal pair
            // that `g1` does not reach `g2` either: no such path can exist there. (Two
            // nodes already in one group are not a pair: `None`.)
            let Some(kind) = self.fusion_kind(g1, g2) else {
                continue;
            };
            if kind == FusionKind::Vertical && self.reaches(g1, g2, true) {
                self.reject(g1, g2, Reason::Fixed("will create cycle"));
                continue;
            }
            self.fuse(g1, g2);
        }
    }

    fn finish(mut self, rounds: usize) -> FusionPlan {
        // The first-occurrence filter is done with; free it before the plan is built.
        drop(std::mem::take(&mut self.seen_rejections));
        // Report rejections in node order (pairs are screened grouped by first node).
        self.rejections
            .sort_by(|a, b| (&a.0[..], &a.1[..]).cmp(&(&b.0[..], &b.1[..])));
        // A reordered node keeps its order where it shares a kernel; alone, the order
        // it iterates in changes nothing the plan decides.
        let loop_orders: Vec<(usize, Vec<usize>)> = std::mem::take(&mut self.loop_orders)
            .into_iter()
            .filter(|(m, _)| self.group(self.group_of[*m]).members.len() > 1)
            .collect();
        let texts: Vec<Rc<str>> = self.reasons.iter().map(|r| r.text().into()).collect();
        let rejections = std::mem::take(&mut self.rejections)
            .into_iter()
            .map(|(node1, node2, reason)| Rejection {
                node1,
                node2,
                reason: texts[reason as usize].clone(),
            })
            .collect();
        FusionPlan {
            groups: self
                .ordered_groups()
                .iter()
                .map(|&g| self.group(g).members.to_vec())
                .collect(),
            rejections,
            rounds,
            loop_orders,
        }
    }
}

/// Runs Inductor's `fuse_nodes` on `graph`.
pub fn plan_fusion(graph: &SchedGraph, config: FusionConfig, target: &dyn Target) -> FusionPlan {
    let mut scheduler = Scheduler::new(graph, config, target);
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
    // fuse_nodes: one more round in which loops may be reordered to create shared data.
    if scheduler.config.loop_ordering && target.backend().reorders_loops() && order.len() > 1 {
        scheduler.reorder_round = true;
        scheduler.fuse_nodes_once(&order);
        rounds += 1;
    }
    scheduler.finish(rounds)
}

mod candidates;
mod deps;
#[cfg(test)]
mod tests;
