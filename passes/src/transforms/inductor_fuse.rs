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

use crate::{
    analysis::{
        fusion_report::{write_reports, FunctionReport},
        inductor_scheduler::{plan_fusion, FusionConfig, FusionPlan},
        memory_deps::analyze,
    },
    ir,
    registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption},
};
use fuselab_dialects::loops::names;
use fuselab_dialects::{Diagnostic, Severity, SourceLoc};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirOperation, MlirValue};
use std::collections::HashSet;

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

fn is_scheduler_node(op: MlirOperation) -> bool {
    matches!(
        ir::op_name(op).as_str(),
        names::POINTWISE | names::REDUCTION | names::EXTERN
    )
}

/// Replaces the uses of `old` by `new` in ops outside `kernel`.
fn replace_uses_outside(old: MlirValue, new: MlirValue, kernel: MlirOperation, block: mlir_sys::MlirBlock) {
    let mut uses = Vec::new();
    unsafe {
        let mut u = mlir_sys::mlirValueGetFirstUse(old);
        while !mlir_sys::mlirOpOperandIsNull(u) {
            uses.push((
                mlir_sys::mlirOpOperandGetOwner(u),
                mlir_sys::mlirOpOperandGetOperandNumber(u) as usize,
            ));
            u = mlir_sys::mlirOpOperandGetNextUse(u);
        }
    }
    for (owner, index) in uses {
        if ir::ancestor_in(owner, block).ptr != kernel.ptr {
            ir::set_operand(owner, index, new);
        }
    }
}

/// Rewrites `func` into kernels following `plan` (node order = analysis order).
pub fn apply_plan(
    func: MlirOperation,
    plan: &FusionPlan,
    report: &FunctionReport,
    strategy: &str,
) -> Result<(), String> {
    let block = ir::body(func).ok_or("function without a body")?;
    let ops = ir::block_ops(block);
    let nodes: Vec<MlirOperation> = ops.iter().copied().filter(|&op| is_scheduler_node(op)).collect();
    let terminator = *ops.last().ok_or("empty function")?;
    let ctx = ir::context(func);
    for (members, kernel) in plan.groups.iter().zip(&report.kernels) {
        if kernel.extern_kind.is_some() {
            let op = nodes[members[0]];
            ir::detach(op);
            ir::insert_before(terminator, op);
            continue;
        }
        let member_ops: Vec<MlirOperation> = members.iter().map(|&m| nodes[m]).collect();
        let member_set: HashSet<usize> = member_ops.iter().map(|op| op.ptr as usize).collect();
        // Buffers that leave the kernel: used by an op that is not a member.
        let outputs: Vec<MlirValue> = member_ops
            .iter()
            .map(|&op| ir::result(op, 0))
            .filter(|&v| {
                ir::users(v)
                    .into_iter()
                    .any(|user| !member_set.contains(&(ir::ancestor_in(user, block).ptr as usize)))
            })
            .collect();
        let loc = ir::location(member_ops[0]);
        let body = ir::new_block(&[], loc);
        for &op in &member_ops {
            ir::detach(op);
            ir::append(body, op);
        }
        ir::append(
            body,
            ir::create(names::YIELD, loc, &outputs, &[], &[], Vec::new()),
        );
        let types: Vec<String> = outputs
            .iter()
            .map(|&v| ir::type_string(ir::value_type(v)))
            .collect();
        let tuple = ir::parse_type(ctx, &format!("tuple<{}>", types.join(", "))).ok_or("bad tuple type")?;
        let attrs = [
            ("name", ir::string_attr(ctx, &kernel.name)),
            (
                "iteration",
                ir::i64_array_attr(ctx, &[kernel.iteration.0, kernel.iteration.1]),
            ),
            ("strategy", ir::string_attr(ctx, strategy)),
        ];
        let kernel_op = ir::create(
            names::KERNEL,
            loc,
            &[],
            &[tuple],
            &attrs,
            vec![ir::new_region(body)],
        );
        ir::insert_before(terminator, kernel_op);
        for (i, &value) in outputs.iter().enumerate() {
            let ty = ir::value_type(value);
            let output = ir::create(
                names::OUTPUT,
                loc,
                &[ir::result(kernel_op, 0)],
                &[ty],
                &[("index", ir::i64_attr(ctx, i as i64))],
                Vec::new(),
            );
            ir::insert_before(terminator, output);
            replace_uses_outside(value, ir::result(output, 0), kernel_op, block);
        }
    }
    // Views of buffers (graph outputs) follow the kernels that now produce them.
    for op in ops {
        if ir::op_name(op) == names::VIEW {
            ir::detach(op);
            ir::insert_before(terminator, op);
        }
    }
    Ok(())
}

/// Emits one remark per rejected pair (at the second node) for `--fusion-explain`.
pub fn explain(cx: &PassContext, graph: &crate::analysis::memory_deps::SchedGraph, plan: &FusionPlan) {
    for r in &plan.rejections {
        let loc: Option<SourceLoc> = r
            .node2
            .first()
            .and_then(|n| graph.nodes.iter().find(|node| node.name == *n))
            .and_then(|node| node.loc.clone());
        cx.sink.push(Diagnostic::new(
            Severity::Remark,
            loc,
            format!(
                "not fusing {} with {}: {}",
                r.node1.join(","),
                r.node2.join(","),
                r.reason
            ),
        ));
    }
}

/// Runs a fusion strategy on every function of `module`: analyze, decide, report,
/// apply. Shared by every strategy pass.
pub fn run_strategy(
    module: OperationRef,
    cx: &PassContext,
    strategy: &str,
    decide: &dyn Fn(&crate::analysis::memory_deps::SchedGraph) -> FusionPlan,
) -> Result<(), PassFailed> {
    let mut reports = Vec::new();
    for func in ir::collect_ops(module.to_raw(), |n| n == "func.func") {
        let loc = unsafe { ir::op_ref(func) }.location();
        let graph = match analyze(func) {
            Ok(graph) => graph,
            Err(message) => {
                cx.sink
                    .error(loc, format!("cannot analyze for fusion: {message}"));
                return Err(PassFailed);
            }
        };
        let plan = decide(&graph);
        let name = ir::attr(func, "sym_name")
            .and_then(fuselab_dialects::attrs::string_raw)
            .unwrap_or_default();
        let report = FunctionReport::new(&name, strategy, &graph, &plan);
        if cx.settings.fusion_explain {
            explain(cx, &graph, &plan);
        }
        if let Err(message) = apply_plan(func, &plan, &report, strategy) {
            cx.sink
                .error(loc, format!("cannot apply the fusion plan: {message}"));
            return Err(PassFailed);
        }
        reports.push(report);
    }
    if let Some(path) = &cx.settings.fusion_report {
        if let Err(message) = write_reports(path, &reports) {
            cx.sink.error(module.location(), message);
            return Err(PassFailed);
        }
    }
    Ok(())
}

fn run(module: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let config = config_from(cx);
    run_strategy(module, cx, "inductor", &|graph| {
        plan_fusion(graph, config.clone())
    })
}
