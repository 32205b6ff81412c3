//! `fuse-opt`: the mlir-opt of fuselab. Reads MLIR (a file or stdin), verifies it
//! (upstream verifiers, IRDL constraints, fuselab's shape/structure verifiers), runs
//! fuselab and upstream passes in the order given, and prints the result.

#[cfg(test)]
mod code_size_tests;
mod compare;
mod expected;
#[cfg(test)]
mod one_flag_tests;
mod split;

use crate::driver::{parse_pipeline, pipeline, stages, Step};
pub use compare::{compare, render, CompareFormat, FunctionComparison, Row};
pub use split::{split_input, SPLIT_MARKER};

use fuselab_dialects::{
    source::{is_bytecode, write_bytecode, Source},
    Diagnostic, DiagnosticSink, FuseContext,
};
use melior::{ir::operation::OperationPrintingFlags, pass::PassIrPrintingOptions};
use std::{
    io::{Read, Write},
    path::PathBuf,
};

/// Parsed command line of `fuse-opt`.
#[derive(Debug, Default)]
pub struct Options {
    /// Input path; `None` or `-` means stdin.
    pub input: Option<String>,
    /// Output path; `None` or `-` means stdout.
    pub output: Option<String>,
    /// Process `// -----`-separated chunks independently.
    pub split_input_file: bool,
    /// Check `expected-*` comments instead of printing diagnostics.
    pub verify_diagnostics: bool,
    /// Print the IR after every pass (to stderr).
    pub print_ir_after_all: bool,
    /// Print the IR before every pass (to stderr).
    pub print_ir_before_all: bool,
    /// Print locations in the output.
    pub print_debuginfo: bool,
    /// Print every op in generic form.
    pub print_op_generic: bool,
    /// Print attributes inline instead of as `#map` aliases.
    pub print_local_scope: bool,
    /// The pipeline, in command-line order.
    pub steps: Vec<Step>,
    /// Settings handed to passes (`--fusion-report`, `--fusion-explain`).
    pub settings: fuselab_passes::DriverSettings,
    /// `--fusion-compare[=text|json|html]`: compare the strategies instead of running passes.
    pub fusion_compare: Option<CompareFormat>,
    /// `--fusion-report=FILE.html`: the fusion passes' reports drawn as the visual report
    /// (collected through `settings.report_collector`).
    pub fusion_report_html: Option<String>,
    /// `--fusion-timing=FILE`: measured times shown in the visual report.
    pub fusion_timing: Option<String>,
    /// Write the result as MLIR bytecode instead of text.
    pub emit_bytecode: bool,
    /// `--mlir-timing`: print each phase's wall time and MLIR's pass timing to stderr.
    pub timing: bool,
    /// `--emit=STAGE`: the target's stages up to STAGE, run after `steps` (their passes
    /// are in `steps` already); a code-writing stage's text is the output.
    pub emit: Option<stages::StagePlan>,
}

/// The input as read: text, or MLIR bytecode (recognized by its magic number).
enum Input {
    Text(String),
    Bytecode(Vec<u8>),
}

/// What `parse_args` decided.
#[derive(Debug)]
pub enum Command {
    /// Run with these options.
    Run(Box<Options>),
    /// Print this text to stdout and exit 0 (`--help`, `--version`).
    Print(String),
}

/// The `--help` text, generated from the pass registry.
pub fn help_text() -> String {
    let mut text = String::from(
        r#"OVERVIEW: fuselab optimizer driver (MLIR 22)

USAGE: fuse-opt [options] [input-file]

Reads MLIR (aten / loop dialects and upstream dialects) from input-file or stdin ('-'),
as text or as MLIR bytecode (recognized by its magic number), verifies it, runs the
requested passes in command-line order, and prints the result.
Exit status: 0 on success, 1 on any error (reported as file:line:col: error: ...).

GENERAL OPTIONS:
  -o <file>                    Write output to <file> instead of stdout
  --split-input-file           Process each '// -----'-separated chunk independently
  --verify-diagnostics         Check 'expected-error/warning/note/remark' comments against
                               the emitted diagnostics instead of printing them
  --pass-pipeline=<pipeline>   Run a textual pipeline, e.g.
                               'builtin.module(aten-verify-shapes,canonicalize,func.func(cse))';
                               accepts fuselab passes (below) and every upstream MLIR pass
  --mlir-print-ir-after-all    Print the IR after every pass (stderr)
  --mlir-print-ir-before-all   Print the IR before every pass (stderr)
  --mlir-print-debuginfo       Print source locations in the output
  --mlir-print-op-generic      Print all operations in generic form
  --mlir-print-local-scope     Print attributes (affine maps) inline instead of as aliases
  --emit-bytecode              Write the result as MLIR bytecode (parsed about twice as
                               fast as text at 100k ops; locations included)
  --mlir-timing                Print to stderr the wall time of each phase (parse, verify,
                               passes, print/write, teardown) and MLIR's per-pass report
  --fusion-report=<file|->     Fusion passes write a JSON report (kernels, bytes, rejected
                               pairs with reasons, the graph decided over) to <file>, or
                               to stdout for '-'; a <file> ending in .html gets the
                               visual report (as --fusion-compare=html) of their result
  --fusion-timing=<file>       Show measured times in the visual report: the GPU
                               runner's --json rows (per kernel) or fuse-run --bench-json
                               (per call)
  --fusion-explain             Fusion passes emit a remark at each rejected pair's op
  --target=<name>              The device the fusion strategies ask (legality, limits,
                               costs); see TARGETS below (default: cpu)
  --emit=<stage>[{options}]    After the passes given, run the target's stages (TARGETS
                               below) up to <stage> and print its result: the IR, or the
                               code of a stage that writes code (ptx, ascendc), e.g.
                               --target=gpu --inductor-fuse --emit='ptx{fp-fusion=false}'
  --fusion-compare[=text|json|html]
                               Instead of printing IR, run every fusion strategy on the
                               (aten) input with its own pipeline and print one row per
                               strategy: kernels, extern kernels, launches, HBM bytes
                               read/written, largest kernel, fusion time (with the eager
                               baseline); no pass flags may be given with it. 'html'
                               writes one self-contained page: the table, and per
                               strategy the graph drawn with its kernels as groups and
                               each kernel's members, bytes and rejected neighbours
  --help, -h                   Show this help
  --version                    Show the version

FUSELAB PASSES (flags run in the order given; options as --pass="k=v k2=v2"):
"#,
    );
    for info in crate::passes::all() {
        text.push_str(&format!("  --{:<27}{}\n", info.argument, info.summary));
        if let Some(strategy) = fuselab_passes::fusion::table::strategy_of_pass(info.argument) {
            text.push_str(&format!(
                "      on aten input: the {} strategy's whole pipeline (FUSION STRATEGIES below)\n",
                strategy.name()
            ));
        }
        for option in info.options {
            text.push_str(&format!(
                "      {}=<{}>  {} (default: {})\n",
                option.name,
                match option.kind {
                    fuselab_passes::OptionKind::UInt => "uint",
                    fuselab_passes::OptionKind::Bool => "bool",
                    fuselab_passes::OptionKind::String => "string",
                },
                option.help,
                option.default
            ));
        }
    }
    text.push_str(
        "\nFUSION STRATEGIES (--fuse=strategy=<name>; the strategies' own flags and \
         --fusion-compare run the strategies):\n\
         A strategy flag on a program in the aten dialect runs the pipeline from aten below\n\
         (on loop IR, after --lower-aten-to-loop, only the strategy's fusion steps).\n",
    );
    for pipeline in fuselab_passes::fusion::table::execution_pipelines() {
        if pipeline.fusion.is_empty() {
            continue;
        }
        let summary = match fuselab_passes::fusion::strategy(pipeline.name) {
            Some(strategy) => strategy.summary().to_string(),
            None => {
                let of = fuselab_passes::fusion::STRATEGIES
                    .iter()
                    .find(|s| s.variants().iter().any(|v| v.name == pipeline.name))
                    .map_or("a strategy", |s| s.name());
                format!("variant of {of}")
            }
        };
        text.push_str(&format!("  {:<29}{summary}\n", pipeline.name));
        text.push_str(&format!("      pipeline from aten: {}\n", pipeline.text()));
    }
    text.push_str("\nTARGETS (--target=<name>):\n");
    for entry in fuselab_targets::TARGETS {
        let target = entry.target;
        text.push_str(&format!("  {:<29}{}\n", target.name(), target.summary()));
        let stages: Vec<String> = target
            .stages()
            .iter()
            .map(|stage| {
                let Some(pipeline) = stage.pipeline() else {
                    return format!("{} (writes code)", stage.name);
                };
                let passes = pipeline
                    .split(',')
                    .filter(|p| !p.contains('=') || p.contains('{'))
                    .count();
                format!(
                    "{} ({passes} pass{}{})",
                    stage.name,
                    if passes == 1 { "" } else { "es" },
                    if stage.optional { ", optional" } else { "" }
                )
            })
            .collect();
        text.push_str(&format!("      stages: {}\n", stages.join(" -> ")));
    }
    text
}

/// Parses `fuse-opt`'s arguments (without the program name).
pub fn parse_args(args: &[String]) -> Result<Command, String> {
    let mut options = Options::default();
    let mut emit = None;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        let (flag, value) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v)),
            _ => (arg, None),
        };
        match flag {
            "-h" | "--help" | "-help" => return Ok(Command::Print(help_text())),
            "--version" => {
                return Ok(Command::Print(format!(
                    "fuse-opt (fuselab) {}\n",
                    env!("CARGO_PKG_VERSION")
                )))
            }
            "-o" => {
                options.output = Some(flag_value(
                    value,
                    args,
                    &mut i,
                    "option '-o' requires a file name",
                )?)
            }
            "--split-input-file" => options.split_input_file = true,
            "--verify-diagnostics" => options.verify_diagnostics = true,
            "--mlir-print-ir-after-all" => options.print_ir_after_all = true,
            "--mlir-print-ir-before-all" => options.print_ir_before_all = true,
            "--mlir-print-debuginfo" => options.print_debuginfo = true,
            "--mlir-print-op-generic" => options.print_op_generic = true,
            "--mlir-print-local-scope" => options.print_local_scope = true,
            "--emit-bytecode" => options.emit_bytecode = true,
            "--mlir-timing" => options.timing = true,
            "--fusion-explain" => options.settings.fusion_explain = true,
            "--target" => {
                let name = flag_value(value, args, &mut i, "option '--target' requires a target name")?;
                let entry = fuselab_targets::target(&name).ok_or_else(|| {
                    format!(
                        "unknown target '{name}' (expected one of: {})",
                        fuselab_targets::target_names(", ")
                    )
                })?;
                options.settings.target = Some(fuselab_passes::TargetRef(entry.target));
            }
            "--emit" => {
                emit = Some(flag_value(
                    value,
                    args,
                    &mut i,
                    "option '--emit' requires a stage name",
                )?)
            }
            "--fusion-compare" => options.fusion_compare = Some(CompareFormat::parse(value.unwrap_or(""))?),
            "--fusion-report" => {
                let path = flag_value(
                    value,
                    args,
                    &mut i,
                    "option '--fusion-report' requires a file name or '-'",
                )?;
                if path.ends_with(".html") {
                    options.fusion_report_html = Some(path);
                    options.settings.report_collector = Some(fuselab_passes::ReportCollector::default());
                } else {
                    options.settings.fusion_report = Some(path);
                }
            }
            "--fusion-timing" => {
                options.fusion_timing = Some(flag_value(
                    value,
                    args,
                    &mut i,
                    "option '--fusion-timing' requires a file name",
                )?)
            }
            "--pass-pipeline" => {
                let text = flag_value(value, args, &mut i, "option '--pass-pipeline' requires a value")?;
                options.steps.extend(parse_pipeline(&text)?);
            }
            "-" => set_input(&mut options, arg)?,
            _ if flag.starts_with("--") => {
                let name = &flag[2..];
                let info = crate::passes::lookup(name).ok_or_else(|| {
                    format!(
                        "unknown option '{flag}' (see --help; upstream passes go through \
                         --pass-pipeline='builtin.module({name})')"
                    )
                })?;
                options
                    .steps
                    .push(pipeline::fuselab_step(info, value.unwrap_or(""))?);
            }
            _ if flag.starts_with('-') => return Err(format!("unknown option '{flag}' (see --help)")),
            _ => set_input(&mut options, arg)?,
        }
    }
    if options.settings.target.is_none() {
        options.settings.target = fuselab_targets::TARGETS
            .first()
            .map(|entry| fuselab_passes::TargetRef(entry.target));
    }
    if let (Some(spec), Some(target)) = (&emit, options.settings.target) {
        let (stop, stage_options) = stages::parse_stage_spec(spec)?;
        let request = stages::StageRequest {
            stop: Some(stop),
            options: stage_options
                .map(|o| vec![(stop, o.to_string())])
                .unwrap_or_default(),
            ..Default::default()
        };
        let plan = stages::plan(target.0, &request).map_err(|e| format!("--emit: {e}"))?;
        if !plan.passes.is_empty() {
            options
                .steps
                .extend(parse_pipeline(&format!("builtin.module({})", plan.pipeline()))?);
        }
        if options.fusion_compare.is_some() {
            return Err("--fusion-compare runs its own pipelines; it cannot be combined with --emit".into());
        }
        if plan.emit.is_some() && options.emit_bytecode {
            return Err(format!(
                "--emit={stop} writes code, not IR; it cannot be combined with --emit-bytecode"
            ));
        }
        options.emit = Some(plan);
    }
    if options.fusion_timing.is_some()
        && options.fusion_compare != Some(CompareFormat::Html)
        && options.fusion_report_html.is_none()
    {
        return Err(
            "--fusion-timing shows times in the visual report: give --fusion-compare=html or \
                    --fusion-report=FILE.html"
                .into(),
        );
    }
    if options.fusion_compare.is_some() && !options.steps.is_empty() {
        return Err("--fusion-compare runs its own pipelines; it cannot be combined with pass flags".into());
    }
    if options.emit_bytecode {
        // Options that would be ignored: bytecode is one module and always carries
        // locations, generic or custom form and aliases being a matter of printing.
        let conflicting = [
            ("--split-input-file", options.split_input_file),
            ("--verify-diagnostics", options.verify_diagnostics),
            ("--fusion-compare", options.fusion_compare.is_some()),
            ("--mlir-print-debuginfo", options.print_debuginfo),
            ("--mlir-print-op-generic", options.print_op_generic),
            ("--mlir-print-local-scope", options.print_local_scope),
        ];
        if let Some((flag, _)) = conflicting.iter().find(|(_, on)| *on) {
            return Err(format!(
                "--emit-bytecode writes one module as bytecode; it cannot be combined with {flag}"
            ));
        }
    }
    Ok(Command::Run(Box::new(options)))
}

/// The value of `--flag=value` or `--flag value` (advancing `i` past it).
fn flag_value(value: Option<&str>, args: &[String], i: &mut usize, missing: &str) -> Result<String, String> {
    match value {
        Some(v) => Ok(v.to_string()),
        None => {
            *i += 1;
            args.get(*i - 1).cloned().ok_or_else(|| missing.to_string())
        }
    }
}

fn set_input(options: &mut Options, path: &str) -> Result<(), String> {
    if let Some(previous) = &options.input {
        return Err(format!("more than one input file: '{previous}' and '{path}'"));
    }
    options.input = Some(path.to_string());
    Ok(())
}

/// `--mlir-timing`'s phase clock: the wall time since the previous phase ended.
struct Phases {
    on: bool,
    last: std::time::Instant,
    times: Vec<(&'static str, f64)>,
}

impl Phases {
    fn new(on: bool) -> Self {
        Self {
            on,
            last: std::time::Instant::now(),
            times: Vec::new(),
        }
    }

    fn done(&mut self, phase: &'static str) {
        let now = std::time::Instant::now();
        self.times.push((phase, (now - self.last).as_secs_f64()));
        self.last = now;
    }

    fn report(&self) {
        if !self.on {
            return;
        }
        let total: f64 = self.times.iter().map(|(_, t)| t).sum();
        let mut text = String::from("fuse-opt phases (wall time):\n");
        for (phase, t) in &self.times {
            text.push_str(&format!("  {t:8.4} s  {phase}\n"));
        }
        text.push_str(&format!("  {total:8.4} s  total\n"));
        eprint!("{text}");
    }
}

/// The result of processing one chunk.
struct ChunkResult {
    output: Option<Vec<u8>>,
    diagnostics: Vec<Diagnostic>,
}

fn process_chunk(chunk: Source<'_>, buffer_name: &str, options: &Options) -> Result<ChunkResult, String> {
    let fuse = FuseContext::new().map_err(|e| e.to_string())?;
    let context = fuse.context();
    let sink = DiagnosticSink::new();
    sink.capture(context);
    let settings = std::rc::Rc::new(options.settings.clone());
    // The pipeline is checked before the input is read (its errors come first).
    let mut manager = pipeline::build_pass_manager(context, &options.steps, &sink, &settings)?;
    let mut phases = Phases::new(options.timing);
    let parsed = chunk.parse(context, buffer_name, &sink);
    if let Some(module) = &parsed {
        // A strategy flag on aten input runs the strategy's whole pipeline.
        let aten = || {
            !fuselab_dialects::ir::collect_ops(module.as_operation().to_raw(), |n| n.starts_with("aten."))
                .is_empty()
        };
        if let Some(steps) = pipeline::expand_strategies(&options.steps, aten)? {
            manager = pipeline::build_pass_manager(context, &steps, &sink, &settings)?;
        }
    }
    if options.print_ir_after_all || options.print_ir_before_all {
        manager.enable_ir_printing(&PassIrPrintingOptions {
            before_all: options.print_ir_before_all,
            after_all: options.print_ir_after_all,
            module_scope: true,
            on_change: false,
            on_failure: false,
            flags: OperationPrintingFlags::new(),
            tree_printing_path: PathBuf::new(),
        });
    }
    if options.timing {
        unsafe { mlir_sys::mlirPassManagerEnableTiming(manager.to_raw()) };
    }
    let mut output = None;
    if let Some(mut module) = parsed {
        phases.done("parse");
        let verified = fuselab_dialects::verify_fuselab(module.as_operation(), &sink);
        phases.done("verify");
        if verified && manager.run(&mut module).is_ok() {
            phases.done("passes");
            let mut flags = OperationPrintingFlags::new();
            if options.print_debuginfo {
                flags = flags.enable_debug_info(true, false);
            }
            if options.print_op_generic {
                flags = flags.print_generic_operation_form();
            }
            if options.print_local_scope {
                flags = flags.use_local_scope();
            }
            // The module verified after parsing (MLIR's parser) and after the last pass
            // (the pass manager's verifier is on: `pipeline::build_pass_manager`), so the
            // printer need not verify it a third time (0.3-0.4 s of a 100k-node graph).
            // SAFETY: `flags` is a live printing-flags object.
            unsafe { mlir_sys::mlirOpPrintingFlagsAssumeVerified(flags.to_raw()) };
            let raw = module.as_operation().to_raw();
            let code = match options.emit.as_ref().map(|plan| plan.emit(raw)) {
                Some(Err(error)) => {
                    stages::report(error, raw, &sink);
                    None
                }
                Some(Ok(code)) => code,
                None => None,
            };
            output = Some(if let Some(code) = code {
                code.into_bytes()
            } else if options.emit_bytecode {
                write_bytecode(&module.as_operation())
            } else {
                fuselab_dialects::ir::print_bytes(module.as_operation().to_raw(), flags.to_raw())
            });
            phases.done(if options.emit_bytecode {
                "write bytecode"
            } else {
                "print"
            });
        }
        drop(module);
        phases.done("teardown");
    }
    phases.report();
    let diagnostics = sink.take();
    if output.is_some()
        && diagnostics
            .iter()
            .any(|d| d.severity == fuselab_dialects::Severity::Error)
    {
        output = None;
    }
    if output.is_none() && diagnostics.is_empty() {
        return Err(format!(
            "{buffer_name}: processing failed without a diagnostic (a fuselab bug)"
        ));
    }
    Ok(ChunkResult { output, diagnostics })
}

fn read_input(options: &Options) -> Result<(Input, String), String> {
    let (bytes, name) = match options.input.as_deref() {
        None | Some("-") => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| format!("cannot read stdin: {e}"))?;
            (bytes, "<stdin>".to_string())
        }
        Some(path) => (
            std::fs::read(path).map_err(|e| format!("cannot open input file '{path}': {e}"))?,
            path.to_string(),
        ),
    };
    if is_bytecode(&bytes) {
        return Ok((Input::Bytecode(bytes), name));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{name}: input is neither valid UTF-8 text nor MLIR bytecode"))?;
    Ok((Input::Text(text), name))
}

/// Runs `fuse-opt` with `args` (without the program name); returns the exit code.
/// Output goes to stdout (or `-o`), diagnostics to stderr.
pub fn run(args: &[String]) -> i32 {
    let stderr = &mut std::io::stderr();
    let options = match parse_args(args) {
        Ok(Command::Print(text)) => {
            print!("{text}");
            return 0;
        }
        Ok(Command::Run(options)) => *options,
        Err(message) => {
            let _ = writeln!(stderr, "fuse-opt: error: {message}");
            return 1;
        }
    };
    match run_options(&options, stderr) {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(stderr, "fuse-opt: error: {message}");
            1
        }
    }
}

/// Reads a `--fusion-timing` file.
fn read_timings(path: &str) -> Result<fuselab_report::Timings, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read timing file '{path}': {e}"))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{path}: not JSON: {e}"))?;
    fuselab_report::Timings::from_json(&value).map_err(|e| format!("{path}: {e}"))
}

fn run_options(options: &Options, stderr: &mut dyn Write) -> Result<i32, String> {
    let (input, buffer_name) = read_input(options)?;
    // `--split-input-file`'s chunks; otherwise the input itself is the one chunk.
    let texts = match &input {
        Input::Text(text) if options.split_input_file => split_input(text),
        _ => Vec::new(),
    };
    let chunks: Vec<Source<'_>> = match &input {
        Input::Bytecode(bytes) => {
            let text_only = [
                ("--split-input-file", options.split_input_file),
                ("--verify-diagnostics", options.verify_diagnostics),
            ];
            if let Some((flag, _)) = text_only.iter().find(|(_, on)| *on) {
                return Err(format!(
                    "{buffer_name}: {flag} reads text input, and this is MLIR bytecode"
                ));
            }
            vec![Source::Bytecode(bytes)]
        }
        Input::Text(_) if options.split_input_file => texts.iter().map(|t| Source::Text(t)).collect(),
        Input::Text(text) => vec![Source::Text(text)],
    };
    let timings = match &options.fusion_timing {
        Some(path) => Some(read_timings(path)?),
        None => None,
    };
    let mut outputs: Vec<Vec<u8>> = Vec::new();
    // `--fusion-compare=html`: every chunk's strategies on one page.
    let mut page_results: Vec<fuselab_report::StrategyResult> = Vec::new();
    let mut failed = false;
    for &chunk in &chunks {
        if let Some(format) = options.fusion_compare {
            let comparison = compare::compare(chunk, &buffer_name, options.settings.target)?;
            for diagnostic in &comparison.diagnostics {
                let _ = writeln!(stderr, "{diagnostic}");
            }
            let errors = comparison
                .diagnostics
                .iter()
                .any(|d| d.severity == fuselab_dialects::Severity::Error);
            if errors || comparison.functions.is_empty() {
                if !errors {
                    let _ = writeln!(stderr, "{buffer_name}: no function to compare");
                }
                failed = true;
            } else if format == CompareFormat::Html {
                for result in comparison.results {
                    fuselab_report::StrategyResult::merge(&mut page_results, result);
                }
            } else {
                outputs
                    .push(compare::render(&comparison.functions, format == CompareFormat::Json).into_bytes());
            }
            continue;
        }
        let result = process_chunk(chunk, &buffer_name, options)?;
        if let (true, Source::Text(text)) = (options.verify_diagnostics, chunk) {
            let expectations =
                expected::parse_expectations(text).map_err(|e| format!("{buffer_name}: {e}"))?;
            for problem in expected::check(&buffer_name, expectations, &result.diagnostics) {
                let _ = writeln!(stderr, "{problem}");
                failed = true;
            }
        } else {
            for diagnostic in &result.diagnostics {
                let _ = writeln!(stderr, "{diagnostic}");
            }
            failed |= result.output.is_none();
        }
        if let Some(output) = result.output {
            outputs.push(output);
        }
    }
    if !page_results.is_empty() {
        outputs.push(fuselab_report::html(&buffer_name, &page_results, timings.as_ref()).into_bytes());
    }
    if let (Some(path), Some(collector)) = (&options.fusion_report_html, &options.settings.report_collector) {
        let results =
            fuselab_report::StrategyResult::by_strategy(&collector.take()).map_err(|e| e.to_string())?;
        if !results.is_empty() {
            let page = fuselab_report::html(&buffer_name, &results, timings.as_ref());
            std::fs::write(path, page).map_err(|e| format!("cannot write fusion report '{path}': {e}"))?;
        } else if !failed {
            let _ = writeln!(stderr, "{buffer_name}: no fusion pass ran; '{path}' not written");
            failed = true;
        }
    }
    let text = outputs.join(format!("{SPLIT_MARKER}\n").as_bytes());
    match options.output.as_deref() {
        None | Some("-") => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(&text)
                .map_err(|e| format!("cannot write output: {e}"))?;
        }
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("cannot write output file '{path}': {e}"))?
        }
    }
    Ok(i32::from(failed))
}
