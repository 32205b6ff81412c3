//! Constants (`full*`, `*_like`, `scalar_tensor`, `arange`), `getitem` of multi-output
//! nodes, and the checks exports leave that compute nothing on static shapes.

use super::super::*;
use super::Rule;

/// The rows of this family.
pub(super) static RULES: &[Rule] = &[
    Rule {
        targets: &[
            "aten.full.default",
            "aten.full_like.default",
            "aten.zeros_like.default",
            "aten.ones_like.default",
            "aten.scalar_tensor.default",
        ],
        import: |em, node, target| {
            let loc = node.loc.clone();
            let out = em.out_type(node, 0)?;
            let value = match target {
                "aten.zeros_like.default" => Scalar::Int(0),
                "aten.ones_like.default" => Scalar::Int(1),
                "aten.scalar_tensor.default" => node.arg("s").and_then(scalar_of).unwrap_or(Scalar::Int(0)),
                _ => node
                    .arg("fill_value")
                    .and_then(scalar_of)
                    .ok_or_else(|| em.node_error(node, "argument 'fill_value' is not a number"))?,
            };
            let res = em.splat(em.out_ssa(node, 0).as_deref(), value, &out, &loc);
            em.bind(node, 0, res);
            Ok(())
        },
    },
    Rule {
        // arange(start=0, end, step=1) with static bounds (position ids): `aten.arange
        // {start, step}`, its length the result's.
        targets: &[
            "aten.arange.start_step",
            "aten.arange.start",
            "aten.arange.default",
        ],
        import: |em, node, _| {
            let loc = node.loc.clone();
            let out = em.out_type(node, 0)?;
            let number = |arg: &str, default: f64| -> R<f64> {
                match node.arg(arg) {
                    None => Ok(default),
                    Some(v) => as_float(v).ok_or_else(|| {
                        em.node_error(node, format!("argument '{arg}' is not a static number: {v}"))
                    }),
                }
            };
            let (start, step) = (number("start", 0.0)?, number("step", 1.0)?);
            let attrs = format!("start = {start:?} : f64, step = {step:?} : f64");
            let res = em.op(em.out_ssa(node, 0).as_deref(), "arange", &[], &attrs, &out, &loc);
            em.bind(node, 0, res);
            Ok(())
        },
    },
    Rule {
        // `.to()` leaves `_assert_tensor_metadata` (a dtype/device check) and shape guards
        // leave `_assert_scalar`: both return nothing and hold on the static types the
        // importer has already checked, so they import as nothing.
        targets: &[
            "aten._assert_tensor_metadata.default",
            "aten._assert_scalar.default",
        ],
        import: |em, node, _| em.only_outputs(node, &[]),
    },
    Rule {
        targets: &["_operator.getitem"],
        import: |em, node, _| {
            let items = node
                .args
                .values()
                .find_map(|v| v.get("as_tensors").and_then(Value::as_array));
            let index = node.args.values().find_map(|v| as_int(v));
            match (items, index) {
                (Some(items), Some(i)) => {
                    let name = items
                        .get(i as usize)
                        .and_then(|t| t["name"].as_str())
                        .unwrap_or_default();
                    let ssa = em
                        .values
                        .get(name)
                        .cloned()
                        .ok_or_else(|| em.node_error(node, format!("getitem of undefined '{name}'")))?;
                    em.bind(node, 0, ssa);
                    Ok(())
                }
                _ => Err(em.node_error(node, "getitem of something other than a tensor list")),
            }
        },
    },
];
