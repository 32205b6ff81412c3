//! `get_possible_fusions` (torch/_inductor/scheduler.py): the candidate pairs of one
//! round of `fuse_nodes_once`, screened by `can_fuse`.

use super::Scheduler;
use rustc_hash::FxHashMap;

impl Scheduler<'_> {
    /// The pairs of live groups (in `order`, a topological order) that pass `can_fuse`,
    /// in discovery order: groups are collected by every buffer they read or write (and
    /// by (numel, rnumel) with `aggressive`), each paired with the next
    /// `pairwise_attempts` groups of each collection, a pair met twice kept once.
    pub(super) fn possible_fusions(&mut self, order: &[usize]) -> Vec<(usize, usize)> {
        // get_possible_fusions: group by buffer name (and by iteration with aggressive),
        // pair each node with the next `pairwise_attempts` nodes of the group.
        let mut by_key: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
        let mut keys: Vec<u64> = Vec::new();
        for &g in order {
            let group = self.group(g);
            let mut used: Vec<u64> = group
                .reads
                .iter()
                .chain(&group.writes)
                .map(|&d| self.dep_buffer[d as usize] as u64)
                .collect();
            used.sort_unstable();
            used.dedup();
            if self.config.aggressive {
                let (n, r) = group.reduction.unwrap_or((group.numel, 1));
                used.push((1u64 << 63) ^ ((n as u64) << 20) ^ r as u64);
            }
            for key in used {
                let list = by_key.entry(key).or_insert_with(|| {
                    keys.push(key);
                    Vec::new()
                });
                list.push(g);
            }
        }
        // At most this many pairs (a pair sharing several buffers comes once per buffer):
        // sized once, no reallocation of millions of pairs.
        let bound: usize = by_key
            .values()
            .map(|nodes| {
                (0..nodes.len())
                    .map(|i| (nodes.len() - 1 - i).min(self.config.pairwise_attempts))
                    .sum::<usize>()
            })
            .sum();
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(bound);
        for key in keys {
            let nodes = by_key.remove(&key).unwrap_or_default();
            for (i, &g1) in nodes.iter().enumerate() {
                for &g2 in nodes.iter().skip(i + 1).take(self.config.pairwise_attempts) {
                    pairs.push((g1 as u32, g2 as u32));
                }
            }
        }
        // Screen the pairs grouped by their first node: one descendant search per node
        // answers the ancestor tests of all its pairs (groups do not change meanwhile).
        // (A counting sort by first node, pairs of one node in discovery order.) A pair
        // met again under another buffer is screened once, at its first discovery
        // (`get_possible_fusions`' `seen` set): later copies keep a false verdict.
        let mut start_of = vec![0u32; self.groups.len() + 1];
        for &(g1, _) in &pairs {
            start_of[g1 as usize + 1] += 1;
        }
        for g in 1..start_of.len() {
            start_of[g] += start_of[g - 1];
        }
        let mut by_first = vec![0u32; pairs.len()];
        for (k, &(g1, _)) in pairs.iter().enumerate() {
            by_first[start_of[g1 as usize] as usize] = k as u32;
            start_of[g1 as usize] += 1;
        }
        drop(start_of);
        let mut verdict = vec![false; pairs.len()];
        // The first node whose pair with each group was last screened.
        let mut partner_of = vec![u32::MAX; self.groups.len()];
        let mut start = 0;
        while start < by_first.len() {
            let g1 = pairs[by_first[start] as usize].0;
            let end = by_first[start..]
                .iter()
                .position(|&k| pairs[k as usize].0 != g1)
                .map_or(by_first.len(), |n| start + n);
            let bound = by_first[start..end]
                .iter()
                .map(|&k| self.topo.position(pairs[k as usize].1 as usize))
                .max()
                .unwrap_or(0);
            self.prime_oracle(g1 as usize, bound);
            for &k in &by_first[start..end] {
                let g2 = pairs[k as usize].1;
                if partner_of[g2 as usize] != g1 {
                    partner_of[g2 as usize] = g1;
                    verdict[k as usize] = self.can_fuse(g1 as usize, g2 as usize);
                }
            }
            start = end;
        }
        self.oracle.borrow_mut().from = None;
        drop(by_first);
        pairs
            .into_iter()
            .zip(verdict)
            .filter(|(_, ok)| *ok)
            .map(|((g1, g2), _)| (g1 as usize, g2 as usize))
            .collect()
    }
}
