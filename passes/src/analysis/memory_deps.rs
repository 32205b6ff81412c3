//! MemoryDep analysis: for every realized node of a function in the `loop` dialect, what
//! it reads and writes, in Inductor's terms (torch/_inductor/dependencies.py; seed 000
//! §7.1): `MemoryDep(buffer, index, ranges)` where `index` is the flat storage offset as
//! an expression of the node's loop variables `d0, d1, ...` and `ranges` their extents.
//! Trailing variables the index does not use are dropped from the ranges (so a
//! reduction's write `MemoryDep('buf0', d0, {d0: 1024})` equals its consumer's read).
//! Externs read and write whole buffers (`StarDep`). Reads of graph inputs are *met*
//! dependencies, reads of other nodes' buffers *unmet*.
//!
//! This is plain data: the fusion strategies and the report consume it.

use fuselab_dialects::ir;
use fuselab_dialects::ir::{i64s, string_list};
use fuselab_dialects::loops::names;
use fuselab_dialects::{
    loops::index::{contiguous_index, from_affine_map_attr, IndexExpr},
    types::TensorType,
    SourceLoc,
};
use mlir_sys::{MlirOperation, MlirValue};
use rustc_hash::{FxHashMap as HashMap, FxHashSet};
use std::fmt;

/// One memory access pattern of a node.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MemoryDep {
    /// Buffer name (`arg0_1` for function arguments, `buf0` for nodes).
    pub buffer: String,
    /// Flat index over the node's variables (meaningless for a star dep).
    pub index: IndexExpr,
    /// Extents of `d0..dk`, up to the last variable the index uses.
    pub ranges: Vec<i64>,
    /// The whole buffer (extern kernels): `StarDep`.
    pub star: bool,
    /// Bytes per element of the buffer.
    pub elem_bytes: u64,
    /// Bytes of the whole buffer.
    pub buffer_bytes: u64,
}

impl MemoryDep {
    /// Whether the index depends on a value loaded at run time (`gather`).
    pub fn is_indirect(&self) -> bool {
        self.index.has_symbols()
    }

    /// Inductor's `numbytes_hint`: elements addressed (product of the ranges of the
    /// variables the index uses) times the element size; the whole buffer for star or
    /// indirect deps.
    pub fn numbytes(&self) -> u64 {
        if self.star || self.is_indirect() {
            return self.buffer_bytes;
        }
        let elements: i64 = self
            .ranges
            .iter()
            .enumerate()
            .filter(|(d, _)| self.index.uses_dim(*d))
            .map(|(_, r)| *r)
            .product();
        elements as u64 * self.elem_bytes
    }
}

impl fmt::Display for MemoryDep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.star {
            return write!(f, "StarDep(name='{}')", self.buffer);
        }
        let ranges: Vec<String> = self
            .ranges
            .iter()
            .enumerate()
            .map(|(d, r)| format!("d{d}: {r}"))
            .collect();
        write!(
            f,
            "MemoryDep('{}', {}, {{{}}})",
            self.buffer,
            self.index.to_inductor(),
            ranges.join(", ")
        )
    }
}

/// What kind of scheduler node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// `loop.pointwise`.
    Pointwise,
    /// `loop.reduction`.
    Reduction,
    /// `loop.extern`.
    Extern,
}

/// One realized node with its dependencies.
#[derive(Clone, Debug)]
pub struct SchedNode {
    /// Buffer name.
    pub name: String,
    /// Pointwise, reduction or extern.
    pub kind: NodeKind,
    /// Output ranges (pointwise/reduction).
    pub ranges: Vec<i64>,
    /// Reduction ranges (reductions).
    pub reduction_ranges: Vec<i64>,
    /// Reads, deduplicated, sorted.
    pub reads: Vec<MemoryDep>,
    /// Writes (one: its own buffer).
    pub writes: Vec<MemoryDep>,
    /// Aten ops this node computes.
    pub origins: Vec<String>,
    /// Source location.
    pub loc: Option<SourceLoc>,
    /// Bytes of its output buffer.
    pub out_bytes: u64,
    /// Indices of nodes whose buffers it reads.
    pub producers: Vec<usize>,
    /// Whether the function returns its buffer.
    pub is_output: bool,
    /// A node that launches nothing and moves no data: a `concat` extern, whose inputs
    /// were written into its slices (Inductor's ConcatKernel, a NopKernel).
    pub nop: bool,
}

impl SchedNode {
    /// This pointwise node iterating its dims in `order` (iteration dim `k` is dim
    /// `order[k]`; Inductor's `SchedulerNode.apply_new_loop_order`): its ranges permuted
    /// and every dependency's index re-expressed over the new variables. The buffer it
    /// writes is unchanged, so its write becomes strided.
    pub fn reordered(&self, order: &[usize]) -> SchedNode {
        let mut position = vec![0; self.ranges.len()];
        for (k, &d) in order.iter().enumerate() {
            position[d] = k;
        }
        let ranges: Vec<i64> = order.iter().map(|&d| self.ranges[d]).collect();
        let dims: Vec<IndexExpr> = position.iter().map(|&k| IndexExpr::dim(k)).collect();
        let remap = |dep: &MemoryDep| -> MemoryDep {
            if dep.star {
                return dep.clone();
            }
            let syms: Vec<IndexExpr> = (0..dep.index.symbol_count()).map(IndexExpr::sym).collect();
            let index = dep
                .index
                .substitute(&dims, &syms, &ranges)
                .drop_unit_dims(&ranges);
            MemoryDep {
                ranges: truncate(&index, &ranges),
                index,
                ..dep.clone()
            }
        };
        let mut reads: Vec<MemoryDep> = self.reads.iter().map(remap).collect();
        reads.sort();
        reads.dedup();
        let writes = self.writes.iter().map(remap).collect();
        SchedNode {
            ranges,
            reads,
            writes,
            ..self.clone()
        }
    }

    /// Inductor's `group[1]`: `(numel, rnumel)`.
    pub fn iteration(&self) -> (i64, i64) {
        (
            self.ranges.iter().product(),
            self.reduction_ranges.iter().product(),
        )
    }
}

/// The scheduler's view of one function.
#[derive(Clone, Debug, Default)]
pub struct SchedGraph {
    /// Realized nodes in program order (a topological order).
    pub nodes: Vec<SchedNode>,
    /// Graph input names with their sizes in bytes.
    pub inputs: Vec<(String, u64)>,
    /// `fuselab.unfused`: eager (kernels, bytes read, bytes written), if recorded.
    pub unfused: Option<[i64; 3]>,
}

impl SchedGraph {
    /// Met (`reads of graph inputs`) and unmet (reads of node buffers) deps of `node`.
    pub fn met_unmet(&self, node: &SchedNode) -> (Vec<MemoryDep>, Vec<MemoryDep>) {
        node.reads
            .iter()
            .cloned()
            .partition(|d| self.inputs.iter().any(|(n, _)| *n == d.buffer))
    }
}

fn truncate(index: &IndexExpr, ranges: &[i64]) -> Vec<i64> {
    let used = (0..ranges.len())
        .rev()
        .find(|&d| index.uses_dim(d))
        .map_or(0, |d| d + 1);
    ranges[..used].to_vec()
}

/// The scheduler nodes of `block` (`loop.pointwise`, `loop.reduction`, `loop.extern`) in
/// program order: the order of [`SchedGraph::nodes`].
pub fn scheduler_nodes(block: mlir_sys::MlirBlock) -> Vec<MlirOperation> {
    ir::block_ops(block)
        .into_iter()
        .filter(|&op| {
            matches!(
                ir::op_name(op).as_str(),
                names::POINTWISE | names::REDUCTION | names::EXTERN
            )
        })
        .collect()
}

/// Builds the scheduler graph of `func` (a `func.func` in the loop dialect). Ops other
/// than nodes, externs, kernels' contents and the return are ignored.
pub fn analyze(func: MlirOperation) -> Result<SchedGraph, String> {
    let block = ir::body(func).ok_or("function without a body")?;
    let mut graph = SchedGraph {
        unfused: ir::attr(func, "fuselab.unfused")
            .and_then(|a| fuselab_dialects::attrs::i64_array(unsafe { melior::ir::Attribute::from_raw(a) }))
            .and_then(|v| <[i64; 3]>::try_from(v).ok()),
        ..Default::default()
    };
    let mut names: HashMap<usize, (String, Option<usize>)> = HashMap::default();
    for (i, arg) in ir::block_arguments(block).into_iter().enumerate() {
        let name = format!("arg{i}_1");
        graph
            .inputs
            .push((name.clone(), ir::tensor_type(arg).map_or(0, |t| t.size_bytes())));
        names.insert(arg.ptr as usize, (name, None));
    }
    // A set: a graph may return tens of thousands of values (a random DAG's sinks).
    let returned: FxHashSet<usize> = ir::block_ops(block)
        .into_iter()
        .filter(|op| matches!(ir::op_name(*op).as_str(), "func.return" | names::VIEW))
        .flat_map(|op| ir::operands(op).into_iter().map(|v| v.ptr as usize))
        .collect();
    for op in ir::block_ops(block) {
        let op_name = ir::op_name(op);
        let kind = match op_name.as_str() {
            names::POINTWISE => NodeKind::Pointwise,
            names::REDUCTION => NodeKind::Reduction,
            names::EXTERN => NodeKind::Extern,
            _ => continue,
        };
        let result = ir::result(op, 0);
        let out = ir::tensor_type(result).ok_or("node result is not a supported tensor")?;
        let name = ir::attr(op, "name")
            .and_then(fuselab_dialects::attrs::string_raw)
            .unwrap_or_default();
        let ranges = if kind == NodeKind::Extern {
            out.shape.clone()
        } else {
            i64s(op, "ranges")
        };
        let reduction_ranges = i64s(op, "reduction_ranges");
        let mut all = ranges.clone();
        all.extend(&reduction_ranges);
        let mut reads = Vec::new();
        let mut producers = Vec::new();
        let read_of =
            |buffer: MlirValue, producers: &mut Vec<usize>| -> Result<(String, TensorType), String> {
                let (name, producer) = names
                    .get(&(buffer.ptr as usize))
                    .cloned()
                    .ok_or("load of an unknown buffer")?;
                if let Some(p) = producer {
                    if !producers.contains(&p) {
                        producers.push(p);
                    }
                }
                Ok((
                    name,
                    ir::tensor_type(buffer).ok_or("buffer is not a supported tensor")?,
                ))
            };
        if kind == NodeKind::Extern {
            for v in ir::operands(op) {
                let (buffer, t) = read_of(v, &mut producers)?;
                reads.push(MemoryDep {
                    buffer,
                    index: IndexExpr::constant(0),
                    ranges: Vec::new(),
                    star: true,
                    elem_bytes: t.dtype.size_bytes(),
                    buffer_bytes: t.size_bytes(),
                });
            }
        } else {
            for load in ir::collect_ops(op, |n| n == names::LOAD) {
                let (buffer, t) = read_of(ir::operand(load, 0), &mut producers)?;
                let (index, _, _) =
                    from_affine_map_attr(ir::attr(load, "index").ok_or("load without index")?)
                        .ok_or("bad load index")?;
                let index = index.drop_unit_dims(&all);
                let ranges = truncate(&index, &all);
                reads.push(MemoryDep {
                    buffer,
                    index,
                    ranges,
                    star: false,
                    elem_bytes: t.dtype.size_bytes(),
                    buffer_bytes: t.size_bytes(),
                });
            }
        }
        reads.sort();
        reads.dedup();
        let write_index = contiguous_index(&ranges).drop_unit_dims(&ranges);
        let writes = vec![MemoryDep {
            buffer: name.clone(),
            ranges: if kind == NodeKind::Extern {
                Vec::new()
            } else {
                truncate(&write_index, &ranges)
            },
            index: write_index,
            star: kind == NodeKind::Extern,
            elem_bytes: out.dtype.size_bytes(),
            buffer_bytes: out.size_bytes(),
        }];
        let loc = SourceLoc::from_location(unsafe { melior::ir::Location::from_raw(ir::location(op)) });
        names.insert(result.ptr as usize, (name.clone(), Some(graph.nodes.len())));
        let node = SchedNode {
            name,
            kind,
            ranges,
            reduction_ranges,
            reads,
            writes,
            origins: string_list(op, "origins"),
            loc,
            out_bytes: out.size_bytes(),
            producers,
            is_output: returned.contains(&(result.ptr as usize)),
            nop: fuselab_dialects::loops::is_concat(op),
        };
        // A node a fusion reordered is seen in the order it iterates.
        let order = fuselab_dialects::loops::loop_order(op).filter(|order| {
            kind == NodeKind::Pointwise && fuselab_dialects::loops::is_permutation(order, node.ranges.len())
        });
        graph.nodes.push(match order {
            Some(order) => node.reordered(&order),
            None => node,
        });
    }
    Ok(graph)
}
