//! `--lower-loop-to-tile`: fused `loop` IR to `tile` kernels (the GPU target's first
//! stage), as Inductor's Triton back end schedules them.
//!
//! Per `loop` function: a host function of the same name over flat memrefs (inputs, then
//! outputs written in place; temporaries `memref.alloc`) that runs, in order, one
//! `tile.launch` per generated kernel, one `tile.extern` per library kernel (mm, bmm,
//! convolution: cuBLAS/cuDNN on the device, as Inductor's extern kernels) and a
//! `memref.copy` per result that is not written in place.
//!
//! Kernels (rules from Inductor's `SIMDKernel`/Triton heuristics, simplified):
//! - a `loop.kernel`'s pointwise members that never leave it are recomputed where they
//!   are read (kept in registers, never stored); the others share one kernel when every
//!   read of another member's buffer stays in the reader's row
//!   ([`shared_row_prefix_in_loop_order`]: a member reordered by the fusion
//!   iterates in its `loop_order`) — a program then owns `XBLOCK` rows; otherwise, and across
//!   externs and views, each gets a kernel of its own (a launch boundary is the only
//!   grid-wide synchronisation);
//! - rows are the shared leading ranges (x), the rest of a member is its inner extent
//!   (r): a reduction over r, or a pointwise member's positions in the row;
//! - pointwise-only kernels: `XBLOCK = min(1024, next_pow2(xnumel))`, `RBLOCK = 1`, 4
//!   warps (Inductor's 1-D pointwise config for large numel);
//! - kernels with inner work: `RBLOCK = next_pow2(rnumel)` up to 4096 — the whole row in
//!   registers (a persistent reduction) —, else an `scf.for` over 4096-wide chunks
//!   carrying the accumulator (a looped reduction); `XBLOCK = 1024 / RBLOCK` rows (at
//!   least 1); one warp per 256 block elements, 1 to 8 warps (16 for a kernel that is a
//!   single program, a full reduction: measured on log_softmax_nll's mean, 5.2 -> 4.4
//!   µs). These numbers are the options `max-rblock`, `block-elements`,
//!   `elements-per-warp`, `max-warps`, `max-warps-single`; Inductor autotunes such
//!   choices: `--tile-warp-variants` adds other warp counts of reduction kernels for
//!   the device runner to time. The defaults are measured (H200, ×16 rows,
//!   docs/gpu.md): 256 elements per warp against 128 moved layernorm / softmax /
//!   two_reductions from 3.8 to 4.2 TB/s; rows of 4096 in registers against 1024-wide
//!   chunks moved rmsnorm from 3.65 to 4.12 TB/s (Inductor's own persistent threshold for
//!   inner reductions is 1024; its looped rmsnorm reaches 4.33);
//! - a kernel whose reduction reads across rows (Inductor's `ReductionHint.OUTER`,
//!   `analysis::reduction_hint`) takes `outer-xblock` x `outer-rblock` (32 x 16, by
//!   measurement; Inductor's 64 x 8 suits Triton's layout), looped over the row;
//! - a reduction's result is kept in registers for the members after it in the same
//!   program (and stored once per row, unless only this kernel reads it); a member reading another member's stored buffer
//!   waits at a `tile.barrier`; sizes that do not divide are masked.
//!
//! Not done here (Inductor does them): autotuning of block sizes (warps:
//! `--tile-warp-variants`), split reductions,
//! online softmax, vector widths (the GPU lowering's business).

use crate::host::HostLowering;
use crate::math::widen_attr;
use fuselab_dialects::loops::StoredOrder;
use fuselab_dialects::tile::names as tile_op;
use fuselab_dialects::{
    build::{Builder, OwnedModule, Value},
    ir::{self, i64s},
    loops::names,
    types::{DType, TensorType},
};
use fuselab_passes::{
    analysis::rows::{kernel_members, produced_by_node, shared_row_prefix_in_loop_order},
    registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption, PassOptions},
};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirBlock, MlirOperation, MlirType};
use std::collections::{HashMap, HashSet};

mod config;
mod hoist;
mod kernel;
mod tiles;

/// A value in a kernel body: a scalar or a block of `shape` ([XBLOCK or 1, RBLOCK or 1]).
#[derive(Clone, Copy, Debug)]
enum V {
    S(Value),
    B(Value, [i64; 2]),
}

pub use config::TileConfig;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "lower-loop-to-tile",
    summary:
        "Lower loop IR to tile kernels (Triton-like blocks) and a host function of launches and library calls",
    anchor: "builtin.module",
    options: &[
        PassOption {
            name: "max-rblock",
            kind: OptionKind::UInt,
            default: "4096",
            help: "widest RBLOCK (a power of two); wider rows are looped over in chunks of it",
        },
        PassOption {
            name: "block-elements",
            kind: OptionKind::UInt,
            default: "1024",
            help: "elements of a row kernel's block: XBLOCK = block-elements / RBLOCK (a power of two)",
        },
        PassOption {
            name: "elements-per-warp",
            kind: OptionKind::UInt,
            default: "256",
            help: "block elements per warp of a row kernel (1 to max-warps warps; a power of two)",
        },
        PassOption {
            name: "max-warps",
            kind: OptionKind::UInt,
            default: "8",
            help: "the most warps of a row kernel (a power of two, at most 32: 1024 threads)",
        },
        PassOption {
            name: "max-warps-single",
            kind: OptionKind::UInt,
            default: "16",
            help: "the most warps of a row kernel that is a single program, e.g. a full reduction (a power of two, at most 32)",
        },
        PassOption {
            name: "hoist-loads",
            kind: OptionKind::Bool,
            default: "false",
            help: "issue loads of read-only inputs before the kernel's first reduction",
        },
        PassOption {
            name: "outer-xblock",
            kind: OptionKind::UInt,
            default: "32",
            help: "XBLOCK of a kernel whose reduction reads across rows (Inductor's ReductionHint.OUTER; measured, docs/gpu.md)",
        },
        PassOption {
            name: "outer-rblock",
            kind: OptionKind::UInt,
            default: "16",
            help: "RBLOCK of such a kernel, looped over the row (a power of two)",
        },
        PassOption {
            name: "layout-conversion",
            kind: OptionKind::Bool,
            default: "true",
            help: "a 2-D tiled kernel reads a transposing load down its tile's columns and converts it through shared memory (tile.transpose); false: in the store's order",
        },
        PassOption {
            name: "outer-hint",
            kind: OptionKind::Bool,
            default: "true",
            help: "launch kernels whose reduction reads across rows with outer-xblock x outer-rblock (false: the row rule)",
        },
    ],
    run,
    id: &ID,
};

/// An op the tile lowering cannot handle, with a reason.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct TileError {
    /// Where.
    pub op: MlirOperation,
    /// What.
    pub message: String,
}

pub(super) fn err(op: MlirOperation, m: impl Into<String>) -> TileError {
    TileError {
        op,
        message: m.into(),
    }
}

impl Default for TileConfig {
    /// The GPU's launch rule: `--lower-loop-to-tile`'s declared option defaults
    /// ([`INFO`], the one place they are written).
    fn default() -> Self {
        TileConfig::from_options(
            &INFO
                .parse_options("")
                .expect("lower-loop-to-tile's declared defaults parse"),
        )
    }
}

impl TileConfig {
    /// The configuration of `--lower-loop-to-tile`'s options; what no option sets is
    /// the GPU's (1-D pointwise XBLOCK 1024, rounding after every op, 32-bit index math).
    pub fn from_options(options: &PassOptions) -> Self {
        TileConfig {
            max_rblock: options.uint("max-rblock") as i64,
            block_elements: options.uint("block-elements") as i64,
            max_xblock: 1024,
            elements_per_warp: options.uint("elements-per-warp") as i64,
            max_warps: options.uint("max-warps") as i64,
            max_warps_single: options.uint("max-warps-single") as i64,
            fp32_inside: false,
            hoist_loads: options.flag("hoist-loads"),
            layout_conversion: options.flag("layout-conversion"),
            narrow_index: true,
            outer: options.flag("outer-hint").then(|| {
                (
                    options.uint("outer-xblock") as i64,
                    options.uint("outer-rblock") as i64,
                )
            }),
        }
    }
}

fn run(module: OperationRef<'_, '_>, cx: &PassContext) -> Result<(), PassFailed> {
    let config = TileConfig::from_options(&cx.options);
    for (name, v, limit) in [
        ("max-rblock", config.max_rblock, 1 << 20),
        ("block-elements", config.block_elements, 1 << 20),
        ("elements-per-warp", config.elements_per_warp, 1 << 20),
        ("max-warps", config.max_warps, 32),
        ("max-warps-single", config.max_warps_single, 32),
        ("outer-xblock", cx.options.uint("outer-xblock") as i64, 1 << 20),
        ("outer-rblock", cx.options.uint("outer-rblock") as i64, 1 << 20),
    ] {
        if !(1..=limit).contains(&v) || v & (v - 1) != 0 {
            cx.sink.error(
                module.location(),
                format!("--lower-loop-to-tile: {name}={v} is not a power of two in 1..={limit}"),
            );
            return Err(PassFailed);
        }
    }
    let raw = module.to_raw();
    let block = ir::body(raw).ok_or(PassFailed)?;
    let built = match lower_module(raw, config) {
        Ok(built) => built,
        Err(e) => {
            cx.sink.error(
                unsafe { melior::ir::Location::from_raw(ir::location(e.op)) },
                format!("cannot lower to tile kernels: {}", e.message),
            );
            return Err(PassFailed);
        }
    };
    if !ir::verify(built.operation()) {
        cx.sink.error(
            module.location(),
            "the generated tile IR does not verify (a fuselab bug)",
        );
        return Err(PassFailed);
    }
    built.replace_contents_of(block);
    Ok(())
}

/// The tile module of `module`'s `loop` functions under `config`: kernels, then each
/// function's host function (not verified; `module` is unchanged). The Ascend target
/// builds its kernels from it.
pub fn lower_module(module: MlirOperation, config: TileConfig) -> Result<OwnedModule, TileError> {
    let built = OwnedModule::new(ir::location(module));
    if let Some(block) = ir::body(module) {
        for f in ir::ops_named(block, "func.func") {
            tile_function(f, built.body(), config)?;
        }
    }
    Ok(built)
}

/// A buffer of the host function.
#[derive(Clone, Debug)]
pub(super) struct Buf {
    /// Its memref in the host function.
    pub v: Value,
    pub ty: TensorType,
}

/// The memref type of a buffer of `t` (flat, its own element type).
pub(super) fn memref(b: &Builder, t: &TensorType) -> MlirType {
    b.flat_memref(t.numel().max(1), element_type(b, t.dtype))
}

/// The MLIR element type of `dtype`.
pub(super) fn element_type(b: &Builder, dtype: DType) -> MlirType {
    match dtype {
        DType::F32 => b.f32_type(),
        DType::F16 => unsafe { mlir_sys::mlirF16TypeGet(b.context()) },
        DType::BF16 => unsafe { mlir_sys::mlirBF16TypeGet(b.context()) },
        DType::I64 => b.int_type(64),
        DType::I32 => b.int_type(32),
        DType::I1 => b.int_type(1),
    }
}

/// The state of one `loop` function's lowering.
pub(super) struct Lowering {
    pub b: Builder,
    /// The launch rule's knobs.
    pub config: TileConfig,
    /// The host function and its entry block.
    host: (MlirOperation, MlirBlock),
    pub bufs: HashMap<usize, Buf>,
    tuples: HashMap<usize, Vec<Buf>>,
    direct_out: HashMap<usize, Buf>,
    /// Kernel-local pointwise nodes: recomputed where read.
    pub inline: HashMap<usize, MlirOperation>,
    prefix: String,
    symbols: crate::host::Symbols,
    /// The kernel being built divides on 32-bit integers (`kernel::fits_32_bits`).
    pub narrow: bool,
}

fn tile_function(func: MlirOperation, module: MlirBlock, config: TileConfig) -> Result<(), TileError> {
    let name = ir::attr(func, "sym_name")
        .and_then(fuselab_dialects::attrs::string_raw)
        .ok_or_else(|| err(func, "function without a name"))?;
    let block = ir::body(func).ok_or_else(|| err(func, "function without a body"))?;
    let ops = ir::block_ops(block);
    let ret = *ops.last().ok_or_else(|| err(func, "empty function"))?;
    let b = Builder::new(ir::location(func));
    let mut params = Vec::new();
    let mut tensors = Vec::new();
    for (i, a) in ir::block_arguments(block).into_iter().enumerate() {
        let ty = ir::tensor_type(a)
            .ok_or_else(|| err(func, format!("argument #{i} is not a supported tensor")))?;
        params.push(memref(&b, &ty));
        tensors.push((a, ty));
    }
    let results = ir::operands(ret);
    let mut outs = Vec::new();
    for (i, &v) in results.iter().enumerate() {
        let ty =
            ir::tensor_type(v).ok_or_else(|| err(func, format!("result #{i} is not a supported tensor")))?;
        params.push(memref(&b, &ty));
        outs.push(ty);
    }
    let mut g = Lowering {
        config,
        b,
        host: (func, block),
        bufs: HashMap::new(),
        tuples: HashMap::new(),
        direct_out: HashMap::new(),
        inline: HashMap::new(),
        // Kernel symbols are `<function>_<label>` in symbol characters (a function may
        // be `@"my model"`; LLVM's NVPTX back end takes no such name), unique in the
        // module: every symbol it holds already (another function's kernels) is taken.
        prefix: crate::symbol_part(&name),
        symbols: crate::host::Symbols::of_module(module),
        narrow: false,
    };
    let n_inputs =
        g.b.int_attr(g.b.int_type(64), (params.len() - ir::operands(ret).len()) as i64);
    // The buffers are flat; their logical shapes ride along for the launch plan.
    let shapes: Vec<mlir_sys::MlirAttribute> = tensors
        .iter()
        .map(|(_, t)| &t.shape)
        .chain(outs.iter().map(|t| &t.shape))
        .map(|s| ir::i64_array_attr(g.b.context(), s))
        .collect();
    let shapes = ir::array_attr(g.b.context(), &shapes);
    let host = g.b.function(
        &name,
        &params,
        true,
        &[("fuselab.num_inputs", n_inputs), ("fuselab.arg_shapes", shapes)],
    );
    ir::append(module, host.0);
    g.host = host;
    let args = ir::block_arguments(host.1);
    for (i, (a, ty)) in tensors.into_iter().enumerate() {
        g.bufs.insert(a.ptr as usize, Buf { v: args[i], ty });
    }
    let mut copies = Vec::new();
    for (i, (&v, ty)) in results.iter().zip(outs).enumerate() {
        let out = Buf {
            v: args[params.len() - ir::operands(ret).len() + i],
            ty,
        };
        let node = produced_by_node(v).filter(|n| !g.direct_out.contains_key(&(n.ptr as usize)));
        match node {
            Some(node) => {
                // A returned reshape of a temporary: the temporary is written into the
                // output buffer itself (the same bytes), the view costs nothing.
                for source in reshaped_sources(node) {
                    let Some(s) = produced_by_node(source) else { break };
                    if g.direct_out.contains_key(&(s.ptr as usize)) {
                        break;
                    }
                    g.direct_out.insert(s.ptr as usize, out.clone());
                }
                g.direct_out.insert(node.ptr as usize, out);
            }
            None => copies.push((v, out)),
        }
    }
    g.b.push(host.1);
    g.lower_ops(&ops)?;
    g.b.at(ir::location(ret));
    for (v, out) in copies {
        let src = g.buffer(ret, v)?;
        g.b.op("memref.copy", &[src.v, out.v], &[], &[]);
    }
    g.b.close("func.return", &[]);
    Ok(())
}

/// The values `v` is a reshape of, nearest first: while `v` is a [`is_reshape`] view,
/// its source.
fn reshaped_sources(mut v: mlir_sys::MlirValue) -> Vec<mlir_sys::MlirValue> {
    let mut sources = Vec::new();
    while let Some(view) = ir::defining_op(v).filter(|&d| is_reshape(d)) {
        v = ir::operand(view, 0);
        sources.push(v);
    }
    sources
}

/// Whether the `loop.view` `op` only renames its source's elements: offset 0, as many
/// elements, row-major strides (a size-1 dim's stride is never used). Its buffer is
/// then its source's buffer: no copy kernel (Inductor's `ReinterpretView` of a
/// contiguous buffer is free in the same way).
pub(super) fn is_reshape(op: MlirOperation) -> bool {
    if ir::op_name(op) != names::VIEW {
        return false;
    }
    let Some(layout) = fuselab_dialects::loops::view_layout(op) else {
        return false;
    };
    let source = ir::tensor_type(ir::operand(op, 0));
    let contiguous = fuselab_dialects::types::contiguous_strides(&layout.sizes);
    layout.offset == 0
        && source.is_some_and(|t| t.numel() == layout.sizes.iter().product::<i64>())
        && layout
            .sizes
            .iter()
            .zip(layout.strides.iter().zip(&contiguous))
            .all(|(&n, (s, c))| n == 1 || s == c)
}

impl Lowering {
    pub(super) fn buffer(&self, op: MlirOperation, v: mlir_sys::MlirValue) -> Result<Buf, TileError> {
        self.bufs
            .get(&(v.ptr as usize))
            .cloned()
            .ok_or_else(|| err(op, "reads a value the tile lowering has no buffer for"))
    }

    /// The output buffer `op`'s result is written into, if it is returned.
    pub(super) fn output_buffer(&self, op: MlirOperation) -> Option<Buf> {
        self.direct_out.get(&(ir::result(op, 0).ptr as usize)).cloned()
    }

    /// A `loop.kernel`: its materialized members in runs of nodes between externs and
    /// views; each run one kernel when its members share rows, else one per member.
    fn fused_kernel(&mut self, op: MlirOperation) -> Result<(), TileError> {
        let split = kernel_members(op).ok_or_else(|| err(op, "empty kernel"))?;
        self.inline.extend(split.inline);
        self.members(op, &split.materialized)?;
        let block = ir::body(op).ok_or_else(|| err(op, "kernel without a body"))?;
        let last = *ir::block_ops(block)
            .last()
            .ok_or_else(|| err(op, "empty kernel"))?;
        let outs = ir::operands(last)
            .iter()
            .map(|&v| self.buffer(op, v))
            .collect::<Result<Vec<_>, _>>()?;
        self.tuples.insert(ir::result(op, 0).ptr as usize, outs);
        Ok(())
    }

    /// `members` of `owner` (a kernel, or a node alone), in order.
    fn members(&mut self, owner: MlirOperation, members: &[MlirOperation]) -> Result<(), TileError> {
        let label = crate::host::kernel_label(owner);
        let mut run: Vec<MlirOperation> = Vec::new();
        for &m in members {
            match ir::op_name(m).as_str() {
                names::POINTWISE | names::REDUCTION => run.push(m),
                names::EXTERN => {
                    self.nodes(&label, &std::mem::take(&mut run))?;
                    self.external(m)?;
                }
                names::VIEW => {
                    self.nodes(&label, &std::mem::take(&mut run))?;
                    self.view(&label, m)?;
                }
                other => return Err(err(m, format!("the tile lowering cannot handle '{other}' here"))),
            }
        }
        self.nodes(&label, &run)
    }

    /// A run of pointwise / reduction nodes: one kernel if they share rows (and every
    /// reduction produces one value per row), else one kernel each. Members that each
    /// produce a single value (full reductions, scalar epilogues) are one row already:
    /// one program computes them in order, as Inductor's kernel for `xnumel = 1` fuses a
    /// full reduction with its scalar epilogue.
    fn nodes(&mut self, label: &str, run: &[MlirOperation]) -> Result<(), TileError> {
        if run.is_empty() {
            return Ok(());
        }
        let k = shared_row_prefix_in_loop_order(run, &self.inline);
        let per_row = run
            .iter()
            .all(|&m| ir::op_name(m) != names::REDUCTION || i64s(m, "ranges").len() == k);
        let one_row = run
            .iter()
            .all(|&m| i64s(m, "ranges").iter().product::<i64>() == 1);
        if run.len() > 1 && ((k == 0 && !one_row) || !per_row) {
            for &m in run {
                self.nodes(label, &[m])?;
            }
            return Ok(());
        }
        self.tile_kernel(label, run, k)
    }

    /// For an mm whose one reader is a `concat` extern it is written into (Inductor's
    /// `NonOwningLayout`): the concat's buffer and the mm's view of it (`[offset, sizes,
    /// strides]`).
    fn concat_slice_of(&mut self, op: MlirOperation) -> Result<Option<(Buf, Vec<i64>)>, TileError> {
        let result = ir::result(op, 0);
        let Some((concat, dim, start)) = fuselab_dialects::loops::concat_part(result) else {
            return Ok(None);
        };
        let buf = self.concat_buffer(concat)?;
        let shape = ir::tensor_type(result)
            .ok_or_else(|| err(op, "result is not a supported tensor"))?
            .shape;
        let strides = fuselab_dialects::types::contiguous_strides(&buf.ty.shape);
        let mut view = vec![start * strides[dim]];
        view.extend(&shape);
        view.extend(&strides);
        Ok(Some((buf, view)))
    }

    /// A fresh kernel symbol `<function>_<label>`.
    pub(super) fn symbol(&mut self, label: &str) -> String {
        self.symbols
            .fresh(&format!("{}_{}", self.prefix, crate::symbol_part(label)))
    }

    /// Places a built `tile.kernel` before the host function and launches it there on
    /// `args` (host memrefs).
    pub(super) fn launch(&mut self, kernel: MlirOperation, symbol: &str, args: &[Value]) {
        ir::insert_before(self.host.0, kernel);
        let callee = self.b.symbol_ref(symbol);
        self.b.open(tile_op::LAUNCH, &[], &[], &[("kernel", callee)], &[]);
        self.b.close(names::YIELD, args);
    }

    /// A library kernel: `tile.extern` over its operands' buffers and its result's,
    /// with the loop op's attributes (kind, views, stride, padding, ...).
    fn external(&mut self, op: MlirOperation) -> Result<(), TileError> {
        if fuselab_dialects::loops::is_concat(op) {
            // Its mms wrote into its buffer (`concat_slice_of`): nothing left to do.
            let buf = self.concat_buffer(op)?;
            self.bufs.insert(ir::result(op, 0).ptr as usize, buf);
            return Ok(());
        }
        let into = self.concat_slice_of(op)?;
        let out = match &into {
            Some((buf, _)) => buf.clone(),
            None => self.result_buffer(op)?,
        };
        let mut args = Vec::new();
        for v in ir::operands(op) {
            args.push(self.buffer(op, v)?.v);
        }
        args.push(out.v);
        let named = ir::named_attributes(op);
        let mut attributes: Vec<(&str, mlir_sys::MlirAttribute)> =
            named.iter().map(|(k, a)| (k.as_str(), widen_attr(*a))).collect();
        // The result's own shape: its buffer may be an output of another shape (a
        // returned reshape of it).
        let shape = ir::tensor_type(ir::result(op, 0))
            .ok_or_else(|| err(op, "result is not a supported tensor"))?
            .shape;
        // A channels-last convolution writes its logical result through strides.
        let stored = StoredOrder::of(op)
            .map_err(|m| err(op, m))?
            .map(|order| order.logical_view(&shape));
        if let Some(view) = into.as_ref().map(|(_, view)| view).or(stored.as_ref()) {
            attributes.push(("fuselab.out_view", ir::i64_array_attr(self.b.context(), view)));
        }
        attributes.push(("fuselab.shape", ir::i64_array_attr(self.b.context(), &shape)));
        self.b.open(tile_op::EXTERN, &[], &[], &attributes, &[]);
        self.b.close(names::YIELD, &args);
        self.bufs.insert(ir::result(op, 0).ptr as usize, out);
        Ok(())
    }
}

/// The host function: each kernel and each node outside kernels launches its kernels in
/// order.
impl HostLowering for Lowering {
    type Buf = Buf;
    type Error = TileError;
    const WHO: &'static str = "the tile lowering";

    fn error(op: MlirOperation, message: String) -> TileError {
        err(op, message)
    }

    fn kernel(&mut self, op: MlirOperation) -> Result<(), TileError> {
        self.b.at(ir::location(op));
        self.fused_kernel(op)
    }

    fn node(&mut self, op: MlirOperation) -> Result<(), TileError> {
        self.b.at(ir::location(op));
        self.members(op, &[op])
    }

    fn buffers(&mut self) -> &mut HashMap<usize, Buf> {
        &mut self.bufs
    }

    fn kernel_outputs(&self) -> &HashMap<usize, Vec<Buf>> {
        &self.tuples
    }

    /// The buffer `op` writes: the output it is returned as, or a new temporary
    /// (`memref.alloc` in the host function).
    fn result_buffer(&mut self, op: MlirOperation) -> Result<Buf, TileError> {
        if let Some(b) = self.output_buffer(op) {
            return Ok(b);
        }
        let result = ir::result(op, 0);
        let ty = ir::tensor_type(result).ok_or_else(|| err(op, "result is not a supported tensor"))?;
        let mt = memref(&self.b, &ty);
        let shape = ir::i64_array_attr(self.b.context(), &ty.shape);
        let segments = self.b.i32_array_attr(&[0, 0]);
        let v = self.b.value(
            "memref.alloc",
            &[],
            mt,
            &[("operandSegmentSizes", segments), ("fuselab.shape", shape)],
        );
        Ok(Buf { v, ty })
    }
}
