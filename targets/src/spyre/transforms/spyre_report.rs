//! `--spyre-report{file=-}`: writes, per function, what its Spyre program costs as JSON
//! ([`crate::spyre::report`]: device-memory traffic in elements and bytes, restickify
//! copies and their device elements, per-core LX use, every op's stick and split). Runs
//! after the three Spyre passes; changes nothing. `-` is standard output (before the
//! module).

use crate::spyre::{attrs::names, plan::read_all, program::ProgramIr, report::report};
use fuselab_dialects::ir;
use fuselab_passes::registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use melior::ir::{operation::OperationLike as _, OperationRef};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "spyre-report",
    summary: "Write each function's Spyre costs as JSON (traffic, restickify, LX use, core splits)",
    anchor: "builtin.module",
    options: &[PassOption {
        name: "file",
        kind: OptionKind::String,
        default: "-",
        help: "where the JSON goes ('-': standard output)",
    }],
    run,
    id: &ID,
};

fn run(module: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let fail = |at, message: String| {
        cx.sink.error(unsafe { ir::op_ref(at) }.location(), message);
        PassFailed
    };
    let mut reports = Vec::new();
    let funcs = ir::collect_ops(module.to_raw(), |n| n == "func.func");
    for f in funcs {
        cx.require_loop_ir(f)?;
        let pir = ProgramIr::read(f).map_err(|(op, m)| fail(op, m))?;
        let d = read_all(&pir, f, INFO.argument).map_err(|(op, m)| fail(op, m))?;
        let reasons: Vec<(usize, String)> = pir
            .ops
            .iter()
            .enumerate()
            .filter_map(|(o, &op)| {
                ir::attr(op, names::HBM)
                    .and_then(fuselab_dialects::attrs::string_raw)
                    .map(|r| (pir.program.ops[o].out, r))
            })
            .collect();
        let name = ir::attr(f, "sym_name")
            .and_then(fuselab_dialects::attrs::string_raw)
            .unwrap_or_default();
        reports.push(report(&name, &pir.program, &d, &reasons));
    }
    let text = serde_json::to_string_pretty(&serde_json::Value::Array(reports)).unwrap_or_default();
    let path = cx.options.string("file");
    if path == "-" {
        println!("{text}");
        Ok(())
    } else {
        std::fs::write(path, text + "\n").map_err(|e| {
            fail(
                module.to_raw(),
                format!("cannot write the Spyre report to {path}: {e}"),
            )
        })
    }
}
