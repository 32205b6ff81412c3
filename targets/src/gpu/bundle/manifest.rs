//! `manifest.json`, written: the plan's buffers and steps, the input generator's seed and
//! the oracle's samples (docs/gpu.md).

use super::plan::{Plan, Role, Step};
use crate::gpu::ptx::CHIP;
use fuselab_dialects::types::DType;
use fuselab_exec::{inputs::tolerance, Tensor};
use serde_json::{json, Value as Json};

/// The schema's name and version, the manifest's `format`.
pub const FORMAT: &str = "fuselab-gpu-bundle/1";

/// What a manifest says about where the bundle came from.
#[derive(Clone, Copy, Debug)]
pub struct BundleInfo<'a> {
    /// The source file.
    pub source: &'a str,
    /// The strategy that fused it.
    pub strategy: &'a str,
    /// The seed of the portable inputs.
    pub seed: u64,
}

impl Plan {
    /// The dtype, shape and int64 bound (0 for other dtypes' inputs, from `bounds` by
    /// input index) of each input buffer, in input order: what the portable generator
    /// makes.
    pub fn input_types(&self, bounds: &[i64]) -> Vec<(DType, Vec<i64>, i64)> {
        self.buffers
            .iter()
            .filter_map(|b| match b.role {
                Role::Input(i) => Some((
                    b.ty.dtype,
                    b.ty.shape.clone(),
                    bounds.get(i).copied().unwrap_or(0),
                )),
                _ => None,
            })
            .collect()
    }
}

/// The manifest's `oracle`: `samples` evenly spaced elements of each of the plan's
/// `outputs` (the aten interpreter's, on the portable inputs), each output's largest
/// finite magnitude and its dtype's tolerance.
pub fn oracle(plan: &Plan, outputs: &[Tensor], samples: usize) -> Json {
    let mut list = Vec::new();
    for (i, t) in outputs.iter().enumerate() {
        let n = t.data.len();
        let count = samples.min(n);
        let values: Vec<Json> = (0..count).map(|j| number(t.data[j * n / count.max(1)])).collect();
        let max_abs = t
            .data
            .iter()
            .filter(|v| v.is_finite())
            .fold(0.0f64, |m, v| m.max(v.abs()));
        let (atol, rtol) = tolerance(t.dtype);
        let buffer_id = plan.buffers.iter().position(|b| b.role == Role::Output(i));
        list.push(json!({
            "buffer": buffer_id,
            "count": count,
            "values": values,
            "max_abs": max_abs,
            "atol": atol,
            "rtol": rtol,
        }));
    }
    json!({ "indices": "floor(j * numel / count)", "outputs": list })
}

/// A JSON number, or "nan" / "inf" / "-inf".
fn number(v: f64) -> Json {
    if v.is_nan() {
        json!("nan")
    } else if v.is_infinite() {
        json!(if v > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(v)
    }
}

/// The manifest of `plan` (`manifest.json`), with the oracle's samples when given and
/// each int64 input's bound.
pub fn manifest(plan: &Plan, info: &BundleInfo<'_>, oracle: Option<Json>, bounds: &[i64]) -> Json {
    let buffers: Vec<Json> = plan
        .buffers
        .iter()
        .enumerate()
        .map(|(id, b)| {
            let (role, index) = match b.role {
                Role::Input(i) => ("input", Some(i)),
                Role::Output(i) => ("output", Some(i)),
                Role::Temp => ("temp", None),
            };
            let mut entry = json!({
                "id": id,
                "role": role,
                "shape": b.ty.shape,
                "dtype": b.ty.dtype.to_string(),
            });
            if let Some(i) = index {
                entry["index"] = json!(i);
            }
            if let Role::Input(i) = b.role {
                if matches!(b.ty.dtype, DType::I64 | DType::I32) {
                    entry["int_bound"] = json!(bounds.get(i).copied().unwrap_or(8));
                }
            }
            entry
        })
        .collect();
    let steps: Vec<Json> = plan
        .steps
        .iter()
        .map(|s| match s {
            Step::Launch {
                kernel,
                grid,
                threads,
                args,
                variants,
            } => {
                let mut l = json!({"op": "launch", "kernel": kernel, "grid": [grid, 1, 1], "block": [threads, 1, 1], "args": args});
                if !variants.is_empty() {
                    l["variants"] = variants
                        .iter()
                        .map(|(k, t)| json!({"kernel": k, "block": [t, 1, 1]}))
                        .collect();
                }
                l
            }
            Step::Extern {
                kind,
                args,
                views,
                ints,
                scale,
            } => {
                let mut e = json!({"op": "extern", "kind": kind, "args": args, "views": views});
                for (name, v) in ints {
                    e[name.as_str()] = json!(v);
                }
                if let Some(scale) = scale {
                    e["scale"] = json!(scale);
                }
                e
            }
            Step::Copy { src, dst } => json!({"op": "copy", "src": src, "dst": dst}),
        })
        .collect();
    json!({
        "format": FORMAT,
        "source": info.source,
        "function": plan.function,
        "strategy": info.strategy,
        "chip": CHIP,
        "ptx": "kernels.ptx",
        "inputs": {"generator": "splitmix64", "seed": info.seed},
        "buffers": buffers,
        "steps": steps,
        "oracle": oracle,
    })
}
