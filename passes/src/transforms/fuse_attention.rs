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
//! Inductor also rewrites attention that a model writes out: its joint-graph pattern
//! passes (fx_passes/fuse_attention.py) replace `softmax(q @ k^T / c, -1) @ v`
//! (`_sfdp_pattern_1`; `* c`: `_sfdp_pattern_2`) by the same call where
//! `_sfdp_params_check` allows it — on the CPU for every float dtype, on CUDA not for f32
//! while TF32 matmuls are off, the default (`InductorBackend::rewrites_attention_patterns`). On
//! the CPU the call is `_scaled_dot_product_flash_attention_for_cpu`
//! (`TORCH_LOGS=output_code`, torch 2.15 on the CPU: the attention workload compiles to
//! that one call).
//!
//! This pass finds the math form and, where the target runs the fused kernel
//! (`InductorBackend::fused_attention`: dtype and head-dim alignment) and the mask's last dim is
//! not a broadcast, replaces it by `aten.scaled_dot_product_attention`. Every
//! intermediate of the form must have no other user; anything else stays as it is.

use crate::registry::{PassContext, PassFailed, PassId, PassInfo};
use crate::target::Target;
use fuselab_dialects::{
    aten::pattern::{defined_by as def, kind_of as kind, self_contained, sole_user, Rewrites},
    aten::AtenOpKind,
    ir,
    ir::splat_value,
    types::TensorType,
};
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

impl Attention {
    /// `self` if query [B, H, L, E], key [B, H, S, E], value [B, H, S, Ev] and the
    /// result [B, H, L, Ev] fit one another.
    fn fitting(self) -> Option<Self> {
        let (q, k, v) = (shape(self.query), shape(self.key), shape(self.value));
        let fits = q.len() == 4
            && k.len() == 4
            && v.len() == 4
            && q[..2] == k[..2]
            && k[..3] == v[..3]
            && q[3] == k[3]
            && shape(self.result) == [q[0], q[1], q[2], v[3]];
        fits.then_some(self)
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
    Attention {
        query,
        key,
        value,
        mask,
        scale: c1 * c2,
        result,
        ops,
    }
    .fitting()
}

/// Whether `op` swaps the last two dims of its input (a `transpose` of them, or a
/// `permute` that is the identity elsewhere).
fn swaps_last_two(op: MlirOperation) -> bool {
    let rank = shape(ir::operand(op, 0)).len() as i64;
    let wrap = |d: i64| if d < 0 { d + rank } else { d };
    match kind(op) {
        Some(AtenOpKind::Transpose) => {
            let (Some(a), Some(b)) = (ir::integer(op, "dim0"), ir::integer(op, "dim1")) else {
                return false;
            };
            let mut pair = [wrap(a), wrap(b)];
            pair.sort_unstable();
            rank >= 2 && pair == [rank - 2, rank - 1]
        }
        Some(AtenOpKind::Permute) => {
            let dims = ir::i64s(op, "dims");
            let mut expected: Vec<i64> = (0..rank).collect();
            if rank >= 2 {
                expected.swap((rank - 2) as usize, (rank - 1) as usize);
            }
            rank >= 2 && dims.into_iter().map(wrap).eq(expected)
        }
        _ => false,
    }
}

/// The [B, H, X, Y] value a `bmm` operand `v` ([B·H, X, Y] or its transpose) reads, as
/// `torch.matmul` of two 4-D tensors writes it (`expand`, a contiguous `clone` where
/// needed, `view`/`reshape` merging the batch dims), with transposes of the last two
/// dims on either side of the view: the value, and whether it is read transposed.
fn batched_operand(v: MlirValue, ops: &mut Vec<MlirOperation>) -> Option<(MlirValue, bool)> {
    let mut transposed = false;
    let mut v = v;
    // [B·H, X, Y] side: transposes and clones, down to the view that merges B and H.
    let merged = loop {
        let op = ir::defining_op(v)?;
        match kind(op)? {
            AtenOpKind::Clone => {}
            AtenOpKind::Transpose | AtenOpKind::Permute if swaps_last_two(op) => transposed = !transposed,
            AtenOpKind::View | AtenOpKind::Reshape => break op,
            _ => return None,
        }
        ops.push(op);
        v = ir::operand(op, 0);
    };
    let (outer, inner) = (shape(ir::result(merged, 0)), shape(ir::operand(merged, 0)));
    if outer.len() != 3 || inner.len() != 4 || inner[0] * inner[1] != outer[0] || inner[2..] != outer[1..] {
        return None;
    }
    ops.push(merged);
    v = ir::operand(merged, 0);
    // [B, H, X, Y] side: expands that change nothing, clones, transposes.
    while let Some(op) = ir::defining_op(v) {
        match kind(op) {
            Some(AtenOpKind::Expand) if shape(ir::operand(op, 0)) == shape(v) => {}
            Some(AtenOpKind::Clone) => {}
            Some(AtenOpKind::Transpose | AtenOpKind::Permute) if swaps_last_two(op) => {
                transposed = !transposed
            }
            _ => break,
        }
        ops.push(op);
        v = ir::operand(op, 0);
    }
    Some((v, transposed))
}

/// Inductor's `_sfdp_pattern_1` / `_sfdp_pattern_2` ending at `bmm`:
/// `softmax(q @ k^T / c, -1) @ v` or with `* c`, `c` a constant — the form a model
/// that writes attention out (rather than calling `F.scaled_dot_product_attention`)
/// exports to.
fn match_pattern(bmm: MlirOperation) -> Option<Attention> {
    let mut ops = Vec::new();
    let (weights, false) = batched_operand(ir::operand(bmm, 0), &mut ops)? else {
        return None;
    };
    let (value, false) = batched_operand(ir::operand(bmm, 1), &mut ops)? else {
        return None;
    };
    let softmax = def(weights, AtenOpKind::Softmax)?;
    let rank = shape(weights).len() as i64;
    if !matches!(ir::integer(softmax, "dim"), Some(d) if d == -1 || d == rank - 1)
        || ir::value_type(weights).ptr != ir::value_type(ir::operand(softmax, 0)).ptr
    {
        return None;
    }
    ops.push(softmax);
    let scaling = ir::defining_op(ir::operand(softmax, 0))?;
    let (product, scale) = match kind(scaling)? {
        AtenOpKind::Div => {
            let (c, _) = ir::defining_op(ir::operand(scaling, 1)).and_then(splat_value)?;
            (ir::operand(scaling, 0), 1.0 / c)
        }
        AtenOpKind::Mul => scaled(ir::result(scaling, 0), &mut Vec::new())?,
        _ => return None,
    };
    ops.push(scaling);
    if !scale.is_finite() || ir::value_type(product).ptr != ir::value_type(weights).ptr {
        return None;
    }
    let product_view = def(product, AtenOpKind::View).or_else(|| def(product, AtenOpKind::Reshape))?;
    let qk = def(ir::operand(product_view, 0), AtenOpKind::Bmm)?;
    ops.extend([product_view, qk]);
    let (query, false) = batched_operand(ir::operand(qk, 0), &mut ops)? else {
        return None;
    };
    let (key, true) = batched_operand(ir::operand(qk, 1), &mut ops)? else {
        return None;
    };
    let out = sole_user(bmm).filter(|&v| matches!(kind(v), Some(AtenOpKind::View | AtenOpKind::Reshape)))?;
    ops.extend([bmm, out]);
    let result = ir::result(out, 0);
    let (q, k) = (shape(query), shape(key));
    if q.len() != 4 || k.len() != 4 || shape(product) != [q[0], q[1], q[2], k[2]] {
        return None;
    }
    Attention {
        query,
        key,
        value,
        mask: None,
        scale,
        result,
        ops,
    }
    .fitting()
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
        && target
            .backend()
            .fused_attention(query.dtype, &[query.shape[3], value.shape[3]])
}

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let target = cx.target();
    // Match first, rewrite after: the forms share no ops, and rewriting erases ops
    // (another form's first bmm among them) that a later match would visit.
    let forms: Vec<(MlirOperation, Attention)> =
        ir::collect_ops(func.to_raw(), |n| n == AtenOpKind::Bmm.op_name())
            .into_iter()
            .filter_map(|bmm| {
                let types = |a: &Attention| [a.query, a.key, a.value].map(ir::tensor_type);
                let explicit = || {
                    match_pattern(bmm).filter(|a| match &types(a) {
                        [Some(q), Some(k), Some(v)] => {
                            q.dtype == k.dtype
                                && k.dtype == v.dtype
                                && target.backend().rewrites_attention_patterns(q.dtype)
                        }
                        _ => false,
                    })
                };
                let a = match_at(bmm).or_else(explicit)?;
                let [Some(q), Some(k), Some(v)] = &types(&a) else {
                    return None;
                };
                let fused = self_contained(&a.ops, &[a.result])
                    && runs_fused(target, q, k, v, a.mask.is_some())
                    && !a.mask.is_some_and(|m| last_dim_broadcast(m, k.shape[2]));
                fused.then_some((bmm, a))
            })
            .collect();
    // A form may read an earlier form's result (stacked attention): read through `done`.
    let mut done = Rewrites::default();
    for (bmm, a) in forms {
        let Some(anchor) = ir::defining_op(a.result) else {
            continue;
        };
        let ctx = ir::context(anchor);
        let mut operands = vec![a.query, a.key, a.value];
        operands.extend(a.mask);
        let operands: Vec<MlirValue> = operands.into_iter().map(|v| done.resolve(v)).collect();
        let fused = ir::create(
            AtenOpKind::ScaledDotProductAttention.op_name(),
            ir::location(bmm),
            &operands,
            &[ir::value_type(a.result)],
            &[("scale", ir::f64_attr(ctx, a.scale))],
            Vec::new(),
        );
        ir::insert_before(anchor, fused);
        done.replace(a.result, ir::result(fused, 0));
        // The form goes (sqrt(scale), -inf, the zeros of _safe_softmax with it).
        ir::erase_with_constants(a.ops);
    }
    Ok(())
}
