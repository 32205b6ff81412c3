//! `fuse-bench --input aten`: each strategy's whole pipeline from aten text — what
//! `fuse-opt --<strategy pass> graph.mlir` does (parse, fuselab's verifiers, the
//! strategy's pipeline from `fusion::table::strategy_pipeline` with MLIR's verifier
//! after each pass, printing the loop IR) — against MLIR's own parse, verify and print of
//! the same aten text, measured alternately in one process (issue 44, item 3: the goal is
//! a ratio of at most 5). The yardstick prints with `assumeVerified` as fuse-opt does, so
//! it is MLIR's parser, verifier and printer once each (`mlir-opt` verifies a second
//! time before printing; the yardstick is the faster one).

use super::{
    graphs::{aten_text, seed, GraphKind},
    report::{col, median, Cell, Column},
};
use fuselab_dialects::source::parse_module;
use fuselab_passes::{fusion::table::strategy_pipeline, fusion::Strategy, DriverSettings};
use melior::ir::{operation::OperationPrintingFlags, Module};
use std::{rc::Rc, time::Instant};

/// One strategy's pipeline on one generated aten graph.
#[derive(Clone, Debug)]
pub struct AtenResult {
    /// Strategy.
    pub strategy: &'static str,
    /// Graph kind.
    pub kind: GraphKind,
    /// Graph nodes.
    pub nodes: usize,
    /// aten ops in the input (a row sum is two: its combining op and `aten.sum`).
    pub ops: usize,
    /// Bytes of aten text.
    pub input_bytes: usize,
    /// Generated kernels after fusion (kernels and unfused nodes; library calls not
    /// counted).
    pub kernels: usize,
    /// Bytes of loop IR printed.
    pub output_bytes: usize,
    /// MLIR's parse, verify and print of the aten text (the yardstick).
    pub mlir_s: f64,
    /// The pipeline: parse and verify.
    pub parse_s: f64,
    /// The pipeline: the passes (building the pass manager included).
    pub passes_s: f64,
    /// The pipeline: printing the result.
    pub print_s: f64,
    /// Peak resident memory during the pipeline runs, in MiB (`VmHWM`, reset before
    /// them where Linux allows: otherwise the process's peak so far).
    pub peak_rss_mib: f64,
}

impl AtenResult {
    /// The whole pipeline (parse, verify, passes, print).
    pub fn pipeline_s(&self) -> f64 {
        self.parse_s + self.passes_s + self.print_s
    }

    /// The pipeline's time over MLIR's parse, verify and print of the same text.
    pub fn ratio(&self) -> f64 {
        self.pipeline_s() / self.mlir_s
    }
}

/// The columns of `--input aten`, in order: the table and the JSON rows both follow it.
pub const COLUMNS: &[Column<AtenResult>] = &[
    col("strategy", "strategy", -9, |r| Cell::Text(r.strategy)),
    col("graph", "graph", -7, |r| Cell::Text(r.kind.name())),
    col("nodes", "nodes", 7, |r| Cell::Count(r.nodes)),
    col("aten_ops", "aten ops", 8, |r| Cell::Count(r.ops)),
    col("kernels", "kernels", 8, |r| Cell::Count(r.kernels)),
    col("input_mib", "in MiB", 7, |r| {
        Cell::Number(r.input_bytes as f64 / 1048576.0, 1)
    }),
    col("output_mib", "out MiB", 7, |r| {
        Cell::Number(r.output_bytes as f64 / 1048576.0, 1)
    }),
    col("mlir_s", "MLIR s", 7, |r| Cell::Seconds(r.mlir_s)),
    col("parse_s", "parse s", 8, |r| Cell::Seconds(r.parse_s)),
    col("passes_s", "passes s", 8, |r| Cell::Seconds(r.passes_s)),
    col("print_s", "print s", 8, |r| Cell::Seconds(r.print_s)),
    col("pipeline_s", "pipeline", 9, |r| Cell::Seconds(r.pipeline_s())),
    col("ratio", "x MLIR", 7, |r| Cell::Number(r.ratio(), 2)),
    col("peak_rss_mib", "peak MiB", 8, |r| Cell::Number(r.peak_rss_mib, 0)),
];

/// Measures `strategy`'s pipeline on the aten graph `runs` times, each run next to a run
/// of the yardstick (medians).
pub fn measure(
    strategy: &'static dyn Strategy,
    kind: GraphKind,
    nodes: usize,
    runs: usize,
) -> Result<AtenResult, String> {
    let text = aten_text(kind, nodes, seed(nodes));
    let steps = crate::driver::pipeline_steps(&strategy_pipeline(strategy))?;
    let (mut mlir, mut parse, mut passes, mut print) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut kernels, mut output_bytes, mut peak) = (0, 0, 0.0f64);
    for _ in 0..runs.max(1) {
        {
            let (fuse, sink) = super::fresh_context()?;
            let start = Instant::now();
            let module = parse_module(fuse.context(), &text, "bench.mlir", &sink)
                .ok_or_else(|| format!("generated aten graph does not parse: {:?}", sink.take()))?;
            print_verified(&module);
            mlir.push(start.elapsed().as_secs_f64());
        }
        let (fuse, sink) = super::fresh_context()?;
        let reset = reset_peak_rss();
        let start = Instant::now();
        let mut module = parse_module(fuse.context(), &text, "bench.mlir", &sink)
            .ok_or_else(|| format!("generated aten graph does not parse: {:?}", sink.take()))?;
        if !fuselab_dialects::verify_fuselab(module.as_operation(), &sink) {
            return Err(format!("generated aten graph does not verify: {:?}", sink.take()));
        }
        parse.push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        let manager = crate::driver::build_pass_manager(
            fuse.context(),
            &steps,
            &sink,
            &Rc::new(DriverSettings::default()),
        )?;
        manager
            .run(&mut module)
            .map_err(|_| format!("the {} pipeline failed: {:?}", strategy.name(), sink.take()))?;
        passes.push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        output_bytes = print_verified(&module);
        print.push(start.elapsed().as_secs_f64());
        kernels = generated_kernels(&module);
        let now = super::peak_rss_mib();
        peak = if reset { peak.max(now) } else { now };
    }
    Ok(AtenResult {
        strategy: strategy.name(),
        kind,
        nodes,
        ops: text.matches(" = \"aten.").count(),
        input_bytes: text.len(),
        kernels,
        output_bytes,
        mlir_s: median(mlir),
        parse_s: median(parse),
        passes_s: median(passes),
        print_s: median(print),
        peak_rss_mib: peak,
    })
}

/// Prints `module` as fuse-opt prints a verified module (custom form, `assumeVerified`);
/// the bytes printed.
fn print_verified(module: &Module) -> usize {
    let flags = OperationPrintingFlags::new();
    // SAFETY: `flags` is a live printing-flags object.
    unsafe { mlir_sys::mlirOpPrintingFlagsAssumeVerified(flags.to_raw()) };
    fuselab_dialects::ir::print_bytes(module.as_operation().to_raw(), flags.to_raw()).len()
}

/// Kernels a fused module holds: its first function's `loop.kernel`s and the nodes left
/// outside any (each its own kernel); library calls (`loop.extern`) are not counted.
fn generated_kernels(module: &Module) -> usize {
    use fuselab_dialects::loops::names::{KERNEL, POINTWISE, REDUCTION};
    let Ok(func) = super::first_func(module) else {
        return 0;
    };
    fuselab_dialects::ir::collect_ops(func, |n| n == KERNEL || n == POINTWISE || n == REDUCTION)
        .into_iter()
        .filter(|&op| {
            // Top level of the function only: a kernel's members are not kernels.
            let parent = unsafe { mlir_sys::mlirOperationGetParentOperation(op) };
            parent.ptr == func.ptr
        })
        .count()
}

/// Resets the process's peak resident set to its current size (`/proc/self/clear_refs`
/// with 5, Linux 4.0 and later); whether it could.
fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}
