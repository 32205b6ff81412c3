//! Seeded inputs for a function's arguments and dtype-aware comparison of results.
//!
//! Floats are standard normal; booleans fair coins; integers uniform in `[0, bound)`,
//! where `bound` keeps indices valid: an i64 argument that reaches the `index` operand
//! of an `aten.gather` (through view ops) is bounded by the gathered dimension's size,
//! otherwise by 8.

use crate::tensor::Tensor;
use fuselab_dialects::ir;
use fuselab_dialects::{
    aten::{AtenOp, AtenOpClass, AtenOpKind},
    types::{DType, TensorType},
};
use mlir_sys::{MlirOperation, MlirValue};

/// A seeded xorshift generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next raw value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `[0, n)`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u = self.unit().max(1e-300);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// The bound for integer argument `arg`: the smallest gathered-dimension size among
/// the gathers whose index it feeds (through movement ops and the value operands of a
/// `where`, as fuse-import's wrap of negative indices, `where(i < 0, i + n, i)`), else 8.
pub fn int_bound(arg: MlirValue) -> i64 {
    let mut bound = i64::MAX;
    let mut frontier = vec![arg];
    let mut seen = Vec::new();
    while let Some(v) = frontier.pop() {
        if seen.contains(&(v.ptr as usize)) {
            continue;
        }
        seen.push(v.ptr as usize);
        for user in ir::users(v) {
            let Some(op) = AtenOp::new(unsafe { ir::op_ref(user) }) else {
                continue;
            };
            if op.kind() == AtenOpKind::Gather && ir::operand(user, 1).ptr == v.ptr {
                if let (Ok(types), Some(dim)) = (op.operand_types(), op.dim()) {
                    let rank = types[0].rank() as i64;
                    let d = if dim < 0 { dim + rank } else { dim } as usize;
                    bound = bound.min(types[0].shape[d]);
                }
            } else if op.kind().class() == AtenOpClass::Movement
                || (op.kind() == AtenOpKind::Where && ir::operand(user, 0).ptr != v.ptr)
            {
                frontier.push(ir::result(user, 0));
            }
        }
    }
    if bound == i64::MAX {
        8
    } else {
        bound.max(1)
    }
}

/// Seeded inputs for every argument of `func`.
pub fn generate_inputs(func: MlirOperation, seed: u64) -> Result<Vec<Tensor>, String> {
    let block = ir::body(func).ok_or("function without a body")?;
    let mut rng = Rng::new(seed);
    let mut inputs = Vec::new();
    for (i, arg) in ir::block_arguments(block).into_iter().enumerate() {
        let ty: TensorType = ir::tensor_type(arg)
            .ok_or_else(|| format!("argument #{i} is not a tensor of a supported dtype"))?;
        let n = ty.numel() as usize;
        let data: Vec<f64> = match ty.dtype {
            DType::I1 => (0..n).map(|_| rng.below(2) as f64).collect(),
            DType::I64 | DType::I32 => {
                let bound = int_bound(arg) as u64;
                (0..n).map(|_| rng.below(bound) as f64).collect()
            }
            _ => (0..n).map(|_| rng.normal()).collect(),
        };
        inputs.push(Tensor::new(ty.shape, ty.dtype, data));
    }
    Ok(inputs)
}

/// The comparison of one result with the reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Largest |got - want|.
    pub max_abs: f64,
    /// Largest |got - want| / |want| over elements with |want| > 0.
    pub max_rel: f64,
    /// Elements outside the tolerance.
    pub mismatches: usize,
    /// Whether everything is within the tolerance (and shapes and NaN positions agree).
    pub pass: bool,
}

/// `(atol, rtol)` for `dtype`: f32 allows reassociated reductions; f16/bf16 their
/// precision; integers and bools must match exactly.
pub fn tolerance(dtype: DType) -> (f64, f64) {
    match dtype {
        DType::F32 => (1e-4, 1e-3),
        DType::F16 => (1e-2, 1e-2),
        DType::BF16 => (5e-2, 5e-2),
        DType::I64 | DType::I32 | DType::I1 => (0.0, 0.0),
    }
}

/// Compares `got` with the reference `want`: `|got - want| <= atol * max(1, max|want|) +
/// rtol * |want|` element by element, NaNs in the same places.
pub fn compare(got: &Tensor, want: &Tensor) -> Comparison {
    if got.shape != want.shape || got.data.len() != want.data.len() {
        return Comparison {
            max_abs: f64::INFINITY,
            max_rel: f64::INFINITY,
            mismatches: want.data.len().max(1),
            pass: false,
        };
    }
    let (atol, rtol) = tolerance(want.dtype);
    // The absolute part scales with the output's magnitude: a long f32 sum (a 576-term
    // convolution) whose result cancels to near zero carries rounding error of the size
    // of its partial sums, not of its result.
    let scale = want
        .data
        .iter()
        .filter(|v| v.is_finite())
        .fold(1.0f64, |m, v| m.max(v.abs()));
    let atol = atol * scale;
    let (mut max_abs, mut max_rel, mut mismatches) = (0.0f64, 0.0f64, 0usize);
    for (&g, &w) in got.data.iter().zip(&want.data) {
        if g.is_nan() || w.is_nan() {
            if g.is_nan() != w.is_nan() {
                mismatches += 1;
                max_abs = f64::INFINITY;
            }
            continue;
        }
        if g == w {
            continue;
        }
        if g.is_infinite() || w.is_infinite() {
            // An infinity matches only itself, sign included: no tolerance covers it.
            mismatches += 1;
            max_abs = f64::INFINITY;
            continue;
        }
        let abs = (g - w).abs();
        max_abs = max_abs.max(abs);
        if w != 0.0 {
            max_rel = max_rel.max(abs / w.abs());
        }
        if abs.is_nan() || abs > atol + rtol * w.abs() {
            mismatches += 1;
        }
    }
    Comparison {
        max_abs,
        max_rel,
        mismatches,
        pass: mismatches == 0,
    }
}
