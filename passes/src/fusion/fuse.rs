//! `--fuse`: one entry for every fusion strategy of the strategy table, so experiments
//! swap strategies with a flag on the same input: `--fuse="strategy=inductor"` runs
//! `--inline-pointwise` then `--inductor-fuse` (Inductor's realize-then-schedule order),
//! `--fuse="strategy=tvm"` runs `--tvm-fuse-ops` (TVM fuses ops without inlining
//! first). Each strategy runs its preparation passes and its own pass with their default
//! options; use the strategy's own pass to change them. Input: the IR of
//! `--lower-aten-to-loop` (with the options the strategy's graph needs, e.g.
//! `materialize-views=true` for TVM's exact graph).

use super::strategy::{strategy, strategy_names};
use crate::registry::{lookup, OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use fuselab_dialects::ir;
use melior::ir::{operation::OperationLike as _, OperationRef};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "fuse",
    summary: "Fuse with a strategy of the strategy table: strategy=inductor (unroll-small-reductions + inline-pointwise + split-reductions + inductor-fuse) or tvm",
    anchor: "builtin.module",
    options: &[PassOption {
        name: "strategy",
        kind: OptionKind::String,
        default: "inductor",
        help: "inductor | tvm",
    }],
    run,
    id: &ID,
};

/// A context for running `info` with its default options, sharing `cx`'s sink, settings
/// and pass name.
fn defaults_of(info: &PassInfo, cx: &PassContext) -> PassContext {
    PassContext {
        sink: cx.sink.clone(),
        options: info.parse_options("").unwrap_or_default(),
        settings: cx.settings.clone(),
        // Messages name the pass the user ran (`--fuse`).
        pass: cx.pass,
    }
}

/// Runs the pass `info` with default options on `module`, or on each function when the
/// pass is anchored on functions.
fn run_pass(info: &PassInfo, module: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let cx = defaults_of(info, cx);
    if info.anchor == "func.func" {
        for func in ir::collect_ops(module.to_raw(), |n| n == "func.func") {
            (info.run)(unsafe { ir::op_ref(func) }, &cx)?;
        }
        Ok(())
    } else {
        (info.run)(module, &cx)
    }
}

fn run(module: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let name = cx.options.string("strategy");
    let Some(strategy) = strategy(name) else {
        cx.sink.error(
            module.location(),
            format!(
                "unknown fusion strategy '{name}' (expected one of: {})",
                strategy_names(", ")
            ),
        );
        return Err(PassFailed);
    };
    for &pass in strategy.prepare() {
        let Some(info) = lookup(pass) else {
            cx.sink.error(
                module.location(),
                format!("strategy '{name}' prepares with '{pass}', which is not registered (a fuselab bug)"),
            );
            return Err(PassFailed);
        };
        run_pass(info, module, cx)?;
    }
    run_pass(strategy.pass(), module, cx)
}
