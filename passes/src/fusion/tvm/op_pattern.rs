//! TVM's operator pattern kinds (`OpPatternKind`) and the op-level dataflow graph TVM's
//! FuseOps partitions (src/relax/analysis/tir_op_pattern_kind.cc,
//! src/relax/transform/fuse_ops.cc; `../shared/research/tvm_rules.md`).
//!
//! A TVM node is one Relax binding: one aten op as written in the input. Its `loop`
//! nodes (one per "block" of the legalized PrimFunc) are the loop nodes that share a
//! `fuselab.eager_id`: a composite decomposed by `--aten-decompose` (mean = sum block +
//! divide block, softmax = 4 blocks, ...) stays one TVM node, as Relax legalizes
//! `R.mean` / `R.nn.softmax` into one PrimFunc. `linear` and `addmm` are the exception:
//! Relax spells them as separate `permute_dims` / `matmul` / `add` bindings.
//!
//! Two ways to assign kinds:
//! - [`PatternMode::Relax`] derives the kind from the loop body as TVM 0.27 does
//!   (`PatternKindAnalyzer`): per block, the load indices against the store indices
//!   (identical: elementwise; a subsequence, unit load dims skipped: broadcast; only store
//!   variables: injective); a broadcast block with an elementwise load is elementwise; a
//!   reduction is kCommReduce unless it is an FMA with data reuse (matmul, conv: our
//!   externs) or reads a reduce variable inside a larger index (pooling), which are
//!   kOutEWiseFusable; the output block after a kCommReduce block makes the op
//!   kOutEWiseFusable (the "reduce + injective" softmax rule); blocks combine by `max`.
//! - [`PatternMode::Relay`] uses Relay's per-op registry (`TOpPattern`, [`relay_pattern`]):
//!   binary arithmetic, expand and unsqueeze kBroadcast, unary math kElemWise,
//!   `sum`/`mean`/`amax`/`var` kCommReduce, other shape ops kInjective, matmul/conv and
//!   softmax/log_softmax kOutEWiseFusable; layer_norm and rms_norm are their primitives
//!   (Relay's SimplifyInference), and an edge into a kBroadcast op from a same-shape
//!   producer is kElemWise (Relay's graph creator).
//!
//! `view` / `reshape` ops (present only with `--lower-aten-to-loop="materialize-views=true"`)
//! are at least kInjective, as TVM's reshape legalization makes them.
//!
//! Function arguments are kOpaque nodes (never fused). The edge from a producer to a
//! consumer carries the consumer's kind (but for Relay's same-shape rule). Nodes whose value the function returns are
//! TVM's `extern_ref`: roots of the post-dominator tree.

use crate::analysis::memory_deps::{scheduler_nodes, NodeKind, SchedGraph};
use fuselab_dialects::loops::{
    index::{from_affine_map_attr, unravel, IndexExpr},
    names,
};
use fuselab_dialects::{
    ir::eager_id_of,
    ir::{self, i64s},
};
use mlir_sys::MlirOperation;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::fmt;

/// The op Relax 0.27 does not legalize (no `FLegalize` for `relax.cumsum`): it stays a
/// relax op, which FoldConstant cannot evaluate and FuseOps sees as opaque; the VM runs
/// it as a builtin, not a `call_tir` (FoldConstant leaves it: fold_constant.rs).
pub const BUILTIN_OP: &str = "cumsum";
/// TVM's `OpPatternKind`; the order is TVM's (combining two kinds takes the max).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpPatternKind {
    /// Every output element reads the same-index element of each input.
    ElemWise = 0,
    /// Inputs are read at a subsequence of the output's indices.
    Broadcast = 1,
    /// Any one-to-one index map (reshape, transpose, gather, concat).
    Injective = 2,
    /// A commutative reduction (sum, max).
    CommReduce = 3,
    /// A complex op whose elementwise epilogue can be fused (matmul, conv, softmax in Relax).
    OutEWiseFusable = 4,
    /// A tuple node.
    Tuple = 7,
    /// Never fused.
    Opaque = 8,
}

impl OpPatternKind {
    /// TVM's spelling (`kElemWise`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::ElemWise => "kElemWise",
            Self::Broadcast => "kBroadcast",
            Self::Injective => "kInjective",
            Self::CommReduce => "kCommReduce",
            Self::OutEWiseFusable => "kOutEWiseFusable",
            Self::Tuple => "kTuple",
            Self::Opaque => "kOpaque",
        }
    }
}

impl fmt::Display for OpPatternKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How pattern kinds are assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatternMode {
    /// Derived from the loop body, as TVM Relax 0.27.
    Relax,
    /// Relay's per-op registry.
    Relay,
}

impl PatternMode {
    /// Parses `relax` / `relay`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "relax" => Some(Self::Relax),
            "relay" => Some(Self::Relay),
            _ => None,
        }
    }

    /// The mode of a pass's `mode` option, or a message for the user.
    pub fn from_options(options: &crate::registry::PassOptions) -> Result<Self, String> {
        let text = options.string("mode");
        Self::parse(text).ok_or_else(|| format!("unknown pattern mode '{text}' (expected relax or relay)"))
    }
}

/// What the body of one loop node (a TIR block) says, before blocks are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockPattern {
    /// A pure map: the max of the load/store index patterns (elementwise, broadcast or
    /// injective).
    Map(OpPatternKind),
    /// A reduction: kCommReduce, or kOutEWiseFusable for FMA-with-reuse / impure indices.
    Reduce(OpPatternKind),
    /// Neither.
    Opaque,
}

/// Index pattern of one load (`load_idx` over the load's buffer dims) against the store
/// indices `d0..d<store_rank>` with extents `ranges`.
fn load_pattern(
    load_idx: &[IndexExpr],
    load_shape: &[i64],
    store_rank: usize,
    ranges: &[i64],
) -> Option<OpPatternKind> {
    let is_zero = |e: &IndexExpr| e.as_constant() == Some(0);
    // A unit store dim may have been simplified to 0 in the load index.
    let same = |e: &IndexExpr, k: usize| *e == IndexExpr::dim(k) || (ranges[k] == 1 && is_zero(e));
    if load_idx.len() == store_rank && load_idx.iter().enumerate().all(|(k, e)| same(e, k)) {
        return Some(OpPatternKind::ElemWise);
    }
    // Broadcast: each non-unit load index is a store index, in order.
    let mut j = 0;
    let mut broadcast = true;
    for (i, e) in load_idx.iter().enumerate() {
        if load_shape[i] == 1 && is_zero(e) {
            continue;
        }
        while j < store_rank && !same(e, j) {
            j += 1;
        }
        if j == store_rank {
            broadcast = false;
            break;
        }
    }
    if broadcast {
        return Some(OpPatternKind::Broadcast);
    }
    // An indirect index (a value loaded at run time, as gather's): opaque. Measured,
    // not read: TVM 0.27's AnnotateTIROpPattern gives the legalized `gather` PrimFunc
    // `op_pattern` 8 (kOpaque), so Relax keeps a gather apart from its index's producer
    // (tools/fidelity/tvm_probe.py, gather_nll: `expand_dims` and `gather` separate).
    if load_idx.iter().any(IndexExpr::has_symbols) {
        return None;
    }
    // Injective: only store variables appear.
    let only_store_vars = load_idx
        .iter()
        .all(|e| (0..ranges.len()).all(|k| k < store_rank || !e.uses_dim(k)));
    only_store_vars.then_some(OpPatternKind::Injective)
}

/// Whether every index that uses a reduce variable is exactly that variable
/// (TVM's `IsPureReducePattern`).
fn pure_reduce(load_idx: &[IndexExpr], store_rank: usize, all_dims: usize) -> bool {
    load_idx.iter().all(|e| {
        let used: Vec<usize> = (store_rank..all_dims).filter(|&k| e.uses_dim(k)).collect();
        match used.as_slice() {
            [] => true,
            [k] => *e == IndexExpr::dim(*k),
            _ => false,
        }
    })
}

/// The block pattern of one `loop.pointwise` / `loop.reduction` / `loop.extern`.
pub fn block_pattern(op: MlirOperation) -> Result<BlockPattern, String> {
    let name = ir::op_name(op);
    if name == names::EXTERN {
        // matmul / conv: a reduction whose body is an FMA with data reuse.
        return Ok(BlockPattern::Reduce(OpPatternKind::OutEWiseFusable));
    }
    let ranges = i64s(op, "ranges");
    let reduction_ranges = i64s(op, "reduction_ranges");
    let store_rank = ranges.len();
    let mut all = ranges.clone();
    all.extend(&reduction_ranges);
    let mut pattern = OpPatternKind::ElemWise;
    let mut has_elemwise = false;
    let mut opaque = false;
    let mut loads = Vec::new();
    for load in ir::collect_ops(op, |n| n == names::LOAD) {
        let buffer = ir::operand(load, 0);
        let shape = ir::tensor_type(buffer)
            .ok_or("load of a buffer that is not a supported tensor")?
            .shape;
        let (flat, _, _) = from_affine_map_attr(ir::attr(load, "index").ok_or("load without index")?)
            .ok_or("bad load index")?;
        let idx = unravel(&flat, &shape, &all);
        // A buffer stored in another dim order (a channels-last convolution result,
        // Inductor's layout choice) is the same tensor to TVM, whose conv2d writes NCHW:
        // its index is read in the logical order, so `conv + bias` stays elementwise and
        // the convolution absorbs its epilogue (kOutEWiseFusable).
        let (idx, shape) = match ir::defining_op(buffer).map(fuselab_dialects::loops::StoredOrder::of) {
            Some(Ok(Some(order))) => (order.logical(&idx), order.logical_shape(&shape)),
            _ => (idx, shape),
        };
        loads.push(idx.clone());
        if opaque {
            continue;
        }
        match load_pattern(&idx, &shape, store_rank, &all) {
            Some(OpPatternKind::ElemWise) => has_elemwise = true,
            Some(p) => pattern = pattern.max(p),
            None => opaque = true,
        }
    }
    // A reduction block is one whatever its loads look like: TVM's analyzer classifies a
    // block by its reduce iterators, which a reduction over extent-1 dims still has
    // (`mean` of a 1x1 feature map: kCommReduce in TVM 0.27, ResNet-18 of the corpus).
    if !opaque && reduction_ranges.is_empty() {
        if pattern == OpPatternKind::Broadcast && has_elemwise {
            pattern = OpPatternKind::ElemWise;
        }
        return Ok(BlockPattern::Map(pattern));
    }
    if reduction_ranges.is_empty() {
        return Ok(BlockPattern::Opaque);
    }
    // Our reduction bodies are a single combiner over one value: never an FMA.
    if loads.iter().all(|idx| pure_reduce(idx, store_rank, all.len())) {
        Ok(BlockPattern::Reduce(OpPatternKind::CommReduce))
    } else {
        Ok(BlockPattern::Reduce(OpPatternKind::OutEWiseFusable))
    }
}

/// Combines the blocks of one op in order (TVM's `PatternKindAnalyzer`); `is_output[i]`
/// says whether block `i` writes the op's result.
pub fn combine_blocks(blocks: &[BlockPattern], is_output: &[bool]) -> OpPatternKind {
    let mut kind = OpPatternKind::ElemWise;
    for (block, &output) in blocks.iter().zip(is_output) {
        match *block {
            BlockPattern::Map(p) => {
                // "This rule for softmax: reduce + injective."
                if output && kind == OpPatternKind::CommReduce {
                    kind = OpPatternKind::OutEWiseFusable;
                } else {
                    kind = kind.max(p);
                }
            }
            BlockPattern::Reduce(p) => kind = kind.max(p),
            BlockPattern::Opaque => return OpPatternKind::Opaque,
        }
    }
    kind
}

/// Relay's registered `TOpPattern` for an aten op (by short name), from the Relay op an
/// aten op becomes in Relay's PyTorch frontend (TVM's last Relay release,
/// python/tvm/relay/op/_tensor.py, _transform.py, _reduce.py, nn/_nn.py):
/// - kBroadcast: add/subtract/multiply/divide/power/maximum/minimum/where and the
///   comparisons (`register_broadcast_schedule`), `expand_dims` and `broadcast_to`
///   (unsqueeze, expand);
/// - kCommReduce: sum/mean/max/min/variance/any (`register_reduce_schedule`);
/// - kOutEWiseFusable: nn.dense, nn.matmul, nn.batch_matmul, nn.conv2d, and
///   nn.softmax / nn.log_softmax (registered OUT_ELEMWISE_FUSABLE: they absorb a
///   following elementwise op);
/// - kInjective: reshape, transpose, squeeze, strided_slice, take, concatenate, gather;
/// - kElemWise: unary math, nn.relu, clip, cast, copy, logical_not; gelu/silu/reciprocal
///   are elementwise compositions in the frontend.
///
/// layer_norm, group_norm, batch_norm and rms_norm have no kind of their own: Relay's
/// `SimplifyInference` rewrites nn.layer_norm, nn.group_norm and nn.batch_norm into primitive ops before
/// FuseOps (and rms_norm is written with primitives), so their loop nodes are separate
/// TVM nodes ([`relay_decomposed`]).
pub fn relay_pattern(op: &str) -> OpPatternKind {
    use OpPatternKind::*;
    match op {
        "add" | "sub" | "mul" | "div" | "pow" | "maximum" | "minimum" | "where" | "eq" | "ne" | "lt"
        | "le" | "gt" | "ge" | "expand" | "unsqueeze" => Broadcast,
        "sum" | "mean" | "amax" | "amin" | "var" | "any" => CommReduce,
        "mm" | "bmm" | "convolution" | "linear" | "addmm" | "softmax" | "log_softmax" => OutEWiseFusable,
        "view" | "reshape" | "permute" | "transpose" | "squeeze" | "slice" | "select" | "cat" | "gather" => {
            Injective
        }
        _ => ElemWise,
    }
}

/// Ops that Relay sees as their primitives (see [`relay_pattern`]).
pub fn relay_decomposed(op: &str) -> bool {
    matches!(op, "layer_norm" | "rms_norm" | "group_norm" | "batch_norm")
}

/// One node of TVM's graph: a function argument or one op (one or more loop nodes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TvmNode {
    /// The buffer name of the op's result (`arg0_1` for arguments).
    pub name: String,
    /// The aten op (`mean`, `add`, ...), or `param`.
    pub op: String,
    /// Indices into [`SchedGraph::nodes`], in program order (empty for arguments).
    pub members: Vec<usize>,
    /// The op's pattern kind.
    pub kind: OpPatternKind,
    /// Returned by the function (TVM's `extern_ref`).
    pub extern_ref: bool,
}

/// TVM's `IndexedForwardGraph`: nodes in post-DFS order (arguments, then ops in program
/// order) and their consumers; an edge carries the consumer's kind, except the edges of
/// Relay's same-shape rule ([`TvmGraph::elementwise_edges`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TvmGraph {
    /// Nodes.
    pub nodes: Vec<TvmNode>,
    /// Consumers of each node (deduplicated, in program order).
    pub consumers: Vec<Vec<usize>>,
    /// `(producer, consumer)` edges that are kElemWise although the consumer is
    /// kBroadcast: Relay's `IndexedForwardGraph::Creator` gives an argument edge of a
    /// kBroadcast call the kind kElemWise when the argument's shape equals the call's
    /// result shape (src/relay/analysis/graph_partitioner.cc; fuse_ops.cc before it), so
    /// a conv/dense/matmul absorbs a same-shape bias, residual or scale epilogue. Relax's
    /// graph creator has no such rule: empty in relax mode.
    pub elementwise_edges: std::collections::HashSet<(usize, usize)>,
}

impl TvmGraph {
    /// The pattern of the edge from `producer` to its consumer `consumer`.
    pub fn edge_kind(&self, producer: usize, consumer: usize) -> OpPatternKind {
        if self.elementwise_edges.contains(&(producer, consumer)) {
            OpPatternKind::ElemWise
        } else {
            self.nodes[consumer].kind
        }
    }

    /// Builds the graph of `func`, whose loop nodes `analyze` described as `graph`.
    pub fn build(func: MlirOperation, graph: &SchedGraph, mode: PatternMode) -> Result<Self, String> {
        let block = ir::body(func).ok_or("function without a body")?;
        let loop_ops = scheduler_nodes(block);
        if loop_ops.len() != graph.nodes.len() {
            return Err("the loop nodes changed since the analysis".into());
        }
        let mut out = TvmGraph::default();
        let mut node_of_buffer: HashMap<&str, usize> = HashMap::default();
        for (name, _) in &graph.inputs {
            node_of_buffer.insert(name, out.nodes.len());
            out.nodes.push(TvmNode {
                name: name.clone(),
                op: "param".into(),
                members: Vec::new(),
                kind: OpPatternKind::Opaque,
                extern_ref: false,
            });
        }
        // Group loop nodes by eager id (Relax's op granularity).
        let mut op_of_id: HashMap<i64, usize> = HashMap::default();
        let mut node_of_member = vec![0; graph.nodes.len()];
        for (m, &op) in loop_ops.iter().enumerate() {
            let mut origin = graph.nodes[m].origins.first().cloned().unwrap_or_default();
            let separate = matches!(origin.as_str(), "linear" | "addmm")
                || (mode == PatternMode::Relay && relay_decomposed(&origin));
            if separate && graph.nodes[m].kind == NodeKind::Extern {
                // The matmul of a linear is a binding of its own.
                origin = ir::attr(op, "kind")
                    .and_then(fuselab_dialects::attrs::string_raw)
                    .unwrap_or(origin);
            }
            let existing = eager_id_of(op)
                .filter(|_| !separate)
                .and_then(|id| op_of_id.get(&id).copied());
            let n = match existing {
                Some(n) => n,
                None => {
                    out.nodes.push(TvmNode {
                        name: String::new(),
                        op: origin,
                        members: Vec::new(),
                        kind: OpPatternKind::ElemWise,
                        extern_ref: false,
                    });
                    if let Some(id) = eager_id_of(op).filter(|_| !separate) {
                        op_of_id.insert(id, out.nodes.len() - 1);
                    }
                    out.nodes.len() - 1
                }
            };
            out.nodes[n].members.push(m);
            node_of_member[m] = n;
        }
        out.consumers = vec![Vec::new(); out.nodes.len()];
        for (m, sched) in graph.nodes.iter().enumerate() {
            node_of_buffer.insert(&sched.name, node_of_member[m]);
        }
        // Buffers another op reads: its producer's block writes them out.
        let mut read_outside: HashSet<&str> = HashSet::default();
        let mut edges: HashSet<(usize, usize)> = HashSet::default();
        for (m, sched) in graph.nodes.iter().enumerate() {
            let consumer = node_of_member[m];
            for dep in &sched.reads {
                let Some(&producer) = node_of_buffer.get(dep.buffer.as_str()) else {
                    continue;
                };
                if producer == consumer {
                    continue;
                }
                read_outside.insert(dep.buffer.as_str());
                if producer > consumer {
                    return Err(format!(
                        "'{}' reads '{}', which an op later in the function produces \
                         (the loop nodes of one fuselab.eager_id must be contiguous)",
                        sched.name, dep.buffer
                    ));
                }
                // A set: a graph input may have tens of thousands of consumers.
                if edges.insert((producer, consumer)) {
                    out.consumers[producer].push(consumer);
                }
            }
        }
        for n in graph.inputs.len()..out.nodes.len() {
            let members = out.nodes[n].members.clone();
            // A block writes the op's result when its buffer leaves the op.
            let leaves: Vec<bool> = members
                .iter()
                .map(|&m| graph.nodes[m].is_output || read_outside.contains(graph.nodes[m].name.as_str()))
                .collect();
            let node = &mut out.nodes[n];
            node.extern_ref = members.iter().any(|&m| graph.nodes[m].is_output);
            let last_leaving = members
                .iter()
                .zip(&leaves)
                .rev()
                .find(|(_, &l)| l)
                .map(|(&m, _)| m);
            node.name = graph.nodes[last_leaving.unwrap_or(members[members.len() - 1])]
                .name
                .clone();
            node.kind = match mode {
                PatternMode::Relay if relay_decomposed(&node.op) => {
                    // One primitive per loop node: its own block's kind.
                    let blocks = members
                        .iter()
                        .map(|&m| block_pattern(loop_ops[m]))
                        .collect::<Result<Vec<_>, String>>()?;
                    combine_blocks(&blocks, &vec![true; blocks.len()])
                }
                PatternMode::Relay => relay_pattern(&node.op),
                PatternMode::Relax => {
                    let blocks = members
                        .iter()
                        .map(|&m| {
                            if graph.nodes[m].kind == NodeKind::Extern {
                                Ok(BlockPattern::Reduce(OpPatternKind::OutEWiseFusable))
                            } else {
                                block_pattern(loop_ops[m])
                            }
                        })
                        .collect::<Result<Vec<_>, String>>()?;
                    let kind = combine_blocks(&blocks, &leaves);
                    // TVM legalizes reshape with ravel/unravel index arithmetic
                    // (topi.reshape), which its syntactic index check sees as injective
                    // even where our simplified index is a plain broadcast.
                    if matches!(node.op.as_str(), "view" | "reshape") {
                        kind.max(OpPatternKind::Injective)
                    } else if node.op == "batch_norm" {
                        // Relax's legalized batch_norm (its [C] parameters expanded to
                        // [C, 1, 1], three outputs) is kInjective: a convolution does not
                        // absorb it, it absorbs its elementwise users (TVM 0.27 on the
                        // corpus: conv2d | fused_batch_norm_relu | max_pool2d).
                        kind.max(OpPatternKind::Injective)
                    } else if node.op == "select" || node.op == BUILTIN_OP {
                        // kOpaque: Relax imports `select.int` as `take(x, const index,
                        // dim)` (exported_program_translator.py), whose legalized
                        // PrimFunc loads the index from a tensor, as every gather; and
                        // `cumsum` is no TIR function in Relax 0.27 (no legalization), a
                        // relax op FuseOps never fuses (fold_constant.rs).
                        OpPatternKind::Opaque
                    } else if node.op == "max_pool2d" {
                        // Relax legalizes max_pool2d to topi's pool2d, a reduction over
                        // the window (kCommReduce); fuse-import unrolls the window into
                        // maximums of slices, which carry no reduction.
                        kind.max(OpPatternKind::CommReduce)
                    } else {
                        kind
                    }
                }
            };
        }
        if mode == PatternMode::Relay {
            // The result shape of each op node: its named (leaving) member's type (a
            // channels-last convolution's logical shape, not its buffer's).
            let shapes: Vec<Option<Vec<i64>>> = out
                .nodes
                .iter()
                .map(|n| {
                    let m = loop_ops[*n.members.iter().find(|&&m| graph.nodes[m].name == n.name)?];
                    let stored = ir::tensor_type(ir::result(m, 0))?.shape;
                    Some(match fuselab_dialects::loops::StoredOrder::of(m) {
                        Ok(Some(order)) => order.logical_shape(&stored),
                        _ => stored,
                    })
                })
                .collect();
            for p in graph.inputs.len()..out.nodes.len() {
                for &c in &out.consumers[p] {
                    let same = shapes[p].is_some() && shapes[p] == shapes[c];
                    if out.nodes[c].kind == OpPatternKind::Broadcast && same {
                        out.elementwise_edges.insert((p, c));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Number of function arguments (the first nodes).
    pub fn param_count(&self) -> usize {
        self.nodes.iter().take_while(|n| n.op == "param").count()
    }
}

/// Builds the TVM graph of a function inside a pass, with `mode` from the pass's
/// `mode` option; errors are reported at the function.
pub fn tvm_graph_in_pass(
    func: melior::ir::OperationRef,
    cx: &crate::registry::PassContext,
) -> Result<(SchedGraph, TvmGraph, String), crate::registry::PassFailed> {
    use melior::ir::operation::OperationLike as _;
    let (graph, name) = cx.sched_graph(func)?;
    let built =
        PatternMode::from_options(&cx.options).and_then(|mode| TvmGraph::build(func.to_raw(), &graph, mode));
    match built {
        Ok(tvm) => Ok((graph, tvm, name)),
        Err(message) => {
            cx.sink.error(func.location(), message);
            Err(crate::registry::PassFailed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use OpPatternKind::*;

    fn d(k: usize) -> IndexExpr {
        IndexExpr::dim(k)
    }

    #[test]
    fn load_patterns_follow_tir_rules() {
        let r = [4, 8];
        // A[i, j] for C[i, j]: elementwise.
        assert_eq!(load_pattern(&[d(0), d(1)], &[4, 8], 2, &r), Some(ElemWise));
        // B[j]: broadcast; B[i, 0] with a unit dim: broadcast.
        assert_eq!(load_pattern(&[d(1)], &[8], 2, &r), Some(Broadcast));
        assert_eq!(
            load_pattern(&[d(0), IndexExpr::constant(0)], &[4, 1], 2, &r),
            Some(Broadcast)
        );
        // A[j, i] (transpose): injective, not broadcast (order matters).
        assert_eq!(load_pattern(&[d(1), d(0)], &[8, 4], 2, &r), Some(Injective));
        // A[i, k] with a reduce variable k: not a pure map.
        assert_eq!(load_pattern(&[d(0), d(2)], &[4, 8], 1, &[4, 8, 8]), None);
    }

    #[test]
    fn blocks_combine_like_tvm() {
        let mean = [BlockPattern::Reduce(CommReduce), BlockPattern::Map(ElemWise)];
        assert_eq!(combine_blocks(&mean, &[false, true]), OutEWiseFusable);
        // sum alone, and a reduction followed by a non-output block, stay kCommReduce.
        assert_eq!(combine_blocks(&mean[..1], &[true]), CommReduce);
        assert_eq!(combine_blocks(&mean, &[false, false]), CommReduce);
        assert_eq!(
            combine_blocks(
                &[BlockPattern::Map(Broadcast), BlockPattern::Map(Injective)],
                &[false, true]
            ),
            Injective
        );
        assert_eq!(combine_blocks(&[BlockPattern::Opaque], &[true]), Opaque);
    }

    #[test]
    fn pure_reduce_needs_bare_reduce_variables() {
        assert!(pure_reduce(&[d(0), d(1)], 1, 2));
        assert!(!pure_reduce(&[d(0).add(&d(1))], 1, 2));
    }
}
