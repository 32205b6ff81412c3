//! Unified Buffer placement: every UB tile of a kernel gets a byte address so that tiles
//! alive at the same time never overlap. Lifetimes are closed intervals of op positions
//! (a tile written and another read by the same op are both alive at it); a tile of
//! `depth` slots (double buffering) takes `depth` aligned copies of its size. Greedy in
//! order of first use, lowest address that fits (first fit), as Ascend C's `TPipe`
//! hands out `InitBuffer` space — but reusing the space of tiles that are dead.

/// One tile to place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// Bytes of one slot (before alignment).
    pub bytes: u64,
    /// Slots (2: double buffered).
    pub depth: u64,
    /// First op position at which it is alive.
    pub start: usize,
    /// Last op position at which it is alive (inclusive).
    pub end: usize,
}

impl Request {
    /// Bytes it occupies: `depth` slots of `bytes` rounded up to `alignment`.
    pub fn footprint(&self, alignment: u64) -> u64 {
        self.bytes.div_ceil(alignment) * alignment * self.depth
    }
}

/// The addresses of `requests` (in their order) and the bytes the placement spans.
pub fn place(requests: &[Request], alignment: u64) -> (Vec<u64>, u64) {
    let mut order: Vec<usize> = (0..requests.len()).collect();
    order.sort_by_key(|&i| (requests[i].start, i));
    let mut address = vec![0u64; requests.len()];
    let mut placed: Vec<usize> = Vec::new();
    let mut span = 0u64;
    for i in order {
        let r = requests[i];
        let size = r.footprint(alignment);
        // Occupied ranges of tiles alive at the same time, by address.
        let mut busy: Vec<(u64, u64)> = placed
            .iter()
            .filter(|&&j| requests[j].start <= r.end && r.start <= requests[j].end)
            .map(|&j| (address[j], address[j] + requests[j].footprint(alignment)))
            .collect();
        busy.sort_unstable();
        let mut at = 0u64;
        for (lo, hi) in busy {
            if at + size <= lo {
                break;
            }
            at = at.max(hi);
        }
        address[i] = at;
        span = span.max(at + size);
        placed.push(i);
    }
    (address, span)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(bytes: u64, depth: u64, start: usize, end: usize) -> Request {
        Request {
            bytes,
            depth,
            start,
            end,
        }
    }

    /// Worked by hand: a (0..=1) and b (1..=2) overlap at 1; c (2..=3) reuses a's
    /// space; 40 bytes round up to 64; a double-buffered tile takes two slots.
    #[test]
    fn reuses_dead_space_and_aligns() {
        let (at, span) = place(&[req(40, 1, 0, 1), req(32, 2, 1, 2), req(64, 1, 2, 3)], 32);
        assert_eq!(at, vec![0, 64, 0]);
        assert_eq!(span, 128);
    }

    #[test]
    fn a_tile_written_from_a_dying_one_does_not_share_it() {
        // Both alive at position 1 (read and written by the same op).
        let (at, _) = place(&[req(32, 1, 0, 1), req(32, 1, 1, 2)], 32);
        assert_ne!(at[0], at[1]);
    }

    /// Seeded random lifetimes: tiles alive together never overlap, and the span is
    /// never below the largest set of tiles alive at one position.
    #[test]
    fn never_overlaps_live_tiles() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % n
        };
        for _ in 0..200 {
            let n = 1 + next(24) as usize;
            let rs: Vec<Request> = (0..n)
                .map(|_| {
                    let start = next(30) as usize;
                    req(1 + next(5000), 1 + next(2), start, start + next(10) as usize)
                })
                .collect();
            let (at, span) = place(&rs, 32);
            for i in 0..n {
                assert_eq!(at[i] % 32, 0);
                for j in 0..i {
                    let live = rs[i].start <= rs[j].end && rs[j].start <= rs[i].end;
                    let apart = at[i] + rs[i].footprint(32) <= at[j] || at[j] + rs[j].footprint(32) <= at[i];
                    assert!(!live || apart, "tiles {i} and {j} overlap");
                }
            }
            let peak = (0..40)
                .map(|p| {
                    rs.iter()
                        .filter(|r| r.start <= p && p <= r.end)
                        .map(|r| r.footprint(32))
                        .sum::<u64>()
                })
                .max()
                .unwrap_or(0);
            assert!(span >= peak);
        }
    }
}
