//! Vectorizable f32 `math` functions for the CPU code generator.
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

use std::fmt::Write as _;

/// ln 2 split for Cody-Waite range reduction: `LN2_HI` has few significant bits, so
/// `n * LN2_HI` is exact for the exponents used, and `LN2_HI + LN2_LO` is ln 2 to f32
/// precision.
const LN2_HI: f32 = 0.693_359_4;
/// See [`LN2_HI`].
const LN2_LO: f32 = -2.121_944_4e-4;

/// Writes SSA lines into the generated function.
pub struct Lines<'a> {
    /// The function body being written.
    pub out: &'a mut String,
    /// The generator's fresh-name counter.
    pub fresh: &'a mut usize,
    /// Indentation of the lines.
    pub indent: &'a str,
}

impl Lines<'_> {
    /// `%m<N> = rhs`; returns the new name.
    fn emit(&mut self, rhs: &str) -> String {
        *self.fresh += 1;
        let name = format!("%m{}", self.fresh);
        let _ = writeln!(self.out, "{}{name} = {rhs}", self.indent);
        name
    }

    fn f32c(&mut self, v: f32) -> String {
        self.emit(&format!("arith.constant 0x{:08X} : f32", v.to_bits()))
    }

    fn f64c(&mut self, v: f64) -> String {
        self.emit(&format!("arith.constant 0x{:016X} : f64", v.to_bits()))
    }

    fn i32c(&mut self, v: i32) -> String {
        self.emit(&format!("arith.constant {v} : i32"))
    }

    fn bin(&mut self, op: &str, a: &str, b: &str, ty: &str) -> String {
        self.emit(&format!("arith.{op} {a}, {b} : {ty}"))
    }

    fn fcmp(&mut self, pred: &str, a: &str, b: &str, ty: &str) -> String {
        self.emit(&format!("arith.cmpf {pred}, {a}, {b} : {ty}"))
    }

    fn select(&mut self, c: &str, a: &str, b: &str, ty: &str) -> String {
        self.emit(&format!("arith.select {c}, {a}, {b} : {ty}"))
    }

    /// `c[0] + x*(c[1] + x*(c[2] + ...))` (Horner).
    fn horner(&mut self, x: &str, coeffs: &[f64], ty: &str) -> String {
        let constant = |l: &mut Self, v: f64| {
            if ty == "f64" {
                l.f64c(v)
            } else {
                l.f32c(v as f32)
            }
        };
        let (last, rest) = coeffs.split_last().expect("a polynomial has coefficients");
        let mut acc = constant(self, *last);
        for &c in rest.iter().rev() {
            let m = self.bin("mulf", &acc, x, ty);
            let k = constant(self, c);
            acc = self.bin("addf", &m, &k, ty);
        }
        acc
    }

    /// NaN inputs replaced by 0 (so no NaN reaches `fptosi`, whose result would be
    /// poison); the caller selects NaN back at the end.
    fn unnan(&mut self, x: &str) -> (String, String) {
        let nan = self.fcmp("uno", x, x, "f32");
        let zero = self.f32c(0.0);
        (self.select(&nan, &zero, x, "f32"), nan)
    }

    /// `2^n` for an i32 `n` in [-126, 128], as two exact power-of-two factors.
    fn exp2i(&mut self, n: &str) -> (String, String) {
        let one = self.i32c(1);
        let bias = self.i32c(127);
        let shift = self.i32c(23);
        let half = self.bin("shrsi", n, &one, "i32");
        let other = self.bin("subi", n, &half, "i32");
        let mut factor = |k: &str| {
            let biased = self.bin("addi", k, &bias, "i32");
            let bits = self.bin("shli", &biased, &shift, "i32");
            self.emit(&format!("arith.bitcast {bits} : i32 to f32"))
        };
        (factor(&half), factor(&other))
    }

    /// `exp(x)`: x = n ln2 + r, |r| <= ln2/2, exp(r) by its degree-7 Taylor polynomial
    /// (error < 1e-8 relative), times 2^n as two normal factors, so results below the
    /// smallest normal are IEEE subnormals (as libm and PyTorch's eager CPU kernels give;
    /// no flush to zero), and results below half the smallest subnormal are 0. (Clamping
    /// at the smallest normal instead made every softmax entry of a far-below-max score
    /// 1.2e-38, subnormal after the division, and the following kernels slow.)
    pub fn exp(&mut self, x: &str) -> String {
        const HI: f32 = 88.722_84; // ln(f32::MAX)
        const LO: f32 = -103.972_08; // ln(2^-150): below, exp(x) rounds to 0
        let (xn, nan) = self.unnan(x);
        let (lo, hi) = (self.f32c(LO), self.f32c(HI));
        let clamped = self.bin("maximumf", &xn, &lo, "f32");
        let clamped = self.bin("minimumf", &clamped, &hi, "f32");
        let log2e = self.f32c(std::f32::consts::LOG2_E);
        let t = self.bin("mulf", &clamped, &log2e, "f32");
        let n = self.emit(&format!("math.roundeven {t} : f32"));
        let (l2hi, l2lo) = (self.f32c(LN2_HI), self.f32c(LN2_LO));
        let a = self.bin("mulf", &n, &l2hi, "f32");
        let r = self.bin("subf", &clamped, &a, "f32");
        let b = self.bin("mulf", &n, &l2lo, "f32");
        let r = self.bin("subf", &r, &b, "f32");
        let inv_fact: Vec<f64> = (0..8).map(|k| 1.0 / (1..=k).product::<u64>() as f64).collect();
        let p = self.horner(&r, &inv_fact, "f32");
        let ni = self.emit(&format!("arith.fptosi {n} : f32 to i32"));
        let (s1, s2) = self.exp2i(&ni);
        let v = self.bin("mulf", &p, &s1, "f32");
        let v = self.bin("mulf", &v, &s2, "f32");
        let over = self.fcmp("ogt", x, &hi, "f32");
        let inf = self.f32c(f32::INFINITY);
        let v = self.select(&over, &inf, &v, "f32");
        let under = self.fcmp("olt", x, &lo, "f32");
        let zero = self.f32c(0.0);
        let v = self.select(&under, &zero, &v, "f32");
        self.select(&nan, x, &v, "f32")
    }

    /// `log(x)`: x = m 2^e with m in [sqrt(1/2), sqrt(2)); log(m) = 2 atanh(s),
    /// s = (m-1)/(m+1), by its odd series to s^9 (|s| <= 0.172, error < 1e-9).
    pub fn log(&mut self, x: &str) -> String {
        let min_normal = self.f32c(f32::MIN_POSITIVE);
        let small = self.fcmp("olt", x, &min_normal, "f32");
        let two23 = self.f32c(8_388_608.0);
        let scaled = self.bin("mulf", x, &two23, "f32");
        let xs = self.select(&small, &scaled, x, "f32");
        let bits = self.emit(&format!("arith.bitcast {xs} : f32 to i32"));
        let shift = self.i32c(23);
        let biased = self.bin("shrui", &bits, &shift, "i32");
        let bias = self.i32c(127);
        let e = self.bin("subi", &biased, &bias, "i32");
        let (mask, one_bits) = (self.i32c(0x007F_FFFF), self.i32c(0x3F80_0000));
        let mant = self.bin("andi", &bits, &mask, "i32");
        let mant = self.bin("ori", &mant, &one_bits, "i32");
        let m = self.emit(&format!("arith.bitcast {mant} : i32 to f32"));
        let sqrt2 = self.f32c(std::f32::consts::SQRT_2);
        let big = self.fcmp("ogt", &m, &sqrt2, "f32");
        let half = self.f32c(0.5);
        let mh = self.bin("mulf", &m, &half, "f32");
        let m = self.select(&big, &mh, &m, "f32");
        let one_i = self.i32c(1);
        let e1 = self.bin("addi", &e, &one_i, "i32");
        let e = self.select(&big, &e1, &e, "i32");
        let k23 = self.i32c(23);
        let e23 = self.bin("subi", &e, &k23, "i32");
        let e = self.select(&small, &e23, &e, "i32");
        let one = self.f32c(1.0);
        let f = self.bin("subf", &m, &one, "f32");
        let two = self.f32c(2.0);
        let d = self.bin("addf", &f, &two, "f32");
        let s = self.bin("divf", &f, &d, "f32");
        let z = self.bin("mulf", &s, &s, "f32");
        let series = self.horner(&z, &[2.0, 2.0 / 3.0, 2.0 / 5.0, 2.0 / 7.0, 2.0 / 9.0], "f32");
        let logm = self.bin("mulf", &s, &series, "f32");
        let ef = self.emit(&format!("arith.sitofp {e} : i32 to f32"));
        let (l2hi, l2lo) = (self.f32c(LN2_HI), self.f32c(LN2_LO));
        let lo = self.bin("mulf", &ef, &l2lo, "f32");
        let v = self.bin("addf", &logm, &lo, "f32");
        let hi = self.bin("mulf", &ef, &l2hi, "f32");
        let v = self.bin("addf", &v, &hi, "f32");
        // log(0) = -inf, log(+inf) = +inf, log(x < 0) = NaN, log(NaN) = NaN.
        let zero = self.f32c(0.0);
        let (ninf, pinf) = (self.f32c(f32::NEG_INFINITY), self.f32c(f32::INFINITY));
        let is_zero = self.fcmp("oeq", x, &zero, "f32");
        let v = self.select(&is_zero, &ninf, &v, "f32");
        let is_inf = self.fcmp("oeq", x, &pinf, "f32");
        let v = self.select(&is_inf, &pinf, &v, "f32");
        let nan = self.f32c(f32::NAN);
        let bad = self.fcmp("ult", x, &zero, "f32");
        self.select(&bad, &nan, &v, "f32")
    }

    /// `tanh(x)`: odd Taylor polynomial for |x| < 0.3, else sign(x) (1-t)/(1+t) with
    /// t = exp(-2|x|).
    pub fn tanh(&mut self, x: &str) -> String {
        let ax = self.emit(&format!("math.absf {x} : f32"));
        let m2 = self.f32c(-2.0);
        let arg = self.bin("mulf", &ax, &m2, "f32");
        let t = self.exp(&arg);
        let one = self.f32c(1.0);
        let num = self.bin("subf", &one, &t, "f32");
        let den = self.bin("addf", &one, &t, "f32");
        let big = self.bin("divf", &num, &den, "f32");
        let big = self.emit(&format!("math.copysign {big}, {x} : f32"));
        let z = self.bin("mulf", x, x, "f32");
        let coeffs = [1.0, -1.0 / 3.0, 2.0 / 15.0, -17.0 / 315.0, 62.0 / 2835.0];
        let p = self.horner(&z, &coeffs, "f32");
        let small_v = self.bin("mulf", x, &p, "f32");
        let limit = self.f32c(0.3);
        let small = self.fcmp("olt", &ax, &limit, "f32");
        self.select(&small, &small_v, &big, "f32")
    }

    /// `erf(x)`: Maclaurin series for |x| < 0.75 (to x^17), else Abramowitz & Stegun
    /// 7.1.26 (absolute error < 1.5e-7).
    pub fn erf(&mut self, x: &str) -> String {
        let ax = self.emit(&format!("math.absf {x} : f32"));
        // 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        let coeffs: Vec<f64> = (0..9u32)
            .map(|n| {
                let fact: f64 = (1..=n).map(f64::from).product();
                let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
                std::f64::consts::FRAC_2_SQRT_PI * sign / (fact * f64::from(2 * n + 1))
            })
            .collect();
        let z = self.bin("mulf", x, x, "f32");
        let p = self.horner(&z, &coeffs, "f32");
        let series = self.bin("mulf", x, &p, "f32");
        let (pc, one) = (self.f32c(0.327_591_1), self.f32c(1.0));
        let px = self.bin("mulf", &ax, &pc, "f32");
        let den = self.bin("addf", &one, &px, "f32");
        let t = self.bin("divf", &one, &den, "f32");
        let poly = self.horner(
            &t,
            &[
                0.0,
                0.254_829_592,
                -0.284_496_736,
                1.421_413_741,
                -1.453_152_027,
                1.061_405_429,
            ],
            "f32",
        );
        let nz = self.emit(&format!("arith.negf {z} : f32"));
        let e = self.exp(&nz);
        let pe = self.bin("mulf", &poly, &e, "f32");
        let tail = self.bin("subf", &one, &pe, "f32");
        let tail = self.emit(&format!("math.copysign {tail}, {x} : f32"));
        let limit = self.f32c(0.75);
        let small = self.fcmp("olt", &ax, &limit, "f32");
        let v = self.select(&small, &series, &tail, "f32");
        let nan = self.fcmp("uno", x, x, "f32");
        self.select(&nan, x, &v, "f32")
    }

    /// `sin(x)` (`cosine` false) or `cos(x)`: reduced in f64 by multiples of pi/2
    /// (two-part Cody-Waite: exact for |x| < 2^20, absolute error about |x| 1.1e-16
    /// beyond, so within f32 rounding up to |x| ~ 1e9 and meaningless past ~1e15), then
    /// Taylor polynomials in f64 on |r| <= pi/4, picked by the quadrant.
    pub fn sin_cos(&mut self, x: &str, cosine: bool) -> String {
        // Non-finite inputs become 0 for the reduction (no NaN or inf reaches `fptosi`)
        // and give NaN at the end, as sin(±inf) and sin(NaN) are.
        let ax = self.emit(&format!("math.absf {x} : f32"));
        let inf = self.f32c(f32::INFINITY);
        let finite = self.fcmp("olt", &ax, &inf, "f32");
        let zero = self.f32c(0.0);
        let xn = self.select(&finite, x, &zero, "f32");
        let xd = self.emit(&format!("arith.extf {xn} : f32 to f64"));
        let two_over_pi = self.f64c(std::f64::consts::FRAC_2_PI);
        let t = self.bin("mulf", &xd, &two_over_pi, "f64");
        let k = self.emit(&format!("math.roundeven {t} : f64"));
        let (p1, p2) = (
            self.f64c(1.570_796_326_734_125_6),
            self.f64c(6.077_100_506_506_192e-11),
        );
        let a = self.bin("mulf", &k, &p1, "f64");
        let r = self.bin("subf", &xd, &a, "f64");
        let b = self.bin("mulf", &k, &p2, "f64");
        let r = self.bin("subf", &r, &b, "f64");
        let z = self.bin("mulf", &r, &r, "f64");
        let fact = |n: u32| -> f64 { (1..=n).map(f64::from).product() };
        let sin_c: Vec<f64> = (0..7u32)
            .map(|n| if n % 2 == 0 { 1.0 } else { -1.0 } / fact(2 * n + 1))
            .collect();
        let cos_c: Vec<f64> = (0..8u32)
            .map(|n| if n % 2 == 0 { 1.0 } else { -1.0 } / fact(2 * n))
            .collect();
        let sp = self.horner(&z, &sin_c, "f64");
        let s = self.bin("mulf", &r, &sp, "f64");
        let c = self.horner(&z, &cos_c, "f64");
        // Quadrant q = k mod 4 (computed in f64, so huge k never overflows fptosi).
        let quarter = self.f64c(0.25);
        let kq = self.bin("mulf", &k, &quarter, "f64");
        let kf = self.emit(&format!("math.floor {kq} : f64"));
        let four = self.f64c(4.0);
        let k4 = self.bin("mulf", &kf, &four, "f64");
        let q = self.bin("subf", &k, &k4, "f64");
        let q = self.emit(&format!("arith.fptosi {q} : f64 to i32"));
        let q = if cosine {
            let one = self.i32c(1);
            self.bin("addi", &q, &one, "i32")
        } else {
            q
        };
        let three = self.i32c(3);
        let q = self.bin("andi", &q, &three, "i32");
        // q: 0 -> sin r, 1 -> cos r, 2 -> -sin r, 3 -> -cos r
        let one = self.i32c(1);
        let odd_bit = self.bin("andi", &q, &one, "i32");
        let zero_i = self.i32c(0);
        let odd = self.emit(&format!("arith.cmpi ne, {odd_bit}, {zero_i} : i32"));
        let v = self.select(&odd, &c, &s, "f64");
        let two = self.i32c(2);
        let neg = self.emit(&format!("arith.cmpi sge, {q}, {two} : i32"));
        let nv = self.emit(&format!("arith.negf {v} : f64"));
        let v = self.select(&neg, &nv, &v, "f64");
        let v = self.emit(&format!("arith.truncf {v} : f64 to f32"));
        let nan = self.f32c(f32::NAN);
        self.select(&finite, &v, &nan, "f32")
    }
}

/// Expands `math.<name>` on the f32 value `x`; `None` for functions kept as `math` ops.
pub fn expand(lines: &mut Lines<'_>, name: &str, x: &str) -> Option<String> {
    Some(match name {
        "math.exp" => lines.exp(x),
        "math.log" => lines.log(x),
        "math.tanh" => lines.tanh(x),
        "math.erf" => lines.erf(x),
        "math.sin" => lines.sin_cos(x, false),
        "math.cos" => lines.sin_cos(x, true),
        _ => return None,
    })
}
