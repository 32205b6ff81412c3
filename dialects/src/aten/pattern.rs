//! Small queries that the aten-level pattern passes (`--fuse-attention`,
//! `--fuse-rnn-cells`) share when they match a decomposed form.

use super::AtenOpKind;
use crate::ir;
use mlir_sys::{MlirOperation, MlirValue};
use std::collections::{HashMap, HashSet};

/// The aten kind of `op`, if it is an aten op.
pub fn kind_of(op: MlirOperation) -> Option<AtenOpKind> {
    AtenOpKind::from_op_name(&ir::op_name(op))
}

/// The op defining `v` when it is the aten op `kind`.
pub fn defined_by(v: MlirValue, kind: AtenOpKind) -> Option<MlirOperation> {
    ir::defining_op(v).filter(|&op| kind_of(op) == Some(kind))
}

/// The ops reading `op`'s first result, each once.
pub fn users_of(op: MlirOperation) -> Vec<MlirOperation> {
    let mut users = ir::users(ir::result(op, 0));
    users.sort_by_key(|u| u.ptr as usize);
    users.dedup_by_key(|u| u.ptr);
    users
}

/// The only op reading `op`'s first result.
pub fn sole_user(op: MlirOperation) -> Option<MlirOperation> {
    match users_of(op).as_slice() {
        [u] => Some(*u),
        _ => None,
    }
}

/// Whether every op of a matched form `ops` is read only by ops of the form, but those
/// defining one of its `results` (which the replacement takes over).
pub fn self_contained(ops: &[MlirOperation], results: &[MlirValue]) -> bool {
    let inside: HashSet<usize> = ops.iter().map(|o| o.ptr as usize).collect();
    let outputs: HashSet<usize> = results.iter().map(|v| v.ptr as usize).collect();
    ops.iter().all(|&o| {
        let r = ir::result(o, 0);
        outputs.contains(&(r.ptr as usize)) || ir::users(r).iter().all(|u| inside.contains(&(u.ptr as usize)))
    })
}

/// The values a pattern pass replaced so far, for passes that match every form first and
/// rewrite after: a later form may read a value an earlier rewrite replaced (an unrolled
/// LSTM's step reads the previous step's `hy` and `cy`), and that value's op is erased.
/// Each rewrite reads its operands through [`Rewrites::resolve`].
#[derive(Default)]
pub struct Rewrites {
    replaced: HashMap<usize, MlirValue>,
}

impl Rewrites {
    /// Replaces every use of `old` by `new` and remembers it.
    pub fn replace(&mut self, old: MlirValue, new: MlirValue) {
        ir::replace_uses(old, new);
        self.replaced.insert(old.ptr as usize, new);
    }

    /// What `v` stands for now: the value that replaced it (transitively), or `v`.
    pub fn resolve(&self, mut v: MlirValue) -> MlirValue {
        while let Some(&next) = self.replaced.get(&(v.ptr as usize)) {
            v = next;
        }
        v
    }
}
