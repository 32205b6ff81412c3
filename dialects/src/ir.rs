//! A thin, copyable layer over MLIR's C API for IR surgery in passes: creating ops
//! with attributes and regions, cloning, inserting, replacing uses, erasing.
//!
//! The handles are MLIR's raw C handles (plain pointers). They stay valid while the
//! IR they point into is alive; passes only use them within one `run`, after
//! collecting what to rewrite and before erasing it (collect first, then rewrite).

use mlir_sys::*;
use std::ffi::c_void;

fn sref(s: &str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr() as *const _,
        length: s.len(),
    }
}

pub use crate::attrs::owned_string;

fn to_string(callback_target: impl FnOnce(MlirStringCallback, *mut c_void)) -> String {
    String::from_utf8_lossy(&to_bytes(callback_target)).into_owned()
}

/// What a C API printer writes, as bytes: each piece appended as it comes, no check per
/// piece (the printer calls back once per token).
fn to_bytes(callback_target: impl FnOnce(MlirStringCallback, *mut c_void)) -> Vec<u8> {
    unsafe extern "C" fn push(piece: MlirStringRef, data: *mut c_void) {
        // SAFETY: `data` is the `Vec<u8>` below, alive for the call.
        let out = unsafe { &mut *(data as *mut Vec<u8>) };
        out.extend_from_slice(unsafe { std::slice::from_raw_parts(piece.data as *const u8, piece.length) });
    }
    let mut out: Vec<u8> = Vec::new();
    callback_target(Some(push), &mut out as *mut Vec<u8> as *mut c_void);
    out
}

/// Prints `op` with `flags` (a live printing-flags object) as bytes: the tools' output
/// path (melior's `to_string_with_flags` checks UTF-8 on every token the printer writes,
/// about half the time of printing a large module).
pub fn print_bytes(op: MlirOperation, flags: mlir_sys::MlirOpPrintingFlags) -> Vec<u8> {
    to_bytes(|cb, data| unsafe { mlirOperationPrintWithFlags(op, flags, cb, data) })
}

/// Prints a location (`loc("model.py":12:3)`).
pub fn location_string(loc: MlirLocation) -> String {
    to_string(|cb, data| unsafe { mlirLocationPrint(loc, cb, data) })
}

/// Prints an attribute.
pub fn attr_string(attr: MlirAttribute) -> String {
    to_string(|cb, data| unsafe { mlirAttributePrint(attr, cb, data) })
}

/// The leaf name of a symbol reference (`@m::@k` and `@k` give `k`); `None` for any other
/// attribute.
pub fn symbol_leaf(attr: MlirAttribute) -> Option<String> {
    symbol_part(attr, mlir_sys::mlirSymbolRefAttrGetLeafReference)
}

/// The root reference of a symbol reference attribute (`@a` of `@a::@b`); None for
/// another attribute.
pub fn symbol_root(attr: MlirAttribute) -> Option<String> {
    symbol_part(attr, mlir_sys::mlirSymbolRefAttrGetRootReference)
}

/// One name of a symbol reference, read by `part` (root or leaf).
fn symbol_part(
    attr: MlirAttribute,
    part: unsafe extern "C" fn(MlirAttribute) -> MlirStringRef,
) -> Option<String> {
    // SAFETY: `part` is called on a symbol reference; the name it lends is copied at once.
    unsafe { mlir_sys::mlirAttributeIsASymbolRef(attr).then(|| owned_string(part(attr))) }
}

/// Prints a type.
pub fn type_string(ty: MlirType) -> String {
    to_string(|cb, data| unsafe { mlirTypePrint(ty, cb, data) })
}

/// Whether `op` (and everything nested in it) verifies; failures are reported to the
/// context's diagnostic handlers.
pub fn verify(op: MlirOperation) -> bool {
    unsafe { mlirOperationVerify(op) }
}

/// Prints an operation (custom form, no locations).
pub fn op_string(op: MlirOperation) -> String {
    to_string(|cb, data| unsafe { mlirOperationPrint(op, cb, data) })
}

/// Prints an operation with its locations (as `--mlir-print-debuginfo` does).
pub fn op_string_with_locations(op: MlirOperation) -> String {
    to_string(|cb, data| unsafe {
        let flags = mlirOpPrintingFlagsCreate();
        mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
        mlirOperationPrintWithFlags(op, flags, cb, data);
        mlirOpPrintingFlagsDestroy(flags);
    })
}

/// The name of an operation (`aten.add`).
pub fn op_name(op: MlirOperation) -> String {
    unsafe { owned_string(mlirIdentifierStr(mlirOperationGetName(op))) }
}

/// Calls `f` with the name of `op`, borrowed from the context's identifier table (no
/// copy: for hot loops that only compare names).
pub fn with_op_name<R>(op: MlirOperation, f: impl FnOnce(&str) -> R) -> R {
    let s = unsafe { mlirIdentifierStr(mlirOperationGetName(op)) };
    let bytes = unsafe { std::slice::from_raw_parts(s.data as *const u8, s.length) };
    f(std::str::from_utf8(bytes).unwrap_or(""))
}

/// Whether `op` is named `name`, without copying the name.
pub fn name_is(op: MlirOperation, name: &str) -> bool {
    with_op_name(op, |n| n == name)
}

/// The identity of `op`'s name: identifiers are uniqued in their context, so two ops
/// of one context have the same name exactly when these are equal.
pub fn name_id(op: MlirOperation) -> usize {
    unsafe { mlirOperationGetName(op) }.ptr as usize
}

/// Every attribute of `op` as (name, value) identities: names and attributes are
/// uniqued in their context, so two ops of one context carry equal attributes exactly
/// when these lists are equal.
pub fn attribute_ids(op: MlirOperation) -> Vec<(usize, usize)> {
    unsafe {
        (0..mlirOperationGetNumAttributes(op))
            .map(|i| {
                let na = mlirOperationGetAttribute(op, i);
                (na.name.ptr as usize, na.attribute.ptr as usize)
            })
            .collect()
    }
}

/// Every attribute of `op` (inherent ones included), by name, in order.
pub fn named_attributes(op: MlirOperation) -> Vec<(String, MlirAttribute)> {
    unsafe {
        (0..mlirOperationGetNumAttributes(op))
            .map(|i| {
                let na = mlirOperationGetAttribute(op, i);
                (owned_string(mlirIdentifierStr(na.name)), na.attribute)
            })
            .collect()
    }
}

/// Parses a type (`tensor<4xf32>`, `f32`, `index`); `None` if invalid.
pub fn parse_type(ctx: MlirContext, text: &str) -> Option<MlirType> {
    let ty = unsafe { mlirTypeParseGet(ctx, sref(text)) };
    (!ty.ptr.is_null()).then_some(ty)
}

/// Parses an attribute; `None` if invalid.
pub fn parse_attr(ctx: MlirContext, text: &str) -> Option<MlirAttribute> {
    let attr = unsafe { mlirAttributeParseGet(ctx, sref(text)) };
    (!attr.ptr.is_null()).then_some(attr)
}

/// An attribute of `op` by name.
pub fn attr(op: MlirOperation, name: &str) -> Option<MlirAttribute> {
    let a = unsafe { mlirOperationGetAttributeByName(op, sref(name)) };
    (!a.ptr.is_null()).then_some(a)
}

/// Attribute `name` of argument `index` of a function-like `op` (its `arg_attrs`).
pub fn arg_attr(op: MlirOperation, index: usize, name: &str) -> Option<MlirAttribute> {
    let dicts = attr(op, "arg_attrs")?;
    unsafe {
        if !mlirAttributeIsAArray(dicts) || index >= mlirArrayAttrGetNumElements(dicts) as usize {
            return None;
        }
        let dict = mlirArrayAttrGetElement(dicts, index as isize);
        if !mlirAttributeIsADictionary(dict) {
            return None;
        }
        let a = mlirDictionaryAttrGetElementByName(dict, sref(name));
        (!a.ptr.is_null()).then_some(a)
    }
}

/// Erases a matched form `ops` once its result is replaced: each op as soon as nothing
/// reads it, then the `arith.constant`s only the form read.
pub fn erase_with_constants(ops: Vec<MlirOperation>) {
    let mut constants: Vec<MlirOperation> = ops
        .iter()
        .flat_map(|&op| operands(op))
        .filter_map(defining_op)
        .filter(|&c| op_name(c) == "arith.constant")
        .collect();
    constants.sort_by_key(|c| c.ptr as usize);
    constants.dedup_by_key(|c| c.ptr as usize);
    let mut left = ops;
    left.extend(constants);
    while let Some(i) = left.iter().position(|&op| !has_uses(result(op, 0))) {
        erase(left.swap_remove(i));
    }
}

/// A rank-0 `arith.constant` of `dtype` holding `value` (not inserted anywhere);
/// infinities written as the bit patterns MLIR's parser takes.
pub fn scalar_constant(
    ctx: MlirContext,
    loc: MlirLocation,
    value: f64,
    dtype: crate::types::DType,
) -> MlirOperation {
    use crate::types::DType;
    let ty = format!("tensor<{dtype}>");
    let text = if dtype.is_float() && value.is_infinite() {
        let bits = match (dtype, value > 0.0) {
            (DType::F16, true) => "0x7C00",
            (DType::F16, false) => "0xFC00",
            (DType::BF16, true) => "0x7F80",
            (DType::BF16, false) => "0xFF80",
            (_, true) => "0x7F800000",
            (_, false) => "0xFF800000",
        };
        format!("dense<{bits}> : {ty}")
    } else if dtype.is_float() {
        format!("dense<{value:.17e}> : {ty}")
    } else {
        format!("dense<{}> : {ty}", value as i64)
    };
    let attr = parse_attr(ctx, &text).expect("scalar constants print parseably");
    create(
        "arith.constant",
        loc,
        &[],
        &[parse_type(ctx, &ty).expect("scalar type")],
        &[("value", attr)],
        Vec::new(),
    )
}

/// Sets (or replaces) an attribute of `op`.
pub fn set_attr(op: MlirOperation, name: &str, value: MlirAttribute) {
    unsafe { mlirOperationSetAttributeByName(op, sref(name), value) }
}

/// The context of an operation.
pub fn context(op: MlirOperation) -> MlirContext {
    unsafe { mlirOperationGetContext(op) }
}

/// The location of an operation.
pub fn location(op: MlirOperation) -> MlirLocation {
    unsafe { mlirOperationGetLocation(op) }
}

/// Operand `i`.
pub fn operand(op: MlirOperation, i: usize) -> MlirValue {
    unsafe { mlirOperationGetOperand(op, i as isize) }
}

/// All operands.
pub fn operands(op: MlirOperation) -> Vec<MlirValue> {
    let n = unsafe { mlirOperationGetNumOperands(op) } as usize;
    (0..n).map(|i| operand(op, i)).collect()
}

/// Replaces operand `i`.
pub fn set_operand(op: MlirOperation, i: usize, value: MlirValue) {
    unsafe { mlirOperationSetOperand(op, i as isize, value) }
}

/// Result `i`.
pub fn result(op: MlirOperation, i: usize) -> MlirValue {
    unsafe { mlirOperationGetResult(op, i as isize) }
}

/// Number of results.
pub fn result_count(op: MlirOperation) -> usize {
    unsafe { mlirOperationGetNumResults(op) as usize }
}

/// The type of a value.
pub fn value_type(value: MlirValue) -> MlirType {
    unsafe { mlirValueGetType(value) }
}

/// The op defining `value`, if it is an op result (not a block argument).
pub fn defining_op(value: MlirValue) -> Option<MlirOperation> {
    unsafe { mlirValueIsAOpResult(value).then(|| mlirOpResultGetOwner(value)) }
}

/// The position of a block argument, if `value` is one.
pub fn block_argument_number(value: MlirValue) -> Option<usize> {
    unsafe { mlirValueIsABlockArgument(value).then(|| mlirBlockArgumentGetArgNumber(value) as usize) }
}

/// The ops using `value` (each once per use), in use-list order.
pub fn users(value: MlirValue) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    unsafe {
        let mut use_ = mlirValueGetFirstUse(value);
        while !mlirOpOperandIsNull(use_) {
            out.push(mlirOpOperandGetOwner(use_));
            use_ = mlirOpOperandGetNextUse(use_);
        }
    }
    out
}

/// Whether anything uses `value` (without listing the users: constant time).
pub fn has_uses(value: MlirValue) -> bool {
    unsafe { !mlirOpOperandIsNull(mlirValueGetFirstUse(value)) }
}

/// The owner of `value`'s first use (the first of [`users`]), in constant time.
pub fn first_user(value: MlirValue) -> Option<MlirOperation> {
    unsafe {
        let use_ = mlirValueGetFirstUse(value);
        (!mlirOpOperandIsNull(use_)).then(|| mlirOpOperandGetOwner(use_))
    }
}

/// The owner of `value`'s only use, when it has exactly one (`users(value).len() == 1`
/// without walking a long use list: a value read by tens of thousands of ops costs two
/// steps, not a list).
pub fn sole_user(value: MlirValue) -> Option<MlirOperation> {
    unsafe {
        let use_ = mlirValueGetFirstUse(value);
        if mlirOpOperandIsNull(use_) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use_)) {
            return None;
        }
        Some(mlirOpOperandGetOwner(use_))
    }
}

/// Replaces every use of `old` by `new`.
pub fn replace_uses(old: MlirValue, new: MlirValue) {
    unsafe { mlirValueReplaceAllUsesOfWith(old, new) }
}

/// Region `i` of `op`.
pub fn region(op: MlirOperation, i: usize) -> MlirRegion {
    unsafe { mlirOperationGetRegion(op, i as isize) }
}

/// The element count of a statically shaped type (a memref or tensor), `None` for a
/// dynamic size or another type.
pub fn static_numel(ty: MlirType) -> Option<i64> {
    unsafe {
        if !mlir_sys::mlirTypeIsAShaped(ty) || !mlir_sys::mlirShapedTypeHasRank(ty) {
            return None;
        }
        let mut n: i64 = 1;
        for d in 0..mlir_sys::mlirShapedTypeGetRank(ty) {
            let size = mlir_sys::mlirShapedTypeGetDimSize(ty, d as isize);
            if size < 0 {
                return None;
            }
            n = n.checked_mul(size)?;
        }
        Some(n)
    }
}

/// First block of a region, if any.
pub fn first_block(region: MlirRegion) -> Option<MlirBlock> {
    let b = unsafe { mlirRegionGetFirstBlock(region) };
    (!b.ptr.is_null()).then_some(b)
}

/// The first block of `op`'s first region.
pub fn body(op: MlirOperation) -> Option<MlirBlock> {
    if unsafe { mlirOperationGetNumRegions(op) } == 0 {
        return None;
    }
    first_block(region(op, 0))
}

/// Block arguments.
pub fn block_arguments(block: MlirBlock) -> Vec<MlirValue> {
    let n = unsafe { mlirBlockGetNumArguments(block) } as usize;
    (0..n)
        .map(|i| unsafe { mlirBlockGetArgument(block, i as isize) })
        .collect()
}

/// The ops of a block, in order (a snapshot).
pub fn block_ops(block: MlirBlock) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    unsafe {
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            out.push(op);
            op = mlirOperationGetNextInBlock(op);
        }
    }
    out
}

/// The ops of `block` named `name`, in order.
pub fn ops_named(block: MlirBlock, name: &str) -> Vec<MlirOperation> {
    block_ops(block)
        .into_iter()
        .filter(|&op| name_is(op, name))
        .collect()
}

/// The block holding `op`.
pub fn parent_block(op: MlirOperation) -> MlirBlock {
    unsafe { mlirOperationGetBlock(op) }
}

/// The op directly in `block` that contains `op` (or `op` itself, if it is in `block`).
pub fn ancestor_in(mut op: MlirOperation, block: MlirBlock) -> MlirOperation {
    while parent_block(op).ptr != block.ptr {
        op = unsafe { mlirOperationGetParentOperation(op) };
    }
    op
}

/// The supported tensor type of a value, if it has one.
pub fn tensor_type(value: MlirValue) -> Option<crate::types::TensorType> {
    let ty = value_type(value);
    // A scalar is asked about often (every body value): answer it without building the
    // error, which prints the type.
    if !unsafe { mlir_sys::mlirTypeIsARankedTensor(ty) } {
        return None;
    }
    crate::types::TensorType::from_mlir(unsafe { melior::ir::Type::from_raw(ty) }).ok()
}

/// Inserts the (detached) `op` before `anchor` in `anchor`'s block.
pub fn insert_before(anchor: MlirOperation, op: MlirOperation) {
    unsafe { mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(anchor), anchor, op) }
}

/// Appends the (detached) `op` to `block`.
pub fn append(block: MlirBlock, op: MlirOperation) {
    unsafe { mlirBlockAppendOwnedOperation(block, op) }
}

/// Detaches `op` from its block (it must then be re-inserted or destroyed).
pub fn detach(op: MlirOperation) {
    unsafe { mlirOperationRemoveFromParent(op) }
}

/// Erases `op`. Its results must have no remaining uses: erasing an op still read would
/// leave its readers pointing into freed memory, so that is refused with a panic naming
/// the op and its location (a pass turns it into a located internal error). The erased
/// results are remembered until [`forget_erased`], so that [`create`] can refuse them
/// as operands.
pub fn erase(op: MlirOperation) {
    if let Some(i) = (0..result_count(op)).find(|&i| has_uses(result(op, i))) {
        panic!(
            "erasing '{}' at {} whose result {i} is still read (a fuselab bug)",
            op_name(op),
            location_string(location(op))
        );
    }
    ERASED.with(|erased| {
        let mut erased = erased.borrow_mut();
        erased.extend((0..result_count(op)).map(|i| result(op, i).ptr as usize));
    });
    unsafe { mlirOperationDestroy(op) }
}

thread_local! {
    /// The results of the ops [`erase`] destroyed since the last [`forget_erased`].
    static ERASED: std::cell::RefCell<std::collections::HashSet<usize>> =
        std::cell::RefCell::new(std::collections::HashSet::new());
}

/// Forgets the values [`erase`] destroyed on this thread: the pass registry calls it as
/// each fuselab pass starts and ends (their storage may then be reused by MLIR).
pub fn forget_erased() {
    ERASED.with(|erased| erased.borrow_mut().clear());
}

/// Marks `op`'s results as live: a new op may reuse the storage of an erased one.
pub fn note_created(op: MlirOperation) {
    ERASED.with(|erased| {
        let mut erased = erased.borrow_mut();
        if !erased.is_empty() {
            for i in 0..result_count(op) {
                erased.remove(&(result(op, i).ptr as usize));
            }
        }
    });
}

/// Why `operands` cannot be the operands of a new op: a null value, or the result of an
/// op erased in this pass (reading it would reach freed memory in `mlirOperationCreate`).
pub fn check_operands(operands: &[MlirValue]) -> Result<(), String> {
    ERASED.with(|erased| {
        let erased = erased.borrow();
        for (i, v) in operands.iter().enumerate() {
            if v.ptr.is_null() {
                return Err(format!("operand {i} is a null value"));
            }
            if erased.contains(&(v.ptr as usize)) {
                return Err(format!("operand {i} is a result of an erased op"));
            }
        }
        Ok(())
    })
}

/// Clones `op` (with its regions); the clone is detached.
pub fn clone(op: MlirOperation) -> MlirOperation {
    let cloned = unsafe { mlirOperationClone(op) };
    note_created(cloned);
    cloned
}

/// A new block with arguments of the given types, all at `loc`.
pub fn new_block(types: &[MlirType], loc: MlirLocation) -> MlirBlock {
    let locs = vec![loc; types.len()];
    unsafe { mlirBlockCreate(types.len() as isize, types.as_ptr(), locs.as_ptr()) }
}

/// A new region holding `block`.
pub fn new_region(block: MlirBlock) -> MlirRegion {
    unsafe {
        let region = mlirRegionCreate();
        mlirRegionAppendOwnedBlock(region, block);
        region
    }
}

/// Creates a detached op.
pub fn create(
    name: &str,
    loc: MlirLocation,
    operands: &[MlirValue],
    results: &[MlirType],
    attributes: &[(&str, MlirAttribute)],
    regions: Vec<MlirRegion>,
) -> MlirOperation {
    // A bad operand is a bug of the pass building the op; MLIR would read freed or null
    // memory. Refuse it with the op's name and location instead (the pass registry turns
    // the panic into a located internal error).
    if let Err(why) = check_operands(operands) {
        panic!(
            "building '{name}' at {}: {why} (a fuselab bug)",
            location_string(loc)
        );
    }
    if results.iter().any(|t| t.ptr.is_null()) {
        panic!(
            "building '{name}' at {}: a null result type (a fuselab bug)",
            location_string(loc)
        );
    }
    let op = unsafe {
        let ctx = mlirLocationGetContext(loc);
        let mut state = mlirOperationStateGet(sref(name), loc);
        mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
        let named: Vec<MlirNamedAttribute> = attributes
            .iter()
            .map(|(n, a)| mlirNamedAttributeGet(mlirIdentifierGet(ctx, sref(n)), *a))
            .collect();
        mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
        mlirOperationStateAddOwnedRegions(&mut state, regions.len() as isize, regions.as_ptr());
        mlirOperationCreate(&mut state)
    };
    note_created(op);
    op
}

/// A string attribute.
pub fn string_attr(ctx: MlirContext, value: &str) -> MlirAttribute {
    unsafe { mlirStringAttrGet(ctx, sref(value)) }
}

/// An array-of-strings attribute.
pub fn string_array_attr(ctx: MlirContext, values: &[String]) -> MlirAttribute {
    let elements: Vec<MlirAttribute> = values.iter().map(|v| string_attr(ctx, v)).collect();
    unsafe { mlirArrayAttrGet(ctx, elements.len() as isize, elements.as_ptr()) }
}

/// An `array<i64: ...>` attribute.
pub fn i64_array_attr(ctx: MlirContext, values: &[i64]) -> MlirAttribute {
    unsafe { mlirDenseI64ArrayGet(ctx, values.len() as isize, values.as_ptr()) }
}

/// A dictionary attribute of `entries` (name, value).
pub fn dictionary_attr(ctx: MlirContext, entries: &[(&str, MlirAttribute)]) -> MlirAttribute {
    unsafe {
        let named: Vec<MlirNamedAttribute> = entries
            .iter()
            .map(|(n, a)| mlirNamedAttributeGet(mlirIdentifierGet(ctx, sref(n)), *a))
            .collect();
        mlir_sys::mlirDictionaryAttrGet(ctx, named.len() as isize, named.as_ptr())
    }
}

/// An array attribute of attributes.
pub fn array_attr(ctx: MlirContext, values: &[MlirAttribute]) -> MlirAttribute {
    unsafe { mlirArrayAttrGet(ctx, values.len() as isize, values.as_ptr()) }
}

/// The elements of an array attribute (empty for any other attribute).
pub fn array_elements(attr: MlirAttribute) -> Vec<MlirAttribute> {
    unsafe {
        if !mlir_sys::mlirAttributeIsAArray(attr) {
            return Vec::new();
        }
        (0..mlir_sys::mlirArrayAttrGetNumElements(attr))
            .map(|i| mlir_sys::mlirArrayAttrGetElement(attr, i))
            .collect()
    }
}

/// `N : i64`.
pub fn i64_attr(ctx: MlirContext, value: i64) -> MlirAttribute {
    unsafe { mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), value) }
}

/// The unit attribute (a flag present or absent).
pub fn unit_attr(ctx: MlirContext) -> MlirAttribute {
    unsafe { mlir_sys::mlirUnitAttrGet(ctx) }
}

/// A `true`/`false` attribute.
pub fn bool_attr(ctx: MlirContext, value: bool) -> MlirAttribute {
    unsafe { mlirBoolAttrGet(ctx, value as i32) }
}

/// `X : f64`.
pub fn f64_attr(ctx: MlirContext, value: f64) -> MlirAttribute {
    unsafe { mlirFloatAttrDoubleGet(ctx, mlirF64TypeGet(ctx), value) }
}

/// Wraps a raw operation as a melior reference (for the typed dialect accessors).
///
/// # Safety
/// `op` must be a valid operation that outlives the returned reference.
pub unsafe fn op_ref<'c, 'a>(op: MlirOperation) -> melior::ir::OperationRef<'c, 'a> {
    unsafe { melior::ir::OperationRef::from_raw(op) }
}

/// Walks `root` (pre-order) collecting every nested op whose name satisfies `pred`.
pub fn collect_ops(root: MlirOperation, pred: impl Fn(&str) -> bool) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    collect_into(root, &pred, &mut out);
    out
}

fn collect_into(root: MlirOperation, pred: &dyn Fn(&str) -> bool, out: &mut Vec<MlirOperation>) {
    let n = unsafe { mlirOperationGetNumRegions(root) } as usize;
    for r in 0..n {
        let mut block = unsafe { mlirRegionGetFirstBlock(region(root, r)) };
        while !block.ptr.is_null() {
            for op in block_ops(block) {
                if with_op_name(op, pred) {
                    out.push(op);
                }
                collect_into(op, pred, out);
            }
            block = unsafe { mlirBlockGetNextInRegion(block) };
        }
    }
}

/// An `array<i64: ...>` attribute of `op` (empty if absent or of another kind).
pub fn i64s(op: MlirOperation, name: &str) -> Vec<i64> {
    attr(op, name)
        .and_then(|a| crate::attrs::i64_array(unsafe { melior::ir::Attribute::from_raw(a) }))
        .unwrap_or_default()
}

/// An array attribute of `array<i64: ...>` elements of `op`, e.g. `[array<i64: 4, 8>,
/// array<i64>]` (empty if absent; an element of another kind reads as empty).
pub fn i64_arrays(op: MlirOperation, name: &str) -> Vec<Vec<i64>> {
    attr(op, name)
        .map(array_elements)
        .unwrap_or_default()
        .into_iter()
        .map(|e| crate::attrs::i64_array(unsafe { melior::ir::Attribute::from_raw(e) }).unwrap_or_default())
        .collect()
}

/// An integer attribute of `op` (`None` if absent or of another kind).
pub fn integer(op: MlirOperation, name: &str) -> Option<i64> {
    attr(op, name).and_then(|a| crate::attrs::integer(unsafe { melior::ir::Attribute::from_raw(a) }))
}

/// A float attribute of `op` (`None` if absent or of another kind).
pub fn float(op: MlirOperation, name: &str) -> Option<f64> {
    attr(op, name).and_then(|a| crate::attrs::float(unsafe { melior::ir::Attribute::from_raw(a) }))
}

/// An array-of-strings attribute of `op` (empty if absent).
pub fn string_list(op: MlirOperation, name: &str) -> Vec<String> {
    attr(op, name)
        .and_then(|a| crate::attrs::string_array(unsafe { melior::ir::Attribute::from_raw(a) }))
        .unwrap_or_default()
}

/// Whether `value` can be used at `op` without reordering: a block argument, or the
/// result of an op before `op` in the same block.
pub fn available_at(value: MlirValue, op: MlirOperation) -> bool {
    match defining_op(value) {
        None => true,
        Some(def) => {
            parent_block(def).ptr == parent_block(op).ptr && unsafe { mlirOperationIsBeforeInBlock(def, op) }
        }
    }
}

/// The `fuselab.eager_id` of `op`, if it has one.
pub fn eager_id_of(op: mlir_sys::MlirOperation) -> Option<i64> {
    attr(op, crate::attrs::EAGER_ID_ATTR)
        .and_then(|a| crate::attrs::integer(unsafe { melior::ir::Attribute::from_raw(a) }))
}

/// The value and dtype of an `arith.constant` that is a splat dense tensor.
pub fn splat_value(op: mlir_sys::MlirOperation) -> Option<(f64, crate::types::DType)> {
    let value = attr(op, "value")?;
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseElements(value) || !mlir_sys::mlirDenseElementsAttrIsSplat(value) {
            return None;
        }
        let ty = crate::types::TensorType::from_mlir(melior::ir::Type::from_raw(value_type(result(op, 0))))
            .ok()?;
        let v = match ty.dtype {
            crate::types::DType::F32 | crate::types::DType::F16 | crate::types::DType::BF16 => {
                mlir_sys::mlirDenseElementsAttrGetFloatSplatValue(value) as f64
            }
            crate::types::DType::I64 => mlir_sys::mlirDenseElementsAttrGetInt64SplatValue(value) as f64,
            crate::types::DType::I32 => f64::from(mlir_sys::mlirDenseElementsAttrGetInt32SplatValue(value)),
            crate::types::DType::I1 => mlir_sys::mlirDenseElementsAttrGetBoolSplatValue(value) as i32 as f64,
        };
        let v = if ty.dtype == crate::types::DType::F32 || !ty.dtype.is_float() {
            v
        } else {
            // f16/bf16 splats: read through the generic attribute.
            crate::attrs::float(melior::ir::Attribute::from_raw(
                mlir_sys::mlirDenseElementsAttrGetSplatValue(value),
            ))
            .unwrap_or(v)
        };
        Some((v, ty.dtype))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{source::parse_module, DiagnosticSink, FuseContext};

    /// The constant-time use queries agree with the full list of users: none, one, two
    /// uses by one op (not a sole user), and uses by several ops.
    #[test]
    fn use_queries_agree_with_the_user_list() {
        let fuse = FuseContext::new().expect("context");
        let sink = DiagnosticSink::new();
        let text = "func.func @f(%x: f32) -> f32 {\n  %unused = arith.addf %x, %x : f32\n  \
                    %once = arith.mulf %x, %x : f32\n  %twice = arith.addf %once, %x : f32\n  \
                    %y = arith.mulf %twice, %twice : f32\n  return %y : f32\n}";
        let module = parse_module(fuse.context(), text, "uses.mlir", &sink).expect("parses");
        let ops = collect_ops(module.as_operation().to_raw(), |n| n.starts_with("arith."));
        let [unused, once, twice, y] = ops[..] else {
            panic!("four arith ops, got {}", ops.len())
        };
        let x = operand(unused, 0);
        for (value, users_expected) in [
            (result(unused, 0), 0),
            (result(once, 0), 1),
            (result(twice, 0), 2),
            (result(y, 0), 1),
            (x, 5),
        ] {
            let all = users(value);
            assert_eq!(all.len(), users_expected);
            assert_eq!(has_uses(value), !all.is_empty());
            assert_eq!(first_user(value).map(|o| o.ptr), all.first().map(|o| o.ptr));
            assert_eq!(
                sole_user(value).map(|o| o.ptr),
                (all.len() == 1).then(|| all[0].ptr)
            );
        }
        assert_eq!(sole_user(result(once, 0)).map(|o| o.ptr), Some(twice.ptr));
    }
}
