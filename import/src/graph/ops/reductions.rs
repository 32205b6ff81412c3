//! Reductions and the normalizations built on them: sum/mean/amax/amin/var/any, softmax, layer norm, group norm, batch norm (inference).

use super::super::*;
use super::Rule;

/// The rows of this family.
pub(super) static RULES: &[Rule] = &[
    Rule {
        targets: &["aten.sum.dim_IntList", "aten.sum.default"],
        import: |em, node, _| em.reduction(node, "sum", true),
    },
    Rule {
        targets: &["aten.mean.dim", "aten.mean.default"],
        import: |em, node, _| em.reduction(node, "mean", true),
    },
    Rule {
        targets: &["aten.amax.default"],
        import: |em, node, _| em.reduction(node, "amax", true),
    },
    Rule {
        targets: &["aten.amin.default"],
        import: |em, node, _| em.reduction(node, "amin", true),
    },
    Rule {
        targets: &["aten.prod.dim_int", "aten.prod.default"],
        import: |em, node, _| em.reduction(node, "prod", true),
    },
    Rule {
        // max.dim / min.dim give (values, indices); the values are amax / amin. Reading
        // the indices is a located error (no argmax in the aten dialect yet).
        targets: &["aten.max.dim", "aten.min.dim"],
        import: |em, node, target| {
            em.only_outputs(node, &[0])?;
            em.reduction(
                node,
                if target == "aten.max.dim" { "amax" } else { "amin" },
                false,
            )
        },
    },
    Rule {
        // cumsum(x, dim, dtype?) as a masked reduction: out[.., i, ..] = sum over j of
        // where(j <= i, x[.., j, ..], 0), the input viewed with a new axis j after `dim`
        // and the lower triangle an `arange` comparison. Exact for integers; floats add
        // in the reduction's order, not left to right. Quadratic in the scanned length
        // (Inductor emits a scan kernel instead, `ir.Scan` with `tl.associative_scan`);
        // the result's dtype is the export's (integers and bools sum to int64).
        targets: &["aten.cumsum.default"],
        import: |em, node, _| {
            // One op (Inductor's `cumsum` origin, Relax's `cumsum`) for all the parts.
            em.grouped("cumsum", node, cumsum)
        },
    },
    Rule {
        targets: &["aten.var.correction"],
        import: |em, node, _| em.reduction(node, "var", true),
    },
    Rule {
        targets: &["aten.any.dim", "aten.any.dims", "aten.any.default"],
        import: |em, node, _| em.reduction(node, "any", true),
    },
    Rule {
        targets: &["aten._softmax.default", "aten._log_softmax.default"],
        import: |em, node, target| {
            if em.bool_arg(node, "half_to_float", false)? {
                return Err(em.node_error(node, "half_to_float=True is not supported"));
            }
            let dim = em.int_arg(node, "dim", None)?;
            let op = if target.contains("_log_") {
                "log_softmax"
            } else {
                "softmax"
            };
            em.unary(node, op, &format!("dim = {dim} : i64"))
        },
    },
    Rule {
        targets: &["aten.native_layer_norm.default"],
        import: |em, node, _| {
            em.only_outputs(node, &[0])?;
            let x = em.tensor(node, "input")?;
            let out = em.out_type(node, 0)?;
            let normalized = em.ints_arg(node, "normalized_shape")?.unwrap_or_default();
            let eps = node.arg("eps").and_then(as_float).unwrap_or(1e-5);
            let param = TType {
                shape: normalized.clone(),
                dtype: out.dtype,
            };
            let w = param_or(em, node, "weight", 1.0, &param)?;
            let b = param_or(em, node, "bias", 0.0, &param)?;
            let attrs = format!(
                "normalized_shape = {}, eps = {} : f64",
                ints(&normalized),
                float_literal(eps, "f64")
            );
            em.finish(node, "layer_norm", &[&x, &w, &b], &attrs)
        },
    },
    Rule {
        targets: &["aten.native_group_norm.default"],
        import: |em, node, _| {
            // One composite op (aten.group_norm, its first result), as Relax keeps
            // nn.group_norm one op; --aten-decompose writes its definition.
            em.only_outputs(node, &[0])?;
            let x = em.tensor(node, "input")?;
            let out = em.out_type(node, 0)?;
            let groups = em.int_arg(node, "group", None)?;
            let eps = node.arg("eps").and_then(as_float).unwrap_or(1e-5);
            let c = match out.shape.as_slice() {
                [_, c, ..] => *c,
                _ => return Err(em.node_error(node, "group norm needs an [N, C, ...] input")),
            };
            if groups <= 0 || c % groups != 0 {
                return Err(em.node_error(node, format!("{c} channels do not split into {groups} groups")));
            }
            let param = TType {
                shape: vec![c],
                dtype: out.dtype,
            };
            let w = param_or(em, node, "weight", 1.0, &param)?;
            let b = param_or(em, node, "bias", 0.0, &param)?;
            let attrs = format!(
                "num_groups = {groups} : i64, eps = {} : f64",
                float_literal(eps, "f64")
            );
            em.finish(node, "group_norm", &[&x, &w, &b], &attrs)
        },
    },
    Rule {
        // Inference batch norm: one composite aten.batch_norm (its first result), as
        // Relax keeps nn.batch_norm one op; --aten-decompose writes its definition,
        // (x - mean) * rsqrt(var + eps) * w + b with each [C] parameter viewed as
        // [1, C, 1, ...]. Absent parameters are splats (mean 0, var 1, w 1, b 0).
        targets: &["aten._native_batch_norm_legit_no_training.default"],
        import: |em, node, _| {
            em.only_outputs(node, &[0])?;
            let x = em.tensor(node, "input")?;
            let out = em.out_type(node, 0)?;
            let c = *out
                .shape
                .get(1)
                .ok_or_else(|| em.node_error(node, "input has no channel dimension"))?;
            let eps = node.arg("eps").and_then(as_float).unwrap_or(1e-5);
            let param = TType {
                shape: vec![c],
                dtype: out.dtype,
            };
            let w = param_or(em, node, "weight", 1.0, &param)?;
            let b = param_or(em, node, "bias", 0.0, &param)?;
            let mean = param_or(em, node, "running_mean", 0.0, &param)?;
            let var = param_or(em, node, "running_var", 1.0, &param)?;
            let attrs = format!("eps = {} : f64", float_literal(eps, "f64"));
            em.finish(node, "batch_norm", &[&x, &w, &b, &mean, &var], &attrs)
        },
    },
];

/// The tensor argument `arg`, or a splat of `default` of `ty` where the node has none
/// (an affine-less norm).
fn param_or(em: &mut Emitter, node: &Node, arg: &str, default: f64, ty: &TType) -> R<String> {
    match node.arg(arg) {
        Some(_) => em.tensor(node, arg),
        None => Ok(em.splat(None, Scalar::Float(default), ty, &node.loc)),
    }
}

/// `aten.cumsum` as a masked reduction (see its rule).
fn cumsum(em: &mut Emitter, node: &Node) -> R<()> {
    let loc = node.loc.clone();
    let x = em.tensor(node, "self")?;
    let out = em.out_type(node, 0)?;
    let xt = em.ty(&x);
    if xt.shape != out.shape || xt.rank() == 0 {
        return Err(em.node_error(
            node,
            format!("cumsum of a {:?} tensor into {:?}", xt.shape, out.shape),
        ));
    }
    let dim = wrap(em.int_arg(node, "dim", None)?, xt.rank()) as usize;
    let n = xt.shape[dim];
    let x = if xt.dtype == out.dtype {
        x
    } else {
        em.op(None, "to_dtype", &[&x], "", &out, &loc)
    };
    let mut wide = out.shape.clone();
    wide.insert(dim, n);
    let mut lone = out.shape.clone();
    lone.insert(dim, 1);
    let col = em.view(None, &x, lone, &loc);
    let spread = em.op(
        None,
        "expand",
        &[&col],
        "",
        &TType {
            shape: wide.clone(),
            dtype: out.dtype,
        },
        &loc,
    );
    // mask[i, j] = j <= i, viewed [1.., n(i), n(j), 1..].
    let steps = em.op(
        None,
        "arange",
        &[],
        "start = 0.0 : f64, step = 1.0 : f64",
        &TType {
            shape: vec![n],
            dtype: "i64",
        },
        &loc,
    );
    let i = em.view(None, &steps, vec![n, 1], &loc);
    let j = em.view(None, &steps, vec![1, n], &loc);
    let tri = em.op(
        None,
        "le",
        &[&j, &i],
        "",
        &TType {
            shape: vec![n, n],
            dtype: "i1",
        },
        &loc,
    );
    let mut mshape = vec![1; wide.len()];
    mshape[dim] = n;
    mshape[dim + 1] = n;
    let mask = em.view(None, &tri, mshape, &loc);
    let zero = em.constant(
        Scalar::Int(0),
        &TType {
            shape: vec![],
            dtype: out.dtype,
        },
        &loc,
    );
    let kept = em.op(
        None,
        "where",
        &[&mask, &spread, &zero],
        "",
        &TType {
            shape: wide,
            dtype: out.dtype,
        },
        &loc,
    );
    em.finish(
        node,
        "sum",
        &[&kept],
        &format!("dims = {}, keepdim = false", ints(&[dim as i64 + 1])),
    )
}
