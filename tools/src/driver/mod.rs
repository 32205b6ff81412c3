//! The driver the tools share (`fuse-opt`, `fuse-run`, `fuse-gpu`, `fuse-bench`, the
//! Python extension): the strategy names, pass pipelines as steps and one MLIR pass
//! manager ([`pipeline`]), a target's stages run up to a named one ([`stages`]), and
//! parse + pipeline in one call ([`pipeline_module`]). The tools depend on this module
//! and on one another never (`layering.rs` checks it).

pub mod pipeline;
/// A target's stages, run the same way by every driver (`fuselab_targets::stages`).
pub use fuselab_targets::stages;

pub use pipeline::{
    add_steps, build_pass_manager, expand_strategies, fuselab_step, parse_pipeline, pipeline_steps, steps_of,
    Step,
};

use fuselab_dialects::{ir, source::parse_module, DiagnosticSink, FuseContext};
use fuselab_passes::{fusion::table::execution_pipelines, DriverSettings, ReportCollector, TargetRef};
use fuselab_targets::TargetEntry;
use std::rc::Rc;

/// The names of the pipelines `--strategy` takes, in order.
pub fn strategy_names() -> Vec<&'static str> {
    execution_pipelines().iter().map(|p| p.name).collect()
}

/// Refuses a name the strategy table does not hold, in the one wording every tool
/// uses: `unknown strategy 'NAME' (expected a, b, ... or all)`; `also` is a name the
/// tool takes beside the table's (`fuse-run`'s `all`).
pub fn known_strategy(name: &str, also: Option<&str>) -> Result<(), String> {
    let known = strategy_names();
    if known.contains(&name) {
        return Ok(());
    }
    let mut expected = known.join(", ");
    if let Some(also) = also {
        expected = format!("{expected} or {also}");
    }
    Err(format!("unknown strategy '{name}' (expected {expected})"))
}

/// The pass pipeline of a strategy name (empty for an unknown one).
pub fn pipeline_of(strategy: &str) -> String {
    execution_pipelines()
        .into_iter()
        .find(|p| p.name == strategy)
        .map(|p| p.text())
        .unwrap_or_default()
}

/// The diagnostics `sink` holds, one per line (and takes them).
pub fn diagnostics_text(sink: &DiagnosticSink) -> String {
    sink.take()
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Parses `text` (named `buffer` in diagnostics) in `fuse`'s context and runs `pipeline`
/// (a pass list) on it; the diagnostics text on failure.
pub fn pipeline_module<'c>(
    fuse: &'c FuseContext,
    text: &str,
    buffer: &str,
    pipeline: &str,
    target: &TargetEntry,
) -> Result<melior::ir::Module<'c>, String> {
    pipeline_module_reporting(fuse, text, buffer, pipeline, target, None)
}

/// [`pipeline_module`], the fusion passes' reports going to `reports` when given.
pub fn pipeline_module_reporting<'c>(
    fuse: &'c FuseContext,
    text: &str,
    buffer: &str,
    pipeline: &str,
    target: &TargetEntry,
    reports: Option<ReportCollector>,
) -> Result<melior::ir::Module<'c>, String> {
    Ok(parse_and_run(fuse, text, buffer, pipeline, target, reports, false)?.0)
}

/// [`pipeline_module`], with a copy of the module as parsed (before the pipeline): one
/// parse serves the compiled code and the facts read from the source (`fuse-gpu`'s
/// oracle).
pub fn pipeline_module_and_source<'c>(
    fuse: &'c FuseContext,
    text: &str,
    buffer: &str,
    pipeline: &str,
    target: &TargetEntry,
) -> Result<(melior::ir::Module<'c>, melior::ir::Module<'c>), String> {
    let (module, source) = parse_and_run(fuse, text, buffer, pipeline, target, None, true)?;
    let source = source.ok_or_else(|| format!("{buffer}: cannot copy the parsed module (a fuselab bug)"))?;
    Ok((module, source))
}

fn parse_and_run<'c>(
    fuse: &'c FuseContext,
    text: &str,
    buffer: &str,
    pipeline: &str,
    target: &TargetEntry,
    reports: Option<ReportCollector>,
    keep_source: bool,
) -> Result<(melior::ir::Module<'c>, Option<melior::ir::Module<'c>>), String> {
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    let steps = parse_pipeline(&format!("builtin.module({pipeline})"))?;
    let settings = Rc::new(DriverSettings {
        target: Some(TargetRef(target.target)),
        report_collector: reports,
        ..DriverSettings::default()
    });
    let manager = build_pass_manager(fuse.context(), &steps, &sink, &settings)?;
    let mut module =
        parse_module(fuse.context(), text, buffer, &sink).ok_or_else(|| diagnostics_text(&sink))?;
    let source = if keep_source {
        let copy = ir::clone(module.as_operation().to_raw());
        // SAFETY: `copy` is a fresh `builtin.module` that nothing else owns.
        Some(unsafe { melior::ir::Module::from_raw(mlir_sys::mlirModuleFromOperation(copy)) })
    } else {
        None
    };
    if manager.run(&mut module).is_err() {
        return Err(diagnostics_text(&sink));
    }
    Ok((module, source))
}

/// The functions of `module`, by name, in order.
pub fn functions(module: &melior::ir::Module) -> Vec<(String, mlir_sys::MlirOperation)> {
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
