//! The targets crate's layering, checked on the source (docs/architecture.md,
//! "Dependency rules"): a target's folder (`cpu/`, `gpu/`, `ascend/`, `spyre/`) names no
//! other target's modules, and the conversions several targets share (`lower_loop_to_tile/`,
//! `math.rs`) name none. What two targets both need lives beside them, not in one of
//! them (the Ascend lowering once imported `crate::gpu::lower_loop_to_tile`). Only
//! `lib.rs`, the table of targets, names them all.
//!
//! Two workspace-wide rules live here too, checked on every crate's source: no module
//! cycle inside a crate (`no_crate_has_a_module_cycle`), and device op names only from
//! their dialect modules (`device_op_names_come_from_the_dialect_modules`).

use std::path::{Path, PathBuf};

/// The target folders of `targets/src`.
const TARGETS: &[&str] = &["cpu", "gpu", "ascend", "spyre"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    // A crate without a `tests` folder has nothing to list.
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
    let sources = crate_sources("targets");
    assert!(
        sources.len() > 50,
        "found only {} files under targets/src",
        sources.len()
    );
    let found: Vec<String> = sources
        .iter()
        .flat_map(|(relative, text)| violations(relative, text))
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

/// The crates of the workspace whose module graphs must be acyclic.
const CRATES: &[&str] = &[
    "dialects", "passes", "exec", "targets", "import", "report", "tools", "python",
];

/// A crate's module path of a source file relative to its `src` (`cpu/blas.rs` ->
/// `cpu::blas`, `cpu/mod.rs` -> `cpu`, `lib.rs` -> the root, "").
fn module_of(relative: &str) -> String {
    let stem = relative.trim_end_matches(".rs");
    let mut parts: Vec<&str> = stem.split('/').collect();
    if matches!(parts.last(), Some(&("mod" | "lib" | "main"))) {
        parts.pop();
    }
    parts.join("::")
}

/// Expands one `use` tree (`a::{b, c::{d, e}}`, whitespace removed) into its paths.
fn expand_use(tree: &str) -> Vec<String> {
    let Some(open) = tree.find('{') else {
        return vec![tree.to_string()];
    };
    let (prefix, inner) = (&tree[..open], &tree[open + 1..]);
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&inner[start..i]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items
        .into_iter()
        .filter(|item| !item.is_empty())
        .flat_map(|item| expand_use(item).into_iter().map(move |p| format!("{prefix}{p}")))
        .collect()
}

/// The modules `module` (source `text`) refers to through `crate::` and `super::`
/// paths, in `use` items and in code, resolved to the longest known module; test modules
/// (from `#[cfg(test)] mod`), comments, the module itself and its ancestors (a child
/// reading its parent's items) are left out.
fn references(module: &str, text: &str, modules: &std::collections::BTreeSet<String>) -> Vec<String> {
    let code: String = text
        .split("#[cfg(test)]\nmod ")
        .next()
        .unwrap_or_default()
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let mut paths: Vec<String> = Vec::new();
    // `use` items, their trees expanded.
    for item in code.split("use ").skip(1) {
        let tree: String = item
            .split(';')
            .next()
            .unwrap_or_default()
            .replace(" as ", "@")
            .split_whitespace()
            .collect();
        if tree.starts_with("crate::") || tree.starts_with("super::") {
            paths.extend(expand_use(&tree));
        }
    }
    // Paths written in code.
    for start in ["crate::", "super::"] {
        for (at, _) in code.match_indices(start) {
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|&c| c.is_alphanumeric() || c == '_' || c == ':')
                .collect();
            paths.push(path);
        }
    }
    let own: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    let mut out = Vec::new();
    for path in paths {
        let mut parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        let mut base: Vec<&str> = Vec::new();
        if parts.first() == Some(&"crate") {
            parts.remove(0);
        } else {
            base = own.clone();
            while parts.first() == Some(&"super") {
                parts.remove(0);
                base.pop();
            }
        }
        let full: Vec<&str> = base
            .into_iter()
            .chain(parts.into_iter().filter(|p| *p != "self" && *p != "*"))
            .map(|p| p.split('@').next().unwrap_or(p))
            .collect();
        let target = (0..=full.len())
            .rev()
            .map(|n| full[..n].join("::"))
            .find(|m| modules.contains(m))
            .unwrap_or_default();
        let ancestor = target.is_empty() || module == target || module.starts_with(&format!("{target}::"));
        if !ancestor && !out.contains(&target) {
            out.push(target);
        }
    }
    out
}

/// A cycle of the module graph (`edges`: module -> the modules it refers to), as the
/// modules on it, first repeated at the end; `None` when acyclic.
fn find_cycle(edges: &std::collections::BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        edges: &std::collections::BTreeMap<String, Vec<String>>,
        state: &mut std::collections::BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(m.to_string(), 1);
        stack.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = stack.iter().position(|s| s == next).unwrap_or(0);
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(cycle) = visit(next, edges, state, stack) {
                        return Some(cycle);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(m.to_string(), 2);
        None
    }
    let mut state = std::collections::BTreeMap::new();
    for m in edges.keys() {
        if state.get(m.as_str()).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(cycle) = visit(m, edges, &mut state, &mut stack) {
                return Some(cycle);
            }
        }
    }
    None
}

/// The module graph of a crate from its sources (`relative path -> text`).
fn module_graph(sources: &[(String, String)]) -> std::collections::BTreeMap<String, Vec<String>> {
    let modules: std::collections::BTreeSet<String> = sources.iter().map(|(p, _)| module_of(p)).collect();
    sources
        .iter()
        .map(|(path, text)| {
            let module = module_of(path);
            let refs = references(&module, text, &modules);
            (module, refs)
        })
        .collect()
}

/// A crate's sources (`relative path -> text`).
fn crate_sources(krate: &str) -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(!files.is_empty(), "no sources under {src:?}");
    files
        .iter()
        .map(|path| {
            let relative = path
                .strip_prefix(&src)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            (
                relative,
                std::fs::read_to_string(path).expect("a readable source file"),
            )
        })
        .collect()
}

#[test]
fn no_crate_has_a_module_cycle() {
    for krate in CRATES {
        let graph = module_graph(&crate_sources(krate));
        if let Some(cycle) = find_cycle(&graph) {
            panic!("crate {krate} has a module cycle: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_cycle_check_catches_an_injected_cycle() {
    let sources = |extra: &str| {
        vec![
            (
                "lib.rs".to_string(),
                "pub mod cpu;\npub mod attrs;\npub mod ir;\n".to_string(),
            ),
            (
                "cpu/mod.rs".to_string(),
                "pub mod blas;\npub mod jit;\nuse blas::X;\n".to_string(),
            ),
            (
                "cpu/blas.rs".to_string(),
                "use super::super::attrs::{A, B as C};\nuse super::Y;\n".to_string(),
            ),
            (
                "cpu/jit.rs".to_string(),
                "use super::{blas::{self, X}, Y};\nfn f() { crate::ir::g(); }\n".to_string(),
            ),
            (
                "attrs.rs".to_string(),
                format!("// crate::ir::h is not a use\n{extra}"),
            ),
            ("ir.rs".to_string(), "use crate::attrs;\n".to_string()),
        ]
    };
    let graph = module_graph(&sources(""));
    assert_eq!(graph["cpu::jit"], ["cpu::blas", "ir"]);
    assert_eq!(graph["cpu::blas"], ["attrs"]);
    assert_eq!(
        graph["cpu"],
        Vec::<String>::new(),
        "a parent's children are not its ancestors' edges"
    );
    assert_eq!(find_cycle(&graph), None);
    // ir -> attrs, attrs -> ir: the two-module cycle the dialects crate once had.
    let cyclic = module_graph(&sources("pub fn f() { crate::ir::owned_string(); }\n"));
    assert_eq!(
        find_cycle(&cyclic),
        Some(vec!["attrs".into(), "ir".into(), "attrs".into()])
    );
    // A longer one through a `use` tree.
    let longer = module_graph(&sources("use crate::{cpu::jit::Jit, types};\n"));
    let cycle = find_cycle(&longer).expect("attrs -> cpu::jit -> ir -> attrs");
    assert_eq!(cycle.first(), cycle.last());
    assert!(cycle.contains(&"cpu::jit".to_string()), "{cycle:?}");
}

// ---- Op names ----
// Op names of the device dialects are written once, in their dialect modules
// (`fuselab_dialects::tile::names`, `fuselab_dialects::ascend::names`, each tested
// against its IRDL file): no `"tile.…"` or `"ascend.…"` string literal in the Rust
// sources of the crates that build or read those dialects. MLIR text in tests (an op in
// generic form, `"tile.launch"() (…`) and prose naming an op inside a longer message
// are not op-name literals.

/// The crates whose sources (and tests) are checked for op-name literals.
const LITERAL_CRATES: &[&str] = &["targets", "exec", "passes", "tools"];
/// The dialects whose names live in a module of their own.
const DIALECTS: &[&str] = &["tile", "ascend"];

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
    for krate in LITERAL_CRATES {
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

/// The tools crate's commands (one module per `fuse-*` binary, and the Python
/// extension's `compile`).
const COMMANDS: &[&str] = &["bench", "compile", "fuzz", "gpu", "import", "opt", "run"];

/// The edges between commands in `graph` that the rule refuses: a command may use the
/// driver (`driver`: strategies, pipelines, pass manager, stages) and the small shared
/// modules, never another command, except `fuzz -> run` (fuse-fuzz's check is
/// fuse-run's check on generated graphs).
fn command_edges(graph: &std::collections::BTreeMap<String, Vec<String>>) -> Vec<String> {
    let top = |m: &str| m.split("::").next().unwrap_or("").to_string();
    let mut out = Vec::new();
    for (from, refs) in graph {
        let a = top(from);
        if !COMMANDS.contains(&a.as_str()) {
            continue;
        }
        for to in refs {
            let b = top(to);
            if b != a && COMMANDS.contains(&b.as_str()) && !(a == "fuzz" && b == "run") {
                out.push(format!("{from} -> {to}"));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn tools_commands_depend_on_the_driver_not_on_each_other() {
    let graph = module_graph(&crate_sources("tools"));
    assert!(
        graph.contains_key("driver"),
        "the tools crate has a driver module"
    );
    let edges = command_edges(&graph);
    assert!(edges.is_empty(), "commands that use another command: {edges:?}");
}

#[test]
fn the_command_rule_catches_a_command_using_another() {
    let mut sources = vec![
        ("driver/mod.rs".to_string(), "pub fn f() {}\n".to_string()),
        ("run.rs".to_string(), "use crate::driver::f;\n".to_string()),
        ("fuzz.rs".to_string(), "use crate::run::check;\n".to_string()),
        (
            "opt/mod.rs".to_string(),
            "fn g() { crate::driver::f(); }\n".to_string(),
        ),
    ];
    assert!(command_edges(&module_graph(&sources)).is_empty());
    sources.push((
        "gpu.rs".to_string(),
        "use crate::run::{functions, pipeline_of};\n".to_string(),
    ));
    assert_eq!(
        command_edges(&module_graph(&sources)),
        vec!["gpu -> run".to_string()]
    );
}
