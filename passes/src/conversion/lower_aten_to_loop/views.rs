//! View ops as index maps, and graph outputs returned as views of buffers.

use super::*;

/// For a view op, the input's logical index as a function of the output's dims.
pub(super) fn view_map(op: &AtenOp, input: &[i64], output: &[i64]) -> Result<Vec<IndexExpr>, String> {
    let d = IndexExpr::dim;
    let rank = input.len();
    Ok(match op.kind() {
        AtenOpKind::View | AtenOpKind::Reshape => unravel(&contiguous_index(output), input, output),
        AtenOpKind::Permute => {
            let dims: Vec<usize> = op
                .dims()
                .ok_or("missing dims")?
                .iter()
                .map(|&p| wrap(p, rank))
                .collect();
            let mut map = vec![IndexExpr::constant(0); rank];
            for (j, &p) in dims.iter().enumerate() {
                map[p] = d(j);
            }
            map
        }
        AtenOpKind::Transpose => {
            let a = wrap(op.int(attr::DIM0).ok_or("missing dim0")?, rank);
            let b = wrap(op.int(attr::DIM1).ok_or("missing dim1")?, rank);
            let mut map: Vec<IndexExpr> = (0..rank).map(d).collect();
            map.swap(a, b);
            map
        }
        AtenOpKind::Expand => broadcast_index(input, output),
        AtenOpKind::Unsqueeze => {
            let u = wrap(op.dim().ok_or("missing dim")?, rank + 1);
            (0..rank).map(|k| if k < u { d(k) } else { d(k + 1) }).collect()
        }
        AtenOpKind::Squeeze => {
            // The dims named by `dims` (every dim when it is empty) that have size 1 are
            // dropped, as the verifier computes the result shape; the others keep their
            // order. (Matching sizes greedily dropped the wrong size-1 dim of
            // [1, 3, 1, 4] squeezed at 2.)
            let dims: Vec<usize> = op
                .dims()
                .ok_or("missing dims")?
                .iter()
                .map(|&k| wrap(k, rank))
                .collect();
            let mut next = 0;
            (0..rank)
                .map(|k| {
                    if input[k] == 1 && (dims.is_empty() || dims.contains(&k)) {
                        IndexExpr::constant(0)
                    } else {
                        next += 1;
                        d(next - 1)
                    }
                })
                .collect()
        }
        AtenOpKind::Slice => {
            let s = wrap(op.dim().ok_or("missing dim")?, rank);
            let size = input[s];
            let start = op.int(attr::START).ok_or("missing start")?;
            let start = if start < 0 {
                (start + size).max(0)
            } else {
                start.min(size)
            };
            let step = op.int(attr::STEP).ok_or("missing step")?;
            (0..rank)
                .map(|k| {
                    if k == s {
                        d(k).scale(step).add(&IndexExpr::constant(start))
                    } else {
                        d(k)
                    }
                })
                .collect()
        }
        AtenOpKind::Select => {
            let s = wrap(op.dim().ok_or("missing dim")?, rank);
            let index = op.int(attr::INDEX).ok_or("missing index")?;
            let index = if index < 0 { index + input[s] } else { index };
            (0..rank)
                .map(|k| match k.cmp(&s) {
                    std::cmp::Ordering::Less => d(k),
                    std::cmp::Ordering::Equal => IndexExpr::constant(index),
                    std::cmp::Ordering::Greater => d(k - 1),
                })
                .collect()
        }
        other => return Err(format!("'{other}' is not a view")),
    })
}

/// A graph output that is a strided view of a buffer is returned as that buffer (same
/// layout) or a `loop.view` of it, without a copy (Inductor's ReinterpretView output).
pub(super) fn reinterpret(anchor: MlirOperation, access: &Access) -> Option<MlirValue> {
    let Access::Buffer {
        base, shape, index, ..
    } = access
    else {
        return None;
    };
    let base_type = ir::tensor_type(*base)?;
    if let Some(stored) = access.stored_buffer() {
        return Some(stored);
    }
    let strides = index.linear_coefficients(shape.len())?;
    let mut layout = vec![index.constant_part()];
    layout.extend(shape);
    layout.extend(strides);
    let ctx = ir::context(anchor);
    let dtype = base_type.dtype;
    let ty = ir::parse_type(
        ctx,
        &TensorType {
            shape: shape.clone(),
            dtype,
        }
        .to_string(),
    )?;
    let view = ir::create(
        names::VIEW,
        ir::location(anchor),
        &[*base],
        &[ty],
        &[("layout", ir::i64_array_attr(ctx, &layout))],
        Vec::new(),
    );
    ir::insert_before(anchor, view);
    Some(ir::result(view, 0))
}
