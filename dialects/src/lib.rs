//! fuselab's dialects and the IR plumbing every tool shares.
//!
//! - [`aten`]: ATen tensor ops (the input): op table, accessors, builders, shape verifier.
//! - [`loops`]: Inductor's loop-level IR: op kinds, accessors, builders, verifier.
//! - [`context`]: an MLIR context with upstream and fuselab (IRDL) dialects loaded.
//! - [`source`]: parsing with real buffer names and an implicit top-level module.
//! - [`diagnostics`]: located diagnostics collected from MLIR and from Rust code.
//! - [`types`], [`attrs`]: plain-data views of tensor types and attributes.

pub mod aten;
pub mod attrs;
pub mod context;
pub mod diagnostics;
pub mod loops;
pub mod source;
pub mod types;

pub use context::FuseContext;
pub use diagnostics::{Diagnostic, DiagnosticSink, Severity, SourceLoc};

use melior::ir::OperationRef;

/// Errors at the edge of this crate.
#[derive(Debug, thiserror::Error)]
pub enum DialectError {
    /// An embedded IRDL definition failed to parse or load (a build bug, not user error).
    #[error("the embedded IRDL definition of dialect '{dialect}' is invalid")]
    InvalidIrdl {
        /// The dialect whose definition failed.
        dialect: &'static str,
    },
}

/// Runs every fuselab verifier (aten shapes, loop structure) over `root`.
/// Returns `true` when no error was reported to `sink`.
pub fn verify_fuselab(root: OperationRef, sink: &DiagnosticSink) -> bool {
    let aten_ok = aten::verify_aten(root, sink);
    let loop_ok = loops::verify_loop(root, sink);
    aten_ok && loop_ok
}
