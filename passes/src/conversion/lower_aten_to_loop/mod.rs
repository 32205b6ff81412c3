//! `--lower-aten-to-loop`: every primitive aten op becomes a `loop` node, as Inductor's
//! lowering turns ATen ops into Pointwise / Reduction IR and ExternKernels (seed 000 §6):
//! - elementwise ops become `loop.pointwise` whose body is upstream `arith`/`math` on
//!   scalars; reads are `loop.load` at a flat affine index into the source storage
//!   (strides from the layout, broadcast dims contribute nothing: seed §1.1);
//! - `sum`/`amax`/`amin` become `loop.reduction` (kept dims are the ranges, reduced dims
//!   the reduction ranges: Inductor's (numel, rnumel));
//! - views (view, reshape, permute, transpose, expand, unsqueeze, squeeze, slice,
//!   select) produce no node: they remap the index of every later read (Inductor's
//!   View / ReinterpretView); a view that is a graph output is materialized by a copy;
//! - `cat` is a pointwise select between two reads, `gather` an indirect read; a cat of
//!   mm results is a `concat` extern the mms write into (Inductor's ConcatKernel);
//! - `mm`, `bmm`, `convolution` become `loop.extern` (ExternKernel: a fusion barrier).
//!   An operand that is a strided view is passed as base buffer plus `operand_views`
//!   (offset, sizes, strides); one that is not strided is first copied.
//!
//! With `materialize-views=true` every view op instead becomes its own copy node, as in
//! TVM Relax, where `reshape` / `permute_dims` / `broadcast_to` are bindings of their own
//! (legalized to a PrimFunc each); the TVM strategy uses this form.
//!
//! Every node is unrealized at this point (inlining decides what is stored) and carries
//! `origins`: the aten op it came from (or the composite, via `fuselab.origin`), and
//! `fuselab.eager_id`: one id per original aten op (shared by the primitives of a
//! decomposed composite), so strategies that work per op (TVM) can regroup them. The
//! function gets `fuselab.unfused = array<i64: kernels, bytes_read, bytes_written>`, the
//! cost of running one eager kernel per original aten op.

use crate::{
    registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption},
    transforms::aten_decompose::{is_composite, may_stay_fused},
};
use fuselab_dialects::ir;
use fuselab_dialects::loops::names;
use fuselab_dialects::{
    aten::{attr, AtenOp, AtenOpClass, AtenOpKind},
    loops::index::{contiguous_index, unravel, IndexExpr},
    types::{DType, TensorType},
};
use fuselab_dialects::{
    attrs::{EAGER_ID_ATTR, INLINE_ATTR, OP_GROUP_ATTR, ORIGIN_ATTR, REALIZE_HINT_ATTR},
    loops::body::{scalar_type, BodyBuilder},
};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirOperation, MlirValue};
use std::collections::HashMap;

mod cost;
mod externs;
mod scalar;
mod views;

use cost::{unfused_cost, value_bytes};
use scalar::{convert, round_opmath, scalar_body};
use views::{reinterpret, view_map};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "lower-aten-to-loop",
    summary:
        "Lower primitive aten ops to loop.pointwise / loop.reduction / loop.extern (views become index maps)",
    anchor: "func.func",
    options: &[
        PassOption {
            name: "materialize-views",
            kind: OptionKind::Bool,
            default: "false",
            help: "make every view op a copy node (TVM Relax's op-per-binding form) instead of an index map",
        },
        PassOption {
            name: "pattern-matcher",
            kind: OptionKind::Bool,
            default: "true",
            help: "Inductor's config.pattern_matcher: fold mm + bias into one addmm extern by the post-grad rule (false: only linear/addmm stay one extern)",
        },
        PassOption {
            name: "concat-kernels",
            kind: OptionKind::Bool,
            default: "true",
            help: "Inductor's ConcatKernel: a cat of mm results is a concat extern the mms write into, no kernel (false: a pointwise cat copies them)",
        },
        PassOption {
            name: "convolution-bias",
            kind: OptionKind::String,
            default: "target",
            help: "a convolution's bias: 'target' (as the target's Inductor lowering: peeled into a pointwise add on gpu), 'add' (always peeled; with materialize-views the bias is reshaped to [1, C, 1, ...] by a node of its own, as Relax's importer writes conv2d + reshape + add), 'extern' (in the library call)",
        },
        PassOption {
            name: "channels-last",
            kind: OptionKind::Bool,
            default: "true",
            help: "Inductor's layout optimization where the target has it (gpu, cpu): a 2-D convolution reads a graph-input input or weight, or a pointwise result only it uses, through a channels-last copy (false: as it is)",
        },
    ],
    run,
    id: &ID,
};

/// Attribute on the function: eager cost `(kernels, bytes_read, bytes_written)`.
pub const UNFUSED_ATTR: &str = "fuselab.unfused";

/// How a tensor value is read.
#[derive(Clone, Debug)]
enum Access {
    /// A splat constant of `shape` (its declared type's, or a view's of it).
    Scalar {
        value: f64,
        shape: Vec<i64>,
        dtype: DType,
    },
    /// `base` storage read at `index` (over this tensor's own logical dims).
    Buffer {
        base: MlirValue,
        shape: Vec<i64>,
        dtype: DType,
        index: IndexExpr,
    },
}

impl Access {
    fn shape(&self) -> &[i64] {
        match self {
            Access::Scalar { shape, .. } | Access::Buffer { shape, .. } => shape,
        }
    }

    fn dtype(&self) -> DType {
        match self {
            Access::Scalar { dtype, .. } | Access::Buffer { dtype, .. } => *dtype,
        }
    }

    /// The buffer this access reads whole, as it is stored (same shape, contiguous
    /// index), if it does.
    fn stored_buffer(&self) -> Option<MlirValue> {
        let Access::Buffer {
            base, shape, index, ..
        } = self
        else {
            return None;
        };
        let whole =
            *index == contiguous_index(shape) && ir::tensor_type(*base).is_some_and(|t| t.shape == *shape);
        whole.then_some(*base)
    }

    /// The access of a view whose logical index `i` (over `new_shape`) reads this
    /// tensor at `map(i)` (one expression per dim of this tensor).
    fn remap(&self, new_shape: &[i64], map: &[IndexExpr]) -> Access {
        match self {
            Access::Scalar { value, dtype, .. } => Access::Scalar {
                value: *value,
                shape: new_shape.to_vec(),
                dtype: *dtype,
            },
            Access::Buffer {
                base, dtype, index, ..
            } => Access::Buffer {
                base: *base,
                shape: new_shape.to_vec(),
                dtype: *dtype,
                index: index.substitute(map, &[], new_shape),
            },
        }
    }
}

fn key(v: MlirValue) -> usize {
    v.ptr as usize
}

struct Lowering {
    accesses: HashMap<usize, Access>,
    next_buffer: usize,
    /// `fuselab.eager_id` of the aten op being lowered.
    eager_id: i64,
    /// The next id for an aten op that has none (not from a composite).
    next_eager_id: i64,
    /// The eager id of each `fuselab.op_group` (the ops fuse-import spells one torch op
    /// with, such as a max pool): one op for the strategies that work per op.
    group_ids: HashMap<String, i64>,
    /// Views become copy nodes instead of index maps.
    materialize_views: bool,
    /// Inductor's post-grad mm + bias patterns run (`config.pattern_matcher`).
    pattern_matcher: bool,
    /// The target leaves a bias consumed by pointwise ops out of the matmul
    /// (`InductorBackend::prefers_unfused_bias_add`).
    prefer_unfused_bias: bool,
    /// A convolution's bias is a pointwise add after it (`InductorBackend::peels_convolution_bias`).
    peel_conv_bias: bool,
    /// Convolutions read graph inputs through channels-last copies
    /// (`InductorBackend::converts_convolutions_to_channels_last` and the option).
    channels_last: bool,
    /// A cat of mm results becomes a `concat` extern they write into (Inductor's
    /// ConcatKernel with `NonOwningLayout` inputs).
    concat_kernels: bool,
    /// Concat externs merged into a larger one, erased with the aten ops.
    merged_concats: Vec<MlirOperation>,
}

type Lowered = Result<(), String>;

fn wrap(dim: i64, rank: usize) -> usize {
    if dim < 0 {
        (dim + rank as i64) as usize
    } else {
        dim as usize
    }
}

fn origin_of(op: MlirOperation, kind: AtenOpKind) -> String {
    ir::attr(op, ORIGIN_ATTR)
        .and_then(fuselab_dialects::attrs::string_raw)
        .unwrap_or_else(|| kind.short_name().to_string())
}

/// The logical index of an operand of shape `operand` broadcast to `result` (rank R),
/// with result dims `d0..`.
fn broadcast_index(operand: &[i64], result: &[i64]) -> Vec<IndexExpr> {
    let offset = result.len() - operand.len();
    operand
        .iter()
        .enumerate()
        .map(|(k, &size)| {
            if size == 1 && result[k + offset] != 1 {
                IndexExpr::constant(0)
            } else {
                IndexExpr::dim(k + offset)
            }
        })
        .collect()
}

impl Lowering {
    fn access(&self, value: MlirValue) -> Result<Access, String> {
        self.accesses.get(&key(value)).cloned().ok_or_else(|| {
            "operand is not produced by an aten op, a splat constant or a function argument".to_string()
        })
    }

    /// A new eager id (an aten op of its own that has none).
    fn fresh_eager_id(&mut self) -> i64 {
        self.next_eager_id += 1;
        self.next_eager_id - 1
    }

    fn new_name(&mut self) -> String {
        let name = format!("buf{}", self.next_buffer);
        self.next_buffer += 1;
        name
    }

    /// Records a node's or extern's result as a contiguous buffer; returns it.
    fn record_buffer(&mut self, result: MlirValue, out: &TensorType) -> MlirValue {
        let access = Access::Buffer {
            base: result,
            shape: out.shape.clone(),
            dtype: out.dtype,
            index: contiguous_index(&out.shape),
        };
        self.accesses.insert(key(result), access);
        result
    }

    /// Reads `access` at the logical index `idx` (expressions over the body's dims).
    fn read(&self, bx: &BodyBuilder, access: &Access, idx: &[IndexExpr]) -> MlirValue {
        match access {
            Access::Scalar { value, dtype, .. } => bx.constant(*value, *dtype),
            Access::Buffer {
                base, dtype, index, ..
            } => {
                let flat = index.substitute(idx, &[], &bx.ranges);
                bx.load(*base, &flat, &[], scalar_type(bx.ctx, *dtype))
            }
        }
    }

    /// Creates a node op before `anchor` and records its contiguous access.
    #[allow(clippy::too_many_arguments)]
    fn emit_node(
        &mut self,
        anchor: MlirOperation,
        origin: &str,
        out: &TensorType,
        ranges: Vec<i64>,
        reduction: Option<(Vec<i64>, &str)>,
        body: impl FnOnce(&Self, &BodyBuilder) -> Result<MlirValue, String>,
    ) -> Result<MlirValue, String> {
        let ctx = ir::context(anchor);
        let loc = ir::location(anchor);
        let mut all_ranges = ranges.clone();
        if let Some((rr, _)) = &reduction {
            all_ranges.extend(rr);
        }
        let bx = BodyBuilder::new_block(ctx, loc, all_ranges);
        let value = body(self, &bx)?;
        bx.finish(value);
        let name = self.new_name();
        let ty = ir::parse_type(ctx, &out.to_string()).ok_or("unprintable result type")?;
        let mut attrs = vec![
            ("name", ir::string_attr(ctx, &name)),
            ("ranges", ir::i64_array_attr(ctx, &ranges)),
            ("origins", ir::string_array_attr(ctx, &[origin.to_string()])),
            (EAGER_ID_ATTR, ir::i64_attr(ctx, self.eager_id)),
        ];
        let op_name = match &reduction {
            Some((rr, kind)) => {
                attrs.push(("reduction_ranges", ir::i64_array_attr(ctx, rr)));
                attrs.push(("kind", ir::string_attr(ctx, kind)));
                names::REDUCTION
            }
            None => names::POINTWISE,
        };
        // A part of a larger node's computation (fuse-import's max pool) stays one.
        if reduction.is_none() && ir::attr(anchor, INLINE_ATTR).is_some() {
            attrs.push((fuselab_dialects::loops::INLINE, ir::unit_attr(ctx)));
        }
        let node = ir::create(op_name, loc, &[], &[ty], &attrs, vec![ir::new_region(bx.block)]);
        ir::insert_before(anchor, node);
        Ok(self.record_buffer(ir::result(node, 0), out))
    }

    /// A contiguous copy of `access` (used for graph outputs that are views and for
    /// extern operands that are not strided).
    fn copy(&mut self, anchor: MlirOperation, access: &Access) -> Result<MlirValue, String> {
        self.copy_as(anchor, access, "clone")
    }

    /// A contiguous copy of `access` with `origin`.
    fn copy_as(&mut self, anchor: MlirOperation, access: &Access, origin: &str) -> Result<MlirValue, String> {
        let out = TensorType {
            shape: access.shape().to_vec(),
            dtype: access.dtype(),
        };
        let idx: Vec<IndexExpr> = (0..out.rank()).map(IndexExpr::dim).collect();
        let access = access.clone();
        self.emit_node(anchor, origin, &out, out.shape.clone(), None, move |this, bx| {
            Ok(this.read(bx, &access, &idx))
        })
    }

    fn lower_op(&mut self, op: MlirOperation) -> Lowered {
        // SAFETY: `op` is alive during the call.
        let Some(aten) = AtenOp::new(unsafe { ir::op_ref(op) }) else {
            return Ok(());
        };
        let kind = aten.kind();
        // An attention or a recurrent cell that --aten-decompose kept (the target runs
        // the fused kernel) becomes an extern.
        if is_composite(kind) && !may_stay_fused(kind) {
            return Err(format!(
                "'{}' is a composite op; run --aten-decompose before --lower-aten-to-loop",
                kind.op_name()
            ));
        }
        let out = aten.result_type().map_err(|e| e.to_string())?;
        let operands: Vec<Access> = ir::operands(op)
            .into_iter()
            .map(|v| self.access(v))
            .collect::<Result<_, _>>()?;
        if ir::attr(op, REALIZE_HINT_ATTR).is_some() {
            mark_realize_hint(&operands);
        }
        let origin = origin_of(op, kind);
        let group = ir::attr(op, OP_GROUP_ATTR).and_then(fuselab_dialects::attrs::string_raw);
        self.eager_id = match (ir::eager_id_of(op), group) {
            (Some(id), _) => id,
            (None, Some(key)) => match self.group_ids.get(&key) {
                Some(&id) => id,
                None => {
                    let id = self.fresh_eager_id();
                    self.group_ids.insert(key, id);
                    id
                }
            },
            (None, None) => self.fresh_eager_id(),
        };
        let result = ir::result(op, 0);
        use AtenOpKind::*;
        match kind {
            View | Reshape | Permute | Transpose | Expand | Unsqueeze | Squeeze | Slice | Select => {
                let input = &operands[0];
                let map = view_map(&aten, input.shape(), &out.shape)?;
                let access = input.remap(&out.shape, &map);
                // A reshape to its own shape is no op at all (Relax's graph of a
                // torch.export program has none: `bmm`'s 3-D views vanish), not a copy —
                // unless its sizes were written with a -1, which Relax's importer keeps.
                let identity = matches!(kind, View | Reshape)
                    && input.shape() == out.shape.as_slice()
                    && ir::attr(op, fuselab_dialects::attrs::INFERRED_SIZE_ATTR).is_none();
                if self.materialize_views && !identity {
                    let value = self.copy_as(op, &access, &origin)?;
                    ir::replace_uses(result, value);
                } else {
                    self.accesses.insert(key(result), access);
                }
            }
            Sum | Prod | Amax | Amin | Any => {
                let input = operands[0].clone();
                let in_shape = input.shape().to_vec();
                let dims: Vec<usize> = aten
                    .dims()
                    .ok_or("missing dims")?
                    .iter()
                    .map(|&d| wrap(d, in_shape.len()))
                    .collect();
                let reduced = |d: usize| dims.is_empty() || dims.contains(&d);
                let kept: Vec<usize> = (0..in_shape.len()).filter(|&d| !reduced(d)).collect();
                let red: Vec<usize> = (0..in_shape.len()).filter(|&d| reduced(d)).collect();
                let ranges: Vec<i64> = kept.iter().map(|&d| in_shape[d]).collect();
                let rranges: Vec<i64> = red.iter().map(|&d| in_shape[d]).collect();
                let idx: Vec<IndexExpr> = (0..in_shape.len())
                    .map(|d| match kept.iter().position(|&k| k == d) {
                        Some(p) => IndexExpr::dim(p),
                        None => IndexExpr::dim(kept.len() + red.iter().position(|&r| r == d).unwrap_or(0)),
                    })
                    .collect();
                let out_dtype = out.dtype;
                let kind_name = match kind {
                    Sum => "sum",
                    Prod => "prod",
                    // any = max over i1 (logical or).
                    Amax | Any => "max",
                    _ => "min",
                };
                let value = self.emit_node(
                    op,
                    &origin,
                    &out,
                    ranges,
                    Some((rranges, kind_name)),
                    move |this, bx| {
                        let value = this.read(bx, &input, &idx);
                        // `any` reduces bools; a sum of bools counts in int64.
                        Ok(convert(bx, value, input.dtype(), out_dtype))
                    },
                )?;
                ir::replace_uses(result, value);
            }
            Add if out.dtype.is_float() && self.fold_bias_into_mm(op, &operands, &out)? => {}
            Convolution => {
                let access = self.lower_convolution(op, &aten, &operands, &out, &origin)?;
                self.accesses.insert(key(result), access);
            }
            // PyTorch's fused recurrent cells (made by --fuse-rnn-cells): a library call.
            Mm | Bmm | FusedLstmCell | FusedGruCell => {
                let value = self.lower_extern(op, &aten, &operands, &out, &origin)?;
                ir::replace_uses(result, value);
            }
            ScaledDotProductAttention => {
                let access = self.lower_attention(op, &aten, &operands, &out, &origin)?;
                self.accesses.insert(key(result), access);
            }
            Cat if self.concat_kernels
                && self.lower_concat(
                    op,
                    wrap(aten.dim().ok_or("missing dim")?, out.rank()),
                    &operands,
                    &origin,
                )? => {}
            Cat => {
                let d = wrap(aten.dim().ok_or("missing dim")?, out.rank());
                let (a, b) = (operands[0].clone(), operands[1].clone());
                let (size_a, size_b) = (a.shape()[d], b.shape()[d]);
                let o = out.clone();
                let value = self.emit_node(op, &origin, &out, out.shape.clone(), None, move |this, bx| {
                    let out = o;
                    // Both reads stay in bounds (the unselected one reads a valid, ignored
                    // element): a index `d mod size_a`, b index `(d - size_a) mod size_b`.
                    let dims: Vec<IndexExpr> = (0..out.rank()).map(IndexExpr::dim).collect();
                    let mut ia = dims.clone();
                    ia[d] = dims[d].modulo(size_a, &bx.ranges);
                    let mut ib = dims.clone();
                    ib[d] = dims[d]
                        .add(&IndexExpr::constant(-size_a))
                        .modulo(size_b, &bx.ranges);
                    let va = this.read(bx, &a, &ia);
                    let vb = this.read(bx, &b, &ib);
                    let position = bx.index_value(&dims[d]);
                    let bound = bx.index_constant(size_a);
                    let i1 = scalar_type(bx.ctx, DType::I1);
                    let slt = ir::i64_attr(bx.ctx, 2);
                    let cond = bx.op_with("arith.cmpi", &[position, bound], i1, &[("predicate", slt)]);
                    Ok(bx.op("arith.select", &[cond, va, vb], scalar_type(bx.ctx, out.dtype)))
                })?;
                ir::replace_uses(result, value);
            }
            Arange => {
                // start + i * step: in i64 for integers, in f32 (rounded once) for floats.
                let (start, step) = (
                    aten.float("start").unwrap_or(0.0),
                    aten.float("step").unwrap_or(1.0),
                );
                let dtype = out.dtype;
                let value = self.emit_node(op, &origin, &out, out.shape.clone(), None, move |_, bx| {
                    let i = bx.index_value(&IndexExpr::dim(0));
                    let i = bx.op("arith.index_cast", &[i], scalar_type(bx.ctx, DType::I64));
                    let wide = if dtype.is_float() { DType::F32 } else { DType::I64 };
                    let i = convert(bx, i, DType::I64, wide);
                    let (mul, add) = if dtype.is_float() {
                        ("arith.mulf", "arith.addf")
                    } else {
                        ("arith.muli", "arith.addi")
                    };
                    let ty = scalar_type(bx.ctx, wide);
                    // A unit step and a zero start emit nothing (exact either way): one
                    // index value, as Inductor's `iota` is one `ops.index_expr`.
                    let scaled = if step == 1.0 {
                        i
                    } else {
                        bx.op(mul, &[i, bx.constant(step, wide)], ty)
                    };
                    let v = if start == 0.0 {
                        scaled
                    } else {
                        bx.op(add, &[scaled, bx.constant(start, wide)], ty)
                    };
                    Ok(convert(bx, v, wide, dtype))
                })?;
                ir::replace_uses(result, value);
            }
            Gather => {
                let d = wrap(aten.dim().ok_or("missing dim")?, out.rank());
                let (src, index) = (operands[0].clone(), operands[1].clone());
                let Access::Buffer {
                    base,
                    index: src_index,
                    dtype,
                    ..
                } = src
                else {
                    return Err("gather from a constant is not supported".to_string());
                };
                let rank = out.rank();
                let value = self.emit_node(op, &origin, &out, out.shape.clone(), None, move |this, bx| {
                    let dims: Vec<IndexExpr> = (0..rank).map(IndexExpr::dim).collect();
                    let raw = this.read(bx, &index, &dims);
                    let index_ty = ir::parse_type(bx.ctx, "index").ok_or("index type")?;
                    let position = bx.op("arith.index_cast", &[raw], index_ty);
                    let mut at = dims.clone();
                    at[d] = IndexExpr::sym(0);
                    let flat = src_index.substitute(&at, &[IndexExpr::sym(0)], &bx.ranges);
                    Ok(bx.load(base, &flat, &[position], scalar_type(bx.ctx, dtype)))
                })?;
                ir::replace_uses(result, value);
            }
            _ => {
                let out_shape = out.shape.clone();
                let out_dtype = out.dtype;
                // A dtype conversion's rounding is the op itself, not op math — unless a
                // decomposition made it (it carries the composite's `fuselab.origin`): then
                // it rounds the composite's f32 result once, as the eager kernel does
                // (mean of a half tensor: an f32 sum, a division, one rounding).
                let user_cast = kind == AtenOpKind::ToDtype && ir::attr(op, ORIGIN_ATTR).is_none();
                let value = self.emit_node(op, &origin, &out, out.shape.clone(), None, move |this, bx| {
                    let values: Vec<MlirValue> = operands
                        .iter()
                        .map(|a| this.read(bx, a, &broadcast_index(a.shape(), &out_shape)))
                        .collect();
                    let dtypes: Vec<DType> = operands.iter().map(Access::dtype).collect();
                    if !out_dtype.is_half() {
                        return scalar_body(bx, kind, &values, &dtypes, &operands, out_dtype);
                    }
                    // A half-precision op computes in f32 and rounds once, as eager
                    // kernels do (opmath), not after each arith op of its body (sigmoid
                    // would round four times).
                    let wide: Vec<MlirValue> = values
                        .iter()
                        .zip(&dtypes)
                        .map(|(&v, &d)| {
                            if d.is_half() {
                                convert(bx, v, d, DType::F32)
                            } else {
                                v
                            }
                        })
                        .collect();
                    let wide_dtypes: Vec<DType> = dtypes
                        .iter()
                        .map(|&d| if d.is_half() { DType::F32 } else { d })
                        .collect();
                    let value = scalar_body(bx, kind, &wide, &wide_dtypes, &operands, DType::F32)?;
                    if user_cast {
                        return Ok(convert(bx, value, DType::F32, out_dtype));
                    }
                    Ok(round_opmath(bx, value, out_dtype))
                })?;
                ir::replace_uses(result, value);
            }
        }
        Ok(())
    }
}

/// Inductor's `x.realize_hint()` on the operands of an op that asks for it: the pointwise
/// nodes they read (through views) get `realize_hint`, which `--inline-pointwise` decides.
fn mark_realize_hint(operands: &[Access]) {
    for access in operands {
        if let Access::Buffer { base, .. } = access {
            if let Some(node) = ir::defining_op(*base).filter(|&p| ir::op_name(p) == names::POINTWISE) {
                let ctx = ir::context(node);
                ir::set_attr(node, fuselab_dialects::loops::REALIZE_HINT, ir::unit_attr(ctx));
            }
        }
    }
}

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let func = func.to_raw();
    let Some(body) = ir::body(func) else { return Ok(()) };
    // Inductor's graphs are straight-line: an aten op nested in a region (scf.for,
    // scf.execute_region, ...) has no place in the loop IR. Refuse it rather than leave
    // it unlowered (and uncounted by every strategy).
    let nested: Vec<MlirOperation> = ir::collect_ops(func, |n| AtenOpKind::from_op_name(n).is_some())
        .into_iter()
        .filter(|&op| ir::parent_block(op).ptr != body.ptr)
        .collect();
    if let Some(&op) = nested.first() {
        let holder = ir::op_name(unsafe { mlir_sys::mlirOperationGetParentOperation(op) });
        cx.sink.error(
            unsafe { melior::ir::Location::from_raw(ir::location(op)) },
            format!(
                "'{}' inside '{holder}' cannot be lowered: fuselab lowers aten ops of a function's \
                 top-level block only (straight-line graphs, as torch.export produces)",
                ir::op_name(op)
            ),
        );
        return Err(PassFailed);
    }
    let ops = ir::block_ops(body);
    // Ids of decomposed composites come from --aten-decompose; other ops get fresh ones.
    let first_free_id = ops
        .iter()
        .filter_map(|&op| ir::eager_id_of(op))
        .max()
        .map_or(0, |m| m + 1);
    let peel_conv_bias = match cx.options.string("convolution-bias") {
        "add" => true,
        "extern" => false,
        "target" => cx.target().backend().peels_convolution_bias(),
        other => {
            cx.sink.error(
                unsafe { melior::ir::Location::from_raw(ir::location(func)) },
                format!("unknown convolution-bias '{other}' (expected target, add or extern)"),
            );
            return Err(PassFailed);
        }
    };
    let mut lowering = Lowering {
        accesses: HashMap::new(),
        next_buffer: 0,
        eager_id: first_free_id,
        next_eager_id: first_free_id,
        group_ids: HashMap::new(),
        materialize_views: cx.options.flag("materialize-views"),
        pattern_matcher: cx.options.flag("pattern-matcher"),
        prefer_unfused_bias: cx.target().backend().prefers_unfused_bias_add(),
        peel_conv_bias,
        channels_last: cx.options.flag("channels-last")
            && cx.target().backend().converts_convolutions_to_channels_last(),
        concat_kernels: cx.options.flag("concat-kernels"),
        merged_concats: Vec::new(),
    };
    for arg in ir::block_arguments(body) {
        if let Some(t) = ir::tensor_type(arg) {
            lowering.accesses.insert(
                key(arg),
                Access::Buffer {
                    base: arg,
                    index: contiguous_index(&t.shape),
                    shape: t.shape,
                    dtype: t.dtype,
                },
            );
        }
    }
    let aten_ops: Vec<MlirOperation> = ops
        .iter()
        .copied()
        .filter(|&op| AtenOpKind::from_op_name(&ir::op_name(op)).is_some())
        .collect();
    let is_view = |op: MlirOperation| {
        AtenOpKind::from_op_name(&ir::op_name(op)).is_some_and(|k| {
            use AtenOpKind::*;
            matches!(
                k,
                View | Reshape | Permute | Transpose | Expand | Unsqueeze | Squeeze | Slice | Select
            )
        })
    };
    let cost = unfused_cost(&aten_ops, &is_view);
    for &op in &ops {
        let name = ir::op_name(op);
        if name == "arith.constant" {
            if let Some((value, dtype)) = fuselab_dialects::ir::splat_value(op) {
                let shape = ir::tensor_type(ir::result(op, 0))
                    .map(|t| t.shape)
                    .unwrap_or_default();
                lowering
                    .accesses
                    .insert(key(ir::result(op, 0)), Access::Scalar { value, shape, dtype });
            }
            continue;
        }
        if name == "func.return" {
            // Graph outputs must be real buffers: materialize views and constants.
            for (i, v) in ir::operands(op).into_iter().enumerate() {
                let is_node = ir::defining_op(v).is_some_and(|d| ir::op_name(d).starts_with("loop."));
                let is_arg = ir::block_argument_number(v).is_some();
                if !is_node && !is_arg {
                    if let Ok(access) = lowering.access(v) {
                        if let Some(direct) = reinterpret(op, &access) {
                            ir::set_operand(op, i, direct);
                            continue;
                        }
                        // The copy is an op of its own (one eager id).
                        lowering.eager_id = lowering.fresh_eager_id();
                        match lowering.copy(op, &access) {
                            Ok(copy) => ir::set_operand(op, i, copy),
                            Err(message) => {
                                cx.sink.error(unsafe { ir::op_ref(op) }.location(), message);
                                return Err(PassFailed);
                            }
                        }
                    }
                }
            }
            continue;
        }
        if let Err(message) = lowering.lower_op(op) {
            let aten = unsafe { ir::op_ref(op) };
            cx.sink.error(
                aten.location(),
                format!("'{name}' op cannot be lowered to loop: {message}"),
            );
            return Err(PassFailed);
        }
    }
    // Erase the aten ops (last first, so uses disappear before definitions) and dead
    // tensor constants.
    for &op in ops.iter().rev() {
        let name = ir::op_name(op);
        let is_aten = AtenOpKind::from_op_name(&name).is_some();
        let dead_constant = name == "arith.constant" && !ir::has_uses(ir::result(op, 0));
        if is_aten || dead_constant {
            if let Some(user) = ir::first_user(ir::result(op, 0)) {
                cx.sink.error(
                    unsafe { ir::op_ref(op) }.location(),
                    format!(
                        "'{name}' result is used by '{}', which --lower-aten-to-loop cannot lower \
                         (only aten ops, splat constants and func.return)",
                        ir::op_name(user)
                    ),
                );
                return Err(PassFailed);
            }
            ir::erase(op);
        }
    }
    for op in std::mem::take(&mut lowering.merged_concats) {
        ir::erase(op);
    }
    ir::set_attr(func, UNFUSED_ATTR, ir::i64_array_attr(ir::context(func), &cost));
    Ok(())
}
