//! `--spyre-lower-to-ktir`: a function after the three Spyre passes to its KTIR form
//! (IBM's KTIR, RFC 0682: compute tiles, memory views over HBM and LX, access tiles,
//! loads and stores; the rules in [`crate::spyre::ktir::lower`]), the form the
//! functional simulator runs. A function without the decisions, or already lowered, is
//! an error at the function.

use crate::spyre::ktir::{is_ktir, lower::lower};
use fuselab_dialects::ir;
use fuselab_passes::registry::{PassContext, PassFailed, PassId, PassInfo};
use melior::ir::{operation::OperationLike as _, OperationRef};

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "spyre-lower-to-ktir",
    summary: "Lower a Spyre-planned loop function to KTIR kernels (compute tiles, HBM/LX memory views, access tiles)",
    anchor: "func.func",
    options: &[],
    run,
    id: &ID,
};

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let f = func.to_raw();
    let fail = |at, message: String| {
        cx.sink.error(unsafe { ir::op_ref(at) }.location(), message);
        PassFailed
    };
    if is_ktir(f) {
        return Err(fail(
            f,
            "--spyre-lower-to-ktir: the function is already in KTIR form".into(),
        ));
    }
    cx.require_loop_ir(f)?;
    lower(f).map_err(|(at, m)| fail(at, m))
}
