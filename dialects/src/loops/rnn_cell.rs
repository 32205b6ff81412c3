//! The verifier of the `lstm_cell` and `gru_cell` externs (PyTorch's fused recurrent
//! cells, `crate::aten::RnnCell`).

use super::{ExternKind, LoopOp};
use crate::aten::{CellKind, RnnCell};
use crate::{ir, types::TensorType};

/// An `lstm_cell` / `gru_cell` extern: operands that fit one cell and its result type.
pub(super) fn check_rnn_cell(op: &LoopOp, kind: ExternKind) -> Result<(), String> {
    let raw = op.operation().to_raw();
    let cell = CellKind::of_extern(kind.as_str()).ok_or("not a recurrent cell")?;
    // An operand read through a view (its `operand_views` entry) has the view's shape.
    let views = super::operand_views(raw);
    let inputs: Vec<TensorType> = ir::operands(raw)
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let t = ir::tensor_type(v).ok_or(format!("operand #{i} is not a supported tensor"))?;
            match views.get(i).filter(|l| !l.is_empty()) {
                Some(layout) => super::ViewLayout::parse(layout)
                    .map(|l| TensorType {
                        shape: l.sizes,
                        dtype: t.dtype,
                    })
                    .ok_or(format!("operand #{i} has a malformed view")),
                None => Ok(t),
            }
        })
        .collect::<Result<_, _>>()?;
    let sizes =
        RnnCell::from_types(cell, &inputs).map_err(|e| format!("a '{}' extern {e}", kind.as_str()))?;
    let result = ir::tensor_type(ir::result(raw, 0)).ok_or("result is not a supported tensor")?;
    let expected = TensorType {
        shape: sizes.result_shape(),
        dtype: inputs[0].dtype,
    };
    if result != expected {
        return Err(format!(
            "a '{}' extern over these operands gives {expected}, not {result}",
            kind.as_str()
        ));
    }
    Ok(())
}
