//! PyTorch's fused recurrent cells, one domain type for the `aten.fused_*_cell` ops and
//! the `lstm_cell` / `gru_cell` externs they lower to.
//!
//! On CUDA `lstm_cell` and `gru_cell` (aten/src/ATen/native/RNN.cpp, `LSTMCell` /
//! `GRUCell::operator()`: `input.is_cuda()`) compute the two gate products without
//! their biases and hand them, the state and both biases to one kernel,
//! `_thnn_fused_lstm_cell` / `_thnn_fused_gru_cell`, which Inductor keeps as a library
//! call (lowering.py: `make_fallback(aten._thnn_fused_lstm_cell, ...)`). fuselab's form
//! takes the two products stacked along dim 0 (`[2B, G*H]`: IRDL binds one type to all
//! of an op's variadic operands, and the biases are those) and returns an LSTM's hy and
//! cy stacked (`[2, B, H]`: one result per op).

use crate::types::TensorType;

/// Which cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CellKind {
    /// LSTM: gates input, forget, cell, output; state cx; result hy and cy.
    Lstm,
    /// GRU: gates reset, update, new; state hx; result hy.
    Gru,
}

impl CellKind {
    /// Both kinds.
    pub const ALL: [CellKind; 2] = [CellKind::Lstm, CellKind::Gru];

    /// How many gates the products hold along dim 1.
    pub const fn gates(self) -> i64 {
        match self {
            Self::Lstm => 4,
            Self::Gru => 3,
        }
    }

    /// The `loop.extern` kind it lowers to.
    pub const fn extern_kind(self) -> &'static str {
        match self {
            Self::Lstm => "lstm_cell",
            Self::Gru => "gru_cell",
        }
    }

    /// The aten op of the cell.
    pub const fn aten(self) -> super::AtenOpKind {
        match self {
            Self::Lstm => super::AtenOpKind::FusedLstmCell,
            Self::Gru => super::AtenOpKind::FusedGruCell,
        }
    }

    /// The cell of an aten op kind.
    pub fn of_aten(kind: super::AtenOpKind) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.aten() == kind)
    }

    /// The cell of a `loop.extern` kind attribute value.
    pub fn of_extern(kind: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.extern_kind() == kind)
    }
}

/// The sizes of one fused cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RnnCell {
    /// Which cell.
    pub kind: CellKind,
    /// Rows (B).
    pub batch: i64,
    /// Hidden size (H).
    pub hidden: i64,
    /// Whether the input and hidden biases are operands.
    pub biased: bool,
}

impl RnnCell {
    /// The cell over operands of `inputs` types: gates `[2B, G*H]`, state `[B, H]`, and
    /// none or two biases `[G*H]`, all of one float dtype.
    pub fn from_types(kind: CellKind, inputs: &[TensorType]) -> Result<Self, String> {
        let (gates, state, biases) = match inputs {
            [g, s, rest @ ..] if rest.is_empty() || rest.len() == 2 => (g, s, rest),
            _ => {
                return Err(format!(
                    "takes the gate products, the state and none or two biases, got {} operands",
                    inputs.len()
                ))
            }
        };
        let [b, h] = state.shape[..] else {
            return Err(format!("expects a state [B, H], got {state}"));
        };
        let width = kind.gates() * h;
        if gates.shape != [2 * b, width] {
            return Err(format!(
                "expects the two gate products stacked as [{}, {width}] for the state {state}, got {gates}",
                2 * b
            ));
        }
        if let Some(bias) = biases.iter().find(|t| t.shape != [width]) {
            return Err(format!("expects biases [{width}], got {bias}"));
        }
        if !gates.dtype.is_float() || inputs.iter().any(|t| t.dtype != gates.dtype) {
            return Err(format!(
                "expects operands of one float dtype, got {}",
                inputs
                    .iter()
                    .map(|t| t.dtype.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Ok(Self {
            kind,
            batch: b,
            hidden: h,
            biased: !biases.is_empty(),
        })
    }

    /// The result's shape: `[2, B, H]` (hy, cy) for an LSTM, `[B, H]` for a GRU.
    pub fn result_shape(&self) -> Vec<i64> {
        match self.kind {
            CellKind::Lstm => vec![2, self.batch, self.hidden],
            CellKind::Gru => vec![self.batch, self.hidden],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::DType;

    fn t(shape: &[i64]) -> TensorType {
        TensorType {
            shape: shape.to_vec(),
            dtype: DType::F32,
        }
    }

    #[test]
    fn sizes_from_operands() {
        let cell = RnnCell::from_types(CellKind::Lstm, &[t(&[8, 128]), t(&[4, 32]), t(&[128]), t(&[128])])
            .expect("an LSTM cell");
        assert_eq!((cell.batch, cell.hidden, cell.biased), (4, 32, true));
        assert_eq!(cell.result_shape(), [2, 4, 32]);
        let gru = RnnCell::from_types(CellKind::Gru, &[t(&[8, 96]), t(&[4, 32])]).expect("a GRU cell");
        assert_eq!((gru.biased, gru.result_shape()), (false, vec![4, 32]));
    }

    #[test]
    fn rejects_what_does_not_fit() {
        // GRU products are 3H wide, not 4H.
        let wide = RnnCell::from_types(CellKind::Gru, &[t(&[8, 128]), t(&[4, 32])]);
        assert!(wide.as_ref().is_err_and(|e| e.contains("[8, 96]")), "{wide:?}");
        let one_bias = RnnCell::from_types(CellKind::Lstm, &[t(&[8, 128]), t(&[4, 32]), t(&[128])]);
        assert!(one_bias.is_err());
        let bias = RnnCell::from_types(CellKind::Lstm, &[t(&[8, 128]), t(&[4, 32]), t(&[96]), t(&[96])]);
        assert!(bias.is_err_and(|e| e.contains("biases [128]")));
        let ints = TensorType {
            shape: vec![4, 32],
            dtype: DType::I64,
        };
        assert!(RnnCell::from_types(CellKind::Lstm, &[t(&[8, 128]), ints]).is_err());
    }
}
