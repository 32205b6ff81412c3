//! `--unroll-small-reductions`: Inductor's rule for tiny reductions
//! (torch/_inductor/ir.py `Reduction.create`): a reduction over fewer than
//! `config.unroll_reductions_threshold` elements (8) whose output has more than one
//! element is not a reduction at all but a Pointwise node computing the whole reduction
//! inline (`_unroll_reduction_fn`: the body at every reduction index, combined left to
//! right). On GPUs a single output is no exception (`sympy_product(ranges) != 1 or
//! is_gpu(device)`): the target says (`InductorBackend::unrolls_single_output_reductions`). Being pointwise, it can then be inlined into its consumers and fused with its
//! producers like any other; a 4-element neighbour sum no longer stands between them.
//! (torch-spyre sets the threshold to 1: never.)
//!
//! Runs on loop IR before `--inline-pointwise`, as part of the Inductor strategy's
//! preparation. A reduction is kept when its body yields another type than its result
//! (a bool sum counted in int64) or holds ops with regions.

use crate::registry::{OptionKind, PassContext, PassFailed, PassId, PassInfo, PassOption};
use fuselab_dialects::{
    ir::{self, i64s},
    loops::{body::BodyBuilder, index::IndexExpr, names, reduction_parts, ReductionParts},
};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirOperation, MlirType, MlirValue};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "unroll-small-reductions",
    summary: "Turn reductions over fewer than `threshold` elements into pointwise nodes (Inductor's unroll_reductions_threshold)",
    anchor: "func.func",
    options: &[PassOption {
        name: "threshold",
        kind: OptionKind::UInt,
        default: "8",
        help: "reductions over fewer elements (with more than one output element, or any on a GPU target) are unrolled; 1 or 0: none",
    }],
    run,
    id: &ID,
};

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let threshold = cx.options.uint("threshold") as i64;
    cx.require_loop_ir(func.to_raw())?;
    let Some(block) = ir::body(func.to_raw()) else {
        return Ok(());
    };
    for node in ir::ops_named(block, names::REDUCTION) {
        let rnumel: i64 = i64s(node, "reduction_ranges").iter().product();
        let numel: i64 = i64s(node, "ranges").iter().product();
        if rnumel >= threshold || (numel == 1 && !cx.target().backend().unrolls_single_output_reductions()) {
            continue;
        }
        if let Err(message) = unroll(node) {
            cx.sink.error(unsafe { ir::op_ref(node) }.location(), message);
            return Err(PassFailed);
        }
    }
    Ok(())
}

/// The combining op of reduction `kind` on `ty` values; `None` where unrolling does not
/// apply (kinds the code generators do not know, bool sums and products).
fn combiner(kind: &str, ty: MlirType) -> Option<&'static str> {
    let float = unsafe { mlir_sys::mlirTypeIsAFloat(ty) };
    let bool_ = unsafe { mlir_sys::mlirTypeIsAInteger(ty) && mlir_sys::mlirIntegerTypeGetWidth(ty) == 1 };
    fuselab_dialects::loops::combine_op(kind, float, bool_)
}

/// Replaces reduction `node` by the pointwise node computing it (unchanged when the rule
/// does not apply).
fn unroll(node: MlirOperation) -> Result<(), String> {
    let Some(ReductionParts {
        kind, body, element, ..
    }) = reduction_parts(node)
    else {
        return Ok(());
    };
    let Some(combine) = combiner(&kind, element) else {
        return Ok(());
    };
    let has_regions = ir::block_ops(body)
        .iter()
        .any(|&op| unsafe { mlir_sys::mlirOperationGetNumRegions(op) } > 0);
    if has_regions {
        return Ok(());
    }
    let ctx = ir::context(node);
    let ranges = i64s(node, "ranges");
    let rranges = i64s(node, "reduction_ranges");
    let bx = BodyBuilder::new_block(ctx, ir::location(node), ranges.clone());
    let dims: Vec<IndexExpr> = (0..ranges.len()).map(IndexExpr::dim).collect();
    let rnumel: i64 = rranges.iter().product();
    let mut acc: Option<MlirValue> = None;
    for flat in 0..rnumel {
        // Reduction indices in row-major order (Inductor's `itertools.product`).
        let mut at = dims.clone();
        let mut rest = flat;
        let mut coords = vec![0; rranges.len()];
        for (d, &extent) in rranges.iter().enumerate().rev() {
            coords[d] = rest % extent.max(1);
            rest /= extent.max(1);
        }
        at.extend(coords.into_iter().map(IndexExpr::constant));
        let value = bx.copy_body(body, &at, &[])?;
        acc = Some(match acc {
            None => value,
            Some(a) => bx.op(combine, &[a, value], element),
        });
    }
    bx.finish(acc.ok_or("a reduction over no elements")?);
    let attributes: Vec<(String, mlir_sys::MlirAttribute)> = ir::named_attributes(node)
        .into_iter()
        .filter(|(name, _)| name != "kind" && name != "reduction_ranges")
        .collect();
    let attributes: Vec<(&str, mlir_sys::MlirAttribute)> =
        attributes.iter().map(|(n, a)| (n.as_str(), *a)).collect();
    let pointwise = ir::create(
        names::POINTWISE,
        ir::location(node),
        &[],
        &[ir::value_type(ir::result(node, 0))],
        &attributes,
        vec![ir::new_region(bx.block)],
    );
    ir::insert_before(node, pointwise);
    ir::replace_uses(ir::result(node, 0), ir::result(pointwise, 0));
    ir::erase(node);
    Ok(())
}
