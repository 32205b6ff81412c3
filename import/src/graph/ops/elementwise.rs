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
            "aten.clamp.Tensor",
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
        // leaky_relu(x, negative_slope=0.01) = where(x > 0, x, x * negative_slope)
        // (torch/_decomp `leaky_relu`).
        targets: &["aten.leaky_relu.default"],
        import: |em, node, _| {
            let slope = float_arg(em, node, "negative_slope", 0.01)?;
            let (x, out, loc) = (em.tensor(node, "self")?, em.out_type(node, 0)?, node.loc.clone());
            let neg = em.scaled(&x, slope, &out, &loc);
            let res = em.where_positive(&x, &x, &neg, &out, &loc);
            em.bind(node, 0, res);
            Ok(())
        },
    },
    Rule {
        // elu(x, alpha=1, scale=1, input_scale=1) = scale * where(x > 0, x,
        // alpha * (exp(x * input_scale) - 1)) (torch/_decomp `elu`).
        targets: &["aten.elu.default"],
        import: |em, node, _| {
            let alpha = float_arg(em, node, "alpha", 1.0)?;
            let scale = float_arg(em, node, "scale", 1.0)?;
            let input_scale = float_arg(em, node, "input_scale", 1.0)?;
            let (x, out, loc) = (em.tensor(node, "self")?, em.out_type(node, 0)?, node.loc.clone());
            let xs = em.scaled(&x, input_scale, &out, &loc);
            let e = em.op(None, "exp", &[&xs], "", &out, &loc);
            let one = em.constant(
                Scalar::Float(1.0),
                &TType {
                    shape: vec![],
                    dtype: out.dtype,
                },
                &loc,
            );
            let em1 = em.op(None, "sub", &[&e, &one], "", &out, &loc);
            let neg = em.scaled(&em1, alpha * scale, &out, &loc);
            let pos = em.scaled(&x, scale, &out, &loc);
            let res = em.where_positive(&x, &pos, &neg, &out, &loc);
            em.bind(node, 0, res);
            Ok(())
        },
    },
    Rule {
        // log2(x) = log(x) / ln 2, log10(x) = log(x) / ln 10, tan = sin / cos (one more
        // rounding than torch's own kernels: within the oracle's tolerance).
        targets: &["aten.log2.default", "aten.log10.default", "aten.tan.default"],
        import: |em, node, target| {
            let (x, out, loc) = (em.tensor(node, "self")?, em.out_type(node, 0)?, node.loc.clone());
            let res = match target {
                "aten.tan.default" => {
                    let s = em.op(None, "sin", &[&x], "", &out, &loc);
                    let c = em.op(None, "cos", &[&x], "", &out, &loc);
                    em.op(None, "div", &[&s, &c], "", &out, &loc)
                }
                _ => {
                    let base: f64 = if target == "aten.log2.default" { 2.0 } else { 10.0 };
                    let l = em.op(None, "log", &[&x], "", &out, &loc);
                    em.scaled(&l, 1.0 / base.ln(), &out, &loc)
                }
            };
            em.bind(node, 0, res);
            Ok(())
        },
    },
    Rule {
        // sign(x) = where(x > 0, 1, where(x < 0, -1, 0)); isnan(x) = x != x; isinf(x) =
        // |x| == inf (torch/_refs).
        targets: &["aten.sign.default", "aten.isnan.default", "aten.isinf.default"],
        import: |em, node, target| {
            let (x, out, loc) = (em.tensor(node, "self")?, em.out_type(node, 0)?, node.loc.clone());
            let xt = em.ty(&x);
            let scalar = |em: &mut Emitter, v: f64| {
                em.constant(
                    Scalar::Float(v),
                    &TType {
                        shape: vec![],
                        dtype: xt.dtype,
                    },
                    &loc,
                )
            };
            let res = match target {
                "aten.isnan.default" => em.op(None, "ne", &[&x, &x], "", &out, &loc),
                "aten.isinf.default" => {
                    let a = em.op(None, "abs", &[&x], "", &xt, &loc);
                    let inf = scalar(em, f64::INFINITY);
                    em.op(None, "eq", &[&a, &inf], "", &out, &loc)
                }
                _ => {
                    let (one, minus, zero) = (scalar(em, 1.0), scalar(em, -1.0), scalar(em, 0.0));
                    let cond_ty = TType {
                        shape: out.shape.clone(),
                        dtype: "i1",
                    };
                    let neg = em.op(None, "lt", &[&x, &zero], "", &cond_ty, &loc);
                    let inner = em.op(None, "where", &[&neg, &minus, &zero], "", &out, &loc);
                    em.where_positive(&x, &one, &inner, &out, &loc)
                }
            };
            em.bind(node, 0, res);
            Ok(())
        },
    },
    Rule {
        // logical_and/or/xor(a, b) on `a != 0` and `b != 0`: where(a, b, false),
        // where(a, true, b), a != b; bitwise_and/or/xor of bools are the same (`&`, `|`,
        // `^` on masks); of integers they are not supported.
        targets: &[
            "aten.logical_and.default",
            "aten.logical_or.default",
            "aten.logical_xor.default",
            "aten.bitwise_and.Tensor",
            "aten.bitwise_or.Tensor",
            "aten.bitwise_xor.Tensor",
        ],
        import: |em, node, target| {
            let out = em.out_type(node, 0)?;
            if target.starts_with("aten.bitwise") && out.dtype != "i1" {
                return Err(em.node_error(
                    node,
                    format!("fuselab supports {target} on bools only, not {}", out.dtype),
                ));
            }
            let loc = node.loc.clone();
            let truth = |em: &mut Emitter, arg: &str| -> R<String> {
                let v = em.tensor(node, arg)?;
                let t = em.ty(&v);
                if t.dtype == "i1" {
                    return Ok(v);
                }
                let zero = em.constant(
                    Scalar::Int(0),
                    &TType {
                        shape: vec![],
                        dtype: t.dtype,
                    },
                    &loc,
                );
                Ok(em.op(
                    None,
                    "ne",
                    &[&v, &zero],
                    "",
                    &TType {
                        shape: t.shape.clone(),
                        dtype: "i1",
                    },
                    &loc,
                ))
            };
            let a = truth(em, "self")?;
            let b = truth(em, "other")?;
            let boolean = |em: &mut Emitter, v: bool| {
                em.constant(
                    Scalar::Int(i64::from(v)),
                    &TType {
                        shape: vec![],
                        dtype: "i1",
                    },
                    &loc,
                )
            };
            let res = match target {
                "aten.logical_and.default" | "aten.bitwise_and.Tensor" => {
                    let f = boolean(em, false);
                    em.op(None, "where", &[&a, &b, &f], "", &out, &loc)
                }
                "aten.logical_or.default" | "aten.bitwise_or.Tensor" => {
                    let t = boolean(em, true);
                    em.op(None, "where", &[&a, &t, &b], "", &out, &loc)
                }
                _ => em.op(None, "ne", &[&a, &b], "", &out, &loc),
            };
            em.bind(node, 0, res);
            Ok(())
        },
    },
    Rule {
        // pow(self: a number, exponent: a tensor).
        targets: &["aten.pow.Scalar"],
        import: |em, node, _| em.binary(node, "pow", "self", "exponent"),
    },
    Rule {
        targets: &["aten.logical_not.default"],
        import: |em, node, _| em.unary(node, "logical_not", ""),
    },
    Rule {
        // bitwise_not of a mask is its logical not (`~` on bools: label smoothing's
        // `~ignore_mask`); of integers it is not supported.
        targets: &["aten.bitwise_not.default"],
        import: |em, node, target| {
            let out = em.out_type(node, 0)?;
            if out.dtype != "i1" {
                return Err(em.node_error(
                    node,
                    format!("fuselab supports {target} on bools only, not {}", out.dtype),
                ));
            }
            em.unary(node, "logical_not", "")
        },
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
        targets: &[
            "aten.floor.default",
            "aten.ceil.default",
            "aten.round.default",
            "aten.trunc.default",
        ],
        import: |em, node, target| {
            let name = target.trim_start_matches("aten.").trim_end_matches(".default");
            em.unary(node, name, "")
        },
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

/// A float argument, or `default` when absent.
fn float_arg(em: &Emitter, node: &Node, arg: &str, default: f64) -> R<f64> {
    match node.arg(arg) {
        None => Ok(default),
        Some(v) => as_float(v)
            .or_else(|| as_int(v).map(|i| i as f64))
            .ok_or_else(|| em.node_error(node, format!("argument '{arg}' is not a number: {v}"))),
    }
}

impl Emitter<'_> {
    /// `x * factor` (no op when the factor is 1).
    fn scaled(&mut self, x: &str, factor: f64, out: &TType, loc: &str) -> String {
        if factor == 1.0 {
            return x.to_string();
        }
        let f = self.constant(
            Scalar::Float(factor),
            &TType {
                shape: vec![],
                dtype: out.dtype,
            },
            loc,
        );
        self.op(None, "mul", &[x, &f], "", out, loc)
    }

    /// `where(x > 0, pos, neg)`.
    fn where_positive(&mut self, x: &str, pos: &str, neg: &str, out: &TType, loc: &str) -> String {
        let zero = self.constant(
            Scalar::Float(0.0),
            &TType {
                shape: vec![],
                dtype: out.dtype,
            },
            loc,
        );
        let cond_ty = TType {
            shape: out.shape.clone(),
            dtype: "i1",
        };
        let cond = self.op(None, "gt", &[x, &zero], "", &cond_ty, loc);
        self.op(None, "where", &[&cond, pos, neg], "", out, loc)
    }
}
