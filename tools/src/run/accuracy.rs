//! `fuse-run --accuracy`: rounding error against exact arithmetic.
//!
//! The aten interpreter runs the function a second time with float roundings off
//! ([`with_exact_floats`]: every f32/f16/bf16 result keeps its f64 value), on the same
//! inputs. Each float output's difference from that exact result (RMS and largest) is the
//! rounding error of eager PyTorch (the oracle, which rounds after every op) and of each
//! strategy's code. Ascend's rule — half values computed in fp32 inside a fused kernel,
//! rounded once where stored — must make the fused error at most the eager one
//! (issue 17, item 4); a strategy whose RMS error is larger is reported `WORSE`.

use fuselab_exec::{aten::run_aten, tensor::with_exact_floats, ExecError, Tensor};
use mlir_sys::MlirOperation;
use std::cmp::Ordering;

/// The outputs of `func` on `inputs` in exact arithmetic.
pub(crate) fn exact_outputs(func: MlirOperation, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError> {
    with_exact_floats(|| run_aten(func, inputs))
}

/// A float output's rounding error against exact arithmetic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Error {
    /// Root mean square of got − exact: the aggregate the verdict compares (a maximum
    /// is dominated by the one rounding every result takes where it is stored).
    pub rms: f64,
    /// Largest |got − exact|.
    pub max: f64,
}

/// The error of a float output against `exact` (`None` for integer and bool outputs,
/// which have no rounding error). A NaN or infinity where the other has something else
/// is an infinite error; matching NaNs and equal infinities count 0.
pub(crate) fn error(got: &Tensor, exact: &Tensor) -> Option<Error> {
    if !got.dtype.is_float() || got.shape != exact.shape {
        return None;
    }
    let diffs: Vec<f64> = got
        .data
        .iter()
        .zip(&exact.data)
        .map(|(&g, &e)| match (g.is_nan(), e.is_nan()) {
            (true, true) => 0.0,
            (true, false) | (false, true) => f64::INFINITY,
            _ if g == e => 0.0,
            _ => (g - e).abs(),
        })
        .collect();
    let n = diffs.len().max(1) as f64;
    Some(Error {
        rms: (diffs.iter().map(|d| d * d).sum::<f64>() / n).sqrt(),
        max: diffs.iter().copied().fold(0.0, f64::max),
    })
}

/// Inductor's accuracy rule after a failed elementwise check (`torch._dynamo.utils.same`
/// with an fp64 reference): the compiled output still passes when its RMS error against
/// the fp64 result is at most `multiplier` times eager's plus `tol / 10` — multiplier 3
/// for f16/bf16 outputs and for outputs of fewer than 1,000 elements, 2 otherwise; `tol`
/// the dtype's absolute tolerance. A fused kernel that computes more accurately than
/// eager (fp32 inside, one rounding) passes though it differs from eager; one that is
/// further from the exact result than twice eager's error fails. Returns the two RMS
/// errors where the rule passes `got`; `None` also where eager's error is not finite.
pub(crate) fn passes_fp64_rule(got: &Tensor, eager: &Tensor, exact: &Tensor) -> Option<(f64, f64)> {
    let (res, reference) = (error(got, exact)?, error(eager, exact)?);
    // Stricter than torch: where eager's own error is not finite (an overflow the exact
    // run does not have), every result would pass; such an output stays failed.
    if !reference.rms.is_finite() {
        return None;
    }
    let multiplier = if got.dtype.is_half() || got.data.len() < 1000 {
        3.0
    } else {
        2.0
    };
    let tol = fuselab_exec::inputs::tolerance(got.dtype).0;
    (res.rms <= multiplier * reference.rms + tol / 10.0).then_some((res.rms, reference.rms))
}

/// Per output of `outputs`, its error against `exact` ([`error`]).
pub(crate) fn errors(outputs: &[Tensor], exact: &[Tensor]) -> Vec<Option<Error>> {
    outputs.iter().zip(exact).map(|(o, e)| error(o, e)).collect()
}

/// How a strategy's error compares with eager's.
fn verdict(error: f64, eager: f64) -> &'static str {
    match error.partial_cmp(&eager) {
        Some(Ordering::Less) => "better",
        Some(Ordering::Equal) => "same",
        _ => "WORSE",
    }
}

/// The report's line for one output `index`: eager's error, then each
/// `(strategy, error)` with its verdict (on the RMS).
pub(crate) fn report_line(index: usize, eager: Error, strategies: &[(&str, Error)]) -> String {
    let mut line = format!(
        "  accuracy output #{index} vs exact, rms (max): eager {:.3e} ({:.3e})",
        eager.rms, eager.max
    );
    for (name, e) in strategies {
        line.push_str(&format!(
            ", {name} {:.3e} ({:.3e}) {}",
            e.rms,
            e.max,
            verdict(e.rms, eager.rms)
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use fuselab_dialects::types::DType;

    #[test]
    fn errors_measure_rms_and_largest_difference_and_flag_nans() {
        let exact = Tensor::new(vec![3], DType::F32, vec![1.0, 2.0, f64::NAN]);
        let got = Tensor::new(vec![3], DType::F32, vec![1.5, 1.75, f64::NAN]);
        // rms = sqrt((0.25 + 0.0625 + 0) / 3).
        let e = error(&got, &exact).expect("a float output");
        assert_eq!(e.max, 0.5);
        assert!((e.rms - (0.3125f64 / 3.0).sqrt()).abs() < 1e-15);
        let nan = Tensor::new(vec![3], DType::F32, vec![f64::NAN, 2.0, f64::NAN]);
        assert_eq!(error(&nan, &exact).map(|e| e.max), Some(f64::INFINITY));
        let ints = Tensor::new(vec![1], DType::I64, vec![3.0]);
        assert_eq!(error(&ints, &ints), None);
    }

    #[test]
    fn verdicts_order_errors() {
        assert_eq!(verdict(1.0, 2.0), "better");
        assert_eq!(verdict(2.0, 2.0), "same");
        assert_eq!(verdict(3.0, 2.0), "WORSE");
        assert_eq!(verdict(f64::NAN, 2.0), "WORSE");
        let e = |rms, max| Error { rms, max };
        let line = report_line(
            0,
            e(2.0, 4.0),
            &[("inductor", e(2.0, 3.0)), ("ascend", e(1.0, 5.0))],
        );
        assert_eq!(
            line,
            "  accuracy output #0 vs exact, rms (max): eager 2.000e0 (4.000e0), \
             inductor 2.000e0 (3.000e0) same, ascend 1.000e0 (5.000e0) better"
        );
    }

    #[test]
    fn exact_floats_keep_what_rounding_loses() {
        // 1 + 2^-12 is 1 in f16; exactly it is not.
        let v = 1.0 + 2f64.powi(-12);
        let rounded = Tensor::new(vec![1], DType::F16, vec![v]);
        let exact = with_exact_floats(|| Tensor::new(vec![1], DType::F16, vec![v]));
        assert_eq!(rounded.data, vec![1.0]);
        assert_eq!(exact.data, vec![v]);
        // Integer conversions still truncate; the switch is off again afterwards.
        assert_eq!(
            with_exact_floats(|| Tensor::new(vec![1], DType::I64, vec![2.5])).data,
            vec![2.0]
        );
        assert_eq!(Tensor::new(vec![1], DType::F16, vec![v]).data, vec![1.0]);
    }

    #[test]
    fn the_fp64_rule_passes_results_closer_to_exact_and_fails_injected_errors() {
        // 2,000 elements: multiplier 2, tol 1e-4 (f32).
        let exact = Tensor::new(vec![2000], DType::F32, vec![1.0; 2000]);
        let eager = Tensor::new(vec![2000], DType::F32, vec![1.001; 2000]);
        let closer = Tensor::new(vec![2000], DType::F32, vec![0.9995; 2000]);
        let (res, reference) = passes_fp64_rule(&closer, &eager, &exact).expect("closer passes");
        assert!(res < reference);
        // Twice eager's error (+ tol/10) passes, a little more fails.
        let twice = Tensor::new(vec![2000], DType::F32, vec![1.002; 2000]);
        assert!(passes_fp64_rule(&twice, &eager, &exact).is_some());
        let worse = Tensor::new(vec![2000], DType::F32, vec![1.0022; 2000]);
        assert_eq!(passes_fp64_rule(&worse, &eager, &exact), None);
        // An injected bug (one element off by 1) fails.
        let mut bug = eager.clone();
        bug.data[7] += 1.0;
        assert_eq!(passes_fp64_rule(&bug, &eager, &exact), None);
        // Below 1,000 elements the multiplier is 3.
        let small = |v: f64| Tensor::new(vec![10], DType::F32, vec![v; 10]);
        assert!(passes_fp64_rule(&small(1.0029), &small(1.001), &small(1.0)).is_some());
        assert_eq!(passes_fp64_rule(&small(1.0032), &small(1.001), &small(1.0)), None);
        // Eager overflowing where the exact result does not: no free pass.
        let inf = Tensor::new(vec![2000], DType::F32, vec![f64::INFINITY; 2000]);
        assert_eq!(passes_fp64_rule(&bug, &inf, &exact), None);
    }
}
