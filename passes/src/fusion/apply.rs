//! Applying a fusion decision to the IR, shared by every strategy (`--inductor-fuse`,
//! `--tvm-fuse-ops`): each group of `loop` nodes becomes one `loop.kernel` holding its
//! members in order, with `iteration = (numel, rnumel)` and `strategy`. Buffers used
//! outside their kernel are yielded and read back with `loop.output`; kernel-local
//! buffers (created and last used inside the kernel) are not yielded, so they never
//! reach memory (Inductor's `remove_kernel_local_buffers`). A lone extern stays as it is.
//! The decision itself is plain data computed by an analysis.

use super::{
    plan::{FusionPlan, PlanDefect},
    report::{write_reports, FunctionReport},
    strategy::Strategy,
};
use crate::{
    analysis::memory_deps::{analyze, scheduler_nodes, SchedGraph},
    registry::{PassContext, PassFailed},
};
use fuselab_dialects::ir;
use fuselab_dialects::loops::names;
use fuselab_dialects::{Diagnostic, Severity, SourceLoc};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirOperation, MlirType, MlirValue};
use std::collections::HashSet;

/// String attribute of a kernel (or bare node) the modelled compiler does not run as a
/// generated kernel per call: its [`Evaluation::name`](super::plan::Evaluation::name) (`folded`, `builtin`, `grouped`). fuselab
/// still runs it.
pub const EVALUATION_ATTR: &str = "fuselab.evaluation";

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
    keep_single_nodes: bool,
) -> Result<(), String> {
    let block = ir::body(func).ok_or("function without a body")?;
    let ops = ir::block_ops(block);
    let nodes = scheduler_nodes(block);
    let terminator = *ops.last().ok_or("empty function")?;
    let ctx = ir::context(func);
    for (node, order) in &plan.loop_orders {
        let order: Vec<i64> = order.iter().map(|&d| d as i64).collect();
        let node = *nodes.get(*node).ok_or("a reordered node outside the function")?;
        ir::set_attr(
            node,
            fuselab_dialects::loops::LOOP_ORDER,
            ir::i64_array_attr(ctx, &order),
        );
    }
    for (members, kernel) in plan.groups.iter().zip(&report.kernels) {
        let mark = |op: MlirOperation| {
            if let Some(evaluation) = kernel.evaluation.name() {
                ir::set_attr(op, EVALUATION_ATTR, ir::string_attr(ctx, evaluation));
            }
        };
        if kernel.extern_kind.is_some() || (keep_single_nodes && members.len() == 1) {
            let op = nodes[members[0]];
            ir::detach(op);
            ir::insert_before(terminator, op);
            mark(op);
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
        let types: Vec<MlirType> = outputs.iter().map(|&v| ir::value_type(v)).collect();
        let tuple = unsafe { mlir_sys::mlirTupleTypeGet(ctx, types.len() as isize, types.as_ptr()) };
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
        mark(kernel_op);
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

/// The file location of node `at`, or else of the nearest node (by program order) that
/// has one: ops located by a name alone (`loc("relu")`) get the nearest source line
/// instead of `<unknown>`.
fn nearest_location(graph: &SchedGraph, at: usize) -> Option<SourceLoc> {
    let n = graph.nodes.len();
    (0..n).find_map(|distance| {
        [
            at.checked_sub(distance),
            at.checked_add(distance).filter(|&i| i < n),
        ]
        .into_iter()
        .flatten()
        .find_map(|i| graph.nodes[i].loc.clone())
    })
}

/// The node to locate a plan defect at, and the message: an internal error of the
/// strategy, reported instead of writing IR whose operands do not dominate their uses.
fn describe_defect(graph: &SchedGraph, defect: &PlanDefect, strategy: &str) -> (usize, String) {
    let name = |n: usize| graph.nodes.get(n).map_or("?", |node| node.name.as_str());
    match *defect {
        PlanDefect::NotAPartition { node } => (
            node,
            format!(
                "internal error: the {strategy} strategy's plan puts {} in no kernel or in two",
                name(node)
            ),
        ),
        PlanDefect::ReadsLaterGroup {
            group,
            node,
            producer,
        } => (
            node,
            format!(
                "internal error: the {strategy} strategy's plan is not in dependence order: \
                 kernel #{group} ({}) reads {}, which a later kernel computes (a fusion across \
                 a third kernel makes a cycle)",
                name(node),
                name(producer)
            ),
        ),
    }
}

/// Emits one remark per rejected pair (at the second node) for `--fusion-explain`.
pub fn explain(cx: &PassContext, graph: &SchedGraph, plan: &FusionPlan, function: Option<SourceLoc>) {
    for r in &plan.rejections {
        let loc: Option<SourceLoc> = r
            .node2
            .first()
            .and_then(|&at| nearest_location(graph, at))
            .or_else(|| function.clone());
        cx.sink.push(Diagnostic::new(
            Severity::Remark,
            loc,
            format!(
                "not fusing {} with {}: {}",
                super::Rejection::names(graph, &r.node1),
                super::Rejection::names(graph, &r.node2),
                r.reason
            ),
        ));
    }
}

/// Erases the loop nodes (and views) of `func` whose value nothing reads, repeatedly, so
/// that a chain feeding only dead nodes goes too; returns how many. Both reference
/// systems drop them: Inductor's `Scheduler.dead_node_elimination`
/// (torch/_inductor/scheduler.py) before fusing, TVM the fused groups whose outputs are
/// unused; so a dead value is never a kernel (an extra launch) of its own.
pub fn eliminate_dead_nodes(func: MlirOperation) -> usize {
    let Some(block) = ir::body(func) else { return 0 };
    let mut erased = 0;
    loop {
        let dead: Vec<MlirOperation> = ir::block_ops(block)
            .into_iter()
            .filter(|&op| {
                matches!(
                    ir::op_name(op).as_str(),
                    names::POINTWISE | names::REDUCTION | names::EXTERN | names::VIEW
                ) && !ir::has_uses(ir::result(op, 0))
            })
            .collect();
        if dead.is_empty() {
            return erased;
        }
        erased += dead.len();
        for op in dead {
            ir::erase(op);
        }
    }
}

/// Runs a fusion strategy on every function of `module`: analyze, decide (on the
/// pipeline's target, with the pass's options), report, apply. Shared by every
/// strategy pass.
pub fn run_strategy(
    module: OperationRef,
    cx: &PassContext,
    strategy: &dyn Strategy,
) -> Result<(), PassFailed> {
    let target = cx.target();
    let mut reports = Vec::new();
    for func in ir::collect_ops(module.to_raw(), |n| n == "func.func") {
        let loc = unsafe { ir::op_ref(func) }.location();
        cx.require_loop_ir(func)?;
        eliminate_dead_nodes(func);
        let graph = match analyze(func) {
            Ok(graph) => graph,
            Err(message) => {
                cx.sink
                    .error(loc, format!("cannot analyze for fusion: {message}"));
                return Err(PassFailed);
            }
        };
        // The rejected pairs (millions on large graphs) are recorded, and move into the
        // report, only where a report is written or explained.
        let keep_reports = cx.settings.fusion_report.is_some() || cx.settings.report_collector.is_some();
        let wants_rejections = keep_reports || cx.settings.fusion_explain;
        let mut decision = match strategy.decide(func, &graph, target, &cx.options, wants_rejections) {
            Ok(decision) => decision,
            Err(message) => {
                cx.sink.error(loc, format!("cannot decide the fusion: {message}"));
                return Err(PassFailed);
            }
        };
        let plan = &decision.plan;
        let name = ir::attr(func, "sym_name")
            .and_then(fuselab_dialects::attrs::string_raw)
            .unwrap_or_default();
        let mut report = FunctionReport::new(&name, strategy.name(), &graph, plan);
        if let Some(names) = &decision.kernel_names {
            for (kernel, name) in report.kernels.iter_mut().zip(names) {
                kernel.name = name.clone();
            }
        }
        for (kernel, &evaluation) in report.kernels.iter_mut().zip(&decision.evaluation) {
            kernel.set_evaluation(evaluation);
        }
        if cx.settings.fusion_explain {
            explain(cx, &graph, plan, SourceLoc::from_location(loc));
        }
        let rejections = std::mem::take(&mut decision.plan.rejections);
        if keep_reports {
            report.rejections = rejections;
        } else {
            drop(rejections);
        }
        let plan = &decision.plan;
        if let Some(defect) = plan.defect(&graph) {
            let (at, message) = describe_defect(&graph, &defect, strategy.name());
            let node_loc = nearest_location(&graph, at).or_else(|| SourceLoc::from_location(loc));
            cx.sink.push(Diagnostic::new(Severity::Error, node_loc, message));
            return Err(PassFailed);
        }
        if let Err(message) = apply_plan(func, plan, &report, strategy.name(), decision.keep_single_nodes) {
            cx.sink
                .error(loc, format!("cannot apply the fusion plan: {message}"));
            return Err(PassFailed);
        }
        if let Some(collector) = &cx.settings.report_collector {
            collector.push(report.to_json());
        }
        if cx.settings.fusion_report.is_some() {
            reports.push(report);
        }
    }
    if let Some(path) = &cx.settings.fusion_report {
        if let Err(message) = write_reports(path, &reports) {
            cx.sink.error(module.location(), message);
            return Err(PassFailed);
        }
    }
    Ok(())
}
