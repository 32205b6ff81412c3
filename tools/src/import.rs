//! `fuse-import MODEL.pt2 [-o out.mlir] [--entry forward]`: a torch.export archive to
//! `aten`-dialect MLIR (`fuselab-import` writes the text), then parsed and verified with
//! fuselab's context (IRDL constraints and the aten shape verifier), so what it prints is
//! what `fuse-opt` accepts. Errors name the archive or the node's source line; exit 1.

use fuselab_dialects::{source::parse_module, DiagnosticSink, FuseContext};
use fuselab_import::{import_file, ImportOptions};
use std::{io::Write, time::Instant};

const HELP: &str = "OVERVIEW: import a torch.export archive (.pt2) as aten-dialect MLIR

USAGE: fuse-import [options] MODEL.pt2

Reads <archive>/models/model.json (torch.export schema 8.x, written by
torch.export.save in torch 2.x; weight files are not needed), writes one func.func in
the aten dialect and verifies it. Exit status 0 on success, 1 on any error.

OPTIONS:
  -o <file>          Write the MLIR to <file> instead of stdout
  --entry <name>     Name of the function (default: forward)
  --time             Print the import time to stderr
  --emit-bytecode    Write MLIR bytecode instead of text (fuse-opt reads either)
  --list-ops         Print the op coverage table (core ATen overloads: imported or
                     rejected; the other targets imported) and exit
  --help, -h         Show this help
  --version          Show the version

Export from PyTorch with:
  ep = torch.export.export(model, example_inputs).run_decompositions()
  torch.export.save(ep, \"model.pt2\")
";

/// Runs `fuse-import` with `args` (without the program name); returns the exit code.
pub fn run(args: &[String]) -> i32 {
    let mut input = None;
    let mut output = None;
    let mut options = ImportOptions::default();
    let mut time = false;
    let mut emit_bytecode = false;
    let mut i = 0;
    let fail = |message: String| {
        let _ = writeln!(std::io::stderr(), "fuse-import: error: {message}");
        1
    };
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        match arg {
            "-h" | "--help" => {
                print!("{HELP}");
                return 0;
            }
            "--version" => {
                println!("fuse-import (fuselab) {}", env!("CARGO_PKG_VERSION"));
                return 0;
            }
            "--time" => time = true,
            "--emit-bytecode" => emit_bytecode = true,
            "--list-ops" => {
                print!("{}", fuselab_import::coverage::op_table());
                return 0;
            }
            "-o" | "--entry" => {
                let Some(value) = args.get(i) else {
                    return fail(format!("option '{arg}' requires a value"));
                };
                i += 1;
                if arg == "-o" {
                    output = Some(value.clone());
                } else {
                    options.entry = value.clone();
                }
            }
            _ if arg.starts_with("--entry=") => options.entry = arg["--entry=".len()..].to_string(),
            _ if arg.starts_with('-') => return fail(format!("unknown option '{arg}' (see --help)")),
            _ => {
                if let Some(previous) = &input {
                    return fail(format!("more than one input file: '{previous}' and '{arg}'"));
                }
                input = Some(arg.to_string());
            }
        }
    }
    let Some(input) = input else {
        return fail("no input file (see --help)".to_string());
    };
    if !options
        .entry
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
        || options.entry.is_empty()
    {
        return fail(format!(
            "--entry '{}' is not a valid function name",
            options.entry
        ));
    }
    let start = Instant::now();
    let imported = match import_file(&input, &options) {
        Ok(imported) => imported,
        Err(error) => {
            let message = error.to_string();
            // Node errors already read `file:line:col: error: ...`.
            if message.contains(": error: ") {
                let _ = writeln!(std::io::stderr(), "{message}");
                return 1;
            }
            return fail(message);
        }
    };
    let imported_s = start.elapsed().as_secs_f64();
    // Parse and verify what was written, so errors surface here and not in fuse-opt.
    let fuse = match FuseContext::new() {
        Ok(fuse) => fuse,
        Err(error) => return fail(error.to_string()),
    };
    let sink = DiagnosticSink::new();
    sink.capture(fuse.context());
    let module = parse_module(fuse.context(), &imported.text, &input, &sink)
        .filter(|module| fuselab_dialects::verify_fuselab(module.as_operation(), &sink));
    let Some(module) = module else {
        for diagnostic in sink.take() {
            let _ = writeln!(std::io::stderr(), "{diagnostic}");
        }
        return fail(format!(
            "{input}: the imported graph does not verify (a fuse-import bug)"
        ));
    };
    if time {
        let _ = writeln!(
            std::io::stderr(),
            "fuse-import: {} nodes, import {:.3} s, import + verify {:.3} s",
            imported.nodes,
            imported_s,
            start.elapsed().as_secs_f64()
        );
    }
    let bytes = if emit_bytecode {
        fuselab_dialects::source::write_bytecode(&module.as_operation())
    } else {
        imported.text.into_bytes()
    };
    let written = match output.as_deref() {
        None | Some("-") => std::io::stdout().write_all(&bytes),
        Some(path) => std::fs::write(path, &bytes),
    };
    match written {
        Ok(()) => 0,
        Err(error) => fail(format!("cannot write output: {error}")),
    }
}
