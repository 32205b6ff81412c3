//! `fuse-run --bench`: every strategy's compiled code timed side by side in one process,
//! next to two copy rooflines measured in the same run.

use super::{with_pipeline_result, RunOptions};
use crate::driver::{diagnostics_text, functions, pipeline_of};
use fuselab_dialects::{ir, source::parse_module, DiagnosticSink, FuseContext};
use fuselab_exec::inputs::generate_inputs;
use std::fmt::Write as _;

/// One strategy's timing.
#[derive(Clone, Debug)]
pub struct BenchRow {
    /// Strategy name.
    pub strategy: String,
    /// Median seconds per call of the compiled function.
    pub median_s: f64,
}

/// Timings of one function: every strategy compiled, plus the copy roofline.
#[derive(Clone, Debug)]
pub struct BenchResult {
    /// Function name.
    pub function: String,
    /// Bytes of the function's inputs and outputs (what any schedule must move).
    pub io_bytes: u64,
    /// Bandwidth of a copy moving `io_bytes`, measured in the same run (bytes/s).
    pub copy_bandwidth: f64,
    /// Bandwidth of a copy of 64 MiB (beyond the caches: the DRAM roofline).
    pub dram_bandwidth: f64,
    /// Per strategy.
    pub rows: Vec<BenchRow>,
}

impl BenchResult {
    /// Seconds a copy of the function's input + output bytes takes (same size).
    pub fn roofline_s(&self) -> f64 {
        self.io_bytes as f64 / self.copy_bandwidth
    }

    /// Seconds those bytes take at the DRAM copy bandwidth.
    pub fn dram_roofline_s(&self) -> f64 {
        self.io_bytes as f64 / self.dram_bandwidth
    }

    /// The unfused pipeline's median seconds, if it was timed.
    pub fn unfused_s(&self) -> Option<f64> {
        self.rows
            .iter()
            .find(|row| row.strategy == "unfused")
            .map(|row| row.median_s)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Memory bandwidth of a plain copy moving `bytes` (read + write, so `bytes / 2` copied;
/// at least 64 KiB), in bytes per second, median of `runs` after a warm-up: the roofline
/// of a function whose inputs and outputs are `bytes`, with the same cache effects.
pub fn copy_bandwidth(bytes: u64, runs: usize) -> f64 {
    let n = ((bytes / 8) as usize).max(1 << 14);
    let src = vec![1.0f32; n];
    let mut dst = vec![0.0f32; n];
    dst.copy_from_slice(&src);
    let times: Vec<f64> = (0..runs.max(5))
        .map(|_| {
            let start = std::time::Instant::now();
            dst.copy_from_slice(&src);
            std::hint::black_box(&mut dst);
            start.elapsed().as_secs_f64()
        })
        .collect();
    (2 * n * 4) as f64 / median(times)
}

/// Compiles every strategy's result of each function of `text` and times it on seeded
/// inputs (`runs` calls after a warm-up, median), next to the copy roofline.
pub fn bench(
    text: &str,
    buffer: &str,
    options: &RunOptions,
    runs: usize,
) -> Result<Vec<BenchResult>, String> {
    super::check_strategy_names(&options.strategies)?;
    let fuse = FuseContext::new().map_err(|e| e.to_string())?;
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    let module = parse_module(fuse.context(), text, buffer, &sink).ok_or_else(|| diagnostics_text(&sink))?;
    let mut results = Vec::new();
    let dram_bandwidth = copy_bandwidth(128 << 20, runs);
    for (name, func) in functions(&module) {
        if options.function.as_ref().is_some_and(|f| *f != name) {
            continue;
        }
        let inputs = generate_inputs(func, options.seed).map_err(|m| format!("{buffer}: @{name}: {m}"))?;
        // What any schedule must move: the inputs and the results.
        let result_bytes: u64 = ir::block_ops(ir::body(func).ok_or("function without a body")?)
            .last()
            .map(|ret| {
                ir::operands(*ret)
                    .into_iter()
                    .filter_map(ir::tensor_type)
                    .map(|t| t.size_bytes())
                    .sum()
            })
            .unwrap_or(0);
        let io_bytes = inputs
            .iter()
            .map(|t| t.numel() as u64 * t.dtype.size_bytes())
            .sum::<u64>()
            + result_bytes;
        let mut rows = Vec::new();
        for strategy in &options.strategies {
            let compile = options.compile_options();
            let runner = options.runner()?;
            let times =
                with_pipeline_result(text, buffer, &pipeline_of(strategy), &name, options.target, |f| {
                    let compiled = runner.compile(f, compile).map_err(|e| e.to_string())?;
                    compiled.time(&inputs, runs).map_err(|e| e.to_string())
                })?;
            rows.push(BenchRow {
                strategy: strategy.clone(),
                median_s: median(times),
            });
        }
        results.push(BenchResult {
            function: name,
            io_bytes,
            copy_bandwidth: copy_bandwidth(io_bytes, runs),
            dram_bandwidth,
            rows,
        });
    }
    Ok(results)
}

/// The bench table.
pub fn bench_report(results: &[BenchResult], runs: usize) -> String {
    let mut out = String::new();
    for r in results {
        let (roofline, dram) = (r.roofline_s(), r.dram_roofline_s());
        let _ = writeln!(
            out,
            "@{} (median of {runs} runs; {:.2} MiB of inputs + outputs; roofline: a copy of as many bytes \
             {:.1} GB/s = {:.3} ms, DRAM (64 MiB copy) {:.1} GB/s = {:.3} ms)",
            r.function,
            r.io_bytes as f64 / (1 << 20) as f64,
            r.copy_bandwidth / 1e9,
            roofline * 1e3,
            r.dram_bandwidth / 1e9,
            dram * 1e3
        );
        let unfused = r.unfused_s();
        for row in &r.rows {
            let speedup = unfused.map_or_else(|| "-".to_string(), |u| format!("{:.2}x", u / row.median_s));
            let _ = writeln!(
                out,
                "  {} {:.3} ms  speedup vs unfused {speedup}  vs roofline {:.2}x  vs DRAM roofline {:.2}x",
                row.strategy,
                row.median_s * 1e3,
                row.median_s / roofline,
                row.median_s / dram
            );
        }
    }
    out
}

/// The bench results as JSON: per function the I/O bytes, both rooflines (seconds) and
/// per strategy the median seconds and its ratios.
pub fn bench_json_value(results: &[BenchResult], runs: usize) -> serde_json::Value {
    let functions: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            let (roofline, dram, unfused) = (r.roofline_s(), r.dram_roofline_s(), r.unfused_s());
            let rows: Vec<serde_json::Value> = r
                .rows
                .iter()
                .map(|row| {
                    serde_json::json!({
                        "strategy": row.strategy,
                        "median_s": row.median_s,
                        "speedup_vs_unfused": unfused.map(|u| u / row.median_s),
                        "x_roofline": row.median_s / roofline,
                        "x_dram_roofline": row.median_s / dram,
                    })
                })
                .collect();
            serde_json::json!({
                "function": r.function,
                "io_bytes": r.io_bytes,
                "copy_bandwidth_bytes_per_s": r.copy_bandwidth,
                "roofline_s": roofline,
                "dram_bandwidth_bytes_per_s": r.dram_bandwidth,
                "dram_roofline_s": dram,
                "strategies": rows,
            })
        })
        .collect();
    serde_json::json!({ "runs": runs, "functions": functions })
}
