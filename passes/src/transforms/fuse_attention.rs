//! `--fuse-attention`: attention as one fused kernel where PyTorch would run one.
//!
//! Rule: `torch.export` + `run_decompositions()` writes `F.scaled_dot_product_attention`
//! as its math form (`_scaled_dot_product_attention_math`: query and transposed key each
//! scaled by sqrt(scale), a batched matmul, the additive mask — a boolean mask turned
//! into 0 / -inf by `where` — `_safe_softmax`, a batched matmul with value, and a
//! permute / clone / permute giving the output the query's memory order). Under
//! `torch.compile` the same call is dispatched at trace time: where sdp_utils' checks
//! pass it stays one `_scaled_dot_product_efficient_attention` library call, which
//! Inductor does not fuse (tools/fidelity/sdpa_probe.py on the H200: Llama, Mistral,
//! Qwen2, Gemma, Phi, GPT-NeoX, OPT, CLIP, Whisper and Swin take it; BERT-like encoders
//! and ViT fall back to math because their mask's last dim is an expanded size-1 dim,
//! stride 0, which the memory-efficient kernel refuses).
//!
//! This pass finds the math form and, where the target runs the fused kernel
//! (`Target::fused_attention`: dtype and head-dim alignment) and the mask's last dim is
//! not a broadcast, replaces it by `aten.scaled_dot_product_attention`. Every
//! intermediate of the form must have no other user; anything else stays as it is.

use crate::registry::{PassContext, PassFailed, PassId, PassInfo};
use crate::target::Target;
use fuselab_dialects::{aten::AtenOpKind, attrs::splat_value, ir, types::TensorType};
use melior::ir::OperationRef;
use mlir_sys::{MlirOperation, MlirValue};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "fuse-attention",
    summary: "Replace the math form of scaled dot-product attention by one aten.scaled_dot_product_attention where the target runs the fused kernel",
    anchor: "func.func",
    options: &[],
    run,
    id: &ID,
};

/// One matched math form.
struct Attention {
    query: MlirValue,
    key: MlirValue,
    value: MlirValue,
    mask: Option<MlirValue>,
    scale: f64,
    /// The value the fused op replaces ([B, H, L, Ev]).
    result: MlirValue,
    /// Ops of the form, in program order.
    ops: Vec<MlirOperation>,
}

fn kind(op: MlirOperation) -> Option<AtenOpKind> {
    AtenOpKind::from_op_name(&ir::op_name(op))
}

/// The op defining `v` when it is the aten op `k`.
fn def(v: MlirValue, k: AtenOpKind) -> Option<MlirOperation> {
    ir::defining_op(v).filter(|&op| kind(op) == Some(k))
}

/// The only user of `op`'s result.
fn sole_user(op: MlirOperation) -> Option<MlirOperation> {
    match ir::users(ir::result(op, 0)).as_slice() {
        [u] => Some(*u),
        _ => None,
    }
}

fn shape(v: MlirValue) -> Vec<i64> {
    ir::tensor_type(v).map(|t| t.shape).unwrap_or_default()
}

/// `v` read through a `view` of an `expand` (how the decomposition feeds `bmm`; a
/// `clone` between them where the expanded value is not contiguous, as Swin's permuted
/// windows), the ops recorded.
fn through_bmm_operand(v: MlirValue, ops: &mut Vec<MlirOperation>) -> Option<MlirValue> {
    let view = def(v, AtenOpKind::View).or_else(|| def(v, AtenOpKind::Reshape))?;
    let mut source = ir::operand(view, 0);
    if let Some(clone) = def(source, AtenOpKind::Clone) {
        ops.push(clone);
        source = ir::operand(clone, 0);
    }
    let expand = def(source, AtenOpKind::Expand)?;
    ops.extend([expand, view]);
    Some(ir::operand(expand, 0))
}

/// `x * c` with `c` a splat constant: (x, c).
fn scaled(v: MlirValue, ops: &mut Vec<MlirOperation>) -> Option<(MlirValue, f64)> {
    let mul = def(v, AtenOpKind::Mul)?;
    for (x, c) in [(0, 1), (1, 0)] {
        if let Some((c, _)) = ir::defining_op(ir::operand(mul, c)).and_then(splat_value) {
            ops.push(mul);
            return Some((ir::operand(mul, x), c));
        }
    }
    None
}

/// `_safe_softmax(s)` = `where(not(any(not(eq(s, -inf)))), 0, softmax(s))` (or a plain
/// softmax): the scores `s`.
fn safe_softmax(p: MlirValue, ops: &mut Vec<MlirOperation>) -> Option<MlirValue> {
    if let Some(softmax) = def(p, AtenOpKind::Softmax) {
        ops.push(softmax);
        return Some(ir::operand(softmax, 0));
    }
    let select = def(p, AtenOpKind::Where)?;
    let softmax = def(ir::operand(select, 2), AtenOpKind::Softmax)?;
    let not_any = def(ir::operand(select, 0), AtenOpKind::LogicalNot)?;
    let any = def(ir::operand(not_any, 0), AtenOpKind::Any)?;
    let not_eq = def(ir::operand(any, 0), AtenOpKind::LogicalNot)?;
    let eq = def(ir::operand(not_eq, 0), AtenOpKind::Eq)?;
    let scores = ir::operand(softmax, 0);
    if ir::operand(eq, 0).ptr != scores.ptr {
        return None;
    }
    ops.extend([softmax, eq, not_eq, any, not_any, select]);
    Some(scores)
}

/// Whether the mask given to the attention call has its last dim broadcast (stride 0):
/// a size-1 last dim, or an `expand` of one, seen through the bool-to-float `where`.
fn last_dim_broadcast(mask: MlirValue, keys: i64) -> bool {
    let last = |v: MlirValue| shape(v).last().copied().unwrap_or(1);
    if last(mask) == 1 && keys > 1 {
        return true;
    }
    match ir::defining_op(mask).and_then(|op| kind(op).map(|k| (op, k))) {
        Some((op, AtenOpKind::Where)) => last_dim_broadcast(ir::operand(op, 0), keys),
        Some((op, AtenOpKind::Expand)) => last(ir::operand(op, 0)) == 1 && keys > 1,
        _ => false,
    }
}

/// The math form ending at `bmm` (attention weights @ value), if it is one.
fn match_at(bmm: MlirOperation) -> Option<Attention> {
    let mut ops = Vec::new();
    let weights = through_bmm_operand(ir::operand(bmm, 0), &mut ops)?;
    let value = through_bmm_operand(ir::operand(bmm, 1), &mut ops)?;
    let scores = safe_softmax(weights, &mut ops)?;
    let (product, mask) = match def(scores, AtenOpKind::Add) {
        Some(add) => {
            ops.push(add);
            (ir::operand(add, 0), Some(ir::operand(add, 1)))
        }
        None => (scores, None),
    };
    let product_view = def(product, AtenOpKind::View).or_else(|| def(product, AtenOpKind::Reshape))?;
    let qk = def(ir::operand(product_view, 0), AtenOpKind::Bmm)?;
    ops.extend([qk, product_view]);
    let (query, c1) = scaled(through_bmm_operand(ir::operand(qk, 0), &mut ops)?, &mut ops)?;
    let (key_t, c2) = scaled(through_bmm_operand(ir::operand(qk, 1), &mut ops)?, &mut ops)?;
    let transpose = def(key_t, AtenOpKind::Permute)?;
    if ir::i64s(transpose, "dims") != [0, 1, 3, 2] {
        return None;
    }
    ops.push(transpose);
    let key = ir::operand(transpose, 0);
    // The result [B, H, L, Ev]; then, optionally, the decomposition's memory-order
    // round trip permute(2, 0, 1, 3) / clone / permute(1, 2, 0, 3).
    let out = sole_user(bmm).filter(|&v| matches!(kind(v), Some(AtenOpKind::View | AtenOpKind::Reshape)))?;
    ops.extend([bmm, out]);
    let mut result = ir::result(out, 0);
    let round_trip = sole_user(out)
        .filter(|&p| kind(p) == Some(AtenOpKind::Permute) && ir::i64s(p, "dims") == [2, 0, 1, 3])
        .and_then(|p| Some((p, sole_user(p).filter(|&c| kind(c) == Some(AtenOpKind::Clone))?)))
        .and_then(|(p, c)| {
            let back = sole_user(c)
                .filter(|&b| kind(b) == Some(AtenOpKind::Permute) && ir::i64s(b, "dims") == [1, 2, 0, 3])?;
            Some([p, c, back])
        });
    if let Some(trip) = round_trip {
        ops.extend(trip);
        result = ir::result(trip[2], 0);
    }
    let (q, k, v) = (shape(query), shape(key), shape(value));
    let fits = q.len() == 4
        && k.len() == 4
        && v.len() == 4
        && q[..2] == k[..2]
        && k[..3] == v[..3]
        && q[3] == k[3]
        && shape(result) == [q[0], q[1], q[2], v[3]];
    fits.then_some(Attention {
        query,
        key,
        value,
        mask,
        scale: c1 * c2,
        result,
        ops,
    })
}

/// Whether attention over `query`, `key` and `value` (with a mask: `masked`) runs as one
/// fused kernel on `target` in the form the lowering's `sdpa` extern takes: the target's
/// dtype and head-dim rule, and with a mask self-attention (as many keys as queries, so
/// that two of the extern's four operands can share a buffer type: IRDL binds one type
/// to its variadic operands). Without a mask keys may be fewer than queries (SegFormer's
/// spatially reduced keys and values). `--aten-decompose` keeps exactly these.
pub fn runs_fused(
    target: &dyn Target,
    query: &TensorType,
    key: &TensorType,
    value: &TensorType,
    masked: bool,
) -> bool {
    query.rank() == 4
        && key.rank() == 4
        && value.rank() == 4
        && (!masked || query.shape[2] == key.shape[2])
        && target.fused_attention(query.dtype, &[query.shape[3], value.shape[3]])
}

/// Whether every op of the form but the last is used only inside it.
fn self_contained(a: &Attention) -> bool {
    let inside: std::collections::HashSet<usize> = a.ops.iter().map(|o| o.ptr as usize).collect();
    let last = ir::defining_op(a.result).map(|o| o.ptr);
    a.ops.iter().filter(|o| Some(o.ptr) != last).all(|&o| {
        ir::users(ir::result(o, 0))
            .iter()
            .all(|u| inside.contains(&(u.ptr as usize)))
    })
}

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let target = cx.target();
    // Match first, rewrite after: the forms share no ops, and rewriting erases ops
    // (another form's first bmm among them) that a later match would visit.
    let forms: Vec<(MlirOperation, Attention)> =
        ir::collect_ops(func.to_raw(), |n| n == AtenOpKind::Bmm.op_name())
            .into_iter()
            .filter_map(|bmm| Some((bmm, match_at(bmm)?)))
            .filter(|(_, a)| {
                let types = [a.query, a.key, a.value].map(ir::tensor_type);
                let [Some(q), Some(k), Some(v)] = &types else {
                    return false;
                };
                self_contained(a)
                    && runs_fused(target, q, k, v, a.mask.is_some())
                    && !a.mask.is_some_and(|m| last_dim_broadcast(m, k.shape[2]))
            })
            .collect();
    for (bmm, a) in forms {
        let Some(anchor) = ir::defining_op(a.result) else {
            continue;
        };
        let ctx = ir::context(anchor);
        let mut operands = vec![a.query, a.key, a.value];
        operands.extend(a.mask);
        let fused = ir::create(
            AtenOpKind::ScaledDotProductAttention.op_name(),
            ir::location(bmm),
            &operands,
            &[ir::value_type(a.result)],
            &[("scale", ir::f64_attr(ctx, a.scale))],
            Vec::new(),
        );
        ir::insert_before(anchor, fused);
        ir::replace_uses(a.result, ir::result(fused, 0));
        // The form goes (sqrt(scale), -inf, the zeros of _safe_softmax with it).
        ir::erase_with_constants(a.ops);
    }
    Ok(())
}
