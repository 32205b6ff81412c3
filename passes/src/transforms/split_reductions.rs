//! `--split-reductions`: Inductor's split reductions (torch/_inductor/ir.py
//! `Reduction.create` / `num_splits` / `create_multilayer`): a reduction the target
//! splits (`Target::reduction_split`; the GPU target: a full reduction over more than
//! 8192 elements, Inductor's `inner_reduction_splits` on 132 SMs) becomes two. The first
//! reduces `split` contiguous blocks of the flattened reduction in parallel
//! (`ranges = [split]`, `reduction_ranges = [rnumel / split]`) — it reads its input in
//! the input's own order, so it can fuse with the producers as Inductor's first layer
//! does — and the second reduces the `split` partial results. The CPU target never
//! splits (Inductor's C++ back end reduces to one element well), nor does a pipeline
//! without a target.
//!
//! Only reductions whose element count `split` divides are split (Inductor masks the
//! last block instead); sum, prod, max and min (not argmax/argmin, as Inductor).

use crate::registry::{PassContext, PassFailed, PassId, PassInfo};
use fuselab_dialects::{
    ir::{self, i64s},
    loops::{
        body::BodyBuilder,
        index::{unravel, IndexExpr},
        names,
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
        let split = target.reduction_split(numel, rnumel);
        if split <= 1 || rnumel % split != 0 {
            continue;
        }
        if let Err(message) = split_node(node, split) {
            cx.sink.error(unsafe { ir::op_ref(node) }.location(), message);
            return Err(PassFailed);
        }
    }
    Ok(())
}

/// Replaces the one-output reduction `node` by its two levels (unchanged when its kind
/// or body does not allow it).
fn split_node(node: MlirOperation, split: i64) -> Result<(), String> {
    let kind = ir::attr(node, "kind")
        .and_then(fuselab_dialects::attrs::string_raw)
        .unwrap_or_default();
    if !matches!(kind.as_str(), "sum" | "prod" | "max" | "min") {
        return Ok(());
    }
    let body = ir::body(node).ok_or("reduction without a body")?;
    let yielded = *ir::block_ops(body).last().ok_or("reduction with an empty body")?;
    let element = ir::value_type(ir::operand(yielded, 0));
    let result = ir::tensor_type(ir::result(node, 0)).ok_or("reduction result is not a tensor")?;
    let ctx = ir::context(node);
    let loc = ir::location(node);
    if !unsafe {
        mlir_sys::mlirTypeEqual(
            element,
            fuselab_dialects::loops::body::scalar_type(ctx, result.dtype),
        )
    } {
        return Ok(());
    }
    let ranges = i64s(node, "ranges");
    let rranges = i64s(node, "reduction_ranges");
    let rnumel: i64 = rranges.iter().product();
    let part = rnumel / split;
    // Level 1: `split` outputs, each over a contiguous block of the flattened reduction.
    let first = BodyBuilder::new_block(ctx, loc, vec![split, part]);
    let flat = IndexExpr::dim(0).scale(part).add(&IndexExpr::dim(1));
    let mut at: Vec<IndexExpr> = ranges.iter().map(|_| IndexExpr::constant(0)).collect();
    at.extend(unravel(&flat, &rranges, &[split, part]));
    let value = first.copy_body(body, &at, &[])?;
    first.finish(value);
    let name = ir::attr(node, "name")
        .and_then(fuselab_dialects::attrs::string_raw)
        .unwrap_or_default();
    let partial_ty = TensorType {
        shape: vec![split],
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
        level(&[split], &[part], &format!("{name}_split")),
        partial_ty,
        first.block,
    );
    // Level 2: the original outputs over the `split` partial results.
    let mut all = ranges.clone();
    all.push(split);
    let second = BodyBuilder::new_block(ctx, loc, all);
    let partial = second.load(ir::result(level1, 0), &IndexExpr::dim(ranges.len()), &[], element);
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
