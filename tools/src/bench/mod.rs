//! `fuse-bench`: how fast each fusion strategy's decision and whole pass run on generated
//! graphs of 1k, 10k and 100k nodes (Inductor's own scheduler needs ~28 s for 1,127
//! nodes; TVM's FuseOps 1.1-2.1 s for 50k on this machine, `../shared/anchors.md`).
//! Graphs come from a seeded generator (`graphs`: chain, tree, random DAG, fan), as
//! `loop` IR (the fusion passes' input, the default) or as aten ops (`--input aten`:
//! each strategy's whole pipeline from aten text against MLIR's own parse, verify and
//! print of the same text, `aten`).
//!
//! Strategies: every row of the strategy table (`fusion::STRATEGIES`): the decision is
//! `Strategy::decide` on the MemoryDep graph with the pass's default options (Inductor:
//! `fuse_nodes`; TVM: op graph with pattern kinds + post-dominator tree + partition),
//! the pass is the strategy's own (`--inductor-fuse`, `--tvm-fuse-ops`).
//!
//! Times are wall-clock medians of the runs, measured in one process, side by side. The
//! pipeline is what `fuse-opt graph.mlir --<pass>` does before printing: parse and
//! verify (from text, and from bytecode in a second column), then the pass (analysis,
//! decision, rewrite, MLIR's verifier). Below the table, the growth of the pass and of
//! the pipeline from each size to the next, as a ratio and the exponent `k` of
//! `t ~ n^k` (issue 18 asks for linear: 100k/10k <= 12), next to the growth of MLIR's
//! bytecode reader on the same graphs in the same run.

use fuselab_dialects::{
    source::{parse_bytecode, parse_module, write_bytecode},
    DiagnosticSink, FuseContext,
};
use fuselab_passes::{
    analysis::memory_deps::analyze,
    fusion::{strategy, table::strategy_names, Strategy, STRATEGIES},
    target::Generic,
    DriverSettings,
};
use melior::ir::{operation::OperationLike, BlockLike};
use report::{col, growth, median, Cell, Column};
use std::{fmt::Write as _, rc::Rc, time::Instant};

pub mod aten;
pub mod graphs;
pub mod report;

pub use graphs::GraphKind;

/// One measurement.
#[derive(Clone, Debug)]
pub struct BenchResult {
    /// Strategy.
    pub strategy: &'static str,
    /// Graph kind.
    pub kind: GraphKind,
    /// Nodes.
    pub nodes: usize,
    /// Kernels after fusion.
    pub kernels: usize,
    /// Seconds to parse and verify the module from text.
    pub parse_s: f64,
    /// Seconds to parse and verify the same module from MLIR bytecode.
    pub parse_bytecode_s: f64,
    /// Seconds of the MemoryDep analysis (IR to plain data).
    pub analyze_s: f64,
    /// Seconds of the fusion decision alone (Inductor: `fuse_nodes` on plain data; TVM:
    /// op graph with kinds, post-dominator tree and partition).
    pub decide_s: f64,
    /// Seconds of the whole pass (analysis, decision, IR rewrite, MLIR's verifier).
    pub pass_s: f64,
    /// The process's peak resident memory after this measurement, in MiB (`VmHWM`; it
    /// only grows, so with sizes in increasing order a row's figure is its own peak
    /// unless an earlier, smaller row needed more).
    pub peak_rss_mib: f64,
}

/// The process's peak resident set (`VmHWM` of /proc/self/status) in MiB; 0 where
/// there is no such file.
pub(crate) fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

impl BenchResult {
    /// The whole pipeline from text (`fuse-opt graph.mlir --<pass>` without the
    /// printing): parse and verify, analysis, decision, rewrite, verify.
    pub fn pipeline_s(&self) -> f64 {
        self.parse_s + self.pass_s
    }

    /// The whole pipeline from bytecode (`fuse-opt graph.mlirbc --<pass>`).
    pub fn pipeline_bytecode_s(&self) -> f64 {
        self.parse_bytecode_s + self.pass_s
    }
}

/// Measures one graph `runs` times (median).
pub fn measure(
    strategy: &'static dyn Strategy,
    kind: GraphKind,
    nodes: usize,
    runs: usize,
) -> Result<BenchResult, String> {
    let pass_name = strategy.pass().argument;
    let defaults = strategy.pass().parse_options("").map_err(|e| e.to_string())?;
    let text = graphs::loop_text(kind, nodes, graphs::seed(nodes));
    let (mut parse, mut analysis, mut decide, mut pass) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut parse_bc = Vec::new();
    let mut kernels = 0;
    // The graph as bytecode, written once from the first run's module.
    let mut bytes: Option<Vec<u8>> = None;
    for _ in 0..runs.max(1) {
        // From text; the same graph as bytecode then parses in a fresh context (nothing
        // uniqued already), and the pass runs on that module.
        {
            let (fuse, sink) = fresh_context()?;
            let start = Instant::now();
            let module = parse_module(fuse.context(), &text, "bench.mlir", &sink)
                .ok_or_else(|| format!("generated graph does not parse: {:?}", sink.take()))?;
            parse.push(start.elapsed().as_secs_f64());
            bytes.get_or_insert_with(|| write_bytecode(&module.as_operation()));
        }
        let bytes = bytes.as_deref().unwrap_or_default();
        let (fuse, sink) = fresh_context()?;
        let start = Instant::now();
        let mut module = parse_bytecode(fuse.context(), bytes, "bench.mlirbc", &sink)
            .ok_or_else(|| format!("generated graph's bytecode does not parse: {:?}", sink.take()))?;
        parse_bc.push(start.elapsed().as_secs_f64());
        let func = crate::bench::first_func(&module)?;
        let start = Instant::now();
        let graph = analyze(func)?;
        analysis.push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        kernels = strategy
            .decide(func, &graph, &Generic, &defaults, false)?
            .plan
            .groups
            .len();
        decide.push(start.elapsed().as_secs_f64());
        let steps = crate::driver::parse_pipeline(&format!("builtin.module({pass_name})"))?;
        let manager = crate::driver::build_pass_manager(
            fuse.context(),
            &steps,
            &sink,
            &Rc::new(DriverSettings::default()),
        )?;
        let start = Instant::now();
        manager
            .run(&mut module)
            .map_err(|_| format!("--{pass_name} failed: {:?}", sink.take()))?;
        pass.push(start.elapsed().as_secs_f64());
    }
    Ok(BenchResult {
        strategy: strategy.name(),
        kind,
        nodes,
        kernels,
        parse_s: median(parse),
        parse_bytecode_s: median(parse_bc),
        analyze_s: median(analysis),
        decide_s: median(decide),
        pass_s: median(pass),
        peak_rss_mib: peak_rss_mib(),
    })
}

/// A new context with fuselab's dialects and a sink capturing its diagnostics (each
/// timed run starts from one: nothing uniqued already).
pub(crate) fn fresh_context() -> Result<(FuseContext, DiagnosticSink), String> {
    let fuse = FuseContext::new().map_err(|e| e.to_string())?;
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    Ok((fuse, sink))
}

pub(crate) fn first_func(module: &melior::ir::Module) -> Result<mlir_sys::MlirOperation, String> {
    let body = module.body();
    let mut op = body.first_operation();
    while let Some(o) = op {
        if o.name().as_string_ref().as_str() == Ok("func.func") {
            return Ok(o.to_raw());
        }
        op = o.next_in_block();
    }
    Err("no function in the generated module".to_string())
}

/// `fuse-bench [--sizes 1000,10000,100000] [--runs N] [--strategy inductor|tvm|all]
/// [--graphs chain,tree,random,fan] [--json]`; returns the exit code.
pub fn run(args: &[String]) -> i32 {
    let mut sizes = vec![1_000usize, 10_000, 100_000];
    let mut runs = 3;
    let (mut json, mut quiet) = (false, false);
    let mut strategies: Vec<&'static dyn Strategy> = STRATEGIES.to_vec();
    let mut graphs = GraphKind::ALL.to_vec();
    let mut input = Input::Loop;
    let mut emit = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--sizes" => {
                i += 1;
                let parsed: Result<Vec<usize>, _> = args
                    .get(i)
                    .map(|s| s.split(',').map(str::parse).collect())
                    .unwrap_or(Ok(vec![]));
                match parsed {
                    Ok(s) if !s.is_empty() && !s.contains(&0) => sizes = s,
                    _ => {
                        eprintln!("fuse-bench: error: --sizes expects positive integers like 1000,10000");
                        return 1;
                    }
                }
            }
            "--runs" => {
                i += 1;
                match args.get(i).and_then(|s| s.parse().ok()) {
                    Some(n) if (1..=crate::MAX_RUNS).contains(&n) => runs = n,
                    _ => {
                        eprintln!(
                            "fuse-bench: error: --runs expects an integer from 1 to {}",
                            crate::MAX_RUNS
                        );
                        return 1;
                    }
                }
            }
            "--json" => json = true,
            "--input" => {
                i += 1;
                input = match args.get(i).map(String::as_str) {
                    Some("loop") => Input::Loop,
                    Some("aten") => Input::Aten,
                    _ => {
                        eprintln!("fuse-bench: error: --input expects loop or aten");
                        return 1;
                    }
                }
            }
            "--quiet" => quiet = true,
            "--emit" => {
                i += 1;
                match args.get(i).and_then(|s| parse_emit(s)) {
                    Some(graph) => emit = Some(graph),
                    None => {
                        eprintln!(
                            "fuse-bench: error: --emit expects GRAPH:NODES like tree:100000 (graph one of: {})",
                            GraphKind::names(", ")
                        );
                        return 1;
                    }
                }
            }
            "--strategy" => {
                i += 1;
                strategies = match args.get(i).map(String::as_str) {
                    Some("all") => STRATEGIES.to_vec(),
                    Some(name) if strategy(name).is_some() => strategy(name).into_iter().collect(),
                    _ => {
                        eprintln!(
                            "fuse-bench: error: --strategy expects {} or all",
                            strategy_names(", ")
                        );
                        return 1;
                    }
                }
            }
            "--graphs" => {
                i += 1;
                let parsed: Option<Vec<GraphKind>> = args
                    .get(i)
                    .and_then(|s| s.split(',').map(GraphKind::parse).collect());
                match parsed {
                    Some(g) if !g.is_empty() => graphs = g,
                    _ => {
                        eprintln!(
                            "fuse-bench: error: --graphs expects a list of {}",
                            GraphKind::names(", ")
                        );
                        return 1;
                    }
                }
            }
            "-h" | "--help" => {
                let help = format!(
                    "USAGE: fuse-bench [--input loop|aten] [--sizes 1000,10000,100000] [--runs N]\n                  [--strategy {}|all] [--graphs {}] [--json] [--quiet]\n       fuse-bench [--input loop|aten] --emit GRAPH:NODES\n\nTimes each fusion strategy ({}) on generated graphs of each size,\nmedians of N runs (default 3), side by side in one process.\n--input loop (default): the graphs as loop IR, the fusion pass alone: parse (text, and the same\ngraph from bytecode), MemoryDep analysis, decision, whole pass (rewrite and MLIR's verifier\nincluded), pipeline = parse + pass; then the growth of pass and pipeline from one size to the\nnext (ratio and exponent) next to MLIR's own bytecode reader's on the same graphs.\n--input aten: the graphs as aten ops, each strategy's whole pipeline as fuse-opt --<pass> runs\nit (parse, verify, passes, print), each run next to MLIR's own parse, verify and print of the\nsame text; the ratio of the two, and the pipeline's peak resident memory.\n--emit prints one generated graph (the same seed as the timed runs) for profiling with fuse-opt.\nProgress (one row per size, graph and strategy) goes to stderr; --quiet shows none.\n",
                    strategy_names("|"),
                    GraphKind::names(","),
                    STRATEGIES.iter().map(|s| format!("--{}", s.pass().argument)).collect::<Vec<_>>().join(", ")
                );
                return report_output(&help);
            }
            other => {
                eprintln!("fuse-bench: error: unknown option '{other}' (see --help)");
                return 1;
            }
        }
        i += 1;
    }
    if let Some((kind, n)) = emit {
        return report_output(&match input {
            Input::Loop => graphs::loop_text(kind, n, graphs::seed(n)),
            Input::Aten => graphs::aten_text(kind, n, graphs::seed(n)),
        });
    }
    let rows = (sizes.len() * graphs.len() * strategies.len()) as u64;
    let mut progress = crate::progress::Progress::new("fuse-bench", "rows", rows, quiet);
    let mut rows_of = |measure: &dyn Fn(&'static dyn Strategy, GraphKind, usize) -> Result<(), String>| {
        for &n in &sizes {
            for &kind in &graphs {
                for &strategy in &strategies {
                    let measured = measure(strategy, kind, n);
                    progress.step();
                    measured?;
                }
            }
        }
        Ok::<(), String>(())
    };
    let output = match input {
        Input::Loop => {
            let results = std::cell::RefCell::new(Vec::new());
            rows_of(&|s, kind, n| {
                let row = measure(s, kind, n, runs)?;
                results.borrow_mut().push(row);
                Ok(())
            })
            .map(|()| {
                let results = results.into_inner();
                if json {
                    report::json(COLUMNS, &results)
                } else {
                    report::table(COLUMNS, &results) + &growth_table(&results)
                }
            })
        }
        Input::Aten => {
            let results = std::cell::RefCell::new(Vec::new());
            rows_of(&|s, kind, n| {
                let row = aten::measure(s, kind, n, runs)?;
                results.borrow_mut().push(row);
                Ok(())
            })
            .map(|()| {
                let results = results.into_inner();
                if json {
                    report::json(aten::COLUMNS, &results)
                } else {
                    report::table(aten::COLUMNS, &results)
                }
            })
        }
    };
    drop(progress);
    match output {
        Ok(text) => report_output(&text),
        Err(e) => {
            eprintln!("fuse-bench: error: {e}");
            1
        }
    }
}

/// What the generated graphs are written in.
#[derive(Clone, Copy)]
enum Input {
    /// `loop` IR: the fusion pass alone.
    Loop,
    /// aten ops: each strategy's whole pipeline.
    Aten,
}

/// The report's columns, in order: the table and the JSON rows both follow it.
const COLUMNS: &[Column<BenchResult>] = &[
    col("strategy", "strategy", -9, |r| Cell::Text(r.strategy)),
    col("graph", "graph", -7, |r| Cell::Text(r.kind.name())),
    col("nodes", "nodes", 7, |r| Cell::Count(r.nodes)),
    col("kernels", "kernels", 8, |r| Cell::Count(r.kernels)),
    col("parse_s", "parse s", 8, |r| Cell::Seconds(r.parse_s)),
    col("parse_bytecode_s", "(bc) s", 8, |r| {
        Cell::Seconds(r.parse_bytecode_s)
    }),
    col("analyze_s", "analyze s", 9, |r| Cell::Seconds(r.analyze_s)),
    col("decide_s", "decide s", 8, |r| Cell::Seconds(r.decide_s)),
    col("pass_s", "pass s", 7, |r| Cell::Seconds(r.pass_s)),
    col("pipeline_s", "pipeline", 9, |r| Cell::Seconds(r.pipeline_s())),
    col("pipeline_bytecode_s", "(bc)", 9, |r| {
        Cell::Seconds(r.pipeline_bytecode_s())
    }),
    col("pass_us_per_node", "us/node", 8, |r| {
        Cell::Number(r.pass_s * 1e6 / r.nodes as f64, 2)
    }),
    col("peak_rss_mib", "peak MiB", 8, |r| Cell::Number(r.peak_rss_mib, 0)),
];

/// For each strategy and graph measured at several sizes, how the pass and the whole
/// pipeline (from text) grow from one size to the next: the ratio and its exponent; and,
/// as the yardstick measured in the same run, how MLIR's own bytecode reader grows on
/// the same graphs (linear code whose time still grows faster than the node count where
/// the larger graph no longer fits the caches).
fn growth_table(results: &[BenchResult]) -> String {
    let mut out = String::new();
    for (i, small) in results.iter().enumerate() {
        // The next larger size of the same strategy and graph.
        let Some(large) = results[i + 1..]
            .iter()
            .find(|r| r.strategy == small.strategy && r.kind == small.kind && r.nodes > small.nodes)
        else {
            continue;
        };
        if out.is_empty() {
            out.push_str("\ngrowth (time ratio, exponent k of t ~ n^k; 1 is linear)\n");
        }
        let (pass, pass_k) = growth(small.nodes, small.pass_s, large.nodes, large.pass_s);
        let (pipe, pipe_k) = growth(small.nodes, small.pipeline_s(), large.nodes, large.pipeline_s());
        let (reader, reader_k) = growth(
            small.nodes,
            small.parse_bytecode_s,
            large.nodes,
            large.parse_bytecode_s,
        );
        let _ = writeln!(
            out,
            "{:<9} {:<7} {:>7} -> {:<7} pass x{:<6.2} (k {:.2})  pipeline x{:<6.2} (k {:.2})  MLIR's reader x{:<6.2} (k {:.2})",
            small.strategy,
            small.kind.name(),
            small.nodes,
            large.nodes,
            pass,
            pass_k,
            pipe,
            pipe_k,
            reader,
            reader_k
        );
    }
    out
}

/// `chain:1000` → the graph kind and node count `--emit` asks for.
fn parse_emit(arg: &str) -> Option<(GraphKind, usize)> {
    let (kind, n) = arg.split_once(':')?;
    let kind = GraphKind::parse(kind)?;
    n.parse().ok().filter(|&n| n > 0).map(|n| (kind, n))
}

/// Prints `text`; exit 1 with a message when stdout cannot take it.
fn report_output(text: &str) -> i32 {
    match crate::print_stdout(text) {
        Ok(()) => 0,
        Err(m) => {
            eprintln!("fuse-bench: error: {m}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(strategy: &'static str, kind: GraphKind, nodes: usize, parse_s: f64, pass_s: f64) -> BenchResult {
        BenchResult {
            strategy,
            kind,
            nodes,
            kernels: 1,
            parse_s,
            parse_bytecode_s: parse_s / 2.0,
            analyze_s: 0.0,
            decide_s: 0.0,
            pass_s,
            peak_rss_mib: 0.0,
        }
    }

    /// The table and the JSON rows follow one column list: the same fields, in order,
    /// graph kinds spelled as `--graphs` takes them.
    #[test]
    fn json_and_table_rows_carry_every_column() {
        let r = row("tvm", GraphKind::Tree, 1_000, 0.5, 0.25);
        let json = report::json_row(COLUMNS, &r);
        assert_eq!(
            json,
            "{\"strategy\": \"tvm\", \"graph\": \"tree\", \"nodes\": 1000, \"kernels\": 1, \"parse_s\": 0.5000, \
             \"parse_bytecode_s\": 0.2500, \"analyze_s\": 0.0000, \"decide_s\": 0.0000, \"pass_s\": 0.2500, \
             \"pipeline_s\": 0.7500, \"pipeline_bytecode_s\": 0.5000, \"pass_us_per_node\": 250.00, \"peak_rss_mib\": 0}"
        );
        let text = report::table(COLUMNS, &[r]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("strategy  graph     nodes  kernels  parse s   (bc) s"),
            "{text}"
        );
        assert_eq!(
            lines[1].split_whitespace().collect::<Vec<_>>(),
            [
                "tvm", "tree", "1000", "1", "0.500", "0.250", "0.000", "0.000", "0.250", "0.750", "0.500",
                "250.00", "0"
            ],
            "{text}"
        );
    }

    /// Each row is compared with the next larger size of the same strategy and graph,
    /// not with another graph's or strategy's row in between.
    #[test]
    fn growth_pairs_each_row_with_the_next_size_of_its_own_kind() {
        let results = [
            row("inductor", GraphKind::Chain, 1_000, 0.01, 0.01),
            row("tvm", GraphKind::Chain, 1_000, 0.01, 0.5),
            row("inductor", GraphKind::Tree, 1_000, 0.01, 0.02),
            row("inductor", GraphKind::Chain, 10_000, 0.1, 0.1),
            row("tvm", GraphKind::Chain, 10_000, 0.1, 0.05),
            row("inductor", GraphKind::Tree, 10_000, 0.1, 2.0),
            row("inductor", GraphKind::Chain, 100_000, 1.0, 3.0),
        ];
        let text = growth_table(&results);
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("->")).collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(
            lines[0].starts_with(
                "inductor  chain      1000 -> 10000   pass x10.00  (k 1.00)  pipeline x10.00  (k 1.00)"
            ),
            "{text}"
        );
        assert!(
            lines[1].starts_with("tvm       chain      1000 -> 10000   pass x0.10"),
            "{text}"
        );
        assert!(
            lines[2].starts_with("inductor  tree       1000 -> 10000   pass x100.00 (k 2.00)"),
            "{text}"
        );
        assert!(
            lines[3].starts_with("inductor  chain     10000 -> 100000  pass x30.00"),
            "{text}"
        );
        assert!(
            lines[3].contains("pipeline x20.00  (k 1.30)  MLIR's reader x10.00  (k 1.00)"),
            "{text}"
        );
    }
}
