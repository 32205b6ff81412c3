//! Interleaving of long loop bodies (issue 18: the fused 100-op pointwise chain ran no
//! faster than 100 separate loops).
//!
//! Rule: LLVM's loop vectorizer interleaves a vectorized loop (runs several vector
//! iterations side by side) on its own only when the body is small (`SmallLoopCost`,
//! 20) or it carries a reduction; a long pointwise body runs one vector at a time, and
//! each element's chain of dependent operations (a `sin` or `exp` expansion alone is
//! 15–30 of them) is latency-bound: the next iteration's independent work lies beyond
//! the core's out-of-order window. Here an innermost
//! `scf.for` whose body holds at least [`LONG_BODY`] float operations gets
//! `loop_annotation = #llvm.loop_annotation<interleave = #llvm.loop_interleave<count = N>>`,
//! which `convert-scf-to-cf` moves onto the loop's latch branch and the translation to
//! LLVM IR writes as `llvm.loop.interleave.count`. `N` is [`MAX_INTERLEAVE`], halved
//! until the loop still runs two interleaved vector iterations (`2 N lanes <= trip
//! count`, with the host's f32 lanes): a forced count is not capped by LLVM, and a trip
//! count below `N lanes` would run the whole loop in its scalar remainder. No
//! annotation below `N = 2`, on a loop whose bounds are not constants, or on a loop
//! holding another loop.

use fuselab_dialects::ir;
use mlir_sys::{MlirOperation, MlirType};

/// Float operations (per scalar iteration) from which a loop body counts as long.
pub const LONG_BODY: usize = 40;

/// The interleave count long bodies get where the trip count allows: enough
/// independent chains to cover a floating-point latency of 4 cycles on 2 pipes.
/// Measured on pointwise_chain_100 (this 2-core AMD EPYC VM, best of 5 alternating
/// rounds of `fuse-run --bench --runs 10`): 41.3 ms uninterleaved, 24.9 ms with 2,
/// 20.8 with 4, 14.6 with 8; diamond_wide (wide rather than deep: its body already
/// has independent work) 9.3–9.5 ms at every count.
pub const MAX_INTERLEAVE: i64 = 8;

/// Ops that make a loop not innermost.
const LOOPS: [&str; 4] = ["scf.for", "scf.parallel", "scf.while", "scf.forall"];

/// Annotates every innermost `scf.for` nested in `root` with a long body (see the
/// module documentation); `lanes`: f32 elements per vector register of the host.
/// Returns how many loops it annotated.
pub fn annotate(root: MlirOperation, lanes: i64) -> usize {
    let ctx = ir::context(root);
    let mut annotated = 0;
    for op in ir::collect_ops(root, |n| n == "scf.for") {
        let Some(count) = interleave_count(op, lanes) else {
            continue;
        };
        let text =
            format!("#llvm.loop_annotation<interleave = #llvm.loop_interleave<count = {count} : i32>>");
        if let Some(attr) = ir::parse_attr(ctx, &text) {
            ir::set_attr(op, "loop_annotation", attr);
            annotated += 1;
        }
    }
    annotated
}

/// The interleave count of the `scf.for` `op`, or `None` when it gets none.
pub fn interleave_count(op: MlirOperation, lanes: i64) -> Option<i64> {
    if !ir::collect_ops(op, |n| LOOPS.contains(&n)).is_empty() {
        return None;
    }
    let trip = trip_count(op)?;
    if float_ops(op) < LONG_BODY {
        return None;
    }
    let mut count = MAX_INTERLEAVE;
    while count >= 2 && 2 * count * lanes > trip {
        count /= 2;
    }
    (count >= 2).then_some(count)
}

/// `(ub - lb) / step` of an `scf.for` with constant bounds and step.
fn trip_count(op: MlirOperation) -> Option<i64> {
    let constant = |i: usize| {
        let def = ir::defining_op(ir::operand(op, i))?;
        (ir::op_name(def) == "arith.constant").then(|| ir::integer(def, "value"))?
    };
    let (lb, ub, step) = (constant(0)?, constant(1)?, constant(2)?);
    (step > 0).then(|| (ub - lb + step - 1) / step)
}

/// Operations nested in the loop `op` (not counting it) with a float or float-vector
/// result, constants left out.
fn float_ops(op: MlirOperation) -> usize {
    ir::collect_ops(op, |n| n != "arith.constant")
        .into_iter()
        .filter(|&o| (0..ir::result_count(o)).any(|i| is_float(ir::value_type(ir::result(o, i)))))
        .count()
}

fn is_float(ty: MlirType) -> bool {
    unsafe {
        let element = if mlir_sys::mlirTypeIsAVector(ty) {
            mlir_sys::mlirShapedTypeGetElementType(ty)
        } else {
            ty
        };
        mlir_sys::mlirTypeIsAFloat(element)
    }
}
