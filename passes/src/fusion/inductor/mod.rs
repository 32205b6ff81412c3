//! The Inductor strategy: TorchInductor's scheduler fusion on the `loop` dialect, and
//! its pass `--inductor-fuse`.
//!
//! The decision is plain data ([`scheduler`], over the MemoryDep analysis); the pass
//! applies it (`fusion::apply`): every group becomes one `loop.kernel` named
//! `fused_<sorted origins>_<n>` (Inductor's kernel names, seed 000 §8) holding its member
//! nodes in order, with `iteration = (numel, rnumel)` and `strategy = "inductor"`.
//! Buffers used outside their kernel are yielded and read back with `loop.output`;
//! kernel-local buffers (created and last used inside the kernel) are not yielded, so
//! they never reach memory (`remove_kernel_local_buffers`). Externs stay as they are.
//! `--fusion-report` writes the report, `--fusion-explain` emits a remark per rejected
//! pair at the second node's location. Inductor realizes buffers before it schedules,
//! so the strategy prepares its graph with `--inline-pointwise`.

pub mod kernel_group;
pub mod loop_order;
pub mod scheduler;
pub mod score;

use super::{apply::run_strategy, plan::Decision, strategy::Strategy};
use crate::{
    analysis::memory_deps::SchedGraph,
    registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption, PassOptions},
    target::Target,
};
use melior::ir::OperationRef;
use mlir_sys::MlirOperation;
use scheduler::plan_fusion;
use score::FusionConfig;

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
        PassOption {
            name: "loop-ordering-after-fusion",
            kind: OptionKind::Bool,
            default: "true",
            help: "a last round that reorders a pointwise node's loops to share data (targets whose Inductor back end reorders: gpu)",
        },
    ],
    run,
    id: &ID,
};

/// The Inductor strategy.
#[derive(Clone, Copy, Debug, Default)]
pub struct Inductor;

/// The table entry.
pub static INDUCTOR: Inductor = Inductor;

/// The fusion configuration from the pass's options.
pub fn config_from(options: &PassOptions) -> FusionConfig {
    FusionConfig {
        max_fusion_size: options.uint("max-fusion-size") as usize,
        score_threshold: options.uint("score-threshold"),
        pairwise_attempts: options.uint("pairwise-attempts") as usize,
        max_rounds: options.uint("max-rounds") as usize,
        aggressive: options.flag("aggressive"),
        loop_ordering: options.flag("loop-ordering-after-fusion"),
        record_rejections: true,
    }
}

impl Default for FusionConfig {
    /// The pass's declared option defaults ([`INFO`], the one place they are
    /// written), read as `--inductor-fuse` with no options reads them.
    fn default() -> Self {
        config_from(
            &INFO
                .parse_options("")
                .expect("inductor-fuse's declared defaults parse"),
        )
    }
}

impl Strategy for Inductor {
    fn name(&self) -> &'static str {
        "inductor"
    }

    fn summary(&self) -> &'static str {
        "TorchInductor's scheduler: unroll-small-reductions, inline-pointwise, split-reductions, then inductor-fuse"
    }

    fn pass(&self) -> &'static PassInfo {
        &INFO
    }

    fn graph_passes(&self) -> &'static [&'static str] {
        &["fuse-attention", "fuse-rnn-cells", "pointless-cumsum"]
    }

    fn prepare(&self) -> &'static [&'static str] {
        &["unroll-small-reductions", "inline-pointwise", "split-reductions"]
    }

    fn decide(
        &self,
        _func: MlirOperation,
        graph: &SchedGraph,
        target: &dyn Target,
        options: &PassOptions,
        rejections: bool,
    ) -> Result<Decision, String> {
        let config = FusionConfig {
            record_rejections: rejections,
            ..config_from(options)
        };
        let plan = plan_fusion(graph, config, target);
        let evaluation = if target.backend().groups_kernels_between_library_calls() {
            kernel_group::kernel_groups(graph, &plan)
        } else {
            Vec::new()
        };
        Ok(Decision {
            plan,
            kernel_names: None,
            keep_single_nodes: false,
            evaluation,
        })
    }
}

fn run(module: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    run_strategy(module, cx, &INDUCTOR)
}
