//! The reference interpreter of the `aten` dialect: the oracle every pipeline is checked
//! against. It evaluates each op directly from ATen's definition on dense tensors —
//! composites (softmax, layer_norm, gelu, ...) included, without decomposing them and
//! without any code of the lowering passes. Intermediate math is f64; every op's result
//! is rounded to its storage dtype, as eager PyTorch stores each op's output.

use crate::{
    constant::splat_or_dense,
    tensor::{
        accumulation_dtype, for_each_index, i32_add, i32_mul, i32_sub, nan_max, nan_min, numel, round_to,
        Tensor,
    },
    ExecError,
};
use fuselab_dialects::ir;
use fuselab_dialects::{
    aten::{attr, AtenOp, AtenOpKind},
    types::{DType, TensorType},
};
use mlir_sys::MlirOperation;
use std::collections::HashMap;

fn wrap(dim: i64, rank: usize) -> usize {
    if dim < 0 {
        (dim + rank as i64) as usize
    } else {
        dim as usize
    }
}

/// The index into `t` (rank r) of output index `out` (rank R >= r) under broadcasting.
fn broadcast_at(t: &Tensor, out: &[i64]) -> f64 {
    let offset = out.len() - t.rank();
    let mut flat = 0i64;
    for d in 0..t.rank() {
        let i = if t.shape[d] == 1 { 0 } else { out[d + offset] };
        flat = flat * t.shape[d] + i;
    }
    t.data[flat as usize]
}

fn erf(x: f64) -> f64 {
    libm::erf(x)
}

fn gelu(x: f64, tanh: bool) -> f64 {
    if tanh {
        let c = (2.0 / std::f64::consts::PI).sqrt();
        0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
    } else {
        0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Elementwise map with broadcasting over `inputs` to `out`.
fn map(inputs: &[&Tensor], out: &TensorType, f: impl Fn(&[f64]) -> f64) -> Tensor {
    let mut data = Vec::with_capacity(numel(&out.shape));
    let mut args = vec![0.0; inputs.len()];
    for_each_index(&out.shape, |idx| {
        for (a, t) in args.iter_mut().zip(inputs) {
            *a = broadcast_at(t, idx);
        }
        data.push(f(&args));
    });
    Tensor::new(out.shape.clone(), out.dtype, data)
}

/// Reduces `x` over `dims` (empty = all) with `f(values) -> value`, to `out`.
fn reduce(x: &Tensor, dims: &[usize], out: &TensorType, f: impl Fn(&[f64]) -> f64) -> Tensor {
    let reduced = |d: usize| dims.is_empty() || dims.contains(&d);
    let kept: Vec<usize> = (0..x.rank()).filter(|&d| !reduced(d)).collect();
    let kept_shape: Vec<i64> = kept.iter().map(|&d| x.shape[d]).collect();
    let mut groups: Vec<Vec<f64>> = vec![Vec::new(); numel(&kept_shape)];
    let mut key = vec![0i64; kept.len()];
    for_each_index(&x.shape, |idx| {
        for (k, &d) in kept.iter().enumerate() {
            key[k] = idx[d];
        }
        let flat = crate::tensor::flat_index(&kept_shape, &key);
        groups[flat].push(x.at(idx));
    });
    let data = groups.iter().map(|g| f(g)).collect();
    Tensor::new(out.shape.clone(), out.dtype, data)
}

/// Applies `f` to every 1-D slice of `x` along `dim` (same shape out).
fn along(x: &Tensor, dim: usize, out: &TensorType, f: impl Fn(&[f64]) -> Vec<f64>) -> Tensor {
    let n = x.shape[dim] as usize;
    let stride = fuselab_dialects::types::contiguous_strides(&x.shape)[dim] as usize;
    let mut data = vec![0.0; x.numel()];
    let outer: usize = x.numel() / n.max(1);
    let mut line = vec![0.0; n];
    for o in 0..outer {
        // Base offset of line `o`: split o into (before dim, after dim).
        let base = (o / stride) * stride * n + o % stride;
        for (i, v) in line.iter_mut().enumerate() {
            *v = x.data[base + i * stride];
        }
        for (i, v) in f(&line).into_iter().enumerate() {
            data[base + i * stride] = v;
        }
    }
    Tensor::new(out.shape.clone(), out.dtype, data)
}

/// `out[i] = x[source(i)]` for a movement op.
fn gather_index(x: &Tensor, out: &TensorType, mut source: impl FnMut(&[i64], &mut [i64])) -> Tensor {
    let mut src = vec![0i64; x.rank()];
    let mut data = Vec::with_capacity(numel(&out.shape));
    for_each_index(&out.shape, |idx| {
        source(idx, &mut src);
        data.push(x.at(&src));
    });
    Tensor::new(out.shape.clone(), out.dtype, data)
}

/// `[..., m, k] x [..., k, n]` (a 2-D `b` is shared by every batch).
pub(crate) fn matmul(a: &Tensor, b: &Tensor, out: &TensorType) -> Tensor {
    // [..., m, k] x [..., k, n] with equal (or absent) batch dims.
    let (m, k) = (a.shape[a.rank() - 2], a.shape[a.rank() - 1]);
    let n = b.shape[b.rank() - 1];
    let batch = numel(&out.shape) / (m * n).max(1) as usize;
    let (sa, sb) = ((m * k) as usize, (k * n) as usize);
    let b_batched = b.rank() == 3;
    let mut data = vec![0.0; numel(&out.shape)];
    let (mu, ku, nu) = (m as usize, k as usize, n as usize);
    for bi in 0..batch {
        let ao = bi * sa;
        let bo = if b_batched { bi * sb } else { 0 };
        let a_rows = &a.data[ao..ao + sa];
        let b_rows = &b.data[bo..bo + sb];
        let c_rows = &mut data[bi * mu * nu..(bi + 1) * mu * nu];
        // SAFETY: row-major [m, k], [k, n] and [m, n] slices of exactly those sizes.
        unsafe {
            matrixmultiply::dgemm(
                mu,
                ku,
                nu,
                1.0,
                a_rows.as_ptr(),
                ku as isize,
                1,
                b_rows.as_ptr(),
                nu as isize,
                1,
                0.0,
                c_rows.as_mut_ptr(),
                nu as isize,
                1,
            );
        }
    }
    Tensor::new(out.shape.clone(), out.dtype, data)
}

/// Convolution parameters per spatial dim.
pub(crate) struct ConvParams {
    pub(crate) stride: Vec<i64>,
    pub(crate) padding: Vec<i64>,
    pub(crate) dilation: Vec<i64>,
    pub(crate) groups: i64,
}

impl ConvParams {
    /// From an op's `stride`, `padding`, `dilation`, `groups` attributes.
    pub(crate) fn of(op: MlirOperation, spatial: usize) -> Self {
        let list = |name: &str, default: i64| {
            ir::attr(op, name)
                .and_then(|a| {
                    fuselab_dialects::attrs::i64_array(unsafe { melior::ir::Attribute::from_raw(a) })
                })
                .unwrap_or_else(|| vec![default; spatial])
        };
        Self {
            stride: list(attr::STRIDE, 1),
            padding: list(attr::PADDING, 0),
            dilation: list(attr::DILATION, 1),
            groups: ir::attr(op, attr::GROUPS)
                .and_then(|a| fuselab_dialects::attrs::integer(unsafe { melior::ir::Attribute::from_raw(a) }))
                .unwrap_or(1),
        }
    }
}

/// N-d convolution `[N, C, *spatial] * [O, C/groups, *kernel] (+ bias[O])`.
pub(crate) fn convolution(
    p: &ConvParams,
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    out: &TensorType,
) -> Tensor {
    let spatial = x.rank() - 2;
    let (stride, padding, dilation, groups) = (&p.stride, &p.padding, &p.dilation, p.groups);
    let cin_g = w.shape[1];
    let cout_g = w.shape[0] / groups;
    let kernel: Vec<i64> = w.shape[2..].to_vec();
    let mut data = Vec::with_capacity(numel(&out.shape));
    let mut src = vec![0i64; x.rank()];
    let mut widx = vec![0i64; w.rank()];
    for_each_index(&out.shape, |idx| {
        let (n, o) = (idx[0], idx[1]);
        let g = o / cout_g;
        let mut acc = bias.map_or(0.0, |b| b.data[o as usize]);
        for c in 0..cin_g {
            for_each_index(&kernel, |k| {
                src[0] = n;
                src[1] = g * cin_g + c;
                for s in 0..spatial {
                    let pos = idx[2 + s] * stride[s] - padding[s] + k[s] * dilation[s];
                    if pos < 0 || pos >= x.shape[2 + s] {
                        return;
                    }
                    src[2 + s] = pos;
                }
                widx[0] = o;
                widx[1] = c;
                widx[2..].copy_from_slice(k);
                acc += x.at(&src) * w.at(&widx);
            });
        }
        data.push(acc);
    });
    Tensor::new(out.shape.clone(), out.dtype, data)
}

/// Evaluates one aten op on its operand tensors.
pub fn eval_op(op: &AtenOp, args: &[&Tensor], out: &TensorType) -> Result<Tensor, String> {
    use AtenOpKind::*;
    let kind = op.kind();
    if kind == Arange {
        let (start, step) = (op.float("start").unwrap_or(0.0), op.float("step").unwrap_or(1.0));
        let data = (0..out.numel()).map(|i| start + i as f64 * step).collect();
        return Ok(Tensor::new(out.shape.clone(), out.dtype, data));
    }
    let x = args[0];
    let dims_of = |t: &Tensor| -> Vec<usize> {
        op.dims()
            .unwrap_or_default()
            .iter()
            .map(|&d| wrap(d, t.rank()))
            .collect()
    };
    Ok(match kind {
        Arange => unreachable!("computed above"),
        Neg => map(args, out, |v| -v[0]),
        Exp => map(args, out, |v| v[0].exp()),
        Log => map(args, out, |v| v[0].ln()),
        Sqrt => map(args, out, |v| v[0].sqrt()),
        Rsqrt => map(args, out, |v| 1.0 / v[0].sqrt()),
        Relu => map(args, out, |v| if v[0].is_nan() { v[0] } else { v[0].max(0.0) }),
        Sigmoid => map(args, out, |v| sigmoid(v[0])),
        Tanh => map(args, out, |v| v[0].tanh()),
        Sin => map(args, out, |v| v[0].sin()),
        Cos => map(args, out, |v| v[0].cos()),
        Abs => map(args, out, |v| v[0].abs()),
        Floor => map(args, out, |v| v[0].floor()),
        Ceil => map(args, out, |v| v[0].ceil()),
        Round => map(args, out, |v| v[0].round_ties_even()),
        Trunc => map(args, out, |v| v[0].trunc()),
        Erf => map(args, out, |v| erf(v[0])),
        Silu => map(args, out, |v| v[0] * sigmoid(v[0])),
        Reciprocal => map(args, out, |v| 1.0 / v[0]),
        Gelu => {
            let tanh = op.string(attr::APPROXIMATE).as_deref() == Some("tanh");
            map(args, out, |v| gelu(v[0], tanh))
        }
        ToDtype | Clone => map(args, out, |v| v[0]),
        LogicalNot => map(args, out, |v| f64::from(u8::from(v[0] == 0.0))),
        // int32 results wrap in i32 (operands of a wider type are converted first).
        Add if out.dtype == DType::I32 => map(args, out, |v| i32_add(v[0], v[1])),
        Sub if out.dtype == DType::I32 => map(args, out, |v| i32_sub(v[0], v[1])),
        Mul if out.dtype == DType::I32 => map(args, out, |v| i32_mul(v[0], v[1])),
        Add => map(args, out, |v| v[0] + v[1]),
        Sub => map(args, out, |v| v[0] - v[1]),
        Mul => map(args, out, |v| v[0] * v[1]),
        Div => map(args, out, |v| v[0] / v[1]),
        Maximum => map(args, out, |v| nan_max(v[0], v[1])),
        Minimum => map(args, out, |v| nan_min(v[0], v[1])),
        Pow => map(args, out, |v| v[0].powf(v[1])),
        Where => map(args, out, |v| if v[0] != 0.0 { v[1] } else { v[2] }),
        Eq => map(args, out, |v| f64::from(u8::from(v[0] == v[1]))),
        Ne => map(args, out, |v| f64::from(u8::from(v[0] != v[1]))),
        Lt => map(args, out, |v| f64::from(u8::from(v[0] < v[1]))),
        Le => map(args, out, |v| f64::from(u8::from(v[0] <= v[1]))),
        Gt => map(args, out, |v| f64::from(u8::from(v[0] > v[1]))),
        Ge => map(args, out, |v| f64::from(u8::from(v[0] >= v[1]))),
        Sum => reduce(x, &dims_of(x), out, |g| g.iter().sum()),
        Prod => reduce(x, &dims_of(x), out, |g| g.iter().product()),
        // The sum held in the accumulation type, then divided (ATen's `mean` is
        // `sum(...).div_(N)` on the CPU and `MeanOps<T, acc_t>` on CUDA: a float sum
        // that overflows is inf, and so is the mean of [3e38, 3e38]).
        Mean => reduce(x, &dims_of(x), out, |g| {
            round_to(g.iter().sum::<f64>(), accumulation_dtype(out.dtype)) / g.len() as f64
        }),
        Amax => reduce(x, &dims_of(x), out, |g| {
            g.iter().copied().fold(f64::NEG_INFINITY, nan_max)
        }),
        Amin => reduce(x, &dims_of(x), out, |g| {
            g.iter().copied().fold(f64::INFINITY, nan_min)
        }),
        Any => reduce(x, &dims_of(x), out, |g| {
            f64::from(u8::from(g.iter().any(|&v| v != 0.0)))
        }),
        Var => {
            let correction = op.int(attr::CORRECTION).unwrap_or(1) as f64;
            reduce(x, &dims_of(x), out, |g| {
                let n = g.len() as f64;
                let mean = g.iter().sum::<f64>() / n;
                // PyTorch's divisor is max(0, N - correction): a correction >= N gives
                // inf (or NaN for a zero sum), never a negative variance.
                g.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - correction).max(0.0)
            })
        }
        Softmax | LogSoftmax => {
            let dim = wrap(op.dim().ok_or("missing dim")?, x.rank());
            let log = kind == LogSoftmax;
            along(x, dim, out, |line| {
                let m = line.iter().copied().fold(f64::NEG_INFINITY, nan_max);
                let sum: f64 = line.iter().map(|v| (v - m).exp()).sum();
                line.iter()
                    .map(|v| {
                        if log {
                            v - m - sum.ln()
                        } else {
                            (v - m).exp() / sum
                        }
                    })
                    .collect()
            })
        }
        LayerNorm | RmsNorm => {
            let normalized = op
                .ints(attr::NORMALIZED_SHAPE)
                .ok_or("missing normalized_shape")?;
            let eps = op.float(attr::EPS).ok_or("missing eps")?;
            let inner = numel(&normalized);
            let (w, b) = (args[1], args.get(2).copied());
            let mut data = vec![0.0; x.numel()];
            for (row, chunk) in x.data.chunks(inner.max(1)).enumerate() {
                let n = chunk.len() as f64;
                let (mean, var) = if kind == LayerNorm {
                    let mean = chunk.iter().sum::<f64>() / n;
                    (
                        mean,
                        chunk.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n,
                    )
                } else {
                    (0.0, chunk.iter().map(|v| v * v).sum::<f64>() / n)
                };
                let r = 1.0 / (var + eps).sqrt();
                for (i, v) in chunk.iter().enumerate() {
                    let y = (v - mean) * r * w.data[i] + b.map_or(0.0, |b| b.data[i]);
                    data[row * inner + i] = y;
                }
            }
            Tensor::new(out.shape.clone(), out.dtype, data)
        }
        GroupNorm => {
            let groups = op.int(attr::NUM_GROUPS).ok_or("missing num_groups")?.max(1) as usize;
            let eps = op.float(attr::EPS).ok_or("missing eps")?;
            let (n, c) = (x.shape[0].max(0) as usize, x.shape[1].max(1) as usize);
            let rest = x.numel() / (n * c).max(1);
            let per_group = c / groups * rest;
            let (w, b) = (args[1], args[2]);
            let mut data = vec![0.0; x.numel()];
            for (g, chunk) in x.data.chunks(per_group.max(1)).enumerate() {
                let count = chunk.len() as f64;
                let mean = chunk.iter().sum::<f64>() / count;
                let var = chunk.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / count;
                let r = 1.0 / (var + eps).sqrt();
                for (i, v) in chunk.iter().enumerate() {
                    let at = g * per_group + i;
                    let channel = (at / rest) % c;
                    data[at] = (v - mean) * r * w.data[channel] + b.data[channel];
                }
            }
            Tensor::new(out.shape.clone(), out.dtype, data)
        }
        BatchNorm => {
            // (x - mean[c]) * rsqrt(var[c] + eps) * w[c] + b[c], each step rounded as the
            // decomposition stores it.
            let eps = op.float(attr::EPS).ok_or("missing eps")?;
            let c = x.shape[1].max(1) as usize;
            let rest = x.numel() / (x.shape[0].max(1) as usize * c).max(1);
            let (w, b, mean, var) = (args[1], args[2], args[3], args[4]);
            let dt = out.dtype;
            let data = x
                .data
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    let ch = (i / rest.max(1)) % c;
                    let r = round_to(1.0 / round_to(var.data[ch] + eps, dt).sqrt(), dt);
                    let n = round_to(round_to(v - mean.data[ch], dt) * r, dt);
                    round_to(n * w.data[ch], dt) + b.data[ch]
                })
                .collect();
            Tensor::new(out.shape.clone(), out.dtype, data)
        }
        Mm | Bmm => matmul(args[0], args[1], out),
        Addmm => {
            let prod = matmul(args[1], args[2], out);
            map(&[&prod, args[0]], out, |v| v[0] + v[1])
        }
        Linear => {
            // x [..., in] @ W[out, in]^T + b
            let w = args[1];
            let (o, i) = (w.shape[0], w.shape[1]);
            let wt = gather_index(
                w,
                &TensorType {
                    shape: vec![i, o],
                    dtype: w.dtype,
                },
                |idx, src| {
                    src[0] = idx[1];
                    src[1] = idx[0];
                },
            );
            let rows = (x.numel() as i64) / i;
            let x2 = Tensor {
                shape: vec![rows, i],
                ..x.clone()
            };
            let prod = matmul(
                &x2,
                &wt,
                &TensorType {
                    shape: vec![rows, o],
                    dtype: out.dtype,
                },
            );
            let prod = Tensor {
                shape: out.shape.clone(),
                ..prod
            };
            match args.get(2) {
                Some(b) => map(&[&prod, b], out, |v| v[0] + v[1]),
                None => prod,
            }
        }
        Convolution => {
            let params = ConvParams::of(op.operation().to_raw(), x.rank() - 2);
            convolution(&params, x, args[1], args.get(2).copied(), out)
        }
        ScaledDotProductAttention => {
            let scale = op.float("scale").ok_or("missing scale")?;
            crate::attention::sdpa(x, args[1], args[2], args.get(3).copied(), scale, out.dtype)
        }
        FusedLstmCell | FusedGruCell => {
            let cell = fuselab_dialects::aten::CellKind::of_aten(kind).ok_or("not a recurrent cell")?;
            crate::rnn_cell::fused_cell(cell, x, args[1], &args[2..], out.dtype)
                .ok_or("operands that do not fit the cell")?
        }
        View | Reshape | Unsqueeze | Squeeze => Tensor {
            shape: out.shape.clone(),
            ..x.clone()
        },
        Permute => {
            let dims: Vec<usize> = op
                .dims()
                .ok_or("missing dims")?
                .iter()
                .map(|&d| wrap(d, x.rank()))
                .collect();
            gather_index(x, out, |idx, src| {
                for (i, &d) in dims.iter().enumerate() {
                    src[d] = idx[i];
                }
            })
        }
        Transpose => {
            let d0 = wrap(op.int(attr::DIM0).ok_or("missing dim0")?, x.rank());
            let d1 = wrap(op.int(attr::DIM1).ok_or("missing dim1")?, x.rank());
            gather_index(x, out, |idx, src| {
                src.copy_from_slice(idx);
                src.swap(d0, d1);
            })
        }
        Expand => map(args, out, |v| v[0]),
        Slice => {
            let dim = wrap(op.dim().ok_or("missing dim")?, x.rank());
            let size = x.shape[dim];
            let start = op.int(attr::START).unwrap_or(0);
            let start = if start < 0 { start + size } else { start };
            let step = op.int(attr::STEP).unwrap_or(1);
            gather_index(x, out, |idx, src| {
                src.copy_from_slice(idx);
                src[dim] = start + idx[dim] * step;
            })
        }
        Select => {
            let dim = wrap(op.dim().ok_or("missing dim")?, x.rank());
            let index = op.int(attr::INDEX).ok_or("missing index")?;
            let index = if index < 0 { index + x.shape[dim] } else { index };
            gather_index(x, out, |idx, src| {
                src[..dim].copy_from_slice(&idx[..dim]);
                src[dim] = index;
                src[dim + 1..].copy_from_slice(&idx[dim..]);
            })
        }
        Cat => {
            let (a, b) = (args[0], args[1]);
            let dim = wrap(op.dim().ok_or("missing dim")?, out.rank());
            let mut data = Vec::with_capacity(numel(&out.shape));
            let mut src = vec![0i64; out.rank()];
            for_each_index(&out.shape, |idx| {
                src.copy_from_slice(idx);
                if idx[dim] < a.shape[dim] {
                    data.push(a.at(&src));
                } else {
                    src[dim] -= a.shape[dim];
                    data.push(b.at(&src));
                }
            });
            Tensor::new(out.shape.clone(), out.dtype, data)
        }
        Gather => {
            let index = args[1];
            let dim = wrap(op.dim().ok_or("missing dim")?, x.rank());
            let mut bad = None;
            let t = gather_index(x, out, |idx, src| {
                src.copy_from_slice(idx);
                let i = index.at(idx) as i64;
                let i = if i < 0 { i + x.shape[dim] } else { i };
                if i < 0 || i >= x.shape[dim] {
                    bad = Some(i);
                    src[dim] = 0;
                } else {
                    src[dim] = i;
                }
            });
            if let Some(i) = bad {
                return Err(format!(
                    "gather index {i} is out of range for dimension {dim} of size {}",
                    x.shape[dim]
                ));
            }
            t
        }
    })
}

/// Runs `func` (a `func.func` of aten ops, splat/dense constants and `func.return`) on
/// `inputs`; returns its results.
pub fn run_aten(func: MlirOperation, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError> {
    let (block, args) = crate::bind_arguments(func, inputs)?;
    let mut values: HashMap<usize, Tensor> = HashMap::new();
    for (a, t) in args.iter().zip(inputs) {
        values.insert(a.ptr as usize, t.clone());
    }
    for op in ir::block_ops(block) {
        let name = ir::op_name(op);
        let at = |message: String| ExecError::at(op, message);
        if name == "func.return" {
            return ir::operands(op)
                .iter()
                .map(|v| {
                    values
                        .get(&(v.ptr as usize))
                        .cloned()
                        .ok_or_else(|| at("returns an unknown value".into()))
                })
                .collect();
        }
        if name == "arith.constant" {
            let t = splat_or_dense(op).map_err(at)?;
            values.insert(ir::result(op, 0).ptr as usize, t);
            continue;
        }
        // SAFETY: `op` is alive while the function is.
        let Some(aten) = AtenOp::new(unsafe { ir::op_ref(op) }) else {
            return Err(at(format!("the aten interpreter cannot run '{name}'")));
        };
        let operands: Vec<&Tensor> = ir::operands(op)
            .iter()
            .map(|v| {
                values
                    .get(&(v.ptr as usize))
                    .ok_or_else(|| at("operand has no value".into()))
            })
            .collect::<Result<_, _>>()?;
        let out = aten.result_type().map_err(|e| at(e.to_string()))?;
        let result = eval_op(&aten, &operands, &out)
            .map_err(|m| at(format!("'{}' op: {m}", aten.kind().op_name())))?;
        values.insert(ir::result(op, 0).ptr as usize, result);
    }
    Err(ExecError::msg("function without func.return"))
}
