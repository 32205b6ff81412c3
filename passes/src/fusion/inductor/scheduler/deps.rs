//! The scheduler's interned dependencies, and Inductor's loop reordering applied to its
//! groups (the rule itself is plain data in [`super::super::loop_order`]).

use super::super::loop_order::{
    compose, loop_order_to_match, merged_in_order, squeezed_in_order, stride_form,
};
use super::{union, BufId, DepId, Group, Scheduler};
use crate::analysis::memory_deps::{MemoryDep, NodeKind};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// The scheduler's interning tables, borrowed apart from its graph so that a node's
/// deps are interned where they are, without copying the node.
struct Tables<'s> {
    deps: &'s mut Vec<MemoryDep>,
    dep_ids: &'s mut FxHashMap<MemoryDep, DepId>,
    buf_ids: &'s mut FxHashMap<String, BufId>,
    dep_buffer: &'s mut Vec<BufId>,
    producer: &'s mut Vec<Option<usize>>,
    buffer_bytes: &'s mut Vec<u64>,
    producer_of: &'s FxHashMap<String, usize>,
}

impl Tables<'_> {
    /// The id of `dep`, interning it (and its buffer) on first sight.
    fn intern(&mut self, dep: &MemoryDep) -> DepId {
        if let Some(&id) = self.dep_ids.get(dep) {
            return id;
        }
        let buf = match self.buf_ids.get(&dep.buffer) {
            Some(&b) => b,
            None => {
                self.producer.push(self.producer_of.get(&dep.buffer).copied());
                self.buffer_bytes.push(dep.buffer_bytes);
                let b = (self.producer.len() - 1) as BufId;
                self.buf_ids.insert(dep.buffer.clone(), b);
                b
            }
        };
        let id = self.deps.len() as DepId;
        self.deps.push(dep.clone());
        self.dep_buffer.push(buf);
        self.dep_ids.insert(dep.clone(), id);
        id
    }
}

impl Scheduler<'_> {
    /// Node `i`'s reads and writes as sorted, unique dep ids.
    pub(super) fn intern_node(&mut self, i: usize) -> (Vec<DepId>, Vec<DepId>) {
        let node = &self.graph.nodes[i];
        let mut tables = Tables {
            deps: &mut self.deps,
            dep_ids: &mut self.dep_ids,
            buf_ids: &mut self.buf_ids,
            dep_buffer: &mut self.dep_buffer,
            producer: &mut self.producer,
            buffer_bytes: &mut self.buffer_bytes,
            producer_of: &self.producer_of,
        };
        let mut reads: Vec<DepId> = node.reads.iter().map(|d| tables.intern(d)).collect();
        let mut writes: Vec<DepId> = node.writes.iter().map(|d| tables.intern(d)).collect();
        reads.sort_unstable();
        reads.dedup();
        writes.sort_unstable();
        writes.dedup();
        (reads, writes)
    }

    /// `shared_data_after_reordering_loop`: of the buffers both groups access, those
    /// whose deps normalize alike by stride order; the largest guides. Deps over
    /// different numbers of loops count as shared when they merge alike in their own
    /// order (`normalize`). Otherwise the pointwise group (node1 first; never a
    /// reduction) iterates in the order that makes its dep the other's, if every member
    /// has the same ranges (`FusedSchedulerNode.reorder_loops_by_dep_pair`), and the
    /// pair is scored again. `None`: nothing reordered (Inductor's -1).
    pub(super) fn shared_after_reordering(&mut self, g1: usize, g2: usize) -> Option<u64> {
        let by_buffer = |g: &Group| -> BTreeMap<BufId, DepId> {
            g.reads
                .iter()
                .chain(&g.writes)
                .map(|&d| (self.dep_buffer[d as usize], d))
                .collect()
        };
        let (a, b) = (self.group(g1), self.group(g2));
        let (in_a, in_b) = (by_buffer(a), by_buffer(b));
        let mut guide: Option<(i64, DepId, DepId)> = None;
        for (buf, &da) in &in_a {
            let Some(&db) = in_b.get(buf) else { continue };
            let (x, y) = (&self.deps[da as usize], &self.deps[db as usize]);
            let form = stride_form(x);
            if form.is_some() && form == stride_form(y) {
                let numel: i64 = x.ranges.iter().product();
                if guide.is_none_or(|(best, _, _)| numel > best) {
                    guide = Some((numel, da, db));
                }
            }
        }
        let (_, da, db) = guide?;
        let (x, y) = (&self.deps[da as usize], &self.deps[db as usize]);
        if x.ranges.len() != y.ranges.len() {
            return (merged_in_order(x) == merged_in_order(y)).then(|| x.numbytes());
        }
        let (g, this, other) = if a.reduction.is_none() {
            (g1, da, db)
        } else if b.reduction.is_none() {
            (g2, db, da)
        } else {
            return None;
        };
        let members = self.group(g).members.clone();
        let vars = self.graph.nodes[members[0]].ranges.clone();
        if members
            .iter()
            .any(|&m| self.graph.nodes[m].kind != NodeKind::Pointwise || self.graph.nodes[m].ranges != vars)
        {
            return None;
        }
        let order = loop_order_to_match(&self.deps[this as usize], &vars, &self.deps[other as usize])?;
        self.apply_loop_order(g, &order);
        Some(self.shared_bytes(g1, g2))
    }

    /// Reorders the loops of every member of group `g` (`apply_new_loop_order`) and
    /// recomputes the group's deps.
    fn apply_loop_order(&mut self, g: usize, order: &[usize]) {
        let members = self.group(g).members.clone();
        let (mut reads, mut writes) = (Vec::new(), Vec::new());
        for &m in members.iter() {
            let reordered = self.graph.nodes[m].reordered(order);
            self.graph.to_mut().nodes[m] = reordered;
            let total = match self.loop_orders.get(&m) {
                Some(first) => compose(first, order),
                None => order.to_vec(),
            };
            if total.iter().enumerate().all(|(k, &d)| k == d) {
                self.loop_orders.remove(&m);
            } else {
                self.loop_orders.insert(m, total);
            }
            let (r, w) = self.intern_node(m);
            reads = union(&reads, &r);
            writes = union(&writes, &w);
        }
        reads.retain(|r| writes.binary_search(r).is_err());
        let group = self.groups[g].as_mut().expect("live group");
        group.reads = reads;
        group.writes = writes;
    }
}

/// `fusable_read_and_write`. Inductor's scheduler nodes iterate without their size-1 dims
/// (`simplify_and_reorder`) and a dep's variables are the node's: a read and a write
/// compare by their loops that are not size 1 ([`squeezed_in_order`]), the read's a
/// prefix-extension of the write's. With `loop_ordering_after_fusion` the nodes' loops
/// are not merged yet, so a read and a write over different numbers of such loops compare
/// normalized (`MemoryDep.normalize`, [`merged_in_order`]) — a pointwise node over
/// `[1, 16, 32]` and a reduction reading it through a view as `[16] x [32]` (OPT's
/// residual add and its layer norm). A non-linear index compares as written.
pub(super) fn fusable_read_and_write(read: &MemoryDep, write: &MemoryDep, loop_ordering: bool) -> bool {
    if read.buffer != write.buffer || read.star || write.star || read.is_indirect() {
        return false;
    }
    let loops = |d: &MemoryDep| d.ranges.iter().filter(|&&r| r != 1).count();
    if loop_ordering && loops(read) != loops(write) {
        return matches!(
            (merged_in_order(read), merged_in_order(write)),
            (Some(r), Some(w)) if r == w
        );
    }
    match (squeezed_in_order(read), squeezed_in_order(write)) {
        (Some(r), Some(w)) => {
            r.constant == w.constant
                && r.loops.len() >= w.loops.len()
                && r.loops[..w.loops.len()] == w.loops[..]
        }
        _ => {
            read.index == write.index
                && read.ranges.len() >= write.ranges.len()
                && read.ranges[..write.ranges.len()] == write.ranges[..]
        }
    }
}
