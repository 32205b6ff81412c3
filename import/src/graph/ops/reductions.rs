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
            let loc = node.loc.clone();
            em.only_outputs(node, &[0])?;
            let x = em.tensor(node, "input")?;
            let out = em.out_type(node, 0)?;
            let normalized = em.ints_arg(node, "normalized_shape")?.unwrap_or_default();
            let eps = node.arg("eps").and_then(as_float).unwrap_or(1e-5);
            let param = TType {
                shape: normalized.clone(),
                dtype: out.dtype,
            };
            let w = match node.arg("weight") {
                Some(_) => em.tensor(node, "weight")?,
                None => em.splat(None, Scalar::Float(1.0), &param, &loc),
            };
            let b = match node.arg("bias") {
                Some(_) => em.tensor(node, "bias")?,
                None => em.splat(None, Scalar::Float(0.0), &param, &loc),
            };
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
            // Group norm as its definition (PyTorch's decomposition): the input viewed as
            // [N, G, C/G * HxW], centred by the group mean and scaled by
            // rsqrt(biased variance + eps), viewed back, then the per-channel affine.
            let loc = node.loc.clone();
            em.only_outputs(node, &[0])?;
            let x = em.tensor(node, "input")?;
            let out = em.out_type(node, 0)?;
            let groups = em.int_arg(node, "group", None)?;
            let eps = node.arg("eps").and_then(as_float).unwrap_or(1e-5);
            let (n, c) = match out.shape.as_slice() {
                [n, c, ..] => (*n, *c),
                _ => return Err(em.node_error(node, "group norm needs an [N, C, ...] input")),
            };
            if groups <= 0 || c % groups != 0 {
                return Err(em.node_error(node, format!("{c} channels do not split into {groups} groups")));
            }
            let per_group = out.shape[1..].iter().product::<i64>() / groups;
            let grouped = TType {
                shape: vec![n, groups, per_group],
                dtype: out.dtype,
            };
            let stat = TType {
                shape: vec![n, groups, 1],
                dtype: out.dtype,
            };
            let xg = em.view(None, &x, grouped.shape.clone(), &loc);
            let mean = em.op(
                None,
                "mean",
                &[&xg],
                "dims = array<i64: 2>, keepdim = true",
                &stat,
                &loc,
            );
            let var = em.op(
                None,
                "var",
                &[&xg],
                "dims = array<i64: 2>, keepdim = true, correction = 0 : i64",
                &stat,
                &loc,
            );
            let scalar = TType {
                shape: vec![],
                dtype: out.dtype,
            };
            let e = em.constant(Scalar::Float(eps), &scalar, &loc);
            let ve = em.op(None, "add", &[&var, &e], "", &stat, &loc);
            let r = em.op(None, "rsqrt", &[&ve], "", &stat, &loc);
            let d = em.op(None, "sub", &[&xg, &mean], "", &grouped, &loc);
            let normed = em.op(None, "mul", &[&d, &r], "", &grouped, &loc);
            let normed = em.view(None, &normed, out.shape.clone(), &loc);
            let w = channel_param(em, node, "weight", 1.0, &out)?;
            let b = channel_param(em, node, "bias", 0.0, &out)?;
            let s = em.op(None, "mul", &[&normed, &w], "", &out, &loc);
            em.finish(node, "add", &[&s, &b], "")
        },
    },
    Rule {
        targets: &["aten._native_batch_norm_legit_no_training.default"],
        import: |em, node, _| {
            let loc = node.loc.clone();
            // Inference batch norm: (x - mean) * rsqrt(var + eps) * w + b, each [C]
            // parameter viewed as [1, C, 1, ...].
            em.only_outputs(node, &[0])?;
            let x = em.tensor(node, "input")?;
            let out = em.out_type(node, 0)?;
            let c = *out
                .shape
                .get(1)
                .ok_or_else(|| em.node_error(node, "input has no channel dimension"))?;
            let mut bshape = vec![1; out.rank()];
            bshape[1] = c;
            let eps = node.arg("eps").and_then(as_float).unwrap_or(1e-5);
            let mean = channel_param(em, node, "running_mean", 0.0, &out)?;
            let var = channel_param(em, node, "running_var", 1.0, &out)?;
            let w = channel_param(em, node, "weight", 1.0, &out)?;
            let b = channel_param(em, node, "bias", 0.0, &out)?;
            let bty = TType {
                shape: bshape.clone(),
                dtype: out.dtype,
            };
            let e = em.constant(
                Scalar::Float(eps),
                &TType {
                    shape: vec![],
                    dtype: out.dtype,
                },
                &loc,
            );
            let ve = em.op(None, "add", &[&var, &e], "", &bty, &loc);
            let r = em.op(None, "rsqrt", &[&ve], "", &bty, &loc);
            let d = em.op(None, "sub", &[&x, &mean], "", &out, &loc);
            let n = em.op(None, "mul", &[&d, &r], "", &out, &loc);
            let s = em.op(None, "mul", &[&n, &w], "", &out, &loc);
            em.finish(node, "add", &[&s, &b], "")
        },
    },
];

/// A per-channel parameter `arg` of `node` (`[C]`, or `default` everywhere when the
/// export passes none), viewed as `[1, C, 1, ...]` to broadcast over `out`.
fn channel_param(em: &mut Emitter, node: &Node, arg: &str, default: f64, out: &TType) -> R<String> {
    let loc = node.loc.clone();
    let c = out.shape.get(1).copied().unwrap_or(1);
    let p = match node.arg(arg) {
        Some(_) => em.tensor(node, arg)?,
        None => em.splat(
            None,
            Scalar::Float(default),
            &TType {
                shape: vec![c],
                dtype: out.dtype,
            },
            &loc,
        ),
    };
    let mut shape = vec![1; out.rank()];
    shape[1] = c;
    Ok(em.view(None, &p, shape, &loc))
}
