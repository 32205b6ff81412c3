//! Robustness: arbitrary damage to the inputs never crashes the tools. Seeded mutations
//! (byte flips, deletions, duplications, syntax characters, truncation) of every example
//! and of torch.export archives go through `fuse-opt` (parse, verify, both fusion
//! pipelines) and `fuse-import`; each run must end with exit status 0 or 1 — never a
//! Rust panic (101), an abort or a signal.

use std::{path::Path, process::Command};

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        if out.is_empty() {
            break;
        }
        let at = rng.below(out.len());
        match rng.below(5) {
            0 => out[at] ^= 1 << rng.below(8),
            1 => {
                let end = (at + 1 + rng.below(16)).min(out.len());
                out.drain(at..end);
            }
            2 => {
                let end = (at + 1 + rng.below(32)).min(out.len());
                let piece = out[at..end].to_vec();
                out.splice(at..at, piece);
            }
            3 => {
                const SYNTAX: &[u8] = b"(){}<>[]:,%\"x=-0123456789@#^ \n";
                out[at] = SYNTAX[rng.below(SYNTAX.len())];
            }
            _ => out.truncate(at),
        }
    }
    out
}

fn exit_ok(tool: &str, args: &[&str]) -> Result<(), String> {
    let output = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    match output.status.code() {
        Some(0 | 1) => Ok(()),
        other => Err(format!(
            "{tool} {args:?} ended with {other:?}:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )),
    }
}

#[test]
fn mutated_mlir_never_crashes_fuse_opt() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = std::env::temp_dir().join(format!("fuselab-robust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut examples: Vec<_> = std::fs::read_dir(root.join("examples"))
        .expect("examples")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    examples.sort();
    let mut rng = Rng(0x5eed);
    let mut failures = Vec::new();
    for (k, example) in examples.iter().enumerate() {
        let text = std::fs::read(example).expect("example");
        for m in 0..12 {
            let path = dir.join(format!("m{k}_{m}.mlir"));
            std::fs::write(&path, mutate(&mut rng, &text)).expect("write");
            let p = path.to_string_lossy().to_string();
            for pipeline in [
                &[
                    "--aten-decompose",
                    "--lower-aten-to-loop",
                    "--inline-pointwise",
                    "--inductor-fuse",
                ][..],
                &[
                    "--aten-decompose",
                    "--lower-aten-to-loop=materialize-views=true",
                    "--tvm-fuse-ops",
                ][..],
            ] {
                let mut args = vec![p.as_str(), "-o", "/dev/null"];
                args.extend_from_slice(pipeline);
                if let Err(e) = exit_ok(env!("CARGO_BIN_EXE_fuse-opt"), &args) {
                    failures.push(e);
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn mutated_archives_never_crash_fuse_import() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = std::env::temp_dir().join(format!("fuselab-robust-pt2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut rng = Rng(0xa5c1);
    let mut failures = Vec::new();
    for name in [
        "seed_10op",
        "lstm_cell",
        "basic_block",
        "transformer_encoder_layer",
    ] {
        let bytes = std::fs::read(root.join(format!("test/Import/Inputs/{name}.pt2"))).expect("fixture");
        for m in 0..25 {
            let path = dir.join(format!("{name}_{m}.pt2"));
            std::fs::write(&path, mutate(&mut rng, &bytes)).expect("write");
            let p = path.to_string_lossy().to_string();
            if let Err(e) = exit_ok(env!("CARGO_BIN_EXE_fuse-import"), &[&p, "-o", "/dev/null"]) {
                failures.push(e);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The values every numeric token of an op is replaced by: zero, negatives, the i64
/// extremes, 2^31 and 2^62 (issue 13, item 9).
const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "-2",
    "2147483648",
    "4611686018427387904",
    "-4611686018427387904",
    "9223372036854775807",
    "-9223372036854775808",
];

/// The numeric tokens of an op line that are sizes or integer attributes: maximal
/// `-?[0-9]+` runs not part of a name (`i64`, `%12`, `bf16`) or of a float (`1.0e-05`).
fn numeric_tokens(line: &str) -> Vec<(usize, usize)> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        if bytes[i] == b'-' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit() {
            i += 1;
        }
        if !bytes[i].is_ascii_digit() {
            i = start + 1;
            continue;
        }
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let before = if start == 0 { b' ' } else { bytes[start - 1] };
        let after = if i < bytes.len() { bytes[i] } else { b' ' };
        let name_before =
            before.is_ascii_alphanumeric() && before != b'x' || matches!(before, b'%' | b'_' | b'.');
        let name_after = after.is_ascii_alphabetic() && after != b'x' || matches!(after, b'.' | b'_');
        if !name_before && !name_after {
            out.push((start, i));
        }
    }
    out
}

/// A function around one op line: its operands become arguments typed as the op says.
fn function_of(line: &str, k: usize) -> Option<String> {
    let line = line.trim();
    let (_, rest) = line.split_once(" = ")?;
    let operands_start = rest.find("(%").or_else(|| rest.find("()"))?;
    let operands_end = operands_start + rest[operands_start..].find(')')?;
    let operand_count = rest[operands_start + 1..operands_end]
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .count();
    let (_, signature) = rest.rsplit_once(" : (")?;
    let (inputs, result) = signature.split_once(") -> ")?;
    let mut types = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in inputs.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                types.push(std::mem::take(&mut current).trim().to_string());
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        types.push(current.trim().to_string());
    }
    if types.len() != operand_count {
        return None;
    }
    let args: Vec<String> = types
        .iter()
        .enumerate()
        .map(|(i, t)| format!("%a{i}: {t}"))
        .collect();
    let names: Vec<String> = (0..types.len()).map(|i| format!("%a{i}")).collect();
    let op = format!(
        "{}({}){}",
        &rest[..operands_start],
        names.join(", "),
        &rest[operands_end + 1..]
    );
    Some(format!(
        "func.func @f{k}({}) -> {result} {{\n  %r = {op}\n  return %r : {result}\n}}\n",
        args.join(", ")
    ))
}

/// Every error a tool prints must be located (`file:line:col: error:`), or be the
/// tool's own one-line summary after located errors.
fn unlocated_errors(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| l.contains("error:"))
        .filter(|l| {
            let located = l.split(": error:").next().is_some_and(|head| {
                let mut parts = head.rsplitn(3, ':');
                let col = parts.next().unwrap_or_default();
                let line = parts.next().unwrap_or_default();
                !col.is_empty()
                    && col.chars().all(|c| c.is_ascii_digit())
                    && line.chars().all(|c| c.is_ascii_digit())
            });
            !located
        })
        .map(str::to_string)
        .collect()
}

/// Every aten op of `test/Dialect/Aten/ops.mlir`, with each of its sizes and integer
/// attributes replaced in turn by each extreme value, through parsing, verification,
/// both fusion pipelines and the CPU code generator: exit 0 or 1 with located errors,
/// never a panic (101), an abort (134) or a signal.
#[test]
fn extreme_shapes_and_attributes_never_crash() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ops = std::fs::read_to_string(root.join("test/Dialect/Aten/ops.mlir")).expect("ops.mlir");
    let mut chunks = Vec::new();
    let mut covered = std::collections::BTreeSet::new();
    for line in ops
        .lines()
        .filter(|l| l.trim_start().starts_with('%') && l.contains("\"aten."))
    {
        if let Some(name) = line.split('"').nth(1) {
            covered.insert(name.to_string());
        }
        for (start, end) in numeric_tokens(line) {
            for value in EXTREMES {
                let variant = format!("{}{value}{}", &line[..start], &line[end..]);
                if let Some(f) = function_of(&variant, chunks.len()) {
                    chunks.push(f);
                }
            }
        }
    }
    assert!(covered.len() >= 55, "ops covered: {covered:?}");
    assert!(chunks.len() >= 500, "only {} variants", chunks.len());
    let dir = std::env::temp_dir().join(format!("fuselab-extreme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("extreme.mlir");
    std::fs::write(&path, chunks.join("\n// -----\n")).expect("write");
    let p = path.to_string_lossy().to_string();
    let mut failures = Vec::new();
    for pipeline in [
        &[
            "--aten-decompose",
            "--lower-aten-to-loop",
            "--inline-pointwise",
            "--inductor-fuse",
            "--lower-loop-to-cpu",
        ][..],
        &[
            "--aten-decompose",
            "--lower-aten-to-loop=materialize-views=true",
            "--tvm-fuse-ops",
        ][..],
    ] {
        let mut args = vec![p.as_str(), "--split-input-file", "-o", "/dev/null"];
        args.extend_from_slice(pipeline);
        let output = Command::new(env!("CARGO_BIN_EXE_fuse-opt"))
            .args(&args)
            .output()
            .expect("run fuse-opt");
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !matches!(output.status.code(), Some(0 | 1)) {
            failures.push(format!(
                "{pipeline:?} ended with {:?}:\n{stderr}",
                output.status.code()
            ));
        }
        let unlocated = unlocated_errors(&stderr);
        if !unlocated.is_empty() {
            failures.push(format!(
                "{pipeline:?}: errors without a location:\n{}",
                unlocated.join("\n")
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The helpers above find what they should: tokens of sizes and attributes but not of
/// names or floats, and located vs unlocated errors.
#[test]
fn extreme_variant_helpers_pick_sizes_and_attributes() {
    let line = r#"  %1 = "aten.mean"(%x) {dims = array<i64: -1, 1>, eps = 1.0e-05 : f64} : (tensor<2x3xbf16>) -> tensor<2xf32>"#;
    let tokens: Vec<&str> = numeric_tokens(line)
        .into_iter()
        .map(|(s, e)| &line[s..e])
        .collect();
    assert_eq!(tokens, ["-1", "1", "2", "3", "2"]);
    let f = function_of(line, 7).expect("function");
    assert!(
        f.starts_with("func.func @f7(%a0: tensor<2x3xbf16>) -> tensor<2xf32> {"),
        "{f}"
    );
    assert!(f.contains(r#"%r = "aten.mean"(%a0) {dims"#), "{f}");
    assert_eq!(
        unlocated_errors("a.mlir:3:5: error: bad\nfuse-opt: error: boom\nnote: x"),
        ["fuse-opt: error: boom"]
    );
}

/// Extreme arguments and an unwritable stdout end in an error (exit 1), never a panic
/// (issue 13, item 13): `--runs 2^64-1`, `--seed 2^64-1`, `> /dev/full`.
#[test]
fn extreme_arguments_and_full_stdout_are_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let relu = root
        .join("test/Execution/Inputs/relu-inf.mlir")
        .to_string_lossy()
        .to_string();
    let max = u64::MAX.to_string();
    let run = |tool: &str, args: &[&str], full: bool| {
        let mut command = Command::new(tool);
        command.args(args);
        if full {
            let sink = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full");
            command.stdout(sink);
        }
        let output = command.output().expect("run");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).to_string(),
        )
    };
    let (fuse_run, fuse_fuzz, fuse_bench, fuse_opt) = (
        env!("CARGO_BIN_EXE_fuse-run"),
        env!("CARGO_BIN_EXE_fuse-fuzz"),
        env!("CARGO_BIN_EXE_fuse-bench"),
        env!("CARGO_BIN_EXE_fuse-opt"),
    );
    // (tool, arguments, stdout is /dev/full, expected exit, expected stderr text)
    type Case<'a> = (&'a str, Vec<&'a str>, bool, Option<i32>, &'a str);
    let cases: Vec<Case> = vec![
        (
            fuse_run,
            vec![relu.as_str(), "--bench", "--runs", &max],
            false,
            Some(1),
            "--runs expects an integer",
        ),
        (fuse_run, vec![relu.as_str(), "--seed", &max], false, Some(0), ""),
        (
            fuse_run,
            vec![relu.as_str()],
            true,
            Some(1),
            "cannot write output",
        ),
        (
            fuse_fuzz,
            vec!["--count", "2", "--seed", &max],
            false,
            Some(0),
            "",
        ),
        (
            fuse_fuzz,
            vec!["--count", "1"],
            true,
            Some(1),
            "cannot write output",
        ),
        (
            fuse_bench,
            vec!["--sizes", "10", "--runs", &max],
            false,
            Some(1),
            "--runs expects an integer",
        ),
        (
            fuse_bench,
            vec!["--sizes", "10", "--runs", "1", "--graphs", "chain"],
            true,
            Some(1),
            "cannot write output",
        ),
        (
            fuse_opt,
            vec![relu.as_str()],
            true,
            Some(1),
            "cannot write output",
        ),
    ];
    let mut failures = Vec::new();
    for (tool, args, full, want, message) in cases {
        let (code, stderr) = run(tool, &args, full);
        if code != want || !stderr.contains(message) {
            failures.push(format!(
                "{tool} {args:?} (stdout full: {full}): exit {code:?}, stderr:\n{stderr}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A reader that closes the pipe early ends the tool quietly, as command-line tools end
/// (the default SIGPIPE): `fuse-opt --inductor-fuse --fusion-report=- | (exit)` was an
/// "internal error in a fuselab pass: failed printing to stdout: Broken pipe" with a
/// panic backtrace.
#[test]
fn a_closed_pipe_ends_the_tools_quietly() {
    use std::os::unix::process::ExitStatusExt as _;
    use std::process::Stdio;
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/seed_10op.mlir");
    let runs: [(&str, Vec<&str>); 3] = [
        (
            env!("CARGO_BIN_EXE_fuse-opt"),
            vec![example, "--inductor-fuse", "--fusion-report=-", "-o", "/dev/null"],
        ),
        (env!("CARGO_BIN_EXE_fuse-opt"), vec![example, "--inductor-fuse"]),
        (env!("CARGO_BIN_EXE_fuse-opt"), vec!["--help"]),
    ];
    for (tool, args) in runs {
        let mut child = Command::new(tool)
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // Close the reading end before the tool writes.
        drop(child.stdout.take());
        let output = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let quiet = output.status.signal() == Some(libc::SIGPIPE) || output.status.code() == Some(0);
        assert!(quiet, "{args:?}: {:?}\n{stderr}", output.status);
        assert!(
            !stderr.contains("internal error") && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
    }
}
