//! `--pointless-cumsum`: Inductor's post-grad pattern `pointless_cumsum_replacement`
//! (torch/_inductor/fx_passes/post_grad.py, "based on a pattern in OPTForCausalLM").
//!
//! Rule: `cumsum(full(shape, v), dim)` is replaced by `arange(1, n + 1) * v` (n =
//! `shape[dim]`) viewed with `n` on `dim` and ones elsewhere, expanded to `shape` and cast
//! to the result dtype: no scan, a pointwise expression of the index that fuses into its
//! users. Integer and boolean fills count in int64 (a boolean fill is 0 or 1), floating
//! ones in the result's float type (the replacement's float64 product of a float32 fill
//! and an index is exact, so one rounding either way). A zero-rank cumsum is not matched,
//! as Inductor's check declines it.
//!
//! fuse-import writes `aten.cumsum` as a masked reduction whose ops share one
//! `fuselab.op_group` with origin `cumsum`; the pattern is such a group whose input is a
//! splat `arith.constant` (torch's `full`) and whose result is its `aten.sum`. Run in the
//! Inductor strategy's graph passes (before `--aten-decompose`); the other strategies'
//! compilers keep the scan (Relax's `cumsum` is a builtin: fusion/tvm/fold_constant.rs).

use crate::registry::{PassContext, PassFailed, PassId, PassInfo};
use fuselab_dialects::{
    aten::AtenOpKind,
    attrs::{OP_GROUP_ATTR, ORIGIN_ATTR},
    ir,
    types::{DType, TensorType},
};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirOperation, MlirValue};
use std::collections::BTreeMap;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "pointless-cumsum",
    summary:
        "Inductor's pointless_cumsum_replacement: a cumsum of a full tensor becomes arange * fill, expanded",
    anchor: "func.func",
    options: &[],
    run,
    id: &ID,
};

/// One matched cumsum: its ops in program order, the fill, the scanned dim.
struct Match {
    ops: Vec<MlirOperation>,
    fill: f64,
    dim: usize,
    result: MlirValue,
    out: TensorType,
}

/// The cumsum groups of `block` (fuse-import's op groups with origin `cumsum`), each in
/// program order, keyed by group.
fn cumsum_groups(block: mlir_sys::MlirBlock) -> BTreeMap<String, Vec<MlirOperation>> {
    let mut groups: BTreeMap<String, Vec<MlirOperation>> = BTreeMap::new();
    for op in ir::block_ops(block) {
        let origin = ir::attr(op, ORIGIN_ATTR).and_then(fuselab_dialects::attrs::string_raw);
        let group = ir::attr(op, OP_GROUP_ATTR).and_then(fuselab_dialects::attrs::string_raw);
        if let (Some("cumsum"), Some(group)) = (origin.as_deref(), group) {
            groups.entry(group).or_default().push(op);
        }
    }
    groups
}

fn match_group(ops: Vec<MlirOperation>) -> Option<Match> {
    let first = *ops.first()?;
    let last = *ops.last()?;
    if ir::op_name(last) != AtenOpKind::Sum.op_name() || ir::result_count(last) != 1 {
        return None;
    }
    let result = ir::result(last, 0);
    let out = ir::tensor_type(result)?;
    // The scanned dim d is summed as d + 1 (the spread axis follows it).
    let dims = ir::i64s(last, "dims");
    let dim = usize::try_from(*dims.first()? - 1).ok()?;
    if dims.len() != 1 || out.rank() == 0 || dim >= out.rank() || out.dtype == DType::I1 {
        return None;
    }
    let full = ir::defining_op(ir::operand(first, 0))?;
    if ir::op_name(full) != "arith.constant" || !is_masked_prefix_sum(last, &out, dim) {
        return None;
    }
    let (fill, dtype) = ir::splat_value(full)?;
    let fill = if dtype == DType::I1 {
        f64::from(u8::from(fill != 0.0))
    } else if !dtype.is_float() {
        fill.trunc()
    } else {
        fill
    };
    // Every op of the group is read only inside it, but the result.
    let inside = |user: MlirOperation| ops.iter().any(|op| op.ptr == user.ptr);
    let closed = ops[..ops.len() - 1]
        .iter()
        .all(|&op| (0..ir::result_count(op)).all(|r| ir::users(ir::result(op, r)).into_iter().all(inside)));
    closed.then_some(Match {
        ops,
        fill,
        dim,
        result,
        out,
    })
}

/// Whether `sum` computes a cumsum along `dim` as fuse-import writes it: the sum over
/// `dim + 1` of `where(mask, expand(x), 0)` whose mask is `j <= i` — `le` of one
/// `arange(0, n)` viewed `[1, n]` (j, the summed axis) and `[n, 1]` (i, the scanned
/// one), viewed with `n` at `dim` and `dim + 1` and ones elsewhere. The op group alone
/// does not say so: a program may label any ops `cumsum` (another comparison, `ge`, is
/// a reversed cumsum, whose values the replacement would not give).
fn is_masked_prefix_sum(sum: MlirOperation, out: &TensorType, dim: usize) -> bool {
    let of = fuselab_dialects::aten::pattern::defined_by;
    let shape = |v: MlirValue| ir::tensor_type(v).map(|t| t.shape);
    let n = out.shape[dim];
    let check = || -> Option<bool> {
        let kept = of(ir::operand(sum, 0), AtenOpKind::Where)?;
        if ir::operands(kept).len() != 3 {
            return Some(false);
        }
        let zero = ir::defining_op(ir::operand(kept, 2)).filter(|&c| ir::op_name(c) == "arith.constant")?;
        let mask = of(ir::operand(kept, 0), AtenOpKind::View)?;
        let mut mask_shape = vec![1; out.rank() + 1];
        mask_shape[dim] = n;
        mask_shape[dim + 1] = n;
        let tri = of(ir::operand(mask, 0), AtenOpKind::Le)?;
        let (j, i) = (
            of(ir::operand(tri, 0), AtenOpKind::View)?,
            of(ir::operand(tri, 1), AtenOpKind::View)?,
        );
        let steps = of(ir::operand(j, 0), AtenOpKind::Arange)?;
        // The kept values: the splat fill expanded (any view of a splat is the same
        // values, so its shape is not checked).
        of(ir::operand(kept, 1), AtenOpKind::Expand)?;
        Some(
            ir::splat_value(zero).is_some_and(|(z, _)| z == 0.0)
                && shape(ir::result(mask, 0))? == mask_shape
                && ir::operand(i, 0).ptr == ir::result(steps, 0).ptr
                && shape(ir::result(j, 0))? == [1, n]
                && shape(ir::result(i, 0))? == [n, 1]
                && shape(ir::result(steps, 0))? == [n]
                && ir::float(steps, "start") == Some(0.0)
                && ir::float(steps, "step") == Some(1.0),
        )
    };
    check().unwrap_or(false)
}

fn tensor_type(
    ctx: mlir_sys::MlirContext,
    shape: &[i64],
    dtype: DType,
) -> Result<mlir_sys::MlirType, String> {
    let ty = TensorType {
        shape: shape.to_vec(),
        dtype,
    };
    ir::parse_type(ctx, &ty.to_string()).ok_or_else(|| format!("cannot build the type {ty}"))
}

/// Emits the replacement of `m` before its result's op; returns its value.
fn replace(m: &Match) -> Result<MlirValue, String> {
    let anchor = *m.ops.last().ok_or("empty cumsum")?;
    let ctx = ir::context(anchor);
    let loc = ir::location(anchor);
    let n = m.out.shape[m.dim];
    let acc = if m.out.dtype.is_float() {
        m.out.dtype
    } else {
        DType::I64
    };
    let emit = |name: &str,
                operands: &[MlirValue],
                shape: &[i64],
                dtype: DType,
                attrs: &[(&str, mlir_sys::MlirAttribute)]| {
        let op = ir::create(
            name,
            loc,
            operands,
            &[tensor_type(ctx, shape, dtype)?],
            attrs,
            Vec::new(),
        );
        ir::insert_before(anchor, op);
        Ok::<MlirValue, String>(ir::result(op, 0))
    };
    let index = emit(
        AtenOpKind::Arange.op_name(),
        &[],
        &[n],
        acc,
        &[
            ("start", ir::f64_attr(ctx, 1.0)),
            ("step", ir::f64_attr(ctx, 1.0)),
        ],
    )?;
    let scaled = if m.fill == 1.0 {
        index
    } else {
        let fill = ir::scalar_constant(ctx, loc, m.fill, acc);
        ir::insert_before(anchor, fill);
        emit(
            AtenOpKind::Mul.op_name(),
            &[index, ir::result(fill, 0)],
            &[n],
            acc,
            &[],
        )?
    };
    let mut inter = vec![1; m.out.rank()];
    inter[m.dim] = n;
    let viewed = emit(AtenOpKind::View.op_name(), &[scaled], &inter, acc, &[])?;
    let expanded = emit(AtenOpKind::Expand.op_name(), &[viewed], &m.out.shape, acc, &[])?;
    if acc == m.out.dtype {
        Ok(expanded)
    } else {
        emit(
            AtenOpKind::ToDtype.op_name(),
            &[expanded],
            &m.out.shape,
            m.out.dtype,
            &[],
        )
    }
}

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let Some(block) = ir::body(func.to_raw()) else {
        return Ok(());
    };
    let matches: Vec<Match> = cumsum_groups(block)
        .into_values()
        .filter_map(match_group)
        .collect();
    for m in matches {
        let value = match replace(&m) {
            Ok(value) => value,
            Err(message) => {
                cx.sink.error(func.location(), message);
                return Err(PassFailed);
            }
        };
        ir::replace_uses(m.result, value);
        // The group goes, and the constants only it read (the full, the masked-out zero).
        ir::erase_with_constants(m.ops);
    }
    Ok(())
}
