//! Reading typed values out of MLIR attributes (plain Rust data, never panicking).

use melior::ir::{attribute::AttributeLike, Attribute};

/// A string MLIR lends (an identifier, a string attribute's value), copied.
///
/// # Safety
/// `s` must point to `s.length` readable bytes (MLIR's storage, alive for the call).
pub unsafe fn owned_string(s: mlir_sys::MlirStringRef) -> String {
    let bytes = unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

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
        Some(owned_string(mlir_sys::mlirStringAttrGetValue(raw)))
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
