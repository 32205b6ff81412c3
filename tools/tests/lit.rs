//! The lit-like test harness: every `test/**/*.mlir` file is one test case.
//!
//! Each `// RUN:` line (with `\` continuations) is a shell-like pipeline. The harness
//! substitutes `%s` (this file), `%S` (its folder), `%t` (a scratch path), `%dialects`
//! (the IRDL folder), maps tool names to binaries (`fuse-opt`, `fuse-import`, `fuse-gpu` from this build,
//! `mlir-opt` from LLVM 22), runs `FileCheck` in process (litcheck-filecheck, LLVM's
//! directive syntax), and supports `|`, `not`, `env NAME=VALUE`, `2>&1` and `> file`. As in lit with
//! pipefail, every stage of a pipeline must succeed. `not` inverts the exit status but
//! still fails on a crash or a Rust panic (exit 101): bad input must be an error, not
//! a panic. The same files run under LLVM's own `lit` with `test/lit.cfg.py`.

use libtest_mimic::{Arguments, Failed, Trial};
use litcheck_filecheck::{
    litcheck::diagnostics::{FileName, SourceLanguage},
    Config as FileCheckConfig, Options as FileCheckOptions, Test as FileCheckTest,
};
use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

const LLVM_BIN: &str = "/usr/lib/llvm-22/bin";

fn repo_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    fs::canonicalize(&root).unwrap_or(root)
}

fn collect_tests(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "Inputs" && n != "Output") {
                collect_tests(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "mlir") {
            out.push(path);
        }
    }
}

/// RUN lines of a test file, continuations joined.
fn run_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        let Some(pos) = line.find("RUN:") else { continue };
        if !line[..pos].trim_start().starts_with("//") {
            continue;
        }
        let body = line[pos + 4..].trim();
        if let Some(stripped) = body.strip_suffix('\\') {
            pending.push_str(stripped);
            pending.push(' ');
        } else {
            pending.push_str(body);
            lines.push(std::mem::take(&mut pending));
        }
    }
    lines
}

struct Env {
    file: PathBuf,
    tmp: PathBuf,
}

impl Env {
    fn substitute(&self, command: &str) -> String {
        let dir = self.file.parent().unwrap_or(Path::new("."));
        command
            .replace("%dialects", &repo_root().join("dialects").display().to_string())
            .replace("%s", &self.file.display().to_string())
            .replace("%S", &dir.display().to_string())
            .replace("%t", &self.tmp.display().to_string())
    }
}

/// Splits on `|` outside quotes.
fn split_pipeline(command: &str) -> Vec<String> {
    let mut stages = vec![String::new()];
    let mut quote = None;
    for c in command.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if q == c => quote = None,
            (None, '|') => {
                stages.push(String::new());
                continue;
            }
            _ => {}
        }
        stages.last_mut().expect("non-empty").push(c);
    }
    stages
}

struct StageOutput {
    stdout: Vec<u8>,
    status: Result<(), String>,
}

fn run_filecheck(args: &[String], input: &[u8]) -> StageOutput {
    let mut flags = Vec::new();
    let mut check_file = None;
    let mut input_file = None;
    let takes_value = [
        "--check-prefix",
        "--check-prefixes",
        "--comment-prefixes",
        "--implicit-check-not",
        "-D",
        "--dump-input",
        "--dump-input-filter",
    ];
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--input-file" {
            input_file = args.get(i + 1).cloned();
            i += 2;
            continue;
        }
        if let Some(path) = arg.strip_prefix("--input-file=") {
            input_file = Some(path.to_string());
        } else if arg.starts_with('-') {
            flags.push(arg.clone());
            if takes_value.contains(&arg.as_str()) {
                if let Some(value) = args.get(i + 1) {
                    flags.push(value.clone());
                    i += 1;
                }
            }
        } else {
            check_file = Some(arg.clone());
        }
        i += 1;
    }
    let fail = |message: String| StageOutput {
        stdout: Vec::new(),
        status: Err(message),
    };
    let Some(check_file) = check_file else {
        return fail("FileCheck: no check file given".into());
    };
    let options = match <FileCheckOptions as clap::Parser>::try_parse_from(&flags) {
        Ok(options) => options,
        Err(e) => return fail(format!("FileCheck: bad options {flags:?}: {e}")),
    };
    let input = match &input_file {
        Some(path) => match fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) => return fail(format!("FileCheck: cannot read input file {path}: {e}")),
        },
        None => input.to_vec(),
    };
    let checks = match fs::read_to_string(&check_file) {
        Ok(text) => text,
        Err(e) => return fail(format!("FileCheck: cannot read {check_file}: {e}")),
    };
    let mut config = FileCheckConfig {
        options,
        ..Default::default()
    };
    config.options.color = clap::ColorChoice::Never;
    let checks = config.source_manager().load(
        SourceLanguage::Unknown,
        FileName::from(check_file.clone()),
        checks,
    );
    let input_text = String::from_utf8_lossy(&input).into_owned();
    let input = config.source_manager().load(
        SourceLanguage::Unknown,
        FileName::from("<stdin>".to_string()),
        input_text.clone(),
    );
    match FileCheckTest::new(checks, &config).verify(input) {
        Ok(_) => StageOutput {
            stdout: Vec::new(),
            status: Ok(()),
        },
        Err(report) => fail(format!(
            "FileCheck failed:\n{report:?}\n--- FileCheck input ---\n{input_text}"
        )),
    }
}

fn run_stage(stage: &str, input: &[u8]) -> StageOutput {
    let fail = |message: String| StageOutput {
        stdout: Vec::new(),
        status: Err(message),
    };
    let Some(mut words) = shlex::split(stage) else {
        return fail(format!("cannot tokenize '{stage}'"));
    };
    let mut invert = false;
    while words.first().is_some_and(|w| w == "not") {
        words.remove(0);
        invert = !invert;
    }
    // `env NAME=VALUE... command`: the command runs with those variables set.
    let mut envs = Vec::new();
    if words.first().is_some_and(|w| w == "env") {
        words.remove(0);
        while let Some((name, value)) = words.first().and_then(|w| w.split_once('=')) {
            envs.push((name.to_string(), value.to_string()));
            words.remove(0);
        }
    }
    let mut merge_stderr = false;
    let mut redirect = None;
    let mut stderr_file = None;
    let mut args = Vec::new();
    let mut iter = words.into_iter();
    while let Some(word) = iter.next() {
        match word.as_str() {
            "2>&1" => merge_stderr = true,
            ">" => redirect = iter.next(),
            "2>" => stderr_file = iter.next(),
            w if w.starts_with("2>") => stderr_file = Some(w[2..].to_string()),
            w if w.starts_with('>') => redirect = Some(w[1..].to_string()),
            _ => args.push(word),
        }
    }
    let Some(program) = args.first().cloned() else {
        return fail("empty command".into());
    };
    let rest = args[1..].to_vec();
    let mut result = if program == "FileCheck" {
        run_filecheck(&rest, input)
    } else {
        let binary = match program.as_str() {
            "fuse-opt" => PathBuf::from(env!("CARGO_BIN_EXE_fuse-opt")),
            "fuse-import" => PathBuf::from(env!("CARGO_BIN_EXE_fuse-import")),
            "fuse-run" => PathBuf::from(env!("CARGO_BIN_EXE_fuse-run")),
            "fuse-gpu" => PathBuf::from(env!("CARGO_BIN_EXE_fuse-gpu")),
            "fuse-fuzz" => PathBuf::from(env!("CARGO_BIN_EXE_fuse-fuzz")),
            "fuse-bench" => PathBuf::from(env!("CARGO_BIN_EXE_fuse-bench")),
            "mlir-opt" => Path::new(LLVM_BIN).join("mlir-opt"),
            "cat" | "head" | "true" | "false" | "echo" | "diff" | "cmp" | "sed" | "python3" => {
                PathBuf::from(&program)
            }
            other => return fail(format!("unknown tool '{other}' in RUN line")),
        };
        run_process(&binary, &rest, &envs, input, merge_stderr, stderr_file.as_deref())
    };
    if invert {
        result.status = match result.status {
            Ok(()) => Err(format!(
                "'not {program}' expected a failure, but the command succeeded"
            )),
            Err(message) if message.contains("(crash)") || message.contains("(panic)") => Err(message),
            Err(_) => Ok(()),
        };
    }
    if let Some(path) = redirect {
        if let Err(e) = fs::write(&path, &result.stdout) {
            return fail(format!("cannot write {path}: {e}"));
        }
        result.stdout.clear();
    }
    result
}

fn run_process(
    binary: &Path,
    args: &[String],
    envs: &[(String, String)],
    input: &[u8],
    merge_stderr: bool,
    stderr_file: Option<&str>,
) -> StageOutput {
    let fail = |message: String| StageOutput {
        stdout: Vec::new(),
        status: Err(message),
    };
    // stdout (and stderr with 2>&1) go to one file, so they interleave as in a shell.
    let out_path = std::env::temp_dir().join(format!("fuselab-lit-{}-{}.out", std::process::id(), unique()));
    let out_file = match fs::File::create(&out_path) {
        Ok(f) => f,
        Err(e) => return fail(format!("cannot create {}: {e}", out_path.display())),
    };
    let stderr = if merge_stderr {
        match out_file.try_clone() {
            Ok(f) => Stdio::from(f),
            Err(e) => return fail(format!("cannot dup output file: {e}")),
        }
    } else if let Some(path) = stderr_file {
        match fs::File::create(path) {
            Ok(f) => Stdio::from(f),
            Err(e) => return fail(format!("cannot create {path}: {e}")),
        }
    } else {
        Stdio::piped()
    };
    let child = Command::new(binary)
        .args(args)
        .envs(envs.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::from(out_file))
        .stderr(stderr)
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return fail(format!("cannot run {}: {e}", binary.display())),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    let output = match child.wait_with_output() {
        Ok(o) => o,
        Err(e) => return fail(format!("waiting for {}: {e}", binary.display())),
    };
    let stdout = fs::read(&out_path).unwrap_or_default();
    let _ = fs::remove_file(&out_path);
    let stderr_text = String::from_utf8_lossy(&output.stderr).into_owned();
    let status = match output.status.code() {
        Some(0) => Ok(()),
        Some(101) => Err(format!(
            "{} exited with 101 (panic):\n{stderr_text}",
            binary.display()
        )),
        Some(code) => Err(format!("{} exited with {code}:\n{stderr_text}", binary.display())),
        None => Err(format!(
            "{} was killed by a signal (crash):\n{stderr_text}",
            binary.display()
        )),
    };
    StageOutput { stdout, status }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn run_test(file: &Path) -> Result<(), Failed> {
    let text = fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let lines = run_lines(&text);
    if lines.is_empty() {
        return Err(format!("{}: no RUN lines", file.display()).into());
    }
    let tmp_dir = repo_root().join("target").join("lit-tmp");
    fs::create_dir_all(&tmp_dir).map_err(|e| format!("cannot create {}: {e}", tmp_dir.display()))?;
    let stem = file
        .strip_prefix(repo_root().join("test"))
        .unwrap_or(file)
        .display()
        .to_string()
        .replace('/', "_");
    let env = Env {
        file: file.to_path_buf(),
        tmp: tmp_dir.join(format!("{stem}.tmp")),
    };
    for (index, line) in lines.iter().enumerate() {
        let command = env.substitute(line);
        let mut data = Vec::new();
        for stage in split_pipeline(&command) {
            let output = run_stage(stage.trim(), &data);
            if let Err(message) = output.status {
                return Err(format!(
                    "RUN line {} failed: {command}\n  at stage: {}\n{message}",
                    index + 1,
                    stage.trim()
                )
                .into());
            }
            data = output.stdout;
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let root = repo_root().join("test");
    let mut files = Vec::new();
    collect_tests(&root, &mut files);
    let trials = files
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(&root).unwrap_or(&path).display().to_string();
            Trial::test(name, move || run_test(&path))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
