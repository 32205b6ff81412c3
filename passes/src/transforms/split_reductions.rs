//! `--split-reductions`: Inductor's split reductions (torch/_inductor/ir.py
//! `Reduction.create` / `num_splits` / `create_multilayer`): a reduction the target
//! splits (`InductorBackend::reduction_split`; the GPU target: Inductor's factors for 132 SMs)
//! becomes two. The first reduces `split` contiguous blocks of the reduction index for
//! every output in parallel (`ranges = ranges ++ [split]`, `reduction_ranges =
//! [rnumel / split]`) — it reads its inputs as the original did, so it fuses with the
//! producers as Inductor's first layer does — and the second reduces each output's
//! `split` partial results. Whether a reduction is *outer* (a column reduction) is
//! Inductor's rule: among its loads that use every index, more of them with every
//! reduction index strided (coefficient > 1) than not. The CPU target never splits
//! (Inductor's C++ back end reduces to one element well), nor does a pipeline without a
//! target.
//!
//! Where `split` does not divide the elements the last block is masked, as Inductor's:
//! its reads are clamped to the last element and the reduction's identity is used past
//! the end. Sum, prod, max and min (not argmax/argmin, as Inductor).

use crate::registry::{PassContext, PassFailed, PassId, PassInfo};
use fuselab_dialects::{
    ir::{self, i64s},
    loops::{
        body::BodyBuilder,
        index::{contiguous_index, unravel, IndexExpr},
        names, reduction_parts, ReductionParts,
    },
    types::TensorType,
};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirAttribute, MlirOperation};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "split-reductions",
    summary: "Split large full reductions in two levels where the target does (Inductor's num_splits)",
    anchor: "func.func",
    options: &[],
    run,
    id: &ID,
};

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    cx.require_loop_ir(func.to_raw())?;
    let Some(block) = ir::body(func.to_raw()) else {
        return Ok(());
    };
    let target = cx.target();
    for node in ir::ops_named(block, names::REDUCTION) {
        let numel: i64 = i64s(node, "ranges").iter().product();
        let rnumel: i64 = i64s(node, "reduction_ranges").iter().product();
        let Some(outer) = crate::analysis::reduction_hint::reads_outer(node) else {
            continue;
        };
        let split = target.backend().reduction_split(numel, rnumel, outer);
        if split <= 1 {
            continue;
        }
        if let Err(message) = split_node(node, split) {
            cx.sink.error(unsafe { ir::op_ref(node) }.location(), message);
            return Err(PassFailed);
        }
    }
    Ok(())
}

/// The identity of reduction `kind` on `dtype` values.
fn identity(kind: &str, dtype: fuselab_dialects::types::DType) -> f64 {
    let bool_ = dtype == fuselab_dialects::types::DType::I1;
    match (kind, dtype.is_float(), bool_) {
        ("prod", ..) => 1.0,
        ("max", true, _) => f64::NEG_INFINITY,
        ("min", true, _) => f64::INFINITY,
        ("max", false, true) => 0.0,
        ("min", false, true) => 1.0,
        ("max", false, false) => i64::MIN as f64,
        ("min", false, false) => i64::MAX as f64,
        _ => 0.0,
    }
}

/// Replaces the reduction `node` by its two levels (unchanged when its kind
/// or body does not allow it).
fn split_node(node: MlirOperation, split: i64) -> Result<(), String> {
    let Some(ReductionParts {
        kind,
        body,
        element,
        result,
    }) = reduction_parts(node)
    else {
        return Ok(());
    };
    if !matches!(kind.as_str(), "sum" | "prod" | "max" | "min") {
        return Ok(());
    }
    let ctx = ir::context(node);
    let loc = ir::location(node);
    let ranges = i64s(node, "ranges");
    let rranges = i64s(node, "reduction_ranges");
    let rnumel: i64 = rranges.iter().product();
    let part = (rnumel + split - 1) / split;
    let n = ranges.len();
    // Level 1: for every output, `split` partial results, each over a contiguous block
    // of the flattened reduction index.
    let mut first_ranges = ranges.clone();
    first_ranges.extend([split, part]);
    let first = BodyBuilder::new_block(ctx, loc, first_ranges.clone());
    let flat = IndexExpr::dim(n).scale(part).add(&IndexExpr::dim(n + 1));
    let mut at: Vec<IndexExpr> = (0..n).map(IndexExpr::dim).collect();
    let value = if rnumel % split == 0 {
        at.extend(unravel(&flat, &rranges, &first_ranges));
        first.copy_body(body, &at, &[])?
    } else {
        // The last block runs past the elements (Inductor masks it): the body reads at
        // the flat index clamped to the last element (an index symbol) and the
        // reduction's identity stands in past the end.
        let index = first.index_value(&flat);
        let last = first.index_constant(rnumel - 1);
        let clamped = first.op("arith.minsi", &[index, last], ir::value_type(index));
        at.extend(unravel(&IndexExpr::sym(0), &rranges, &first_ranges));
        let value = first.copy_body(body, &at, &[clamped])?;
        let count = first.index_constant(rnumel);
        let i1 = ir::parse_type(ctx, "i1").ok_or("i1")?;
        let slt = ir::i64_attr(ctx, 2);
        let inside = first.op_with("arith.cmpi", &[index, count], i1, &[("predicate", slt)]);
        let id = first.constant(identity(&kind, result.dtype), result.dtype);
        first.op("arith.select", &[inside, value, id], element)
    };
    first.finish(value);
    let name = ir::attr(node, "name")
        .and_then(fuselab_dialects::attrs::string_raw)
        .unwrap_or_default();
    let mut partial_shape: Vec<i64> = ranges.clone();
    partial_shape.push(split);
    let partial_ty = TensorType {
        shape: partial_shape.clone(),
        dtype: result.dtype,
    };
    let partial_ty = ir::parse_type(ctx, &partial_ty.to_string()).ok_or("partial result type")?;
    let level = |ranges: &[i64], rranges: &[i64], name: &str| -> Vec<(String, MlirAttribute)> {
        let mut attrs: Vec<(String, MlirAttribute)> = ir::named_attributes(node)
            .into_iter()
            .filter(|(n, _)| !matches!(n.as_str(), "ranges" | "reduction_ranges" | "name"))
            .collect();
        attrs.push(("ranges".into(), ir::i64_array_attr(ctx, ranges)));
        attrs.push(("reduction_ranges".into(), ir::i64_array_attr(ctx, rranges)));
        attrs.push(("name".into(), ir::string_attr(ctx, name)));
        attrs
    };
    let create = |attrs: Vec<(String, MlirAttribute)>, ty, block| {
        let attrs: Vec<(&str, MlirAttribute)> = attrs.iter().map(|(n, a)| (n.as_str(), *a)).collect();
        let op = ir::create(
            names::REDUCTION,
            loc,
            &[],
            &[ty],
            &attrs,
            vec![ir::new_region(block)],
        );
        ir::insert_before(node, op);
        op
    };
    let level1 = create(
        level(&partial_shape, &[part], &format!("{name}_split")),
        partial_ty,
        first.block,
    );
    // Level 2: the original outputs over their `split` partial results.
    let second = BodyBuilder::new_block(ctx, loc, partial_shape.clone());
    let partial = second.load(
        ir::result(level1, 0),
        &contiguous_index(&partial_shape),
        &[],
        element,
    );
    second.finish(partial);
    let level2 = create(
        level(&ranges, &[split], &name),
        ir::value_type(ir::result(node, 0)),
        second.block,
    );
    ir::replace_uses(ir::result(node, 0), ir::result(level2, 0));
    ir::erase(node);
    Ok(())
}
