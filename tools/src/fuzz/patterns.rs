//! Near-miss graphs for the pattern-rewriting passes (`--fuse-rnn-cells`,
//! `--fuse-attention`, `--pointless-cumsum`): each seed writes one to three forms the
//! passes look for — an LSTM or GRU cell as `torch.export` decomposes it, the math form of
//! scaled dot-product attention, a cumsum of a constant — chained so that a later form
//! reads an earlier one's result (an unrolled LSTM's steps, stacked attention), with
//! seeded damage: one gate's activation changed, two chunks swapped, a bias on one side
//! only, a mask of another shape or a broadcast one, an extra user of an intermediate
//! (returned as an output), operands commuted. A pass must rewrite the intact forms,
//! leave the damaged ones alone, and never change what the graph computes; the checks
//! run with the GPU target, where the passes rewrite (`fuse-fuzz --patterns`).

use super::{op_line, ty};
use fuselab_exec::inputs::Rng;
use std::fmt::Write as _;

/// A graph being written: its parameters, body and the values it may return.
struct Graph {
    rng: Rng,
    args: Vec<String>,
    body: String,
    outs: Vec<(String, String)>,
    next: usize,
}

impl Graph {
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%p{}", self.next)
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.rng.below(one_in) == 0
    }

    fn input(&mut self, shape: &[i64], dtype: &str) -> String {
        let name = format!("%a{}", self.args.len());
        self.args.push(format!("{name}: {}", ty(shape, dtype)));
        name
    }

    /// `%r = "aten.<op>"(operands) {attrs} : (types) -> result`.
    fn op(&mut self, op: &str, operands: &[(&str, &[i64])], attrs: &str, result: &[i64]) -> String {
        self.op_typed(op, operands, attrs, result, "f32")
    }

    fn op_typed(
        &mut self,
        op: &str,
        operands: &[(&str, &[i64])],
        attrs: &str,
        result: &[i64],
        dtype: &str,
    ) -> String {
        let r = self.fresh();
        let names: Vec<&str> = operands.iter().map(|(n, _)| *n).collect();
        let types: Vec<String> = operands
            .iter()
            .map(|(n, s)| {
                ty(
                    s,
                    if n.starts_with("%m") || n.ends_with("_b") {
                        "i1"
                    } else {
                        "f32"
                    },
                )
            })
            .collect();
        self.body
            .push_str(&op_line(&r, op, &names, &types, attrs, &ty(result, dtype)));
        r
    }

    fn constant(&mut self, value: &str, shape: &[i64]) -> String {
        let r = self.fresh();
        let _ = writeln!(
            self.body,
            "  {r} = arith.constant dense<{value}> : {}",
            ty(shape, "f32")
        );
        r
    }

    /// Returns `v` as an extra output (an extra user of an intermediate) one time in `n`.
    fn maybe_leak(&mut self, v: &str, shape: &[i64], one_in: u64) {
        if self.chance(one_in) {
            self.outs.push((v.to_string(), ty(shape, "f32")));
        }
    }

    /// `x @ w^T (+ b)` as `torch.export` writes a linear layer: `addmm(b, x, permute(w))`,
    /// or `mm` without the bias.
    fn projection(&mut self, x: &str, w: &str, b: Option<&str>, batch: i64, d: i64, width: i64) -> String {
        let wt = self.op(
            "permute",
            &[(w, &[width, d])],
            "dims = array<i64: 1, 0>",
            &[d, width],
        );
        match b {
            Some(b) => self.op(
                "addmm",
                &[(b, &[width]), (x, &[batch, d]), (&wt, &[d, width])],
                "",
                &[batch, width],
            ),
            None => self.op("mm", &[(x, &[batch, d]), (&wt, &[d, width])], "", &[batch, width]),
        }
    }

    /// The chunks of `v` ([batch, count*g]) along dim 1, in order, with two swapped one
    /// time in `swap_one_in`.
    fn chunks(&mut self, v: &str, batch: i64, count: i64, g: i64, swap_one_in: u64) -> Vec<String> {
        let mut order: Vec<i64> = (0..count).collect();
        if self.chance(swap_one_in) {
            let a = self.rng.below(count as u64) as usize;
            order.swap(a, (a + 1) % count as usize);
        }
        order
            .iter()
            .map(|&k| {
                let attrs = format!(
                    "dim = 1 : i64, start = {} : i64, end = {} : i64, step = 1 : i64",
                    k * g,
                    (k + 1) * g
                );
                self.op("slice", &[(v, &[batch, count * g])], &attrs, &[batch, g])
            })
            .collect()
    }

    /// An activation, replaced by the other one time in `one_in` (a gate changed).
    fn activation(&mut self, wanted: &str, x: &str, shape: &[i64], one_in: u64) -> String {
        let op = match (wanted, self.chance(one_in)) {
            ("sigmoid", true) => "tanh",
            ("tanh", true) => "sigmoid",
            (w, _) => w,
        };
        self.op(op, &[(x, shape)], "", shape)
    }

    /// `a * b` or `b * a`.
    fn commuted(&mut self, op: &str, a: &str, b: &str, shape: &[i64]) -> String {
        if self.chance(2) {
            self.op(op, &[(a, shape), (b, shape)], "", shape)
        } else {
            self.op(op, &[(b, shape), (a, shape)], "", shape)
        }
    }
}

/// The weights of one RNN cell: input and hidden weights and (optional) biases.
struct CellWeights {
    w_ih: String,
    w_hh: String,
    b_ih: Option<String>,
    b_hh: Option<String>,
}

fn cell_weights(g: &mut Graph, gates: i64, d: i64, h: i64) -> CellWeights {
    let w_ih = g.input(&[gates * h, d], "f32");
    let w_hh = g.input(&[gates * h, h], "f32");
    // Biases on both sides, neither, or (damage) one side only.
    let (bi, bh) = match g.rng.below(6) {
        0 => (false, false),
        1 => (true, false),
        2 => (false, true),
        _ => (true, true),
    };
    let b_ih = bi.then(|| g.input(&[gates * h], "f32"));
    let b_hh = bh.then(|| g.input(&[gates * h], "f32"));
    CellWeights {
        w_ih,
        w_hh,
        b_ih,
        b_hh,
    }
}

/// One LSTM step; returns (hy, cy).
fn lstm_step(
    g: &mut Graph,
    w: &CellWeights,
    x: &str,
    hx: &str,
    cx: &str,
    (b, d, h): (i64, i64, i64),
) -> (String, String) {
    let s = [b, h];
    let hidden = g.projection(hx, &w.w_hh, w.b_hh.as_deref(), b, h, 4 * h);
    let input = g.projection(x, &w.w_ih, w.b_ih.as_deref(), b, d, 4 * h);
    let gates = g.commuted("add", &hidden, &input, &[b, 4 * h]);
    g.maybe_leak(&gates, &[b, 4 * h], 12);
    let c = g.chunks(&gates, b, 4, h, 10);
    let i = g.activation("sigmoid", &c[0], &s, 12);
    let f = g.activation("sigmoid", &c[1], &s, 12);
    let gg = g.activation("tanh", &c[2], &s, 12);
    let o = g.activation("sigmoid", &c[3], &s, 12);
    g.maybe_leak(&f, &s, 12);
    let fc = g.commuted("mul", &f, cx, &s);
    let ig = g.commuted("mul", &i, &gg, &s);
    g.maybe_leak(&ig, &s, 12);
    let cy = g.commuted("add", &fc, &ig, &s);
    let t = g.op("tanh", &[(&cy, &s)], "", &s);
    g.maybe_leak(&t, &s, 12);
    let hy = g.commuted("mul", &o, &t, &s);
    (hy, cy)
}

/// One GRU step; returns hy.
fn gru_step(g: &mut Graph, w: &CellWeights, x: &str, hx: &str, (b, d, h): (i64, i64, i64)) -> String {
    let s = [b, h];
    let input = g.projection(x, &w.w_ih, w.b_ih.as_deref(), b, d, 3 * h);
    let hidden = g.projection(hx, &w.w_hh, w.b_hh.as_deref(), b, h, 3 * h);
    let ic = g.chunks(&input, b, 3, h, 10);
    let hc = g.chunks(&hidden, b, 3, h, 10);
    let r_pre = g.commuted("add", &ic[0], &hc[0], &s);
    let r = g.activation("sigmoid", &r_pre, &s, 12);
    let z_pre = g.commuted("add", &ic[1], &hc[1], &s);
    let z = g.activation("sigmoid", &z_pre, &s, 12);
    g.maybe_leak(&z, &s, 12);
    let scaled = g.commuted("mul", &hc[2], &r, &s);
    let n_pre = g.commuted("add", &ic[2], &scaled, &s);
    let n = g.activation("tanh", &n_pre, &s, 12);
    let diff = g.op("sub", &[(hx, &s), (&n, &s)], "", &s);
    g.maybe_leak(&diff, &s, 12);
    let gated = g.commuted("mul", &diff, &z, &s);
    g.commuted("add", &gated, &n, &s)
}

/// An RNN cell stepped one to three times, each step reading the previous state.
fn rnn(g: &mut Graph) {
    let (b, d, h) = (
        1 + g.rng.below(4) as i64,
        2 + g.rng.below(6) as i64,
        [2, 4, 8][g.rng.below(3) as usize],
    );
    let lstm = g.chance(2);
    let w = cell_weights(g, if lstm { 4 } else { 3 }, d, h);
    let x = g.input(&[b, d], "f32");
    let mut hx = g.input(&[b, h], "f32");
    let mut cx = if lstm {
        g.input(&[b, h], "f32")
    } else {
        String::new()
    };
    for _ in 0..1 + g.rng.below(3) {
        if lstm {
            let (hy, cy) = lstm_step(g, &w, &x, &hx, &cx, (b, d, h));
            (hx, cx) = (hy, cy);
        } else {
            hx = gru_step(g, &w, &x, &hx, (b, d, h));
        }
        g.maybe_leak(&hx, &[b, h], 3);
    }
    g.outs.push((hx, ty(&[b, h], "f32")));
    if lstm {
        g.outs.push((cx, ty(&[b, h], "f32")));
    }
}

/// The math form of `scaled_dot_product_attention(q, k, v, mask)` over [B, H, L, E]
/// queries and [B, H, S, E] keys; returns the [B, H, L, Ev] result.
fn attention_form(
    g: &mut Graph,
    q: &str,
    k: &str,
    v: &str,
    (bb, hh, l, s, e, ev): (i64, i64, i64, i64, i64, i64),
) -> String {
    let scale = (1.0 / (e as f64).sqrt()).sqrt();
    let c = g.constant(&format!("{scale:.17e}"), &[]);
    let qs = g.op("mul", &[(q, &[bb, hh, l, e]), (&c, &[])], "", &[bb, hh, l, e]);
    let kt = g.op(
        "permute",
        &[(k, &[bb, hh, s, e])],
        "dims = array<i64: 0, 1, 3, 2>",
        &[bb, hh, e, s],
    );
    let ks = g.op("mul", &[(&kt, &[bb, hh, e, s]), (&c, &[])], "", &[bb, hh, e, s]);
    let qe = g.op("expand", &[(&qs, &[bb, hh, l, e])], "", &[bb, hh, l, e]);
    let qv = g.op("view", &[(&qe, &[bb, hh, l, e])], "", &[bb * hh, l, e]);
    let ke = g.op("expand", &[(&ks, &[bb, hh, e, s])], "", &[bb, hh, e, s]);
    let kv = g.op("view", &[(&ke, &[bb, hh, e, s])], "", &[bb * hh, e, s]);
    let p = g.op(
        "bmm",
        &[(&qv, &[bb * hh, l, e]), (&kv, &[bb * hh, e, s])],
        "",
        &[bb * hh, l, s],
    );
    let mut scores = g.op("view", &[(&p, &[bb * hh, l, s])], "", &[bb, hh, l, s]);
    g.maybe_leak(&scores, &[bb, hh, l, s], 12);
    // No mask, a [1|B, 1, L, S] mask, or (damage) one broadcast along the keys.
    let mask_shape: Option<Vec<i64>> = match g.rng.below(4) {
        0 => None,
        1 => Some(vec![1, 1, l, s]),
        2 => Some(vec![bb, 1, l, s]),
        _ => Some(vec![1, 1, l, 1]),
    };
    if let Some(shape) = mask_shape {
        let m = format!("%m{}", g.args.len());
        g.args.push(format!("{m}: {}", ty(&shape, "i1")));
        let zero = g.constant("0.0", &[]);
        let ninf = g.constant("0xFF800000", &[]);
        let bias = g.op("where", &[(&m, &shape), (&zero, &[]), (&ninf, &[])], "", &shape);
        scores = g.op(
            "add",
            &[(&scores, &[bb, hh, l, s]), (&bias, &shape)],
            "",
            &[bb, hh, l, s],
        );
    }
    let sh = [bb, hh, l, s];
    let sm = g.op("softmax", &[(&scores, &sh)], "dim = -1 : i64", &sh);
    g.maybe_leak(&sm, &sh, 12);
    let ni = g.constant("0xFF800000", &[]);
    let eq = g.op_typed("eq", &[(&scores, &sh), (&ni, &[])], "", &sh, "i1");
    let eq_b = format!("{eq}_b");
    let _ = writeln!(
        g.body,
        "  {eq_b} = \"aten.logical_not\"({eq}) : ({}) -> {}",
        ty(&sh, "i1"),
        ty(&sh, "i1")
    );
    let any = g.fresh();
    let row = [bb, hh, l, 1];
    let _ = writeln!(
        g.body,
        "  {any}_b = \"aten.any\"({eq_b}) {{dims = array<i64: -1>, keepdim = true}} : ({}) -> {}",
        ty(&sh, "i1"),
        ty(&row, "i1")
    );
    let none = g.fresh();
    let _ = writeln!(
        g.body,
        "  {none}_b = \"aten.logical_not\"({any}_b) : ({}) -> {}",
        ty(&row, "i1"),
        ty(&row, "i1")
    );
    let zeros = g.constant("0.0", &sh);
    let none_b = format!("{none}_b");
    let w = g.op("where", &[(&none_b, &row), (&zeros, &sh), (&sm, &sh)], "", &sh);
    let we = g.op("expand", &[(&w, &sh)], "", &sh);
    let wv = g.op("view", &[(&we, &sh)], "", &[bb * hh, l, s]);
    let ve = g.op("expand", &[(v, &[bb, hh, s, ev])], "", &[bb, hh, s, ev]);
    let vv = g.op("view", &[(&ve, &[bb, hh, s, ev])], "", &[bb * hh, s, ev]);
    let o = g.op(
        "bmm",
        &[(&wv, &[bb * hh, l, s]), (&vv, &[bb * hh, s, ev])],
        "",
        &[bb * hh, l, ev],
    );
    let ov = g.op("view", &[(&o, &[bb * hh, l, ev])], "", &[bb, hh, l, ev]);
    let t1 = g.op(
        "permute",
        &[(&ov, &[bb, hh, l, ev])],
        "dims = array<i64: 2, 0, 1, 3>",
        &[l, bb, hh, ev],
    );
    let cl = g.op("clone", &[(&t1, &[l, bb, hh, ev])], "", &[l, bb, hh, ev]);
    g.op(
        "permute",
        &[(&cl, &[l, bb, hh, ev])],
        "dims = array<i64: 1, 2, 0, 3>",
        &[bb, hh, l, ev],
    )
}

/// One to three attention forms, each later one taking the previous result as its query
/// (or, where the shapes allow, its key or value).
fn attention(g: &mut Graph) {
    let (bb, hh) = (1 + g.rng.below(2) as i64, 1 + g.rng.below(3) as i64);
    let l = [4, 8][g.rng.below(2) as usize];
    // Head dims a multiple of 4 run fused on the GPU; another one (damage) does not.
    let e = [4, 8, 8, 6][g.rng.below(4) as usize];
    let shape = [bb, hh, l, e];
    let mut q = g.input(&shape, "f32");
    let k = g.input(&shape, "f32");
    let v = g.input(&shape, "f32");
    for _ in 0..1 + g.rng.below(3) {
        let out = attention_form(g, &q, &k, &v, (bb, hh, l, l, e, e));
        g.maybe_leak(&out, &shape, 4);
        q = out;
    }
    g.outs.push((q, ty(&shape, "f32")));
}

/// A cumsum of a constant along the last dim, as `torch.export` decomposes it (the
/// constant expanded, a lower-triangular mask, `where`, `sum`), sometimes of an input
/// instead (damage: not constant) and sometimes with the mask upper-triangular.
fn cumsum(g: &mut Graph) {
    let (rows, n) = (1 + g.rng.below(4) as i64, 2 + g.rng.below(8) as i64);
    let full = if g.chance(4) {
        g.input(&[rows, n], "f32")
    } else {
        let value = ["1.0", "2.0", "0.5"][g.rng.below(3) as usize];
        g.constant(value, &[rows, n])
    };
    let attrs = "fuselab.origin = \"cumsum\", fuselab.op_group = \"cumsum\"";
    let r = g.op("view", &[(&full, &[rows, n])], attrs, &[rows, 1, n]);
    let x = g.op("expand", &[(&r, &[rows, 1, n])], attrs, &[rows, n, n]);
    let idx = g.fresh();
    let _ = writeln!(
        g.body,
        "  {idx} = \"aten.arange\"() {{start = 0.0 : f64, step = 1.0 : f64, {attrs}}} : () -> {}",
        ty(&[n], "i64")
    );
    let (i, j) = (g.fresh(), g.fresh());
    for (name, shape) in [(&i, [n, 1]), (&j, [1, n])] {
        let _ = writeln!(
            g.body,
            "  {name} = \"aten.view\"({idx}) {{{attrs}}} : ({}) -> {}",
            ty(&[n], "i64"),
            ty(&shape, "i64")
        );
    }
    let cmp = if g.chance(5) { "ge" } else { "le" };
    let t = g.fresh();
    let _ = writeln!(
        g.body,
        "  {t}_b = \"aten.{cmp}\"({j}, {i}) {{{attrs}}} : ({}, {}) -> {}",
        ty(&[1, n], "i64"),
        ty(&[n, 1], "i64"),
        ty(&[n, n], "i1")
    );
    let m = g.fresh();
    let _ = writeln!(
        g.body,
        "  {m}_b = \"aten.view\"({t}_b) {{{attrs}}} : ({}) -> {}",
        ty(&[n, n], "i1"),
        ty(&[1, n, n], "i1")
    );
    let z = g.constant("0.0", &[]);
    let mb = format!("{m}_b");
    let k = g.op(
        "where",
        &[(&mb, &[1, n, n]), (&x, &[rows, n, n]), (&z, &[])],
        attrs,
        &[rows, n, n],
    );
    g.maybe_leak(&k, &[rows, n, n], 8);
    let c = g.op(
        "sum",
        &[(&k, &[rows, n, n])],
        &format!("dims = array<i64: 2>, keepdim = false, {attrs}"),
        &[rows, n],
    );
    g.outs.push((c, ty(&[rows, n], "f32")));
}

/// The near-miss graph of `seed` (MLIR text): one or two forms of the pattern passes.
pub fn generate(seed: u64) -> String {
    let mut g = Graph {
        rng: Rng::new(seed),
        args: Vec::new(),
        body: String::new(),
        outs: Vec::new(),
        next: 0,
    };
    for _ in 0..1 + g.rng.below(2) {
        match g.rng.below(3) {
            0 => rnn(&mut g),
            1 => attention(&mut g),
            _ => cumsum(&mut g),
        }
    }
    let names: Vec<&str> = g.outs.iter().map(|(n, _)| n.as_str()).collect();
    let types: Vec<&str> = g.outs.iter().map(|(_, t)| t.as_str()).collect();
    format!(
        "func.func @fuzz({}) -> ({}) {{\n{}  return {} : {}\n}}\n",
        g.args.join(", "),
        types.join(", "),
        g.body,
        names.join(", "),
        types.join(", ")
    )
}
