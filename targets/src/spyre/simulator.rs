//! The functional simulator of a Spyre program: a function after the three Spyre passes
//! is lowered to its KTIR form ([`super::ktir::lower`]) and run as the device would
//! (`fuselab_exec::spyre`: HBM as one byte array with every buffer in its stick layout,
//! each core's 1,625,344-byte LX, compute tiles one after another). A wrong layout,
//! split or placement changes the numbers (or fails), and `fuse-run --target=spyre`
//! checks them against the aten oracle.

use super::ktir;
use fuselab_dialects::ir;
use fuselab_exec::{ExecError, Tensor};
use mlir_sys::MlirOperation;

/// Runs `func` on `inputs` as the device would; returns its results. `func` is either in
/// KTIR form or carries the three passes' decisions (then a clone is lowered first).
pub fn simulate(func: MlirOperation, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError> {
    if ktir::is_ktir(func) {
        return fuselab_exec::spyre::run(func, inputs);
    }
    let clone = ir::clone(func);
    let result = ktir::lower::lower(clone)
        .map_err(|(op, m)| ExecError::at(op, m))
        .and_then(|()| fuselab_exec::spyre::run(clone, inputs));
    // SAFETY: `clone` is a detached clone made above, not used after this.
    unsafe { mlir_sys::mlirOperationDestroy(clone) };
    result
}
