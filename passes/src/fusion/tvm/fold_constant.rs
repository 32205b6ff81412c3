//! Relax's FoldConstant before FuseOps (src/relax/transform/fold_constant.cc, TVM 0.27;
//! the pipeline of `tools/fidelity/tvm_probe.py`: LegalizeOps, AnnotateTIROpPattern,
//! FoldConstant, FuseOps, FuseTIR).
//!
//! Rule: a `call_tir` whose every argument is a relax `Constant` (and whose result is one
//! tensor of static shape) is evaluated when the module is built and replaced by its
//! value (`ShouldBeFolded` is always true: no size limit), so FuseOps never sees it; the
//! folding is post-order, so whole subgraphs fold. What is constant: Relax's
//! `from_exported_program` binds the program's buffers and lifted tensor constants as
//! `Constant`s (`BindParams`; with `keep_params_as_input` only the parameters stay
//! inputs), and an op with no tensor argument (`arange`, `full`) has only constant
//! arguments. One exception, read from the importer's output: `index_tensor` receives
//! its indices as a tuple, bound to `TupleGetItem` variables, which FoldConstant does not
//! look through (it replaces a variable only when it is bound to a `Constant`), so an
//! indexing op is never folded, and neither is anything computed from it.
//!
//! This module computes the decision as data ([`folded_ops`]) and the graph FuseOps then
//! sees ([`hoist`]): each folded op becomes a leaf, like an argument. fuselab has no
//! buffer values at compile time (archives are stripped; buffers are bound at run time),
//! so a folded op still runs, as a kernel of its own marked folded: the report and the IR
//! say which kernels Relax would not launch.

use super::op_pattern::{OpPatternKind, TvmGraph, TvmNode, BUILTIN_OP};
use fuselab_dialects::{attrs::string_raw, ir};
use mlir_sys::MlirOperation;

/// The `fuselab.input` kinds (torch.export's `InputSpec`) that Relax binds as
/// constants: buffers and lifted tensor constants.
const COMPILE_TIME_INPUTS: &[&str] = &["buffer", "tensor_constant", "constant_input"];

/// The op Relax imports as `index_tensor` (never folded: see the module doc):
/// fuse-import's origin for an `aten.index.Tensor` with several index tensors (one is
/// Relax's `take`, which folds).
const INDEX_OP: &str = "index_tensor";

/// For each argument of `func`, whether Relax binds it as a constant (its
/// `fuselab.input` kind, written by fuse-import; an argument without one is a user
/// input).
pub fn compile_time_args(func: MlirOperation, count: usize) -> Vec<bool> {
    (0..count)
        .map(|i| {
            ir::arg_attr(func, i, "fuselab.input")
                .and_then(string_raw)
                .is_some_and(|kind| COMPILE_TIME_INPUTS.contains(&kind.as_str()))
        })
        .collect()
}

/// Which nodes of `graph` FoldConstant evaluates: arguments bound as constants
/// (`compile_time[i]` for argument `i`), and ops other than `index_tensor` and the
/// builtin `cumsum` whose every producer is folded (ops without producers included).
pub fn folded_ops(graph: &TvmGraph, compile_time: &[bool]) -> Vec<bool> {
    let params = graph.param_count();
    let mut producers = vec![Vec::new(); graph.nodes.len()];
    for (p, consumers) in graph.consumers.iter().enumerate() {
        for &c in consumers {
            producers[c].push(p);
        }
    }
    let mut folded = vec![false; graph.nodes.len()];
    // Nodes are in a topological order (arguments first).
    for n in 0..graph.nodes.len() {
        folded[n] = if n < params {
            compile_time.get(n).copied().unwrap_or(false)
        } else {
            !matches!(graph.nodes[n].op.as_str(), INDEX_OP | BUILTIN_OP)
                && producers[n].iter().all(|&p| folded[p])
        };
    }
    folded
}

/// The graph FuseOps sees after folding.
#[derive(Clone, Debug)]
pub struct Hoisted {
    /// Arguments, then the folded ops as leaves (`op = "param"`, opaque, members kept),
    /// then the other ops, each in its original order.
    pub graph: TvmGraph,
    /// The op name of every folded op, in order (they follow the arguments).
    pub folded_ops: Vec<String>,
}

/// `graph` with the folded ops (`folded`, from [`folded_ops`]) moved after the
/// arguments as leaves: FuseOps fuses nothing into or out of them.
pub fn hoist(graph: &TvmGraph, folded: &[bool]) -> Hoisted {
    let params = graph.param_count();
    let folded_op = |n: usize| n >= params && folded[n];
    let order: Vec<usize> = (0..params)
        .chain((params..graph.nodes.len()).filter(|&n| folded_op(n)))
        .chain((params..graph.nodes.len()).filter(|&n| !folded_op(n)))
        .collect();
    let mut new_of_old = vec![0; graph.nodes.len()];
    for (new, &old) in order.iter().enumerate() {
        new_of_old[old] = new;
    }
    let mut folded_names = Vec::new();
    let nodes = order
        .iter()
        .map(|&old| {
            let node = &graph.nodes[old];
            if folded_op(old) {
                folded_names.push(node.op.clone());
                TvmNode {
                    op: "param".into(),
                    kind: OpPatternKind::Opaque,
                    ..node.clone()
                }
            } else {
                node.clone()
            }
        })
        .collect();
    let consumers = order
        .iter()
        .map(|&old| graph.consumers[old].iter().map(|&c| new_of_old[c]).collect())
        .collect();
    let elementwise_edges = graph
        .elementwise_edges
        .iter()
        .map(|&(p, c)| (new_of_old[p], new_of_old[c]))
        .collect();
    Hoisted {
        graph: TvmGraph {
            nodes,
            consumers,
            elementwise_edges,
        },
        folded_ops: folded_names,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(op: &str, members: Vec<usize>) -> TvmNode {
        TvmNode {
            name: format!("{op}{members:?}"),
            op: op.into(),
            members,
            kind: if op == "param" {
                OpPatternKind::Opaque
            } else {
                OpPatternKind::ElemWise
            },
            extern_ref: false,
        }
    }

    /// x (input), pos (buffer); arange -> add(arange, pos) -> index(add) -> mul(x, index);
    /// and a lone `full` used by mul2(x, full).
    fn graph() -> TvmGraph {
        TvmGraph {
            nodes: vec![
                node("param", vec![]),
                node("param", vec![]),
                node("arange", vec![0]),
                node("add", vec![1]),
                node("index_tensor", vec![2]),
                node("mul", vec![3]),
                node("full", vec![4]),
                node("mul", vec![5]),
            ],
            consumers: vec![
                vec![5, 7],
                vec![3],
                vec![3],
                vec![4],
                vec![5],
                vec![],
                vec![7],
                vec![],
            ],
            elementwise_edges: [(3, 4)].into_iter().collect(),
        }
    }

    #[test]
    fn folds_what_depends_on_constants_only() {
        let g = graph();
        let folded = folded_ops(&g, &[false, true]);
        assert_eq!(folded, [false, true, true, true, false, false, true, false]);
        // A parameter (not bound): nothing computed from it folds.
        let folded = folded_ops(&g, &[false, false]);
        assert_eq!(folded, [false, false, true, false, false, false, true, false]);
    }

    #[test]
    fn hoisted_ops_become_leaves_after_the_arguments() {
        let g = graph();
        let h = hoist(&g, &folded_ops(&g, &[false, true]));
        assert_eq!(h.folded_ops, ["arange", "add", "full"]);
        let ops: Vec<&str> = h.graph.nodes.iter().map(|n| n.op.as_str()).collect();
        assert_eq!(
            ops,
            [
                "param",
                "param",
                "param",
                "param",
                "param",
                "index_tensor",
                "mul",
                "mul"
            ]
        );
        assert_eq!(h.graph.param_count(), 5);
        // add (old 3, new 3) feeds index (old 4, new 5); full (old 6, new 4) feeds mul (new 7).
        assert_eq!(h.graph.consumers[3], [5]);
        assert_eq!(h.graph.consumers[4], [7]);
        assert_eq!(h.graph.nodes[3].members, [1]);
        assert!(h.graph.elementwise_edges.contains(&(3, 5)));
    }
}
