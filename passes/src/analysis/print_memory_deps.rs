//! `--print-memory-deps`: prints the MemoryDep analysis (see `memory_deps.rs`) of every
//! function, in Inductor's notation, for FileCheck tests and for people.

use super::memory_deps::NodeKind;
use crate::registry::{PassContext, PassFailed, PassId, PassInfo};
use melior::ir::OperationRef;
use std::fmt::Write as _;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "print-memory-deps",
    summary: "Print each node's reads/writes/met/unmet MemoryDeps and (numel, rnumel), Inductor-style",
    anchor: "func.func",
    options: &[],
    run,
    id: &ID,
};

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let (graph, name) = cx.sched_graph(func)?;
    let mut out = format!("// MemoryDeps of @{name}\n");
    for node in &graph.nodes {
        let kind = match node.kind {
            NodeKind::Pointwise => "pointwise",
            NodeKind::Reduction => "reduction",
            NodeKind::Extern => "extern",
        };
        let (numel, rnumel) = node.iteration();
        let _ = writeln!(
            out,
            "{}: {kind} group.iteration = ({numel}, {rnumel}) origins = [{}]",
            node.name,
            node.origins.join(", ")
        );
        let (met, unmet) = graph.met_unmet(node);
        for (label, deps) in [
            ("reads", &node.reads),
            ("writes", &node.writes),
            ("met_dependencies", &met),
            ("unmet_dependencies", &unmet),
        ] {
            let _ = writeln!(out, "  {label} = [");
            for dep in deps.iter() {
                let _ = writeln!(out, "    {dep},");
            }
            let _ = writeln!(out, "  ]");
        }
    }
    print!("{out}");
    Ok(())
}
