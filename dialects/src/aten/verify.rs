//! The `aten` shape verifier.
//!
//! IRDL checks arity and attribute kinds; this checks what IRDL cannot express, for
//! every `aten` op, and reports at the op's location:
//! - operands and results are static ranked tensors of f32/f16/bf16/i64/i1;
//! - elementwise results have the operand shape; broadcasting follows ATen (sizes
//!   aligned from the right must be equal or 1);
//! - reduction/softmax/normalization dims are in range and not repeated, and the
//!   result has the reduced shape (`keepdim` keeps size-1 dims);
//! - matmul inner dims agree; batch dims of bmm agree; convolution shapes follow the
//!   output-size formula;
//! - view/reshape keep the element count; permute dims are a permutation; expand,
//!   squeeze, unsqueeze, slice, select, cat and gather produce the shapes ATen does.

use super::{attr, AtenOp, AtenOpClass, AtenOpKind};
use crate::{
    diagnostics::DiagnosticSink,
    types::{shape_str, DType, TensorType},
};
use melior::ir::{operation::OperationLike, OperationRef};

/// Checks every `aten` op nested in `root`; returns `true` if all are well-formed.
/// Each problem becomes an error in `sink` at the op's location.
pub fn verify_aten(root: OperationRef, sink: &DiagnosticSink) -> bool {
    let mut ok = true;
    root.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if let Some(aten) = AtenOp::new(op) {
            if let Err(message) = crate::diagnostics::without_panics(|| check_op(&aten)) {
                sink.error(
                    aten.location(),
                    format!("'{}' op {message}", aten.kind().op_name()),
                );
                ok = false;
            }
        }
        melior::ir::operation::WalkResult::Advance
    });
    ok
}

type Check = Result<(), String>;

/// Checks one op; the error is the message without the `'aten.x' op` prefix.
pub fn check_op(op: &AtenOp) -> Check {
    let inputs = op
        .operand_types()
        .map_err(|(index, error)| format!("operand #{index}: {error}"))?;
    let result = op.result_type().map_err(|error| format!("result: {error}"))?;
    let kind = op.kind();
    match kind.class() {
        AtenOpClass::Unary => check_unary(op, &inputs, &result),
        AtenOpClass::Broadcasting => check_broadcasting(kind, &inputs, &result),
        AtenOpClass::Reduction => check_reduction(op, &inputs[0], &result),
        AtenOpClass::Composite => check_composite(op, &inputs, &result),
        AtenOpClass::Contraction => check_contraction(op, &inputs, &result),
        AtenOpClass::Movement => check_movement(op, &inputs, &result),
        AtenOpClass::Creation => check_arange(op, &result),
    }
}

/// `arange {start, step}`: a 1-D numeric result, a non-zero step.
fn check_arange(op: &AtenOp, result: &TensorType) -> Check {
    required(op.float("start"), "start")?;
    let step = required(op.float("step"), "step")?;
    if step == 0.0 || !step.is_finite() {
        return Err(format!("'step' must be a finite non-zero number, got {step}"));
    }
    if result.rank() != 1 || result.dtype == DType::I1 {
        return Err(format!("result {result} must be a 1-D tensor of numbers"));
    }
    Ok(())
}

fn required<T>(value: Option<T>, name: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("requires attribute '{name}' of the right kind"))
}

/// Normalizes a possibly negative dim against `rank` (ATen's wrap_dim).
fn wrap_dim(dim: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    if (-r..r).contains(&dim) {
        Ok(if dim < 0 { (dim + r) as usize } else { dim as usize })
    } else {
        Err(format!(
            "dimension {dim} is out of range for a tensor of rank {rank} (expected [{}, {}])",
            -r,
            r - 1
        ))
    }
}

fn wrap_dims(dims: &[i64], rank: usize) -> Result<Vec<usize>, String> {
    let mut seen = vec![false; rank];
    dims.iter()
        .map(|&d| {
            let w = wrap_dim(d, rank)?;
            if std::mem::replace(&mut seen[w], true) {
                return Err(format!("dimension {d} appears more than once in 'dims'"));
            }
            Ok(w)
        })
        .collect()
}

fn expect_shape(what: &str, actual: &[i64], expected: &[i64]) -> Check {
    if actual == expected {
        Ok(())
    } else {
        Err(format!(
            "{what} shape {} does not match the expected shape {}",
            shape_str(actual),
            shape_str(expected)
        ))
    }
}

fn expect_dtype(what: &str, actual: DType, expected: DType) -> Check {
    if actual == expected {
        Ok(())
    } else {
        Err(format!(
            "{what} element type {actual} does not match the expected {expected}"
        ))
    }
}

fn check_unary(op: &AtenOp, inputs: &[TensorType], result: &TensorType) -> Check {
    let input = &inputs[0];
    expect_shape("result", &result.shape, &input.shape)?;
    match op.kind() {
        AtenOpKind::ToDtype => Ok(()),
        AtenOpKind::LogicalNot => expect_dtype("result", result.dtype, DType::I1),
        _ => expect_dtype("result", result.dtype, input.dtype),
    }
}

/// ATen broadcasting of two shapes, or an error naming both.
pub(crate) fn broadcast_shapes(a: &[i64], b: &[i64]) -> Result<Vec<i64>, String> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for i in 0..rank {
        let da = if i < rank - a.len() {
            1
        } else {
            a[i - (rank - a.len())]
        };
        let db = if i < rank - b.len() {
            1
        } else {
            b[i - (rank - b.len())]
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(format!(
                    "operands have incompatible shapes for broadcasting: {} and {}",
                    shape_str(a),
                    shape_str(b)
                ))
            }
        };
    }
    Ok(out)
}

fn check_broadcasting(kind: AtenOpKind, inputs: &[TensorType], result: &TensorType) -> Check {
    let mut shape = Vec::new();
    for input in inputs {
        shape = broadcast_shapes(&shape, &input.shape)?;
    }
    expect_shape("result", &result.shape, &shape)?;
    if kind.is_comparison() {
        return expect_dtype("result", result.dtype, DType::I1);
    }
    let values = if kind == AtenOpKind::Where {
        expect_dtype("condition", inputs[0].dtype, DType::I1)?;
        &inputs[1..]
    } else {
        inputs
    };
    // ATen promotes mixed dtypes; the result must be one of the value operands' types.
    if !values.iter().any(|v| v.dtype == result.dtype) {
        return Err(format!(
            "result element type {} is not the element type of any operand",
            result.dtype
        ));
    }
    Ok(())
}

fn reduced_shape(shape: &[i64], dims: &[usize], keepdim: bool) -> Vec<i64> {
    let all = dims.is_empty();
    shape
        .iter()
        .enumerate()
        .filter_map(|(d, &size)| {
            if all || dims.contains(&d) {
                keepdim.then_some(1)
            } else {
                Some(size)
            }
        })
        .collect()
}

fn check_reduction(op: &AtenOp, input: &TensorType, result: &TensorType) -> Check {
    let dims = required(op.dims(), attr::DIMS)?;
    let keepdim = required(op.keepdim(), attr::KEEPDIM)?;
    let dims = wrap_dims(&dims, input.rank())?;
    if op.kind() == AtenOpKind::Var {
        let correction = required(op.int(attr::CORRECTION), attr::CORRECTION)?;
        if correction < 0 {
            return Err(format!("'correction' must be non-negative, got {correction}"));
        }
    }
    if matches!(op.kind(), AtenOpKind::Mean | AtenOpKind::Var) && !input.dtype.is_float() {
        return Err(format!("requires a floating-point input, got {}", input.dtype));
    }
    expect_shape(
        "result",
        &result.shape,
        &reduced_shape(&input.shape, &dims, keepdim),
    )?;
    // PyTorch's promotion: `any` gives bool; `sum` of bools or integers gives int64.
    let expected = match op.kind() {
        AtenOpKind::Any => DType::I1,
        AtenOpKind::Sum | AtenOpKind::Prod if !input.dtype.is_float() => DType::I64,
        _ => input.dtype,
    };
    expect_dtype("result", result.dtype, expected)
}

fn check_normalized_shape(op: &AtenOp, input: &TensorType, params: &[TensorType]) -> Check {
    let normalized = required(op.ints(attr::NORMALIZED_SHAPE), attr::NORMALIZED_SHAPE)?;
    required(op.float(attr::EPS), attr::EPS)?;
    if normalized.is_empty() || normalized.len() > input.rank() || !input.shape.ends_with(&normalized) {
        return Err(format!(
            "normalized_shape {} must be a non-empty suffix of the input shape {}",
            shape_str(&normalized),
            shape_str(&input.shape)
        ));
    }
    for (param, name) in params.iter().zip(["weight", "bias"]) {
        expect_shape(name, &param.shape, &normalized)?;
    }
    Ok(())
}

fn check_groups(op: &AtenOp, input: &TensorType, params: &[TensorType]) -> Check {
    let groups = required(op.int(attr::NUM_GROUPS), attr::NUM_GROUPS)?;
    required(op.float(attr::EPS), attr::EPS)?;
    let Some(&channels) = input.shape.get(1) else {
        return Err(format!(
            "expects an [N, C, ...] input, got {}",
            shape_str(&input.shape)
        ));
    };
    if groups <= 0 || channels % groups != 0 {
        return Err(format!("{channels} channels do not split into {groups} groups"));
    }
    for (param, name) in params.iter().zip(["weight", "bias"]) {
        expect_shape(name, &param.shape, &[channels])?;
    }
    Ok(())
}

/// batch_norm: an `[N, C, ...]` input and weight, bias, running mean and variance of `[C]`.
fn check_channel_params(op: &AtenOp, input: &TensorType, params: &[TensorType]) -> Check {
    required(op.float(attr::EPS), attr::EPS)?;
    let Some(&channels) = input.shape.get(1) else {
        return Err(format!(
            "expects an [N, C, ...] input, got {}",
            shape_str(&input.shape)
        ));
    };
    for (param, name) in params
        .iter()
        .zip(["weight", "bias", "running_mean", "running_var"])
    {
        expect_shape(name, &param.shape, &[channels])?;
    }
    Ok(())
}

fn check_composite(op: &AtenOp, inputs: &[TensorType], result: &TensorType) -> Check {
    let input = &inputs[0];
    match op.kind() {
        AtenOpKind::Softmax | AtenOpKind::LogSoftmax => {
            wrap_dim(required(op.dim(), attr::DIM)?, input.rank())?;
        }
        AtenOpKind::GroupNorm => check_groups(op, input, &inputs[1..])?,
        AtenOpKind::BatchNorm => check_channel_params(op, input, &inputs[1..])?,
        _ => check_normalized_shape(op, input, &inputs[1..])?,
    }
    if !input.dtype.is_float() {
        return Err(format!("requires a floating-point input, got {}", input.dtype));
    }
    expect_shape("result", &result.shape, &input.shape)?;
    expect_dtype("result", result.dtype, input.dtype)
}

fn expect_rank(what: &str, t: &TensorType, rank: usize) -> Check {
    if t.rank() == rank {
        Ok(())
    } else {
        Err(format!(
            "expects {what} of rank {rank}, got {}",
            shape_str(&t.shape)
        ))
    }
}

fn inner_dims_match(a: &TensorType, b: &TensorType, ka: i64, kb: i64) -> Check {
    if ka == kb {
        Ok(())
    } else {
        Err(format!(
            "inner dimensions do not match: {} x {} ({ka} vs {kb})",
            shape_str(&a.shape),
            shape_str(&b.shape)
        ))
    }
}

/// scaled_dot_product_attention: 4-D float query [B,H,L,E], key [B,H,S,E], value
/// [B,H,S,Ev] of one dtype, a mask broadcasting to [B,H,L,S]; the result is [B,H,L,Ev].
fn check_attention(op: &AtenOp, inputs: &[TensorType]) -> Result<Vec<i64>, String> {
    required(op.float("scale"), "scale")?;
    let (q, k, v) = (&inputs[0], &inputs[1], &inputs[2]);
    for (t, what) in [(q, "a query"), (k, "a key"), (v, "a value")] {
        expect_rank(what, t, 4)?;
        if t.dtype != q.dtype || !t.dtype.is_float() {
            return Err(format!(
                "expects float query, key and value of one dtype, got {}",
                t.dtype
            ));
        }
    }
    if k.shape[..2] != q.shape[..2] || v.shape[..3] != k.shape[..3] || k.shape[3] != q.shape[3] {
        return Err(format!(
            "query {}, key {} and value {} do not fit [B,H,L,E], [B,H,S,E], [B,H,S,Ev]",
            shape_str(&q.shape),
            shape_str(&k.shape),
            shape_str(&v.shape)
        ));
    }
    let scores = vec![q.shape[0], q.shape[1], q.shape[2], k.shape[2]];
    if let Some(mask) = inputs.get(3) {
        if broadcast_shapes(&mask.shape, &scores)? != scores {
            return Err(format!(
                "attn_mask {} does not broadcast to the scores {}",
                shape_str(&mask.shape),
                shape_str(&scores)
            ));
        }
    }
    Ok(vec![q.shape[0], q.shape[1], q.shape[2], v.shape[3]])
}

fn check_contraction(op: &AtenOp, inputs: &[TensorType], result: &TensorType) -> Check {
    let expected = match op.kind() {
        AtenOpKind::Mm | AtenOpKind::Addmm => {
            let (bias, a, b) = if op.kind() == AtenOpKind::Addmm {
                (Some(&inputs[0]), &inputs[1], &inputs[2])
            } else {
                (None, &inputs[0], &inputs[1])
            };
            expect_rank("a matrix", a, 2)?;
            expect_rank("a matrix", b, 2)?;
            inner_dims_match(a, b, a.shape[1], b.shape[0])?;
            let out = vec![a.shape[0], b.shape[1]];
            if let Some(bias) = bias {
                if broadcast_shapes(&bias.shape, &out)? != out {
                    return Err(format!(
                        "bias {} does not broadcast to {}",
                        shape_str(&bias.shape),
                        shape_str(&out)
                    ));
                }
            }
            out
        }
        AtenOpKind::ScaledDotProductAttention => check_attention(op, inputs)?,
        AtenOpKind::FusedLstmCell | AtenOpKind::FusedGruCell => {
            let kind = super::CellKind::of_aten(op.kind()).ok_or("not a recurrent cell")?;
            super::RnnCell::from_types(kind, inputs)?.result_shape()
        }
        AtenOpKind::Bmm => {
            let (a, b) = (&inputs[0], &inputs[1]);
            expect_rank("a batch of matrices", a, 3)?;
            expect_rank("a batch of matrices", b, 3)?;
            if a.shape[0] != b.shape[0] {
                return Err(format!(
                    "batch dimensions do not match: {} x {}",
                    shape_str(&a.shape),
                    shape_str(&b.shape)
                ));
            }
            inner_dims_match(a, b, a.shape[2], b.shape[1])?;
            vec![a.shape[0], a.shape[1], b.shape[2]]
        }
        AtenOpKind::Linear => {
            let (input, weight) = (&inputs[0], &inputs[1]);
            if input.rank() < 1 {
                return Err("expects an input of rank >= 1".to_string());
            }
            expect_rank("a weight", weight, 2)?;
            inner_dims_match(input, weight, input.shape[input.rank() - 1], weight.shape[1])?;
            if let Some(bias) = inputs.get(2) {
                expect_shape("bias", &bias.shape, &[weight.shape[0]])?;
            }
            let mut out = input.shape.clone();
            *out.last_mut().expect("rank >= 1") = weight.shape[0];
            out
        }
        _ => convolution_shape(op, inputs)?,
    };
    for (i, input) in inputs.iter().enumerate() {
        expect_dtype(&format!("operand #{i}"), input.dtype, result.dtype)?;
    }
    if !result.dtype.is_float() {
        return Err(format!("requires floating-point operands, got {}", result.dtype));
    }
    expect_shape("result", &result.shape, &expected)
}

fn convolution_shape(op: &AtenOp, inputs: &[TensorType]) -> Result<Vec<i64>, String> {
    let (input, weight) = (&inputs[0], &inputs[1]);
    if input.rank() < 3 {
        return Err(format!(
            "expects an input of rank >= 3 [N, C, spatial...], got {}",
            shape_str(&input.shape)
        ));
    }
    let spatial = input.rank() - 2;
    expect_rank("a weight", weight, input.rank())?;
    let per_dim = |name: &str| -> Result<Vec<i64>, String> {
        let values = required(op.ints(name), name)?;
        let (min, what) = if name == attr::PADDING {
            (0, "non-negative")
        } else {
            (1, "positive")
        };
        if values.len() != spatial || values.iter().any(|&v| v < min) {
            return Err(format!(
                "'{name}' must have {spatial} {what} values, got {}",
                shape_str(&values)
            ));
        }
        Ok(values)
    };
    let (stride, padding, dilation) = (
        per_dim(attr::STRIDE)?,
        per_dim(attr::PADDING)?,
        per_dim(attr::DILATION)?,
    );
    let groups = required(op.int(attr::GROUPS), attr::GROUPS)?;
    let (channels, out_channels) = (input.shape[1], weight.shape[0]);
    if groups < 1 || channels % groups != 0 || out_channels % groups != 0 {
        return Err(format!(
            "groups={groups} must divide input channels {channels} and output channels {out_channels}"
        ));
    }
    let expected = weight.shape[1].checked_mul(groups).ok_or_else(|| {
        format!(
            "groups={groups} times the weight's {} channels overflows",
            weight.shape[1]
        )
    })?;
    if expected != channels {
        return Err(format!(
            "weight {} expects {expected} input channels, input {} has {channels}",
            shape_str(&weight.shape),
            shape_str(&input.shape)
        ));
    }
    if let Some(bias) = inputs.get(2) {
        expect_shape("bias", &bias.shape, &[out_channels])?;
    }
    let mut out = vec![input.shape[0], out_channels];
    for d in 0..spatial {
        // In checked arithmetic: padding and dilation are user attributes of any size.
        let size = padding[d]
            .checked_mul(2)
            .and_then(|p| input.shape[2 + d].checked_add(p))
            .and_then(|padded| {
                dilation[d]
                    .checked_mul(weight.shape[2 + d] - 1)
                    .and_then(|span| padded.checked_sub(span))
            })
            .and_then(|s| s.checked_sub(1))
            .ok_or_else(|| {
                format!(
                    "spatial size {d} overflows with padding {} and dilation {}",
                    padding[d], dilation[d]
                )
            })?;
        if size < 0 {
            return Err(format!(
                "kernel {} is larger than the padded input {}",
                shape_str(&weight.shape),
                shape_str(&input.shape)
            ));
        }
        out.push(size / stride[d] + 1);
    }
    Ok(out)
}

/// ATen's slice length with clamping of start/end (any i64 start, end and a positive
/// step, without overflow).
fn slice_len(size: i64, start: i64, end: i64, step: i64) -> i64 {
    let clamp = |v: i64| {
        if v < 0 {
            v.saturating_add(size).max(0)
        } else {
            v.min(size)
        }
    };
    let (start, end) = (clamp(start), clamp(end));
    if end <= start {
        0
    } else {
        (end - start - 1) / step + 1
    }
}

fn check_movement(op: &AtenOp, inputs: &[TensorType], result: &TensorType) -> Check {
    let input = &inputs[0];
    let kind = op.kind();
    let expected = match kind {
        AtenOpKind::View | AtenOpKind::Reshape => {
            if input.numel() != result.numel() {
                return Err(format!(
                    "cannot view {} ({} elements) as {} ({} elements)",
                    shape_str(&input.shape),
                    input.numel(),
                    shape_str(&result.shape),
                    result.numel()
                ));
            }
            result.shape.clone()
        }
        AtenOpKind::Permute => {
            let dims = required(op.dims(), attr::DIMS)?;
            if dims.len() != input.rank() {
                return Err(format!(
                    "'dims' {} is not a permutation of {} dimensions",
                    shape_str(&dims),
                    input.rank()
                ));
            }
            let dims = wrap_dims(&dims, input.rank())?;
            dims.iter().map(|&d| input.shape[d]).collect()
        }
        AtenOpKind::Transpose => {
            let d0 = wrap_dim(required(op.int(attr::DIM0), attr::DIM0)?, input.rank())?;
            let d1 = wrap_dim(required(op.int(attr::DIM1), attr::DIM1)?, input.rank())?;
            let mut shape = input.shape.clone();
            shape.swap(d0, d1);
            shape
        }
        AtenOpKind::Expand => {
            let target = &result.shape;
            let offset = target.len().checked_sub(input.rank()).ok_or_else(|| {
                format!(
                    "cannot expand {} to fewer dimensions {}",
                    shape_str(&input.shape),
                    shape_str(target)
                )
            })?;
            for (d, &size) in input.shape.iter().enumerate() {
                if size != 1 && size != target[offset + d] {
                    return Err(format!(
                        "cannot expand {} to {}: dimension {d} has size {size}",
                        shape_str(&input.shape),
                        shape_str(target)
                    ));
                }
            }
            target.clone()
        }
        AtenOpKind::Unsqueeze => {
            let d = wrap_dim(required(op.dim(), attr::DIM)?, input.rank() + 1)?;
            let mut shape = input.shape.clone();
            shape.insert(d, 1);
            shape
        }
        AtenOpKind::Squeeze => {
            let dims = wrap_dims(&required(op.dims(), attr::DIMS)?, input.rank())?;
            let all = dims.is_empty();
            input
                .shape
                .iter()
                .enumerate()
                .filter(|&(d, &size)| !(size == 1 && (all || dims.contains(&d))))
                .map(|(_, &size)| size)
                .collect()
        }
        AtenOpKind::Slice => {
            let d = wrap_dim(required(op.dim(), attr::DIM)?, input.rank())?;
            let start = required(op.int(attr::START), attr::START)?;
            let end = required(op.int(attr::END), attr::END)?;
            let step = required(op.int(attr::STEP), attr::STEP)?;
            if step < 1 {
                return Err(format!("slice step must be positive, got {step}"));
            }
            let mut shape = input.shape.clone();
            shape[d] = slice_len(shape[d], start, end, step);
            shape
        }
        AtenOpKind::Select => {
            let d = wrap_dim(required(op.dim(), attr::DIM)?, input.rank())?;
            let index = required(op.int(attr::INDEX), attr::INDEX)?;
            let size = input.shape[d];
            if !(-size..size).contains(&index) {
                return Err(format!(
                    "index {index} is out of range for dimension {d} of size {size}"
                ));
            }
            let mut shape = input.shape.clone();
            shape.remove(d);
            shape
        }
        AtenOpKind::Cat => {
            let d = wrap_dim(required(op.dim(), attr::DIM)?, input.rank())?;
            let mut shape = input.shape.clone();
            for (i, other) in inputs.iter().enumerate().skip(1) {
                let same_rest = other.rank() == input.rank()
                    && (0..input.rank()).all(|k| k == d || other.shape[k] == input.shape[k]);
                if !same_rest {
                    return Err(format!(
                        "operand #{i} {} does not match {} outside dimension {d}",
                        shape_str(&other.shape),
                        shape_str(&input.shape)
                    ));
                }
                expect_dtype(&format!("operand #{i}"), other.dtype, input.dtype)?;
                shape[d] += other.shape[d];
            }
            shape
        }
        AtenOpKind::Gather => {
            let index = &inputs[1];
            let d = wrap_dim(required(op.dim(), attr::DIM)?, input.rank())?;
            expect_dtype("index", index.dtype, DType::I64)?;
            if index.rank() != input.rank() {
                return Err(format!(
                    "index rank {} differs from input rank {}",
                    index.rank(),
                    input.rank()
                ));
            }
            if (0..input.rank()).any(|k| k != d && index.shape[k] > input.shape[k]) {
                return Err(format!(
                    "index {} is larger than input {} outside dimension {d}",
                    shape_str(&index.shape),
                    shape_str(&input.shape)
                ));
            }
            index.shape.clone()
        }
        _ => unreachable!("every movement op is handled above"),
    };
    expect_shape("result", &result.shape, &expected)?;
    expect_dtype("result", result.dtype, input.dtype)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_aten() {
        assert_eq!(
            broadcast_shapes(&[1024, 1024], &[1024]).unwrap(),
            vec![1024, 1024]
        );
        assert_eq!(broadcast_shapes(&[4, 1], &[1, 3]).unwrap(), vec![4, 3]);
        assert_eq!(broadcast_shapes(&[], &[2, 3]).unwrap(), vec![2, 3]);
        assert!(broadcast_shapes(&[4, 3], &[5]).is_err());
    }

    #[test]
    fn slices_clamp_like_aten() {
        assert_eq!(slice_len(10, 0, i64::MAX, 1), 10);
        assert_eq!(slice_len(10, -3, 10, 1), 3);
        assert_eq!(slice_len(10, 1, 8, 3), 3);
        assert_eq!(slice_len(10, 8, 2, 1), 0);
    }

    #[test]
    fn reductions_keep_or_drop_dims() {
        assert_eq!(reduced_shape(&[4, 5, 6], &[1], true), vec![4, 1, 6]);
        assert_eq!(reduced_shape(&[4, 5, 6], &[0, 2], false), vec![5]);
        assert_eq!(reduced_shape(&[4, 5], &[], false), Vec::<i64>::new());
    }

    #[test]
    fn dims_wrap_and_reject_duplicates() {
        assert_eq!(wrap_dims(&[-1, 0], 3).unwrap(), vec![2, 0]);
        assert!(wrap_dims(&[1, -2], 3).is_err());
        assert!(wrap_dim(3, 3).is_err());
    }
}
