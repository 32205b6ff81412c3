//! `--aten-decompose`: composite aten ops to primitive aten ops, the way Inductor's
//! decomposition table and lowerings do (torch/_decomp, torch/_inductor/decomposition.py,
//! lowering.py):
//! - `mean(x, dims)` = `sum(x, dims) / N` (Inductor's mean lowering: the row sum is the
//!   realized reduction, the division goes to its user — seed 000 §6.4);
//! - `var(x, dims, correction)` = `sum((x - mean)^2) / (N - correction)`;
//! - `layer_norm` = `(x - mean) * rsqrt(var(correction=0) + eps) * w + b`;
//! - `rms_norm` = `x * rsqrt(mean(x*x) + eps) * w`;
//! - `softmax` = `exp(x - amax) / sum(exp(x - amax))`; `log_softmax` =
//!   `(x - amax) - log(sum(exp(x - amax)))` (the max-subtracted, numerically safe form);
//! - `gelu` (erf form) = `0.5 x (1 + erf(x / sqrt 2))`; tanh form =
//!   `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`;
//! - `silu` = `x * sigmoid(x)`; `linear` = `mm(x, W^T) + b` (batched inputs viewed as 2-D);
//!   `addmm(b, m1, m2)` = `mm(m1, m2) + b`.
//!
//! With f16 / bf16 results, every composite except `linear` / `addmm` is computed in f32
//! between two `to_dtype`s (torch/_decomp's computation dtype), so the primitives do not
//! round to half precision between steps.
//!
//! Every created op carries `fuselab.origin` (the composite's name, used for kernel names
//! as Inductor uses FX origins) and `fuselab.eager_id` (one id per composite instance,
//! so cost reports can count one eager kernel per original aten op).

use crate::registry::{PassContext, PassFailed, PassId, PassInfo};
use fuselab_dialects::ir;
use fuselab_dialects::{
    aten::{attr, AtenOp, AtenOpKind},
    attrs::{EAGER_ID_ATTR, ORIGIN_ATTR},
    types::{DType, TensorType},
};
use melior::ir::OperationRef;
use mlir_sys::{MlirLocation, MlirOperation, MlirValue};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "aten-decompose",
    summary:
        "Decompose composite aten ops (layer_norm, group_norm, batch_norm, softmax, gelu, linear, mean, var, ...) into primitives",
    anchor: "func.func",
    options: &[],
    run,
    id: &ID,
};

/// Whether `kind` is decomposed by this pass.
pub fn is_composite(kind: AtenOpKind) -> bool {
    use AtenOpKind::*;
    matches!(
        kind,
        Mean | Var
            | LayerNorm
            | RmsNorm
            | GroupNorm
            | BatchNorm
            | Softmax
            | LogSoftmax
            | Gelu
            | Silu
            | Linear
            | Addmm
            | ScaledDotProductAttention
            | FusedLstmCell
            | FusedGruCell
    )
}

/// Whether the composite `kind` may stay one op where the target runs it as one library
/// kernel (kept by this pass, then lowered to an extern): attention and the fused
/// recurrent cells.
pub fn may_stay_fused(kind: AtenOpKind) -> bool {
    use AtenOpKind::*;
    matches!(kind, ScaledDotProductAttention | FusedLstmCell | FusedGruCell)
}

/// Creates primitive aten ops in front of one composite op.
struct Emitter {
    anchor: MlirOperation,
    loc: MlirLocation,
    origin: String,
    eager_id: i64,
    ctx: mlir_sys::MlirContext,
}

impl Emitter {
    fn op(
        &self,
        kind: AtenOpKind,
        operands: &[MlirValue],
        attrs: &[(&str, mlir_sys::MlirAttribute)],
        result: &TensorType,
    ) -> MlirValue {
        let ty = ir::parse_type(self.ctx, &result.to_string()).expect("tensor types print parseably");
        let mut all: Vec<(&str, mlir_sys::MlirAttribute)> = attrs.to_vec();
        all.push((ORIGIN_ATTR, ir::string_attr(self.ctx, &self.origin)));
        all.push((EAGER_ID_ATTR, ir::i64_attr(self.ctx, self.eager_id)));
        let op = ir::create(kind.op_name(), self.loc, operands, &[ty], &all, Vec::new());
        ir::insert_before(self.anchor, op);
        // Composites created by a decomposition (mean inside var, ...) are decomposed too.
        if is_composite(kind) {
            if let Some(value) = decompose(op, self.eager_id) {
                ir::replace_uses(ir::result(op, 0), value);
                ir::erase(op);
                return value;
            }
        }
        ir::result(op, 0)
    }

    /// A rank-0 constant of `dtype`.
    fn scalar(&self, value: f64, like: &TensorType) -> MlirValue {
        let op = ir::scalar_constant(self.ctx, self.loc, value, like.dtype);
        ir::insert_before(self.anchor, op);
        ir::result(op, 0)
    }

    fn reduce(
        &self,
        kind: AtenOpKind,
        x: MlirValue,
        xt: &TensorType,
        dims: &[usize],
        keepdim: bool,
    ) -> (MlirValue, TensorType) {
        let shape = xt
            .shape
            .iter()
            .enumerate()
            .filter_map(|(d, &s)| {
                if dims.contains(&d) {
                    keepdim.then_some(1)
                } else {
                    Some(s)
                }
            })
            .collect();
        let out = TensorType {
            shape,
            dtype: xt.dtype,
        };
        let dims: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let v = self.op(
            kind,
            &[x],
            &[
                (attr::DIMS, ir::i64_array_attr(self.ctx, &dims)),
                (attr::KEEPDIM, ir::bool_attr(self.ctx, keepdim)),
            ],
            &out,
        );
        (v, out)
    }

    fn binary(&self, kind: AtenOpKind, a: MlirValue, b: MlirValue, out: &TensorType) -> MlirValue {
        self.op(kind, &[a, b], &[], out)
    }

    fn unary(&self, kind: AtenOpKind, a: MlirValue, out: &TensorType) -> MlirValue {
        self.op(kind, &[a], &[], out)
    }

    /// `x[start..end]` along `dim` (step 1), of type `out`.
    fn slice(&self, x: MlirValue, dim: i64, start: i64, end: i64, out: &TensorType) -> MlirValue {
        let attrs = [
            (attr::DIM, ir::i64_attr(self.ctx, dim)),
            (attr::START, ir::i64_attr(self.ctx, start)),
            (attr::END, ir::i64_attr(self.ctx, end)),
            (attr::STEP, ir::i64_attr(self.ctx, 1)),
        ];
        self.op(AtenOpKind::Slice, &[x], &attrs, out)
    }

    /// A fused LSTM / GRU cell (`fuselab_dialects::aten::RnnCell`) as the gates that
    /// PyTorch's CPU `lstm_cell` / `gru_cell` compute (RNN.cpp; the form `torch.export`
    /// writes): the products unstacked, biases added, chunks along dim 1, then LSTM
    /// `cy = sigmoid(f) cx + sigmoid(i) tanh(g)`, `hy = sigmoid(o) tanh(cy)`, stacked as
    /// [hy; cy]; GRU `n = tanh(in + r hn)`, `hy = (hx - n) z + n`.
    fn rnn_cell(
        &self,
        cell: &fuselab_dialects::aten::RnnCell,
        args: &[MlirValue],
        dtype: DType,
    ) -> MlirValue {
        use fuselab_dialects::aten::CellKind;
        let (b, h) = (cell.batch, cell.hidden);
        let t = |shape: Vec<i64>| TensorType { shape, dtype };
        let product_t = t(vec![b, cell.kind.gates() * h]);
        let state_t = t(vec![b, h]);
        let product = |k: i64| {
            let p = self.slice(args[0], 0, k * b, (k + 1) * b, &product_t);
            match args.get(2 + k as usize) {
                Some(&bias) => self.binary(AtenOpKind::Add, p, bias, &product_t),
                None => p,
            }
        };
        let (input, hidden) = (product(0), product(1));
        let chunk = |p: MlirValue, k: i64| self.slice(p, 1, k * h, (k + 1) * h, &state_t);
        let unary = |kind, x| self.unary(kind, x, &state_t);
        let binary = |kind, x, y| self.binary(kind, x, y, &state_t);
        match cell.kind {
            CellKind::Lstm => {
                let gates = self.binary(AtenOpKind::Add, input, hidden, &product_t);
                let i = unary(AtenOpKind::Sigmoid, chunk(gates, 0));
                let f = unary(AtenOpKind::Sigmoid, chunk(gates, 1));
                let g = unary(AtenOpKind::Tanh, chunk(gates, 2));
                let o = unary(AtenOpKind::Sigmoid, chunk(gates, 3));
                let cy = binary(
                    AtenOpKind::Add,
                    binary(AtenOpKind::Mul, f, args[1]),
                    binary(AtenOpKind::Mul, i, g),
                );
                let hy = binary(AtenOpKind::Mul, o, unary(AtenOpKind::Tanh, cy));
                let one_t = t(vec![1, b, h]);
                let dim0 = [(attr::DIM, ir::i64_attr(self.ctx, 0))];
                let parts: Vec<MlirValue> = [hy, cy]
                    .iter()
                    .map(|&v| self.op(AtenOpKind::Unsqueeze, &[v], &dim0, &one_t))
                    .collect();
                self.op(AtenOpKind::Cat, &parts, &dim0, &t(vec![2, b, h]))
            }
            CellKind::Gru => {
                let gate = |k| {
                    unary(
                        AtenOpKind::Sigmoid,
                        binary(AtenOpKind::Add, chunk(input, k), chunk(hidden, k)),
                    )
                };
                let (r, z) = (gate(0), gate(1));
                let n = unary(
                    AtenOpKind::Tanh,
                    binary(
                        AtenOpKind::Add,
                        chunk(input, 2),
                        binary(AtenOpKind::Mul, chunk(hidden, 2), r),
                    ),
                );
                let gated = binary(AtenOpKind::Mul, binary(AtenOpKind::Sub, args[1], n), z);
                binary(AtenOpKind::Add, gated, n)
            }
        }
    }

    /// Scaled dot-product attention in torch's math form (`_scaled_dot_product_attention_math`,
    /// as `torch.export` writes it): query and transposed key each scaled by sqrt(scale),
    /// a batched matmul, the additive mask, `_safe_softmax` (a row of -inf scores gives
    /// zeros), a batched matmul with value.
    fn attention(
        &self,
        args: &[MlirValue],
        inputs: &[TensorType],
        out: &TensorType,
        scale: f64,
    ) -> MlirValue {
        let (qt, kt, vt) = (&inputs[0], &inputs[1], &inputs[2]);
        let t = |shape: Vec<i64>, dtype: DType| TensorType { shape, dtype };
        let (b, h, l, e, s, ev) = (
            qt.shape[0],
            qt.shape[1],
            qt.shape[2],
            qt.shape[3],
            kt.shape[2],
            vt.shape[3],
        );
        let dtype = qt.dtype;
        let root = self.scalar(scale.sqrt(), qt);
        let q = self.binary(AtenOpKind::Mul, args[0], root, qt);
        let k_t = t(vec![b, h, e, s], dtype);
        let k = self.op(
            AtenOpKind::Permute,
            &[args[1]],
            &[(attr::DIMS, ir::i64_array_attr(self.ctx, &[0, 1, 3, 2]))],
            &k_t,
        );
        let k = self.binary(AtenOpKind::Mul, k, root, &k_t);
        let q3 = self.unary(AtenOpKind::View, q, &t(vec![b * h, l, e], dtype));
        let k3 = self.unary(AtenOpKind::View, k, &t(vec![b * h, e, s], dtype));
        let scores_t = t(vec![b, h, l, s], dtype);
        let p3 = self.binary(AtenOpKind::Bmm, q3, k3, &t(vec![b * h, l, s], dtype));
        let mut scores = self.unary(AtenOpKind::View, p3, &scores_t);
        if let Some(&mask) = args.get(3) {
            scores = self.binary(AtenOpKind::Add, scores, mask, &scores_t);
        }
        let softmax = self.op(
            AtenOpKind::Softmax,
            &[scores],
            &[(attr::DIM, ir::i64_attr(self.ctx, -1))],
            &scores_t,
        );
        // _safe_softmax: rows whose scores are all -inf give 0, not NaN.
        let bools = t(vec![b, h, l, s], DType::I1);
        let rows = t(vec![b, h, l, 1], DType::I1);
        let ninf = self.scalar(f64::NEG_INFINITY, &scores_t);
        let masked = self.binary(AtenOpKind::Eq, scores, ninf, &bools);
        let open = self.unary(AtenOpKind::LogicalNot, masked, &bools);
        let (any, _) = self.reduce(AtenOpKind::Any, open, &bools, &[3], true);
        let none = self.unary(AtenOpKind::LogicalNot, any, &rows);
        let zero = self.scalar(0.0, &scores_t);
        let weights = self.op(AtenOpKind::Where, &[none, zero, softmax], &[], &scores_t);
        let w3 = self.unary(AtenOpKind::View, weights, &t(vec![b * h, l, s], dtype));
        let v3 = self.unary(AtenOpKind::View, args[2], &t(vec![b * h, s, ev], dtype));
        let o3 = self.binary(AtenOpKind::Bmm, w3, v3, &t(vec![b * h, l, ev], dtype));
        self.unary(AtenOpKind::View, o3, out)
    }

    /// `mean(x, dims)` as `sum / N`.
    fn mean(&self, x: MlirValue, xt: &TensorType, dims: &[usize], keepdim: bool) -> (MlirValue, TensorType) {
        let count: i64 = dims_or_all(dims, xt.rank())
            .iter()
            .map(|&d| xt.shape[d])
            .product();
        let (sum, st) = self.reduce(AtenOpKind::Sum, x, xt, dims, keepdim);
        let n = self.scalar(count as f64, &st);
        (self.binary(AtenOpKind::Div, sum, n, &st), st)
    }

    /// Variance with `correction`.
    fn var(
        &self,
        x: MlirValue,
        xt: &TensorType,
        dims: &[usize],
        keepdim: bool,
        correction: i64,
    ) -> (MlirValue, TensorType) {
        let count: i64 = dims_or_all(dims, xt.rank())
            .iter()
            .map(|&d| xt.shape[d])
            .product();
        let (m, _) = self.mean(x, xt, dims, true);
        let d = self.binary(AtenOpKind::Sub, x, m, xt);
        let sq = self.binary(AtenOpKind::Mul, d, d, xt);
        let (s, st) = self.reduce(AtenOpKind::Sum, sq, xt, dims, keepdim);
        // PyTorch divides by max(0, N - correction) (inf or NaN when the correction is at
        // least N).
        let n = self.scalar(count.saturating_sub(correction).max(0) as f64, &st);
        (self.binary(AtenOpKind::Div, s, n, &st), st)
    }
}

fn dims_or_all(dims: &[usize], rank: usize) -> Vec<usize> {
    if dims.is_empty() {
        (0..rank).collect()
    } else {
        dims.to_vec()
    }
}

fn wrap(dim: i64, rank: usize) -> usize {
    if dim < 0 {
        (dim + rank as i64) as usize
    } else {
        dim as usize
    }
}

/// Decomposes one composite op (emitting before it); returns the value replacing its
/// result, or `None` if the op is not a composite. The op itself is left for the caller.
fn decompose(op: MlirOperation, eager_id: i64) -> Option<MlirValue> {
    // SAFETY: `op` is alive for the whole call.
    let aten = AtenOp::new(unsafe { ir::op_ref(op) })?;
    let kind = aten.kind();
    if !is_composite(kind) {
        return None;
    }
    let inputs = aten.operand_types().ok()?;
    let out = aten.result_type().ok()?;
    let e = Emitter {
        anchor: op,
        loc: ir::location(op),
        origin: ir::attr(op, ORIGIN_ATTR)
            .and_then(fuselab_dialects::attrs::string_raw)
            .unwrap_or_else(|| kind.short_name().to_string()),
        eager_id,
        ctx: ir::context(op),
    };
    // Half-precision normalizations and activations are computed in f32 and rounded
    // once (torch/_decomp's computation dtype, `utils.get_computation_dtype`: what eager
    // kernels do internally too); matmuls keep their dtype.
    let upcast = out.dtype.is_half()
        && !matches!(
            kind,
            AtenOpKind::Linear | AtenOpKind::Addmm | AtenOpKind::ScaledDotProductAttention
        );
    let (args, inputs): (Vec<MlirValue>, Vec<TensorType>) = ir::operands(op)
        .into_iter()
        .zip(inputs)
        .map(|(v, t)| {
            if upcast && t.dtype.is_half() {
                let wide = TensorType {
                    shape: t.shape.clone(),
                    dtype: DType::F32,
                };
                (e.unary(AtenOpKind::ToDtype, v, &wide), wide)
            } else {
                (v, t)
            }
        })
        .unzip();
    let x = args[0];
    let xt = &inputs[0];
    let value = match kind {
        AtenOpKind::Mean | AtenOpKind::Var => {
            let dims: Vec<usize> = aten.dims()?.iter().map(|&d| wrap(d, xt.rank())).collect();
            // An empty list reduces every dim (PyTorch's `dim=[]` / `dim=None`), as the
            // verifier and the interpreters read it: spelled out, so the sum and the
            // count agree on it.
            let dims = dims_or_all(&dims, xt.rank());
            let keepdim = aten.keepdim()?;
            if kind == AtenOpKind::Mean {
                e.mean(x, xt, &dims, keepdim).0
            } else {
                e.var(x, xt, &dims, keepdim, aten.int(attr::CORRECTION)?).0
            }
        }
        AtenOpKind::LayerNorm | AtenOpKind::RmsNorm => {
            let normalized = aten.ints(attr::NORMALIZED_SHAPE)?;
            let eps = aten.float(attr::EPS)?;
            let dims: Vec<usize> = (xt.rank() - normalized.len()..xt.rank()).collect();
            let w = args[1];
            if kind == AtenOpKind::LayerNorm {
                let (m, _) = e.mean(x, xt, &dims, true);
                let d = e.binary(AtenOpKind::Sub, x, m, xt);
                let sq = e.binary(AtenOpKind::Mul, d, d, xt);
                let (v, vt) = e.mean(sq, xt, &dims, true);
                let eps = e.scalar(eps, &vt);
                let ve = e.binary(AtenOpKind::Add, v, eps, &vt);
                let r = e.unary(AtenOpKind::Rsqrt, ve, &vt);
                let n = e.binary(AtenOpKind::Mul, d, r, xt);
                let scaled = e.binary(AtenOpKind::Mul, n, w, xt);
                e.binary(AtenOpKind::Add, scaled, args[2], xt)
            } else {
                let sq = e.binary(AtenOpKind::Mul, x, x, xt);
                let (ms, mt) = e.mean(sq, xt, &dims, true);
                let eps = e.scalar(eps, &mt);
                let me = e.binary(AtenOpKind::Add, ms, eps, &mt);
                let r = e.unary(AtenOpKind::Rsqrt, me, &mt);
                let n = e.binary(AtenOpKind::Mul, x, r, xt);
                e.binary(AtenOpKind::Mul, n, w, xt)
            }
        }
        AtenOpKind::GroupNorm => {
            // PyTorch's definition: x viewed as [N, G, C/G * rest], centred by the group
            // mean and scaled by rsqrt(biased variance + eps), viewed back, then the
            // per-channel affine with weight and bias viewed as [C, 1, ...].
            let groups = aten.int(attr::NUM_GROUPS)?;
            let eps = aten.float(attr::EPS)?;
            let (n, c) = (xt.shape[0], xt.shape[1]);
            let gt = TensorType {
                shape: vec![n, groups, xt.numel() / (n * groups).max(1)],
                dtype: xt.dtype,
            };
            let xg = e.unary(AtenOpKind::View, x, &gt);
            let (m, _) = e.mean(xg, &gt, &[2], true);
            let (v, vt) = e.var(xg, &gt, &[2], true, 0);
            let eps = e.scalar(eps, &vt);
            let ve = e.binary(AtenOpKind::Add, v, eps, &vt);
            let r = e.unary(AtenOpKind::Rsqrt, ve, &vt);
            let d = e.binary(AtenOpKind::Sub, xg, m, &gt);
            let normed = e.binary(AtenOpKind::Mul, d, r, &gt);
            let normed = e.unary(AtenOpKind::View, normed, xt);
            let mut pshape = vec![1; xt.rank()];
            pshape[1] = c;
            let pt = TensorType {
                shape: pshape,
                dtype: xt.dtype,
            };
            let w = e.unary(AtenOpKind::View, args[1], &pt);
            let b = e.unary(AtenOpKind::View, args[2], &pt);
            let scaled = e.binary(AtenOpKind::Mul, normed, w, xt);
            e.binary(AtenOpKind::Add, scaled, b, xt)
        }
        AtenOpKind::BatchNorm => {
            // Inference batch norm as PyTorch's decomposition writes it: (x - mean) *
            // rsqrt(var + eps) * weight + bias, each [C] parameter viewed as [1, C, 1, ...].
            let eps = aten.float(attr::EPS)?;
            let mut pshape = vec![1; xt.rank()];
            pshape[1] = xt.shape[1];
            let pt = TensorType {
                shape: pshape,
                dtype: xt.dtype,
            };
            let [mean, var, w, b] =
                [args[3], args[4], args[1], args[2]].map(|p| e.unary(AtenOpKind::View, p, &pt));
            let eps = e.scalar(
                eps,
                &TensorType {
                    shape: vec![],
                    dtype: xt.dtype,
                },
            );
            let ve = e.binary(AtenOpKind::Add, var, eps, &pt);
            let r = e.unary(AtenOpKind::Rsqrt, ve, &pt);
            let d = e.binary(AtenOpKind::Sub, x, mean, xt);
            let n = e.binary(AtenOpKind::Mul, d, r, xt);
            let s = e.binary(AtenOpKind::Mul, n, w, xt);
            e.binary(AtenOpKind::Add, s, b, xt)
        }
        AtenOpKind::Softmax | AtenOpKind::LogSoftmax => {
            let dim = wrap(aten.dim()?, xt.rank());
            let (m, _) = e.reduce(AtenOpKind::Amax, x, xt, &[dim], true);
            let shifted = e.binary(AtenOpKind::Sub, x, m, xt);
            let ex = e.unary(AtenOpKind::Exp, shifted, xt);
            let (s, st) = e.reduce(AtenOpKind::Sum, ex, xt, &[dim], true);
            if kind == AtenOpKind::Softmax {
                e.binary(AtenOpKind::Div, ex, s, xt)
            } else {
                let l = e.unary(AtenOpKind::Log, s, &st);
                e.binary(AtenOpKind::Sub, shifted, l, xt)
            }
        }
        AtenOpKind::Gelu => {
            let half = e.scalar(0.5, xt);
            let one = e.scalar(1.0, xt);
            let hx = e.binary(AtenOpKind::Mul, x, half, xt);
            let inner = if aten.string(attr::APPROXIMATE).as_deref() == Some("tanh") {
                let x2 = e.binary(AtenOpKind::Mul, x, x, xt);
                let x3 = e.binary(AtenOpKind::Mul, x2, x, xt);
                let k = e.scalar(0.044715, xt);
                let kx3 = e.binary(AtenOpKind::Mul, x3, k, xt);
                let sum = e.binary(AtenOpKind::Add, x, kx3, xt);
                let c = e.scalar((2.0 / std::f64::consts::PI).sqrt(), xt);
                let arg = e.binary(AtenOpKind::Mul, sum, c, xt);
                e.unary(AtenOpKind::Tanh, arg, xt)
            } else {
                let c = e.scalar(std::f64::consts::FRAC_1_SQRT_2, xt);
                let arg = e.binary(AtenOpKind::Mul, x, c, xt);
                e.unary(AtenOpKind::Erf, arg, xt)
            };
            let t = e.binary(AtenOpKind::Add, inner, one, xt);
            e.binary(AtenOpKind::Mul, hx, t, xt)
        }
        AtenOpKind::Silu => {
            let s = e.unary(AtenOpKind::Sigmoid, x, xt);
            e.binary(AtenOpKind::Mul, x, s, xt)
        }
        AtenOpKind::Linear => {
            let wt_ = &inputs[1];
            let (n, k) = (wt_.shape[0], wt_.shape[1]);
            let wt = TensorType {
                shape: vec![k, n],
                dtype: wt_.dtype,
            };
            let w_t = e.op(
                AtenOpKind::Permute,
                &[ir::operand(op, 1)],
                &[(attr::DIMS, ir::i64_array_attr(e.ctx, &[1, 0]))],
                &wt,
            );
            let rows = xt.numel() / k;
            let x2t = TensorType {
                shape: vec![rows, k],
                dtype: xt.dtype,
            };
            let x2 = if xt.rank() == 2 {
                x
            } else {
                e.unary(AtenOpKind::View, x, &x2t)
            };
            let mt = TensorType {
                shape: vec![rows, n],
                dtype: xt.dtype,
            };
            let mm = e.binary(AtenOpKind::Mm, x2, w_t, &mt);
            let mm = if xt.rank() == 2 {
                mm
            } else {
                e.unary(AtenOpKind::View, mm, &out)
            };
            if inputs.len() > 2 {
                e.binary(AtenOpKind::Add, mm, ir::operand(op, 2), &out)
            } else {
                mm
            }
        }
        AtenOpKind::Addmm => {
            let mm = e.binary(AtenOpKind::Mm, ir::operand(op, 1), ir::operand(op, 2), &out);
            e.binary(AtenOpKind::Add, mm, ir::operand(op, 0), &out)
        }
        AtenOpKind::ScaledDotProductAttention => e.attention(&args, &inputs, &out, aten.float("scale")?),
        AtenOpKind::FusedLstmCell | AtenOpKind::FusedGruCell => {
            let kind = fuselab_dialects::aten::CellKind::of_aten(kind)?;
            let cell = fuselab_dialects::aten::RnnCell::from_types(kind, &inputs).ok()?;
            e.rnn_cell(&cell, &args, xt.dtype)
        }
        _ => return None,
    };
    Some(if upcast {
        e.unary(AtenOpKind::ToDtype, value, &out)
    } else {
        value
    })
}

/// Whether `op` is an attention the target runs as one fused kernel (kept for the
/// lowering's `sdpa` extern; decomposed into its math form elsewhere).
fn fused_attention(op: MlirOperation, target: &dyn crate::target::Target) -> bool {
    let types: Vec<TensorType> = ir::operands(op).into_iter().filter_map(ir::tensor_type).collect();
    ir::op_name(op) == AtenOpKind::ScaledDotProductAttention.op_name()
        && types.len() >= 3
        && super::fuse_attention::runs_fused(target, &types[0], &types[1], &types[2], types.len() > 3)
}

/// Whether `op` is a fused LSTM / GRU cell the target runs as one kernel (kept for the
/// lowering's `lstm_cell` / `gru_cell` extern; decomposed into its gates elsewhere).
fn fused_rnn_cell(op: MlirOperation, target: &dyn crate::target::Target) -> bool {
    let cell = AtenOpKind::from_op_name(&ir::op_name(op)).and_then(fuselab_dialects::aten::CellKind::of_aten);
    cell.is_some()
        && ir::tensor_type(ir::result(op, 0)).is_some_and(|t| target.backend().fused_rnn_cells(t.dtype))
}

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let func = func.to_raw();
    let target = cx.target();
    let composites = ir::collect_ops(func, |name| {
        AtenOpKind::from_op_name(name).is_some_and(is_composite)
    })
    .into_iter()
    .filter(|&op| !fused_attention(op, target) && !fused_rnn_cell(op, target))
    .collect::<Vec<_>>();
    for (eager_id, op) in composites.into_iter().enumerate() {
        if let Some(value) = decompose(op, eager_id as i64) {
            ir::replace_uses(ir::result(op, 0), value);
            ir::erase(op);
        }
    }
    Ok(())
}
