//! `fuse-run FILE.mlir [--strategy S] [--seed N] [--function F] [--max-elements N]`:
//! checks by execution that every pipeline computes what the input computes. It
//! generates seeded inputs, runs the reference interpreter of the `aten` dialect on the
//! input as written (the oracle), runs each strategy's pipeline and then the `loop`
//! interpreter on the result, and compares every output with a dtype-aware tolerance:
//! max abs / max rel error and PASS/FAIL per output. Exit 1 on any FAIL or error.
//!
//! Pipelines (`fusion::table::execution_pipelines`, from the strategy table):
//! `unfused` (decompose + lower, one node per primitive op), then every strategy and
//! its variants — today `inductor` (+ unroll-small-reductions + inline-pointwise + split-reductions + inductor-fuse), `tvm` (views
//! materialized + tvm-fuse-ops), `tvm-folded` (views folded + tvm-fuse-ops); `all` runs
//! them all. Compiled runs (`--jit`) use the target's runner (`--target`, default cpu).

use crate::driver::{diagnostics_text, functions, pipeline_module, pipeline_of, strategy_names};
use fuselab_dialects::ir;
use fuselab_dialects::{source::parse_module, DiagnosticSink, FuseContext};
use fuselab_exec::{
    aten::run_aten,
    inputs::{compare, generate_inputs, Comparison},
    loops::run_loop,
    Tensor,
};
use fuselab_passes::fusion::table::execution_pipelines;
use fuselab_targets::{CompileOptions, TargetEntry};

pub mod accuracy;
mod bench;
mod cli;
mod expect;
pub mod threads;

pub use cli::run;

pub use bench::{bench, bench_json_value, bench_report, copy_bandwidth, BenchResult, BenchRow};
pub use expect::{load_expectation, Expectation};
use std::{fmt::Write as _, io::Write};

/// The result of one strategy on one function.
#[derive(Clone, Debug)]
pub struct StrategyResult {
    /// Strategy name.
    pub strategy: String,
    /// Per output, or the error that stopped the strategy.
    pub outputs: Result<Vec<Comparison>, String>,
    /// With `--accuracy`: per output, its error against exact arithmetic (`None` for
    /// integer outputs); empty otherwise.
    pub exact_errors: Vec<Option<accuracy::Error>>,
    /// The outputs that failed the elementwise check and passed Inductor's fp64 rule
    /// ([`accuracy::passes_fp64_rule`]): index, RMS error against fp64, eager's.
    pub fp64_passes: Vec<(usize, f64, f64)>,
}

impl StrategyResult {
    /// Whether every output passed.
    pub fn pass(&self) -> bool {
        self.outputs.as_ref().is_ok_and(|o| o.iter().all(|c| c.pass))
    }
}

/// The results of one function.
#[derive(Clone, Debug)]
pub struct FunctionResult {
    /// Function name.
    pub function: String,
    /// Output types, for printing.
    pub output_types: Vec<String>,
    /// One entry per strategy.
    pub strategies: Vec<StrategyResult>,
    /// With `--accuracy`: the eager oracle's error per output against exact
    /// arithmetic; empty otherwise.
    pub eager_errors: Vec<Option<accuracy::Error>>,
}

/// Options of a check.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Strategy names to run.
    pub strategies: Vec<String>,
    /// Input seed.
    pub seed: u64,
    /// Only this function.
    pub function: Option<String>,
    /// Refuse functions with more tensor elements than this (the interpreters are slow).
    pub max_elements: u64,
    /// Inputs and outputs recorded from PyTorch (`--expect`): run on these inputs and
    /// also check the reference against torch's outputs.
    pub expect: Option<Expectation>,
    /// Run each strategy's result compiled (CPU code generation + JIT) instead of on
    /// the loop interpreter.
    pub jit: bool,
    /// Compiled code runs the rows of each kernel in parallel (`scf.parallel` as an
    /// OpenMP worksharing loop).
    pub parallel: bool,
    /// With `parallel`: the element operations a step needs to run in parallel
    /// (`--parallel-min-work`).
    pub parallel_min_work: i64,
    /// The target the strategies ask and whose runner runs compiled code.
    pub target: &'static TargetEntry,
    /// Fused multiply-add in compiled code ([`CompileOptions::fp_fusion`]).
    pub fp_fusion: bool,
    /// Preferred vector width of compiled code ([`CompileOptions::vector_bits`]).
    pub vector_bits: Option<u32>,
    /// Interleaving of long loop bodies ([`CompileOptions::interleave`]).
    pub interleave: bool,
    /// Also measure every output's rounding error against exact arithmetic
    /// (`--accuracy`, [`accuracy`]).
    pub accuracy: bool,
}

impl RunOptions {
    /// The options the target's runner compiles with.
    fn compile_options(&self) -> CompileOptions {
        CompileOptions {
            parallel: self.parallel,
            parallel_min_work: self.parallel_min_work,
            fp_fusion: self.fp_fusion,
            vector_bits: self.vector_bits,
            interleave: self.interleave,
        }
    }

    /// The compile options when running compiled (`--jit`).
    fn compiled(&self) -> Option<CompileOptions> {
        self.jit.then(|| self.compile_options())
    }

    /// The target's runner, or a message when the target has none here.
    fn runner(&self) -> Result<&'static dyn fuselab_targets::Runner, String> {
        self.target.runner.ok_or_else(|| {
            format!(
                "target '{}' cannot run code on this machine",
                self.target.target.name()
            )
        })
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            strategies: strategy_names().into_iter().map(String::from).collect(),
            seed: 0,
            function: None,
            max_elements: 1 << 28,
            expect: None,
            jit: false,
            parallel: false,
            parallel_min_work: fuselab_targets::cpu::lower_loop_to_cpu::PARALLEL_WORK,
            target: &fuselab_targets::TARGETS[0],
            fp_fusion: true,
            vector_bits: fuselab_targets::cpu::codegen_choices::host_vector_bits(),
            interleave: true,
            accuracy: false,
        }
    }
}

/// Parses and verifies `text`, then runs every strategy's pipeline and the CPU code
/// generator on it; how many of them succeeded. Errors are expected for malformed
/// input; a panic or crash is a bug. This is the body of the `cargo fuzz` target
/// (`fuzz/fuzz_targets/parse_and_fuse.rs`).
pub fn exercise_pipelines(text: &str) -> usize {
    let Ok(fuse) = FuseContext::new() else {
        return 0;
    };
    let cpu = &fuselab_targets::TARGETS[0];
    let codegen = crate::driver::stages::StageRequest {
        stop: Some("codegen"),
        ..Default::default()
    };
    let Ok(codegen) = crate::driver::stages::plan(cpu.target, &codegen) else {
        return 0;
    };
    execution_pipelines()
        .iter()
        .filter(|pipeline| {
            pipeline_module(
                &fuse,
                text,
                "fuzz.mlir",
                &format!("{},{}", pipeline.text(), codegen.pipeline()),
                cpu,
            )
            .is_ok()
        })
        .count()
}

/// Runs `pipeline` on a fresh parse of `text` and hands the resulting `function` to `f`
/// (while its context is alive).
fn with_pipeline_result<T>(
    text: &str,
    buffer: &str,
    pipeline: &str,
    function: &str,
    target: &TargetEntry,
    f: impl FnOnce(mlir_sys::MlirOperation) -> Result<T, String>,
) -> Result<T, String> {
    let fuse = FuseContext::new().map_err(|e| e.to_string())?;
    let module = pipeline_module(&fuse, text, buffer, pipeline, target)?;
    let func = functions(&module)
        .into_iter()
        .find(|(n, _)| n == function)
        .ok_or_else(|| format!("function @{function} disappeared"))?
        .1;
    f(func)
}

/// Runs `pipeline` on `text`, then `function` on the loop interpreter (or compiled by
/// the target's runner when `options.jit`).
fn run_strategy(
    text: &str,
    buffer: &str,
    pipeline: &str,
    function: &str,
    inputs: &[Tensor],
    options: &RunOptions,
) -> Result<Vec<Tensor>, String> {
    with_pipeline_result(text, buffer, pipeline, function, options.target, |func| {
        if let Some(compile) = options.compiled() {
            options
                .runner()?
                .compile(func, compile)
                .and_then(|compiled| compiled.run(inputs))
                .map_err(|e| e.to_string())
        } else {
            run_loop(func, inputs).map_err(|e| e.to_string())
        }
    })
}

/// Refuses recorded inputs that do not fit `func`'s arguments (count, shape, dtype):
/// the interpreters and the compiled code index buffers by the declared types.
fn check_expected_inputs(func: mlir_sys::MlirOperation, inputs: &[Tensor]) -> Result<(), String> {
    let args = ir::block_arguments(ir::body(func).ok_or("function without a body")?);
    if args.len() != inputs.len() {
        return Err(format!(
            "the expectation file has {} inputs, the function takes {}",
            inputs.len(),
            args.len()
        ));
    }
    for (i, (arg, tensor)) in args.into_iter().zip(inputs).enumerate() {
        let ty = ir::tensor_type(arg).ok_or_else(|| format!("argument #{i} is not a supported tensor"))?;
        if ty.shape != tensor.shape || ty.dtype != tensor.dtype {
            return Err(format!(
                "expected input #{i} has shape {:?} and dtype {}, the argument is {ty}",
                tensor.shape, tensor.dtype
            ));
        }
    }
    Ok(())
}

/// An error naming the first of `strategies` that is not a strategy `fuse-run` runs.
pub(crate) fn check_strategy_names(strategies: &[String]) -> Result<(), String> {
    strategies
        .iter()
        .try_for_each(|name| crate::driver::known_strategy(name, Some("all")))
}

/// Checks every function of `text` (aten IR) under `options`.
pub fn check(text: &str, buffer: &str, options: &RunOptions) -> Result<Vec<FunctionResult>, String> {
    let fuse = FuseContext::new().map_err(|e| e.to_string())?;
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    let module = parse_module(fuse.context(), text, buffer, &sink).ok_or_else(|| diagnostics_text(&sink))?;
    if !fuselab_dialects::verify_fuselab(module.as_operation(), &sink) {
        return Err(diagnostics_text(&sink));
    }
    let mut all = functions(&module);
    if let Some(wanted) = &options.function {
        all.retain(|(n, _)| n == wanted);
        if all.is_empty() {
            return Err(format!("{buffer}: no function @{wanted}"));
        }
    }
    if all.is_empty() {
        return Err(format!("{buffer}: no function to run"));
    }
    check_strategy_names(&options.strategies)?;
    let mut results = Vec::new();
    for (name, func) in all {
        // Every tensor the interpreters hold: arguments and every op's results.
        let arguments = ir::body(func).map(ir::block_arguments).unwrap_or_default();
        let elements: u64 = ir::collect_ops(func, |_| true)
            .into_iter()
            .flat_map(|op| (0..ir::result_count(op)).map(move |i| ir::result(op, i)))
            .chain(arguments)
            .filter_map(ir::tensor_type)
            .map(|t| t.numel() as u64)
            .fold(0u64, u64::saturating_add);
        if elements > options.max_elements {
            return Err(format!(
                "{buffer}: @{name} holds {elements} tensor elements, more than the interpreters run \
                 (--max-elements {}); run it on smaller shapes",
                options.max_elements
            ));
        }
        let inputs = match &options.expect {
            Some(e) => {
                check_expected_inputs(func, &e.inputs).map_err(|m| format!("{buffer}: @{name}: {m}"))?;
                e.inputs.clone()
            }
            None => generate_inputs(func, options.seed).map_err(|m| format!("{buffer}: @{name}: {m}"))?,
        };
        let reference = run_aten(func, &inputs).map_err(|e| e.to_string())?;
        let exact = match options.accuracy {
            true => Some(accuracy::exact_outputs(func, &inputs).map_err(|e| e.to_string())?),
            false => None,
        };
        // The fp64 reference of Inductor's rule, computed once when an output needs it.
        let fp64 = std::cell::OnceCell::new();
        let errors_of = |outputs: &[Tensor]| {
            exact
                .as_ref()
                .map(|e| accuracy::errors(outputs, e))
                .unwrap_or_default()
        };
        let mut strategies = Vec::new();
        if let Some(e) = &options.expect {
            // The oracle itself, checked against PyTorch.
            let outputs = if e.outputs.len() == reference.len() {
                Ok(reference
                    .iter()
                    .zip(&e.outputs)
                    .map(|(r, t)| compare(r, t))
                    .collect())
            } else {
                Err(format!(
                    "torch recorded {} outputs, the function has {}",
                    e.outputs.len(),
                    reference.len()
                ))
            };
            strategies.push(StrategyResult {
                strategy: "reference".into(),
                outputs,
                exact_errors: Vec::new(),
                fp64_passes: Vec::new(),
            });
        }
        for strategy in &options.strategies {
            let pipeline = pipeline_of(strategy);
            let mut exact_errors = Vec::new();
            let mut fp64_passes = Vec::new();
            let outputs = run_strategy(text, buffer, &pipeline, &name, &inputs, options).and_then(|got| {
                if got.len() != reference.len() {
                    return Err(format!(
                        "{} outputs, the reference has {}",
                        got.len(),
                        reference.len()
                    ));
                }
                exact_errors = errors_of(&got);
                let mut compared: Vec<Comparison> =
                    got.iter().zip(&reference).map(|(g, w)| compare(g, w)).collect();
                for (i, c) in compared.iter_mut().enumerate() {
                    if c.pass || !reference[i].dtype.is_float() {
                        continue;
                    }
                    let exact = match fp64.get() {
                        Some(e) => e,
                        None => {
                            let computed =
                                accuracy::exact_outputs(func, &inputs).map_err(|e| e.to_string())?;
                            fp64.get_or_init(|| computed)
                        }
                    };
                    if let Some((res, eager)) = accuracy::passes_fp64_rule(&got[i], &reference[i], &exact[i])
                    {
                        c.pass = true;
                        fp64_passes.push((i, res, eager));
                    }
                }
                Ok(compared)
            });
            strategies.push(StrategyResult {
                strategy: strategy.clone(),
                outputs,
                exact_errors,
                fp64_passes,
            });
        }
        results.push(FunctionResult {
            function: name,
            output_types: reference
                .iter()
                .map(|t| {
                    let dims: Vec<String> = t.shape.iter().map(i64::to_string).collect();
                    format!(
                        "tensor<{}{}{}>",
                        dims.join("x"),
                        if dims.is_empty() { "" } else { "x" },
                        t.dtype
                    )
                })
                .collect(),
            strategies,
            eager_errors: errors_of(&reference),
        });
    }
    Ok(results)
}

/// The report of `results`, and whether all passed.
pub fn report(results: &[FunctionResult], seed: u64) -> (String, bool) {
    let mut out = String::new();
    let mut ok = true;
    for f in results {
        let _ = writeln!(out, "@{} (seed {seed}; reference: aten interpreter)", f.function);
        if f.strategies.first().is_some_and(|s| s.strategy == "reference") {
            let _ = writeln!(
                out,
                "  (inputs from the expectation file; 'reference' compares the interpreter with torch)"
            );
        }
        for s in &f.strategies {
            match &s.outputs {
                Ok(outputs) => {
                    for (i, c) in outputs.iter().enumerate() {
                        ok &= c.pass;
                        let rule = match s.fp64_passes.iter().find(|p| p.0 == i) {
                            Some((_, res, eager)) => {
                                format!(" (fp64 rule: rms vs fp64 {res:.3e}, eager's {eager:.3e})")
                            }
                            None => String::new(),
                        };
                        let _ = writeln!(
                            out,
                            "  {} output #{i} {}: max abs {:.3e}, max rel {:.3e}, {} mismatches  {}{rule}",
                            s.strategy,
                            f.output_types.get(i).map_or("?", String::as_str),
                            c.max_abs,
                            c.max_rel,
                            c.mismatches,
                            if c.pass { "PASS" } else { "FAIL" }
                        );
                    }
                }
                Err(message) => {
                    ok = false;
                    let _ = writeln!(out, "  {} ERROR: {message}", s.strategy);
                }
            }
        }
        for (i, eager) in f.eager_errors.iter().enumerate() {
            let Some(eager) = eager else { continue };
            let measured: Vec<(&str, accuracy::Error)> = f
                .strategies
                .iter()
                .filter_map(|s| Some((s.strategy.as_str(), (*s.exact_errors.get(i)?)?)))
                .collect();
            let _ = writeln!(out, "{}", accuracy::report_line(i, *eager, &measured));
        }
    }
    (out, ok)
}
