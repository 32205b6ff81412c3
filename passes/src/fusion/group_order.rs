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

/// No group (end of the list).
const NONE: usize = usize::MAX;
/// Label distance between neighbours when the order is (re)labelled.
const SPACING: usize = 1 << 32;

/// The live groups in a topological order of the group graph: a doubly linked list with
/// order labels (sparse, increasing along the list) for O(1) "is placed before" tests.
///
/// A merge moves only the merged group and the groups that depend on the earlier of the
/// two (found by a search bounded by the later one's label) to just after the later
/// one's place; the groups in between that stay are not touched, so a merge costs the
/// size of what moves, not of the window between the two. Where the labels between two
/// neighbours run out, the whole list is relabelled (rare: gaps start at 2^32).
#[derive(Clone, Debug)]
pub struct GroupOrder {
    /// Each group's label; only live groups' labels are meaningful.
    label: Vec<usize>,
    next: Vec<usize>,
    prev: Vec<usize>,
    head: usize,
    /// Search marks, stamped with `epoch` (never cleared).
    marks: Vec<u32>,
    epoch: u32,
    /// The batch of cycle tests announced by [`GroupOrder::expect_pairs_from`].
    batch: Batch,
}

/// The next stamp of marks stamped with `stamp` (never cleared but when it wraps).
fn next_stamp(stamp: &mut u32, marks: &mut [u32]) -> u32 {
    *stamp = stamp.wrapping_add(1);
    if *stamp == 0 {
        marks.fill(0);
        *stamp = 1;
    }
    *stamp
}

/// One source group's cycle tests answered by one search: the groups reached from
/// `from` through another group, up to the label `bound` (the latest partner).
#[derive(Clone, Debug, Default)]
struct Batch {
    /// The announced source and bound; `None` when no batch is announced (or a merge
    /// ended it).
    from: Option<(usize, usize)>,
    /// Whether the search for `from` has run (it runs at the first query).
    searched: bool,
    /// Groups reached through another group, stamped with `stamp`.
    through: Vec<u32>,
    stamp: u32,
}

impl Default for GroupOrder {
    /// No groups.
    fn default() -> Self {
        GroupOrder::new(0)
    }
}

impl GroupOrder {
    /// Groups `0..n`, one per node, in program order (a topological order).
    pub fn new(n: usize) -> Self {
        GroupOrder {
            label: (0..n).map(|i| i * SPACING).collect(),
            next: (0..n).map(|i| if i + 1 < n { i + 1 } else { NONE }).collect(),
            prev: (0..n).map(|i| if i > 0 { i - 1 } else { NONE }).collect(),
            head: if n > 0 { 0 } else { NONE },
            marks: vec![0; n],
            epoch: 0,
            batch: Batch {
                through: vec![0; n],
                ..Batch::default()
            },
        }
    }

    fn new_epoch(&mut self) -> u32 {
        next_stamp(&mut self.epoch, &mut self.marks)
    }

    /// Announces cycle tests of `from` with `partners`: the first
    /// [`GroupOrder::reaches_through_other`] of `from` with one placed after it runs one
    /// search from `from`, bounded by the latest partner, that answers them all, until
    /// the next announcement or merge (partners placed before `from` are searched on
    /// their own). Without it each test searches on its own, which is quadratic when
    /// one group has tens of thousands of partners (a buffer read by half the graph:
    /// each search walks the readers placed before its partner).
    pub fn expect_pairs_from(&mut self, from: usize, partners: impl IntoIterator<Item = usize>) {
        let after = self.label[from];
        let bound = partners
            .into_iter()
            .map(|g| self.label[g])
            .filter(|&l| l > after)
            .max();
        self.batch.from = bound.map(|bound| (from, bound));
        self.batch.searched = false;
    }

    /// The batch search: every group placed after `from` up to `bound` that a successor
    /// of a descendant of `from` (other than `from`) is — a path from `from` through
    /// another group reaches it.
    fn search_batch<I>(&mut self, from: usize, bound: usize, successors: &impl Fn(usize) -> I)
    where
        I: IntoIterator<Item = usize>,
    {
        let stamp = next_stamp(&mut self.batch.stamp, &mut self.batch.through);
        let epoch = self.new_epoch();
        let mut stack = vec![from];
        while let Some(g) = stack.pop() {
            for s in successors(g) {
                if s == g || s == from || self.label[s] > bound {
                    continue;
                }
                if g != from {
                    self.batch.through[s] = stamp;
                }
                if self.marks[s] != epoch {
                    self.marks[s] = epoch;
                    stack.push(s);
                }
            }
        }
        self.batch.searched = true;
    }

    /// Whether a path from `from` to `to` passes through a third group (then `from` and
    /// `to` cannot share a kernel: it would both feed that group and read it). Only the
    /// groups placed between the two are searched (once for a batch announced by
    /// [`GroupOrder::expect_pairs_from`]).
    pub fn reaches_through_other<I>(
        &mut self,
        from: usize,
        to: usize,
        successors: impl Fn(usize) -> I,
    ) -> bool
    where
        I: IntoIterator<Item = usize>,
    {
        let (from, to) = if self.label[from] <= self.label[to] {
            (from, to)
        } else {
            (to, from)
        };
        let limit = self.label[to];
        if let Some((source, bound)) = self.batch.from {
            if source == from && limit <= bound {
                if !self.batch.searched {
                    self.search_batch(from, bound, &successors);
                }
                return self.batch.through[to] == self.batch.stamp;
            }
        }
        let epoch = self.new_epoch();
        let mut stack: Vec<usize> = Vec::new();
        for s in successors(from) {
            if s != to && s != from && self.label[s] < limit && self.marks[s] != epoch {
                self.marks[s] = epoch;
                stack.push(s);
            }
        }
        while let Some(g) = stack.pop() {
            for s in successors(g) {
                if s == to {
                    return true;
                }
                if s != from && self.label[s] < limit && self.marks[s] != epoch {
                    self.marks[s] = epoch;
                    stack.push(s);
                }
            }
        }
        false
    }

    /// Records that `dropped` merged into `kept` (call before the strategy merges its own
    /// data, with `successors` over the groups as they were; the merge must not close a
    /// cycle). The merged group takes the later place of the two: every group between
    /// them that depends on the earlier one moves after it (in its order), the rest stay
    /// before.
    pub fn merge<I>(&mut self, kept: usize, dropped: usize, successors: impl Fn(usize) -> I)
    where
        I: IntoIterator<Item = usize>,
    {
        let (early, late) = if self.label[kept] < self.label[dropped] {
            (kept, dropped)
        } else {
            (dropped, kept)
        };
        let l_late = self.label[late];
        self.batch.from = None;
        let epoch = self.new_epoch();
        let mut dependent: Vec<usize> = Vec::new();
        let mut stack = vec![early];
        while let Some(g) = stack.pop() {
            for s in successors(g) {
                if s != late && s != early && self.label[s] < l_late && self.marks[s] != epoch {
                    self.marks[s] = epoch;
                    dependent.push(s);
                    stack.push(s);
                }
            }
        }
        dependent.sort_unstable_by_key(|&g| self.label[g]);
        self.unlink(early);
        for &g in &dependent {
            self.unlink(g);
        }
        if kept != late {
            // `kept` (the earlier) takes the later one's place in the list.
            let (p, n) = (self.prev[late], self.next[late]);
            self.link_between(kept, p, n);
            self.label[kept] = l_late;
        }
        let mut at = kept;
        for &g in &dependent {
            let n = self.next[at];
            self.link_between(g, at, n);
            at = g;
        }
        self.label_after(kept, dependent.len());
    }

    /// Removes `g` from the list.
    fn unlink(&mut self, g: usize) {
        let (p, n) = (self.prev[g], self.next[g]);
        if p == NONE {
            self.head = n;
        } else {
            self.next[p] = n;
        }
        if n != NONE {
            self.prev[n] = p;
        }
    }

    /// Puts `g` between the neighbours `p` and `n` (either may be NONE).
    fn link_between(&mut self, g: usize, p: usize, n: usize) {
        self.prev[g] = p;
        self.next[g] = n;
        if p == NONE {
            self.head = g;
        } else {
            self.next[p] = g;
        }
        if n != NONE {
            self.prev[n] = g;
        }
    }

    /// Labels the `count` groups linked after `first` (whose label stays) evenly between
    /// it and the next group; relabels the whole list where there is no room.
    fn label_after(&mut self, first: usize, count: usize) {
        if count == 0 {
            return;
        }
        let mut end = first;
        for _ in 0..count {
            end = self.next[end];
        }
        let low = self.label[first];
        let high = match self.next[end] {
            NONE => low.saturating_add(SPACING.saturating_mul(count + 1)),
            n => self.label[n],
        };
        let step = (high - low) / (count + 1);
        if step == 0 {
            self.relabel();
            return;
        }
        let mut g = first;
        for k in 1..=count {
            g = self.next[g];
            self.label[g] = low + step * k;
        }
    }

    /// Spreads the labels of the whole list evenly again.
    fn relabel(&mut self) {
        let mut g = self.head;
        let mut k = 0;
        while g != NONE {
            self.label[g] = k * SPACING;
            k += 1;
            g = self.next[g];
        }
    }

    /// Group `g`'s position label in the order: smaller is before larger (labels are
    /// sparse and change when groups merge; compare them, do not count with them).
    pub fn position(&self, g: usize) -> usize {
        self.label[g]
    }

    /// The live groups in the order.
    pub fn groups(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors((self.head != NONE).then_some(self.head), move |&g| {
            let n = self.next[g];
            (n != NONE).then_some(n)
        })
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
        /// A random DAG of `n` nodes (each reads up to two earlier ones), one group each.
        fn random(next: &mut impl FnMut(usize) -> usize, n: usize) -> Self {
            let producers: Vec<Vec<usize>> = (0..n)
                .map(|i| (0..next(3)).filter(|_| i > 0).map(|_| next(i)).collect())
                .collect();
            Groups {
                producers,
                group_of: (0..n).collect(),
            }
        }

        /// Records that `dropped` merged into `kept`.
        fn merge(&mut self, kept: usize, dropped: usize) {
            for g in self.group_of.iter_mut() {
                if *g == dropped {
                    *g = kept;
                }
            }
        }

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
            let mut groups = Groups::random(&mut next, n);
            let mut order = GroupOrder::new(n);
            for _ in 0..3 * n {
                let (a, b) = (groups.group_of[next(n)], groups.group_of[next(n)]);
                if a == b {
                    continue;
                }
                let expected = groups.through_other(a, b) || groups.through_other(b, a);
                let got = order.reaches_through_other(a, b, |g| groups.successors(g));
                assert_eq!(got, expected, "seed {seed}: {a} and {b}");
                if got {
                    continue;
                }
                let (kept, dropped) = (a.min(b), a.max(b));
                order.merge(kept, dropped, |g| groups.successors(g));
                groups.merge(kept, dropped);
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

    /// A batch announced for one group answers each of its pairs as the plain search
    /// does (partners up to the bound), and a merge ends the batch (the answers after
    /// it are the merged graph's).
    #[test]
    fn batched_tests_agree_with_plain_search() {
        let mut batched = 0;
        for seed in 1..=200u64 {
            let mut next = crate::analysis::test_rng(seed);
            let n = 6 + next(30);
            let mut groups = Groups::random(&mut next, n);
            let mut order = GroupOrder::new(n);
            for _ in 0..2 * n {
                let a = groups.group_of[next(n)];
                let live: Vec<usize> = order.groups().collect();
                let after: Vec<usize> = live
                    .iter()
                    .copied()
                    .filter(|&g| order.position(g) > order.position(a))
                    .collect();
                let partners = next(after.len() + 1);
                if partners > 0 {
                    order.expect_pairs_from(
                        a,
                        live.iter()
                            .copied()
                            .take(next(live.len()))
                            .chain(after[..partners].iter().copied()),
                    );
                }
                for &b in &live {
                    if b == a {
                        continue;
                    }
                    let expected = groups.through_other(a, b) || groups.through_other(b, a);
                    let got = order.reaches_through_other(a, b, |g| groups.successors(g));
                    assert_eq!(got, expected, "seed {seed}: {a} and {b}");
                    batched += usize::from(
                        order
                            .batch
                            .from
                            .is_some_and(|(f, bound)| f == a && order.position(b) <= bound),
                    );
                }
                let b = groups.group_of[next(n)];
                if a != b && !order.reaches_through_other(a, b, |g| groups.successors(g)) {
                    order.merge(a, b, |g| groups.successors(g));
                    groups.merge(a, b);
                    assert!(order.batch.from.is_none(), "seed {seed}: a merge ends the batch");
                }
            }
        }
        assert!(batched > 1000, "only {batched} answers came from a batch");
    }

    /// The order the merges produce is exactly the window rule's (the groups between the
    /// two that depend on the earlier one move after the merged group, the others stay
    /// before it, each in its order), computed here by rewriting the whole window.
    #[test]
    fn merges_reorder_as_the_window_rule() {
        for seed in 1..=300u64 {
            let mut next = crate::analysis::test_rng(seed);
            let n = 4 + next(40);
            let mut groups = Groups::random(&mut next, n);
            let mut order = GroupOrder::new(n);
            let mut reference: Vec<usize> = (0..n).collect();
            for _ in 0..4 * n {
                let (a, b) = (groups.group_of[next(n)], groups.group_of[next(n)]);
                if a == b || groups.through_other(a, b) || groups.through_other(b, a) {
                    continue;
                }
                let (kept, dropped) = if next(2) == 0 { (a, b) } else { (b, a) };
                let at = |g: usize| reference.iter().position(|&x| x == g).expect("live");
                let (early, late) = if at(kept) < at(dropped) {
                    (kept, dropped)
                } else {
                    (dropped, kept)
                };
                let (lo, hi) = (at(early), at(late));
                let window: Vec<usize> = reference[lo + 1..hi].to_vec();
                let (dependent, independent): (Vec<usize>, Vec<usize>) =
                    window.into_iter().partition(|&g| groups.reaches(early, g));
                let mut rewritten = independent;
                rewritten.push(kept);
                rewritten.extend(dependent);
                reference.splice(lo..=hi, rewritten);
                order.merge(kept, dropped, |g| groups.successors(g));
                groups.merge(kept, dropped);
                let live: Vec<usize> = order.groups().collect();
                assert_eq!(
                    live, reference,
                    "seed {seed}: after merging {dropped} into {kept}"
                );
                for pair in live.windows(2) {
                    assert!(
                        order.position(pair[0]) < order.position(pair[1]),
                        "seed {seed}: labels"
                    );
                }
            }
        }
    }

    /// Labels run out between two neighbours: the whole list is relabelled, order kept.
    #[test]
    fn exhausted_labels_are_relabelled() {
        // 0 -> 1; 2 and 3 independent; labels packed so nothing fits after 2.
        let groups = Groups {
            producers: vec![vec![], vec![0], vec![], vec![]],
            group_of: vec![0, 1, 2, 3],
        };
        let mut order = GroupOrder::new(4);
        order.label = vec![0, 1, 2, 3];
        order.merge(0, 2, |g| groups.successors(g));
        let live: Vec<usize> = order.groups().collect();
        assert_eq!(live, vec![0, 1, 3]);
        assert_eq!(
            live.iter().map(|&g| order.position(g)).collect::<Vec<_>>(),
            vec![0, SPACING, 2 * SPACING]
        );
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
