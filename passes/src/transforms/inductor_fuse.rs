//! `--inductor-fuse`: TorchInductor's scheduler fusion on the `loop` dialect.
//!
//! The decision is plain data (`analysis/inductor_scheduler.rs`, over the MemoryDep
//! analysis); this pass applies it: every group becomes one `loop.kernel` named
//! `fused_<sorted origins>_<n>` (Inductor's kernel names, seed 000 §8) holding its member
//! nodes in order, with `iteration = (numel, rnumel)` and `strategy = "inductor"`.
//! Buffers used outside their kernel are yielded and read back with `loop.output`;
//! kernel-local buffers (created and last used inside the kernel) are not yielded, so
//! they never reach memory (`remove_kernel_local_buffers`). Externs stay as they are.
//! `--fusion-report` writes the report, `--fusion-explain` emits a remark per rejected
//! pair at the second node's location.

use super::apply_fusion::{run_strategy, Decision};
use crate::{
    analysis::inductor_scheduler::{plan_fusion, FusionConfig},
    registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption},
};
use melior::ir::OperationRef;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "inductor-fuse",
    summary: "TorchInductor's fusion (can_fuse / score_fusion / greedy fuse_nodes over MemoryDeps) into loop.kernel",
    anchor: "builtin.module",
    options: &[
        PassOption { name: "max-fusion-size", kind: OptionKind::UInt, default: "64", help: "most nodes in one kernel" },
        PassOption {
            name: "score-threshold",
            kind: OptionKind::UInt,
            default: "10",
            help: "bytes a horizontal pair must share (score_fusion_memory_threshold)",
        },
        PassOption {
            name: "pairwise-attempts",
            kind: OptionKind::UInt,
            default: "64",
            help: "later nodes each node is paired with per shared buffer",
        },
        PassOption { name: "max-rounds", kind: OptionKind::UInt, default: "10", help: "rounds of fuse_nodes_once" },
        PassOption {
            name: "aggressive",
            kind: OptionKind::Bool,
            default: "false",
            help: "aggressive_fusion: also pair nodes of equal iteration without shared data",
        },
    ],
    run,
    id: &ID,
};

/// The fusion configuration from pass options.
pub fn config_from(cx: &PassContext) -> FusionConfig {
    FusionConfig {
        max_fusion_size: cx.options.uint("max-fusion-size") as usize,
        score_threshold: cx.options.uint("score-threshold"),
        pairwise_attempts: cx.options.uint("pairwise-attempts") as usize,
        max_rounds: cx.options.uint("max-rounds") as usize,
        aggressive: cx.options.flag("aggressive"),
    }
}

fn run(module: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let config = config_from(cx);
    run_strategy(module, cx, "inductor", &|_, graph| {
        Ok(Decision {
            plan: plan_fusion(graph, config.clone()),
            kernel_names: None,
            keep_single_nodes: false,
        })
    })
}
