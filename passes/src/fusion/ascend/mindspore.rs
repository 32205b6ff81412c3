//! MindSpore's graph-kernel split model for Ascend as plain data
//! (`mindspore/_extends/graph_kernel/model/graph_split.py`, `GraphSplitAscend`;
//! `../shared/research/spyre_ascend.md`): `--ascend-autofuse=mode=mindspore`.
//!
//! Every node starts as an *area* with a compute type, ordered VIRTUAL < RESHAPE <
//! ELEMWISE < BROADCAST < REDUCE < OPAQUE ([`Compute`]); each producer→consumer edge
//! has a relation of the same scale (how the consumer reads it). The patterns are tried
//! in order, each scan restarting after a fusion, until none fuses:
//! 1. **reshape**: a reshape area joins its lowest-typed elementwise/broadcast user, or
//!    (preferred when lower-typed) its producer, if the reshape is that tensor's only
//!    user and the producer is not a function output;
//! 2. **elementwise forward, depth**: an elementwise/broadcast area with one producer area
//!    of type ≤ BROADCAST that has no other user, read elementwise, of the same shape,
//!    absorbs it; **width**: every such producer (acyclic, same shape, read
//!    elementwise) — forward elementwise fusion needs equal compute size;
//! 3. **reduce forward, depth / width**: a reduction absorbs producers of type ≤
//!    BROADCAST read by a relation ≤ REDUCE, of at most 10 nodes (depth: its one
//!    producer, with no other user); a broadcast read is refused when the reduction is
//!    multi-core (> 1024 elements) and an output or over 6 nodes;
//! 4. **elementwise/broadcast backward, depth / width**: an elementwise/broadcast area
//!    joins its users of type ≤ REDUCE read by a relation ≤ BROADCAST — width takes *all*
//!    users (same shape, acyclic) or none; refused when the area is multi-core and an
//!    output or over 6 nodes;
//! 5. **matmul**: an `mm` takes its `add`/cast users, a `bmm` its elementwise users.
//!
//! An area holds at most 200 nodes; a fusion is refused when another user of the
//! absorbed area reaches the absorbing one (the reach table's acyclicity check).
//! Simplifications, stated in docs/strategies/ascend.md: relations come from buffer
//! sizes (a read of fewer elements than the reader's is BROADCAST, a reduction's read
//! REDUCE, a reshape's RESHAPE, anything else ELEMWISE); `cat`, gather, slice and
//! transpose nodes are OPAQUE; areas are scanned in program order and their neighbours
//! by node index (Python's dict order in the original); the `reduce_output_fuse` and
//! TransData patterns, recomputation and stitching are not modelled.

use crate::{
    analysis::memory_deps::{NodeKind, SchedGraph, SchedNode},
    fusion::{group_order::GroupOrder, plan::FusionPlan},
};
use std::{
    cell::RefCell,
    collections::{BTreeMap, BTreeSet},
};

use super::autofuse::FusionPass;

/// MindSpore's compute types (PrimLib's iter types), in their order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Compute {
    /// No computation.
    Virtual,
    /// A reshape (a copy to another shape).
    Reshape,
    /// Elementwise over equal shapes.
    Elemwise,
    /// Elementwise with a broadcast input.
    Broadcast,
    /// A reduction.
    Reduce,
    /// Anything else (matmul, convolution, gather, concat, transpose).
    Opaque,
}

/// Nodes per area at most (`limit_area_size`).
const AREA_LIMIT: usize = 200;
/// `BORADCAST_FUSE_DEPTH` of the Ascend splitter.
const BROADCAST_DEPTH: usize = 6;
/// `REDUCE_FUSE_DEPTH` of the Ascend splitter.
const REDUCE_DEPTH: usize = 10;
/// Iteration size above which an op likely runs on several cores.
const MULTICORE: i64 = 1024;

fn compute_of(node: &SchedNode) -> Compute {
    match node.kind {
        NodeKind::Extern => Compute::Opaque,
        NodeKind::Reduction => Compute::Reduce,
        NodeKind::Pointwise => match FusionPass::of(node) {
            FusionPass::Concat | FusionPass::Gather | FusionPass::Slice | FusionPass::Transpose => {
                Compute::Opaque
            }
            FusionPass::Broadcast if !has(node, &["expand", "broadcast_to"]) => Compute::Reshape,
            FusionPass::Broadcast => Compute::Broadcast,
            _ if reads_broadcast(node) => Compute::Broadcast,
            _ => Compute::Elemwise,
        },
    }
}

fn has(node: &SchedNode, names: &[&str]) -> bool {
    node.origins.iter().any(|o| names.contains(&o.as_str()))
}

fn numel(node: &SchedNode) -> i64 {
    node.ranges.iter().product()
}

/// Elements of the buffer `dep` reads.
fn read_elements(dep: &crate::analysis::memory_deps::MemoryDep) -> i64 {
    (dep.buffer_bytes / dep.elem_bytes.max(1)) as i64
}

fn reads_broadcast(node: &SchedNode) -> bool {
    node.reads.iter().any(|d| read_elements(d) < numel(node))
}

/// How `consumer` reads `producer`'s buffer.
fn relation(graph: &SchedGraph, producer: usize, consumer: usize) -> Compute {
    let (p, c) = (&graph.nodes[producer], &graph.nodes[consumer]);
    match compute_of(c) {
        Compute::Opaque => Compute::Opaque,
        Compute::Reduce => Compute::Reduce,
        Compute::Reshape => Compute::Reshape,
        _ => {
            let reads = c.reads.iter().filter(|d| d.buffer == p.name);
            if reads.into_iter().any(|d| read_elements(d) < numel(c)) {
                Compute::Broadcast
            } else {
                Compute::Elemwise
            }
        }
    }
}

/// The shape MindSpore compares (`dom_op().output.shape`), size-1 dimensions dropped.
fn shape(node: &SchedNode) -> Vec<i64> {
    node.ranges.iter().copied().filter(|&d| d != 1).collect()
}

#[derive(Clone, Debug)]
struct Area {
    /// Nodes, the dominant one first.
    nodes: Vec<usize>,
    pattern: Compute,
    ins: BTreeMap<usize, Compute>,
    outs: BTreeMap<usize, Compute>,
    is_output: bool,
    min_order: usize,
    max_order: usize,
}

/// A pattern's choice: the areas to fuse with the dominant one, and whether the
/// dominant absorbs them (forward) or they absorb it in a chain (backward).
type Choice = (Vec<usize>, bool);

struct Splitter<'g> {
    graph: &'g SchedGraph,
    /// Readers of each node's buffer.
    users: Vec<usize>,
    /// The live areas by id (the node each started as), which is the scan order.
    areas: BTreeMap<usize, Area>,
    rejections: BTreeMap<(Vec<usize>, Vec<usize>), String>,
    /// Whether refusals are recorded (for a report); never changes the decision.
    record: bool,
    /// A topological order of the live areas, for reachability.
    topo: RefCell<GroupOrder>,
}

impl<'g> Splitter<'g> {
    fn new(graph: &'g SchedGraph, record: bool) -> Self {
        let mut areas = BTreeMap::new();
        for (i, node) in graph.nodes.iter().enumerate() {
            let mut ins = BTreeMap::new();
            for &p in &node.producers {
                let r = relation(graph, p, i);
                let slot = ins.entry(p).or_insert(r);
                *slot = (*slot).max(r);
            }
            areas.insert(
                i,
                Area {
                    nodes: vec![i],
                    pattern: compute_of(node),
                    ins,
                    outs: BTreeMap::new(),
                    is_output: node.is_output,
                    min_order: i,
                    max_order: i,
                },
            );
        }
        let edges: Vec<(usize, usize, Compute)> = areas
            .iter()
            .flat_map(|(&c, a)| a.ins.iter().map(move |(&p, &r)| (p, c, r)))
            .collect();
        for (p, c, r) in edges {
            if let Some(a) = areas.get_mut(&p) {
                a.outs.insert(c, r);
            }
        }
        let mut users = vec![0; graph.nodes.len()];
        for node in &graph.nodes {
            for &p in &node.producers {
                users[p] += 1;
            }
        }
        Self {
            graph,
            users,
            areas,
            rejections: BTreeMap::new(),
            record,
            topo: RefCell::new(GroupOrder::new(graph.nodes.len())),
        }
    }

    fn area(&self, id: usize) -> &Area {
        &self.areas[&id]
    }

    /// MindSpore's `limit_area_size`: when `dom` and `areas` together exceed
    /// [`AREA_LIMIT`] nodes, keep the smaller areas first, up to the limit.
    fn limit_area_size(&self, dom: usize, areas: &mut Vec<usize>) {
        let size_of = |a: usize| self.area(a).nodes.len();
        let total = size_of(dom) + areas.iter().map(|&a| size_of(a)).sum::<usize>();
        if total <= AREA_LIMIT {
            return;
        }
        areas.sort_by_key(|&a| size_of(a));
        let mut size = size_of(dom);
        areas.retain(|&a| {
            size += size_of(a);
            size <= AREA_LIMIT
        });
    }

    /// Whether [`Splitter::limit_area_size`] drops `a` from any choice of `dom`'s (the
    /// two alone are over the limit). A pattern that takes each area on its own (the
    /// width patterns forward) need not test such an area for cycles unless the
    /// refusal is recorded.
    fn never_kept(&self, dom: usize, a: usize) -> bool {
        !self.record && self.area(dom).nodes.len() + self.area(a).nodes.len() > AREA_LIMIT
    }

    fn dom(&self, id: usize) -> &SchedNode {
        &self.graph.nodes[self.area(id).nodes[0]]
    }

    fn reject(&mut self, a: usize, b: usize, reason: String) {
        if !self.record {
            return;
        }
        let mut x = self.area(a).nodes.clone();
        let mut y = self.area(b).nodes.clone();
        x.sort_unstable();
        y.sort_unstable();
        let key = if x <= y { (x, y) } else { (y, x) };
        self.rejections.entry(key).or_insert(reason);
    }

    /// The areas `a` feeds.
    fn outs(&self, a: usize) -> impl Iterator<Item = usize> + '_ {
        self.area(a).outs.keys().copied()
    }

    /// `check_acyclic` (`from` feeds `to`): no other user of `from` reaches `to` — a
    /// path from `from` through a third area, searched once over the areas in their
    /// topological order ([`GroupOrder`]: an area is entered through one node and left
    /// through another, so node order cannot bound the search). MindSpore searches
    /// from each user in turn; one search from `from` answers the same question (a
    /// search per user made a 4k-node fan-out take 113 s).
    fn acyclic(&self, from: usize, to: usize) -> bool {
        !self
            .topo
            .borrow_mut()
            .reaches_through_other(from, to, |a| self.outs(a))
    }

    /// Announces the acyclicity checks of `dom` with its users: one search answers
    /// them all ([`GroupOrder::expect_pairs_from`]).
    fn expect_checks_from(&self, dom: usize) {
        self.topo.borrow_mut().expect_pairs_from(dom, self.outs(dom));
    }

    fn likely_multicore(&self, id: usize) -> bool {
        let dom = self.dom(id);
        let size = if dom.kind == NodeKind::Reduction {
            numel(dom) * dom.reduction_ranges.iter().product::<i64>()
        } else {
            numel(dom)
        };
        size > MULTICORE
    }

    fn light(pattern: Compute) -> bool {
        matches!(pattern, Compute::Elemwise | Compute::Broadcast)
    }

    fn reshape(&mut self, dom: usize) -> Option<Choice> {
        if self.area(dom).pattern != Compute::Reshape {
            return None;
        }
        self.expect_checks_from(dom);
        let mut best: Option<(usize, bool)> = None;
        let lower = |s: &Self, a: usize, best: &Option<(usize, bool)>| {
            best.is_none_or(|(b, _)| s.area(a).pattern < s.area(b).pattern)
        };
        for &a in self.area(dom).outs.keys() {
            if self.area(a).pattern <= Compute::Broadcast && self.acyclic(dom, a) && lower(self, a, &best) {
                best = Some((a, false));
            }
        }
        // `len(dom.ops[0].inputs[0].to_ops) == 1`: the reshape is its input's one reader.
        let single_user = self.graph.nodes[self.area(dom).nodes[0]]
            .producers
            .iter()
            .all(|&p| self.users[p] == 1);
        for &a in self.area(dom).ins.keys() {
            let ok = self.area(a).pattern <= Compute::Broadcast
                && self.acyclic(a, dom)
                && single_user
                && !self.area(a).is_output;
            if ok && lower(self, a, &best) {
                best = Some((a, true));
            }
        }
        best.map(|(a, forward)| (vec![a], forward))
    }

    fn elemwise_depth(&mut self, dom: usize) -> Option<Choice> {
        let d = self.area(dom);
        if !Self::light(d.pattern) || d.ins.len() != 1 {
            return None;
        }
        let (&a, &r) = d.ins.iter().next()?;
        let ok = self.area(a).pattern <= Compute::Broadcast
            && self.area(a).outs.len() == 1
            && r == Compute::Elemwise
            && shape(self.dom(a)) == shape(self.dom(dom));
        ok.then(|| (vec![a], true))
    }

    fn elemwise_width(&mut self, dom: usize) -> Option<Choice> {
        if !Self::light(self.area(dom).pattern) {
            return None;
        }
        let mut fused = Vec::new();
        let ins: Vec<(usize, Compute)> = self.area(dom).ins.iter().map(|(&a, &r)| (a, r)).collect();
        for (a, r) in ins {
            if self.area(a).pattern > Compute::Broadcast || r != Compute::Elemwise {
                continue;
            }
            if shape(self.dom(a)) != shape(self.dom(dom)) {
                self.reject(
                    a,
                    dom,
                    "elementwise forward fusion needs equal compute size".into(),
                );
            } else if self.never_kept(dom, a) {
                continue;
            } else if !self.acyclic(a, dom) {
                self.reject(a, dom, "fusion would create a cycle".into());
            } else {
                fused.push(a);
            }
        }
        (!fused.is_empty()).then_some((fused, true))
    }

    /// `_broadcast_pat_exclude` (dom a light area, `a` its user): why not, if refused.
    fn broadcast_exclude(&self, dom: usize, a: usize, r: Compute) -> Option<String> {
        let d = self.area(dom);
        if self.likely_multicore(a) && (d.is_output || d.nodes.len() > BROADCAST_DEPTH) {
            return Some(format!(
                "broadcast backward fusion: the user is multi-core and the area is {}",
                if d.is_output {
                    "an output".to_string()
                } else {
                    format!("{} > {BROADCAST_DEPTH} nodes", d.nodes.len())
                }
            ));
        }
        if self.area(a).pattern > Compute::Reduce {
            return Some("broadcast backward fusion: the user is opaque".into());
        }
        if r > Compute::Broadcast {
            return Some(format!("broadcast backward fusion: the user reads it as {r:?}"));
        }
        None
    }

    fn broadcast_depth(&mut self, dom: usize) -> Option<Choice> {
        let d = self.area(dom);
        if !Self::light(d.pattern) || d.outs.len() != 1 {
            return None;
        }
        let (&a, &r) = d.outs.iter().next()?;
        (self.broadcast_exclude(dom, a, r).is_none() && self.area(a).ins.len() == 1).then(|| (vec![a], false))
    }

    fn broadcast_width(&mut self, dom: usize) -> Option<Choice> {
        if !Self::light(self.area(dom).pattern) || self.area(dom).outs.is_empty() {
            return None;
        }
        let outs: Vec<(usize, Compute)> = self.area(dom).outs.iter().map(|(&a, &r)| (a, r)).collect();
        self.expect_checks_from(dom);
        let mut fused: Vec<usize> = Vec::new();
        for &(a, r) in &outs {
            let why = self.broadcast_exclude(dom, a, r).or_else(|| {
                if !self.acyclic(dom, a) {
                    Some("fusion would create a cycle".into())
                } else if fused
                    .first()
                    .is_some_and(|&f| shape(self.dom(f)) != shape(self.dom(a)))
                {
                    Some("users of different shapes".into())
                } else {
                    None
                }
            });
            if let Some(why) = why {
                if outs.len() > 1 {
                    let why = format!("broadcast backward fusion must take all users: {why}");
                    self.reject(dom, a, why);
                }
                return None;
            }
            fused.push(a);
        }
        Some((fused, false))
    }

    /// `_reduce_pat_exclude` (dom a reduction, `a` its producer).
    fn reduce_exclude(&self, dom: usize, a: usize, r: Compute) -> Option<String> {
        let (d, pa) = (self.area(dom), self.area(a));
        if pa.nodes.len() > REDUCE_DEPTH {
            return Some(format!(
                "reduce forward fusion: the producer has {} > {REDUCE_DEPTH} nodes",
                pa.nodes.len()
            ));
        }
        if r == Compute::Broadcast
            && self.likely_multicore(dom)
            && (d.is_output || d.nodes.len() > BROADCAST_DEPTH)
        {
            return Some("reduce forward fusion: a broadcast read into a multi-core output reduction".into());
        }
        if pa.pattern > Compute::Broadcast || r > Compute::Reduce {
            return Some("reduce forward fusion: the producer is not elementwise".into());
        }
        None
    }

    fn reduce_depth(&mut self, dom: usize) -> Option<Choice> {
        let d = self.area(dom);
        if d.pattern != Compute::Reduce || d.ins.len() != 1 {
            return None;
        }
        let (&a, &r) = d.ins.iter().next()?;
        (self.reduce_exclude(dom, a, r).is_none() && self.area(a).outs.len() == 1).then(|| (vec![a], true))
    }

    fn reduce_width(&mut self, dom: usize) -> Option<Choice> {
        if self.area(dom).pattern != Compute::Reduce {
            return None;
        }
        let ins: Vec<(usize, Compute)> = self.area(dom).ins.iter().map(|(&a, &r)| (a, r)).collect();
        let mut fused = Vec::new();
        for (a, r) in ins {
            match self.reduce_exclude(dom, a, r) {
                Some(why) => self.reject(a, dom, why),
                None if self.never_kept(dom, a) => {}
                None if !self.acyclic(a, dom) => self.reject(a, dom, "fusion would create a cycle".into()),
                None => fused.push(a),
            }
        }
        (!fused.is_empty()).then_some((fused, true))
    }

    fn matmul_depth(&mut self, dom: usize) -> Option<Choice> {
        let d = self.dom(dom);
        let (mm, bmm) = (has(d, &["mm", "addmm", "linear"]), has(d, &["bmm"]));
        if d.kind != NodeKind::Extern || !(mm || bmm) {
            return None;
        }
        let outs: Vec<usize> = self.outs(dom).collect();
        self.expect_checks_from(dom);
        let mut fused = Vec::new();
        for a in outs {
            let user = self.dom(a);
            let takes = (mm && has(user, &["add", "_to_copy", "to", "convert_element_type"]))
                || (bmm && self.area(a).pattern == Compute::Elemwise);
            // MindSpore's `_matmul_depth` checks `a.check_acyclic(dom)`, the direction no
            // cycle can take (user to matmul); the user absorbs the matmul, so a cycle is
            // a path from the matmul through another area to the user: checked as the
            // other backward patterns do (found by fuse-fuzz seed 25000016).
            if takes && self.acyclic(dom, a) {
                fused.push(a);
            }
        }
        (!fused.is_empty()).then_some((fused, false))
    }

    /// `self.fuse(selector)`: scans the areas in order, applies the first choice, and
    /// starts over; returns whether anything fused. An area whose pattern did not fire
    /// is not asked again until it or a neighbour changes: a pattern reads only the
    /// area, its neighbours and reachability between areas, which merging only adds to
    /// (a refusal for a cycle stands), so it would refuse again. Taking the smallest
    /// area still to ask is then MindSpore's restart from the first area, without the
    /// quadratic rescans (`--ascend-autofuse=mode=mindspore` took 113 s on a 100k-node
    /// tree). After a fusion only the merged area and its neighbours are asked again:
    /// the absorbed area's other neighbours saw a relation move to the merged area
    /// (they are its neighbours now) and at most their neighbour count drop, which the
    /// patterns test only for `== 1` — then that one neighbour is the merged area. (The
    /// neighbours' neighbours were asked again too before: a node read by 2k others
    /// re-asked all of them after each fusion next to it, and a 4k-node fan-out took
    /// 113 s.)
    fn fuse(&mut self, pattern: Pattern<'g>) -> bool {
        let mut changed = false;
        let mut pending: BTreeSet<usize> = self.areas.keys().copied().collect();
        while let Some(dom) = pending.pop_first() {
            if !self.areas.contains_key(&dom) {
                continue; // absorbed since it was queued
            }
            let Some((mut areas, forward)) = pattern(self, dom) else {
                continue;
            };
            self.limit_area_size(dom, &mut areas);
            if areas.is_empty() {
                continue;
            }
            let mut absorbing = dom;
            if forward {
                for a in areas {
                    self.absorb(dom, a);
                }
            } else {
                for a in areas {
                    self.absorb(a, absorbing);
                    absorbing = a;
                }
            }
            // The changed area and its neighbours: what the patterns read changed there
            // only (see above).
            if let Some(area) = self.areas.get(&absorbing) {
                pending.extend(area.ins.keys().chain(area.outs.keys()).copied());
                pending.insert(absorbing);
            }
            changed = true;
        }
        changed
    }

    /// `area.fuse`: `into` absorbs its producer area `other`.
    fn absorb(&mut self, into: usize, other: usize) {
        self.topo.borrow_mut().merge(into, other, |a| self.outs(a));
        let gone = self.areas.remove(&other).expect("a live area");
        let rel = self
            .area(into)
            .ins
            .get(&other)
            .copied()
            .unwrap_or(Compute::Elemwise);
        let target = self.areas.get_mut(&into).expect("a live area");
        if target.pattern >= gone.pattern {
            target.nodes.extend(gone.nodes.iter().copied());
        } else {
            let mut nodes = gone.nodes.clone();
            nodes.extend(target.nodes.iter().copied());
            target.nodes = nodes;
        }
        target.pattern = target.pattern.max(gone.pattern).max(rel);
        for (&a, &r) in &gone.ins {
            if a != into {
                let slot = target.ins.entry(a).or_insert(r);
                *slot = (*slot).max(r);
            }
        }
        target.ins.remove(&other);
        for (&a, &r) in &gone.outs {
            if a != into {
                let slot = target.outs.entry(a).or_insert(r);
                *slot = (*slot).max(r);
            }
        }
        target.outs.remove(&other);
        target.is_output |= gone.is_output;
        target.min_order = target.min_order.min(gone.min_order);
        target.max_order = target.max_order.max(gone.max_order);
        // Redirect the neighbours' relations from `other` to `into`.
        for (a, outs) in gone
            .ins
            .keys()
            .map(|&a| (a, true))
            .chain(gone.outs.keys().map(|&a| (a, false)))
        {
            if a == into {
                continue;
            }
            if let Some(area) = self.areas.get_mut(&a) {
                let rels = if outs { &mut area.outs } else { &mut area.ins };
                if let Some(r) = rels.remove(&other) {
                    let slot = rels.entry(into).or_insert(r);
                    *slot = (*slot).max(r);
                }
            }
        }
    }
}

/// MindSpore's split of `graph` into areas (`GraphSplitAscend._fuse_loop`).
pub fn plan_mindspore(graph: &SchedGraph, record_rejections: bool) -> FusionPlan {
    plan_with(graph, Splitter::fuse, record_rejections)
}

/// A pattern: the choice it makes for a dominant area, if any.
type Pattern<'g> = fn(&mut Splitter<'g>, usize) -> Option<Choice>;

/// [`plan_mindspore`] with `fuse` as the scan that applies one pattern until it fires
/// no more (the tests compare [`Splitter::fuse`] with MindSpore's literal rescans).
fn plan_with<'g>(
    graph: &'g SchedGraph,
    fuse: fn(&mut Splitter<'g>, Pattern<'g>) -> bool,
    record: bool,
) -> FusionPlan {
    let mut s = Splitter::new(graph, record);
    let patterns: [Pattern; 8] = [
        Splitter::reshape,
        Splitter::elemwise_depth,
        Splitter::elemwise_width,
        Splitter::reduce_depth,
        Splitter::reduce_width,
        Splitter::broadcast_depth,
        Splitter::broadcast_width,
        Splitter::matmul_depth,
    ];
    let mut rounds = 0;
    loop {
        rounds += 1;
        let mut changed = false;
        for pattern in patterns {
            changed |= fuse(&mut s, pattern);
        }
        if !changed {
            break;
        }
    }
    let groups = s
        .areas
        .values()
        .map(|a| {
            let mut nodes = a.nodes.clone();
            nodes.sort_unstable();
            nodes
        })
        .collect();
    super::plan(graph, groups, &s.rejections, rounds)
}

#[cfg(test)]
mod tests;
