//! Inductor's reduction hint (torch/_inductor/ir.py `Reduction` / `ReductionHint`): whether
//! a reduction reads its inputs across rows (*outer*: a column sum) or along them. The
//! GPU target splits outer reductions by another factor (`--split-reductions`) and
//! launches them with Inductor's outer block shape (`--lower-loop-to-tile`).

use fuselab_dialects::{
    ir::{self, i64s},
    loops::{index::from_affine_map_attr, names},
};
use mlir_sys::MlirOperation;

/// Whether `node` is an outer reduction (Inductor's `ReductionHint.OUTER`): of its loads
/// whose index uses every loop index (but those of extent 1), more read with every reduction index strided than
/// not. `None` when no load uses every index (Inductor then does not split) and for
/// nodes that do not reduce.
pub fn reads_outer(node: MlirOperation) -> Option<bool> {
    if ir::op_name(node) != names::REDUCTION {
        return None;
    }
    let body = ir::body(node)?;
    let mut extents = i64s(node, "ranges");
    let n = extents.len();
    extents.extend(i64s(node, "reduction_ranges"));
    let all = extents.len();
    let (mut outer, mut inner) = (0, 0);
    for load in ir::ops_named(body, names::LOAD) {
        let Some((index, _, _)) = ir::attr(load, "index").and_then(from_affine_map_attr) else {
            continue;
        };
        // Size-1 dims are no loop variables to Inductor (`index_vars_squeeze`).
        if !(0..all).all(|d| extents[d] == 1 || index.uses_dim(d)) {
            continue;
        }
        // floordiv / mod / indirect indices: no plain stride, counted as inner.
        match index.linear_coefficients(all) {
            Some(strides) if strides[n..].iter().all(|&s| s.abs() > 1) => outer += 1,
            _ => inner += 1,
        }
    }
    (outer + inner > 0).then_some(outer > inner)
}
