//! Elementwise targets: arithmetic, comparisons, `where`, `clamp`, unary math, dtype conversions.

use super::super::*;
use super::Rule;

/// The rows of this family.
pub(super) static RULES: &[Rule] = &[
    Rule {
        targets: &["aten.add.Tensor", "aten.add.Scalar"],
        import: |em, node, _| em.binary(node, "add", "self", "other"),
    },
    Rule {
        targets: &["aten.sub.Tensor", "aten.sub.Scalar"],
        import: |em, node, _| em.binary(node, "sub", "self", "other"),
    },
    Rule {
        targets: &["aten.rsub.Scalar"],
        import: |em, node, _| em.binary(node, "sub", "other", "self"),
    },
    Rule {
        targets: &["aten.mul.Tensor", "aten.mul.Scalar"],
        import: |em, node, _| em.binary(node, "mul", "self", "other"),
    },
    Rule {
        targets: &["aten.div.Tensor", "aten.div.Scalar"],
        import: |em, node, _| em.binary(node, "div", "self", "other"),
    },
    Rule {
        targets: &["aten.maximum.default"],
        import: |em, node, _| em.binary(node, "maximum", "self", "other"),
    },
    Rule {
        targets: &["aten.minimum.default"],
        import: |em, node, _| em.binary(node, "minimum", "self", "other"),
    },
    Rule {
        targets: &["aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor"],
        import: |em, node, _| em.binary(node, "pow", "self", "exponent"),
    },
    Rule {
        targets: &["aten.eq.Scalar", "aten.eq.Tensor"],
        import: |em, node, _| em.binary(node, "eq", "self", "other"),
    },
    Rule {
        targets: &["aten.ne.Scalar", "aten.ne.Tensor"],
        import: |em, node, _| em.binary(node, "ne", "self", "other"),
    },
    Rule {
        targets: &["aten.lt.Scalar", "aten.lt.Tensor"],
        import: |em, node, _| em.binary(node, "lt", "self", "other"),
    },
    Rule {
        targets: &["aten.le.Scalar", "aten.le.Tensor"],
        import: |em, node, _| em.binary(node, "le", "self", "other"),
    },
    Rule {
        targets: &["aten.gt.Scalar", "aten.gt.Tensor"],
        import: |em, node, _| em.binary(node, "gt", "self", "other"),
    },
    Rule {
        targets: &["aten.ge.Scalar", "aten.ge.Tensor"],
        import: |em, node, _| em.binary(node, "ge", "self", "other"),
    },
    Rule {
        targets: &["aten.where.self"],
        import: |em, node, _| {
            let out = em.out_type(node, 0)?;
            let c = em.tensor(node, "condition")?;
            let a = em.operand(node, "self", out.dtype)?;
            let b = em.operand(node, "other", out.dtype)?;
            em.finish(node, "where", &[&c, &a, &b], "")
        },
    },
    Rule {
        targets: &[
            "aten.clamp.default",
            "aten.clamp_min.default",
            "aten.clamp_max.default",
        ],
        import: |em, node, target| {
            let loc = node.loc.clone();
            let out = em.out_type(node, 0)?;
            let mut x = em.tensor(node, "self")?;
            let bounds: [(&str, &str); 2] = if target == "aten.clamp_max.default" {
                [("max", "minimum"), ("", "")]
            } else {
                [("min", "maximum"), ("max", "minimum")]
            };
            for (arg, op) in bounds {
                if arg.is_empty() || node.arg(arg).is_none() {
                    continue;
                }
                let bound = em.operand(node, arg, out.dtype)?;
                x = em.op(None, op, &[&x, &bound], "", &out, &loc);
            }
            em.bind(node, 0, x);
            Ok(())
        },
    },
    Rule {
        // hardtanh(x, min_val=-1, max_val=1) = clamp (torch/_decomp: `torch.clamp`).
        targets: &["aten.hardtanh.default"],
        import: |em, node, _| {
            let loc = node.loc.clone();
            let out = em.out_type(node, 0)?;
            let mut x = em.tensor(node, "self")?;
            for (arg, default, op) in [("min_val", -1.0, "maximum"), ("max_val", 1.0, "minimum")] {
                let bound = if node.arg(arg).is_some() {
                    em.operand(node, arg, out.dtype)?
                } else {
                    let ty = TType {
                        shape: vec![],
                        dtype: out.dtype,
                    };
                    em.constant(Scalar::Float(default), &ty, &loc)
                };
                x = em.op(None, op, &[&x, &bound], "", &out, &loc);
            }
            em.bind(node, 0, x);
            Ok(())
        },
    },
    Rule {
        targets: &["aten.logical_not.default"],
        import: |em, node, _| em.unary(node, "logical_not", ""),
    },
    Rule {
        targets: &["aten.relu.default"],
        import: |em, node, _| em.unary(node, "relu", ""),
    },
    Rule {
        targets: &["aten.gelu.default"],
        import: |em, node, _| {
            let approximate = node
                .arg("approximate")
                .and_then(|v| v.get("as_string"))
                .and_then(Value::as_str)
                .unwrap_or("none")
                .to_string();
            if approximate != "none" && approximate != "tanh" {
                return Err(em.node_error(
                    node,
                    format!("gelu approximation '{approximate}' is not 'none' or 'tanh'"),
                ));
            }
            em.unary(
                node,
                "gelu",
                &format!("approximate = {}", mlir_string(&approximate)),
            )
        },
    },
    Rule {
        targets: &["aten.exp.default"],
        import: |em, node, _| em.unary(node, "exp", ""),
    },
    Rule {
        targets: &["aten.log.default"],
        import: |em, node, _| em.unary(node, "log", ""),
    },
    Rule {
        targets: &["aten.sqrt.default"],
        import: |em, node, _| em.unary(node, "sqrt", ""),
    },
    Rule {
        targets: &["aten.rsqrt.default"],
        import: |em, node, _| em.unary(node, "rsqrt", ""),
    },
    Rule {
        targets: &["aten.tanh.default"],
        import: |em, node, _| em.unary(node, "tanh", ""),
    },
    Rule {
        targets: &["aten.sigmoid.default"],
        import: |em, node, _| em.unary(node, "sigmoid", ""),
    },
    Rule {
        targets: &["aten.neg.default"],
        import: |em, node, _| em.unary(node, "neg", ""),
    },
    Rule {
        targets: &["aten.abs.default"],
        import: |em, node, _| em.unary(node, "abs", ""),
    },
    Rule {
        targets: &["aten.sin.default"],
        import: |em, node, _| em.unary(node, "sin", ""),
    },
    Rule {
        targets: &["aten.cos.default"],
        import: |em, node, _| em.unary(node, "cos", ""),
    },
    Rule {
        targets: &["aten.erf.default"],
        import: |em, node, _| em.unary(node, "erf", ""),
    },
    Rule {
        targets: &["aten.reciprocal.default"],
        import: |em, node, _| em.unary(node, "reciprocal", ""),
    },
    Rule {
        targets: &["aten.silu.default"],
        import: |em, node, _| em.unary(node, "silu", ""),
    },
    Rule {
        targets: &["aten._to_copy.default", "aten.to.dtype"],
        import: |em, node, _| {
            let x = em.tensor(node, "self")?;
            let out = em.out_type(node, 0)?;
            let op = if em.ty(&x).dtype == out.dtype {
                "clone"
            } else {
                "to_dtype"
            };
            em.finish(node, op, &[&x], "")
        },
    },
];
