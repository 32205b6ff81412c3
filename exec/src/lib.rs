//! `fuselab-exec`: running fuselab IR on this machine, to check by execution that
//! lowering and fusion never change results.
//! - [`aten::run_aten`]: the reference interpreter of the `aten` dialect (the oracle),
//!   evaluating each op from ATen's definition;
//! - [`loops::run_loop`]: an interpreter of the `loop` dialect (nodes, kernels, externs,
//!   views), executing the bodies' `arith`/`math` ops in the dtypes they declare;
//! - [`ascend::run_ascend`] / [`spyre::run`]: interpreters of the device dialects
//!   (Ascend vector kernels; Spyre's KTIR form), as their devices would run them;
//! - [`inputs`]: seeded inputs and dtype-aware comparison.

pub mod ascend;
pub mod aten;
pub mod attention;
mod constant;
pub mod inputs;
pub mod loops;
pub mod rnn_cell;
pub mod scalar;
mod shaped;
pub mod spyre;
pub mod tensor;

pub use constant::splat_or_dense;
pub use tensor::Tensor;

use fuselab_dialects::ir;
use fuselab_dialects::SourceLoc;
use mlir_sys::MlirOperation;
use std::fmt;

/// An execution error, located at the op that failed when there is one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ExecError {
    /// Where.
    pub loc: Option<SourceLoc>,
    /// What.
    pub message: String,
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.loc {
            Some(loc) => write!(f, "{loc}: error: {}", self.message),
            None => write!(f, "error: {}", self.message),
        }
    }
}

/// The arguments of `func`'s body, checked against the number of `inputs`.
pub(crate) fn bind_arguments(
    func: MlirOperation,
    inputs: &[Tensor],
) -> Result<(mlir_sys::MlirBlock, Vec<mlir_sys::MlirValue>), ExecError> {
    let block = ir::body(func).ok_or_else(|| ExecError::msg("function without a body"))?;
    let args = ir::block_arguments(block);
    if args.len() != inputs.len() {
        return Err(ExecError::msg(format!(
            "the function takes {} arguments, {} given",
            args.len(),
            inputs.len()
        )));
    }
    Ok((block, args))
}

impl ExecError {
    /// An error without a location.
    pub fn msg(message: impl Into<String>) -> Self {
        Self {
            loc: None,
            message: message.into(),
        }
    }

    /// An error at `op`.
    pub fn at(op: MlirOperation, message: impl Into<String>) -> Self {
        Self {
            loc: SourceLoc::from_location(unsafe { melior::ir::Location::from_raw(ir::location(op)) }),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fuselab_dialects::{source::parse_module, types::DType, DiagnosticSink, FuseContext};

    fn run(text: &str, inputs: &[Tensor], loop_ir: bool) -> Vec<Tensor> {
        let fuse = FuseContext::new().expect("context");
        let sink = DiagnosticSink::new();
        sink.capture(fuse.context());
        let module = parse_module(fuse.context(), text, "test.mlir", &sink).expect("parses");
        let func = ir::collect_ops(module.as_operation().to_raw(), |n| n == "func.func")[0];
        if loop_ir {
            loops::run_loop(func, inputs).expect("runs")
        } else {
            aten::run_aten(func, inputs).expect("runs")
        }
    }

    fn t(shape: &[i64], data: &[f64]) -> Tensor {
        Tensor::new(shape.to_vec(), DType::F32, data.to_vec())
    }

    #[test]
    fn reference_ops_compute_atens_definitions() {
        // softmax([0, ln 3]) = [1/4, 3/4]; layer_norm([1, 3]) = [-1, 1]; [[1,2],[3,4]] @ [5,6]^T.
        let text = r#"func.func @f(%x: tensor<1x2xf32>, %w: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2x2xf32>, %v: tensor<2x1xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>, tensor<2x1xf32>) {
  %s = "aten.softmax"(%x) {dim = -1 : i64} : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %l = "aten.layer_norm"(%x, %w, %b) {normalized_shape = array<i64: 2>, eps = 0.0 : f64} : (tensor<1x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
  %p = "aten.mm"(%m, %v) : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  return %s, %l, %p : tensor<1x2xf32>, tensor<1x2xf32>, tensor<2x1xf32>
}"#;
        let out = run(
            text,
            &[
                t(&[1, 2], &[0.0, 3f64.ln()]),
                t(&[2], &[1.0, 1.0]),
                t(&[2], &[0.0, 0.0]),
                t(&[2, 2], &[1.0, 2.0, 3.0, 4.0]),
                t(&[2, 1], &[5.0, 6.0]),
            ],
            false,
        );
        assert!((out[0].data[0] - 0.25).abs() < 1e-6 && (out[0].data[1] - 0.75).abs() < 1e-6);
        // x = [0, ln 3]: mean ln3/2, deviation ±ln3/2, normalized to [-1, 1].
        assert!((out[1].data[0] + 1.0).abs() < 1e-5 && (out[1].data[1] - 1.0).abs() < 1e-5);
        assert_eq!(out[2].data, vec![17.0, 39.0]);
    }

    #[test]
    fn loop_interpreter_runs_reductions_and_rounds_to_f32() {
        // Row sums of [[1, 2], [3, 4]] and 0.1 + 0.2 computed in f32.
        let text = r#"func.func @f(%x: tensor<2x2xf32>) -> (tensor<2x1xf32>, tensor<2xf32>) {
  %0 = "loop.reduction"() ({
  ^bb0(%i: index, %r: index):
    %v = "loop.load"(%x) {index = affine_map<(d0, d1) -> (d0 * 2 + d1)>} : (tensor<2x2xf32>) -> f32
    gpu.yield %v : f32
  }) {name = "buf0", ranges = array<i64: 2>, reduction_ranges = array<i64: 2>, kind = "sum", origins = ["sum"]} : () -> tensor<2x1xf32>
  %1 = "loop.pointwise"() ({
  ^bb0(%i: index):
    %a = arith.constant 0.1 : f32
    %b = arith.constant 0.2 : f32
    %c = arith.addf %a, %b : f32
    gpu.yield %c : f32
  }) {name = "buf1", ranges = array<i64: 2>, origins = ["add"]} : () -> tensor<2xf32>
  return %0, %1 : tensor<2x1xf32>, tensor<2xf32>
}"#;
        let out = run(text, &[t(&[2, 2], &[1.0, 2.0, 3.0, 4.0])], true);
        assert_eq!(out[0].data, vec![3.0, 7.0]);
        assert_eq!(out[1].data[0], (0.1f32 + 0.2f32) as f64);
    }

    #[test]
    fn comparison_flags_mismatches_and_nan_placement() {
        let want = t(&[3], &[1.0, f64::NAN, 100.0]);
        assert!(inputs::compare(&want, &want).pass);
        let close = t(&[3], &[1.00001, f64::NAN, 100.05]);
        assert!(inputs::compare(&close, &want).pass);
        // The absolute tolerance scales with max|want| = 100: 1e-2.
        let off = t(&[3], &[1.05, f64::NAN, 100.0]);
        assert_eq!(inputs::compare(&off, &want).mismatches, 1);
        let small = t(&[2], &[1.0, 0.5]);
        assert!(!inputs::compare(&t(&[2], &[1.0, 0.501]), &small).pass);
        let nan_moved = t(&[3], &[f64::NAN, 2.0, 100.0]);
        assert!(!inputs::compare(&nan_moved, &want).pass);
        assert!(!inputs::compare(&t(&[1, 3], &[1.0, f64::NAN, 100.0]), &want).pass);
    }

    /// An expected infinity matches only the same infinity (issue 13, item 6:
    /// relu([1, 2, 3, 4]) checked against [inf, -inf, 3, 4] used to pass).
    #[test]
    fn infinities_match_only_themselves() {
        let want = t(&[4], &[f64::INFINITY, f64::NEG_INFINITY, 3.0, 4.0]);
        assert!(inputs::compare(&want, &want).pass);
        let finite = t(&[4], &[1.0, 2.0, 3.0, 4.0]);
        let c = inputs::compare(&finite, &want);
        assert_eq!((c.pass, c.mismatches), (false, 2));
        let flipped = t(&[4], &[f64::NEG_INFINITY, f64::INFINITY, 3.0, 4.0]);
        assert_eq!(inputs::compare(&flipped, &want).mismatches, 2);
        // A finite expectation is not met by an infinity either.
        assert!(!inputs::compare(&want, &finite).pass);
    }
}
