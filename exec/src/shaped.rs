//! Reading shaped MLIR types (tensors, memrefs) as the device interpreters need them.

use crate::ExecError;
use fuselab_dialects::{ir, types::DType};
use mlir_sys::{MlirOperation, MlirType};

/// The element type of shaped type `ty`.
pub(crate) fn element_type(ty: MlirType) -> MlirType {
    unsafe { mlir_sys::mlirShapedTypeGetElementType(ty) }
}

/// `ty` (an element type) as a dtype; an error at `op` when it is not supported.
pub(crate) fn dtype_of(op: MlirOperation, ty: MlirType) -> Result<DType, ExecError> {
    DType::from_mlir(unsafe { melior::ir::Type::from_raw(ty) }).ok_or_else(|| {
        ExecError::at(
            op,
            format!("element type {} is not supported", ir::type_string(ty)),
        )
    })
}

/// The dims of shaped type `ty`.
pub(crate) fn shape_of(ty: MlirType) -> Vec<i64> {
    unsafe {
        (0..mlir_sys::mlirShapedTypeGetRank(ty))
            .map(|d| mlir_sys::mlirShapedTypeGetDimSize(ty, d as isize))
            .collect()
    }
}
