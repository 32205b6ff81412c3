//! The architecture rules that no crate boundary enforces, checked on the source
//! (docs/architecture.md, "Dependency rules"):
//! - an analysis imports no transform, conversion, fusion strategy or target;
//! - a transform imports no conversion and no fusion strategy;
//! - the core never names the targets crate (its Cargo.toml has no such dependency;
//!   this also keeps doc links and paths honest);
//! - no Rust source file of the workspace is over [`MAX_LINES`] lines.

use std::path::{Path, PathBuf};

/// The longest a source file may be.
pub const MAX_LINES: usize = 800;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The `use`/path mentions in `text` of modules that `forbidden` names, as
/// `line: text` strings.
fn mentions(text: &str, forbidden: &[&str]) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or_default();
            forbidden.iter().any(|f| code.contains(f))
        })
        .map(|(i, line)| format!("{}: {}", i + 1, line.trim()))
        .collect()
}

/// Every violation of the rules in the crate rooted at `src` (and the workspace at
/// `workspace`, for file sizes).
fn violations(src: &Path, workspace: &Path) -> Vec<String> {
    let rules: &[(&str, &[&str])] = &[
        (
            "analysis",
            &[
                "crate::transforms",
                "crate::conversion",
                "crate::fusion",
                "crate::target",
                "super::super::",
            ],
        ),
        (
            "transforms",
            &["crate::conversion", "crate::fusion", "super::super::"],
        ),
        ("", &["fuselab_targets"]),
    ];
    let mut found = Vec::new();
    for (dir, forbidden) in rules {
        let mut files = Vec::new();
        rust_files(&src.join(dir), &mut files);
        for file in files {
            if file.ends_with("layering.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for hit in mentions(&text, forbidden) {
                found.push(format!("{}:{hit}", file.display()));
            }
        }
    }
    let mut all = Vec::new();
    rust_files(workspace, &mut all);
    for file in all {
        let lines = std::fs::read_to_string(&file)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines > MAX_LINES {
            found.push(format!("{}: {lines} lines (at most {MAX_LINES})", file.display()));
        }
    }
    found
}

#[test]
fn the_tree_keeps_the_dependency_rules_and_file_sizes() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = violations(&manifest.join("src"), manifest.parent().unwrap_or(manifest));
    assert!(
        found.is_empty(),
        "architecture rules broken:\n{}",
        found.join("\n")
    );
}

/// The checker finds what it is for: a forbidden import in an analysis and an
/// oversized file, in a tree made for the test.
#[test]
fn the_checker_catches_a_forbidden_import_and_a_long_file() {
    let root = std::env::temp_dir().join(format!("fuselab-layering-{}", std::process::id()));
    let analysis = root.join("src/analysis");
    std::fs::create_dir_all(&analysis).expect("temp dir");
    std::fs::write(
        analysis.join("ok.rs"),
        "use crate::analysis::memory_deps;\n// crate::fusion in a comment\n",
    )
    .expect("write");
    std::fs::write(
        analysis.join("bad.rs"),
        "use crate::transforms::inline_pointwise;\n",
    )
    .expect("write");
    std::fs::write(root.join("src/long.rs"), "fn f() {}\n".repeat(MAX_LINES + 1)).expect("write");
    let found = violations(&root.join("src"), &root);
    let _ = std::fs::remove_dir_all(&root);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].contains("bad.rs:1: use crate::transforms::inline_pointwise;"),
        "{found:?}"
    );
    assert!(found[1].contains("long.rs: 801 lines"), "{found:?}");
}
