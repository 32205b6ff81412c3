//! `fuse-run`'s command line: its options, `--help`, and the run of a check or a bench.

use super::*;

/// The `--help` text: strategies and targets from their tables.
fn help_text() -> String {
    format!(
        "OVERVIEW: check by execution that fusion pipelines compute what the input computes

USAGE: fuse-run [options] FILE.mlir   ('-' reads stdin)

Generates seeded inputs, runs the aten reference interpreter on the input (the oracle),
runs each strategy's pipeline and the loop interpreter on its result, and compares every
output (f32: |got - want| <= 1e-4 max(1, max|want|) + 1e-3 |want|; f16, bf16 looser;
ints and bools exact, as integers up to 2^53 in magnitude: an --expect file holding a
larger one is refused). A float output outside the tolerance still passes by Inductor's
own rule (torch._dynamo.utils.same with an fp64 reference): its RMS error against the
function run in exact arithmetic is at most 2x eager's (3x for f16/bf16 or fewer than
1,000 elements) + tol/10; the line then says 'fp64 rule'.
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
