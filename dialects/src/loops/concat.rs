//! The `concat` extern (Inductor's ConcatKernel): its pieces, the mm results written
//! into it, and its verifier.

use super::{attr, names, ExternKind};
use crate::{attrs, ir};

/// The kind of the `loop.extern` `op` (`None` for another op or an unknown kind).
pub fn extern_kind(op: mlir_sys::MlirOperation) -> Option<ExternKind> {
    if ir::op_name(op) != names::EXTERN {
        return None;
    }
    ExternKind::parse(&ir::attr(op, attr::KIND).and_then(attrs::string_raw)?)
}

/// Whether `op` is a `concat` extern.
pub fn is_concat(op: mlir_sys::MlirOperation) -> bool {
    extern_kind(op) == Some(ExternKind::Concat)
}

/// The pieces of a `concat` extern: its `dim` and, per operand, where its slice starts
/// along `dim`.
pub fn concat_slices(op: mlir_sys::MlirOperation) -> Option<(usize, Vec<i64>)> {
    let dim = ir::integer(op, "dim")?;
    let mut starts = Vec::new();
    let mut at = 0;
    for v in ir::operands(op) {
        starts.push(at);
        at += ir::tensor_type(v)?.shape.get(usize::try_from(dim).ok()?)?;
    }
    Some((usize::try_from(dim).ok()?, starts))
}

/// Whether `value` is the result of an mm extern (no bias) whose one user is `concat`:
/// a result Inductor realizes straight into its slice of the concatenation.
pub fn written_into_concat(value: mlir_sys::MlirValue, concat: mlir_sys::MlirOperation) -> bool {
    let Some(producer) = ir::defining_op(value) else {
        return false;
    };
    let users = ir::users(value);
    is_concat(concat)
        && extern_kind(producer) == Some(ExternKind::Mm)
        && ir::operands(producer).len() == 2
        && users.len() == 1
        && users[0].ptr == concat.ptr
}

/// A `concat` extern: a `dim` within the rank, at least two operands of its result's
/// rank and dtype that agree with it off `dim` and add up along it, each an mm result
/// written into its slice ([`written_into_concat`]).
pub(super) fn check_concat(op: mlir_sys::MlirOperation) -> Result<(), String> {
    let out = ir::tensor_type(ir::result(op, 0)).ok_or("result is not a supported tensor")?;
    let dim = ir::integer(op, "dim").ok_or("concat requires an integer 'dim'")?;
    let d = usize::try_from(dim)
        .ok()
        .filter(|&d| d < out.rank())
        .ok_or_else(|| format!("concat 'dim' {dim} is outside the result's rank {}", out.rank()))?;
    let operands = ir::operands(op);
    if operands.len() < 2 {
        return Err("concat takes at least two operands".into());
    }
    let mut along = 0;
    for (i, &v) in operands.iter().enumerate() {
        let t = ir::tensor_type(v).ok_or("operand is not a supported tensor")?;
        let off_dim = |s: &[i64]| -> Vec<i64> {
            s.iter()
                .enumerate()
                .filter(|&(k, _)| k != d)
                .map(|(_, &x)| x)
                .collect()
        };
        if t.rank() != out.rank() || t.dtype != out.dtype || off_dim(&t.shape) != off_dim(&out.shape) {
            return Err(format!(
                "concat operand #{i} {t} does not fit the result {out} along dim {d}"
            ));
        }
        along += t.shape[d];
        if !written_into_concat(v, op) {
            return Err(format!(
                "concat operand #{i} must be the result of an mm extern (no bias) that only this concat reads"
            ));
        }
    }
    if along != out.shape[d] {
        return Err(format!(
            "concat operands add up to {along} along dim {d}, the result has {}",
            out.shape[d]
        ));
    }
    Ok(())
}

/// For `value`, an mm result written into a `concat` extern: that concat, its `dim`,
/// and where `value`'s slice starts along it. `None` for any other value.
pub fn concat_part(value: mlir_sys::MlirValue) -> Option<(mlir_sys::MlirOperation, usize, i64)> {
    let concat = ir::first_user(value)?;
    if !written_into_concat(value, concat) {
        return None;
    }
    let (dim, starts) = concat_slices(concat)?;
    let part = ir::operands(concat).iter().position(|v| v.ptr == value.ptr)?;
    Some((concat, dim, starts[part]))
}
