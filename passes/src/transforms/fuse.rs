//! `--fuse`: one entry for every fusion strategy, so experiments swap strategies with a
//! flag on the same input: `--fuse="strategy=inductor"` runs `--inline-pointwise` then
//! `--inductor-fuse` (Inductor's realize-then-schedule order), `--fuse="strategy=tvm"`
//! runs `--tvm-fuse-ops` (TVM fuses ops without inlining first). Each strategy runs with
//! its default options; use the strategy's own pass to change them. Input: the IR of
//! `--lower-aten-to-loop`.

use super::{inductor_fuse, inline_pointwise, tvm_fuse_ops};
use crate::{
    ir,
    registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption},
};
use melior::ir::{operation::OperationLike as _, OperationRef};

static ID: PassId = PassId::new();

/// The strategies `--fuse` knows.
pub const STRATEGIES: &[&str] = &["inductor", "tvm"];

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "fuse",
    summary: "Fuse with the chosen strategy: strategy=inductor (inline-pointwise + inductor-fuse) or tvm",
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

/// A context for running `info` with its default options, sharing `cx`'s sink/settings.
fn defaults_of(info: &PassInfo, cx: &PassContext) -> PassContext {
    PassContext {
        sink: cx.sink.clone(),
        options: info.parse_options("").unwrap_or_default(),
        settings: cx.settings.clone(),
    }
}

fn run(module: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    match cx.options.string("strategy") {
        "inductor" => {
            let inline = defaults_of(&inline_pointwise::INFO, cx);
            for func in ir::collect_ops(module.to_raw(), |n| n == "func.func") {
                (inline_pointwise::INFO.run)(unsafe { ir::op_ref(func) }, &inline)?;
            }
            (inductor_fuse::INFO.run)(module, &defaults_of(&inductor_fuse::INFO, cx))
        }
        "tvm" => (tvm_fuse_ops::INFO.run)(module, &defaults_of(&tvm_fuse_ops::INFO, cx)),
        other => {
            cx.sink.error(
                module.location(),
                format!(
                    "unknown fusion strategy '{other}' (expected one of: {})",
                    STRATEGIES.join(", ")
                ),
            );
            Err(PassFailed)
        }
    }
}
