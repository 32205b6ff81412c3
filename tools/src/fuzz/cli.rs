//! `fuse-fuzz`'s command line: options, the campaign loop, reproducer files.

use super::{failures_with, generate, minimize, patterns, Mode};

const HELP: &str = "OVERVIEW: differential fuzzing of the fusion pipelines

USAGE: fuse-fuzz [--count N] [--seed S] [--out DIR] [--target T] [--jit [--parallel]] [--patterns] [--quiet]
       fuse-fuzz --emit DIR [--count N] [--seed S] [--patterns]

Generates N seeded random aten graphs (graph i uses seed S + i), runs each through every
strategy ({strategies}) and compares with the aten reference
interpreter; with --jit each strategy's result runs as the target's code on its runner
(--target {targets}; default cpu: compiled CPU code; ascend: the ascend dialect's
interpreter; spyre: the functional simulator) instead of on the loop interpreter; with
--jit --parallel (cpu) every step of two or more rows runs as parallel chunks (OpenMP). Failing graphs are minimized and written to DIR (default:
fuzz-failures).
With --patterns, the graphs are near misses of the pattern-rewriting passes instead
(--fuse-rnn-cells, --fuse-attention, --pointless-cumsum: unrolled LSTM/GRU cells,
stacked attention and cumsums, some with a gate changed, chunks swapped, a bias on one
side, a mask of another shape or an extra user of an intermediate); use --target gpu,
where those passes rewrite.
Progress goes to stderr: a bar on a terminal, else a line per tenth of the graphs;
--quiet shows none (failures and the summary still print).
With --emit, the graphs are only written to DIR (fuzz-<seed>.mlir), unchecked: for
checking them on another target, e.g. the GPU (scripts/gpu-fuzz.sh, docs/gpu.md).
Exit status 1 if any graph failed.
";

/// The reproducer file for a failing graph: a header of comments (every line of a
/// multi-line error too, so the file parses as it is) and the minimized graph.
pub(super) fn reproducer_text(seed: u64, problems: &[String], mode: Mode, path: &str, graph: &str) -> String {
    let target = mode.target.target.name();
    format!(
        "// fuse-fuzz seed {seed}: {}\n// Reproduce: fuse-run --seed {seed}{}{} {path}\n{graph}",
        problems.join("; ").replace('\n', "\n// "),
        if target == "cpu" {
            String::new()
        } else {
            format!(" --target {target}")
        },
        match (mode.jit, mode.parallel) {
            (true, true) => " --jit --parallel --parallel-min-work 1",
            (true, false) => " --jit",
            _ => "",
        },
    )
}

/// Runs `fuse-fuzz`; returns the exit code.
pub fn run(args: &[String]) -> i32 {
    let (mut count, mut seed, mut out) = (100u64, 1u64, "fuzz-failures".to_string());
    let mut mode = Mode::cpu(false);
    let mut emit: Option<String> = None;
    let mut generator: fn(u64) -> String = generate;
    let mut quiet = false;
    let mut i = 0;
    while i < args.len() {
        let (flag, value) = (args[i].as_str(), args.get(i + 1));
        i += 2;
        if matches!(flag, "--jit" | "--parallel" | "--patterns" | "--quiet") {
            match flag {
                "--jit" => mode.jit = true,
                "--parallel" => mode.parallel = true,
                "--quiet" => quiet = true,
                _ => generator = patterns::generate,
            }
            i -= 1;
            continue;
        }
        match (flag, value) {
            ("-h" | "--help", _) => {
                return match crate::print_stdout(
                    &HELP
                        .replace("{strategies}", &crate::driver::strategy_names().join(", "))
                        .replace("{targets}", &fuselab_targets::target_names(" | ")),
                ) {
                    Ok(()) => 0,
                    Err(m) => {
                        eprintln!("fuse-fuzz: error: {m}");
                        1
                    }
                };
            }
            ("--count", Some(v)) if v.parse::<u64>().is_ok() => count = v.parse().unwrap_or(count),
            ("--seed", Some(v)) if v.parse::<u64>().is_ok() => seed = v.parse().unwrap_or(seed),
            ("--out", Some(v)) => out = v.clone(),
            ("--target", Some(v)) => match fuselab_targets::target(v) {
                Some(t) => mode.target = t,
                None => {
                    eprintln!(
                        "fuse-fuzz: error: unknown target '{v}' (known: {})",
                        fuselab_targets::target_names(", ")
                    );
                    return 1;
                }
            },
            ("--emit", Some(v)) => emit = Some(v.clone()),
            _ => {
                eprintln!("fuse-fuzz: error: bad option '{flag}' (see --help)");
                return 1;
            }
        }
    }
    if mode.parallel && !(mode.jit && mode.target.target.name() == "cpu") {
        eprintln!("fuse-fuzz: error: --parallel applies to compiled CPU code: add --jit (target cpu)");
        return 1;
    }
    if let Some(dir) = emit {
        for k in 0..count {
            let s = seed.wrapping_add(k);
            let path = format!("{dir}/fuzz-{s}.mlir");
            if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, generator(s))) {
                eprintln!("fuse-fuzz: error: cannot write {path}: {e}");
                return 1;
            }
        }
        return 0;
    }
    let mut failed = 0;
    let start = std::time::Instant::now();
    let mut progress = crate::progress::Progress::new("fuse-fuzz", "graphs", count, quiet);
    for k in 0..count {
        // Seeds wrap around at 2^64 (a seed is only a name for a graph).
        let s = seed.wrapping_add(k);
        let text = generator(s);
        let problems = failures_with(&text, s, mode);
        progress.step();
        if problems.is_empty() {
            continue;
        }
        failed += 1;
        let small = minimize(&text, s, mode);
        let path = format!("{out}/fuzz-{s}.mlir");
        let reproducer = reproducer_text(s, &problems, mode, &path, &small);
        match std::fs::create_dir_all(&out).and_then(|()| std::fs::write(&path, reproducer)) {
            Ok(()) => progress.println(&format!("seed {s}: FAIL ({}) -> {path}", problems.join("; "))),
            Err(e) => progress.println(&format!(
                "seed {s}: FAIL ({}); fuse-fuzz: error: cannot write the reproducer {path}: {e}",
                problems.join("; ")
            )),
        }
    }
    drop(progress);
    let seeds = match count {
        0 => "no seeds".to_string(),
        _ => format!("seeds {seed}..{}", seed.wrapping_add(count - 1)),
    };
    let summary = format!(
        "fuse-fuzz: {count} graphs ({seeds}), {failed} failed, {:.1} s\n",
        start.elapsed().as_secs_f64()
    );
    if let Err(m) = crate::print_stdout(&summary) {
        eprintln!("fuse-fuzz: error: {m}");
        return 1;
    }
    i32::from(failed > 0)
}
