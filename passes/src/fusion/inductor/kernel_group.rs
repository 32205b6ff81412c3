//! Inductor's C++ kernel groups: which fused kernels share one generated function.
//!
//! Rule (torch/_inductor, torch 2.15): `CppScheduling.codegen_node` adds every fused
//! scheduler node to the open `KernelGroup` (`kernel_group.finalize_kernel`), and
//! `Scheduler.codegen` flushes the group — emits one `cpp_fused_*` function and one
//! call of it — before an extern or template node, on a device change, after a node
//! that takes the group past `MAX_FUSED_KERNEL_ARGS_NUM` (500) arguments, and at the
//! end. A `NopKernelSchedulerNode` (a ConcatKernel the library calls wrote into)
//! flushes nothing. So on the CPU the kernels scheduled between two library calls run
//! in one call: a group norm's statistics and normalization, a convolution's two
//! channels-last copies. Triton back ends launch every fused node.
//!
//! Plain data over the plan: per group, [`Evaluation::Grouped`] for a generated kernel
//! that joins the function of the one before it, [`Evaluation::Kernel`] otherwise.

use crate::analysis::memory_deps::{NodeKind, SchedGraph};
use crate::fusion::plan::{Evaluation, FusionPlan};
use std::collections::HashSet;

/// Arguments past which the C++ back end flushes a kernel group
/// (`CppScheduling.MAX_FUSED_KERNEL_ARGS_NUM`).
pub const MAX_GROUP_ARGS: usize = 500;

/// How each of `plan`'s groups runs under kernel grouping, in plan order (the
/// schedule): a generated kernel after another generated kernel, with no library call
/// between them, is [`Evaluation::Grouped`] until the group's arguments (the distinct
/// buffers its kernels read or write) exceed [`MAX_GROUP_ARGS`].
pub fn kernel_groups(graph: &SchedGraph, plan: &FusionPlan) -> Vec<Evaluation> {
    let mut out = Vec::with_capacity(plan.groups.len());
    let mut open = false;
    let mut args: HashSet<&str> = HashSet::new();
    for group in &plan.groups {
        let library = group.len() == 1 && graph.nodes[group[0]].kind == NodeKind::Extern;
        if library {
            if !graph.nodes[group[0]].nop {
                open = false;
            }
            out.push(Evaluation::Kernel);
            continue;
        }
        if !open {
            args.clear();
        }
        out.push(if open {
            Evaluation::Grouped
        } else {
            Evaluation::Kernel
        });
        open = true;
        for &m in group {
            let node = &graph.nodes[m];
            args.extend(node.reads.iter().chain(&node.writes).map(|d| d.buffer.as_str()));
        }
        if args.len() > MAX_GROUP_ARGS {
            open = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::memory_deps::{MemoryDep, SchedNode};
    use crate::fusion::plan::test_support::{self, plan};
    use fuselab_dialects::loops::index::IndexExpr;
    use Evaluation::{Grouped, Kernel};

    fn dep(buffer: &str) -> MemoryDep {
        MemoryDep {
            buffer: buffer.to_string(),
            index: IndexExpr::constant(0),
            ranges: Vec::new(),
            star: true,
            elem_bytes: 4,
            buffer_bytes: 4,
        }
    }

    fn node(name: &str, kind: NodeKind, reads: &[&str], nop: bool) -> SchedNode {
        SchedNode {
            reads: reads.iter().map(|r| dep(r)).collect(),
            writes: vec![dep(name)],
            nop,
            ..test_support::node(name, kind, &[])
        }
    }

    fn graph(nodes: Vec<SchedNode>) -> SchedGraph {
        SchedGraph {
            nodes,
            ..SchedGraph::default()
        }
    }

    /// copy, copy | conv | epilogue, copy | mm | kernel: a library call flushes; a nop
    /// concat does not.
    #[test]
    fn kernels_between_library_calls_share_one_call() {
        let g = graph(vec![
            node("buf0", NodeKind::Pointwise, &["arg0"], false),
            node("buf1", NodeKind::Pointwise, &["arg1"], false),
            node("buf2", NodeKind::Extern, &["buf0", "buf1"], false),
            node("buf3", NodeKind::Pointwise, &["buf2"], false),
            node("buf4", NodeKind::Reduction, &["buf3"], false),
            node("buf5", NodeKind::Extern, &["buf3"], true),
            node("buf6", NodeKind::Pointwise, &["buf5"], false),
            node("buf7", NodeKind::Extern, &["buf6", "arg2"], false),
            node("buf8", NodeKind::Pointwise, &["buf7"], false),
        ]);
        let p = plan(&[&[0], &[1], &[2], &[3], &[4], &[5], &[6], &[7], &[8]]);
        assert_eq!(
            kernel_groups(&g, &p),
            vec![Kernel, Grouped, Kernel, Kernel, Grouped, Kernel, Grouped, Kernel, Kernel]
        );
    }

    /// A group past 500 arguments is flushed after the kernel that took it there.
    #[test]
    fn a_group_past_500_arguments_is_flushed() {
        let many: Vec<String> = (0..300).map(|i| format!("arg{i}")).collect();
        let more: Vec<String> = (300..600).map(|i| format!("arg{i}")).collect();
        fn refs(v: &[String]) -> Vec<&str> {
            v.iter().map(String::as_str).collect()
        }
        let g = graph(vec![
            node("buf0", NodeKind::Pointwise, &refs(&many), false),
            node("buf1", NodeKind::Pointwise, &refs(&more), false),
            node("buf2", NodeKind::Pointwise, &["arg0"], false),
        ]);
        let p = plan(&[&[0], &[1], &[2]]);
        assert_eq!(kernel_groups(&g, &p), vec![Kernel, Grouped, Kernel]);
    }
}
