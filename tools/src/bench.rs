//! `fuse-bench`: how fast each fusion strategy's decision and whole pass run on generated
//! graphs of 1k, 10k and 100k nodes (Inductor's own scheduler needs ~28 s for 1,127
//! nodes; TVM's FuseOps 1.1-2.1 s for 50k on this machine, `../shared/anchors.md`).
//! Graphs are `loop` IR built from a seeded generator, so runs are reproducible:
//! - `chain`: every node reads the previous one (one long pointwise chain);
//! - `tree`: a balanced in-tree: the first half of the nodes read a graph input, every
//!   later node adds two earlier nodes that nothing else reads (a reduction tree);
//! - `random`: every node reads one or two of the previous 8 nodes, sometimes a graph
//!   input, and every 16th node is a row reduction (a random DAG with locality, like
//!   real models);
//! - `fan`: a wide fan-out: the first node reads a graph input, the rest of the first
//!   half read the first node, and every later node adds the previous node and the next
//!   fan node (one buffer with tens of thousands of consumers, summed by a chain).
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
    fusion::{strategy, strategy::strategy_names, Strategy, STRATEGIES},
    target::Generic,
    DriverSettings,
};
use melior::ir::{operation::OperationLike, BlockLike};
use std::{fmt::Write as _, rc::Rc, time::Instant};

/// A small deterministic generator (xorshift), so graphs are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The shape of a generated graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphKind {
    /// A single pointwise chain.
    Chain,
    /// A balanced in-tree (each node read once).
    Tree,
    /// A random DAG with locality and periodic reductions.
    Random,
    /// One node read by half the graph, summed by a chain.
    Fan,
}

impl GraphKind {
    /// Every kind, in the order runs and messages list them.
    pub const ALL: [GraphKind; 4] = [
        GraphKind::Chain,
        GraphKind::Tree,
        GraphKind::Random,
        GraphKind::Fan,
    ];

    /// The name `--graphs` and `--emit` take.
    pub fn name(self) -> &'static str {
        match self {
            GraphKind::Chain => "chain",
            GraphKind::Tree => "tree",
            GraphKind::Random => "random",
            GraphKind::Fan => "fan",
        }
    }

    /// The kinds' names joined by `sep`.
    fn names(sep: &str) -> String {
        GraphKind::ALL.map(GraphKind::name).join(sep)
    }
}

const ROWS: i64 = 64;
const COLS: i64 = 64;

/// `loop` IR text of a generated graph with `nodes` nodes.
pub fn generate(kind: GraphKind, nodes: usize, seed: u64) -> String {
    let mut rng = Rng(seed | 1);
    let t = format!("tensor<{ROWS}x{COLS}xf32>");
    let mut text = String::new();
    let full = "affine_map<(d0, d1) -> (d0 * 64 + d1)>";
    let row = "affine_map<(d0, d1) -> (d0)>";
    let mut is_row: Vec<bool> = Vec::with_capacity(nodes);
    let mut read = vec![false; nodes];
    // Tree and fan: nodes not yet read by a later node, oldest first.
    let mut unread: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
    for i in 0..nodes {
        let reduction = kind == GraphKind::Random && i % 16 == 15;
        let mut reads: Vec<String> = Vec::new();
        let pick = |rng: &mut Rng| -> Option<usize> {
            if i == 0 || (kind == GraphKind::Random && rng.below(10) == 0) {
                None
            } else if kind == GraphKind::Chain {
                Some(i - 1)
            } else {
                Some(i - 1 - rng.below(i.min(8) as u64) as usize)
            }
        };
        let count = if kind == GraphKind::Random {
            1 + rng.below(2)
        } else {
            1
        };
        let picks: Vec<Option<usize>> = if kind == GraphKind::Fan {
            match i {
                0 => vec![None],
                _ if i < nodes.div_ceil(2) => vec![Some(0)],
                _ => std::iter::once(Some(i - 1))
                    .chain(unread.pop_front().map(Some))
                    .collect(),
            }
        } else if kind == GraphKind::Tree {
            // A binary tree of L leaves has L - 1 inner nodes: with L = (nodes + 1) / 2 the
            // last node of an odd count is the root (an even count leaves one more result).
            if i < nodes.div_ceil(2) || unread.len() < 2 {
                vec![None]
            } else {
                vec![unread.pop_front(), unread.pop_front()]
            }
        } else {
            (0..count).map(|_| pick(&mut rng)).collect()
        };
        // The fan's chain reads the fan nodes but the last (it reads that one as the
        // previous node).
        if kind == GraphKind::Tree || (kind == GraphKind::Fan && i > 0 && i + 1 < nodes.div_ceil(2)) {
            unread.push_back(i);
        }
        for picked in picks {
            if let Some(p) = picked {
                read[p] = true;
            }
            match picked {
                Some(p) if is_row[p] => reads.push(format!(
                    "\"loop.load\"(%n{p}) {{index = {row}}} : (tensor<{ROWS}x1xf32>) -> f32"
                )),
                Some(p) => reads.push(format!("\"loop.load\"(%n{p}) {{index = {full}}} : ({t}) -> f32")),
                None => reads.push(format!(
                    "\"loop.load\"(%in{}) {{index = {full}}} : ({t}) -> f32",
                    rng.below(2)
                )),
            }
        }
        let _ = writeln!(
            text,
            "  %n{i} = \"loop.{}\"() ({{",
            if reduction { "reduction" } else { "pointwise" }
        );
        let _ = writeln!(text, "  ^bb0(%d0: index, %d1: index):");
        for (k, r) in reads.iter().enumerate() {
            let _ = writeln!(text, "    %v{k} = {r}");
        }
        let mut acc = "%v0".to_string();
        for k in 1..reads.len() {
            let _ = writeln!(text, "    %s{k} = arith.addf {acc}, %v{k} : f32");
            acc = format!("%s{k}");
        }
        let _ = writeln!(text, "    %o = math.sin {acc} : f32");
        let _ = writeln!(text, "    gpu.yield %o : f32");
        if reduction {
            let _ = writeln!(
                text,
                "  }}) {{name = \"buf{i}\", ranges = array<i64: {ROWS}>, reduction_ranges = array<i64: {COLS}>, kind = \"sum\", origins = [\"sum\"]}} : () -> tensor<{ROWS}x1xf32>"
            );
        } else {
            let _ = writeln!(
                text,
                "  }}) {{name = \"buf{i}\", ranges = array<i64: {ROWS}, {COLS}>, origins = [\"sin\"]}} : () -> {t}"
            );
        }
        is_row.push(reduction);
    }
    // Every node nothing reads is a result, so no node is dead (the passes drop dead nodes
    // before deciding: a dead node would be timed by the decision and not by the pass).
    let sinks: Vec<usize> = (0..nodes).filter(|&i| !read[i]).collect();
    let types: Vec<String> = sinks
        .iter()
        .map(|&i| {
            if is_row[i] {
                format!("tensor<{ROWS}x1xf32>")
            } else {
                t.clone()
            }
        })
        .collect();
    let values: Vec<String> = sinks.iter().map(|i| format!("%n{i}")).collect();
    let types = types.join(", ");
    let _ = writeln!(text, "  return {} : {types}\n}}", values.join(", "));
    format!("func.func @bench(%in0: {t}, %in1: {t}) -> ({types}) {{\n{text}")
}

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
fn peak_rss_mib() -> f64 {
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

/// How a time grows from `n1` to `n2` nodes: the ratio and the exponent `k` of
/// `t ~ n^k` through the two points (1 is linear).
pub fn growth(n1: usize, t1: f64, n2: usize, t2: f64) -> (f64, f64) {
    let ratio = t2 / t1;
    (ratio, ratio.ln() / (n2 as f64 / n1 as f64).ln())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
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
    let text = generate(kind, nodes, 0x5eed + nodes as u64);
    let (mut parse, mut analysis, mut decide, mut pass) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut parse_bc = Vec::new();
    let mut kernels = 0;
    // The graph as bytecode, written once from the first run's module.
    let mut bytes: Option<Vec<u8>> = None;
    for _ in 0..runs.max(1) {
        // From text; the same graph as bytecode then parses in a fresh context (nothing
        // uniqued already), and the pass runs on that module.
        {
            let fuse = FuseContext::new().map_err(|e| e.to_string())?;
            let sink = DiagnosticSink::new();
            sink.capture(fuse.context());
            let start = Instant::now();
            let module = parse_module(fuse.context(), &text, "bench.mlir", &sink)
                .ok_or_else(|| format!("generated graph does not parse: {:?}", sink.take()))?;
            parse.push(start.elapsed().as_secs_f64());
            bytes.get_or_insert_with(|| write_bytecode(&module.as_operation()));
        }
        let bytes = bytes.as_deref().unwrap_or_default();
        let fuse = FuseContext::new().map_err(|e| e.to_string())?;
        let sink = DiagnosticSink::new();
        sink.capture(fuse.context());
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
        let steps = crate::opt::parse_pipeline(&format!("builtin.module({pass_name})"))?;
        let manager = crate::opt::build_pass_manager(
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

fn first_func(module: &melior::ir::Module) -> Result<mlir_sys::MlirOperation, String> {
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
            "--quiet" => quiet = true,
            "--emit" => {
                i += 1;
                return match args.get(i).and_then(|s| parse_emit(s)) {
                    Some((kind, n)) => report_output(&generate(kind, n, 0x5eed + n as u64)),
                    None => {
                        eprintln!(
                            "fuse-bench: error: --emit expects GRAPH:NODES like tree:100000 (graph one of: {})",
                            GraphKind::names(", ")
                        );
                        1
                    }
                };
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
                    .and_then(|s| s.split(',').map(parse_graph_kind).collect());
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
                    "USAGE: fuse-bench [--sizes 1000,10000,100000] [--runs N] [--strategy {}|all]\n                  [--graphs {}] [--json] [--quiet]\n       fuse-bench --emit GRAPH:NODES\n\nTimes each fusion strategy ({}) on generated loop-IR graphs of each\nsize: parse (text, and the same graph from bytecode), MemoryDep analysis, decision, whole pass\n(rewrite and MLIR's verifier included), pipeline = parse + pass; medians of N runs, side by side in one\nprocess, then the growth of pass and pipeline from one size to the next (ratio and exponent)\nnext to MLIR's own bytecode reader's on the same graphs.\n--emit prints one generated graph (the same seed as the timed runs) for profiling with fuse-opt.\nProgress (one row per size, graph and strategy) goes to stderr; --quiet shows none.\n",
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
    let mut results = Vec::new();
    let rows = (sizes.len() * graphs.len() * strategies.len()) as u64;
    let mut progress = crate::progress::Progress::new("fuse-bench", "rows", rows, quiet);
    for &n in &sizes {
        for &kind in &graphs {
            for &strategy in &strategies {
                let measured = measure(strategy, kind, n, runs);
                progress.step();
                match measured {
                    Ok(r) => results.push(r),
                    Err(e) => {
                        eprintln!("fuse-bench: error: {e}");
                        return 1;
                    }
                }
            }
        }
    }
    drop(progress);
    if json {
        let rows: Vec<String> = results.iter().map(json_row).collect();
        report_output(&format!("[\n  {}\n]\n", rows.join(",\n  ")))
    } else {
        report_output(&(table(&results) + &growth_table(&results)))
    }
}

/// A value of a report column.
enum Cell {
    Text(&'static str),
    Count(usize),
    /// Seconds (3 decimals in the table, 4 in JSON).
    Seconds(f64),
    /// A figure with this many decimals.
    Number(f64, usize),
}

impl Cell {
    /// The value as text, seconds with `seconds_decimals` decimals (text unquoted).
    fn text(&self, seconds_decimals: usize) -> String {
        match *self {
            Cell::Text(text) => text.to_string(),
            Cell::Count(n) => n.to_string(),
            Cell::Seconds(s) => format!("{s:.seconds_decimals$}"),
            Cell::Number(x, decimals) => format!("{x:.decimals$}"),
        }
    }
}

/// One column of the report: its JSON key, its table header (left-aligned when
/// `width` is negative) and its value.
struct Column {
    key: &'static str,
    header: &'static str,
    width: i32,
    value: fn(&BenchResult) -> Cell,
}

/// A [`Column`].
const fn col(key: &'static str, header: &'static str, width: i32, value: fn(&BenchResult) -> Cell) -> Column {
    Column {
        key,
        header,
        width,
        value,
    }
}

/// The report's columns, in order: the table and the JSON rows both follow it.
const COLUMNS: &[Column] = &[
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

/// One result as a JSON object.
fn json_row(r: &BenchResult) -> String {
    let fields: Vec<String> = COLUMNS
        .iter()
        .map(|c| match (c.value)(r) {
            Cell::Text(text) => format!("\"{}\": \"{text}\"", c.key),
            cell => format!("\"{}\": {}", c.key, cell.text(4)),
        })
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// The rows as a text table.
fn table(results: &[BenchResult]) -> String {
    let pad = |text: &str, width: i32| {
        let w = width.unsigned_abs() as usize;
        if width < 0 {
            format!("{text:<w$}")
        } else {
            format!("{text:>w$}")
        }
    };
    let line = |cells: Vec<String>| cells.join(" ").trim_end().to_string() + "\n";
    let mut table = line(COLUMNS.iter().map(|c| pad(c.header, c.width)).collect());
    for r in results {
        table += &line(
            COLUMNS
                .iter()
                .map(|c| pad(&(c.value)(r).text(3), c.width))
                .collect(),
        );
    }
    table
}

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
    let kind = parse_graph_kind(kind)?;
    n.parse().ok().filter(|&n| n > 0).map(|n| (kind, n))
}

fn parse_graph_kind(name: &str) -> Option<GraphKind> {
    GraphKind::ALL.into_iter().find(|k| k.name() == name)
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

    /// Every generated node is read by a later node or returned, so the passes (which
    /// drop dead nodes first) time the whole graph; an odd tree returns its root only.
    #[test]
    fn generated_graphs_have_no_dead_nodes() {
        for kind in GraphKind::ALL {
            for n in [1usize, 7, 100, 1001] {
                let text = generate(kind, n, 0x5eed + n as u64);
                let returned: Vec<&str> = text
                    .lines()
                    .find_map(|l| l.trim_start().strip_prefix("return "))
                    .and_then(|r| r.split(" : ").next())
                    .map(|values| values.split(", ").collect())
                    .unwrap_or_default();
                for i in 0..n {
                    let name = format!("%n{i}");
                    assert!(
                        text.contains(&format!("({name})")) || returned.contains(&name.as_str()),
                        "{kind:?} {n}: {name} is dead"
                    );
                }
            }
        }
        let tree = generate(GraphKind::Tree, 7, 1);
        assert!(tree.contains("return %n6 : tensor<64x64xf32>\n"), "{tree}");
        // The fan: nodes 1..=4 read node 0; 5 adds 4 and 1, 6 adds 5 and 2, ... and the
        // last sum is the only result.
        let fan = generate(GraphKind::Fan, 10, 1);
        assert_eq!(fan.matches("\"loop.load\"(%n0)").count(), 4, "{fan}");
        assert!(fan.contains("%n5 = \"loop.pointwise\"() ({\n  ^bb0(%d0: index, %d1: index):\n    %v0 = \"loop.load\"(%n4)"), "{fan}");
        assert!(fan.contains("return %n9 : tensor<64x64xf32>\n"), "{fan}");
    }

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
        let json = json_row(&r);
        assert_eq!(
            json,
            "{\"strategy\": \"tvm\", \"graph\": \"tree\", \"nodes\": 1000, \"kernels\": 1, \"parse_s\": 0.5000, \
             \"parse_bytecode_s\": 0.2500, \"analyze_s\": 0.0000, \"decide_s\": 0.0000, \"pass_s\": 0.2500, \
             \"pipeline_s\": 0.7500, \"pipeline_bytecode_s\": 0.5000, \"pass_us_per_node\": 250.00, \"peak_rss_mib\": 0}"
        );
        let text = table(&[r]);
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

    #[test]
    fn growth_is_the_ratio_and_its_exponent() {
        let (ratio, k) = growth(10_000, 0.2, 100_000, 2.0);
        assert!(
            (ratio - 10.0).abs() < 1e-9 && (k - 1.0).abs() < 1e-9,
            "{ratio} {k}"
        );
        let (ratio, k) = growth(1_000, 0.01, 10_000, 1.0);
        assert!(
            (ratio - 100.0).abs() < 1e-9 && (k - 2.0).abs() < 1e-9,
            "{ratio} {k}"
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
