//! `fuse-opt --fusion-compare[=text|json|html]`: runs every fusion strategy on the same
//! aten input and prints one row per strategy — kernels, extern kernels, launches, bytes
//! read from / written to memory (HBM), the largest kernel, and the time the fusion
//! passes took — next to the eager baseline (one kernel per aten op); `html` writes the
//! visual report (`fuselab_report`): the same rows and each strategy's drawing.
//!
//! Each strategy of the strategy table gets its own pipeline, as its reference system
//! runs it (`fusion::table::strategy_pipeline`):
//! - `inductor`: `--aten-decompose --lower-aten-to-loop` then (timed)
//!   `--inline-pointwise --inductor-fuse`;
//! - `tvm`: `--aten-decompose --lower-aten-to-loop="materialize-views=true"` (every view
//!   is an op, as in Relax) then (timed) `--tvm-fuse-ops`.
//!
//! Every strategy asks the same target (`--target`, default cpu).
//!
//! Byte counts are the fusion report's (each kernel reads each outside buffer once and
//! writes each buffer used outside it).

use crate::driver::{build_pass_manager, steps_of};
use fuselab_dialects::{source::Source, Diagnostic, DiagnosticSink, FuseContext};
use fuselab_passes::{
    fusion::{table::strategy_pipeline, table::Pipeline, STRATEGIES},
    DriverSettings, ReportCollector, TargetRef,
};
use fuselab_report::{summary::mib, StrategyResult};
use serde_json::{json, Value};
use std::{fmt::Write as _, rc::Rc, time::Instant};

/// Output format of the comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareFormat {
    /// An aligned table per function.
    Text,
    /// One JSON document.
    Json,
    /// The visual report: one self-contained HTML page.
    Html,
}

impl CompareFormat {
    /// Parses `text` / `json` / `html`.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "" | "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            "html" => Ok(Self::Html),
            other => Err(format!(
                "--fusion-compare expects 'text', 'json' or 'html', got '{other}'"
            )),
        }
    }
}

/// One row of the table: the report crate's, shared with the HTML page.
pub use fuselab_report::SummaryRow as Row;

/// The comparison of one function.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionComparison {
    /// Function name.
    pub function: String,
    /// Eager baseline first, then one row per strategy.
    pub rows: Vec<Row>,
}

/// Result of comparing one input chunk: the tables, or the diagnostics that stopped it.
pub struct Comparison {
    /// Per function.
    pub functions: Vec<FunctionComparison>,
    /// Per strategy, its reports (what the HTML page draws).
    pub results: Vec<StrategyResult>,
    /// Diagnostics (errors stop the comparison).
    pub diagnostics: Vec<Diagnostic>,
}

/// Runs one strategy on `text`; returns its reports and the fusion time.
pub(super) fn run_strategy(
    pipeline: &Pipeline,
    target: Option<TargetRef>,
    source: Source<'_>,
    buffer_name: &str,
    sink: &DiagnosticSink,
) -> Result<Option<(Vec<Value>, f64)>, String> {
    let fuse = FuseContext::new().map_err(|e| e.to_string())?;
    let context = fuse.context();
    sink.capture(context);
    let collector = ReportCollector::default();
    let plain = Rc::new(DriverSettings {
        target,
        ..DriverSettings::default()
    });
    let collecting = Rc::new(DriverSettings {
        report_collector: Some(collector.clone()),
        target,
        ..DriverSettings::default()
    });
    let prefix = build_pass_manager(
        context,
        &steps_of(pipeline.lowering.iter().copied())?,
        sink,
        &plain,
    )?;
    let fusion = build_pass_manager(
        context,
        &steps_of(pipeline.fusion.iter().copied())?,
        sink,
        &collecting,
    )?;
    let Some(mut module) = source.parse(context, buffer_name, sink) else {
        return Ok(None);
    };
    if !fuselab_dialects::verify_fuselab(module.as_operation(), sink) || prefix.run(&mut module).is_err() {
        return Ok(None);
    }
    let start = Instant::now();
    if fusion.run(&mut module).is_err() {
        return Ok(None);
    }
    let seconds = start.elapsed().as_secs_f64();
    Ok(Some((collector.take(), seconds)))
}

/// Compares every strategy on one input chunk, on `target` (`None`: the generic one).
pub fn compare(
    source: Source<'_>,
    buffer_name: &str,
    target: Option<TargetRef>,
) -> Result<Comparison, String> {
    let sink = DiagnosticSink::new();
    let mut functions: Vec<FunctionComparison> = Vec::new();
    let mut results = Vec::new();
    for &strategy in STRATEGIES {
        let pipeline = strategy_pipeline(strategy);
        let Some((reports, seconds)) = run_strategy(&pipeline, target, source, buffer_name, &sink)? else {
            return Ok(Comparison {
                functions: Vec::new(),
                results: Vec::new(),
                diagnostics: sink.take(),
            });
        };
        // The whole fusion run's time, shared by the functions of the module.
        let result = StrategyResult::from_reports(strategy.name(), Some(seconds), &reports)
            .map_err(|e| e.to_string())?;
        for (i, report) in result.reports.iter().enumerate() {
            if functions.len() <= i {
                functions.push(FunctionComparison {
                    function: report.function.clone(),
                    rows: vec![Row::eager(report)],
                });
            }
            functions[i].rows.push(Row::of(report));
        }
        results.push(result);
    }
    Ok(Comparison {
        functions,
        results,
        diagnostics: sink.take(),
    })
}

/// Renders comparisons as text tables, or as one JSON document when `json`; the HTML
/// page is [`fuselab_report::html`] of the comparisons' results.
pub fn render(functions: &[FunctionComparison], json: bool) -> String {
    if json {
        {
            let doc = json!({
                "functions": functions.iter().map(|f| json!({
                    "function": f.function,
                    "rows": f.rows.iter().map(Row::to_json).collect::<Vec<_>>(),
                })).collect::<Vec<_>>()
            });
            serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
        }
    } else {
        {
            let mut out = String::new();
            for f in functions {
                let _ = writeln!(out, "// Fusion comparison of @{}", f.function);
                let _ = writeln!(
                    out,
                    "{:<10} {:>8} {:>7} {:>9} {:>14} {:>14} {:>14} {:>8} {:>12}",
                    "strategy",
                    "kernels",
                    "extern",
                    "launches",
                    "HBM read",
                    "HBM written",
                    "HBM total",
                    "largest",
                    "fusion time"
                );
                for r in &f.rows {
                    let time = r
                        .fusion_time_s
                        .map_or_else(|| "-".to_string(), |s| format!("{:.2} ms", s * 1e3));
                    let _ = writeln!(
                        out,
                        "{:<10} {:>8} {:>7} {:>9} {:>14} {:>14} {:>14} {:>8} {:>12}",
                        r.strategy,
                        r.kernels,
                        r.extern_kernels
                            .map_or_else(|| "-".to_string(), |e| e.to_string()),
                        r.launches,
                        mib(r.bytes_read),
                        mib(r.bytes_written),
                        mib(r.bytes_read + r.bytes_written),
                        r.largest_kernel,
                        time
                    );
                }
            }
            out
        }
    }
}
