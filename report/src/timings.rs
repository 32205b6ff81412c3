//! Measured times for the page: the GPU runner's `--json` rows (`tools/gpu/run.py`:
//! per bundle its function, strategy and `fuselab_kernels`, the CUDA profiler's time per
//! call of every kernel it launched) or `fuse-run --bench-json` (per function and
//! strategy the median time of a whole call).
//!
//! A profiled kernel is matched to a report's kernel by its PTX name, which `fuse-gpu`
//! makes `<function>_<kernel>`; library kernels (cuBLAS, cuDNN) keep their vendor
//! names and are summed per strategy instead.

use serde_json::Value;
use std::collections::BTreeMap;

/// Times read from a timing file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timings {
    /// `(function, strategy, profiled kernel name)` → µs per call.
    kernels: BTreeMap<(String, String, String), f64>,
    /// `(function, strategy)` → seconds per whole call.
    calls: BTreeMap<(String, String), f64>,
    /// What the file was (`GPU runner`, `fuse-run --bench-json`).
    pub source: &'static str,
}

/// A timing file that is neither format.
#[derive(Debug, thiserror::Error)]
#[error("timing file: {0}")]
pub struct TimingError(pub String);

impl Timings {
    /// Reads either format.
    pub fn from_json(v: &Value) -> Result<Self, TimingError> {
        let mut t = Timings::default();
        if let Some(rows) = v.as_array() {
            t.source = "GPU runner (CUDA profiler, µs per call)";
            for row in rows {
                let text = |key: &str| row.get(key).and_then(Value::as_str).map(str::to_string);
                let (Some(function), Some(strategy)) = (text("function"), text("strategy")) else {
                    return Err(TimingError(
                        "a GPU runner row without 'function' and 'strategy' (tools/gpu/run.py --json writes them)"
                            .into(),
                    ));
                };
                if let Some(us) = row.get("fuselab_us").and_then(Value::as_f64) {
                    t.calls.insert((function.clone(), strategy.clone()), us * 1e-6);
                }
                for event in row
                    .get("fuselab_kernels")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let (Some(name), Some(us)) = (
                        event.get(0).and_then(Value::as_str),
                        event.get(1).and_then(Value::as_f64),
                    ) {
                        t.kernels
                            .insert((function.clone(), strategy.clone(), name.to_string()), us);
                    }
                }
            }
            return Ok(t);
        }
        let Some(functions) = v.get("functions").and_then(Value::as_array) else {
            return Err(TimingError(
                "expected the GPU runner's rows (a JSON list) or fuse-run --bench-json's {\"functions\": [...]}".into(),
            ));
        };
        t.source = "fuse-run --bench (median seconds per call)";
        for f in functions {
            let Some(function) = f.get("function").and_then(Value::as_str) else {
                return Err(TimingError("a function without 'function'".into()));
            };
            for s in f
                .get("strategies")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let (Some(strategy), Some(seconds)) = (
                    s.get("strategy").and_then(Value::as_str),
                    s.get("median_s").and_then(Value::as_f64),
                ) {
                    t.calls
                        .insert((function.to_string(), strategy.to_string()), seconds);
                }
            }
        }
        Ok(t)
    }

    /// µs per call of `kernel` of `function` under `strategy`, if profiled.
    pub fn kernel_us(&self, function: &str, strategy: &str, kernel: &str) -> Option<f64> {
        let key = |name: String| (function.to_string(), strategy.to_string(), name);
        self.kernels
            .get(&key(format!("{function}_{kernel}")))
            .or_else(|| self.kernels.get(&key(kernel.to_string())))
            .copied()
    }

    /// µs per call of the profiled kernels of `function` under `strategy` that match
    /// none of `kernels` (library calls, copies).
    pub fn unmatched_us(&self, function: &str, strategy: &str, kernels: &[&str]) -> f64 {
        self.kernels
            .iter()
            .filter(|((f, s, name), _)| {
                f == function
                    && s == strategy
                    && !kernels
                        .iter()
                        .any(|k| name == k || *name == format!("{function}_{k}"))
            })
            .map(|(_, us)| us)
            .sum()
    }

    /// Seconds per whole call of `function` under `strategy`, if measured.
    pub fn call_s(&self, function: &str, strategy: &str) -> Option<f64> {
        self.calls
            .get(&(function.to_string(), strategy.to_string()))
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn gpu_runner_rows_give_kernel_times_by_ptx_name() {
        let rows = json!([{"bundle": "b/gelu_mlp.inductor", "function": "gelu_mlp", "strategy": "inductor",
            "fuselab_us": 300.5, "fuselab_kernels": [["gelu_mlp_fused_add_gelu_0", 100.25],
            ["cutlass_80_simt_sgemm_256x128_8x4_nn_align1", 200.25]]}]);
        let t = Timings::from_json(&rows).expect("runner rows");
        assert_eq!(
            t.kernel_us("gelu_mlp", "inductor", "fused_add_gelu_0"),
            Some(100.25)
        );
        assert_eq!(t.kernel_us("gelu_mlp", "tvm", "fused_add_gelu_0"), None);
        assert_eq!(
            t.unmatched_us("gelu_mlp", "inductor", &["fused_add_gelu_0"]),
            200.25
        );
        assert_eq!(t.call_s("gelu_mlp", "inductor"), Some(300.5e-6));
    }

    #[test]
    fn bench_json_gives_call_times() {
        let doc = json!({"runs": 3, "functions": [{"function": "f", "strategies": [{"strategy": "tvm", "median_s": 0.002}]}]});
        let t = Timings::from_json(&doc).expect("bench json");
        assert_eq!(t.call_s("f", "tvm"), Some(0.002));
        assert_eq!(t.kernel_us("f", "tvm", "k"), None);
    }

    #[test]
    fn other_documents_are_refused() {
        let e = Timings::from_json(&json!({"rows": []})).expect_err("not a timing file");
        assert!(e
            .to_string()
            .starts_with("timing file: expected the GPU runner's rows"));
        let e = Timings::from_json(&json!([{"bundle": "x"}])).expect_err("no function");
        assert!(e.to_string().contains("without 'function' and 'strategy'"));
    }
}
