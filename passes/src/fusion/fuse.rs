//! `--fuse`: one entry for every row of the strategy table, so experiments swap
//! strategies with a flag on the same input: `--fuse="strategy=inductor"` runs
//! Inductor's preparation (`--unroll-small-reductions --inline-pointwise
//! --split-reductions`) then `--inductor-fuse`, `--fuse="strategy=tvm"` runs
//! `--tvm-fuse-ops`, a variant (`tvm-folded`, `ascend-mindspore`) its pass with the
//! variant's options — the fusion steps of the row's pipeline
//! (`fusion::table::named_pipeline`). Input: the IR of `--lower-aten-to-loop`. On a
//! program still in the aten dialect `fuse-opt` runs the row's whole pipeline instead
//! (its graph passes, decomposition and lowering with the row's options first).

use super::table::{named_pipeline, pipeline_names};
use crate::registry::{lookup, OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use fuselab_dialects::ir;
use melior::ir::{operation::OperationLike as _, OperationRef};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "fuse",
    summary: "Fuse with a row of the strategy table (FUSION STRATEGIES below: a strategy or a variant); on aten input its whole pipeline",
    anchor: "builtin.module",
    options: &[PassOption {
        name: "strategy",
        kind: OptionKind::String,
        default: "inductor",
        help: "a strategy or variant of the strategy table (FUSION STRATEGIES)",
    }],
    run,
    id: &ID,
};

/// Runs the pass `info` with `options` on `module`, or on each function when the pass is
/// anchored on functions; messages name the pass the user ran (`--fuse`).
fn run_pass(
    info: &PassInfo,
    options: &str,
    module: OperationRef,
    cx: &PassContext,
) -> Result<(), PassFailed> {
    let options = match info.parse_options(options) {
        Ok(options) => options,
        Err(e) => {
            cx.sink.error(
                module.location(),
                format!("{}{{{options}}}: {e} (a fuselab bug)", info.argument),
            );
            return Err(PassFailed);
        }
    };
    let cx = PassContext {
        sink: cx.sink.clone(),
        options,
        settings: cx.settings.clone(),
        pass: cx.pass,
    };
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
    let Some(pipeline) = named_pipeline(name) else {
        cx.sink.error(
            module.location(),
            format!(
                "unknown fusion strategy '{name}' (expected one of: {})",
                pipeline_names(", ")
            ),
        );
        return Err(PassFailed);
    };
    for (pass, options) in pipeline.fusion {
        let Some(info) = lookup(pass) else {
            cx.sink.error(
                module.location(),
                format!("strategy '{name}' runs '{pass}', which is not registered (a fuselab bug)"),
            );
            return Err(PassFailed);
        };
        run_pass(info, options, module, cx)?;
    }
    Ok(())
}
