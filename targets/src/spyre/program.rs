//! A loop function as the Spyre passes see it, as plain data: its buffers (graph inputs,
//! constants, node results) and its ops (every node, inside kernels or not, in program
//! order), with each read's index and how the read's loop dims walk the buffer's dims.
//! [`ProgramIr`] keeps the MLIR handles beside it for the passes that apply decisions.

use fuselab_dialects::{
    ir,
    loops::{index::from_affine_map_attr, index::IndexExpr, names},
    types::{contiguous_strides, DType},
};
use mlir_sys::{MlirOperation, MlirValue};
use std::collections::HashMap;

/// Where a buffer comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferDef {
    /// Function argument `i` (its layout is the host's generic one).
    Input(usize),
    /// An `arith.constant` (it adopts whatever layout a reader needs).
    Constant,
    /// The result of op `k`.
    Op(usize),
    /// A `spyre.restickify` of this buffer (same host values, another layout).
    Restickify(usize),
}

/// One buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// `arg0`, `buf3`, `cst1`.
    pub name: String,
    /// Host shape (row-major, contiguous).
    pub shape: Vec<i64>,
    /// Element type.
    pub dtype: DType,
    /// Its definition.
    pub def: BufferDef,
    /// Whether the function returns it (possibly through a view).
    pub returned: bool,
    /// The kernel it is local to (produced and read only there, not returned).
    pub local_to: Option<usize>,
}

/// What an op computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// `loop.pointwise`.
    Pointwise,
    /// `loop.reduction` of this kind.
    Reduction(String),
    /// `loop.extern` `mm` / `bmm`: dims `[batch..., M, N, K]`.
    Matmul,
    /// Another extern (convolution): dims are its output's.
    Extern(String),
}

/// One read of an op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Read {
    /// The buffer read.
    pub buffer: usize,
    /// The flat offset over the op's dims (`None`: an extern reads the whole buffer).
    pub index: Option<IndexExpr>,
    /// For each op dim, the buffer dim it walks with unit steps (`None` where it walks
    /// none); `None` overall when the read is not such a map (indirect, floordiv, a
    /// stride that is no dim's).
    pub dims: Option<Vec<Option<usize>>>,
    /// An extern operand's view `[offset, sizes..., strides...]` (empty: as is).
    pub view: Vec<i64>,
}

/// One op (a node, inside a kernel or not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    /// The node's buffer name.
    pub name: String,
    /// What it computes.
    pub kind: OpKind,
    /// Its dims: ranges then reduction ranges (matmul: `[batch..., M, N, K]`).
    pub dims: Vec<i64>,
    /// How many leading dims are kept in the output (the rest are reduced).
    pub kept: usize,
    /// Its reads, in operand order of first use.
    pub reads: Vec<Read>,
    /// The buffer it writes.
    pub out: usize,
    /// For each kept dim, the output buffer dim it writes (`None`: a size-1 dim).
    pub out_dims: Vec<Option<usize>>,
    /// The kernel it belongs to.
    pub kernel: Option<usize>,
}

/// A function's Spyre program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// Buffers: inputs first, then constants and op results in program order.
    pub buffers: Vec<Buffer>,
    /// Ops in program order.
    pub ops: Vec<Op>,
    /// Kernel names, by index.
    pub kernels: Vec<String>,
}

/// The op dims a linear index walks, mapped to the dims of a buffer of `shape`: op dim
/// `j` with coefficient `c_j != 0` walks the buffer dim whose row-major stride is `c_j`
/// (size-1 dims never). `None` when a coefficient is no dim's stride.
pub fn walked_dims(coefficients: &[i64], dims: &[i64], shape: &[i64]) -> Option<Vec<Option<usize>>> {
    let strides = contiguous_strides(shape);
    coefficients
        .iter()
        .zip(dims)
        .map(|(&c, &size)| {
            if c == 0 || size == 1 {
                return Some(None);
            }
            (0..shape.len())
                .find(|&k| shape[k] > 1 && strides[k] == c && shape[k] >= size)
                .map(Some)
        })
        .collect()
}

/// A program plus the MLIR handles of its ops and buffers (for the passes).
#[derive(Debug, Default)]
pub struct ProgramIr {
    /// The plain data.
    pub program: Program,
    /// The node op of each op.
    pub ops: Vec<MlirOperation>,
    /// The value of each buffer.
    pub values: Vec<MlirValue>,
    /// The value readers outside its kernel use (a `loop.output`; else the buffer's).
    pub outer: Vec<MlirValue>,
    /// The top-level op of each op (its kernel, or itself).
    pub top: Vec<MlirOperation>,
}

impl ProgramIr {
    /// Reads `func` (a `func.func` in the loop dialect). `Err`: an op the Spyre passes do
    /// not know, with the op.
    pub fn read(func: MlirOperation) -> Result<Self, (MlirOperation, String)> {
        let block = ir::body(func).ok_or((func, "function without a body".to_string()))?;
        let mut p = ProgramIr::default();
        let mut by_value: HashMap<usize, usize> = HashMap::new();
        for (i, arg) in ir::block_arguments(block).into_iter().enumerate() {
            p.add_buffer(&mut by_value, arg, format!("arg{i}"), BufferDef::Input(i), func)?;
        }
        for op in ir::block_ops(block) {
            match ir::op_name(op).as_str() {
                names::KERNEL => {
                    let kernel = p.program.kernels.len();
                    p.program.kernels.push(
                        fuselab_dialects::ir::attr(op, "name")
                            .and_then(fuselab_dialects::attrs::string_raw)
                            .unwrap_or_default(),
                    );
                    let inner = ir::body(op).ok_or((op, "kernel without a body".to_string()))?;
                    for member in ir::block_ops(inner) {
                        match ir::op_name(member).as_str() {
                            names::YIELD => {}
                            super::attrs::names::RESTICKIFY => p.add_restickify(&mut by_value, member)?,
                            _ => p.add_op(&mut by_value, member, Some(kernel), op)?,
                        }
                    }
                }
                names::OUTPUT => {
                    // The kernel's yielded buffer: the same buffer.
                    let kernel = ir::defining_op(ir::operand(op, 0))
                        .ok_or((op, "loop.output of no kernel".to_string()))?;
                    let index = ir::integer(op, "index").unwrap_or(0) as usize;
                    let yielded = ir::body(kernel)
                        .and_then(|b| ir::block_ops(b).last().copied())
                        .map(|y| ir::operand(y, index))
                        .ok_or((op, "loop.output of an empty kernel".to_string()))?;
                    let b = *by_value
                        .get(&(yielded.ptr as usize))
                        .ok_or((op, "unknown kernel output".to_string()))?;
                    by_value.insert(ir::result(op, 0).ptr as usize, b);
                    p.outer[b] = ir::result(op, 0);
                }
                "arith.constant" => {
                    let name = format!("cst{}", p.program.buffers.len());
                    p.add_buffer(&mut by_value, ir::result(op, 0), name, BufferDef::Constant, op)?;
                }
                names::POINTWISE | names::REDUCTION | names::EXTERN => {
                    p.add_op(&mut by_value, op, None, op)?
                }
                super::attrs::names::RESTICKIFY => p.add_restickify(&mut by_value, op)?,
                "func.return" | names::VIEW => {
                    for v in ir::operands(op) {
                        if let Some(&b) = by_value.get(&(v.ptr as usize)) {
                            p.program.buffers[b].returned = true;
                        }
                    }
                }
                other if other.starts_with("spyre.") => {
                    return Err((
                        op,
                        format!("'{other}' is KTIR: this function is already lowered by --spyre-lower-to-ktir, which comes after every other Spyre pass"),
                    ))
                }
                other => return Err((op, format!("the Spyre passes do not know '{other}'"))),
            }
        }
        p.mark_local();
        Ok(p)
    }

    fn add_restickify(
        &mut self,
        by_value: &mut HashMap<usize, usize>,
        op: MlirOperation,
    ) -> Result<(), (MlirOperation, String)> {
        let src = *by_value
            .get(&(ir::operand(op, 0).ptr as usize))
            .ok_or((op, "restickify of an unknown buffer".to_string()))?;
        let name = format!("{}_restickified", self.program.buffers[src].name);
        self.add_buffer(by_value, ir::result(op, 0), name, BufferDef::Restickify(src), op)?;
        Ok(())
    }

    fn add_buffer(
        &mut self,
        by_value: &mut HashMap<usize, usize>,
        value: MlirValue,
        name: String,
        def: BufferDef,
        at: MlirOperation,
    ) -> Result<usize, (MlirOperation, String)> {
        let t = ir::tensor_type(value).ok_or((at, "a buffer that is not a supported tensor".to_string()))?;
        let b = self.program.buffers.len();
        self.program.buffers.push(Buffer {
            name,
            shape: t.shape,
            dtype: t.dtype,
            def,
            returned: false,
            local_to: None,
        });
        self.values.push(value);
        self.outer.push(value);
        by_value.insert(value.ptr as usize, b);
        Ok(b)
    }

    fn add_op(
        &mut self,
        by_value: &mut HashMap<usize, usize>,
        op: MlirOperation,
        kernel: Option<usize>,
        top: MlirOperation,
    ) -> Result<(), (MlirOperation, String)> {
        let name = ir::attr(op, "name")
            .and_then(fuselab_dialects::attrs::string_raw)
            .unwrap_or_else(|| format!("op{}", self.program.ops.len()));
        let out_t =
            ir::tensor_type(ir::result(op, 0)).ok_or((op, "result is not a supported tensor".to_string()))?;
        let buffer_of = |v: MlirValue| {
            by_value
                .get(&(v.ptr as usize))
                .copied()
                .ok_or((op, "reads an unknown buffer".to_string()))
        };
        let (kind, dims, kept, reads) = match ir::op_name(op).as_str() {
            names::EXTERN => {
                let kind = ir::attr(op, "kind")
                    .and_then(fuselab_dialects::attrs::string_raw)
                    .unwrap_or_default();
                let views = fuselab_dialects::loops::operand_views(op);
                let reads = ir::operands(op)
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| {
                        Ok(Read {
                            buffer: buffer_of(v)?,
                            index: None,
                            dims: None,
                            view: views.get(i).cloned().unwrap_or_default(),
                        })
                    })
                    .collect::<Result<Vec<_>, (MlirOperation, String)>>()?;
                if matches!(kind.as_str(), "mm" | "bmm") {
                    let k = self.operand_sizes(&reads[0]).last().copied().unwrap_or(1);
                    let mut dims = out_t.shape.clone();
                    dims.push(k);
                    let mut reads = reads;
                    for (i, r) in reads.iter_mut().enumerate().take(2) {
                        r.dims = self.matmul_operand_dims(r, i, dims.len());
                    }
                    (OpKind::Matmul, dims, out_t.shape.len(), reads)
                } else {
                    (
                        OpKind::Extern(kind),
                        out_t.shape.clone(),
                        out_t.shape.len(),
                        reads,
                    )
                }
            }
            node => {
                let mut dims = ir::i64s(op, "ranges");
                let kept = dims.len();
                dims.extend(ir::i64s(op, "reduction_ranges"));
                let kind = if node == names::REDUCTION {
                    OpKind::Reduction(
                        ir::attr(op, "kind")
                            .and_then(fuselab_dialects::attrs::string_raw)
                            .unwrap_or_default(),
                    )
                } else {
                    OpKind::Pointwise
                };
                let body =
                    ir::first_block(ir::region(op, 0)).ok_or((op, "node without a body".to_string()))?;
                let mut reads: Vec<Read> = Vec::new();
                for load in ir::block_ops(body)
                    .into_iter()
                    .filter(|l| ir::op_name(*l) == names::LOAD)
                {
                    let buffer = buffer_of(ir::operand(load, 0))?;
                    let (index, _, _) = ir::attr(load, "index")
                        .and_then(from_affine_map_attr)
                        .ok_or((load, "load without an affine index".to_string()))?;
                    if reads
                        .iter()
                        .any(|r| r.buffer == buffer && r.index.as_ref() == Some(&index))
                    {
                        continue;
                    }
                    let shape = &self.program.buffers[buffer].shape;
                    let walked = index
                        .linear_coefficients(dims.len())
                        .and_then(|c| walked_dims(&c, &dims, shape));
                    reads.push(Read {
                        buffer,
                        index: Some(index),
                        dims: walked,
                        view: Vec::new(),
                    });
                }
                (kind, dims, kept, reads)
            }
        };
        let kept_dims = &dims[..kept];
        let out_dims = walked_dims(&contiguous_strides(kept_dims), kept_dims, &out_t.shape).ok_or((
            op,
            format!(
                "the result {:?} is not laid out as the op's ranges {kept_dims:?}",
                out_t.shape
            ),
        ))?;
        let k = self.program.ops.len();
        let out = self.add_buffer(by_value, ir::result(op, 0), name.clone(), BufferDef::Op(k), op)?;
        self.program.ops.push(Op {
            name,
            kind,
            dims,
            kept,
            reads,
            out,
            out_dims,
            kernel,
        });
        self.ops.push(op);
        self.top.push(top);
        Ok(())
    }

    /// The sizes of an extern operand as the extern sees it (its view, or the buffer).
    fn operand_sizes(&self, read: &Read) -> Vec<i64> {
        if read.view.is_empty() {
            self.program.buffers[read.buffer].shape.clone()
        } else {
            let rank = (read.view.len() - 1) / 2;
            read.view[1..=rank].to_vec()
        }
    }

    /// Which op dims of a matmul (`[batch..., M, N, K]`) operand `i` (0: A, 1: B) walks,
    /// mapped to its buffer's dims through its view's strides.
    fn matmul_operand_dims(&self, read: &Read, i: usize, rank: usize) -> Option<Vec<Option<usize>>> {
        let shape = &self.program.buffers[read.buffer].shape;
        let (sizes, strides) = if read.view.is_empty() {
            (shape.clone(), contiguous_strides(shape))
        } else {
            let r = (read.view.len() - 1) / 2;
            (read.view[1..=r].to_vec(), read.view[r + 1..].to_vec())
        };
        let n = sizes.len();
        if n < 2 || rank < 3 {
            return None;
        }
        // View dim -> op dim: batch dims in order, then (M, K) for A and (K, N) for B.
        let (m, nn, k) = (rank - 3, rank - 2, rank - 1);
        let tail = if i == 0 { [m, k] } else { [k, nn] };
        let mut op_strides = vec![0; rank];
        let mut op_sizes = vec![1; rank];
        for v in 0..n {
            let j = if v + 2 >= n { tail[v + 2 - n] } else { v };
            if j < rank {
                op_strides[j] = strides[v];
                op_sizes[j] = sizes[v];
            }
        }
        walked_dims(&op_strides, &op_sizes, shape)
    }

    /// Marks buffers produced in a kernel and read only there (and not returned) local.
    fn mark_local(&mut self) {
        let prog = &mut self.program;
        for b in 0..prog.buffers.len() {
            let BufferDef::Op(k) = prog.buffers[b].def else {
                continue;
            };
            let Some(kernel) = prog.ops[k].kernel else {
                continue;
            };
            let readers_inside = prog
                .ops
                .iter()
                .filter(|o| o.reads.iter().any(|r| r.buffer == b))
                .all(|o| o.kernel == Some(kernel));
            if readers_inside && !prog.buffers[b].returned {
                prog.buffers[b].local_to = Some(kernel);
            }
        }
    }
}

impl Program {
    /// The ops reading buffer `b`.
    pub fn readers(&self, b: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.ops.len()).filter(move |&k| self.ops[k].reads.iter().any(|r| r.buffer == b))
    }
}
