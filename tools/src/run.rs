//! `fuse-run FILE.mlir [--strategy S] [--seed N] [--function F] [--max-elements N]`:
//! checks by execution that every pipeline computes what the input computes. It
//! generates seeded inputs, runs the reference interpreter of the `aten` dialect on the
//! input as written (the oracle), runs each strategy's pipeline and then the `loop`
//! interpreter on the result, and compares every output with a dtype-aware tolerance:
//! max abs / max rel error and PASS/FAIL per output. Exit 1 on any FAIL or error.
//!
//! Pipelines (`fusion::strategy::execution_pipelines`, from the strategy table):
//! `unfused` (decompose + lower, one node per primitive op), then every strategy and
//! its variants — today `inductor` (+ unroll-small-reductions + inline-pointwise + split-reductions + inductor-fuse), `tvm` (views
//! materialized + tvm-fuse-ops), `tvm-folded` (views folded + tvm-fuse-ops); `all` runs
//! them all. Compiled runs (`--jit`) use the target's runner (`--target`, default cpu).

use crate::opt::{build_pass_manager, parse_pipeline};
use fuselab_dialects::ir;
use fuselab_dialects::{source::parse_module, DiagnosticSink, FuseContext};
use fuselab_exec::{
    aten::run_aten,
    inputs::{compare, generate_inputs, Comparison},
    loops::run_loop,
    Tensor,
};
use fuselab_passes::{fusion::strategy::execution_pipelines, DriverSettings, TargetRef};
use fuselab_targets::{CompileOptions, TargetEntry};

pub mod accuracy;
mod bench;
mod expect;
pub mod threads;

pub use bench::{bench, bench_json_value, bench_report, copy_bandwidth, BenchResult, BenchRow};
pub use expect::{load_expectation, Expectation};
use std::{fmt::Write as _, io::Write, rc::Rc};

/// The names of the pipelines `--strategy` takes, in order.
pub fn strategy_names() -> Vec<&'static str> {
    execution_pipelines().iter().map(|p| p.name).collect()
}

/// The pass pipeline of a strategy name (empty for an unknown one).
pub(crate) fn pipeline_of(strategy: &str) -> String {
    execution_pipelines()
        .into_iter()
        .find(|p| p.name == strategy)
        .map(|p| p.text())
        .unwrap_or_default()
}

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

fn diagnostics_text(sink: &DiagnosticSink) -> String {
    sink.take()
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Parses `text` (named `buffer` in diagnostics) in `fuse`'s context and runs `pipeline`
/// (a pass list) on it; the diagnostics text on failure.
pub(crate) fn pipeline_module<'c>(
    fuse: &'c FuseContext,
    text: &str,
    buffer: &str,
    pipeline: &str,
    target: &TargetEntry,
) -> Result<melior::ir::Module<'c>, String> {
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    let steps = parse_pipeline(&format!("builtin.module({pipeline})"))?;
    let settings = Rc::new(DriverSettings {
        target: Some(TargetRef(target.target)),
        ..DriverSettings::default()
    });
    let manager = build_pass_manager(fuse.context(), &steps, &sink, &settings)?;
    let mut module =
        parse_module(fuse.context(), text, buffer, &sink).ok_or_else(|| diagnostics_text(&sink))?;
    if manager.run(&mut module).is_err() {
        return Err(diagnostics_text(&sink));
    }
    Ok(module)
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
    execution_pipelines()
        .iter()
        .filter(|pipeline| {
            pipeline_module(
                &fuse,
                text,
                "fuzz.mlir",
                &format!("{},lower-loop-to-cpu", pipeline.text()),
                cpu,
            )
            .is_ok()
        })
        .count()
}

pub(crate) fn functions(module: &melior::ir::Module) -> Vec<(String, mlir_sys::MlirOperation)> {
    ir::collect_ops(module.as_operation().to_raw(), |n| n == "func.func")
        .into_iter()
        .map(|f| {
            let name = ir::attr(f, "sym_name")
                .and_then(fuselab_dialects::attrs::string_raw)
                .unwrap_or_default();
            (name, f)
        })
        .collect()
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
    let known = strategy_names();
    match strategies.iter().find(|name| !known.contains(&name.as_str())) {
        Some(name) => Err(format!(
            "unknown strategy '{name}' (expected {} or all)",
            known.join(", ")
        )),
        None => Ok(()),
    }
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
            });
        }
        for strategy in &options.strategies {
            let pipeline = pipeline_of(strategy);
            let mut exact_errors = Vec::new();
            let outputs = run_strategy(text, buffer, &pipeline, &name, &inputs, options).and_then(|got| {
                if got.len() != reference.len() {
                    return Err(format!(
                        "{} outputs, the reference has {}",
                        got.len(),
                        reference.len()
                    ));
                }
                exact_errors = errors_of(&got);
                Ok(got.iter().zip(&reference).map(|(g, w)| compare(g, w)).collect())
            });
            strategies.push(StrategyResult {
                strategy: strategy.clone(),
                outputs,
                exact_errors,
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
                        let _ = writeln!(
                            out,
                            "  {} output #{i} {}: max abs {:.3e}, max rel {:.3e}, {} mismatches  {}",
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

/// The `--help` text: strategies and targets from their tables.
fn help_text() -> String {
    format!(
        "OVERVIEW: check by execution that fusion pipelines compute what the input computes

USAGE: fuse-run [options] FILE.mlir   ('-' reads stdin)

Generates seeded inputs, runs the aten reference interpreter on the input (the oracle),
runs each strategy's pipeline and the loop interpreter on its result, and compares every
output (f32: |got - want| <= 1e-4 max(1, max|want|) + 1e-3 |want|; f16, bf16 looser;
ints and bools exact).
Exit status 0 when every output of every strategy passes, 1 otherwise.

OPTIONS:
  --strategy <s>       {strategies} | all (default: all);
                       may be given several times
  --seed <n>           Input seed (default: 0)
  --function <name>    Only this function
  --expect <file>      Inputs and torch's outputs (JSON: inputs and outputs lists of
                       tensors with shape, dtype, data): run on those inputs
                       and also check the reference interpreter against torch
  --target <name>      The target the strategies ask and whose code --jit runs:
                       {targets} (default: {default_target})
  --jit                Run each strategy's result as compiled code of the target
                       (cpu: MLIR -> LLVM JIT) instead of on the loop interpreter
  --bench              After the (compiled) check, time every strategy's compiled code
                       (median of --runs, default 10) as ratios to the unfused
                       pipeline and to two rooflines measured in the same run: a
                       copy moving the function's input + output bytes, and a
                       64 MiB copy (DRAM bandwidth)
  --no-check           With --bench: skip the check against the reference interpreter
                       (for shapes too large for it)
  --bench-json <file>  With --bench (implied): also write the timings as JSON
  --parallel [auto|true|false]  Compiled code runs chunks of each kernel's rows in
                       parallel (scf.parallel as OpenMP loops; OMP_NUM_THREADS threads).
                       Default auto: parallel where the code would run on more than one
                       thread (OMP_NUM_THREADS if set, else the CPUs this process may
                       use), else the serial code; --parallel alone is true
  --parallel-min-work <n>  Parallel steps doing fewer element operations stay on one
                       thread (default: 65536; 1: every step of 2 or more rows); asks
                       for parallel code
  --fp-fusion <bool>   Compiled code may fuse a multiply and its add into one fma
                       (default: true; false: every op rounds)
  --interleave <bool>  Compiled code's innermost loops with long bodies run several
                       vector iterations side by side (default: true)
  --vector-width <w>   Vector width compiled code prefers: host (default: 512 with
                       AVX-512F, else LLVM's choice), llvm (LLVM's own), 128, 256, 512
  --accuracy           Also run the function in exact arithmetic (the aten interpreter
                       with float roundings off) and print each float output's
                       error against it (RMS and max): eager's (the oracle) and each
                       strategy's, marked better / same / WORSE than eager (by RMS)
  --max-elements <n>   Refuse functions holding more tensor elements (default: 268435456)
  --help, -h           Show this help
",
        strategies = strategy_names().join(" | "),
        targets = fuselab_targets::target_names(" | "),
        default_target = fuselab_targets::TARGETS[0].target.name(),
    )
}

/// Runs `fuse-run` with `args` (without the program name); returns the exit code.
pub fn run(args: &[String]) -> i32 {
    let fail = |message: String| {
        let _ = writeln!(std::io::stderr(), "fuse-run: error: {message}");
        1
    };
    let mut options = RunOptions::default();
    let mut strategies: Vec<String> = Vec::new();
    let mut input = None;
    let mut expect_path: Option<String> = None;
    let mut bench_runs: Option<usize> = None;
    let mut no_check = false;
    let mut bench_json: Option<String> = None;
    // Options that only compiled code reads (an error without --jit or --bench).
    let mut compiled_flags: Vec<&str> = Vec::new();
    let mut parallel_min_work = false;
    // `--parallel`: None is `auto`.
    let mut parallel: Option<bool> = None;
    let mut parallel_given = false;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg, None),
        };
        let value = |i: &mut usize| -> Option<String> {
            inline.clone().or_else(|| {
                *i += 1;
                args.get(*i - 1).cloned()
            })
        };
        match flag {
            "-h" | "--help" => {
                return match crate::print_stdout(&help_text()) {
                    Ok(()) => 0,
                    Err(m) => fail(m),
                };
            }
            "--strategy" => match value(&mut i) {
                Some(s) if s == "all" => strategies.extend(strategy_names().into_iter().map(String::from)),
                Some(s) => strategies.push(s),
                None => return fail("--strategy needs a value".into()),
            },
            "--seed" => match value(&mut i).and_then(|s| s.parse().ok()) {
                Some(n) => options.seed = n,
                None => return fail("--seed expects a non-negative integer".into()),
            },
            "--function" => match value(&mut i) {
                Some(f) => options.function = Some(f),
                None => return fail("--function needs a name".into()),
            },
            "--jit" => options.jit = true,
            "--accuracy" => options.accuracy = true,
            "--target" => match value(&mut i) {
                Some(name) => match fuselab_targets::target(&name) {
                    Some(entry) => options.target = entry,
                    None => {
                        return fail(format!(
                            "unknown target '{name}' (expected one of: {})",
                            fuselab_targets::target_names(", ")
                        ))
                    }
                },
                None => return fail("--target needs a name".into()),
            },
            "--fp-fusion" | "--vector-width" if compiled_flags.contains(&flag) => {
                return fail(format!("{flag} given twice"))
            }
            "--parallel" if parallel_given => return fail("--parallel given twice".into()),
            "--parallel" => {
                parallel_given = true;
                // `--parallel` alone is `true`; a value may follow (`auto`, `true`, `false`).
                let given = inline.clone().or_else(|| {
                    let next = args
                        .get(i)
                        .filter(|a| matches!(a.as_str(), "auto" | "true" | "false"))?;
                    i += 1;
                    Some(next.clone())
                });
                parallel = match threads::parse_parallel(given.as_deref()) {
                    Ok(p) => p,
                    Err(m) => return fail(m),
                };
                if parallel.is_some() {
                    compiled_flags.push("--parallel");
                }
            }
            "--parallel-min-work" => match value(&mut i).and_then(|s| s.parse::<i64>().ok()) {
                Some(n) if n >= 1 => {
                    options.parallel_min_work = n;
                    parallel_min_work = true;
                }
                _ => return fail("--parallel-min-work expects a positive integer".into()),
            },
            "--fp-fusion" => match value(&mut i).as_deref() {
                Some(b @ ("true" | "false")) => {
                    options.fp_fusion = b == "true";
                    compiled_flags.push("--fp-fusion");
                }
                _ => return fail("--fp-fusion expects true or false".into()),
            },
            "--interleave" => match value(&mut i).as_deref() {
                Some(b @ ("true" | "false")) => {
                    options.interleave = b == "true";
                    compiled_flags.push("--interleave");
                }
                _ => return fail("--interleave expects true or false".into()),
            },
            "--vector-width" => {
                let width = value(&mut i).unwrap_or_default();
                match fuselab_targets::cpu::codegen_choices::vector_width(&width) {
                    Ok(bits) => {
                        options.vector_bits = bits;
                        compiled_flags.push("--vector-width");
                    }
                    Err(m) => return fail(format!("--vector-width: {m}")),
                }
            }
            "--bench" => bench_runs = Some(bench_runs.unwrap_or(10)),
            "--no-check" => no_check = true,
            "--bench-json" => match value(&mut i) {
                Some(p) => {
                    bench_json = Some(p);
                    bench_runs = Some(bench_runs.unwrap_or(10));
                }
                None => return fail("--bench-json needs a file".into()),
            },
            "--runs" => match value(&mut i).and_then(|s| s.parse::<usize>().ok()) {
                Some(n) if (1..=crate::MAX_RUNS).contains(&n) => bench_runs = Some(n),
                _ => return fail(format!("--runs expects an integer from 1 to {}", crate::MAX_RUNS)),
            },
            "--expect" => match value(&mut i) {
                Some(p) => expect_path = Some(p),
                None => return fail("--expect needs a file".into()),
            },
            "--max-elements" => match value(&mut i).and_then(|s| s.parse().ok()) {
                Some(n) => options.max_elements = n,
                None => return fail("--max-elements expects a non-negative integer".into()),
            },
            _ if flag.starts_with('-') && flag != "-" => {
                return fail(format!("unknown option '{arg}' (see --help)"))
            }
            _ => {
                if input.is_some() {
                    return fail(format!("more than one input file ('{arg}')"));
                }
                input = Some(arg.to_string());
            }
        }
    }
    if !strategies.is_empty() {
        options.strategies = strategies;
    }
    // Parallel steps by default where compiled code has more than one thread (on one, the
    // serial code: the outlined rows only slow it down); `--parallel-min-work` asks for them.
    let capable = options.target.runner.is_some_and(|r| r.runs_parallel_steps());
    options.parallel = parallel.unwrap_or(capable && (parallel_min_work || threads::parallel_threads() > 1));
    if parallel_min_work && !options.parallel {
        return fail(threads::min_work_unused(capable));
    }
    if !options.jit && bench_runs.is_none() {
        if let Some(flag) = compiled_flags.first() {
            return fail(format!("{flag} applies to compiled code: add --jit or --bench"));
        }
    } else if let Err(m) = options.runner() {
        // Compiled code of a target without a runner here: one error, not one per strategy.
        return fail(format!(
            "{m} (--jit / --bench need its runner; without them the loop interpreter checks its decisions)"
        ));
    }
    let Some(input) = input else {
        return fail("no input file (see --help)".into());
    };
    let text = if input == "-" {
        let mut t = String::new();
        if let Err(e) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut t) {
            return fail(format!("cannot read stdin: {e}"));
        }
        t
    } else {
        match std::fs::read_to_string(&input) {
            Ok(t) => t,
            Err(e) => return fail(format!("cannot read '{input}': {e}")),
        }
    };
    let input = if input == "-" {
        "<stdin>".to_string()
    } else {
        input
    };
    if let Some(path) = &expect_path {
        match load_expectation(path) {
            Ok(e) => options.expect = Some(e),
            Err(m) => return fail(m),
        }
    }
    if let Some(runs) = bench_runs {
        // Correctness first (compiled), then timing.
        options.jit = true;
        let ok = no_check
            || match check(&text, &input, &options) {
                Ok(results) => {
                    let (out, ok) = report(&results, options.seed);
                    if let Err(m) = crate::print_stdout(&out) {
                        return fail(m);
                    }
                    ok
                }
                Err(message) => {
                    let _ = writeln!(std::io::stderr(), "{message}");
                    return 1;
                }
            };
        return match bench(&text, &input, &options, runs) {
            Ok(results) => {
                let libraries = options.target.runner.and_then(|r| r.libraries());
                let table = format!(
                    "compiled code: {}{}\n{}",
                    threads::describe(options.parallel),
                    libraries.map(|l| format!("; {l}")).unwrap_or_default(),
                    bench_report(&results, runs)
                );
                if let Err(m) = crate::print_stdout(&table) {
                    return fail(m);
                }
                if let Some(path) = &bench_json {
                    let json =
                        serde_json::to_string_pretty(&bench_json_value(&results, runs)).unwrap_or_default();
                    if let Err(e) = std::fs::write(path, json + "\n") {
                        return fail(format!("cannot write '{path}': {e}"));
                    }
                }
                i32::from(!ok)
            }
            Err(message) => {
                let _ = writeln!(std::io::stderr(), "{message}");
                1
            }
        };
    }
    match check(&text, &input, &options) {
        Ok(results) => {
            let (out, ok) = report(&results, options.seed);
            match crate::print_stdout(&out) {
                Ok(()) => i32::from(!ok),
                Err(m) => fail(m),
            }
        }
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "{message}");
            1
        }
    }
}
