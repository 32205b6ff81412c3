//! Views and data movement: view/reshape/expand/permute/transpose, select/slice/squeeze/unsqueeze, cat, gather, embedding, split, clone.

use super::super::*;
use super::Rule;

/// The rows of this family.
pub(super) static RULES: &[Rule] = &[
    Rule {
        // A clone of an empty tensor (the decoders' empty KV cache, cloned then
        // concatenated) is that tensor: nothing to copy, and cat drops it.
        targets: &["aten.clone.default", "aten.alias.default"],
        import: |em, node, _| {
            let x = em.tensor(node, "self")?;
            if em.ty(&x).shape.contains(&0) {
                em.bind(node, 0, x);
                return Ok(());
            }
            em.unary(node, "clone", "")
        },
    },
    Rule {
        targets: &[
            "aten.view.default",
            "aten._unsafe_view.default",
            "aten.reshape.default",
        ],
        import: |em, node, _| {
            // Relax's importer drops a reshape only when its sizes as written equal the
            // input's shape (`_reshape`, "Skip identity reshape"): one written with a -1
            // stays a reshape (a copy of its own) even where the shape does not change.
            let written = match em.ints_arg(node, "size")? {
                Some(sizes) => Some(sizes),
                None => em.ints_arg(node, "shape")?,
            };
            let inferred = written.is_some_and(|sizes| sizes.contains(&-1));
            em.unary(node, "view", if inferred { INFERRED_SIZE_ATTR } else { "" })
        },
    },
    Rule {
        targets: &["aten.expand.default"],
        import: |em, node, _| em.unary(node, "expand", ""),
    },
    Rule {
        // repeat(x, r) tiles x r[i] times along each dim (leading dims added when r is
        // longer than x's rank): x viewed [1, s0, 1, s1, ..], expanded to [r0, s0, r1, s1,
        // ..], viewed [r0*s0, r1*s1, ..] — out[i..] = x[i % s..]. One op (Relax's `tile`,
        // Inductor's `repeat` lowering: one pointwise node with modular indices).
        targets: &["aten.repeat.default"],
        import: |em, node, _| em.grouped("repeat", node, repeat),
    },
    Rule {
        targets: &["aten.permute.default"],
        import: |em, node, _| {
            let dims = em.ints_arg(node, "dims")?.unwrap_or_default();
            em.unary(node, "permute", &format!("dims = {}", ints(&dims)))
        },
    },
    Rule {
        targets: &["aten.transpose.int"],
        import: |em, node, _| {
            let d0 = em.int_arg(node, "dim0", None)?;
            let d1 = em.int_arg(node, "dim1", None)?;
            em.unary(
                node,
                "transpose",
                &format!("dim0 = {d0} : i64, dim1 = {d1} : i64"),
            )
        },
    },
    Rule {
        targets: &["aten.t.default"],
        import: |em, node, _| em.unary(node, "transpose", "dim0 = 0 : i64, dim1 = 1 : i64"),
    },
    Rule {
        targets: &["aten.select.int"],
        import: |em, node, _| {
            let dim = em.int_arg(node, "dim", None)?;
            let index = em.int_arg(node, "index", None)?;
            em.unary(
                node,
                "select",
                &format!("dim = {dim} : i64, index = {index} : i64"),
            )
        },
    },
    Rule {
        targets: &["aten.slice.Tensor"],
        import: |em, node, _| {
            let x = em.tensor(node, "self")?;
            let xt = em.ty(&x);
            let dim = wrap(em.int_arg(node, "dim", Some(0))?, xt.rank());
            let size = *xt
                .shape
                .get(dim as usize)
                .ok_or_else(|| em.node_error(node, "slice dim out of range"))?;
            let clampi = |v: i64| if v < 0 { (v + size).max(0) } else { v.min(size) };
            let start = clampi(em.int_arg(node, "start", Some(0))?);
            let end = clampi(em.int_arg(node, "end", Some(size))?);
            let step = em.int_arg(node, "step", Some(1))?;
            em.unary(
                node,
                "slice",
                &format!("dim = {dim} : i64, start = {start} : i64, end = {end} : i64, step = {step} : i64"),
            )
        },
    },
    Rule {
        targets: &["aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze.default"],
        import: |em, node, _| {
            let x = em.tensor(node, "self")?;
            let xt = em.ty(&x);
            let dims: Vec<i64> = match em.ints_arg(node, "dim")? {
                Some(d) => d
                    .iter()
                    .map(|&d| wrap(d, xt.rank()))
                    .filter(|&d| xt.shape.get(d as usize) == Some(&1))
                    .collect(),
                None => (0..xt.rank() as i64)
                    .filter(|&d| xt.shape[d as usize] == 1)
                    .collect(),
            };
            em.unary(node, "squeeze", &format!("dims = {}", ints(&dims)))
        },
    },
    Rule {
        targets: &["aten.unsqueeze.default"],
        import: |em, node, _| {
            let dim = em.int_arg(node, "dim", None)?;
            em.unary(node, "unsqueeze", &format!("dim = {dim} : i64"))
        },
    },
    Rule {
        // constant_pad_nd(self, pad, value=0): `pad` pairs (before, after) from the last dim
        // backwards (Emitter::pad).
        targets: &["aten.constant_pad_nd.default"],
        import: |em, node, _| {
            let loc = node.loc.clone();
            let mut x = em.tensor(node, "self")?;
            let pad = em.ints_arg(node, "pad")?.unwrap_or_default();
            let value = node.arg("value").and_then(scalar_of).unwrap_or(Scalar::Int(0));
            let rank = em.ty(&x).rank();
            if pad.len() % 2 != 0 || pad.len() / 2 > rank {
                return Err(em.node_error(node, format!("pad {pad:?} does not pair up with the {rank} dims")));
            }
            for (k, pair) in pad.chunks(2).enumerate() {
                x = em.pad(&x, rank - 1 - k, pair[0], pair[1], value, &loc);
            }
            em.bind(node, 0, x);
            Ok(())
        },
    },
    Rule {
        targets: &["aten.cat.default"],
        import: |em, node, _| {
            let loc = node.loc.clone();
            let list = node
                .arg("tensors")
                .and_then(|v| v.get("as_tensors"))
                .and_then(Value::as_array)
                .ok_or_else(|| em.node_error(node, "argument 'tensors' is not a list of tensors"))?;
            let mut parts = Vec::new();
            for t in list {
                let name = t["name"].as_str().unwrap_or_default();
                parts.push(em.values.get(name).cloned().ok_or_else(|| {
                    em.node_error(node, format!("cat reads '{name}', which is not defined before"))
                })?);
            }
            let out = em.out_type(node, 0)?;
            let dim = wrap(em.int_arg(node, "dim", Some(0))?, out.rank());
            // torch.cat skips legacy empty tensors of shape [0] (an empty cache); any
            // other part must have the result's rank.
            parts.retain(|p| out.rank() == 1 || em.ty(p).shape != [0]);
            if let Some(p) = parts.iter().find(|p| em.ty(p).rank() != out.rank()) {
                return Err(em.node_error(
                    node,
                    format!(
                        "cat of a rank-{} tensor into a rank-{} result",
                        em.ty(p).rank(),
                        out.rank()
                    ),
                ));
            }
            let Some((first, rest)) = parts.split_first() else {
                return Err(em.node_error(node, "cat of no tensors"));
            };
            if rest.is_empty() {
                em.bind(node, 0, first.clone());
                return Ok(());
            }
            // aten.cat is binary: fold left.
            let mut acc = first.clone();
            for (k, part) in rest.iter().enumerate() {
                let (a, b) = (em.ty(&acc), em.ty(part));
                let mut shape = a.shape.clone();
                shape[dim as usize] += b.shape[dim as usize];
                let res = if k + 1 == rest.len() {
                    em.out_ssa(node, 0)
                } else {
                    None
                };
                acc = em.op(
                    res.as_deref(),
                    "cat",
                    &[&acc, part],
                    &format!("dim = {dim} : i64"),
                    &TType {
                        shape,
                        dtype: out.dtype,
                    },
                    &loc,
                );
            }
            em.bind(node, 0, acc);
            Ok(())
        },
    },
    Rule {
        targets: &["aten.gather.default"],
        import: |em, node, _| {
            let x = em.tensor(node, "self")?;
            let index = em.tensor(node, "index")?;
            let dim = em.int_arg(node, "dim", None)?;
            em.finish(node, "gather", &[&x, &index], &format!("dim = {dim} : i64"))
        },
    },
    Rule {
        // index_select(self, dim, index[n]) = gather(self, dim, index viewed [1.., n, ..1]
        // and expanded to the result's shape).
        targets: &["aten.index_select.default"],
        import: |em, node, _| {
            em.grouped("index_select", node, |em, node| {
                let loc = node.loc.clone();
                let x = em.tensor(node, "self")?;
                let idx = em.tensor(node, "index")?;
                let out = em.out_type(node, 0)?;
                let it = em.ty(&idx);
                let dim = wrap(em.int_arg(node, "dim", Some(0))?, out.rank()) as usize;
                let n: i64 = it.shape.iter().product();
                let mut lone = vec![1; out.rank()];
                lone[dim] = n;
                let viewed = em.view(None, &idx, lone, &loc);
                let wide = em.op(
                    None,
                    "expand",
                    &[&viewed],
                    "",
                    &TType {
                        shape: out.shape.clone(),
                        dtype: it.dtype,
                    },
                    &loc,
                );
                let res = em.op(
                    em.out_ssa(node, 0).as_deref(),
                    "gather",
                    &[&x, &wide],
                    &format!("dim = {dim} : i64"),
                    &out,
                    &loc,
                );
                em.bind(node, 0, res);
                Ok(())
            })
        },
    },
    Rule {
        targets: &["aten.embedding.default"],
        import: |em, node, _| {
            let loc = node.loc.clone();
            // out[i.., :] = weight[indices[i..], :]: flatten the indices, broadcast them
            // over the embedding width, gather rows, view back. The gather of rows is one
            // op (Relax's `take`, Inductor's `embedding` origin); the flattening and the
            // view back are ops of their own, as in Relax's import of an embedding
            // (`astype` + `reshape`, `take`, `reshape`: base_fx_graph_translator.py).
            let w = em.tensor(node, "weight")?;
            let idx = em.tensor(node, "indices")?;
            let (wt, it) = (em.ty(&w), em.ty(&idx));
            let out = em.out_type(node, 0)?;
            let n: i64 = it.shape.iter().product();
            let d = *wt
                .shape
                .get(1)
                .ok_or_else(|| em.node_error(node, "embedding weight must be 2-D"))?;
            let flat = em.view(None, &idx, vec![n], &loc);
            em.op_group = Some(("embedding", node.name.clone()));
            let col = em.op(
                None,
                "unsqueeze",
                &[&flat],
                "dim = 1 : i64",
                &TType {
                    shape: vec![n, 1],
                    dtype: it.dtype,
                },
                &loc,
            );
            let wide = em.op(
                None,
                "expand",
                &[&col],
                "",
                &TType {
                    shape: vec![n, d],
                    dtype: it.dtype,
                },
                &loc,
            );
            let rows = em.op(
                None,
                "gather",
                &[&w, &wide],
                "dim = 0 : i64",
                &TType {
                    shape: vec![n, d],
                    dtype: out.dtype,
                },
                &loc,
            );
            em.op_group = None;
            let res = em.view(em.out_ssa(node, 0).as_deref(), &rows, out.shape.clone(), &loc);
            em.bind(node, 0, res);
            Ok(())
        },
    },
    Rule {
        targets: &["aten.split_with_sizes.default", "aten.split.Tensor"],
        import: |em, node, target| {
            let loc = node.loc.clone();
            let x = em.tensor(node, "self")?;
            let xt = em.ty(&x);
            let dim = wrap(em.int_arg(node, "dim", Some(0))?, xt.rank());
            let size = xt.shape[dim as usize];
            let sizes: Vec<i64> = if target.ends_with("split_with_sizes.default") {
                em.ints_arg(node, "split_sizes")?.unwrap_or_default()
            } else {
                let chunk = em.int_arg(node, "split_size", None)?.max(1);
                (0..size)
                    .step_by(chunk as usize)
                    .map(|s| chunk.min(size - s))
                    .collect()
            };
            // One op with several results (Relax's `split`, a call_tir returning a tuple
            // whose items its consumers read through TupleGetItem).
            em.grouped("split", node, |em, node| {
                let mut start = 0;
                for (i, len) in sizes.iter().enumerate() {
                    let mut shape = xt.shape.clone();
                    shape[dim as usize] = *len;
                    let attrs = format!(
                        "dim = {dim} : i64, start = {start} : i64, end = {} : i64, step = 1 : i64",
                        start + len
                    );
                    let res = em.op(
                        em.out_ssa(node, i).as_deref(),
                        "slice",
                        &[&x],
                        &attrs,
                        &TType {
                            shape,
                            dtype: xt.dtype,
                        },
                        &loc,
                    );
                    em.bind(node, i, res);
                    start += len;
                }
                Ok(())
            })
        },
    },
];

/// `aten.repeat` as a view, an expand and a view (see its rule).
fn repeat(em: &mut Emitter, node: &Node) -> R<()> {
    let loc = node.loc.clone();
    let x = em.tensor(node, "self")?;
    let xt = em.ty(&x);
    let repeats = em.ints_arg(node, "repeats")?.unwrap_or_default();
    let out = em.out_type(node, 0)?;
    if repeats.len() < xt.rank() || repeats.iter().any(|&r| r < 0) {
        return Err(em.node_error(node, format!("repeat of a {:?} tensor by {repeats:?}", xt.shape)));
    }
    let sizes: Vec<i64> = std::iter::repeat_n(1, repeats.len() - xt.rank())
        .chain(xt.shape.iter().copied())
        .collect();
    let tiled: Vec<i64> = repeats.iter().zip(&sizes).map(|(r, s)| r * s).collect();
    if tiled != out.shape {
        return Err(em.node_error(
            node,
            format!("repeat gives shape {tiled:?}, the export says {:?}", out.shape),
        ));
    }
    let pairs = |first: &dyn Fn(usize) -> i64| -> Vec<i64> {
        (0..sizes.len()).flat_map(|d| [first(d), sizes[d]]).collect()
    };
    let spaced = em.view(None, &x, pairs(&|_| 1), &loc);
    let wide = em.op(
        None,
        "expand",
        &[&spaced],
        "",
        &TType {
            shape: pairs(&|d| repeats[d]),
            dtype: xt.dtype,
        },
        &loc,
    );
    let res = em.view(em.out_ssa(node, 0).as_deref(), &wide, tiled, &loc);
    em.bind(node, 0, res);
    Ok(())
}
