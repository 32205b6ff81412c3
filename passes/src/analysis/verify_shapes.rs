//! `--aten-verify-shapes`: runs fuselab's verifiers (the `aten` shape verifier and the
//! `loop` structure verifier) at a chosen point of a pipeline.
//!
//! `fuse-opt` already runs them after parsing, as `mlir-opt` runs the op verifiers;
//! this pass re-checks IR produced by later passes. Reference rule: ATen's shape
//! semantics (broadcasting, `wrap_dim`, matmul/conv output sizes), see
//! `dialects/src/aten/verify.rs`.

use crate::registry::{PassContext, PassFailed, PassId, PassInfo};
use melior::ir::OperationRef;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "aten-verify-shapes",
    summary: "Check aten shapes/dtypes and loop IR structure; report errors at op locations",
    anchor: "builtin.module",
    options: &[],
    run,
    id: &ID,
};

fn run(op: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    if fuselab_dialects::verify_fuselab(op, &cx.sink) {
        Ok(())
    } else {
        Err(PassFailed)
    }
}
