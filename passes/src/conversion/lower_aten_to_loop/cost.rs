//! The eager baseline recorded on every function: one kernel per original aten op.

use super::*;

/// Bytes of a value's tensor type (0 if not a supported tensor).
pub(super) fn value_bytes(value: MlirValue) -> u64 {
    ir::tensor_type(value).map_or(0, |t| t.size_bytes())
}

/// One eager kernel per original aten op (decomposed composites count once).
pub(super) fn unfused_cost(ops: &[MlirOperation], is_view: &dyn Fn(MlirOperation) -> bool) -> [i64; 3] {
    let mut groups: Vec<(Option<i64>, Vec<MlirOperation>)> = Vec::new();
    // The group of each eager id (a lookup per op, not a scan of the groups so far).
    let mut group_of: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
    for &op in ops {
        let id = ir::eager_id_of(op);
        match id.and_then(|id| group_of.get(&id)) {
            Some(&g) => groups[g].1.push(op),
            None => {
                if let Some(id) = id {
                    group_of.insert(id, groups.len());
                }
                groups.push((id, vec![op]));
            }
        }
    }
    let (mut kernels, mut read, mut written) = (0i64, 0u64, 0u64);
    for (_, members) in &groups {
        if members.iter().all(|&m| is_view(m)) {
            continue;
        }
        kernels += 1;
        let inside =
            |v: MlirValue| ir::defining_op(v).is_some_and(|d| members.iter().any(|m| m.ptr == d.ptr));
        let mut seen: Vec<usize> = Vec::new();
        for &m in members {
            for v in ir::operands(m) {
                let is_scalar_constant =
                    ir::defining_op(v).is_some_and(|d| ir::op_name(d) == "arith.constant");
                if !inside(v) && !is_scalar_constant && !seen.contains(&key(v)) {
                    seen.push(key(v));
                    read += value_bytes(v);
                }
            }
            let r = ir::result(m, 0);
            if ir::users(r)
                .iter()
                .any(|u| !members.iter().any(|m| m.ptr == u.ptr))
            {
                written += value_bytes(r);
            }
        }
    }
    [kernels, read as i64, written as i64]
}
