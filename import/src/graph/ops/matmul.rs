//! Library kernels: mm, bmm, addmm, linear, convolution.

use super::super::*;
use super::Rule;

/// The rows of this family.
pub(super) static RULES: &[Rule] = &[
    Rule {
        targets: &["aten.mm.default", "aten.bmm.default"],
        import: |em, node, target| {
            let a = em.tensor(node, "self")?;
            let b = em.tensor(node, "mat2")?;
            let op = if target.starts_with("aten.mm") {
                "mm"
            } else {
                "bmm"
            };
            em.finish(node, op, &[&a, &b], "")
        },
    },
    Rule {
        targets: &["aten.addmm.default"],
        import: |em, node, _| {
            for factor in ["beta", "alpha"] {
                if let Some(v) = node.arg(factor).and_then(scalar_of) {
                    if v != Scalar::Int(1) && v != Scalar::Float(1.0) {
                        return Err(em.node_error(node, format!("addmm with {factor} != 1 is not supported")));
                    }
                }
            }
            let bias = em.tensor(node, "self")?;
            let a = em.tensor(node, "mat1")?;
            let b = em.tensor(node, "mat2")?;
            em.finish(node, "addmm", &[&bias, &a, &b], "")
        },
    },
    Rule {
        targets: &["aten.linear.default"],
        import: |em, node, _| {
            let x = em.tensor(node, "input")?;
            let w = em.tensor(node, "weight")?;
            let mut operands = vec![x, w];
            if node.arg("bias").is_some() {
                operands.push(em.tensor(node, "bias")?);
            }
            let refs: Vec<&str> = operands.iter().map(String::as_str).collect();
            em.finish(node, "linear", &refs, "")
        },
    },
    Rule {
        targets: &["aten.convolution.default"],
        import: |em, node, _| {
            if em.bool_arg(node, "transposed", false)? {
                return Err(em.node_error(node, "transposed convolution is not supported"));
            }
            if em
                .ints_arg(node, "output_padding")?
                .is_some_and(|p| p.iter().any(|&v| v != 0))
            {
                return Err(em.node_error(node, "convolution output_padding is not supported"));
            }
            let x = em.tensor(node, "input")?;
            let w = em.tensor(node, "weight")?;
            let mut operands = vec![x, w];
            if node.arg("bias").is_some() {
                operands.push(em.tensor(node, "bias")?);
            }
            let spatial = em.ty(&operands[0]).rank().saturating_sub(2);
            let list = |this: &Emitter, arg: &str, default: i64| -> R<Vec<i64>> {
                let mut v = this.ints_arg(node, arg)?.unwrap_or_else(|| vec![default]);
                if v.len() == 1 && spatial > 1 {
                    v = vec![v[0]; spatial];
                }
                Ok(v)
            };
            let attrs = format!(
                "stride = {}, padding = {}, dilation = {}, groups = {} : i64",
                ints(&list(em, "stride", 1)?),
                ints(&list(em, "padding", 0)?),
                ints(&list(em, "dilation", 1)?),
                em.int_arg(node, "groups", Some(1))?
            );
            let refs: Vec<&str> = operands.iter().map(String::as_str).collect();
            em.finish(node, "convolution", &refs, &attrs)
        },
    },
];
