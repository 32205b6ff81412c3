//! A topological order of the groups a greedy fusion strategy is building, kept valid as
//! groups merge (a local reordering between the two, as in Pearce and Kelly's dynamic
//! topological sort), so that the cycle test "does a path leave the pair and come back
//! through a third group" searches only the groups placed between them.
//!
//! Program order of the nodes is not enough once groups exist: a group is entered
//! through any member and left through any other, so a path can run from a late member
//! of one group back to an early member of another (a search pruned by node order misses
//! it: GE AutoFuse's decider fused a 20k-node random DAG into a cycle that way).
//! Used by Inductor's scheduler (`fusion/inductor/scheduler.rs`, with its own cached
//! searches over the positions), GE AutoFuse's decider and MindSpore's splitter.

/// Positions of the live groups in a topological order of the group graph.
#[derive(Clone, Debug, Default)]
pub struct GroupOrder {
    /// Slots in order; `None` where a group was merged away.
    order: Vec<Option<usize>>,
    /// Each live group's slot.
    pos: Vec<usize>,
    /// Search marks, stamped with `epoch` (never cleared).
    marks: Vec<u32>,
    epoch: u32,
}

impl GroupOrder {
    /// Groups `0..n`, one per node, in program order (a topological order).
    pub fn new(n: usize) -> Self {
        GroupOrder {
            order: (0..n).map(Some).collect(),
            pos: (0..n).collect(),
            marks: vec![0; n],
            epoch: 0,
        }
    }

    fn new_epoch(&mut self) -> u32 {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.marks.fill(0);
            self.epoch = 1;
        }
        self.epoch
    }

    /// Whether a path from `from` to `to` passes through a third group (then `from` and
    /// `to` cannot share a kernel: it would both feed that group and read it). Only the
    /// groups placed between the two are searched.
    pub fn reaches_through_other<I>(
        &mut self,
        from: usize,
        to: usize,
        successors: impl Fn(usize) -> I,
    ) -> bool
    where
        I: IntoIterator<Item = usize>,
    {
        let (from, to) = if self.pos[from] <= self.pos[to] {
            (from, to)
        } else {
            (to, from)
        };
        let limit = self.pos[to];
        let epoch = self.new_epoch();
        let mut stack: Vec<usize> = Vec::new();
        for s in successors(from) {
            if s != to && s != from && self.pos[s] < limit && self.marks[s] != epoch {
                self.marks[s] = epoch;
                stack.push(s);
            }
        }
        while let Some(g) = stack.pop() {
            for s in successors(g) {
                if s == to {
                    return true;
                }
                if s != from && self.pos[s] < limit && self.marks[s] != epoch {
                    self.marks[s] = epoch;
                    stack.push(s);
                }
            }
        }
        false
    }

    /// Whether `to` is reachable from `from` (itself included). Only the groups placed
    /// between the two are searched.
    pub fn reaches<I>(&mut self, from: usize, to: usize, successors: impl Fn(usize) -> I) -> bool
    where
        I: IntoIterator<Item = usize>,
    {
        if from == to {
            return true;
        }
        let limit = self.pos[to];
        if self.pos[from] > limit {
            return false;
        }
        let epoch = self.new_epoch();
        self.marks[from] = epoch;
        let mut stack = vec![from];
        while let Some(g) = stack.pop() {
            for s in successors(g) {
                if s == to {
                    return true;
                }
                if self.pos[s] < limit && self.marks[s] != epoch {
                    self.marks[s] = epoch;
                    stack.push(s);
                }
            }
        }
        false
    }

    /// Records that `dropped` merged into `kept` (call before the strategy merges its own
    /// data, with `successors` over the groups as they were; the merge must not close a
    /// cycle). The merged group takes the later slot of the two: every group between
    /// them that depends on the earlier one moves after it, the rest stay before.
    pub fn merge<I>(&mut self, kept: usize, dropped: usize, successors: impl Fn(usize) -> I)
    where
        I: IntoIterator<Item = usize>,
    {
        let (early, late) = if self.pos[kept] < self.pos[dropped] {
            (kept, dropped)
        } else {
            (dropped, kept)
        };
        let (p_early, p_late) = (self.pos[early], self.pos[late]);
        let epoch = self.new_epoch();
        let mut stack = vec![early];
        while let Some(g) = stack.pop() {
            for s in successors(g) {
                if s != late && s != early && self.pos[s] < p_late && self.marks[s] != epoch {
                    self.marks[s] = epoch;
                    stack.push(s);
                }
            }
        }
        let window: Vec<usize> = self.order[p_early..=p_late].iter().flatten().copied().collect();
        let (dependent, independent): (Vec<usize>, Vec<usize>) = window
            .into_iter()
            .filter(|&g| g != early && g != late)
            .partition(|&g| self.marks[g] == epoch);
        let mut rewritten: Vec<Option<usize>> = independent.into_iter().map(Some).collect();
        rewritten.push(Some(kept));
        rewritten.extend(dependent.into_iter().map(Some));
        rewritten.resize(p_late - p_early + 1, None);
        for (offset, slot) in rewritten.into_iter().enumerate() {
            if let Some(g) = slot {
                self.pos[g] = p_early + offset;
            }
            self.order[p_early + offset] = slot;
        }
    }

    /// Group `g`'s position (slot) in the order: smaller before larger.
    pub fn position(&self, g: usize) -> usize {
        self.pos[g]
    }

    /// The live groups in the order.
    pub fn groups(&self) -> impl Iterator<Item = usize> + '_ {
        self.order.iter().flatten().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Groups as node sets over a DAG of `n` nodes; the group graph's successors.
    struct Groups {
        producers: Vec<Vec<usize>>,
        group_of: Vec<usize>,
    }

    impl Groups {
        fn successors(&self, g: usize) -> Vec<usize> {
            let mut out = BTreeSet::new();
            for (c, ps) in self.producers.iter().enumerate() {
                if ps.iter().any(|&p| self.group_of[p] == g) && self.group_of[c] != g {
                    out.insert(self.group_of[c]);
                }
            }
            out.into_iter().collect()
        }

        /// Reference: a path from a to b, by plain search.
        fn reaches(&self, a: usize, b: usize) -> bool {
            let mut seen = BTreeSet::new();
            let mut stack = vec![a];
            while let Some(g) = stack.pop() {
                if g == b {
                    return true;
                }
                if seen.insert(g) {
                    stack.extend(self.successors(g));
                }
            }
            false
        }

        /// Reference: a path from a to b through a third group, by plain search.
        fn through_other(&self, a: usize, b: usize) -> bool {
            let mut seen = BTreeSet::new();
            let mut stack: Vec<usize> = self.successors(a).into_iter().filter(|&s| s != b).collect();
            while let Some(g) = stack.pop() {
                if !seen.insert(g) {
                    continue;
                }
                for s in self.successors(g) {
                    if s == b {
                        return true;
                    }
                    if s != a {
                        stack.push(s);
                    }
                }
            }
            false
        }
    }

    /// Random DAGs merged at random (pairs that close no cycle): the order's test agrees
    /// with a plain search in both directions, and the order stays topological.
    #[test]
    fn agrees_with_plain_search_on_random_merges() {
        for seed in 1..=200u64 {
            let mut next = crate::analysis::test_rng(seed);
            let n = 6 + next(20);
            let producers: Vec<Vec<usize>> = (0..n)
                .map(|i| (0..next(3)).filter(|_| i > 0).map(|_| next(i)).collect())
                .collect();
            let mut groups = Groups {
                producers,
                group_of: (0..n).collect(),
            };
            let mut order = GroupOrder::new(n);
            for _ in 0..3 * n {
                let (a, b) = (groups.group_of[next(n)], groups.group_of[next(n)]);
                if a == b {
                    continue;
                }
                assert_eq!(
                    order.reaches(a, b, |g| groups.successors(g)),
                    groups.reaches(a, b),
                    "seed {seed}: does {a} reach {b}"
                );
                let expected = groups.through_other(a, b) || groups.through_other(b, a);
                let got = order.reaches_through_other(a, b, |g| groups.successors(g));
                assert_eq!(got, expected, "seed {seed}: {a} and {b}");
                if got {
                    continue;
                }
                let (kept, dropped) = (a.min(b), a.max(b));
                order.merge(kept, dropped, |g| groups.successors(g));
                for g in groups.group_of.iter_mut() {
                    if *g == dropped {
                        *g = kept;
                    }
                }
                let live: Vec<usize> = order.groups().collect();
                let position = |g: usize| live.iter().position(|&x| x == g).expect("a live group");
                for &g in &live {
                    for s in groups.successors(g) {
                        assert!(position(g) < position(s), "seed {seed}: {g} -> {s} out of order");
                    }
                }
            }
        }
    }

    /// The case node order misses: {0, 3} and {1, 2} with 0 -> 2 and 1 -> 3.
    #[test]
    fn a_path_through_a_merged_group_is_found() {
        let mut groups = Groups {
            producers: vec![vec![], vec![], vec![0], vec![0, 1]],
            group_of: vec![0, 1, 2, 3],
        };
        let mut order = GroupOrder::new(4);
        assert!(!order.reaches_through_other(0, 3, |g| groups.successors(g)));
        order.merge(1, 2, |g| groups.successors(g));
        groups.group_of[2] = 1;
        assert!(order.reaches_through_other(0, 3, |g| groups.successors(g)));
    }
}
