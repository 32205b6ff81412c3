//! The TVM strategy and its pass `--tvm-fuse-ops`: TVM's FuseOps on the `loop` dialect
//! (src/relax/transform/fuse_ops.cc; `../shared/research/tvm_rules.md`;
//! docs/strategies/tvm.md).
//!
//! Run it on the IR of `--lower-aten-to-loop` (before `--inline-pointwise`: TVM has no
//! inlining, every op is a binding); `--lower-aten-to-loop="materialize-views=true"`
//! gives TVM's exact graph, where every reshape/permute is an op of its own.
//! The op graph and pattern kinds come from [`op_pattern`], the post-dominator tree
//! from [`post_dominators`], the partition from [`partition`] (union-find, phases
//! 0/1/2, CheckPath / CommitFuse, the depth limit); this pass applies it: a group of two or
//! more ops becomes one `loop.kernel` named `fused_<op names joined by _>` (TVM's
//! fused-function names; over 80 characters they are cut and numbered), a group of one
//! op stays an unfused call (one loop node stays bare; an op made of several loop nodes,
//! e.g. a decomposed softmax, becomes a kernel named after the op). Same report format
//! as `--inductor-fuse`.

pub mod annotate;
pub mod fold_constant;
pub mod op_pattern;
pub mod partition;
pub mod post_dominators;
pub mod print_post_dominators;

use super::{
    apply::run_strategy,
    plan::{Decision, Evaluation, FusionPlan, Rejection},
    strategy::{Strategy, Variant},
};
use crate::{
    analysis::memory_deps::SchedGraph,
    registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption, PassOptions},
    target::Target,
};
use melior::ir::OperationRef;
use mlir_sys::MlirOperation;
use op_pattern::{PatternMode, TvmGraph};
use partition::{partition_graph, PartitionConfig};
use std::{
    collections::{BTreeSet, HashMap},
    rc::Rc,
};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "tvm-fuse-ops",
    summary: "TVM's FuseOps (OpPatternKind, post-dominator tree, union-find) into loop.kernel",
    anchor: "builtin.module",
    options: &[
        PassOption {
            name: "max-depth",
            kind: OptionKind::UInt,
            default: "256",
            help: "most ops in one group (relax.FuseOps.max_depth, kMaxFusedOps)",
        },
        PassOption {
            name: "mode",
            kind: OptionKind::String,
            default: "relax",
            help: "pattern kinds: 'relax' (derived from loop bodies, TVM 0.27) or 'relay' (per-op registry)",
        },
        PassOption {
            name: "fold-constants",
            kind: OptionKind::Bool,
            default: "true",
            help: "Relax's FoldConstant first: ops computed only from buffers, tensor constants and literals are not fused (kernels marked folded)",
        },
    ],
    run,
    id: &ID,
};

/// Longest kernel name before it is cut (TVM truncates long fused names too).
const MAX_NAME: usize = 80;

/// TVM's decision for one function, as groups of `graph`'s nodes.
/// The scheduler node computing `node`'s result (the one a report names the op by), or
/// all its members if none is named so (none for an argument).
fn result_node(graph: &SchedGraph, node: &op_pattern::TvmNode) -> Rc<[usize]> {
    match node.members.iter().find(|&&m| graph.nodes[m].name == node.name) {
        Some(&m) => Rc::from([m]),
        None => node.members.as_slice().into(),
    }
}

pub fn decide(
    func: MlirOperation,
    graph: &SchedGraph,
    mode: PatternMode,
    config: PartitionConfig,
    fold_constants: bool,
) -> Result<Decision, String> {
    let built = TvmGraph::build(func, graph, mode)?;
    let folded = if fold_constants {
        fold_constant::folded_ops(
            &built,
            &fold_constant::compile_time_args(func, graph.inputs.len()),
        )
    } else {
        vec![false; built.nodes.len()]
    };
    let fold_constant::Hoisted {
        graph: tvm,
        folded_ops,
    } = fold_constant::hoist(&built, &folded);
    let partition = partition_graph(&tvm, config);
    // The folded ops (leaves after the arguments), one group each, first: they read
    // nothing but arguments and each other.
    let first_folded = tvm.param_count() - folded_ops.len();
    let mut op_groups: Vec<Vec<usize>> = (first_folded..tvm.param_count()).map(|n| vec![n]).collect();
    op_groups.extend(partition.groups(&tvm));
    // Group index of every op node; order groups topologically (groups are convex, so
    // the quotient graph is acyclic), preferring the earliest first op.
    let mut group_of = vec![usize::MAX; tvm.nodes.len()];
    for (g, ops) in op_groups.iter().enumerate() {
        for &n in ops {
            group_of[n] = g;
        }
    }
    let mut preds = vec![BTreeSet::new(); op_groups.len()];
    for (p, consumers) in tvm.consumers.iter().enumerate() {
        for &c in consumers {
            let (gp, gc) = (group_of[p], group_of[c]);
            if gp != usize::MAX && gp != gc {
                preds[gc].insert(gp);
            }
        }
    }
    let mut remaining: Vec<usize> = preds.iter().map(BTreeSet::len).collect();
    let mut succs = vec![Vec::new(); op_groups.len()];
    for (g, ps) in preds.iter().enumerate() {
        for &p in ps {
            succs[p].push(g);
        }
    }
    let mut ready: BTreeSet<usize> = (0..op_groups.len()).filter(|&g| remaining[g] == 0).collect();
    let mut order = Vec::with_capacity(op_groups.len());
    while let Some(g) = ready.pop_first() {
        order.push(g);
        for &s in &succs[g] {
            remaining[s] -= 1;
            if remaining[s] == 0 {
                ready.insert(s);
            }
        }
    }
    if order.len() != op_groups.len() {
        return Err("the op groups form a cycle (a FuseOps bug)".into());
    }
    let mut groups = Vec::with_capacity(order.len());
    let mut names = Vec::with_capacity(order.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    for &g in &order {
        let ops = &op_groups[g];
        let mut members: Vec<usize> = ops
            .iter()
            .flat_map(|&n| tvm.nodes[n].members.iter().copied())
            .collect();
        members.sort_unstable();
        groups.push(members);
        let mut name = if ops.len() == 1 && ops[0] < tvm.param_count() {
            folded_ops[ops[0] - first_folded].clone()
        } else if ops.len() == 1 {
            tvm.nodes[ops[0]].op.clone()
        } else {
            let ops: Vec<&str> = ops.iter().map(|&n| tvm.nodes[n].op.as_str()).collect();
            format!("fused_{}", ops.join("_"))
        };
        if name.len() > MAX_NAME {
            let mut cut = MAX_NAME;
            while !name.is_char_boundary(cut) {
                cut -= 1;
            }
            name.truncate(cut);
        }
        let count = seen.entry(name.clone()).or_insert(0);
        if *count > 0 {
            name = format!("{name}{count}");
        }
        *count += 1;
        names.push(name);
    }
    let rejections = partition
        .not_fused
        .iter()
        .map(|r| Rejection {
            node1: result_node(graph, &tvm.nodes[r.node]),
            node2: result_node(graph, &tvm.nodes[r.ipdom]),
            reason: Rc::from(r.reason.as_str()),
        })
        .collect();
    Ok(Decision {
        plan: FusionPlan {
            groups,
            rejections,
            rounds: 3,
            loop_orders: Vec::new(),
        },
        kernel_names: Some(names),
        keep_single_nodes: true,
        evaluation: order
            .iter()
            .map(|&g| {
                if g < folded_ops.len() {
                    Evaluation::Folded
                } else if op_groups[g]
                    .iter()
                    .any(|&n| tvm.nodes[n].op == op_pattern::BUILTIN_OP)
                {
                    Evaluation::Builtin
                } else {
                    Evaluation::Kernel
                }
            })
            .collect(),
    })
}

/// The TVM strategy.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tvm;

/// The table entry.
pub static TVM: Tvm = Tvm;

impl Strategy for Tvm {
    fn name(&self) -> &'static str {
        "tvm"
    }

    fn summary(&self) -> &'static str {
        "TVM's FuseOps: tvm-fuse-ops on a graph whose views are ops (materialize-views)"
    }

    fn pass(&self) -> &'static PassInfo {
        &INFO
    }

    /// Relax's graph has one binding per reshape/permute; its concatenate is an
    /// injective op like any other (no ConcatKernel).
    fn lowering_options(&self) -> &'static str {
        "materialize-views=true concat-kernels=false channels-last=false convolution-bias=add"
    }

    fn variants(&self) -> &'static [Variant] {
        &[Variant {
            name: "tvm-folded",
            lowering_options: "concat-kernels=false channels-last=false convolution-bias=add",
            pass_options: "",
        }]
    }

    fn decide(
        &self,
        func: MlirOperation,
        graph: &SchedGraph,
        _target: &dyn Target,
        options: &PassOptions,
        _rejections: bool,
    ) -> Result<Decision, String> {
        let mode = PatternMode::from_options(options)?;
        refuse_misread_pipelines(func, graph, options.string("mode"))?;
        let config = partition_config(options);
        decide(func, graph, mode, config, options.flag("fold-constants"))
    }
}

/// The partition's configuration from the pass's options.
fn partition_config(options: &PassOptions) -> PartitionConfig {
    PartitionConfig {
        max_depth: options.uint("max-depth") as usize,
    }
}

impl Default for PartitionConfig {
    /// The pass's declared option default ([`INFO`], the one place it is written).
    fn default() -> Self {
        partition_config(
            &INFO
                .parse_options("")
                .expect("tvm-fuse-ops's declared defaults parse"),
        )
    }
}

/// Pipelines that cannot mean what they say (issue 14, item 9): a graph already
/// transformed by `--inline-pointwise` (TVM fuses ops as written: the result would be
/// neither TVM's nor Inductor's decision), or ops annotated by `--annotate-op-pattern`
/// in another mode than the one this pass decides with.
fn refuse_misread_pipelines(func: MlirOperation, graph: &SchedGraph, mode: &str) -> Result<(), String> {
    if let Some(node) = graph.nodes.iter().find(|n| n.origins.len() > 1) {
        return Err(format!(
            "{} computes {} inlined by --inline-pointwise, but TVM's FuseOps fuses ops as \
             written: run --tvm-fuse-ops on the output of --lower-aten-to-loop (drop \
             --inline-pointwise), or use --fuse=strategy=tvm",
            node.name,
            node.origins.join(", ")
        ));
    }
    let annotated =
        fuselab_dialects::ir::attr(func, annotate::MODE_ATTR).and_then(fuselab_dialects::attrs::string_raw);
    match annotated {
        Some(annotated) if annotated != mode => Err(format!(
            "the ops were annotated with --annotate-op-pattern=mode={annotated}; decide in the same \
             mode with --tvm-fuse-ops=mode={annotated} (or annotate with mode={mode})"
        )),
        _ => Ok(()),
    }
}

fn run(module: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    run_strategy(module, cx, &TVM)
}
