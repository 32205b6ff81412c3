//! PyTorch's fused recurrent cells as their CUDA kernels compute them
//! (aten/src/ATen/native/cuda/RNN.cu `lstm_cell_forward` / `gru_cell_forward`): the
//! gates in the accumulation type (here f64) from the two products and the biases,
//! each result rounded once to its dtype. fuselab's operand form (gate products
//! stacked, LSTM results stacked): `fuselab_dialects::aten::RnnCell`.

use crate::tensor::{round_to, Tensor};
use fuselab_dialects::aten::{CellKind, RnnCell};
use fuselab_dialects::types::DType;

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The cell `kind` over `gates` [2B, G*H] (input products, then hidden products),
/// `state` [B, H] and `biases` (none, or input and hidden [G*H]); the result in `dtype`
/// ([2, B, H] hy then cy for an LSTM, [B, H] hy for a GRU). `None` when the operands do
/// not fit one cell.
pub fn fused_cell(
    kind: CellKind,
    gates: &Tensor,
    state: &Tensor,
    biases: &[&Tensor],
    dtype: DType,
) -> Option<Tensor> {
    let types: Vec<_> = [gates, state]
        .into_iter()
        .chain(biases.iter().copied())
        .map(|t| fuselab_dialects::types::TensorType {
            shape: t.shape.clone(),
            dtype,
        })
        .collect();
    let cell = RnnCell::from_types(kind, &types).ok()?;
    let (b, h) = (cell.batch as usize, cell.hidden as usize);
    let width = kind.gates() as usize * h;
    // Gate `g`, column `j` of row `r`: input product (+ its bias), hidden product (+ its bias).
    let input = |r: usize, g: usize, j: usize| {
        let c = g * h + j;
        gates.data[r * width + c] + biases.first().map_or(0.0, |t| t.data[c])
    };
    let hidden = |r: usize, g: usize, j: usize| {
        let c = g * h + j;
        gates.data[(b + r) * width + c] + biases.get(1).map_or(0.0, |t| t.data[c])
    };
    let mut out = vec![0.0; cell.result_shape().iter().product::<i64>() as usize];
    for r in 0..b {
        for j in 0..h {
            let gate = |g| input(r, g, j) + hidden(r, g, j);
            let s = state.data[r * h + j];
            match kind {
                CellKind::Lstm => {
                    let (i, f, c, o) = (
                        sigmoid(gate(0)),
                        sigmoid(gate(1)),
                        gate(2).tanh(),
                        sigmoid(gate(3)),
                    );
                    let cy = f * s + i * c;
                    out[r * h + j] = round_to(o * cy.tanh(), dtype);
                    out[(b + r) * h + j] = round_to(cy, dtype);
                }
                CellKind::Gru => {
                    let reset = sigmoid(gate(0));
                    let update = sigmoid(gate(1));
                    let new = (input(r, 2, j) + reset * hidden(r, 2, j)).tanh();
                    out[r * h + j] = round_to(new + update * (s - new), dtype);
                }
            }
        }
    }
    Some(Tensor::new(cell.result_shape(), dtype, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(shape: &[i64], data: &[f64]) -> Tensor {
        Tensor::new(shape.to_vec(), DType::F32, data.to_vec())
    }

    #[test]
    fn lstm_by_hand() {
        // B = 1, H = 1: input products [i f c o] = [0, 0, 0.5, 0], hidden products
        // [0, 0, 0, 0.2], biases 0.1 on the forget gate only (input bias).
        let gates = t(&[2, 4], &[0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.2]);
        let cx = t(&[1, 1], &[2.0]);
        let b_ih = t(&[4], &[0.0, 0.1, 0.0, 0.0]);
        let b_hh = t(&[4], &[0.0; 4]);
        let out = fused_cell(CellKind::Lstm, &gates, &cx, &[&b_ih, &b_hh], DType::F32).expect("fits");
        let cy = sigmoid(0.1) * 2.0 + 0.5 * 0.5f64.tanh();
        let hy = sigmoid(0.2) * cy.tanh();
        assert_eq!(out.shape, [2, 1, 1]);
        assert!(
            (out.data[0] - hy).abs() < 1e-6 && (out.data[1] - cy).abs() < 1e-6,
            "{out:?}"
        );
    }

    #[test]
    fn gru_by_hand() {
        // The new gate's hidden product is scaled by the reset gate, its input product
        // is not: r = sigmoid(0.3 + 0), z = sigmoid(0 - 0.4), n = tanh(0.7 + r * 0.9).
        let gates = t(&[2, 3], &[0.3, 0.0, 0.7, 0.0, -0.4, 0.9]);
        let hx = t(&[1, 1], &[-1.5]);
        let out = fused_cell(CellKind::Gru, &gates, &hx, &[], DType::F32).expect("fits");
        let (r, z) = (sigmoid(0.3), sigmoid(-0.4));
        let n = (0.7 + r * 0.9f64).tanh();
        assert_eq!(out.shape, [1, 1]);
        assert!((out.data[0] - (n + z * (-1.5 - n))).abs() < 1e-6, "{out:?}");
    }

    #[test]
    fn refuses_what_does_not_fit() {
        let gates = t(&[2, 4], &[0.0; 8]);
        assert!(fused_cell(CellKind::Gru, &gates, &t(&[1, 1], &[0.0]), &[], DType::F32).is_none());
    }
}
