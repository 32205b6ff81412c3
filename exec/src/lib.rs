//! `fuselab-exec`: running fuselab IR on this machine, to check by execution that
//! lowering and fusion never change results.
//! - [`aten::run_aten`]: the reference interpreter of the `aten` dialect (the oracle),
//!   evaluating each op from ATen's definition;
//! - [`loops::run_loop`]: an interpreter of the `loop` dialect (nodes, kernels, externs,
//!   views), executing the bodies' `arith`/`math` ops in the dtypes they declare;
//! - [`inputs`]: seeded inputs and dtype-aware comparison.

pub mod aten;
mod constant;
pub mod inputs;
pub mod loops;
pub mod tensor;

pub use tensor::Tensor;

use fuselab_dialects::SourceLoc;
use fuselab_passes::ir;
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
