//! Inductor's loop reordering after fusion, as plain data (torch/_inductor/scheduler.py
//! at v2.11: `shared_data_after_reordering_loop`, `SchedulerNode.reorder_loops_by_dep_pair`;
//! dependencies.py: `MemoryDep.normalize_with_stride_order`, `decide_loop_order_to_match`).
//!
//! When two nodes share a buffer but address it through differently ordered loops (one
//! reads `x[b, i, k]` iterating `(b, i, k)`, the other iterates `(b, k, i)`), their
//! MemoryDeps differ and `score_fusion_memory` sees no shared data. Inductor then
//! compares the two deps *normalized by stride order* (loops sorted by decreasing stride,
//! contiguous loops merged); if they agree, it permutes the loops of the pointwise one
//! so that its dep becomes the other's, and scores the pair again. Only in the extra
//! round after the ordinary ones, only on GPU nodes (`any(n.is_cpu())` returns -1: the
//! C++ back end does not reorder), never for two reductions, and only where both deps
//! have the same number of loop variables with distinct strides.

use crate::analysis::memory_deps::MemoryDep;

/// A dependency normalized by stride order: the buffer's constant offset and its loops
/// as `(stride, extent)`, strides decreasing, contiguous neighbours merged, size-1 and
/// stride-0 loops dropped. Two accesses equal in this form touch the same elements in
/// the same memory order, whatever the order of the loops that produce them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrideForm {
    /// The buffer.
    pub buffer: String,
    /// The constant offset.
    pub constant: i64,
    /// `(stride, extent)` per merged loop, outermost first.
    pub loops: Vec<(i64, i64)>,
}

/// `normalize_with_stride_order` of `dep`; `None` for whole-buffer, indirect or
/// non-linear (floordiv/mod) accesses, which Inductor does not reorder for.
pub fn stride_form(dep: &MemoryDep) -> Option<StrideForm> {
    if dep.star || dep.is_indirect() {
        return None;
    }
    let coefficients = dep.index.linear_coefficients(dep.ranges.len())?;
    let mut loops: Vec<(i64, i64)> = coefficients
        .into_iter()
        .zip(dep.ranges.iter().copied())
        .filter(|&(stride, extent)| extent > 1 && stride != 0)
        .collect();
    loops.sort_by_key(|&(stride, _)| std::cmp::Reverse(stride));
    Some(StrideForm {
        buffer: dep.buffer.clone(),
        constant: dep.index.constant_part(),
        loops: merge(loops),
    })
}

/// `_simplify_loops`: neighbours merged where the outer stride is the inner one times
/// its extent.
fn merge(loops: impl IntoIterator<Item = (i64, i64)>) -> Vec<(i64, i64)> {
    let mut merged: Vec<(i64, i64)> = Vec::new();
    for (stride, extent) in loops {
        match merged.last_mut() {
            Some(outer) if outer.0 == stride * extent => *outer = (stride, outer.1 * extent),
            _ => merged.push((stride, extent)),
        }
    }
    merged
}

/// `dep`'s loops that are not size 1, in its own order, as `(stride, extent)` (unmerged:
/// the variables of an Inductor scheduler node, which iterates without its size-1 dims),
/// as a [`StrideForm`]; `None` where [`stride_form`] is.
pub fn squeezed_in_order(dep: &MemoryDep) -> Option<StrideForm> {
    stride_form(dep)?;
    let coefficients = dep.index.linear_coefficients(dep.ranges.len())?;
    let loops = coefficients.into_iter().zip(dep.ranges.iter().copied());
    Some(StrideForm {
        buffer: dep.buffer.clone(),
        constant: dep.index.constant_part(),
        loops: loops.filter(|&(_, extent)| extent != 1).collect(),
    })
}

/// `MemoryDep.normalize`: [`squeezed_in_order`] with neighbours merged where the outer
/// stride is the inner one times its extent (`_simplify_loops`); the loops keep the
/// dep's order.
pub fn merged_in_order(dep: &MemoryDep) -> Option<StrideForm> {
    let mut form = squeezed_in_order(dep)?;
    form.loops = merge(form.loops);
    Some(form)
}

/// `decide_loop_order_to_match`: the order in which a node with loop extents `vars`
/// must iterate so that its dep `this` becomes `other` (a dep of a node with the same
/// number of loop variables): iteration dim `k` is the node's dim `order[k]`. Size-1
/// dims keep their places. `None` where the two do not normalize alike, where either
/// dep does not use every variable of its node, where strides repeat (the order would
/// be ambiguous), or where the order found is the node's own.
pub fn loop_order_to_match(this: &MemoryDep, vars: &[i64], other: &MemoryDep) -> Option<Vec<usize>> {
    if this.ranges.len() != vars.len() || other.ranges.len() != vars.len() {
        return None;
    }
    let (a, b) = (stride_form(this)?, stride_form(other)?);
    if a != b {
        return None;
    }
    let strides = |dep: &MemoryDep| -> Option<Vec<(usize, i64, i64)>> {
        let found: Vec<(usize, i64, i64)> = (0..dep.ranges.len())
            .filter(|&d| dep.ranges[d] != 1)
            .map(|d| dep.index.dim_coefficient(d).map(|s| (d, s, dep.ranges[d])))
            .collect::<Option<_>>()?;
        let mut seen: Vec<i64> = found.iter().map(|f| f.1).collect();
        seen.sort_unstable();
        seen.dedup();
        (seen.len() == found.len()).then_some(found)
    };
    let (mine, theirs) = (strides(this)?, strides(other)?);
    if mine.len() != theirs.len() {
        return None;
    }
    let mut order: Vec<usize> = (0..vars.len()).collect();
    for (slot, &(_, stride, extent)) in mine.iter().map(|m| m.0).zip(&theirs) {
        let &(d, _, _) = mine.iter().find(|m| m.1 == stride && m.2 == extent)?;
        order[slot] = d;
    }
    let identity = order.iter().enumerate().all(|(k, &d)| k == d);
    (!identity).then_some(order)
}

/// `order` applied after `first` (both as "iteration dim `k` is dim `order[k]`").
pub fn compose(first: &[usize], order: &[usize]) -> Vec<usize> {
    order.iter().map(|&k| first[k]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fuselab_dialects::loops::index::IndexExpr;

    /// A dep of `buffer` with `strides` over loops of `ranges` (`index = sum d_k * s_k`).
    fn dep(buffer: &str, strides: &[i64], ranges: &[i64]) -> MemoryDep {
        let mut index = IndexExpr::constant(0);
        for (k, &s) in strides.iter().enumerate() {
            index = index.add(&IndexExpr::dim(k).scale(s));
        }
        MemoryDep {
            buffer: buffer.into(),
            index,
            ranges: ranges.to_vec(),
            star: false,
            elem_bytes: 4,
            buffer_bytes: 4 * ranges.iter().product::<i64>() as u64,
        }
    }

    #[test]
    fn a_permuted_three_d_read_normalizes_like_the_contiguous_one() {
        // exp(x) over (b, i, k) of x[16, 128, 256] and exp(x).permute(0, 2, 1).sum(2)
        // iterating (b, k; i): the program `reorder_permute_3d` (Inductor fuses it only
        // with loop reordering on; tools/fidelity/programs.py).
        let pointwise = dep("x", &[32768, 256, 1], &[16, 128, 256]);
        let reduction = dep("x", &[32768, 1, 256], &[16, 256, 128]);
        assert_ne!(pointwise, reduction);
        let form = stride_form(&pointwise).unwrap();
        assert_eq!(form.loops, vec![(1, 16 * 128 * 256)]);
        assert_eq!(stride_form(&reduction), Some(form));
        let order = loop_order_to_match(&pointwise, &[16, 128, 256], &reduction).unwrap();
        assert_eq!(order, vec![0, 2, 1]);
    }

    #[test]
    fn the_reordered_node_reads_what_the_other_reads() {
        let pointwise = dep("x", &[1024, 1], &[512, 1024]);
        let transposed = dep("x", &[1, 1024], &[1024, 512]);
        let order = loop_order_to_match(&pointwise, &[512, 1024], &transposed).unwrap();
        assert_eq!(order, vec![1, 0]);
        // Re-expressed over the new loops (new dim k = old dim order[k]), the index is
        // the other node's.
        let dims: Vec<IndexExpr> = vec![IndexExpr::dim(1), IndexExpr::dim(0)];
        let moved = pointwise.index.substitute(&dims, &[], &[1024, 512]);
        assert_eq!(moved, transposed.index);
    }

    #[test]
    fn different_elements_or_orders_are_not_matched() {
        let a = dep("x", &[1024, 1], &[512, 1024]);
        // Another buffer, another offset, a strided (every other element) access.
        assert_eq!(
            loop_order_to_match(&a, &[512, 1024], &dep("y", &[1, 1024], &[1024, 512])),
            None
        );
        let mut offset = dep("x", &[1, 1024], &[1024, 512]);
        offset.index = offset.index.add(&IndexExpr::constant(4));
        assert_eq!(loop_order_to_match(&a, &[512, 1024], &offset), None);
        assert_eq!(
            loop_order_to_match(&a, &[512, 1024], &dep("x", &[2, 2048], &[1024, 512])),
            None
        );
        // The same order: nothing to do.
        assert_eq!(loop_order_to_match(&a, &[512, 1024], &a), None);
        // Fewer variables on one side (a row broadcast), repeated strides.
        assert_eq!(
            loop_order_to_match(&a, &[512, 1024], &dep("x", &[1024, 1], &[512, 1024, 8])),
            None
        );
        let diagonal = dep("x", &[1, 1], &[64, 64]);
        assert_eq!(loop_order_to_match(&diagonal, &[64, 64], &diagonal.clone()), None);
        // A broadcast read is a stride 0, distinct from the others: x[j] over (i, j)
        // matches x[i] over (i, j) by swapping the loops.
        let rows = dep("x", &[0, 1], &[64, 64]);
        assert_eq!(
            loop_order_to_match(&rows, &[64, 64], &dep("x", &[1, 0], &[64, 64])),
            Some(vec![1, 0])
        );
    }

    #[test]
    fn unit_dims_keep_their_places() {
        let a = dep("x", &[0, 1024, 1], &[1, 512, 1024]);
        let b = dep("x", &[1, 1024, 0], &[1024, 512, 1]);
        // Normalized alike; the size-1 dims stay where they are on each side, so the
        // non-unit loops (512, 1024) of `a` iterate as (1024, 512).
        let order = loop_order_to_match(&a, &[1, 512, 1024], &b).unwrap();
        assert_eq!(order, vec![0, 2, 1]);
    }

    #[test]
    fn orders_compose() {
        assert_eq!(compose(&[0, 2, 1], &[1, 0, 2]), vec![2, 0, 1]);
    }
}
