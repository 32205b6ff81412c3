//! Scaled dot-product attention, as the fused kernels compute it (PyTorch's
//! `_scaled_dot_product_efficient_attention`): for each batch and head,
//! `softmax(q k^T * scale + mask) v` with the scores, softmax and sums in f64 and one
//! rounding of the result; a row whose scores are all -inf gives zeros (torch's
//! `_safe_softmax`, which the math fallback uses too).

use crate::tensor::Tensor;
use fuselab_dialects::types::DType;

/// `q` [B,H,L,E], `k` [B,H,S,E], `v` [B,H,S,Ev], `mask` broadcasting to [B,H,L,S]
/// (added to the scores); the result [B,H,L,Ev] in `dtype`.
pub fn sdpa(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>, scale: f64, dtype: DType) -> Tensor {
    let (b, h, l, e) = (q.shape[0], q.shape[1], q.shape[2], q.shape[3]);
    let (s, ev) = (k.shape[2], v.shape[3]);
    let at = |t: &Tensor, i: [i64; 4]| {
        // Broadcast: a size-1 dim reads index 0.
        let mut f = 0i64;
        for (d, &x) in i.iter().enumerate() {
            let n = t.shape[d];
            f = f * n + if n == 1 { 0 } else { x };
        }
        t.data[f as usize]
    };
    let mut out = Vec::with_capacity((b * h * l * ev) as usize);
    let mut scores = vec![0f64; s as usize];
    for bi in 0..b {
        for hi in 0..h {
            for li in 0..l {
                for (si, score) in scores.iter_mut().enumerate() {
                    let si = si as i64;
                    let dot: f64 = (0..e)
                        .map(|ei| at(q, [bi, hi, li, ei]) * at(k, [bi, hi, si, ei]))
                        .sum();
                    *score = dot * scale + mask.map_or(0.0, |m| at(m, [bi, hi, li, si]));
                }
                let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let weights: Vec<f64> = if max == f64::NEG_INFINITY {
                    vec![0.0; scores.len()]
                } else {
                    let exps: Vec<f64> = scores.iter().map(|&x| (x - max).exp()).collect();
                    let sum: f64 = exps.iter().sum();
                    exps.iter().map(|x| x / sum).collect()
                };
                for ei in 0..ev {
                    out.push(
                        weights
                            .iter()
                            .enumerate()
                            .map(|(si, w)| w * at(v, [bi, hi, si as i64, ei]))
                            .sum(),
                    );
                }
            }
        }
    }
    Tensor::new(vec![b, h, l, ev], dtype, out)
}

/// `t` [B,H,L,E] with dims 1 and 2 swapped ([B,L,H,E], contiguous): the layout in which
/// the fused kernel writes its result.
pub fn heads_last(t: &Tensor) -> Tensor {
    let (b, h, l, e) = (t.shape[0], t.shape[1], t.shape[2], t.shape[3]);
    let mut data = Vec::with_capacity(t.data.len());
    for bi in 0..b {
        for li in 0..l {
            for hi in 0..h {
                let base = (((bi * h + hi) * l + li) * e) as usize;
                data.extend_from_slice(&t.data[base..base + e as usize]);
            }
        }
    }
    Tensor {
        shape: vec![b, l, h, e],
        dtype: t.dtype,
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(shape: &[i64], data: &[f64]) -> Tensor {
        Tensor::new(shape.to_vec(), DType::F32, data.to_vec())
    }

    #[test]
    fn attends_by_softmax_weights_and_masks_rows() {
        // One query, two keys: scores [0, ln 3] -> weights [1/4, 3/4] over values [4, 8].
        let q = t(&[1, 1, 2, 1], &[1.0, 1.0]);
        let k = t(&[1, 1, 2, 1], &[0.0, 3f64.ln()]);
        let v = t(&[1, 1, 2, 1], &[4.0, 8.0]);
        // Row 1 fully masked: zeros.
        let mask = t(&[1, 1, 2, 2], &[0.0, 0.0, f64::NEG_INFINITY, f64::NEG_INFINITY]);
        let out = sdpa(&q, &k, &v, Some(&mask), 1.0, DType::F32);
        assert!((out.data[0] - 7.0).abs() < 1e-6, "{:?}", out.data);
        assert_eq!(out.data[1], 0.0);
        // The scale multiplies the scores: scale 0 gives the plain mean.
        let mean = sdpa(&q, &k, &v, None, 0.0, DType::F32);
        assert!((mean.data[0] - 6.0).abs() < 1e-6);
    }

    #[test]
    fn heads_last_swaps_heads_and_rows() {
        // [1, 2 heads, 2 rows, 1]: (h, l) order 0..4 becomes (l, h).
        let x = t(&[1, 2, 2, 1], &[0.0, 1.0, 2.0, 3.0]);
        let y = heads_last(&x);
        assert_eq!(y.shape, vec![1, 2, 2, 1]);
        assert_eq!(y.data, vec![0.0, 2.0, 1.0, 3.0]);
    }
}
