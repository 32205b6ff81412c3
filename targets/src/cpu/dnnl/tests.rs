//! Tests of the oneDNN convolution against a plain loop.
use super::*;

/// A plain loop: `y[n, o, i, j] = b[o] + sum x[n, g cin_g + c, i s - p + k d, ...] w[o, c, k, l]`.
#[allow(clippy::too_many_arguments)]
fn reference(
    x: &[f32],
    w: &[f32],
    b: Option<&[f32]>,
    (batch, cin, h, wd): (usize, usize, usize, usize),
    (cout, kh, kw): (usize, usize, usize),
    (oh, ow): (usize, usize),
    (s, p, d, groups): (usize, usize, usize, usize),
) -> Vec<f32> {
    let (cin_g, cout_g) = (cin / groups, cout / groups);
    let mut y = vec![0f32; batch * cout * oh * ow];
    for n in 0..batch {
        for o in 0..cout {
            let g = o / cout_g;
            for i in 0..oh {
                for j in 0..ow {
                    let mut acc = b.map_or(0.0, |b| b[o] as f64);
                    for c in 0..cin_g {
                        for k in 0..kh {
                            for l in 0..kw {
                                let (r, q) = (
                                    (i * s + k * d) as i64 - p as i64,
                                    (j * s + l * d) as i64 - p as i64,
                                );
                                if r < 0 || q < 0 || r >= h as i64 || q >= wd as i64 {
                                    continue;
                                }
                                let xi = ((n * cin + g * cin_g + c) * h + r as usize) * wd + q as usize;
                                let wi = ((o * cin_g + c) * kh + k) * kw + l;
                                acc += x[xi] as f64 * w[wi] as f64;
                            }
                        }
                    }
                    y[((n * cout + o) * oh + i) * ow + j] = acc as f32;
                }
            }
        }
    }
    y
}

/// `data` of NCHW-ordered `dims` as stored: as it is, or channels-last ([N, H, W,
/// C] in memory); with its NCHW-order strides.
fn stored(data: &[f32], [n, c, h, w]: [usize; 4], channels_last: bool) -> (Vec<f32>, [usize; 4]) {
    if !channels_last {
        return (data.to_vec(), [c * h * w, h * w, w, 1]);
    }
    let mut m = vec![0f32; data.len()];
    for (i, v) in data.iter().enumerate() {
        let (b, ch, r, q) = (i / (c * h * w), i / (h * w) % c, i / w % h, i % w);
        m[((b * h + r) * w + q) * c + ch] = *v;
    }
    debug_assert!(n * c * h * w == data.len());
    (m, [c * h * w, 1, w * c, c])
}

/// oneDNN's convolution (the library is installed with the project's dependencies)
/// agrees with the definition on 2-D convolutions with stride, padding, dilation,
/// groups and a bias, on row-major and on channels-last operands — over more shapes
/// than the plan cache keeps, so plans are dropped and made again on the way.
#[test]
fn fuselab_conv_matches_the_definition_past_the_plan_cache() {
    assert!(
        version().is_some(),
        "libdnnl2 is not installed (scripts/install-deps.sh)"
    );
    for case in 0..(MAX_PLANS + 6) {
        let (s, p, d, groups) = (
            1 + case % 2,
            case % 3,
            1 + case % 2,
            if case % 4 == 0 { 2 } else { 1 },
        );
        let (batch, cin, h, wd, cout, kh, kw) = (1 + case % 2, 4, 5 + case % 7, 6 + case / 7, 6, 3, 2);
        let oh = (h + 2 * p - d * (kh - 1) - 1) / s + 1;
        let ow = (wd + 2 * p - d * (kw - 1) - 1) / s + 1;
        let x: Vec<f32> = (0..batch * cin * h * wd)
            .map(|i| ((i * 7 + case) as f32 * 0.37).sin())
            .collect();
        let w: Vec<f32> = (0..cout * (cin / groups) * kh * kw)
            .map(|i| (i as f32 * 0.91).cos())
            .collect();
        let b: Vec<f32> = (0..cout).map(|i| i as f32 * 0.25 - 0.5).collect();
        let bias = (case % 3 == 1).then_some(&b[..]);
        let mut y = vec![f32::NAN; batch * cout * oh * ow];
        let want = reference(
            &x,
            &w,
            bias,
            (batch, cin, h, wd),
            (cout, kh, kw),
            (oh, ow),
            (s, p, d, groups),
        );
        let address = |v: &[f32]| v.as_ptr() as i64;
        // Every third case reads a channels-last copy of the input and the weight
        // (as Inductor's layout optimization hands them over): [N, H, W, C] and
        // [O, KH, KW, I] in memory, NCHW / OIHW strides over it.
        let cin_g = cin / groups;
        let channels_last = case % 3 == 2;
        let (x_mem, xs) = stored(&x, [batch, cin, h, wd], channels_last);
        let (w_mem, ws) = stored(&w, [cout, cin_g, kh, kw], channels_last);
        // The result too, as the library writes it after a channels-last input.
        let ys: [usize; 4] = if channels_last {
            [oh * ow * cout, 1, ow * cout, cout]
        } else {
            [cout * oh * ow, oh * ow, ow, 1]
        };
        let [xs, ws, ys] = [xs, ws, ys].map(|v| v.map(|e| e as i64));
        let [s, p, d] = [s, p, d].map(|v| v as i64);
        let done = fuselab_conv(
            2,
            batch as i64,
            cin as i64,
            cout as i64,
            groups as i64,
            h as i64,
            wd as i64,
            1,
            kh as i64,
            kw as i64,
            1,
            oh as i64,
            ow as i64,
            1,
            s,
            s,
            1,
            p,
            p,
            0,
            d,
            d,
            1,
            xs[0],
            xs[1],
            xs[2],
            xs[3],
            0,
            ws[0],
            ws[1],
            ws[2],
            ws[3],
            0,
            ys[0],
            ys[1],
            ys[2],
            ys[3],
            0,
            1,
            address(&x_mem),
            address(&w_mem),
            bias.map_or(0, address),
            y.as_mut_ptr() as i64,
        );
        assert_eq!(done, 1, "case {case}: oneDNN refused the convolution");
        for (i, want) in want.iter().enumerate() {
            let at = [i / (cout * oh * ow), i / (oh * ow) % cout, i / ow % oh, i % ow];
            let got = y[at.iter().zip(ys).map(|(&k, s)| k as i64 * s).sum::<i64>() as usize];
            assert!(
                (got - want).abs() < 1e-4,
                "case {case}, element {i}: {got} vs {want}"
            );
        }
    }
}
