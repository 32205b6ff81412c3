//! In-process compilation for an embedder (the Python package's `torch.compile`
//! backend): a function in the `aten` dialect through one strategy's pipeline (the rows
//! `fuse-run --strategy` runs, from the strategy table) and the CPU target's code
//! generator and JIT, with the fusion reports the strategy wrote (the JSON objects of
//! `fuse-opt --fusion-report`). No files, no subprocess.

use fuselab_dialects::FuseContext;
use fuselab_passes::ReportCollector;
use fuselab_targets::{
    cpu::{cpu_options, jit::Jit},
    CompileOptions,
};

/// A compiled function and what the strategy decided.
pub struct Compiled {
    /// The code, callable on buffers ([`Jit::call_raw`]).
    pub jit: Jit,
    /// The strategy's fusion reports (one per function and fusion pass).
    pub reports: Vec<serde_json::Value>,
}

/// Compiles the one function of `text` (named `buffer` in diagnostics) with `strategy`
/// (a row of `fuse-run --strategy`, e.g. `inductor`, `tvm`, `unfused`) for this
/// machine's CPU; `parallel`: row chunks of large steps on OpenMP threads. The
/// diagnostics' text on failure.
pub fn compile_for_cpu(text: &str, buffer: &str, strategy: &str, parallel: bool) -> Result<Compiled, String> {
    crate::driver::known_strategy(strategy, None)?;
    let pipeline = crate::driver::pipeline_of(strategy);
    let fuse = FuseContext::new().map_err(|e| e.to_string())?;
    let collector = ReportCollector::default();
    let module = crate::driver::pipeline_module_reporting(
        &fuse,
        text,
        buffer,
        &pipeline,
        &fuselab_targets::TARGETS[0],
        Some(collector.clone()),
    )?;
    let funcs = crate::driver::functions(&module);
    let [(_, func)] = funcs[..] else {
        return Err(format!("{buffer}: expected one function, found {}", funcs.len()));
    };
    // The options `fuse-run --jit` compiles with by default, threads as asked.
    let options = CompileOptions {
        parallel,
        ..CompileOptions::default()
    };
    let jit = Jit::compile_with(func, cpu_options(options, false)).map_err(|e| e.to_string())?;
    Ok(Compiled {
        jit,
        reports: collector.take(),
    })
}

#[cfg(test)]
mod tests {
    use super::compile_for_cpu;

    const TEXT: &str = r#"func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = "aten.add"(%x, %y) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = "aten.relu"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}"#;

    /// Compiled code run on the caller's buffers computes the function; the Inductor
    /// strategy's report names its one kernel.
    #[test]
    fn compiled_code_runs_on_the_callers_buffers() {
        let compiled = compile_for_cpu(TEXT, "f.mlir", "inductor", false).expect("compiles");
        let mut x: Vec<f32> = (0..32).map(|i| i as f32 - 16.0).collect();
        let mut y: Vec<f32> = vec![0.5; 32];
        let mut out = vec![0f32; 32];
        let buffers = [
            x.as_mut_ptr() as *mut u8,
            y.as_mut_ptr() as *mut u8,
            out.as_mut_ptr() as *mut u8,
        ];
        // SAFETY: three live arrays of 32 f32, as the signature says.
        unsafe { compiled.jit.call_raw(&buffers) }.expect("runs");
        let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| (a + b).max(0.0)).collect();
        assert_eq!(out, want);
        let kernels = compiled.reports[0]["kernels"].as_array().expect("kernels").len();
        assert_eq!(kernels, 1, "{:?}", compiled.reports);
        // SAFETY: a wrong count is refused before any pointer is used.
        assert!(unsafe { compiled.jit.call_raw(&buffers[..2]) }.is_err());
        assert!(compile_for_cpu(TEXT, "f.mlir", "nonsense", false)
            .err()
            .is_some_and(|e| e.contains("unknown strategy")));
    }
}
