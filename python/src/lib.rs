//! `fuselab._native`: the compiler crates inside the Python process. A thin layer: the
//! importer (`.pt2` bytes to the `aten` dialect), one strategy's pipeline and the CPU
//! JIT ([`fuselab_tools::compile`]), and calls of the compiled code on the buffers of
//! torch tensors. The Python side (`fuselab.backend`) owns tensors, shapes and fallback.

use fuselab_tools::compile::{compile_for_cpu, Compiled};
use pyo3::{exceptions::PyValueError, prelude::*};

/// A tensor's type as Python sees it: its shape and dtype name (`f32`, `i64`, ...).
type PyTensorType = (Vec<i64>, String);

fn py_types(types: &[fuselab_dialects::types::TensorType]) -> Vec<PyTensorType> {
    types
        .iter()
        .map(|t| (t.shape.clone(), t.dtype.to_string()))
        .collect()
}

/// A compiled graph: its code, its signature and the strategy's fusion reports.
#[pyclass(unsendable, module = "fuselab._native")]
struct Graph {
    compiled: Compiled,
}

#[pymethods]
impl Graph {
    /// The inputs' (shape, dtype), in call order.
    #[getter]
    fn inputs(&self) -> Vec<PyTensorType> {
        py_types(self.compiled.jit.signature().0)
    }

    /// The outputs' (shape, dtype), in call order.
    #[getter]
    fn outputs(&self) -> Vec<PyTensorType> {
        py_types(self.compiled.jit.signature().1)
    }

    /// The fusion reports as a JSON array (`fuse-opt --fusion-report`'s objects).
    #[getter]
    fn report(&self) -> String {
        serde_json::Value::Array(self.compiled.reports.clone()).to_string()
    }

    /// Runs the code on buffers given by address: each input's, then each output's
    /// first element. The caller (`fuselab.backend`) passes contiguous tensors of the
    /// signature's shapes and dtypes, alive through the call, outputs not overlapping
    /// anything.
    fn run(&self, addresses: Vec<usize>) -> PyResult<()> {
        let (inputs, outputs) = self.compiled.jit.signature();
        if addresses.len() != inputs.len() + outputs.len() || addresses.contains(&0) {
            return Err(PyValueError::new_err(format!(
                "expected {} non-null buffer addresses, got {:?}",
                inputs.len() + outputs.len(),
                addresses
            )));
        }
        let buffers: Vec<*mut u8> = addresses.iter().map(|&a| a as *mut u8).collect();
        // SAFETY: the caller's contract above (checked by the Python side: shapes,
        // dtypes, contiguity, fresh outputs).
        unsafe { self.compiled.jit.call_raw(&buffers) }.map_err(|e| PyValueError::new_err(e.to_string()))
    }
}

/// Imports a `torch.export` archive (`.pt2` bytes, named `name` in messages) into the
/// `aten` dialect: the MLIR text of one function `@forward`.
#[pyfunction]
fn import_pt2(data: &[u8], name: &str) -> PyResult<String> {
    fuselab_import::import_pt2(data, name, &fuselab_import::ImportOptions::default())
        .map(|imported| imported.text)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Compiles the one function of the `aten` text with `strategy` for this machine's CPU.
#[pyfunction]
#[pyo3(signature = (text, name, strategy, parallel = false))]
fn compile(text: &str, name: &str, strategy: &str, parallel: bool) -> PyResult<Graph> {
    compile_for_cpu(text, name, strategy, parallel)
        .map(|compiled| Graph { compiled })
        .map_err(PyValueError::new_err)
}

/// Compiles the one function of the `aten` text with `strategy` for the GPU target and
/// writes its bundle (`kernels.ptx`, `manifest.json`, as `fuse-gpu -o dir --samples 0`).
#[pyfunction]
fn compile_gpu(text: &str, name: &str, strategy: &str, dir: &str) -> PyResult<()> {
    fuselab_tools::gpu::write_bundle(text, name, strategy, dir).map_err(PyValueError::new_err)
}

/// Checks the bundle in `dir` without a GPU (`fuse-gpu --validate`); every problem found.
#[pyfunction]
fn validate_bundle(dir: &str) -> Vec<String> {
    fuselab_targets::gpu::bundle::validate_dir(dir)
        .err()
        .unwrap_or_default()
}

/// The strategies `compile` takes (the strategy table's execution rows).
#[pyfunction]
fn strategies() -> Vec<&'static str> {
    fuselab_tools::driver::strategy_names()
}

/// Raises ValueError unless `name` is a strategy `compile` takes, in the tools' wording.
#[pyfunction]
fn check_strategy(name: &str) -> PyResult<()> {
    fuselab_tools::driver::known_strategy(name, None)
        .map_err(|e| PyValueError::new_err(format!("fuselab: {e}")))
}

/// Every op overload the importer maps (`aten.mul.Tensor`, as `str` of a `torch.ops` target): the one
/// op table, which the backend's partitioner asks.
#[pyfunction]
fn supported_targets() -> Vec<&'static str> {
    fuselab_import::supported_targets()
}

/// The visual fusion report (`fuse-opt --fusion-compare=html`'s page) of `results`, a
/// JSON list of `{"strategy": name, "reports": [fusion report, ...]}` (the reports of
/// `Graph.report()`), titled `title`.
#[pyfunction]
fn fusion_html(results: &str, title: &str) -> PyResult<String> {
    let error = |e: String| PyValueError::new_err(format!("fuselab: {e}"));
    let value: serde_json::Value = serde_json::from_str(results).map_err(|e| error(e.to_string()))?;
    let entries = value
        .as_array()
        .ok_or_else(|| error("fusion_html expects a JSON list of strategy results".into()))?;
    let results = entries
        .iter()
        .map(|entry| {
            let strategy = entry
                .get("strategy")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default();
            let reports = entry
                .get("reports")
                .and_then(serde_json::Value::as_array)
                .cloned()
                .unwrap_or_default();
            fuselab_report::StrategyResult::from_reports(strategy, None, &reports)
                .map_err(|e| error(e.to_string()))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(fuselab_report::html(title, &results, None))
}

/// The compiler's version (part of the compiled-graph cache key).
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Graph>()?;
    m.add_function(wrap_pyfunction!(import_pt2, m)?)?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(strategies, m)?)?;
    m.add_function(wrap_pyfunction!(check_strategy, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(supported_targets, m)?)?;
    m.add_function(wrap_pyfunction!(compile_gpu, m)?)?;
    m.add_function(wrap_pyfunction!(validate_bundle, m)?)?;
    m.add_function(wrap_pyfunction!(fusion_html, m)?)?;
    Ok(())
}
