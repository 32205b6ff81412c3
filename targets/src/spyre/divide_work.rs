//! Work division over Spyre's cores: how many parts each dimension of one op is split
//! into so that the cores share it (torch-spyre's three passes; rules in
//! `../shared/research/spyre_ascend.md`, "Work division"):
//!
//! 1. **span**: a core addresses at most [`SPAN_LIMIT_BYTES`] of one tensor. A tensor
//!    whose device bytes exceed it is split along its outermost device dim (for a 2-D
//!    tensor that is its stick blocks): the smallest divisor of that dim's size with
//!    `bytes / split <= limit`. These splits are committed.
//! 2. **matmul**: every `(b, m, n, k)` split (divisors of B, M, N sticks, K sticks, the
//!    committed ones fixed) with product at most `cores` is priced by [`MatmulCost`]
//!    (compute + HBM traffic + partial sums; every split divides, so the imbalance term
//!    is 0) and the cheapest is taken (ties: the earlier in enumeration order).
//! 3. **generic** (everything else): the output dims in decreasing size (stick dims in
//!    sticks; ties in dim order) each take the largest divisor of their size that is at
//!    most the cores still free (`cores / product so far`); what is left goes to at most
//!    one reduction dim, the largest.
//!
//! Invariants ([`check`], property-tested): product of splits `<= cores`; every split
//! divides its dim's (stick-adjusted) size; at most one reduction dim split.

/// The per-core addressable span of one tensor (about 256 MiB).
pub const SPAN_LIMIT_BYTES: i64 = 256 << 20;
/// Cores per Spyre card.
pub const CORES: i64 = 32;

/// One dim of an op's iteration space as work division sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkDim {
    /// Its name in reports (`c0`, `r0`, `m`, `k`).
    pub name: String,
    /// Its size, in sticks for a stick dim, else in elements.
    pub size: i64,
    /// Whether the op reduces over it.
    pub reduction: bool,
}

impl WorkDim {
    /// A dim named `name` of `size`.
    pub fn new(name: &str, size: i64, reduction: bool) -> Self {
        Self {
            name: name.to_string(),
            size,
            reduction,
        }
    }
}

/// One tensor an op touches, for the span pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorSpan {
    /// Its device bytes (padding included).
    pub bytes: i64,
    /// The op dim along its outermost device dim (`None`: none, it cannot be split).
    pub outer_dim: Option<usize>,
}

/// Which dims of a matmul are `b` (optional), `m`, `n` (in sticks), `k` (in sticks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatmulDims {
    /// The batch dim, if any.
    pub b: Option<usize>,
    /// Rows of A and of the output.
    pub m: usize,
    /// Columns of B and of the output, in sticks.
    pub n: usize,
    /// The reduced dim, in sticks.
    pub k: usize,
}

/// The cost model's parameters: project parameters in the order of the public Spyre
/// figures (not measured here): fp16 peak per core and the card's memory bandwidth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatmulCost {
    /// Multiply-adds x 2 per second per core.
    pub flops_per_core: f64,
    /// Device memory bytes per second (the whole card).
    pub bytes_per_second: f64,
    /// Bytes of one element.
    pub elem_bytes: f64,
    /// Elements per stick.
    pub stick: f64,
}

impl Default for MatmulCost {
    fn default() -> Self {
        Self {
            flops_per_core: 4.7e12,
            bytes_per_second: 200e9,
            elem_bytes: 2.0,
            stick: 64.0,
        }
    }
}

impl MatmulCost {
    /// Seconds of a `[B, M, K] x [B, K, N]` matmul (`n`, `k` in sticks) split
    /// `(sb, sm, sn, sk)`: per-core compute, the total HBM traffic of every core's A, B
    /// and output slices over the card's bandwidth, and fp32 partial sums written and
    /// read once per extra K part.
    pub fn seconds(&self, size: [i64; 4], split: [i64; 4]) -> f64 {
        let [b, m, n, k] = size.map(|v| v as f64);
        let (n, k) = (n * self.stick, k * self.stick);
        let [sb, sm, sn, sk] = split.map(|v| v as f64);
        let compute = 2.0 * b * m * n * k / (sb * sm * sn * sk) / self.flops_per_core;
        let a = sn * b * m * k;
        let bb = sm * b * k * n;
        let out = sk * b * m * n;
        let hbm = (a + bb + out) * self.elem_bytes / self.bytes_per_second;
        let partial = (sk - 1.0) * b * m * n * 4.0 * 2.0 / self.bytes_per_second;
        compute + hbm + partial
    }
}

/// The divisors of `n` in increasing order.
pub fn divisors(n: i64) -> Vec<i64> {
    let n = n.max(1);
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1;
    while d * d <= n {
        if n % d == 0 {
            small.push(d);
            if d != n / d {
                large.push(n / d);
            }
        }
        d += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

fn largest_divisor_at_most(n: i64, cap: i64) -> i64 {
    divisors(n).into_iter().filter(|&d| d <= cap).max().unwrap_or(1)
}

/// Pass 1: the committed splits (0: none) that bring every tensor's per-core span under
/// `limit`. `Err`: a tensor cannot be split enough (its name in the message is the
/// caller's to add).
pub fn span_splits(dims: &[WorkDim], tensors: &[TensorSpan], limit: i64) -> Result<Vec<i64>, String> {
    let mut split = vec![0i64; dims.len()];
    for t in tensors {
        if t.bytes <= limit {
            continue;
        }
        let Some(d) = t.outer_dim else {
            return Err(format!(
                "a tensor of {} bytes exceeds the per-core span of {limit} bytes and has no dim to split",
                t.bytes
            ));
        };
        let already = split[d].max(1);
        let found = divisors(dims[d].size)
            .into_iter()
            .find(|&f| f % already == 0 && (t.bytes + f - 1) / f <= limit);
        match found {
            Some(f) => split[d] = f,
            None => {
                return Err(format!(
                "a tensor of {} bytes cannot be split along {} ({}) under the per-core span of {limit} bytes",
                t.bytes, dims[d].name, dims[d].size
            ))
            }
        }
    }
    Ok(split)
}

/// Pass 2: the cheapest matmul split under [`MatmulCost`], the committed ones (non-zero
/// in `committed`) fixed.
pub fn matmul_split(
    dims: &[WorkDim],
    mm: MatmulDims,
    committed: &[i64],
    cores: i64,
    cost: &MatmulCost,
) -> Vec<i64> {
    let pick = |d: Option<usize>| -> Vec<i64> {
        match d {
            None => vec![1],
            Some(d) if committed[d] > 0 => vec![committed[d]],
            Some(d) => divisors(dims[d].size),
        }
    };
    let size = |d: Option<usize>| d.map_or(1, |d| dims[d].size);
    let sizes = [size(mm.b), size(Some(mm.m)), size(Some(mm.n)), size(Some(mm.k))];
    let mut best: Option<(f64, [i64; 4])> = None;
    for &sb in &pick(mm.b) {
        for &sm in &pick(Some(mm.m)) {
            for &sn in &pick(Some(mm.n)) {
                for &sk in &pick(Some(mm.k)) {
                    if sb * sm * sn * sk > cores {
                        continue;
                    }
                    let c = cost.seconds(sizes, [sb, sm, sn, sk]);
                    if best.is_none_or(|(b, _)| c < b) {
                        best = Some((c, [sb, sm, sn, sk]));
                    }
                }
            }
        }
    }
    let mut split: Vec<i64> = committed.iter().map(|&c| c.max(1)).collect();
    if let Some((_, [sb, sm, sn, sk])) = best {
        if let Some(b) = mm.b {
            split[b] = sb;
        }
        split[mm.m] = sm;
        split[mm.n] = sn;
        split[mm.k] = sk;
    }
    split
}

/// Pass 3: the generic split, the committed ones fixed.
pub fn generic_split(dims: &[WorkDim], committed: &[i64], cores: i64) -> Vec<i64> {
    let mut split: Vec<i64> = committed.iter().map(|&c| c.max(1)).collect();
    let mut used: i64 = split.iter().product();
    let mut order: Vec<usize> = (0..dims.len())
        .filter(|&d| !dims[d].reduction && committed[d] == 0)
        .collect();
    order.sort_by_key(|&d| std::cmp::Reverse(dims[d].size));
    for d in order {
        let f = largest_divisor_at_most(dims[d].size, cores / used);
        split[d] = f;
        used *= f;
    }
    let reduction_split = (0..dims.len()).any(|d| dims[d].reduction && split[d] > 1);
    if !reduction_split && cores / used > 1 {
        let largest = (0..dims.len())
            .filter(|&d| dims[d].reduction)
            .max_by_key(|&d| (dims[d].size, std::cmp::Reverse(d)));
        if let Some(d) = largest {
            split[d] = largest_divisor_at_most(dims[d].size, cores / used);
        }
    }
    split
}

/// The three passes for one op.
pub fn divide(
    dims: &[WorkDim],
    tensors: &[TensorSpan],
    matmul: Option<MatmulDims>,
    cores: i64,
    cost: &MatmulCost,
) -> Result<Vec<i64>, String> {
    let committed = span_splits(dims, tensors, SPAN_LIMIT_BYTES)?;
    if committed.iter().map(|&c| c.max(1)).product::<i64>() > cores {
        return Err(format!(
            "the per-core span needs {} parts, more than the {cores} cores",
            committed.iter().map(|&c| c.max(1)).product::<i64>()
        ));
    }
    let split = match matmul {
        Some(mm) => matmul_split(dims, mm, &committed, cores, cost),
        None => generic_split(dims, &committed, cores),
    };
    check(dims, &split, cores)?;
    Ok(split)
}

/// The invariants of a split: product at most `cores`, every split divides its dim, at
/// most one reduction dim split.
pub fn check(dims: &[WorkDim], split: &[i64], cores: i64) -> Result<(), String> {
    let product: i64 = split.iter().product();
    if split.len() != dims.len() || product > cores || product < 1 {
        return Err(format!("the split's product {product} is not within 1..={cores}"));
    }
    if let Some((d, s)) = dims.iter().zip(split).find(|(d, &s)| s < 1 || d.size % s != 0) {
        return Err(format!(
            "the split {s} of {} does not divide its size {}",
            d.name, d.size
        ));
    }
    if dims
        .iter()
        .zip(split)
        .filter(|(d, &s)| d.reduction && s > 1)
        .count()
        > 1
    {
        return Err("more than one reduction dim is split".into());
    }
    Ok(())
}

/// The split as `{name: parts}` text, dims not split left out, in dim order.
pub fn describe(dims: &[WorkDim], split: &[i64]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .zip(split)
        .filter(|(_, &s)| s > 1)
        .map(|(d, s)| format!("{}:{s}", d.name))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dims(spec: &[(&str, i64, bool)]) -> Vec<WorkDim> {
        spec.iter().map(|&(n, s, r)| WorkDim::new(n, s, r)).collect()
    }

    /// The article's matmul: [8192, 32768] @ [32768, 4096] fp16. A is 512 MiB laid
    /// [512 K-sticks, 8192, 64]: pass 1 splits K in 2; pass 2 spends the other 16
    /// cores on M and N (a 2 x 16 grid).
    #[test]
    fn article_matmul() {
        let d = dims(&[
            ("m", 8192, false),
            ("n", 4096 / 64, false),
            ("k", 32768 / 64, true),
        ]);
        let tensors = [
            TensorSpan {
                bytes: 8192 * 32768 * 2,
                outer_dim: Some(2),
            },
            TensorSpan {
                bytes: 32768 * 4096 * 2,
                outer_dim: Some(1),
            },
            TensorSpan {
                bytes: 8192 * 4096 * 2,
                outer_dim: Some(1),
            },
        ];
        assert_eq!(
            span_splits(&d, &tensors, SPAN_LIMIT_BYTES).unwrap(),
            vec![0, 0, 2]
        );
        let mm = MatmulDims {
            b: None,
            m: 0,
            n: 1,
            k: 2,
        };
        let split = divide(&d, &tensors, Some(mm), CORES, &MatmulCost::default()).unwrap();
        assert_eq!(split[2], 2);
        assert_eq!(split[0] * split[1], 16, "{split:?}");
    }

    #[test]
    fn generic_examples() {
        let d = dims(&[("o0", 16, false), ("o1", 16, false), ("r0", 8, true)]);
        assert_eq!(generic_split(&d, &[0, 0, 0], 32), vec![16, 2, 1]);
        let d = dims(&[("o0", 8, false), ("o1", 8, false)]);
        assert_eq!(generic_split(&d, &[0, 0], 32), vec![8, 4]);
        let d = dims(&[("o0", 4, false), ("r0", 8, true)]);
        assert_eq!(generic_split(&d, &[0, 0], 32), vec![4, 8]);
        // Pointwise [512, 1024] fp16: c0 = 512 rows, c1 = 16 sticks -> {c0: 32}.
        let d = dims(&[("c0", 512, false), ("c1", 1024 / 64, false)]);
        assert_eq!(describe(&d, &generic_split(&d, &[0, 0], 32)), "{c0:32}");
        // [6, 640] fp16: c1 = 10 sticks first (10), then 32 / 10 = 3 cores for c0 = 6.
        let d = dims(&[("c0", 6, false), ("c1", 640 / 64, false)]);
        assert_eq!(describe(&d, &generic_split(&d, &[0, 0], 32)), "{c0:3, c1:10}");
    }

    #[test]
    fn a_span_that_cannot_be_split_is_an_error() {
        let d = dims(&[("c0", 1, false)]);
        let t = [TensorSpan {
            bytes: 1 << 30,
            outer_dim: Some(0),
        }];
        assert!(span_splits(&d, &t, SPAN_LIMIT_BYTES).is_err());
        assert!(span_splits(
            &d,
            &[TensorSpan {
                bytes: 1 << 30,
                outer_dim: None
            }],
            SPAN_LIMIT_BYTES
        )
        .is_err());
    }

    /// The invariants on 2,000 random ops (seeded), generic and matmul.
    #[test]
    fn invariants_hold_on_random_ops() {
        let mut next = crate::spyre::seeded(0x5eed_u64);
        let cost = MatmulCost::default();
        for _ in 0..2000 {
            let rank = 1 + next(4) as usize;
            let d: Vec<WorkDim> = (0..rank)
                .map(|i| WorkDim::new(&format!("d{i}"), 1 + next(700) as i64, next(3) == 0))
                .collect();
            let cores = [1, 2, 7, 16, 32][next(5) as usize];
            let split = generic_split(&d, &vec![0; rank], cores);
            check(&d, &split, cores).unwrap_or_else(|e| panic!("{d:?} {split:?}: {e}"));
            // Greedy fills: no output dim could take one more divisor step.
            if rank >= 3 {
                let mut md = d.clone();
                md[2].reduction = true;
                md[0].reduction = false;
                md[1].reduction = false;
                let mm = MatmulDims {
                    b: None,
                    m: 0,
                    n: 1,
                    k: 2,
                };
                let split = matmul_split(&md, mm, &vec![0; rank], cores, &cost);
                check(&md, &split, cores).unwrap_or_else(|e| panic!("{md:?} {split:?}: {e}"));
            }
        }
    }

    /// The checker catches each broken invariant.
    #[test]
    fn check_rejects_broken_splits() {
        let d = dims(&[("c0", 16, false), ("r0", 8, true), ("r1", 4, true)]);
        assert!(check(&d, &[16, 4, 1], 32).is_err(), "product 64");
        assert!(check(&d, &[3, 1, 1], 32).is_err(), "3 does not divide 16");
        assert!(check(&d, &[1, 2, 2], 32).is_err(), "two reduction dims");
        assert!(check(&d, &[16, 2, 1], 32).is_ok());
    }
}
