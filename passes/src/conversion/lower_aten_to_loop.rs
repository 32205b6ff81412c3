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
//! - `cat` is a pointwise select between two reads, `gather` an indirect read;
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
    transforms::aten_decompose::is_composite,
};
use fuselab_dialects::ir;
use fuselab_dialects::loops::names;
use fuselab_dialects::{
    aten::{attr, AtenOp, AtenOpClass, AtenOpKind},
    loops::index::{contiguous_index, unravel, IndexExpr},
    types::{DType, TensorType},
};
use fuselab_dialects::{
    attrs::{eager_id_of, EAGER_ID_ATTR, ORIGIN_ATTR},
    loops::body::{scalar_type, BodyBuilder},
};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirOperation, MlirValue};
use std::collections::HashMap;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "lower-aten-to-loop",
    summary:
        "Lower primitive aten ops to loop.pointwise / loop.reduction / loop.extern (views become index maps)",
    anchor: "func.func",
    options: &[PassOption {
        name: "materialize-views",
        kind: OptionKind::Bool,
        default: "false",
        help: "make every view op a copy node (TVM Relax's op-per-binding form) instead of an index map",
    }],
    run,
    id: &ID,
};

/// Attribute on the function: eager cost `(kernels, bytes_read, bytes_written)`.
pub const UNFUSED_ATTR: &str = "fuselab.unfused";

/// How a tensor value is read.
#[derive(Clone, Debug)]
enum Access {
    /// A splat constant.
    Scalar { value: f64, dtype: DType },
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
            Access::Scalar { .. } => &[],
            Access::Buffer { shape, .. } => shape,
        }
    }

    fn dtype(&self) -> DType {
        match self {
            Access::Scalar { dtype, .. } | Access::Buffer { dtype, .. } => *dtype,
        }
    }

    /// The access of a view whose logical index `i` (over `new_shape`) reads this
    /// tensor at `map(i)` (one expression per dim of this tensor).
    fn remap(&self, new_shape: &[i64], map: &[IndexExpr]) -> Access {
        match self {
            Access::Scalar { .. } => self.clone(),
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
    /// Views become copy nodes instead of index maps.
    materialize_views: bool,
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
            Access::Scalar { value, dtype } => bx.constant(*value, *dtype),
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
        if is_composite(kind) {
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
        let origin = origin_of(op, kind);
        self.eager_id = eager_id_of(op).unwrap_or_else(|| {
            self.next_eager_id += 1;
            self.next_eager_id - 1
        });
        let result = ir::result(op, 0);
        use AtenOpKind::*;
        match kind {
            View | Reshape | Permute | Transpose | Expand | Unsqueeze | Squeeze | Slice | Select => {
                let input = &operands[0];
                let map = view_map(&aten, input.shape(), &out.shape)?;
                let access = input.remap(&out.shape, &map);
                if self.materialize_views {
                    let value = self.copy_as(op, &access, &origin)?;
                    ir::replace_uses(result, value);
                } else {
                    self.accesses.insert(key(result), access);
                }
            }
            Sum | Amax | Amin | Any => {
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
                let kind_name = match kind {
                    Sum => "sum",
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
                        Ok(if kind == Any {
                            convert(bx, value, input.dtype(), DType::I1)
                        } else {
                            value
                        })
                    },
                )?;
                ir::replace_uses(result, value);
            }
            Add if out.dtype.is_float() && self.fold_bias_into_mm(op, &operands, &out)? => {}
            Mm | Bmm | Convolution => {
                let value = self.lower_extern(op, &aten, &operands, &out, &origin)?;
                ir::replace_uses(result, value);
            }
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
                    Ok(convert(bx, value, DType::F32, out_dtype))
                })?;
                ir::replace_uses(result, value);
            }
        }
        Ok(())
    }

    /// Inductor keeps `mm + bias` as one `addmm` extern call (the BLAS epilogue adds the
    /// bias) unless a pointwise op consumes the sum (then the bias is unfused into that
    /// pointwise kernel: post_grad `should_prefer_unfused_addmm`). This folds
    /// `add(mm(a, b), bias[N])` into the extern when the mm has no other use and some user
    /// of the sum is not elementwise. Returns whether it folded.
    fn fold_bias_into_mm(
        &mut self,
        add: MlirOperation,
        operands: &[Access],
        out: &TensorType,
    ) -> Result<bool, String> {
        let sum_users = ir::users(ir::result(add, 0));
        let all_elementwise = !sum_users.is_empty()
            && sum_users.iter().all(|&u| {
                AtenOpKind::from_op_name(&ir::op_name(u))
                    .is_some_and(|k| matches!(k.class(), AtenOpClass::Unary | AtenOpClass::Broadcasting))
            });
        if all_elementwise {
            return Ok(false);
        }
        for (mm_at, bias_at) in [(0, 1), (1, 0)] {
            let (
                Access::Buffer {
                    base, shape, index, ..
                },
                Access::Buffer {
                    base: bias,
                    shape: bias_shape,
                    index: bias_index,
                    ..
                },
            ) = (&operands[mm_at], &operands[bias_at])
            else {
                continue;
            };
            let Some(ext) = ir::defining_op(*base) else {
                continue;
            };
            let is_plain_mm = ir::op_name(ext) == names::EXTERN
                && ir::attr(ext, "kind")
                    .and_then(fuselab_dialects::attrs::string_raw)
                    .as_deref()
                    == Some("mm")
                && ir::operands(ext).len() == 2;
            let n = *shape.last().unwrap_or(&0);
            let bias_is_row = bias_shape.iter().product::<i64>() == n && bias_shape.last() == Some(&n);
            let reshape_of_whole = *index == contiguous_index(shape)
                && value_bytes(*base) == out.size_bytes()
                && self.single_consumer(*base, ir::operand(add, mm_at));
            if !(is_plain_mm
                && bias_is_row
                && reshape_of_whole
                && *bias_index == contiguous_index(bias_shape))
            {
                continue;
            }
            let mut new_operands = ir::operands(ext);
            new_operands.push(*bias);
            unsafe {
                mlir_sys::mlirOperationSetOperands(ext, new_operands.len() as isize, new_operands.as_ptr())
            };
            let ctx = ir::context(ext);
            let mut views: Vec<mlir_sys::MlirAttribute> = (0..2)
                .map(|i| unsafe {
                    mlir_sys::mlirArrayAttrGetElement(
                        ir::attr(ext, fuselab_dialects::loops::attr::OPERAND_VIEWS).expect("set at creation"),
                        i,
                    )
                })
                .collect();
            views.push(ir::i64_array_attr(ctx, &[]));
            ir::set_attr(
                ext,
                fuselab_dialects::loops::attr::OPERAND_VIEWS,
                ir::array_attr(ctx, &views),
            );
            ir::set_attr(ext, "origins", ir::string_array_attr(ctx, &["addmm".to_string()]));
            self.accesses
                .insert(key(ir::result(add, 0)), operands[mm_at].clone());
            return Ok(true);
        }
        Ok(false)
    }

    /// Whether `buffer` is used only by `via` (itself, or a view op whose only user
    /// chain leads to the op being lowered).
    fn single_consumer(&self, buffer: MlirValue, via: MlirValue) -> bool {
        let users = ir::users(buffer);
        if via.ptr == buffer.ptr {
            return users.len() == 1;
        }
        users.len() == 1
            && ir::defining_op(via).is_some_and(|v| v.ptr == users[0].ptr && ir::users(via).len() == 1)
    }

    fn lower_extern(
        &mut self,
        op: MlirOperation,
        aten: &AtenOp,
        operands: &[Access],
        out: &TensorType,
        origin: &str,
    ) -> Result<MlirValue, String> {
        let ctx = ir::context(op);
        let mut values = Vec::new();
        let mut views = Vec::new();
        for access in operands {
            let (base, view) = match access {
                Access::Scalar { .. } => {
                    return Err("a matrix operand cannot be a scalar constant".to_string())
                }
                Access::Buffer {
                    base, shape, index, ..
                } => {
                    let base_shape = ir::tensor_type(*base)
                        .ok_or("extern operand is not a supported tensor")?
                        .shape;
                    if base_shape == *shape && *index == contiguous_index(shape) {
                        (*base, Vec::new())
                    } else if let Some(strides) = index.linear_coefficients(shape.len()) {
                        let mut view = vec![index.constant_part()];
                        view.extend(shape);
                        view.extend(strides);
                        (*base, view)
                    } else {
                        (self.copy(op, access)?, Vec::new())
                    }
                }
            };
            values.push(base);
            views.push(ir::i64_array_attr(ctx, &view));
        }
        let name = self.new_name();
        let extern_kind = match aten.kind() {
            AtenOpKind::Mm => "mm",
            AtenOpKind::Bmm => "bmm",
            _ => "convolution",
        };
        let mut attrs = vec![
            ("name", ir::string_attr(ctx, &name)),
            ("kind", ir::string_attr(ctx, extern_kind)),
            ("origins", ir::string_array_attr(ctx, &[origin.to_string()])),
            (EAGER_ID_ATTR, ir::i64_attr(ctx, self.eager_id)),
            (
                fuselab_dialects::loops::attr::OPERAND_VIEWS,
                ir::array_attr(ctx, &views),
            ),
        ];
        for a in [attr::STRIDE, attr::PADDING, attr::DILATION, attr::GROUPS] {
            if let Some(v) = ir::attr(op, a) {
                attrs.push((a, v));
            }
        }
        let ty = ir::parse_type(ctx, &out.to_string()).ok_or("unprintable result type")?;
        let node = ir::create(
            names::EXTERN,
            ir::location(op),
            &values,
            &[ty],
            &attrs,
            Vec::new(),
        );
        ir::insert_before(op, node);
        Ok(self.record_buffer(ir::result(node, 0), out))
    }
}

/// For a view op, the input's logical index as a function of the output's dims.
fn view_map(op: &AtenOp, input: &[i64], output: &[i64]) -> Result<Vec<IndexExpr>, String> {
    let d = IndexExpr::dim;
    let rank = input.len();
    Ok(match op.kind() {
        AtenOpKind::View | AtenOpKind::Reshape => unravel(&contiguous_index(output), input, output),
        AtenOpKind::Permute => {
            let dims: Vec<usize> = op
                .dims()
                .ok_or("missing dims")?
                .iter()
                .map(|&p| wrap(p, rank))
                .collect();
            let mut map = vec![IndexExpr::constant(0); rank];
            for (j, &p) in dims.iter().enumerate() {
                map[p] = d(j);
            }
            map
        }
        AtenOpKind::Transpose => {
            let a = wrap(op.int(attr::DIM0).ok_or("missing dim0")?, rank);
            let b = wrap(op.int(attr::DIM1).ok_or("missing dim1")?, rank);
            let mut map: Vec<IndexExpr> = (0..rank).map(d).collect();
            map.swap(a, b);
            map
        }
        AtenOpKind::Expand => broadcast_index(input, output),
        AtenOpKind::Unsqueeze => {
            let u = wrap(op.dim().ok_or("missing dim")?, rank + 1);
            (0..rank).map(|k| if k < u { d(k) } else { d(k + 1) }).collect()
        }
        AtenOpKind::Squeeze => {
            let mut next = 0;
            (0..rank)
                .map(|k| {
                    if output.get(next) == Some(&input[k])
                        && !(input[k] == 1 && output.len() - next < rank - k)
                    {
                        next += 1;
                        d(next - 1)
                    } else {
                        IndexExpr::constant(0)
                    }
                })
                .collect()
        }
        AtenOpKind::Slice => {
            let s = wrap(op.dim().ok_or("missing dim")?, rank);
            let size = input[s];
            let start = op.int(attr::START).ok_or("missing start")?;
            let start = if start < 0 {
                (start + size).max(0)
            } else {
                start.min(size)
            };
            let step = op.int(attr::STEP).ok_or("missing step")?;
            (0..rank)
                .map(|k| {
                    if k == s {
                        d(k).scale(step).add(&IndexExpr::constant(start))
                    } else {
                        d(k)
                    }
                })
                .collect()
        }
        AtenOpKind::Select => {
            let s = wrap(op.dim().ok_or("missing dim")?, rank);
            let index = op.int(attr::INDEX).ok_or("missing index")?;
            let index = if index < 0 { index + input[s] } else { index };
            (0..rank)
                .map(|k| match k.cmp(&s) {
                    std::cmp::Ordering::Less => d(k),
                    std::cmp::Ordering::Equal => IndexExpr::constant(index),
                    std::cmp::Ordering::Greater => d(k - 1),
                })
                .collect()
        }
        other => return Err(format!("'{other}' is not a view")),
    })
}

/// The scalar computation of an elementwise op.
fn scalar_body(
    bx: &BodyBuilder,
    kind: AtenOpKind,
    v: &[MlirValue],
    dtypes: &[DType],
    operands: &[Access],
    out: DType,
) -> Result<MlirValue, String> {
    use AtenOpKind::*;
    let ty = scalar_type(bx.ctx, out);
    let float = out.is_float();
    // Operands of mixed dtypes are converted to the result dtype first (ATen promotion).
    let conv = |value: MlirValue, from: DType| -> MlirValue { convert(bx, value, from, out) };
    let unary_float = |name: &str| -> Result<MlirValue, String> {
        if !float {
            return Err(format!("'{}' needs a floating-point result", kind.op_name()));
        }
        Ok(bx.op(name, &[conv(v[0], dtypes[0])], ty))
    };
    Ok(match kind {
        _ if kind.is_comparison() => compare(bx, kind, v, dtypes),
        LogicalNot => {
            let value = convert(bx, v[0], dtypes[0], DType::I1);
            let t = bx.constant(1.0, DType::I1);
            bx.op("arith.xori", &[value, t], ty)
        }
        Neg if float => bx.op("arith.negf", &[v[0]], ty),
        Neg => {
            let zero = bx.constant(0.0, out);
            bx.op("arith.subi", &[zero, v[0]], ty)
        }
        Exp => unary_float("math.exp")?,
        Log => unary_float("math.log")?,
        Sqrt => unary_float("math.sqrt")?,
        Rsqrt => unary_float("math.rsqrt")?,
        Tanh => unary_float("math.tanh")?,
        Sin => unary_float("math.sin")?,
        Cos => unary_float("math.cos")?,
        Erf => unary_float("math.erf")?,
        Abs if float => bx.op("math.absf", &[v[0]], ty),
        Abs => bx.op("math.absi", &[v[0]], ty),
        Relu => {
            let zero = bx.constant(0.0, out);
            bx.op(
                if float { "arith.maximumf" } else { "arith.maxsi" },
                &[v[0], zero],
                ty,
            )
        }
        Sigmoid => {
            // 1 / (1 + exp(-x))
            let x = conv(v[0], dtypes[0]);
            let n = bx.op("arith.negf", &[x], ty);
            let e = bx.op("math.exp", &[n], ty);
            let one = bx.constant(1.0, out);
            let d = bx.op("arith.addf", &[one, e], ty);
            bx.op("arith.divf", &[one, d], ty)
        }
        Reciprocal => {
            let one = bx.constant(1.0, out);
            bx.op("arith.divf", &[one, conv(v[0], dtypes[0])], ty)
        }
        ToDtype => conv(v[0], dtypes[0]),
        Clone => v[0],
        Add | Sub | Mul | Div | Maximum | Minimum => {
            let (a, b) = (conv(v[0], dtypes[0]), conv(v[1], dtypes[1]));
            let name = match (kind, float) {
                (Add, true) => "arith.addf",
                (Sub, true) => "arith.subf",
                (Mul, true) => "arith.mulf",
                (Div, true) => "arith.divf",
                (Maximum, true) => "arith.maximumf",
                (Minimum, true) => "arith.minimumf",
                (Add, false) => "arith.addi",
                (Sub, false) => "arith.subi",
                (Mul, false) => "arith.muli",
                (Maximum, false) => "arith.maxsi",
                (Minimum, false) => "arith.minsi",
                _ => return Err("integer true division needs a floating-point result type".to_string()),
            };
            bx.op(name, &[a, b], ty)
        }
        Pow => {
            let base = conv(v[0], dtypes[0]);
            match &operands[1] {
                // Inductor's pow lowering: an integer-valued scalar exponent becomes
                // repeated multiplication (pow_recursive), exact like eager.
                Access::Scalar { value, .. } if value.fract() == 0.0 && value.abs() <= 64.0 && float => {
                    let n = value.abs() as u32;
                    let mut acc: Option<MlirValue> = None;
                    let mut square = base;
                    let mut bits = n;
                    while bits > 0 {
                        if bits & 1 == 1 {
                            acc = Some(match acc {
                                None => square,
                                Some(a) => bx.op("arith.mulf", &[a, square], ty),
                            });
                        }
                        bits >>= 1;
                        if bits > 0 {
                            square = bx.op("arith.mulf", &[square, square], ty);
                        }
                    }
                    let positive = acc.unwrap_or_else(|| bx.constant(1.0, out));
                    if *value < 0.0 {
                        let one = bx.constant(1.0, out);
                        bx.op("arith.divf", &[one, positive], ty)
                    } else {
                        positive
                    }
                }
                _ if float => bx.op("math.powf", &[base, conv(v[1], dtypes[1])], ty),
                _ => return Err("integer pow is not supported".to_string()),
            }
        }
        Where => bx.op(
            "arith.select",
            &[v[0], conv(v[1], dtypes[1]), conv(v[2], dtypes[2])],
            ty,
        ),
        other => return Err(format!("'{other}' has no elementwise lowering")),
    })
}

/// A comparison (`eq` .. `ge`) of two scalars, in their promoted dtype: `arith.cmpf`
/// with ordered predicates (`ne` is unordered-or-not-equal, as IEEE and ATen say NaN != x)
/// or `arith.cmpi` with signed ones.
fn compare(bx: &BodyBuilder, kind: AtenOpKind, v: &[MlirValue], dtypes: &[DType]) -> MlirValue {
    use AtenOpKind::*;
    let common = match (dtypes[0].is_float(), dtypes[1].is_float()) {
        (true, false) => dtypes[0],
        (false, true) => dtypes[1],
        (true, true) if dtypes[0].size_bytes() >= dtypes[1].size_bytes() => dtypes[0],
        (true, true) => dtypes[1],
        (false, false) if dtypes[0] == dtypes[1] => dtypes[0],
        (false, false) => DType::I64,
    };
    let (a, b) = (
        convert(bx, v[0], dtypes[0], common),
        convert(bx, v[1], dtypes[1], common),
    );
    let i1 = scalar_type(bx.ctx, DType::I1);
    let (name, predicate) = if common.is_float() {
        let p = match kind {
            Eq => 1,
            Gt => 2,
            Ge => 3,
            Lt => 4,
            Le => 5,
            _ => 13,
        };
        ("arith.cmpf", p)
    } else {
        let p = match kind {
            Eq => 0,
            Ne => 1,
            Lt => 2,
            Le => 3,
            Gt => 4,
            _ => 5,
        };
        ("arith.cmpi", p)
    };
    bx.op_with(
        name,
        &[a, b],
        i1,
        &[("predicate", ir::i64_attr(bx.ctx, predicate))],
    )
}

/// Converts a scalar between dtypes (`arith` casts).
fn convert(bx: &BodyBuilder, value: MlirValue, from: DType, to: DType) -> MlirValue {
    if from == to {
        return value;
    }
    let ty = scalar_type(bx.ctx, to);
    match (from.is_float(), to.is_float()) {
        (true, true) if from.size_bytes() < to.size_bytes() => bx.op("arith.extf", &[value], ty),
        (true, true) if from.size_bytes() > to.size_bytes() => bx.op("arith.truncf", &[value], ty),
        (true, true) => {
            // f16 <-> bf16 via f32.
            let f32 = scalar_type(bx.ctx, DType::F32);
            let wide = bx.op("arith.extf", &[value], f32);
            bx.op("arith.truncf", &[wide], ty)
        }
        (false, true) if from == DType::I1 => bx.op("arith.uitofp", &[value], ty),
        (false, true) => bx.op("arith.sitofp", &[value], ty),
        (true, false) if to == DType::I1 => {
            let zero = bx.constant(0.0, from);
            let une = ir::i64_attr(bx.ctx, 13);
            bx.op_with("arith.cmpf", &[value, zero], ty, &[("predicate", une)])
        }
        (true, false) => bx.op("arith.fptosi", &[value], ty),
        (false, false) if to == DType::I1 => {
            let zero = bx.constant(0.0, from);
            let ne = ir::i64_attr(bx.ctx, 1);
            bx.op_with("arith.cmpi", &[value, zero], ty, &[("predicate", ne)])
        }
        (false, false) => bx.op("arith.extui", &[value], ty),
    }
}

/// A graph output that is a strided view of a buffer is returned as that buffer (same
/// layout) or a `loop.view` of it, without a copy (Inductor's ReinterpretView output).
fn reinterpret(anchor: MlirOperation, access: &Access) -> Option<MlirValue> {
    let Access::Buffer {
        base, shape, index, ..
    } = access
    else {
        return None;
    };
    let base_type = ir::tensor_type(*base)?;
    if base_type.shape == *shape && *index == contiguous_index(shape) {
        return Some(*base);
    }
    let strides = index.linear_coefficients(shape.len())?;
    let mut layout = vec![index.constant_part()];
    layout.extend(shape);
    layout.extend(strides);
    let ctx = ir::context(anchor);
    let dtype = base_type.dtype;
    let ty = ir::parse_type(
        ctx,
        &TensorType {
            shape: shape.clone(),
            dtype,
        }
        .to_string(),
    )?;
    let view = ir::create(
        names::VIEW,
        ir::location(anchor),
        &[*base],
        &[ty],
        &[("layout", ir::i64_array_attr(ctx, &layout))],
        Vec::new(),
    );
    ir::insert_before(anchor, view);
    Some(ir::result(view, 0))
}

/// Splat value of a dense tensor constant.
fn splat_value(op: MlirOperation) -> Option<(f64, DType)> {
    let value = ir::attr(op, "value")?;
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseElements(value) || !mlir_sys::mlirDenseElementsAttrIsSplat(value) {
            return None;
        }
        let ty = TensorType::from_mlir(melior::ir::Type::from_raw(ir::value_type(ir::result(op, 0)))).ok()?;
        let v = match ty.dtype {
            DType::F32 | DType::F16 | DType::BF16 => {
                mlir_sys::mlirDenseElementsAttrGetFloatSplatValue(value) as f64
            }
            DType::I64 => mlir_sys::mlirDenseElementsAttrGetInt64SplatValue(value) as f64,
            DType::I1 => mlir_sys::mlirDenseElementsAttrGetBoolSplatValue(value) as i32 as f64,
        };
        let v = if ty.dtype == DType::F32 || !ty.dtype.is_float() {
            v
        } else {
            // f16/bf16 splats: read through the generic attribute.
            fuselab_dialects::attrs::float(melior::ir::Attribute::from_raw(
                mlir_sys::mlirDenseElementsAttrGetSplatValue(value),
            ))
            .unwrap_or(v)
        };
        Some((v, ty.dtype))
    }
}

/// Bytes of a value's tensor type (0 if not a supported tensor).
fn value_bytes(value: MlirValue) -> u64 {
    ir::tensor_type(value).map_or(0, |t| t.size_bytes())
}

/// One eager kernel per original aten op (decomposed composites count once).
fn unfused_cost(ops: &[MlirOperation], is_view: &dyn Fn(MlirOperation) -> bool) -> [i64; 3] {
    let mut groups: Vec<(Option<i64>, Vec<MlirOperation>)> = Vec::new();
    for &op in ops {
        let id = eager_id_of(op);
        match groups.iter_mut().find(|(g, _)| id.is_some() && *g == id) {
            Some((_, members)) => members.push(op),
            None => groups.push((id, vec![op])),
        }
    }
    let (mut kernels, mut read, mut written) = (0i64, 0u64, 0u64);
    for (_, members) in &groups {
        if members.iter().all(|&m| is_view(m)) {
            continue;
        }
        kernels += 1;
        let inside =
            |v: MlirValue| ir::defining_op(v).is_some_and(|d| members.iter().any(|m| m.ptr == d.ptr));
        let mut seen: Vec<usize> = Vec::new();
        for &m in members {
            for v in ir::operands(m) {
                let is_scalar_constant =
                    ir::defining_op(v).is_some_and(|d| ir::op_name(d) == "arith.constant");
                if !inside(v) && !is_scalar_constant && !seen.contains(&key(v)) {
                    seen.push(key(v));
                    read += value_bytes(v);
                }
            }
            let r = ir::result(m, 0);
            if ir::users(r)
                .iter()
                .any(|u| !members.iter().any(|m| m.ptr == u.ptr))
            {
                written += value_bytes(r);
            }
        }
    }
    [kernels, read as i64, written as i64]
}

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let func = func.to_raw();
    let Some(body) = ir::body(func) else { return Ok(()) };
    let ops = ir::block_ops(body);
    // Ids of decomposed composites come from --aten-decompose; other ops get fresh ones.
    let first_free_id = ops
        .iter()
        .filter_map(|&op| eager_id_of(op))
        .max()
        .map_or(0, |m| m + 1);
    let mut lowering = Lowering {
        accesses: HashMap::new(),
        next_buffer: 0,
        eager_id: first_free_id,
        next_eager_id: first_free_id,
        materialize_views: cx.options.flag("materialize-views"),
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
            if let Some((value, dtype)) = splat_value(op) {
                lowering
                    .accesses
                    .insert(key(ir::result(op, 0)), Access::Scalar { value, dtype });
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
                        lowering.eager_id = lowering.next_eager_id;
                        lowering.next_eager_id += 1;
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
        let dead_constant = name == "arith.constant" && ir::users(ir::result(op, 0)).is_empty();
        if is_aten || dead_constant {
            if let Some(user) = ir::users(ir::result(op, 0)).first() {
                cx.sink.error(
                    unsafe { ir::op_ref(op) }.location(),
                    format!(
                        "'{name}' result is used by '{}', which --lower-aten-to-loop cannot lower \
                         (only aten ops, splat constants and func.return)",
                        ir::op_name(*user)
                    ),
                );
                return Err(PassFailed);
            }
            ir::erase(op);
        }
    }
    ir::set_attr(func, UNFUSED_ATTR, ir::i64_array_attr(ir::context(func), &cost));
    Ok(())
}
