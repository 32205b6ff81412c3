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
    /// `(function, strategy)` → seconds per whole call.
    calls: BTreeMap<(String, String), f64>,
    /// `(function, strategy)` → fuselab's profiled kernels, in the runner's order.
    events: BTreeMap<(String, String), Vec<(String, f64)>>,
    /// `function` → Inductor's profiled kernels and its total µs per call (the runner
    /// times `torch.compile` of the same module beside each bundle).
    inductor: BTreeMap<String, (Vec<(String, f64)>, f64)>,
    /// What the file was (`GPU runner`, `fuse-run --bench-json`).
    pub source: &'static str,
}

/// A timing file that is neither format.
#[derive(Debug, thiserror::Error)]
#[error("timing file: {0}")]
pub struct TimingError(pub String);

/// The PTX name `fuse-gpu` gives `kernel` of `function`.
fn ptx_name(function: &str, kernel: &str) -> String {
    format!("{function}_{kernel}")
}

/// Whether the profiled kernel `profiled` is the report's `kernel` of `function`: its
/// PTX name, or the bare name.
pub fn profiles(profiled: &str, function: &str, kernel: &str) -> bool {
    profiled == kernel || profiled == ptx_name(function, kernel)
}

/// `[[name, µs], ...]` as the runner writes a profile.
fn events(list: Option<&Value>) -> Vec<(String, f64)> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| Some((e.get(0)?.as_str()?.to_string(), e.get(1)?.as_f64()?)))
        .collect()
}

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
                t.events.insert(
                    (function.clone(), strategy.clone()),
                    events(row.get("fuselab_kernels")),
                );
                if let Some(us) = row.get("inductor_us").and_then(Value::as_f64) {
                    t.inductor
                        .insert(function.clone(), (events(row.get("inductor_kernels")), us));
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

    /// µs per call of `kernel` of `function` under `strategy`, if profiled (its PTX name
    /// first, then its bare name).
    pub fn kernel_us(&self, function: &str, strategy: &str, kernel: &str) -> Option<f64> {
        let events = self.events(function, strategy);
        let ptx = ptx_name(function, kernel);
        events
            .iter()
            .find(|(name, _)| *name == ptx)
            .or_else(|| events.iter().find(|(name, _)| name == kernel))
            .map(|&(_, us)| us)
    }

    /// µs per call of the profiled kernels of `function` under `strategy` that match
    /// none of `kernels` (library calls, copies).
    pub fn unmatched_us(&self, function: &str, strategy: &str, kernels: &[&str]) -> f64 {
        self.events(function, strategy)
            .iter()
            .filter(|(name, _)| !kernels.iter().any(|k| profiles(name, function, k)))
            .map(|(_, us)| us)
            .sum()
    }

    /// fuselab's profiled kernels of `function` under `strategy` (µs per call).
    pub fn events(&self, function: &str, strategy: &str) -> &[(String, f64)] {
        self.events
            .get(&(function.to_string(), strategy.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// Inductor's profiled kernels of `function` and its total µs per call, if the
    /// runner timed `torch.compile` beside fuselab.
    pub fn inductor(&self, function: &str) -> Option<(&[(String, f64)], f64)> {
        self.inductor
            .get(function)
            .map(|(events, us)| (events.as_slice(), *us))
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
        assert_eq!(t.events("gelu_mlp", "inductor").len(), 2);
        assert!(t.inductor("gelu_mlp").is_none(), "no Inductor timing in this row");
        let with_inductor = json!([{"function": "f", "strategy": "tvm", "fuselab_us": 2.0,
            "fuselab_kernels": [["f_k", 2.0]], "inductor_us": 1.5, "inductor_kernels": [["triton_poi_fused_add_0", 1.5]]}]);
        let t = Timings::from_json(&with_inductor).expect("runner rows");
        let (events, us) = t.inductor("f").expect("Inductor's side");
        assert_eq!((events[0].0.as_str(), us), ("triton_poi_fused_add_0", 1.5));
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
