//! f32 `math` functions written as `arith` for the code generators: vectorizable on the
//! CPU, and on the GPU free of libdevice (which the NVPTX path does not link). Also the
//! f32 compute type of half-precision values ([`widen`], [`widen_attr`]).
//!
//! `convert-math-to-llvm` / `convert-math-to-libm` turn `math.exp`, `math.sin`, ... into
//! one scalar libm call per element, which stops LLVM's loop vectorizer and makes
//! pointwise kernels compute-bound (a fused softmax computes `exp` twice and was slower
//! than the unfused one). This module writes those functions as straight-line `arith`
//! (plus `math.roundeven` / `math.floor` / `math.copysign`, which LLVM vectorizes): range
//! reduction and a polynomial, the way vector math libraries (SLEEF, Eigen's
//! `pexp`/`plog`, MLIR's own polynomial approximations) do it. The polynomials here are
//! truncated Taylor series (and Abramowitz & Stegun 7.1.26 for `erf`), chosen so the
//! error stays near f32 rounding on the reduced range; special values (NaN, ±inf, 0,
//! negative `log` arguments) are selected explicitly. Functions not listed keep their
//! `math` op.

use fuselab_dialects::{
    build::{Builder, CmpF, CmpI, Value},
    ir,
};
use mlir_sys::{MlirAttribute, MlirOperation, MlirType};

/// ln 2 split for Cody-Waite range reduction: `LN2_HI` has few significant bits, so
/// `n * LN2_HI` is exact for the exponents used, and `LN2_HI + LN2_LO` is ln 2 to f32
/// precision.
const LN2_HI: f32 = 0.693_359_4;
/// See [`LN2_HI`].
const LN2_LO: f32 = -2.121_944_4e-4;

/// What [`Math::exp_base2`] takes from a target: the operations a GPU has natively
/// (NVPTX: `ex2.approx.ftz.f32`, `fma.rm.f32`, `cvt.sat.f32.f32`).
pub trait ExpPrimitives {
    /// `2^f` for an f32 `f` (may flush subnormal results to 0).
    fn pow2(&self, b: &mut Builder, f: Value) -> Value;
    /// `a m + c` in f32, rounded toward -inf.
    fn fma_down(&self, b: &mut Builder, a: Value, m: Value, c: Value) -> Value;
    /// `x` clamped to [0, 1], NaN to 0.
    fn saturate(&self, b: &mut Builder, x: Value) -> Value;
}

/// Builds the expansions at a [`Builder`]'s insertion point.
pub struct Math<'a> {
    /// The builder of the generated function.
    pub b: &'a mut Builder,
}

impl Math<'_> {
    fn f32c(&mut self, v: f32) -> Value {
        self.b.f32(v)
    }

    fn f64c(&mut self, v: f64) -> Value {
        self.b.f64(v)
    }

    fn i32c(&mut self, v: i32) -> Value {
        self.b.int(32, i64::from(v))
    }

    fn bin(&mut self, op: &str, a: Value, b: Value) -> Value {
        self.b.binary(&format!("arith.{op}"), a, b)
    }

    fn fcmp(&mut self, pred: CmpF, a: Value, b: Value) -> Value {
        self.b.cmpf(pred, a, b)
    }

    fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        self.b.select(c, a, b)
    }

    fn unary(&mut self, op: &str, a: Value) -> Value {
        self.b.unary(op, a)
    }

    fn as_f32(&mut self, op: &str, a: Value) -> Value {
        let ty = self.b.f32_type();
        self.b.cast(op, a, ty)
    }

    fn as_f64(&mut self, a: Value) -> Value {
        let ty = self.b.f64_type();
        self.b.cast("arith.extf", a, ty)
    }

    fn bin_named(&mut self, op: &str, a: Value, b: Value) -> Value {
        self.b.binary(op, a, b)
    }

    fn as_i32(&mut self, op: &str, a: Value) -> Value {
        let ty = self.b.int_type(32);
        self.b.cast(op, a, ty)
    }

    /// `c[0] + x*(c[1] + x*(c[2] + ...))` (Horner), in f64 when `wide`, else f32.
    fn horner(&mut self, x: Value, coeffs: &[f64], wide: bool) -> Value {
        let constant = |l: &mut Self, v: f64| {
            if wide {
                l.f64c(v)
            } else {
                l.f32c(v as f32)
            }
        };
        let (last, rest) = coeffs.split_last().expect("a polynomial has coefficients");
        let mut acc = constant(self, *last);
        for &c in rest.iter().rev() {
            let m = self.bin("mulf", acc, x);
            let k = constant(self, c);
            acc = self.bin("addf", m, k);
        }
        acc
    }

    /// NaN inputs replaced by 0 (so no NaN reaches `fptosi`, whose result would be
    /// poison); the caller selects NaN back at the end.
    fn unnan(&mut self, x: Value) -> (Value, Value) {
        let nan = self.fcmp(CmpF::Uno, x, x);
        let zero = self.f32c(0.0);
        (self.select(nan, zero, x), nan)
    }

    /// `2^n` for an i32 `n` in [-126, 127], from its exponent bits.
    fn pow2_bits(&mut self, n: Value) -> Value {
        let (bias, shift) = (self.i32c(127), self.i32c(23));
        let biased = self.bin("addi", n, bias);
        let bits = self.bin("shli", biased, shift);
        self.as_f32("arith.bitcast", bits)
    }

    /// `2^n` for an i32 `n` in [-126, 128], as two exact power-of-two factors.
    fn exp2i(&mut self, n: Value) -> (Value, Value) {
        let one = self.i32c(1);
        let half = self.bin("shrsi", n, one);
        let other = self.bin("subi", n, half);
        (self.pow2_bits(half), self.pow2_bits(other))
    }

    /// `exp(x)` by libdevice's `expf` scheme, from a target's [`ExpPrimitives`]:
    /// `x log2(e) = n + f` with `n = floor(x log2(e))` clamped to [-126, 126] and `f`
    /// computed by two FMAs with log2(e) in two parts (so `f` is exact to f32 rounding
    /// for every `x`, where a plain `x * log2(e)` loses |x| 6e-8 relative), then
    /// `pow2(f) 2^n`, the one rounding of a subnormal result in the last multiply.
    ///
    /// The clamp and the floor are three operations and no conversion (on NVIDIA GPUs
    /// `roundeven` and `fptosi` are conversions at a quarter of the FMA rate, the rate
    /// of `ex2` itself, and tripled the cost of an exp):
    /// `s = saturate(x log2(e) / 252 + 1/2)` maps the clamp range onto [0, 1] (NaN to
    /// 0); `j = s 252 + (1.5 2^23 + 1)` rounded down is an integer float whose low
    /// mantissa bits are `n + 127`, so `bits(j) << 23` is `2^n` and
    /// `j - (1.5 2^23 + 127)` is `n`. Beyond the clamp `f` carries the rest: `pow2`
    /// overflows to inf, or gives a small normal that the last multiply rounds to a
    /// subnormal or 0 (`pow2` may flush subnormals: its own results are subnormal only
    /// where `exp` is 0 anyway); ±inf and NaN go through `f`. With
    /// `ex2.approx.f32` (2^-22 relative) the result is within ~2 ulp over the range.
    pub fn exp_base2(&mut self, x: Value, ops: &dyn ExpPrimitives) -> Value {
        const LOG2_E_LO: f64 = std::f64::consts::LOG2_E - std::f32::consts::LOG2_E as f64;
        const MAGIC: f32 = 12_582_913.0; // 1.5 2^23 + 1
        let (l2e, l2e_lo) = (self.f32c(std::f32::consts::LOG2_E), self.f32c(LOG2_E_LO as f32));
        let f32t = self.b.f32_type();
        let (scale, half) = (self.f32c(std::f32::consts::LOG2_E / 252.0), self.f32c(0.5));
        let s = self.b.value("math.fma", &[x, scale, half], f32t, &[]);
        let s = ops.saturate(self.b, s);
        let (span, magic) = (self.f32c(252.0), self.f32c(MAGIC));
        let j = ops.fma_down(self.b, s, span, magic);
        let unbias = self.f32c(-(MAGIC + 126.0));
        let n = self.bin("addf", j, unbias);
        let minus_n = self.unary("arith.negf", n);
        let f = self.b.value("math.fma", &[x, l2e, minus_n], f32t, &[]);
        let f = self.b.value("math.fma", &[x, l2e_lo, f], f32t, &[]);
        let p = ops.pow2(self.b, f);
        let bits = self.as_i32("arith.bitcast", j);
        let shift = self.i32c(23);
        let bits = self.bin("shli", bits, shift);
        let scale = self.as_f32("arith.bitcast", bits);
        self.bin("mulf", p, scale)
    }

    /// `t` (|t| < 2^22) rounded to the nearest integer, ties to even, by adding and
    /// subtracting 1.5 2^23 (the sum's ulp is 1, so the add rounds; no fast-math flag
    /// lets LLVM fold the pair) — no conversion, see [`Math::exp_base2`]: the rounded
    /// value, and the sum's bits as an i32, `0x4B400000 + round(t)`, whose low bits are
    /// those of `round(t)` (mod 4, for a quadrant).
    fn round_by_magic(&mut self, t: Value) -> (Value, Value) {
        let magic = self.f32c(12_582_912.0);
        let shifted = self.bin("addf", t, magic);
        let rounded = self.bin("subf", shifted, magic);
        let bits = self.as_i32("arith.bitcast", shifted);
        (rounded, bits)
    }

    /// `exp(x)`: x = n ln2 + r, |r| <= ln2/2, exp(r) by its degree-7 Taylor polynomial
    /// (error < 1e-8 relative), times 2^n as two normal factors, so results below the
    /// smallest normal are IEEE subnormals (as libm and PyTorch's eager CPU kernels give;
    /// no flush to zero), and results below half the smallest subnormal are 0. (Clamping
    /// at the smallest normal instead made every softmax entry of a far-below-max score
    /// 1.2e-38, subnormal after the division, and the following kernels slow.)
    pub fn exp(&mut self, x: Value) -> Value {
        const HI: f32 = 88.722_84; // ln(f32::MAX)
        const LO: f32 = -103.972_08; // ln(2^-150): below, exp(x) rounds to 0
        let (xn, nan) = self.unnan(x);
        let (lo, hi) = (self.f32c(LO), self.f32c(HI));
        let clamped = self.bin("maximumf", xn, lo);
        let clamped = self.bin("minimumf", clamped, hi);
        let log2e = self.f32c(std::f32::consts::LOG2_E);
        let t = self.bin("mulf", clamped, log2e);
        let n = self.unary("math.roundeven", t);
        let (l2hi, l2lo) = (self.f32c(LN2_HI), self.f32c(LN2_LO));
        let a = self.bin("mulf", n, l2hi);
        let r = self.bin("subf", clamped, a);
        let b = self.bin("mulf", n, l2lo);
        let r = self.bin("subf", r, b);
        let inv_fact: Vec<f64> = (0..8).map(|k| 1.0 / (1..=k).product::<u64>() as f64).collect();
        let p = self.horner(r, &inv_fact, false);
        let ni = self.as_i32("arith.fptosi", n);
        let (s1, s2) = self.exp2i(ni);
        let v = self.bin("mulf", p, s1);
        let v = self.bin("mulf", v, s2);
        let over = self.fcmp(CmpF::Ogt, x, hi);
        let inf = self.f32c(f32::INFINITY);
        let v = self.select(over, inf, v);
        let under = self.fcmp(CmpF::Olt, x, lo);
        let zero = self.f32c(0.0);
        let v = self.select(under, zero, v);
        self.select(nan, x, v)
    }

    /// `log(x)`: x = m 2^e with m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(s),
    /// s = (m-1)/(m+1), by its odd series to s^9 (|s| <= 0.172, error < 1e-9).
    pub fn log(&mut self, x: Value) -> Value {
        let min_normal = self.f32c(f32::MIN_POSITIVE);
        let small = self.fcmp(CmpF::Olt, x, min_normal);
        let two23 = self.f32c(8_388_608.0);
        let scaled = self.bin("mulf", x, two23);
        let xs = self.select(small, scaled, x);
        let bits = self.as_i32("arith.bitcast", xs);
        let shift = self.i32c(23);
        let biased = self.bin("shrui", bits, shift);
        let bias = self.i32c(127);
        let e = self.bin("subi", biased, bias);
        let (mask, one_bits) = (self.i32c(0x007F_FFFF), self.i32c(0x3F80_0000));
        let mant = self.bin("andi", bits, mask);
        let mant = self.bin("ori", mant, one_bits);
        let m = self.as_f32("arith.bitcast", mant);
        let sqrt2 = self.f32c(std::f32::consts::SQRT_2);
        let big = self.fcmp(CmpF::Ogt, m, sqrt2);
        let half = self.f32c(0.5);
        let mh = self.bin("mulf", m, half);
        let m = self.select(big, mh, m);
        let one_i = self.i32c(1);
        let e1 = self.bin("addi", e, one_i);
        let e = self.select(big, e1, e);
        let k23 = self.i32c(23);
        let e23 = self.bin("subi", e, k23);
        let e = self.select(small, e23, e);
        let one = self.f32c(1.0);
        let f = self.bin("subf", m, one);
        let two = self.f32c(2.0);
        let d = self.bin("addf", f, two);
        let s = self.bin("divf", f, d);
        let z = self.bin("mulf", s, s);
        let series = self.horner(z, &[2.0, 2.0 / 3.0, 2.0 / 5.0, 2.0 / 7.0, 2.0 / 9.0], false);
        let logm = self.bin("mulf", s, series);
        let ef = self.as_f32("arith.sitofp", e);
        let (l2hi, l2lo) = (self.f32c(LN2_HI), self.f32c(LN2_LO));
        let lo = self.bin("mulf", ef, l2lo);
        let v = self.bin("addf", logm, lo);
        let hi = self.bin("mulf", ef, l2hi);
        let v = self.bin("addf", v, hi);
        // log(0) = -inf, log(+inf) = +inf, log(x < 0) = NaN, log(NaN) = NaN.
        let zero = self.f32c(0.0);
        let (ninf, pinf) = (self.f32c(f32::NEG_INFINITY), self.f32c(f32::INFINITY));
        let is_zero = self.fcmp(CmpF::Oeq, x, zero);
        let v = self.select(is_zero, ninf, v);
        let is_inf = self.fcmp(CmpF::Oeq, x, pinf);
        let v = self.select(is_inf, pinf, v);
        let nan = self.f32c(f32::NAN);
        let bad = self.fcmp(CmpF::Ult, x, zero);
        self.select(bad, nan, v)
    }

    /// `tanh(x)`: odd Taylor polynomial for |x| < 0.3, else sign(x) (1-t)/(1+t) with
    /// t = exp(-2|x|).
    pub fn tanh(&mut self, x: Value) -> Value {
        self.tanh_from_exp(x, Self::exp)
    }

    /// [`Math::tanh`] with `exp` computing `exp(-2|x|)`: a target passes its own exp
    /// (the GPU's is [`Math::exp_base2`]; see `gpu::ptx` for why).
    pub fn tanh_from_exp(&mut self, x: Value, exp: impl FnOnce(&mut Self, Value) -> Value) -> Value {
        let ax = self.unary("math.absf", x);
        let m2 = self.f32c(-2.0);
        let arg = self.bin("mulf", ax, m2);
        let t = exp(self, arg);
        let one = self.f32c(1.0);
        let num = self.bin("subf", one, t);
        let den = self.bin("addf", one, t);
        let big = self.bin("divf", num, den);
        let big = self.bin_named("math.copysign", big, x);
        let z = self.bin("mulf", x, x);
        let coeffs = [1.0, -1.0 / 3.0, 2.0 / 15.0, -17.0 / 315.0, 62.0 / 2835.0];
        let p = self.horner(z, &coeffs, false);
        let small_v = self.bin("mulf", x, p);
        let limit = self.f32c(0.3);
        let small = self.fcmp(CmpF::Olt, ax, limit);
        self.select(small, small_v, big)
    }

    /// `erf(x)`: Maclaurin series for |x| < 0.75 (to x^17), else Abramowitz & Stegun
    /// 7.1.26 (absolute error < 1.5e-7).
    pub fn erf(&mut self, x: Value) -> Value {
        let ax = self.unary("math.absf", x);
        // 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        let coeffs: Vec<f64> = (0..9u32)
            .map(|n| {
                let fact: f64 = (1..=n).map(f64::from).product();
                let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
                std::f64::consts::FRAC_2_SQRT_PI * sign / (fact * f64::from(2 * n + 1))
            })
            .collect();
        let z = self.bin("mulf", x, x);
        let p = self.horner(z, &coeffs, false);
        let series = self.bin("mulf", x, p);
        let (pc, one) = (self.f32c(0.327_591_1), self.f32c(1.0));
        let px = self.bin("mulf", ax, pc);
        let den = self.bin("addf", one, px);
        let t = self.bin("divf", one, den);
        let poly = self.horner(
            t,
            &[
                0.0,
                0.254_829_592,
                -0.284_496_736,
                1.421_413_741,
                -1.453_152_027,
                1.061_405_429,
            ],
            false,
        );
        let nz = self.unary("arith.negf", z);
        let e = self.exp(nz);
        let pe = self.bin("mulf", poly, e);
        let tail = self.bin("subf", one, pe);
        let tail = self.bin_named("math.copysign", tail, x);
        let limit = self.f32c(0.75);
        let small = self.fcmp(CmpF::Olt, ax, limit);
        let v = self.select(small, series, tail);
        let nan = self.fcmp(CmpF::Uno, x, x);
        self.select(nan, x, v)
    }

    /// `erf(x)` for GPUs, branch-free and without a division: `x P(x^2)` for |x| <
    /// 0.875, else `sign(x) (1 - exp(Q(t)))` with `t = min(|x|, 4)` (erf rounds to 1
    /// beyond), `P` of degree 5 and `Q` of degree 8 fitted by `tools/fit/erf.py`
    /// (minimax against double-precision erf/erfc: relative 1e-8 and absolute 5e-11
    /// before f32 rounding; 2.4 ulp after it, without FMA contraction). The `exp` stays
    /// a `math.exp` op for the target to lower (on NVIDIA GPUs one `ex2`). NaN
    /// propagates through either side, ±inf gives ±1. Against [`Math::erf`]: no IEEE
    /// division and no second exp scheme (about a third of the instructions).
    pub fn erf_gpu(&mut self, x: Value) -> Value {
        const P: [f64; 6] = [
            1.128_379_159e+00,
            -3.761_255_715e-01,
            1.128_252_419e-01,
            -2.679_395_504e-02,
            5.035_872_397e-03,
            -6.222_423_658e-04,
        ];
        const Q: [f64; 9] = [
            1.416_557_611e-04,
            -1.129_333_739e+00,
            -6.337_738_903e-01,
            -1.077_158_923e-01,
            2.466_247_095e-02,
            -3.938_879_071e-03,
            3.622_149_152e-04,
            -8.511_961_050e-06,
            -9.389_198_336e-07,
        ];
        let ax = self.unary("math.absf", x);
        let z = self.bin("mulf", x, x);
        let p = self.horner(z, &P, false);
        let series = self.bin("mulf", x, p);
        let four = self.f32c(4.0);
        let beyond = self.fcmp(CmpF::Ogt, ax, four);
        let t = self.select(beyond, four, ax);
        let q = self.horner(t, &Q, false);
        let e = self.unary("math.exp", q);
        let one = self.f32c(1.0);
        let tail = self.bin("subf", one, e);
        let tail = self.bin_named("math.copysign", tail, x);
        let limit = self.f32c(0.875);
        let small = self.fcmp(CmpF::Olt, ax, limit);
        self.select(small, series, tail)
    }

    /// `sin(x)` (`cosine` false) or `cos(x)` for GPUs: for |x| < 4096 in f32 — pi/2 in
    /// three parts (Cephes's pi/4 constants doubled: `j P1` exact, the reduction error
    /// near f32 rounding), Cephes's minimax polynomials on |r| <= pi/4 —, else
    /// [`Math::sin_cos`] in f64, behind an `scf.if`: SIMT threads run one side when their
    /// inputs agree, as they do in practice (libdevice's `sinf` branches the same way to
    /// its slow path). NaN and ±inf take the f64 side and give NaN.
    pub fn sin_cos_branching(&mut self, x: Value, cosine: bool) -> Value {
        let (fast, small) = self.sin_cos_fast(x, cosine);
        let f32t = self.b.f32_type();
        let branch = self.b.open_if_else(small, &[f32t]);
        self.b.else_branch(branch, &[fast]);
        let slow = self.sin_cos(x, cosine);
        self.b.close("scf.yield", &[slow])[0]
    }

    /// The f32 side of [`Math::sin_cos_branching`]: its value and whether it holds
    /// (|x| < 4096; false for NaN and ±inf).
    pub fn sin_cos_fast(&mut self, x: Value, cosine: bool) -> (Value, Value) {
        let ax = self.unary("math.absf", x);
        let limit = self.f32c(4096.0);
        let small = self.fcmp(CmpF::Olt, ax, limit);
        // Out-of-range inputs are reduced as 0 (their result is not used).
        let zero = self.f32c(0.0);
        let x = self.select(small, x, zero);
        let two_over_pi = self.f32c(std::f32::consts::FRAC_2_PI);
        let t = self.bin("mulf", x, two_over_pi);
        // |t| < 2608: rounded without a conversion; the bits' low two bits are the
        // quadrant's.
        let (j, q) = self.round_by_magic(t);
        let mut r = x;
        for part in [1.570_312_5_f32, 4.837_513e-4, 7.549_79e-8] {
            let p = self.f32c(part);
            let jp = self.bin("mulf", j, p);
            r = self.bin("subf", r, jp);
        }
        (self.minimax_sin_or_cos(r, q, cosine), small)
    }

    /// sin or cos of `x = q pi/2 + r` (`|r| <= pi/4`, i32 `q`) in f32 by one of Cephes's
    /// `sinf`/`cosf` minimax polynomials, `sin r = r + r z S(z)` or
    /// `cos r = 1 + z (-1/2 + z C(z))` with `z = r^2`, evaluated as one polynomial
    /// whose coefficients are selected by the quadrant's parity (libdevice's `sinf`
    /// does the same): `u + w P(z)` with `(u, w, P) = (r, r z, S)` or `(1, z, [-1/2, C])`;
    /// then the sign of quadrants 2 and 3. Relative error below 2^-24 before rounding.
    fn minimax_sin_or_cos(&mut self, r: Value, q: Value, cosine: bool) -> Value {
        // S with a zero top coefficient, so both polynomials have four.
        const SIN: [f64; 4] = [-1.666_665_461_1e-1, 8.332_160_873_6e-3, -1.951_529_589_1e-4, 0.0];
        const COS: [f64; 4] = [
            -0.5,
            4.166_664_568_298_827e-2,
            -1.388_731_625_493_765e-3,
            2.443_315_711_809_948e-5,
        ];
        let q = if cosine {
            let one = self.i32c(1);
            self.bin("addi", q, one)
        } else {
            q
        };
        let (one_i, two_i, zero_i) = (self.i32c(1), self.i32c(2), self.i32c(0));
        let odd_bit = self.bin("andi", q, one_i);
        let odd = self.b.cmpi(CmpI::Ne, odd_bit, zero_i);
        let neg_bit = self.bin("andi", q, two_i);
        let neg = self.b.cmpi(CmpI::Ne, neg_bit, zero_i);
        let z = self.bin("mulf", r, r);
        let (last_s, last_c) = (self.f32c(SIN[3] as f32), self.f32c(COS[3] as f32));
        let mut p = self.select(odd, last_c, last_s);
        for k in (0..3).rev() {
            let m = self.bin("mulf", p, z);
            let (cs, cc) = (self.f32c(SIN[k] as f32), self.f32c(COS[k] as f32));
            let coef = self.select(odd, cc, cs);
            p = self.bin("addf", m, coef);
        }
        let one = self.f32c(1.0);
        let u = self.select(odd, one, r);
        let rz = self.bin("mulf", r, z);
        let w = self.select(odd, z, rz);
        let wp = self.bin("mulf", w, p);
        let v = self.bin("addf", wp, u);
        let nv = self.unary("arith.negf", v);
        self.select(neg, nv, v)
    }

    /// `(sin r, cos r)` by their Taylor polynomials with `sin_terms` and `cos_terms` terms
    /// (in f64 when `wide`), for a reduced `|r| <= pi/4`.
    fn taylor_sin_cos(&mut self, r: Value, sin_terms: u32, cos_terms: u32, wide: bool) -> (Value, Value) {
        let z = self.bin("mulf", r, r);
        let fact = |n: u32| -> f64 { (1..=n).map(f64::from).product() };
        let sign = |n: u32| if n.is_multiple_of(2) { 1.0 } else { -1.0 };
        let sin_c: Vec<f64> = (0..sin_terms).map(|n| sign(n) / fact(2 * n + 1)).collect();
        let cos_c: Vec<f64> = (0..cos_terms).map(|n| sign(n) / fact(2 * n)).collect();
        let sp = self.horner(z, &sin_c, wide);
        let s = self.bin("mulf", r, sp);
        let c = self.horner(z, &cos_c, wide);
        (s, c)
    }

    /// sin or cos of `x = k pi/2 + r` from `s = sin r`, `c = cos r` and the i32 `q = k`
    /// (mod 4 is taken here): `q` 0 -> s, 1 -> c, 2 -> -s, 3 -> -c, one step later for
    /// cos.
    fn quadrant(&mut self, q: Value, s: Value, c: Value, cosine: bool) -> Value {
        let q = if cosine {
            let one = self.i32c(1);
            self.bin("addi", q, one)
        } else {
            q
        };
        let three = self.i32c(3);
        let q = self.bin("andi", q, three);
        let one = self.i32c(1);
        let odd_bit = self.bin("andi", q, one);
        let zero_i = self.i32c(0);
        let odd = self.b.cmpi(CmpI::Ne, odd_bit, zero_i);
        let v = self.select(odd, c, s);
        let two = self.i32c(2);
        let neg = self.b.cmpi(CmpI::Sge, q, two);
        let nv = self.unary("arith.negf", v);
        self.select(neg, nv, v)
    }

    /// `sin` / `cos` of several values with one branch: every fast side first (they
    /// interleave), then the exact f64 side for all of them only if one needs it —
    /// the GPU lowering's form for the slots of a block.
    pub fn sin_cos_group(&mut self, xs: &[Value], cosine: bool) -> Vec<Value> {
        let (mut fast, mut small) = (Vec::new(), Vec::new());
        for &x in xs {
            let (f, s) = self.sin_cos_fast(x, cosine);
            fast.push(f);
            small.push(s);
        }
        let mut all = small[0];
        for &s in &small[1..] {
            all = self.bin("andi", all, s);
        }
        let types = vec![self.b.f32_type(); xs.len()];
        let branch = self.b.open_if_else(all, &types);
        self.b.else_branch(branch, &fast);
        let mut exact = Vec::new();
        for (k, &x) in xs.iter().enumerate() {
            let slow = self.sin_cos(x, cosine);
            exact.push(self.select(small[k], fast[k], slow));
        }
        self.b.close("scf.yield", &exact)
    }

    /// `sin(x)` (`cosine` false) or `cos(x)`: reduced in f64 by multiples of pi/2
    /// (two-part Cody-Waite: exact for |x| < 2^20, absolute error about |x| 1.1e-16
    /// beyond, so within f32 rounding up to |x| ~ 1e9 and meaningless past ~1e15), then
    /// Taylor polynomials in f64 on |r| <= pi/4, picked by the quadrant. Exact to f64
    /// before the final rounding: the GPU's slow side.
    pub fn sin_cos(&mut self, x: Value, cosine: bool) -> Value {
        self.sin_cos_reduced_in_f64(x, cosine, true)
    }

    /// The CPU's `sin(x)` / `cos(x)`: [`Math::sin_cos`]'s f64 reduction (every |x|,
    /// no branch, so it vectorizes), then the reduced argument rounded to f32 and
    /// Cephes's f32 minimax polynomial ([`Math::minimax_sin_or_cos`]) instead of f64
    /// Taylor series — the polynomial was most of the work, at half the vector width in
    /// f64 (issue 18: pointwise_chain_100's 17 `sin` were 99.7% of its time).
    pub fn sin_cos_f32_polynomial(&mut self, x: Value, cosine: bool) -> Value {
        self.sin_cos_reduced_in_f64(x, cosine, false)
    }

    fn sin_cos_reduced_in_f64(&mut self, x: Value, cosine: bool, wide_polynomial: bool) -> Value {
        // Non-finite inputs become 0 for the reduction (no NaN or inf reaches `fptosi`)
        // and give NaN at the end, as sin(±inf) and sin(NaN) are.
        let ax = self.unary("math.absf", x);
        let inf = self.f32c(f32::INFINITY);
        let finite = self.fcmp(CmpF::Olt, ax, inf);
        let zero = self.f32c(0.0);
        let xn = self.select(finite, x, zero);
        let xd = self.as_f64(xn);
        let two_over_pi = self.f64c(std::f64::consts::FRAC_2_PI);
        let t = self.bin("mulf", xd, two_over_pi);
        let k = self.unary("math.roundeven", t);
        let (p1, p2) = (
            self.f64c(1.570_796_326_734_125_6),
            self.f64c(6.077_100_506_506_192e-11),
        );
        let a = self.bin("mulf", k, p1);
        let r = self.bin("subf", xd, a);
        let b = self.bin("mulf", k, p2);
        let r = self.bin("subf", r, b);
        let q = self.quadrant_of(k);
        let v = if wide_polynomial {
            let (s, c) = self.taylor_sin_cos(r, 7, 8, true);
            let v = self.quadrant(q, s, c, cosine);
            self.as_f32("arith.truncf", v)
        } else {
            // |r| <= pi/4 rounded to f32: a relative error of 2^-24 in r is one of at
            // most 2^-24 in sin r and (pi/4)^2 2^-24 / cos(pi/4) in cos r.
            let rf = self.as_f32("arith.truncf", r);
            self.minimax_sin_or_cos(rf, q, cosine)
        };
        let nan = self.f32c(f32::NAN);
        self.select(finite, v, nan)
    }

    /// `k mod 4` as i32 for an integral f64 `k` (computed in f64, so a huge `k` never
    /// overflows `fptosi`).
    fn quadrant_of(&mut self, k: Value) -> Value {
        let quarter = self.f64c(0.25);
        let kq = self.bin("mulf", k, quarter);
        let kf = self.unary("math.floor", kq);
        let four = self.f64c(4.0);
        let k4 = self.bin("mulf", kf, four);
        let q = self.bin("subf", k, k4);
        self.as_i32("arith.fptosi", q)
    }
}

/// Expands `math.<name>` on the f32 value `x`; `None` for functions kept as `math` ops.
pub fn expand(b: &mut Builder, name: &str, x: Value) -> Option<Value> {
    let mut lines = Math { b };
    Some(match name {
        "math.exp" => lines.exp(x),
        "math.log" => lines.log(x),
        "math.tanh" => lines.tanh(x),
        "math.erf" => lines.erf(x),
        "math.sin" => lines.sin_cos_f32_polynomial(x, false),
        "math.cos" => lines.sin_cos_f32_polynomial(x, true),
        _ => return None,
    })
}

/// Replaces every f32 `math.exp`/`log`/`tanh`/`erf`/`sin`/`cos` nested in `root` by its
/// expansion ([`expand`]), built before it at its location.
pub fn expand_math_ops(root: MlirOperation) {
    let ops = ir::collect_ops(root, |n| {
        matches!(
            n,
            "math.exp" | "math.log" | "math.tanh" | "math.erf" | "math.sin" | "math.cos"
        )
    });
    for op in ops {
        let x = ir::operand(op, 0);
        if unsafe { mlir_sys::mlirTypeIsAF32(ir::value_type(x)) } {
            let name = ir::op_name(op);
            fuselab_dialects::build::rewrite(op, |b| expand(b, &name, x));
        }
    }
}

/// The compute type of `ty`: f16 / bf16 are computed in f32.
pub fn widen(ty: MlirType) -> MlirType {
    unsafe {
        if mlir_sys::mlirTypeIsAF16(ty) || mlir_sys::mlirTypeIsABF16(ty) {
            mlir_sys::mlirF32TypeGet(mlir_sys::mlirTypeGetContext(ty))
        } else {
            ty
        }
    }
}

/// `attr` with a half-precision float value turned into the same f32 value (a constant
/// of a body computed in f32); other attributes unchanged.
pub fn widen_attr(attr: MlirAttribute) -> MlirAttribute {
    unsafe {
        if mlir_sys::mlirAttributeIsAFloat(attr) {
            let ty = mlir_sys::mlirAttributeGetType(attr);
            let wide = widen(ty);
            if !mlir_sys::mlirTypeEqual(ty, wide) {
                let v = mlir_sys::mlirFloatAttrGetValueDouble(attr);
                return mlir_sys::mlirFloatAttrDoubleGet(mlir_sys::mlirTypeGetContext(ty), wide, v);
            }
        }
        attr
    }
}
