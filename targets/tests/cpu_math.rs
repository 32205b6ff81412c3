//! Accuracy of the CPU code generator's vectorizable math (`cpu_math`): each function
//! compiled and run through the JIT on a grid of values over many magnitudes and the
//! special values, against f64 references.

use fuselab_dialects::{
    build::{Builder, CmpF, OwnedModule, Value},
    ir,
    types::{DType, TensorType},
    FuseContext,
};
use fuselab_targets::{
    cpu::{
        codegen_choices::CodegenChoices,
        jit::{HostBuffer, Jit},
        lower_loop_to_cpu::HostSignature,
    },
    math::{expand, ExpPrimitives},
};

/// Compiles `y[i] = f(x[i])` with the expansion of `name` and runs it on `xs`.
fn run(name: &str, xs: &[f32]) -> Vec<f32> {
    run_with(xs, |b, x| expand(b, name, x).expect("expanded"))
}

/// Compiles `y[i] = build(x[i])` and runs it on `xs`.
fn run_with(
    xs: &[f32],
    build: impl FnOnce(&mut Builder, fuselab_dialects::build::Value) -> fuselab_dialects::build::Value,
) -> Vec<f32> {
    run_compiled(xs, CodegenChoices::default(), build)
}

/// [`run_with`] under the JIT's `options`.
fn run_compiled(
    xs: &[f32],
    options: CodegenChoices,
    build: impl FnOnce(&mut Builder, fuselab_dialects::build::Value) -> fuselab_dialects::build::Value,
) -> Vec<f32> {
    let fuse = FuseContext::new().expect("context");
    let loc = unsafe { mlir_sys::mlirLocationUnknownGet(fuse.context().to_raw()) };
    let module = OwnedModule::new(loc);
    let mut b = Builder::new(loc);
    let n = xs.len() as i64;
    let f32t = b.f32_type();
    let m = b.flat_memref(n, f32t);
    let c_interface = b.unit_attr();
    let (main, entry) = b.function("main", &[m, m], true, &[("llvm.emit_c_interface", c_interface)]);
    ir::append(module.body(), main);
    b.push(entry);
    let args = ir::block_arguments(entry);
    let (c0, cn, c1) = (b.index(0), b.index(n), b.index(1));
    let i = b.open_for(c0, cn, c1, &[]).args[0];
    let x = b.load(args[0], i);
    let y = build(&mut b, x);
    b.store(y, args[1], i);
    b.close("scf.yield", &[]);
    b.close("func.return", &[]);
    let ty = TensorType {
        shape: vec![n],
        dtype: DType::F32,
    };
    let signature = HostSignature {
        entry: "main".into(),
        inputs: vec![ty.clone()],
        outputs: vec![ty],
    };
    let jit = Jit::compile_module(module, signature, options).expect("compiles");
    let mut ins = vec![HostBuffer::F32(xs.to_vec())];
    let mut outs = jit.output_buffers();
    jit.call(&mut ins, &mut outs).expect("runs");
    match &outs[0] {
        HostBuffer::F32(v) => v.clone(),
        _ => unreachable!("f32 output"),
    }
}

/// Values over many magnitudes, both signs, and the special values.
fn grid() -> Vec<f32> {
    let mut xs = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE / 4.0,
    ];
    let mut v = 1e-6f32;
    while v < 200.0 {
        xs.push(v);
        xs.push(-v);
        v *= 1.013;
    }
    for k in 0..4000 {
        xs.push(-20.0 + k as f32 * 0.01);
    }
    xs.extend([88.5, 88.8, 89.0, -87.0, -88.0, -104.0, 1e5, -3e4, 1e30, 3e38]);
    // exp's subnormal range and its underflow to 0 (below ln(2^-150) = -103.97208).
    let mut x = -87.0f32;
    while x > -106.0 {
        xs.push(x);
        x -= 0.37;
    }
    xs.extend([-103.97, -103.972, -103.975, -103.98]);
    xs
}

/// Checks `name` against the f64 function within `ulps` f32 ulps of the true value
/// (or `abs` absolute), with NaN and infinities matching exactly.
fn check(name: &str, reference: fn(f64) -> f64, ulps: f64, abs: f64, max_x: f32) {
    let xs: Vec<f32> = grid()
        .into_iter()
        .filter(|x| x.is_nan() || x.abs() <= max_x)
        .collect();
    let got = run(name, &xs);
    compare(name, &xs, &got, reference, ulps, abs);
}

fn compare(name: &str, xs: &[f32], got: &[f32], reference: fn(f64) -> f64, ulps: f64, abs: f64) {
    for (x, g) in xs.iter().zip(got) {
        let want = reference(f64::from(*x));
        if want.is_nan() || !want.is_finite() || want.abs() > f64::from(f32::MAX) {
            let w = want as f32;
            assert!(
                (w.is_nan() && g.is_nan()) || w == *g,
                "{name}({x}) = {g}, want {w}"
            );
            continue;
        }
        let err = (f64::from(*g) - want).abs();
        let ulp = f64::from(f32::EPSILON) * want.abs().max(f64::from(f32::MIN_POSITIVE));
        assert!(
            err <= ulps * ulp || err <= abs,
            "{name}({x}) = {g}, want {want} (error {err:e}, {:.1} ulp)",
            err / ulp
        );
    }
}

#[test]
fn exp_is_accurate_and_handles_special_values() {
    // No absolute slack: below the smallest normal the result must be the right
    // subnormal (within 4 subnormal ulps), and 0 only where exp rounds to 0.
    check("math.exp", f64::exp, 4.0, 0.0, f32::INFINITY);
}

/// [`Math::exp_base2`]'s primitives on the CPU: an exact `exp2`, the round-down FMA as
/// `floor(a m) + c` (exact for the integer `c` and `a m` in [0, 252] that the scheme
/// gives it), saturation by compare and select.
struct CpuPrimitives;

impl ExpPrimitives for CpuPrimitives {
    fn pow2(&self, b: &mut Builder, f: Value) -> Value {
        b.unary("math.exp2", f)
    }

    fn fma_down(&self, b: &mut Builder, a: Value, m: Value, c: Value) -> Value {
        let am = b.binary("arith.mulf", a, m);
        let down = b.unary("math.floor", am);
        b.binary("arith.addf", down, c)
    }

    fn saturate(&self, b: &mut Builder, x: Value) -> Value {
        let (zero, one) = (b.f32(0.0), b.f32(1.0));
        let below = b.cmpf(CmpF::Ult, x, zero);
        let x = b.select(below, zero, x);
        let above = b.cmpf(CmpF::Ogt, x, one);
        b.select(above, one, x)
    }
}

/// The GPU's exact-argument exp ([`Math::exp_base2`]) with an exact base-2 exponential
/// (libm's `exp2f` here, `ex2.approx.ftz.f32` on the device): the reduction, the clamp
/// and the scaling keep exp within 2 ulp, with subnormals, 0, ±inf and NaN right.
#[test]
fn base2_exp_reduces_the_argument_exactly() {
    let xs: Vec<f32> = grid();
    let got = run_with(&xs, |b, x| {
        fuselab_targets::math::Math { b }.exp_base2(x, &CpuPrimitives)
    });
    compare("exp_base2", &xs, &got, f64::exp, 2.0, 0.0);
}

#[test]
fn log_is_accurate_and_handles_special_values() {
    check("math.log", f64::ln, 4.0, 0.0, f32::INFINITY);
}

#[test]
fn tanh_is_accurate_and_handles_special_values() {
    check("math.tanh", f64::tanh, 8.0, 1e-7, f32::INFINITY);
}

/// The GPU's tanh: [`Math::tanh_from_exp`] over the GPU's exp ([`Math::exp_base2`],
/// libm's `exp2f` standing for `ex2.approx.ftz.f32`): as accurate as the CPU's.
#[test]
fn gpu_tanh_is_accurate_and_handles_special_values() {
    let xs = grid();
    let got = run_with(&xs, |b, x| {
        fuselab_targets::math::Math { b }.tanh_from_exp(x, |m, a| m.exp_base2(a, &CpuPrimitives))
    });
    compare("tanh_gpu", &xs, &got, f64::tanh, 8.0, 1e-7);
}

#[test]
fn erf_is_accurate_and_handles_special_values() {
    check("math.erf", libm::erf, 8.0, 2e-7, f32::INFINITY);
}

/// The GPU's erf ([`Math::erf_gpu`], its exp lowered as the CPU lowers `math.exp`):
/// within 4 ulp (2^-23 relative) everywhere, ±1 at ±inf, NaN for NaN, -0 for -0.
#[test]
fn gpu_erf_is_accurate_and_handles_special_values() {
    let xs = grid();
    let got = run_with(&xs, |b, x| fuselab_targets::math::Math { b }.erf_gpu(x));
    compare("erf_gpu", &xs, &got, libm::erf, 4.0, 0.0);
    let got = run_with(&[-0.0], |b, x| fuselab_targets::math::Math { b }.erf_gpu(x));
    assert!(
        got[0] == 0.0 && got[0].is_sign_negative(),
        "erf_gpu(-0) = {}",
        got[0]
    );
}

#[test]
fn sin_and_cos_are_accurate_and_handle_special_values() {
    // Range-reduced exactly up to 2^20; beyond it f32 inputs are spaced wider than
    // a period anyway.
    check("math.sin", f64::sin, 4.0, 1e-7, 1e6);
    check("math.cos", f64::cos, 4.0, 1e-7, 1e6);
    let got = run("math.sin", &[f32::INFINITY, f32::NAN, f32::NEG_INFINITY]);
    assert!(got.iter().all(|v| v.is_nan()), "{got:?}");
    // Beyond 2^20 the reduction error grows like |x| 1.1e-16.
    for x in [3.0e6f32, 1.0e8, 1.0e9] {
        let got = run("math.sin", &[x])[0];
        let want = f64::from(x).sin();
        assert!(
            (f64::from(got) - want).abs() <= 2e-7,
            "sin({x}) = {got}, want {want}"
        );
    }
}

/// Checks sin (`build(.., false)`) and cos (`build(.., true)`) on `xs` within 4 ulp or
/// 1e-7, as `sin_and_cos_are_accurate_and_handle_special_values` does for the f64 form.
fn check_sin_cos(
    xs: &[f32],
    build: impl Fn(&mut Builder, fuselab_dialects::build::Value, bool) -> fuselab_dialects::build::Value,
) {
    for (cosine, reference) in [(false, f64::sin as fn(f64) -> f64), (true, f64::cos)] {
        let got = run_with(xs, |b, x| build(b, x, cosine));
        compare(if cosine { "cos" } else { "sin" }, xs, &got, reference, 4.0, 1e-7);
    }
}

/// The GPU target's sin/cos (f32 below |x| = 4096, f64 beyond) meets the same bound,
/// on both sides of the branch: the grid's values, values just below and above 4096,
/// up to 1e6, and the special values.
#[test]
fn branching_sin_and_cos_are_accurate() {
    let mut xs: Vec<f32> = grid()
        .into_iter()
        .filter(|x| x.is_nan() || x.abs() <= 1e6)
        .collect();
    for k in 0..2000 {
        let x = 4000.0 + k as f32 * 0.1;
        xs.push(x);
        xs.push(-x);
    }
    check_sin_cos(&xs, |b, x, cosine| {
        fuselab_targets::math::Math { b }.sin_cos_branching(x, cosine)
    });
}

/// The grouped form (one branch for several values): a group whose other member is
/// large (5000, the exact side for all) and one whose other member is small (the fast
/// side for all unless x itself is large) both give sin(x) and cos(x) to the bound.
#[test]
fn grouped_sin_and_cos_are_accurate_on_both_branches() {
    let mut xs: Vec<f32> = grid()
        .into_iter()
        .filter(|x| x.is_nan() || x.abs() <= 1e6)
        .collect();
    xs.extend([4095.9f32, 4096.0, -4096.5, 5000.0]);
    for partner in [5000.0f32, 0.5] {
        check_sin_cos(&xs, |b, x, cosine| {
            let other = b.f32(partner);
            fuselab_targets::math::Math { b }.sin_cos_group(&[x, other], cosine)[0]
        });
    }
}

/// `x * x - (1 + 2^-11)` at `x = 1 + 2^-12`: the exact product is 1 + 2^-11 + 2^-24,
/// whose f32 rounding (a tie, to even) drops the 2^-24. With multiply-add fusion (the
/// JIT's default, where the host has FMA) one rounding keeps it; without, 0.
#[test]
fn multiply_add_fusion_reaches_the_compiled_code() {
    let x = 1.0 + 2.0f32.powi(-12);
    let c = 1.0 + 2.0f32.powi(-11);
    let body = |b: &mut Builder, x: Value| {
        let f32t = b.f32_type();
        let square = b.binary("arith.mulf", x, x);
        let c = b.float_attr(f32t, c as f64);
        let c = b.constant(c, f32t);
        b.binary("arith.subf", square, c)
    };
    let fused = CodegenChoices {
        fp_fusion: true,
        ..CodegenChoices::default()
    };
    let unfused = CodegenChoices {
        fp_fusion: false,
        ..CodegenChoices::default()
    };
    let want = if host_has_fma() { 2.0f32.powi(-24) } else { 0.0 };
    assert_eq!(run_compiled(&[x], fused, body), vec![want]);
    assert_eq!(run_compiled(&[x], unfused, body), vec![0.0]);
    // The vector width changes no value.
    for bits in [None, Some(256), Some(512)] {
        let options = CodegenChoices {
            vector_bits: bits,
            ..fused
        };
        assert_eq!(run_compiled(&[x], options, body), vec![want], "{bits:?}");
    }
}

#[cfg(target_arch = "x86_64")]
fn host_has_fma() -> bool {
    std::arch::is_x86_feature_detected!("fma")
}

#[cfg(not(target_arch = "x86_64"))]
fn host_has_fma() -> bool {
    false
}
