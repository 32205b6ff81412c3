//! The driver the tools share (`fuse-opt`, `fuse-run`, `fuse-gpu`, `fuse-bench`, the
//! Python extension): the strategy names, pass pipelines as steps and one MLIR pass
//! manager ([`pipeline`]), a target's stages run up to a named one ([`stages`]), and
//! parse + pipeline in one call ([`pipeline_module`]). The tools depend on this module
//! and on one another never (`layering.rs` checks it).

pub mod pipeline;
pub mod stages;

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
    if manager.run(&mut module).is_err() {
        return Err(diagnostics_text(&sink));
    }
    Ok(module)
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
