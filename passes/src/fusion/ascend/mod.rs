//! The Ascend strategy: CANN GE AutoFuse's fusion decision on the `loop` dialect, and its
//! pass `--ascend-autofuse` (`--fuse=strategy=ascend`).
//!
//! The decision is plain data ([`autofuse`], over the MemoryDep analysis); the pass
//! applies it through `fusion::apply` like the other strategies (each group one
//! `loop.kernel`, `strategy = "ascend"`). GE fuses the graph's operators as written (its
//! graph has a node per reshape and transpose, which the transpose/slice switches
//! govern), so the strategy lowers with `materialize-views=true` and prepares nothing.
//! The switches ([`switches`]) come from the pass option `flags` or, when that is empty,
//! the environment variable `FUSELAB_ASCEND_FLAGS` (both set and different: an error, one
//! would be ignored). `mode=mindspore` decides by MindSpore's graph-kernel patterns
//! instead ([`mindspore`]). Not modelled yet: the target's Unified Buffer capacity
//! (issue 17, item 3; docs/strategies/ascend.md).

pub mod autofuse;
pub mod mindspore;
pub mod switches;

use super::{
    apply::run_strategy,
    plan::Decision,
    strategy::{Strategy, Variant},
};
use crate::{
    analysis::memory_deps::SchedGraph,
    registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption, PassOptions},
    target::Target,
};
use autofuse::{plan_autofuse, AutoFuseConfig};
use melior::ir::OperationRef;
use mindspore::plan_mindspore;
use mlir_sys::MlirOperation;
use std::collections::BTreeSet;

static ID: PassId = PassId::new();

/// The environment variable of the switches.
pub const FLAGS_VARIABLE: &str = "FUSELAB_ASCEND_FLAGS";

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "ascend-autofuse",
    summary: "CANN GE AutoFuse's fusion (shared-buffer candidates by target priority, memory score, proximity; rounds) into loop.kernel",
    anchor: "builtin.module",
    options: &[
        PassOption {
            name: "mode",
            kind: OptionKind::String,
            default: "ge",
            help: "ge (CANN GE AutoFuse) or mindspore (MindSpore's graph-kernel split patterns for Ascend)",
        },
        PassOption { name: "max-rounds", kind: OptionKind::UInt, default: "10", help: "rounds of fusion" },
        PassOption { name: "max-fusion-size", kind: OptionKind::UInt, default: "64", help: "most nodes in one kernel" },
        PassOption {
            name: "max-inputs",
            kind: OptionKind::UInt,
            default: "8",
            help: "most distinct inputs of one fused kernel (8 on A2/A3, 14 on A5)",
        },
        PassOption {
            name: "max-proximity",
            kind: OptionKind::UInt,
            default: "64",
            help: "farthest apart in program order a horizontal pair may be",
        },
        PassOption {
            name: "flags",
            kind: OptionKind::String,
            default: "",
            help: "AutoFuse switches, e.g. '--autofuse_enable_pass=reduce;--autofuse_disable_pass=slice' (default: $FUSELAB_ASCEND_FLAGS)",
        },
    ],
    run,
    id: &ID,
};

/// The Ascend strategy.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ascend;

/// The table entry.
pub static ASCEND: Ascend = Ascend;

/// The switches' text: the option, else the environment; both, and different: an error.
fn flags_text(option: &str) -> Result<String, String> {
    let env = std::env::var(FLAGS_VARIABLE).unwrap_or_default();
    match (option.is_empty(), env.is_empty()) {
        (false, false) if option != env => Err(format!(
            "both the option flags='{option}' and {FLAGS_VARIABLE}='{env}' are set: one would be ignored"
        )),
        (false, _) => Ok(option.to_string()),
        (true, _) => Ok(env),
    }
}

/// The decision's configuration from the pass's options (and the environment).
pub fn config_from(options: &PassOptions) -> Result<AutoFuseConfig, String> {
    let switches = switches::parse(&flags_text(options.string("flags"))?)?;
    Ok(config_with(options, switches))
}

/// The configuration of `options` with `switches` (not read from the environment).
fn config_with(options: &PassOptions, switches: switches::Switches) -> AutoFuseConfig {
    AutoFuseConfig {
        max_rounds: options.uint("max-rounds") as usize,
        max_nodes: options.uint("max-fusion-size") as usize,
        max_inputs: options.uint("max-inputs") as usize,
        max_proximity: options.uint("max-proximity") as usize,
        enabled: switches.enabled,
        passes: switches.passes,
        record_rejections: true,
    }
}

impl Default for AutoFuseConfig {
    /// The pass's declared option defaults ([`INFO`], the one place they are
    /// written) with GE's default switches (the environment is not read).
    fn default() -> Self {
        let declared = INFO
            .parse_options("")
            .expect("ascend-autofuse's declared defaults parse");
        config_with(&declared, switches::Switches::default())
    }
}

impl Strategy for Ascend {
    fn name(&self) -> &'static str {
        "ascend"
    }

    fn summary(&self) -> &'static str {
        "CANN GE AutoFuse: ascend-autofuse on a graph whose views are ops (materialize-views)"
    }

    fn pass(&self) -> &'static PassInfo {
        &INFO
    }

    /// GE's graph has one node per reshape/transpose; its concat is a node of its own
    /// (GE's concat fusion switch decides), not Inductor's ConcatKernel.
    fn lowering_options(&self) -> &'static str {
        "materialize-views=true concat-kernels=false channels-last=false"
    }

    fn variants(&self) -> &'static [Variant] {
        &[Variant {
            name: "ascend-mindspore",
            lowering_options: "materialize-views=true concat-kernels=false channels-last=false",
            pass_options: "mode=mindspore",
        }]
    }

    fn decide(
        &self,
        _func: MlirOperation,
        graph: &SchedGraph,
        target: &dyn Target,
        options: &PassOptions,
        rejections: bool,
    ) -> Result<Decision, String> {
        let plan = match options.string("mode") {
            "ge" => {
                let config = AutoFuseConfig {
                    record_rejections: rejections,
                    ..config_from(options)?
                };
                plan_autofuse(graph, &config, target)
            }
            "mindspore" => {
                refuse_ge_options(options)?;
                plan_mindspore(graph, rejections)
            }
            other => return Err(format!("mode must be ge or mindspore, not '{other}'")),
        };
        Ok(Decision {
            plan,
            kernel_names: None,
            keep_single_nodes: false,
            evaluation: Vec::new(),
        })
    }
}

/// MindSpore's patterns have their own fixed limits: GE's options and switches would be
/// ignored in that mode, so giving them is an error.
fn refuse_ge_options(options: &PassOptions) -> Result<(), String> {
    for option in &INFO.options[1..] {
        let given = match option.kind {
            OptionKind::UInt => options.uint(option.name).to_string(),
            _ => options.string(option.name).to_string(),
        };
        if given != option.default {
            return Err(format!("option {}={given} applies to mode=ge only", option.name));
        }
    }
    if flags_text("")?.is_empty() {
        Ok(())
    } else {
        Err(format!("{FLAGS_VARIABLE} applies to mode=ge only"))
    }
}

fn run(module: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    run_strategy(module, cx, &ASCEND)
}

/// The plan of either Ascend mode: `groups` (sorted node lists covering `graph`) in a
/// topological order, the refused pairs (by member lists) named by their buffers.
fn plan(
    graph: &SchedGraph,
    groups: Vec<Vec<usize>>,
    rejections: &std::collections::BTreeMap<(Vec<usize>, Vec<usize>), String>,
    rounds: usize,
) -> super::plan::FusionPlan {
    super::plan::FusionPlan {
        groups: topological(graph, groups),
        rejections: rejections
            .iter()
            .map(|((a, b), reason)| super::plan::Rejection {
                node1: a.as_slice().into(),
                node2: b.as_slice().into(),
                reason: reason.as_str().into(),
            })
            .collect(),
        rounds,
        loop_orders: Vec::new(),
    }
}

/// `groups` in a topological order: Kahn's algorithm, the ready group with the earliest
/// first member first.
fn topological(graph: &SchedGraph, groups: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
    let mut group_of = vec![0; graph.nodes.len()];
    for (g, members) in groups.iter().enumerate() {
        for &m in members {
            group_of[m] = g;
        }
    }
    let mut indegree = vec![0usize; groups.len()];
    let mut succ: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); groups.len()];
    for (i, node) in graph.nodes.iter().enumerate() {
        for &p in &node.producers {
            let (a, b) = (group_of[p], group_of[i]);
            if a != b && succ[a].insert(b) {
                indegree[b] += 1;
            }
        }
    }
    let mut ready: BTreeSet<(usize, usize)> = (0..groups.len())
        .filter(|&g| indegree[g] == 0)
        .map(|g| (groups[g][0], g))
        .collect();
    let mut out = Vec::new();
    while let Some((_, g)) = ready.pop_first() {
        out.push(groups[g].clone());
        for &h in &succ[g] {
            indegree[h] -= 1;
            if indegree[h] == 0 {
                ready.insert((groups[h][0], h));
            }
        }
    }
    out
}
