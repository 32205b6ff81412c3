//! `arith.constant` tensors (splat or dense elements) as [`Tensor`]s.

use crate::tensor::Tensor;
use fuselab_dialects::ir;
use fuselab_dialects::types::{DType, TensorType};
use mlir_sys::MlirOperation;

/// The tensor of an `arith.constant` with a dense elements attribute.
pub fn splat_or_dense(op: MlirOperation) -> Result<Tensor, String> {
    let ty = ir::tensor_type(ir::result(op, 0)).ok_or("constant of an unsupported type")?;
    let attr = ir::attr(op, "value").ok_or("constant without value")?;
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseElements(attr) {
            return Err("constant is not a dense elements attribute".into());
        }
        let n = ty.numel() as usize;
        let read = |i: isize| -> f64 {
            match ty.dtype {
                DType::F32 => f64::from(mlir_sys::mlirDenseElementsAttrGetFloatValue(attr, i)),
                DType::I64 => mlir_sys::mlirDenseElementsAttrGetInt64Value(attr, i) as f64,
                DType::I32 => f64::from(mlir_sys::mlirDenseElementsAttrGetInt32Value(attr, i)),
                DType::I1 => f64::from(u8::from(mlir_sys::mlirDenseElementsAttrGetBoolValue(attr, i))),
                _ => f64::NAN,
            }
        };
        let data: Vec<f64> = if mlir_sys::mlirDenseElementsAttrIsSplat(attr) {
            let v = splat_value(attr, &ty)?;
            vec![v; n]
        } else if matches!(ty.dtype, DType::F32 | DType::I64 | DType::I32 | DType::I1) {
            (0..n as isize).map(read).collect()
        } else {
            return Err(format!("non-splat {} constants are not supported", ty.dtype));
        };
        Ok(Tensor::new(ty.shape, ty.dtype, data))
    }
}

unsafe fn splat_value(attr: mlir_sys::MlirAttribute, ty: &TensorType) -> Result<f64, String> {
    unsafe {
        let v = mlir_sys::mlirDenseElementsAttrGetSplatValue(attr);
        if mlir_sys::mlirAttributeIsAFloat(v) {
            Ok(mlir_sys::mlirFloatAttrGetValueDouble(v))
        } else if mlir_sys::mlirAttributeIsAInteger(v) {
            let i = mlir_sys::mlirIntegerAttrGetValueInt(v);
            Ok(if ty.dtype == DType::I1 {
                f64::from(u8::from(i != 0))
            } else {
                i as f64
            })
        } else if mlir_sys::mlirAttributeIsABool(v) {
            Ok(f64::from(u8::from(mlir_sys::mlirBoolAttrGetValue(v))))
        } else {
            Err("splat constant of an unsupported element".into())
        }
    }
}
