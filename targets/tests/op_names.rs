//! Op names of the device dialects are written once, in their dialect modules
//! (`fuselab_dialects::tile::names`, `fuselab_dialects::ascend::names`, each tested
//! against its IRDL file): no `"tile.…"` or `"ascend.…"` string literal in the Rust
//! sources of the crates that build or read those dialects. MLIR text in tests (an op in
//! generic form, `"tile.launch"() (…`) and prose naming an op inside a longer message
//! are not op-name literals.

use std::path::{Path, PathBuf};

/// The crates whose sources are checked, relative to the workspace root.
const CRATES: &[&str] = &["targets", "exec", "passes", "tools"];
/// The dialects whose names live in a module of their own.
const DIALECTS: &[&str] = &["tile", "ascend"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The op-name literals of one file's `text`, each as `line: text`.
fn literals(text: &str) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.split("//").next().unwrap_or_default();
            DIALECTS.iter().any(|d| {
                let open = format!("\"{d}.");
                code.match_indices(&open).any(|(at, _)| {
                    let escaped = code[..at].ends_with('\\');
                    let rest = &code[at + open.len()..];
                    let name_len = rest
                        .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
                        .unwrap_or(rest.len());
                    let after = &rest[name_len..];
                    // A whole literal ("tile.load", or the bare prefix "tile."), not
                    // MLIR text ("tile.load"(...) or the start of a message.
                    !escaped && after.starts_with('"') && !after[1..].starts_with('(')
                })
            })
        })
        .map(|(i, line)| format!("{}: {}", i + 1, line.trim()))
        .collect()
}

#[test]
fn device_op_names_come_from_the_dialect_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in CRATES {
        rust_files(&root.join(krate).join("src"), &mut files);
        rust_files(&root.join(krate).join("tests"), &mut files);
    }
    assert!(files.len() > 100, "found only {} files", files.len());
    let found: Vec<String> = files
        .iter()
        .flat_map(|path| {
            let text = std::fs::read_to_string(path).expect("a readable source file");
            literals(&text)
                .into_iter()
                .map(move |l| format!("{}:{l}", path.display()))
        })
        .collect();
    assert!(
        found.is_empty(),
        "op-name literals outside the dialect modules:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_rule_catches_an_op_name_literal() {
    assert_eq!(literals("if name == \"tile.launch\" {\n").len(), 1);
    assert_eq!(literals("x.replacen(\"tile.\", \"ascend.\", 1)\n").len(), 1);
    assert_eq!(literals("    \"ascend.copy_in\" => {}\n").len(), 1);
    // MLIR text, a message naming an op, a comment and the names module's use are fine.
    assert!(literals("    \"tile.launch\"() ({{\n").is_empty());
    assert!(literals("r#\"%0 = \\\"tile.load\\\"(%a)\"#\n").is_empty());
    assert!(literals("fail(op, \"tile.transpose needs a shape\")\n").is_empty());
    assert!(literals("// \"tile.load\" is read here\n").is_empty());
    assert!(literals("n == tile_op::LAUNCH\n").is_empty());
}
