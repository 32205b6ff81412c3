//! The fusion report, common to every strategy: per kernel its member nodes, origins,
//! iteration `(numel, rnumel)`, bytes read from and written to memory (HBM), launches;
//! totals; the eager baseline (one kernel per original aten op, recorded by
//! `--lower-aten-to-loop`); and every rejected candidate pair with its reason.
//!
//! The report also holds the graph the strategy decided over (`graph.nodes`: every
//! analysis node with its kind, aten origins, source location, the buffers it reads and
//! the bytes it writes), so a reader can draw the decision (`fuse-opt
//! --fusion-compare=html`) without the IR.
//!
//! Bytes follow the seed article's accounting (seed 000 Table 2): a kernel reads each
//! buffer it does not produce once, whole, and writes each buffer it produces that is
//! used outside it (a graph output or another kernel's input). Buffers produced and last
//! used inside one kernel are kernel-local (`remove_kernel_local_buffers`): no traffic.

use super::plan::{Evaluation, FusionPlan, Rejection};
use crate::analysis::memory_deps::{NodeKind, SchedGraph, SchedNode};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// One generated or extern kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelReport {
    /// `fused_<origins>_<n>`, or the buffer name for an extern.
    pub name: String,
    /// Member buffer names, in execution order.
    pub members: Vec<String>,
    /// Sorted, unique aten origins.
    pub origins: Vec<String>,
    /// `(numel, rnumel)`.
    pub iteration: (i64, i64),
    /// Bytes read from memory.
    pub bytes_read: u64,
    /// Bytes written to memory.
    pub bytes_written: u64,
    /// Launches (calls) in the modelled compiler's output: 1, or 0 for a concat the
    /// library kernels wrote into and for a kernel run in the call of the one before it
    /// ([`Evaluation::Grouped`]).
    pub launches: u64,
    /// Members whose buffer never leaves the kernel.
    pub kernel_local: Vec<String>,
    /// `Some(kind)` for a library kernel (mm, bmm, convolution).
    pub extern_kind: Option<String>,
    /// How the modelled compiler runs it (a kernel, folded when building, a builtin);
    /// fuselab runs it.
    pub evaluation: Evaluation,
}

impl KernelReport {
    /// Records how the modelled compiler runs the kernel: one written into the call of
    /// the kernel before it ([`Evaluation::Grouped`]) has no launch of its own.
    pub fn set_evaluation(&mut self, evaluation: Evaluation) {
        self.evaluation = evaluation;
        if evaluation == Evaluation::Grouped {
            self.launches = 0;
        }
    }
}

/// One analysis node of the graph a strategy decided over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeReport {
    /// Buffer name (`buf3`).
    pub name: String,
    /// `pointwise`, `reduction` or `extern`.
    pub kind: &'static str,
    /// Aten ops it computes.
    pub origins: Vec<String>,
    /// Source location of its aten op (`file:line:col`), if known.
    pub loc: Option<String>,
    /// Buffers it reads: other nodes' names and function arguments (`arg0_1`), sorted.
    pub reads: Vec<String>,
    /// Bytes of its output buffer.
    pub bytes: u64,
    /// Whether the function returns its buffer.
    pub output: bool,
}

impl NodeReport {
    fn new(node: &SchedNode) -> Self {
        let mut reads: Vec<String> = node.reads.iter().map(|d| d.buffer.clone()).collect();
        reads.sort();
        reads.dedup();
        Self {
            name: node.name.clone(),
            kind: match node.kind {
                NodeKind::Pointwise => "pointwise",
                NodeKind::Reduction => "reduction",
                NodeKind::Extern => "extern",
            },
            origins: node.origins.clone(),
            loc: node.loc.as_ref().map(ToString::to_string),
            reads,
            bytes: node.out_bytes,
            output: node.is_output,
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "kind": self.kind,
            "origins": self.origins,
            "loc": self.loc,
            "reads": self.reads,
            "bytes": self.bytes,
            "output": self.output,
        })
    }
}

/// The report of one function.
#[derive(Clone, Debug)]
pub struct FunctionReport {
    /// Function name.
    pub function: String,
    /// Strategy name (`inductor`, `tvm`, ...).
    pub strategy: String,
    /// Kernels in execution order (generated and extern).
    pub kernels: Vec<KernelReport>,
    /// Rejected candidate pairs (node indices into `node_names`).
    pub rejections: Vec<Rejection>,
    /// The buffer name of every analysis node, by index (names the rejections' groups).
    pub node_names: Vec<String>,
    /// Eager baseline `(kernels, bytes_read, bytes_written)`, if known.
    pub unfused: Option<[i64; 3]>,
    /// The graph decided over, in analysis order.
    pub nodes: Vec<NodeReport>,
}

impl FunctionReport {
    /// Builds the report of `plan` over `graph`; kernel names are numbered in order.
    pub fn new(function: &str, strategy: &str, graph: &SchedGraph, plan: &FusionPlan) -> Self {
        let mut group_of: HashMap<&str, usize> = HashMap::default();
        for (g, members) in plan.groups.iter().enumerate() {
            for &m in members {
                group_of.insert(&graph.nodes[m].name, g);
            }
        }
        // Which groups (or the graph output) use each buffer.
        let mut used_outside: HashSet<(usize, &str)> = HashSet::default();
        for (g, members) in plan.groups.iter().enumerate() {
            for &m in members {
                for dep in &graph.nodes[m].reads {
                    if let Some(&pg) = group_of.get(dep.buffer.as_str()) {
                        if pg != g {
                            used_outside.insert((pg, dep.buffer.as_str()));
                        }
                    }
                }
            }
        }
        let mut kernels = Vec::new();
        let mut counter = 0;
        for (g, members) in plan.groups.iter().enumerate() {
            let names: HashSet<&str> = members.iter().map(|&m| graph.nodes[m].name.as_str()).collect();
            let mut read: BTreeSet<(&str, u64)> = BTreeSet::new();
            for &m in members {
                for dep in &graph.nodes[m].reads {
                    if !names.contains(dep.buffer.as_str()) {
                        read.insert((&dep.buffer, dep.buffer_bytes));
                    }
                }
            }
            let mut written = 0;
            let mut kernel_local = Vec::new();
            for &m in members {
                let node = &graph.nodes[m];
                if node.is_output || used_outside.contains(&(g, node.name.as_str())) {
                    written += node.out_bytes;
                } else {
                    kernel_local.push(node.name.clone());
                }
            }
            let origins: BTreeSet<String> = members
                .iter()
                .flat_map(|&m| graph.nodes[m].origins.iter().cloned())
                .collect();
            let origins: Vec<String> = origins.into_iter().collect();
            let first = &graph.nodes[members[0]];
            // A lone library call; an extern with fused epilogue ops (TVM) is a kernel.
            let is_extern = members.len() == 1 && first.kind == NodeKind::Extern;
            let reduction = members
                .iter()
                .map(|&m| &graph.nodes[m])
                .find(|n| n.kind == NodeKind::Reduction);
            let iteration = match reduction {
                Some(r) => r.iteration(),
                None => (
                    members
                        .iter()
                        .map(|&m| graph.nodes[m].iteration().0)
                        .max()
                        .unwrap_or(1),
                    1,
                ),
            };
            let name = if is_extern {
                first.name.clone()
            } else {
                counter += 1;
                format!("fused_{}_{}", origins.join("_"), counter - 1)
            };
            // A concat the mms wrote into: no launch, no traffic of its own.
            let nop = is_extern && first.nop;
            kernels.push(KernelReport {
                name,
                members: members.iter().map(|&m| graph.nodes[m].name.clone()).collect(),
                origins,
                iteration,
                bytes_read: if nop { 0 } else { read.iter().map(|(_, b)| b).sum() },
                bytes_written: if nop { 0 } else { written },
                launches: u64::from(!nop),
                kernel_local: if is_extern { Vec::new() } else { kernel_local },
                extern_kind: is_extern.then(|| first.origins.first().cloned().unwrap_or_default()),
                evaluation: Evaluation::Kernel,
            });
        }
        Self {
            function: function.to_string(),
            strategy: strategy.to_string(),
            kernels,
            rejections: Vec::new(),
            node_names: graph.nodes.iter().map(|n| n.name.clone()).collect(),
            unfused: graph.unfused,
            nodes: graph.nodes.iter().map(NodeReport::new).collect(),
        }
    }

    /// Generated (non-extern) kernels.
    pub fn generated_kernels(&self) -> usize {
        self.kernels.iter().filter(|k| k.extern_kind.is_none()).count()
    }

    /// The report as JSON.
    pub fn to_json(&self) -> Value {
        let read: u64 = self.kernels.iter().map(|k| k.bytes_read).sum();
        let written: u64 = self.kernels.iter().map(|k| k.bytes_written).sum();
        let kernels: Vec<Value> = self
            .kernels
            .iter()
            .map(|k| {
                let mut kernel = json!({
                    "name": k.name,
                    "extern": k.extern_kind,
                    "members": k.members,
                    "origins": k.origins,
                    "iteration": [k.iteration.0, k.iteration.1],
                    "bytes_read": k.bytes_read,
                    "bytes_written": k.bytes_written,
                    "kernel_local": k.kernel_local,
                    "launches": k.launches,
                });
                if let Some(evaluation) = k.evaluation.name() {
                    kernel["evaluation"] = json!(evaluation);
                }
                kernel
            })
            .collect();
        let rejected: Vec<Value> = self
            .rejections
            .iter()
            .map(|r| {
                let names = |nodes: &[usize]| -> String {
                    let names: Vec<&str> = nodes.iter().map(|&m| self.node_names[m].as_str()).collect();
                    names.join(",")
                };
                json!({"node1": names(&r.node1), "node2": names(&r.node2), "reason": &*r.reason})
            })
            .collect();
        let mut out = json!({
            "function": self.function,
            "strategy": self.strategy,
            "kernels": kernels,
            "totals": {
                "kernels": self.generated_kernels(),
                "extern_kernels": self.kernels.len() - self.generated_kernels(),
                "launches": self.kernels.iter().map(|k| k.launches).sum::<u64>(),
                "bytes_read": read,
                "bytes_written": written,
                "bytes_total": read + written,
            },
            "rejected": rejected,
        });
        for evaluation in [Evaluation::Folded, Evaluation::Builtin, Evaluation::Grouped] {
            let count = self.kernels.iter().filter(|k| k.evaluation == evaluation).count();
            if let (true, Some(name)) = (count > 0, evaluation.name()) {
                out["totals"][format!("{name}_kernels")] = json!(count);
            }
        }
        if let Some([kernels, read, written]) = self.unfused {
            out["unfused"] = json!({
                "kernels": kernels, "bytes_read": read, "bytes_written": written, "bytes_total": read + written,
            });
        }
        out["graph"] = json!({ "nodes": self.nodes.iter().map(NodeReport::to_json).collect::<Vec<_>>() });
        out
    }
}

/// Writes reports (one JSON document `{"functions": [...]}`) to `path` or stdout (`-`).
pub fn write_reports(path: &str, reports: &[FunctionReport]) -> Result<(), String> {
    let doc = json!({ "functions": reports.iter().map(FunctionReport::to_json).collect::<Vec<_>>() });
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n";
    if path == "-" {
        print!("{text}");
        Ok(())
    } else {
        std::fs::write(path, text).map_err(|e| format!("cannot write fusion report '{path}': {e}"))
    }
}
