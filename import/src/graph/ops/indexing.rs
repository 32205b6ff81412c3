//! Advanced indexing: `aten.index.Tensor` as a `gather` along one flattened dimension.
//!
//! Rule (PyTorch's advanced indexing, `torch/_refs` / `TensorAdvancedIndexing.cpp`): the
//! index tensors broadcast together to a shape `B`; negative indices count from the end;
//! when the indexed dims are adjacent the result is `self.shape[..k] ++ B ++
//! self.shape[k+m..]`, otherwise `B` comes first, followed by the dims not indexed. Here
//! the indexed dims (moved to the front when they are not adjacent) are flattened into one
//! of size `∏ sizes`, the indices combined into one row-major linear index of shape `B`,
//! and the result is `index_select` on that dim: a `gather` of the linear index broadcast
//! over the other dims, viewed to the result's shape. Inductor's `index` lowering is the
//! same single indirect load per element. Boolean masks (data-dependent shapes) are a
//! located error.

use super::super::*;
use super::Rule;

/// The rows of this family.
pub(super) static RULES: &[Rule] = &[Rule {
    targets: &["aten.index.Tensor"],
    import: |em, node, _| {
        // One op for all the parts: Inductor's `index` origin; Relax imports one index
        // tensor as `take` and several as `index_tensor` (base_fx_graph_translator.py),
        // whose indices FoldConstant does not see (fusion/tvm/fold_constant.rs).
        let several = index_list(em, node)?.iter().flatten().count() > 1;
        em.grouped(if several { "index_tensor" } else { "index" }, node, index_tensor)
    },
}];

/// `aten.index.Tensor`: the indexed dims flattened into one, a gather along it.
fn index_tensor(em: &mut Emitter, node: &Node) -> R<()> {
    let loc = node.loc.clone();
    let x = em.tensor(node, "self")?;
    let xt = em.ty(&x);
    let out = em.out_type(node, 0)?;
    let indices = index_list(em, node)?;
    if indices.len() > xt.rank() {
        return Err(em.node_error(
            node,
            format!("{} indices for a rank-{} tensor", indices.len(), xt.rank()),
        ));
    }
    let indexed: Vec<(usize, String)> = indices
        .into_iter()
        .enumerate()
        .filter_map(|(d, i)| i.map(|i| (d, i)))
        .collect();
    let Some(&(first, _)) = indexed.first() else {
        return Err(em.node_error(node, "index with no index tensor"));
    };
    for (_, idx) in &indexed {
        let dtype = em.ty(idx).dtype;
        if dtype != "i64" {
            return Err(em.node_error(
                node,
                format!(
                    "index tensors must be int64, got {dtype} (boolean masks give data-dependent shapes)"
                ),
            ));
        }
    }
    let adjacent = indexed.windows(2).all(|w| w[1].0 == w[0].0 + 1);
    // The indexed dims first when they are not adjacent.
    let (base, at) = if adjacent {
        (x, first)
    } else {
        let mut order: Vec<usize> = indexed.iter().map(|(d, _)| *d).collect();
        order.extend((0..xt.rank()).filter(|d| !indexed.iter().any(|(i, _)| i == d)));
        let shape = order.iter().map(|&d| xt.shape[d]).collect();
        let dims: Vec<i64> = order.iter().map(|&d| d as i64).collect();
        let permuted = em.op(
            None,
            "permute",
            &[&x],
            &format!("dims = {}", ints(&dims)),
            &TType {
                shape,
                dtype: xt.dtype,
            },
            &loc,
        );
        (permuted, 0)
    };
    let bt = em.ty(&base);
    let m = indexed.len();
    let broadcast = broadcast_shape(indexed.iter().map(|(_, i)| em.ty(i).shape))
        .ok_or_else(|| em.node_error(node, "index tensors do not broadcast together"))?;
    let expected: Vec<i64> = bt.shape[..at]
        .iter()
        .chain(&broadcast)
        .chain(&bt.shape[at + m..])
        .copied()
        .collect();
    if expected != out.shape {
        return Err(em.node_error(
            node,
            format!(
                "indexing gives shape {expected:?}, the export says {:?}",
                out.shape
            ),
        ));
    }
    // The row-major linear index over the indexed dims, negative indices wrapped.
    let bty = TType {
        shape: broadcast.clone(),
        dtype: "i64",
    };
    let scalar = TType {
        shape: vec![],
        dtype: "i64",
    };
    let mut linear: Option<String> = None;
    for (k, (_, idx)) in indexed.iter().enumerate() {
        let size = bt.shape[at + k];
        let it = em.ty(idx);
        let zero = em.constant(Scalar::Int(0), &scalar, &loc);
        let n = em.constant(Scalar::Int(size), &scalar, &loc);
        let negative = em.op(
            None,
            "lt",
            &[idx, &zero],
            "",
            &TType {
                shape: it.shape.clone(),
                dtype: "i1",
            },
            &loc,
        );
        let shifted = em.op(None, "add", &[idx, &n], "", &it, &loc);
        let wrapped = em.op(None, "where", &[&negative, &shifted, idx], "", &it, &loc);
        linear = Some(match linear {
            None if it.shape == broadcast => wrapped,
            None => {
                let viewed = em.view(None, &wrapped, lead_ones(&it.shape, broadcast.len()), &loc);
                em.op(None, "expand", &[&viewed], "", &bty, &loc)
            }
            Some(acc) => {
                let scaled = em.op(None, "mul", &[&acc, &n], "", &bty, &loc);
                em.op(None, "add", &[&scaled, &wrapped], "", &bty, &loc)
            }
        });
    }
    let linear = linear.ok_or_else(|| em.node_error(node, "index with no index tensor"))?;
    // base viewed [pre.., S, post..], gathered along `at` with the linear index.
    let rows: i64 = bt.shape[at..at + m].iter().product();
    let count: i64 = broadcast.iter().product();
    let pre = &bt.shape[..at];
    let post = &bt.shape[at + m..];
    let flat_shape: Vec<i64> = pre
        .iter()
        .copied()
        .chain([rows])
        .chain(post.iter().copied())
        .collect();
    let flat = if flat_shape == bt.shape {
        base
    } else {
        em.view(None, &base, flat_shape, &loc)
    };
    let mut lone = vec![1; pre.len() + 1 + post.len()];
    lone[at] = count;
    let line = em.view(None, &linear, lone, &loc);
    let gathered_shape: Vec<i64> = pre
        .iter()
        .copied()
        .chain([count])
        .chain(post.iter().copied())
        .collect();
    let wide = em.op(
        None,
        "expand",
        &[&line],
        "",
        &TType {
            shape: gathered_shape.clone(),
            dtype: "i64",
        },
        &loc,
    );
    // Named after the node: the gather itself, or the view of it to the result's shape.
    let name = em.out_ssa(node, 0);
    let direct = gathered_shape == out.shape;
    let gathered = em.op(
        if direct { name.as_deref() } else { None },
        "gather",
        &[&flat, &wide],
        &format!("dim = {at} : i64"),
        &TType {
            shape: gathered_shape,
            dtype: out.dtype,
        },
        &loc,
    );
    let res = if direct {
        gathered
    } else {
        em.view(name.as_deref(), &gathered, out.shape.clone(), &loc)
    };
    em.bind(node, 0, res);
    Ok(())
}

/// The `indices` argument: one optional tensor per leading dim (`None` keeps the dim).
fn index_list(em: &Emitter, node: &Node) -> R<Vec<Option<String>>> {
    let value = node
        .arg("indices")
        .ok_or_else(|| em.node_error(node, "missing argument 'indices'"))?;
    let list = value
        .get("as_tensors")
        .or_else(|| value.get("as_optional_tensors"))
        .and_then(Value::as_array)
        .ok_or_else(|| {
            em.node_error(
                node,
                format!("argument 'indices' is not a list of tensors: {value}"),
            )
        })?;
    list.iter()
        .map(|entry| {
            let name = entry
                .get("as_tensor")
                .map_or_else(|| entry.get("name"), |t| t.get("name"))
                .and_then(Value::as_str);
            match name {
                Some(name) => em.values.get(name).cloned().map(Some).ok_or_else(|| {
                    em.node_error(node, format!("index reads '{name}', which is not defined before"))
                }),
                None if entry.get("as_none").is_some() => Ok(None),
                None => Err(em.node_error(node, format!("index entry {entry} is not a tensor or None"))),
            }
        })
        .collect()
}

/// The broadcast of several shapes (numpy rules), if they broadcast.
fn broadcast_shape(shapes: impl Iterator<Item = Vec<i64>>) -> Option<Vec<i64>> {
    let mut acc: Vec<i64> = Vec::new();
    for shape in shapes {
        let rank = acc.len().max(shape.len());
        let get = |s: &[i64], i: usize| {
            if i + s.len() >= rank {
                s[i + s.len() - rank]
            } else {
                1
            }
        };
        let mut next = Vec::with_capacity(rank);
        for i in 0..rank {
            let (a, b) = (get(&acc, i), get(&shape, i));
            next.push(match (a, b) {
                _ if a == b => a,
                (1, b) => b,
                (a, 1) => a,
                _ => return None,
            });
        }
        acc = next;
    }
    Some(acc)
}

/// `shape` with leading ones up to `rank` dims.
fn lead_ones(shape: &[i64], rank: usize) -> Vec<i64> {
    let mut out = vec![1; rank.saturating_sub(shape.len())];
    out.extend_from_slice(shape);
    out
}

#[cfg(test)]
mod tests {
    use super::{broadcast_shape, lead_ones};

    #[test]
    fn index_shapes_broadcast_as_numpy() {
        let b = |s: &[&[i64]]| broadcast_shape(s.iter().map(|s| s.to_vec()));
        assert_eq!(b(&[&[1, 1, 1, 1], &[1, 1, 1, 16]]), Some(vec![1, 1, 1, 16]));
        assert_eq!(b(&[&[4, 1], &[3]]), Some(vec![4, 3]));
        assert_eq!(b(&[&[256]]), Some(vec![256]));
        assert_eq!(b(&[&[2], &[3]]), None);
        assert_eq!(lead_ones(&[3], 2), vec![1, 3]);
    }
}
