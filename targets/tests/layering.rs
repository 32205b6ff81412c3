//! The targets crate's layering, checked on the source (docs/architecture.md,
//! "Dependency rules"): a target's folder (`cpu/`, `gpu/`, `ascend/`, `spyre/`) names no
//! other target's modules, and the conversions several targets share (`lower_loop_to_tile/`,
//! `math.rs`) name none. What two targets both need lives beside them, not in one of
//! them (the Ascend lowering once imported `crate::gpu::lower_loop_to_tile`). Only
//! `lib.rs`, the table of targets, names them all.

use std::path::{Path, PathBuf};

/// The target folders of `targets/src`.
const TARGETS: &[&str] = &["cpu", "gpu", "ascend", "spyre"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a readable source folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The violations in one file: `relative` is its path under `src` (`gpu/ptx.rs`),
/// `text` its source; each as `path:line: text`.
fn violations(relative: &str, text: &str) -> Vec<String> {
    if relative == "lib.rs" {
        return Vec::new();
    }
    let home = relative.split('/').next().unwrap_or_default();
    let forbidden: Vec<String> = TARGETS
        .iter()
        .filter(|&&t| t != home)
        .map(|t| format!("crate::{t}::"))
        .collect();
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or_default();
            forbidden.iter().any(|f| code.contains(f.as_str()))
        })
        .map(|(i, line)| format!("{relative}:{}: {}", i + 1, line.trim()))
        .collect()
}

#[test]
fn no_target_names_another_and_shared_conversions_name_none() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 50, "found only {} files under {src:?}", files.len());
    let found: Vec<String> = files
        .iter()
        .flat_map(|path| {
            let relative = path
                .strip_prefix(&src)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(path).expect("a readable source file");
            violations(&relative, &text)
        })
        .collect();
    assert!(found.is_empty(), "layering violations:\n{}", found.join("\n"));
}

#[test]
fn the_rule_catches_a_cross_target_import() {
    let ascend = "use crate::gpu::lower_tile_to_gpu::KERNEL_MODULE;\n";
    assert_eq!(
        violations("ascend/lower_loop_to_ascend/mod.rs", ascend),
        ["ascend/lower_loop_to_ascend/mod.rs:1: use crate::gpu::lower_tile_to_gpu::KERNEL_MODULE;"]
    );
    let shared = "fn f() { crate::cpu::jit::run(); }\n";
    assert_eq!(violations("lower_loop_to_tile/kernel.rs", shared).len(), 1);
    // A target's own modules, the table in lib.rs and comments are fine.
    assert!(violations("gpu/ptx.rs", "use crate::gpu::bundle::Plan;\n").is_empty());
    assert!(violations("lib.rs", "pub use crate::gpu::GPU;\n").is_empty());
    assert!(violations("spyre/mod.rs", "// see crate::gpu::ptx\n").is_empty());
}
