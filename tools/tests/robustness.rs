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
