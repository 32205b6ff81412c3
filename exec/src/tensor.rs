//! Dense tensors for the interpreters: row-major values held as `f64` (exact for every
//! f32/f16/bf16/i32 value, for i64 up to 2^53, and for bools as 0/1), rounded to the
//! storage dtype whenever an op stores a result (int32 wrapping as two's complement), so
//! an f32 op computes what f32 hardware does for + - * / sqrt (one f64 operation then one
//! rounding to f32 is correctly rounded).

use fuselab_dialects::types::DType;

/// A dense tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// Sizes.
    pub shape: Vec<i64>,
    /// Element type.
    pub dtype: DType,
    /// Row-major values, already rounded to `dtype`.
    pub data: Vec<f64>,
}

thread_local! {
    /// Whether float roundings are off on this thread ([`with_exact_floats`]).
    static EXACT_FLOATS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the interpreters' float roundings switched off on this thread: every
/// f32/f16/bf16 result keeps its f64 value, so an interpreter computes the program in
/// (nearly) exact arithmetic — the reference that `fuse-run --accuracy` measures rounding
/// errors against. Integer and bool conversions still apply.
pub fn with_exact_floats<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            EXACT_FLOATS.with(|e| e.set(self.0));
        }
    }
    let _restore = Restore(EXACT_FLOATS.with(|e| e.replace(true)));
    f()
}

/// `v` rounded to f32 by round-to-odd: exact values stay, an inexact one becomes the f32
/// neighbour whose last bit is odd. Rounding that to f16 or bf16 (10 and 7 fraction bits
/// against f32's 23) to nearest even gives `v` correctly rounded: the odd bit keeps an
/// inexact value off the ties. `half`'s own `from_f64` rounds to f32 to nearest first
/// (F16C) or drops the low bits, so a value just above a tie came out rounded down
/// (bf16 of 1.0039063692092896 = 1 + 2^-8 + 2^-23 gave 1.0, not 1.0078125: the aten
/// interpreter disagreed with torch and with the compiled code, fuse-fuzz seed 50001922).
pub fn f32_round_to_odd(v: f64) -> f32 {
    let f = v as f32;
    if !f.is_finite() || f64::from(f) == v || f.to_bits() & 1 == 1 {
        return f;
    }
    // Inexact with an even last bit: the other neighbour, one ulp toward `v`, is odd.
    let bits = f.to_bits();
    f32::from_bits(if f64::from(f).abs() < v.abs() {
        bits + 1
    } else {
        bits - 1
    })
}

/// The type a reduction into `dtype` accumulates in: f32 for f16 and bf16, as Inductor's
/// generated kernels (`triton_helpers` reduce in the upcast `acc_type`, codegen's
/// `upcast_acc_dtype`) and ATen's CUDA and CPU reductions (`acc_type<Half>` is float);
/// the result is rounded to `dtype` once. Other types accumulate in themselves.
pub fn accumulation_dtype(dtype: DType) -> DType {
    if dtype.is_half() {
        DType::F32
    } else {
        dtype
    }
}

/// Rounds `v` to what `dtype` stores (floats: unchanged inside [`with_exact_floats`]).
pub fn round_to(v: f64, dtype: DType) -> f64 {
    if dtype.is_float() && EXACT_FLOATS.with(std::cell::Cell::get) {
        return v;
    }
    match dtype {
        DType::F32 => v as f32 as f64,
        DType::F16 => half::f16::from_f32(f32_round_to_odd(v)).to_f64(),
        DType::BF16 => half::bf16::from_f32(f32_round_to_odd(v)).to_f64(),
        // Float to int conversions truncate toward zero (C / ATen casts).
        DType::I64 => {
            if v.is_nan() {
                0.0
            } else {
                v.trunc()
            }
        }
        // int32 wraps as two's complement (integer overflow), after the truncation.
        DType::I32 => {
            if v.is_nan() {
                0.0
            } else {
                f64::from(v.trunc() as i64 as i32)
            }
        }
        DType::I1 => f64::from(u8::from(v != 0.0)),
    }
}

/// int32 `a + b`, wrapping (two's complement).
pub fn i32_add(a: f64, b: f64) -> f64 {
    f64::from((a as i32).wrapping_add(b as i32))
}

/// int32 `a - b`, wrapping.
pub fn i32_sub(a: f64, b: f64) -> f64 {
    f64::from((a as i32).wrapping_sub(b as i32))
}

/// int32 `a * b`, wrapping.
pub fn i32_mul(a: f64, b: f64) -> f64 {
    f64::from((a as i32).wrapping_mul(b as i32))
}

impl Tensor {
    /// A tensor of `shape` and `dtype` from values (rounded).
    pub fn new(shape: Vec<i64>, dtype: DType, data: Vec<f64>) -> Self {
        let data = data.into_iter().map(|v| round_to(v, dtype)).collect();
        Self { shape, dtype, data }
    }

    /// A tensor filled with `value`.
    pub fn full(shape: Vec<i64>, dtype: DType, value: f64) -> Self {
        let n = numel(&shape);
        Self::new(shape, dtype, vec![value; n])
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        numel(&self.shape)
    }

    /// Rank.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The value at a multi-index.
    pub fn at(&self, index: &[i64]) -> f64 {
        self.data[flat_index(&self.shape, index)]
    }
}

/// Number of elements of `shape`.
pub fn numel(shape: &[i64]) -> usize {
    shape.iter().map(|&d| d.max(0) as usize).product()
}

/// The flat offset of `index` in a row-major tensor of `shape`.
pub fn flat_index(shape: &[i64], index: &[i64]) -> usize {
    let mut flat = 0i64;
    for (d, &i) in index.iter().enumerate() {
        flat = flat * shape[d] + i;
    }
    flat as usize
}

/// The multi-index of flat offset `flat` in `shape`.
pub fn unflatten(shape: &[i64], mut flat: usize, out: &mut [i64]) {
    for d in (0..shape.len()).rev() {
        let size = shape[d].max(1) as usize;
        out[d] = (flat % size) as i64;
        flat /= size;
    }
}

/// Calls `f` with every multi-index of `shape` in row-major order.
pub fn for_each_index(shape: &[i64], mut f: impl FnMut(&[i64])) {
    let n = numel(shape);
    let mut index = vec![0i64; shape.len()];
    for flat in 0..n {
        unflatten(shape, flat, &mut index);
        f(&index);
    }
}

/// `max` that propagates NaN (ATen's `maximum` / `amax`, `arith.maximumf`).
pub fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// `min` that propagates NaN.
pub fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// `v` stored as a `dtype` element in `out` (little-endian; `out` has the element's
/// bytes).
pub fn encode(dtype: DType, v: f64, out: &mut [u8]) {
    match dtype {
        DType::F32 => out.copy_from_slice(&(v as f32).to_le_bytes()),
        DType::F16 => out.copy_from_slice(&half::f16::from_f32(f32_round_to_odd(v)).to_le_bytes()),
        DType::BF16 => out.copy_from_slice(&half::bf16::from_f32(f32_round_to_odd(v)).to_le_bytes()),
        DType::I64 => out.copy_from_slice(&(v as i64).to_le_bytes()),
        DType::I32 => out.copy_from_slice(&(v as i32).to_le_bytes()),
        DType::I1 => out[0] = u8::from(v != 0.0),
    }
}

/// The value of the `dtype` element stored in `b` (little-endian).
pub fn decode(dtype: DType, b: &[u8]) -> f64 {
    match dtype {
        DType::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DType::F16 => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
        DType::BF16 => half::bf16::from_le_bytes([b[0], b[1]]).to_f64(),
        DType::I64 => i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as f64,
        DType::I32 => f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        DType::I1 => f64::from(b[0]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Half roundings are correct to nearest even from any f64: ties go to the even
    /// neighbour, and a value a hair above a tie (an f32 one ulp above, or an f64 half an
    /// f32 ulp above, which rounds to the tie in f32) goes up.
    #[test]
    fn half_roundings_are_correct_from_f64() {
        let bf = |v: f64| round_to(v, DType::BF16);
        let h = |v: f64| round_to(v, DType::F16);
        // bf16 ulp at 1 is 2^-7; ties at odd multiples of 2^-8.
        assert_eq!(bf(1.0 + 2f64.powi(-8)), 1.0);
        assert_eq!(bf(1.0 + 3.0 * 2f64.powi(-8)), 1.0 + 2.0 * 2f64.powi(-7));
        assert_eq!(bf(1.0 + 2f64.powi(-8) + 2f64.powi(-23)), 1.0 + 2f64.powi(-7));
        assert_eq!(
            bf(-(1.0 + 2f64.powi(-8) + 2f64.powi(-40))),
            -(1.0 + 2f64.powi(-7))
        );
        // f16 ulp at 1 is 2^-10.
        assert_eq!(h(1.0 + 2f64.powi(-11)), 1.0);
        assert_eq!(h(1.0 + 2f64.powi(-11) + 2f64.powi(-24)), 1.0 + 2f64.powi(-10));
        assert_eq!(h(1.0 + 2f64.powi(-11) - 2f64.powi(-30)), 1.0);
        // Exact values, infinities and NaN are kept.
        assert_eq!(bf(0.5), 0.5);
        assert_eq!(h(f64::INFINITY), f64::INFINITY);
        assert!(bf(f64::NAN).is_nan());
        let mut bytes = [0u8; 2];
        encode(DType::BF16, 1.0 + 2f64.powi(-8) + 2f64.powi(-23), &mut bytes);
        assert_eq!(decode(DType::BF16, &bytes), 1.0 + 2f64.powi(-7));
    }
}
