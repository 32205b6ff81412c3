//! Reading typed values out of MLIR attributes (plain Rust data, never panicking).

use crate::types::{DType, TensorType};
use melior::ir::{attribute::AttributeLike, Attribute};

/// The value of an `array<i64: ...>` attribute.
pub fn i64_array(attribute: Attribute) -> Option<Vec<i64>> {
    let raw = attribute.to_raw();
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseI64Array(raw) {
            return None;
        }
        let n = mlir_sys::mlirDenseArrayGetNumElements(raw);
        Some(
            (0..n)
                .map(|i| mlir_sys::mlirDenseI64ArrayGetElement(raw, i))
                .collect(),
        )
    }
}

/// The value of an integer attribute (`3 : i64`); `true`/`false` are not integers here.
pub fn integer(attribute: Attribute) -> Option<i64> {
    let raw = attribute.to_raw();
    unsafe {
        if mlir_sys::mlirAttributeIsABool(raw) || !mlir_sys::mlirAttributeIsAInteger(raw) {
            return None;
        }
        Some(mlir_sys::mlirIntegerAttrGetValueInt(raw))
    }
}

/// The value of a `true`/`false` attribute.
pub fn boolean(attribute: Attribute) -> Option<bool> {
    let raw = attribute.to_raw();
    unsafe { mlir_sys::mlirAttributeIsABool(raw).then(|| mlir_sys::mlirBoolAttrGetValue(raw)) }
}

/// The value of a float attribute (`1.0e-05 : f64`).
pub fn float(attribute: Attribute) -> Option<f64> {
    let raw = attribute.to_raw();
    unsafe { mlir_sys::mlirAttributeIsAFloat(raw).then(|| mlir_sys::mlirFloatAttrGetValueDouble(raw)) }
}

/// The value of a string attribute.
pub fn string(attribute: Attribute) -> Option<String> {
    let raw = attribute.to_raw();
    unsafe {
        if !mlir_sys::mlirAttributeIsAString(raw) {
            return None;
        }
        Some(crate::ir::owned_string(mlir_sys::mlirStringAttrGetValue(raw)))
    }
}

/// The strings of an array-of-strings attribute (`["add", "mul"]`).
pub fn string_array(attribute: Attribute) -> Option<Vec<String>> {
    let raw = attribute.to_raw();
    unsafe {
        if !mlir_sys::mlirAttributeIsAArray(raw) {
            return None;
        }
        let n = mlir_sys::mlirArrayAttrGetNumElements(raw);
        (0..n)
            .map(|i| string(Attribute::from_raw(mlir_sys::mlirArrayAttrGetElement(raw, i))))
            .collect()
    }
}

/// [`string`] for a raw attribute handle.
pub fn string_raw(attribute: mlir_sys::MlirAttribute) -> Option<String> {
    string(unsafe { Attribute::from_raw(attribute) })
}

/// [`string_array`] for a raw attribute handle.
pub fn string_array_raw(attribute: mlir_sys::MlirAttribute) -> Option<Vec<String>> {
    string_array(unsafe { Attribute::from_raw(attribute) })
}

/// Attribute naming the aten op a primitive (or a loop node) came from.
pub const ORIGIN_ATTR: &str = "fuselab.origin";
/// Discardable attribute of an aten op that asks for Inductor's `realize_hint()` on the
/// tensors it reads (pooling lowerings): `--lower-aten-to-loop` marks their producing
/// nodes with [`crate::loops::REALIZE_HINT`].
pub const REALIZE_HINT_ATTR: &str = "fuselab.realize_hint";
/// Discardable attribute of an aten op that is part of a computation the importer
/// spells as several ops and Inductor lowers as one node (a max pool's padding and
/// partial maximums): `--lower-aten-to-loop` gives its node [`crate::loops::INLINE`].
pub const INLINE_ATTR: &str = "fuselab.inline";
/// Discardable unit attribute of an `aten.view` whose size argument was written with a
/// -1 (fuse-import): Relax's importer keeps such a reshape even when the shape does not
/// change, so `--lower-aten-to-loop="materialize-views=true"` copies it instead of
/// dropping it as no op.
pub const INFERRED_SIZE_ATTR: &str = "fuselab.inferred_size";
/// Discardable string attribute naming the torch op an aten op is a part of, when
/// fuse-import spells one torch op with several (a max pool): the ops of one group
/// share one `fuselab.eager_id` after `--lower-aten-to-loop`.
pub const OP_GROUP_ATTR: &str = "fuselab.op_group";
/// Attribute grouping the primitives of one decomposed composite (one id per aten op
/// as written; the loop nodes lowered from them keep it).
pub const EAGER_ID_ATTR: &str = "fuselab.eager_id";

/// The `fuselab.eager_id` of `op`, if it has one.
pub fn eager_id_of(op: mlir_sys::MlirOperation) -> Option<i64> {
    crate::ir::attr(op, EAGER_ID_ATTR).and_then(|a| integer(unsafe { Attribute::from_raw(a) }))
}

/// The value and dtype of an `arith.constant` that is a splat dense tensor.
pub fn splat_value(op: mlir_sys::MlirOperation) -> Option<(f64, DType)> {
    let value = crate::ir::attr(op, "value")?;
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseElements(value) || !mlir_sys::mlirDenseElementsAttrIsSplat(value) {
            return None;
        }
        let ty = TensorType::from_mlir(melior::ir::Type::from_raw(crate::ir::value_type(
            crate::ir::result(op, 0),
        )))
        .ok()?;
        let v = match ty.dtype {
            DType::F32 | DType::F16 | DType::BF16 => {
                mlir_sys::mlirDenseElementsAttrGetFloatSplatValue(value) as f64
            }
            DType::I64 => mlir_sys::mlirDenseElementsAttrGetInt64SplatValue(value) as f64,
            DType::I32 => f64::from(mlir_sys::mlirDenseElementsAttrGetInt32SplatValue(value)),
            DType::I1 => mlir_sys::mlirDenseElementsAttrGetBoolSplatValue(value) as i32 as f64,
        };
        let v = if ty.dtype == DType::F32 || !ty.dtype.is_float() {
            v
        } else {
            // f16/bf16 splats: read through the generic attribute.
            float(melior::ir::Attribute::from_raw(
                mlir_sys::mlirDenseElementsAttrGetSplatValue(value),
            ))
            .unwrap_or(v)
        };
        Some((v, ty.dtype))
    }
}
