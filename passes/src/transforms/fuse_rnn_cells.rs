//! `--fuse-rnn-cells`: an LSTM or GRU cell as one fused kernel where PyTorch runs one.
//!
//! Rule: `nn.LSTMCell` / `nn.GRUCell` call `lstm_cell` / `gru_cell`, composite ops
//! whose C++ body (aten/src/ATen/native/RNN.cpp, `LSTMCell` / `GRUCell::operator()`)
//! branches on the device. On CUDA it computes the input and hidden gate products
//! without their biases (`matmul_ih`, `matmul_hh`) and passes them, the state and both
//! biases to one kernel, `_thnn_fused_lstm_cell` / `_thnn_fused_gru_cell`; Inductor
//! keeps that kernel as a library call (lowering.py `make_fallback(aten.
//! _thnn_fused_lstm_cell, require_dense)`; on the H200 with torch 2.11 the corpus's
//! LSTM and GRU cells compile to two mms and the fused call, no generated kernel). On
//! the CPU the same body computes the gates with biased matmuls and pointwise ops,
//! which is what `torch.export` + `run_decompositions()` writes (traced on the CPU).
//!
//! This pass finds that decomposed form — the gates of two `addmm`s (or two `mm`s)
//! split into equal chunks along dim 1, then LSTM: `cy = sigmoid(f) * cx +
//! sigmoid(i) * tanh(g)`, `hy = sigmoid(o) * tanh(cy)`; GRU: `r = sigmoid(ir + hr)`,
//! `z = sigmoid(iz + hz)`, `n = tanh(in + hn * r)`, `hy = (hx - n) * z + n` — and, where
//! the target runs the fused cell (`InductorBackend::fused_rnn_cells`), replaces it by the two
//! unbiased `mm`s, their products stacked (`aten.cat` along dim 0: the lowering's
//! ConcatKernel the mms write into) and `aten.fused_lstm_cell` / `aten.fused_gru_cell`
//! (`fuselab_dialects::aten::RnnCell`). Every intermediate must have no user outside
//! the form (an LSTM's cy may have more: it is an output of the cell).

use crate::registry::{PassContext, PassFailed, PassId, PassInfo};
use fuselab_dialects::{
    aten::pattern::{defined_by as def, kind_of as kind, self_contained, sole_user, users_of, Rewrites},
    aten::{attr, AtenOpKind},
    aten::{CellKind, RnnCell},
    ir,
    types::{DType, TensorType},
};
use melior::ir::OperationRef;
use mlir_sys::{MlirOperation, MlirValue};
use std::collections::HashSet;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "fuse-rnn-cells",
    summary: "Replace decomposed LSTM / GRU cells by PyTorch's fused cell kernels where the target runs them (CUDA's _thnn_fused_*_cell)",
    anchor: "func.func",
    options: &[],
    run,
    id: &ID,
};

/// `op` (of kind `k`) with operands `a` and `b` in either order: the operand that is not
/// `a`'s match. `is_a` picks the operand that plays `a`.
fn commuted(
    op: MlirOperation,
    k: AtenOpKind,
    is_a: impl Fn(MlirValue) -> bool,
) -> Option<(MlirValue, MlirValue)> {
    if kind(op) != Some(k) || ir::operands(op).len() != 2 {
        return None;
    }
    let (x, y) = (ir::operand(op, 0), ir::operand(op, 1));
    if is_a(x) {
        Some((x, y))
    } else if is_a(y) {
        Some((y, x))
    } else {
        None
    }
}

/// A gate product: `addmm(bias, x, w)` or `mm(x, w)` over a 2-D `x`, with a 1-D bias.
struct Projection {
    op: MlirOperation,
    x: MlirValue,
    weight: MlirValue,
    bias: Option<MlirValue>,
}

fn projection(v: MlirValue) -> Option<Projection> {
    let op = ir::defining_op(v)?;
    let (x, weight, bias) = match kind(op)? {
        AtenOpKind::Mm => (ir::operand(op, 0), ir::operand(op, 1), None),
        AtenOpKind::Addmm => (ir::operand(op, 1), ir::operand(op, 2), Some(ir::operand(op, 0))),
        _ => return None,
    };
    let out = ir::tensor_type(v)?;
    if bias
        .and_then(ir::tensor_type)
        .is_some_and(|b| b.shape != [out.shape[1]])
    {
        return None;
    }
    Some(Projection { op, x, weight, bias })
}

/// Chunk `k` of `gates` `g` wide along dim 1: `slice(product, 1, k*g, (k+1)*g, 1)`.
fn is_chunk(op: MlirOperation, of: MlirValue, k: i64, g: i64) -> bool {
    kind(op) == Some(AtenOpKind::Slice)
        && ir::operand(op, 0).ptr == of.ptr
        && matches!(ir::integer(op, attr::DIM), Some(1 | -1))
        && ir::integer(op, attr::START) == Some(k * g)
        && ir::integer(op, attr::END) == Some((k + 1) * g)
        && ir::integer(op, attr::STEP).unwrap_or(1) == 1
}

/// The chunks of a product, in order, when its only users are `count` slices of equal
/// width along dim 1.
fn chunks(product: MlirOperation, count: i64) -> Option<Vec<MlirOperation>> {
    let width = ir::tensor_type(ir::result(product, 0))?.shape[1];
    let g = width / count;
    let users = users_of(product);
    if width % count != 0 || users.len() != count as usize {
        return None;
    }
    (0..count)
        .map(|k| {
            users
                .iter()
                .copied()
                .find(|&u| is_chunk(u, ir::result(product, 0), k, g))
        })
        .collect()
}

/// A matched cell: its operands and the values the fused op replaces.
struct Cell {
    kind: CellKind,
    input: Projection,
    hidden: Projection,
    state: MlirValue,
    /// hy, then (LSTM) cy.
    results: Vec<MlirValue>,
    /// The ops of the form; the new ops go before `at`.
    ops: Vec<MlirOperation>,
    at: MlirOperation,
}

/// `op`'s result is `f(chunk)` of an op of kind `k` whose only user is `op`'s operand.
fn activation(chunk: MlirOperation, k: AtenOpKind) -> Option<MlirOperation> {
    sole_user(chunk).filter(|&a| kind(a) == Some(k))
}

/// An LSTM cell whose gates are `add`, the sum of the two products.
fn match_lstm(add: MlirOperation) -> Option<Cell> {
    let (a, b) = commuted(add, AtenOpKind::Add, |v| projection(v).is_some())?;
    let (hidden, input) = (projection(a)?, projection(b)?);
    if [hidden.op, input.op]
        .iter()
        .any(|&p| sole_user(p).map(|u| u.ptr) != Some(add.ptr))
    {
        return None;
    }
    let gates = chunks(add, 4)?;
    use AtenOpKind::{Sigmoid, Tanh};
    let i = activation(gates[0], Sigmoid)?;
    let f = activation(gates[1], Sigmoid)?;
    let g = activation(gates[2], Tanh)?;
    let o = activation(gates[3], Sigmoid)?;
    let is = |op: MlirOperation| move |v: MlirValue| ir::defining_op(v).is_some_and(|d| d.ptr == op.ptr);
    let ig = sole_user(i)?;
    commuted(ig, AtenOpKind::Mul, is(i)).filter(|&(_, x)| x.ptr == ir::result(g, 0).ptr)?;
    (sole_user(g)?.ptr == ig.ptr).then_some(())?;
    let fc = sole_user(f)?;
    let (_, state) = commuted(fc, AtenOpKind::Mul, is(f))?;
    let cy = sole_user(fc)?;
    commuted(cy, AtenOpKind::Add, is(fc)).filter(|&(_, x)| x.ptr == ir::result(ig, 0).ptr)?;
    (sole_user(ig)?.ptr == cy.ptr).then_some(())?;
    let tanh_cy = users_of(cy).into_iter().find(|&u| kind(u) == Some(Tanh))?;
    let hy = sole_user(tanh_cy)?;
    commuted(hy, AtenOpKind::Mul, is(o)).filter(|&(_, x)| x.ptr == ir::result(tanh_cy, 0).ptr)?;
    (sole_user(o)?.ptr == hy.ptr).then_some(())?;
    let mut ops = vec![hidden.op, input.op, add];
    ops.extend(&gates);
    ops.extend([i, f, g, o, ig, fc, cy, tanh_cy, hy]);
    Some(Cell {
        kind: CellKind::Lstm,
        input,
        hidden,
        state,
        results: vec![ir::result(hy, 0), ir::result(cy, 0)],
        ops,
        at: cy,
    })
}

/// A GRU cell whose new gate is `tanh`: `tanh(in + hn * r)`.
fn match_gru(tanh: MlirOperation) -> Option<Cell> {
    let chunk_of = |v: MlirValue, k: i64| -> Option<(MlirOperation, Projection)> {
        let slice = def(v, AtenOpKind::Slice)?;
        let product = projection(ir::operand(slice, 0))?;
        let g = ir::tensor_type(ir::result(product.op, 0))?.shape[1] / 3;
        is_chunk(slice, ir::operand(slice, 0), k, g).then_some((slice, product))
    };
    let pre = def(ir::operand(tanh, 0), AtenOpKind::Add)?;
    let (in_v, scaled) = commuted(pre, AtenOpKind::Add, |v| chunk_of(v, 2).is_some())?;
    let (in_slice, input) = chunk_of(in_v, 2)?;
    let scaled = def(scaled, AtenOpKind::Mul)?;
    let (hn_v, r_v) = commuted(scaled, AtenOpKind::Mul, |v| chunk_of(v, 2).is_some())?;
    let (hn_slice, hidden) = chunk_of(hn_v, 2)?;
    if input.op.ptr == hidden.op.ptr {
        return None;
    }
    // r and z: sigmoid(hidden chunk k + input chunk k).
    let gate = |v: MlirValue, k: i64| -> Option<(MlirOperation, MlirOperation, [MlirOperation; 2])> {
        let sigmoid = def(v, AtenOpKind::Sigmoid)?;
        let add = def(ir::operand(sigmoid, 0), AtenOpKind::Add)?;
        let (x, y) = (ir::operand(add, 0), ir::operand(add, 1));
        let (sx, px) = chunk_of(x, k)?;
        let (sy, py) = chunk_of(y, k)?;
        let from = [px.op.ptr, py.op.ptr];
        (from.contains(&input.op.ptr) && from.contains(&hidden.op.ptr)).then_some((sigmoid, add, [sx, sy]))
    };
    let (r, r_add, r_chunks) = gate(r_v, 0)?;
    // hy = (hx - n) * z + n.
    let n = ir::result(tanh, 0);
    let uses = users_of(tanh);
    let diff = uses
        .iter()
        .copied()
        .find(|&u| kind(u) == Some(AtenOpKind::Sub) && ir::operand(u, 1).ptr == n.ptr)?;
    let state = ir::operand(diff, 0);
    let gated = sole_user(diff)?;
    let is_diff = |v: MlirValue| v.ptr == ir::result(diff, 0).ptr;
    let (_, z_v) = commuted(gated, AtenOpKind::Mul, is_diff)?;
    let (z, z_add, z_chunks) = gate(z_v, 1)?;
    let hy = sole_user(gated)?;
    commuted(hy, AtenOpKind::Add, |v| v.ptr == ir::result(gated, 0).ptr).filter(|&(_, x)| x.ptr == n.ptr)?;
    let mut ops = vec![
        input.op, hidden.op, in_slice, hn_slice, pre, scaled, tanh, diff, gated, hy,
    ];
    ops.extend([r, r_add, z, z_add]);
    ops.extend(r_chunks);
    ops.extend(z_chunks);
    Some(Cell {
        kind: CellKind::Gru,
        input,
        hidden,
        state,
        results: vec![ir::result(hy, 0)],
        ops,
        at: hy,
    })
}

/// The sizes of the fused op, when its operands fit one cell: the products' types
/// agree, both or neither have a bias, and the state is [B, H].
fn sizes(cell: &Cell) -> Option<RnnCell> {
    let product = ir::tensor_type(ir::result(cell.input.op, 0))?;
    if ir::tensor_type(ir::result(cell.hidden.op, 0))? != product {
        return None;
    }
    let stacked = TensorType {
        shape: vec![2 * product.shape[0], product.shape[1]],
        dtype: product.dtype,
    };
    let mut types = vec![stacked, ir::tensor_type(cell.state)?];
    match (cell.input.bias, cell.hidden.bias) {
        (Some(a), Some(b)) => types.extend([ir::tensor_type(a)?, ir::tensor_type(b)?]),
        (None, None) => {}
        _ => return None,
    }
    RnnCell::from_types(cell.kind, &types).ok()
}

/// Replaces the form by two mms, their stacked products and the fused op over `dtype`.
/// The cell's operands are read through `done` (an earlier step's outputs are replaced).
fn rewrite(cell: Cell, sizes: RnnCell, dtype: DType, done: &mut Rewrites) {
    let at = cell.at;
    let (ctx, loc) = (ir::context(at), ir::location(at));
    let ty = |t: &TensorType| ir::parse_type(ctx, &t.to_string()).expect("tensor types print parseably");
    let add =
        |name: &str, operands: &[MlirValue], t: &TensorType, attrs: &[(&str, mlir_sys::MlirAttribute)]| {
            let op = ir::create(name, loc, operands, &[ty(t)], attrs, Vec::new());
            ir::insert_before(at, op);
            ir::result(op, 0)
        };
    let t = |shape: Vec<i64>| TensorType { shape, dtype };
    let width = sizes.kind.gates() * sizes.hidden;
    let (product, stacked) = (t(vec![sizes.batch, width]), t(vec![2 * sizes.batch, width]));
    let mm = AtenOpKind::Mm.op_name();
    let r = |v: MlirValue| done.resolve(v);
    let input = add(mm, &[r(cell.input.x), r(cell.input.weight)], &product, &[]);
    let hidden = add(mm, &[r(cell.hidden.x), r(cell.hidden.weight)], &product, &[]);
    let gates = add(
        AtenOpKind::Cat.op_name(),
        &[input, hidden],
        &stacked,
        &[(attr::DIM, ir::i64_attr(ctx, 0))],
    );
    let mut operands = vec![gates, r(cell.state)];
    operands.extend(cell.input.bias.into_iter().chain(cell.hidden.bias).map(r));
    let fused = add(
        cell.kind.aten().op_name(),
        &operands,
        &t(sizes.result_shape()),
        &[],
    );
    match cell.kind {
        CellKind::Lstm => {
            let state = t(vec![sizes.batch, sizes.hidden]);
            for (index, &old) in cell.results.iter().enumerate() {
                let attrs = [
                    (attr::DIM, ir::i64_attr(ctx, 0)),
                    (attr::INDEX, ir::i64_attr(ctx, index as i64)),
                ];
                let part = add(AtenOpKind::Select.op_name(), &[fused], &state, &attrs);
                done.replace(old, part);
            }
        }
        CellKind::Gru => done.replace(cell.results[0], fused),
    }
    ir::erase_with_constants(cell.ops);
}

fn run(func: OperationRef, cx: &PassContext) -> Result<(), PassFailed> {
    let target = cx.target();
    // Match first, rewrite after: rewriting erases ops a later match would visit.
    let candidates = ir::collect_ops(func.to_raw(), |n| {
        n == AtenOpKind::Add.op_name() || n == AtenOpKind::Tanh.op_name()
    });
    let mut taken: HashSet<usize> = HashSet::new();
    let mut cells = Vec::new();
    for op in candidates {
        let Some(cell) = (match kind(op) {
            Some(AtenOpKind::Add) => match_lstm(op),
            _ => match_gru(op),
        }) else {
            continue;
        };
        let (Some(sizes), Some(dtype)) = (sizes(&cell), ir::tensor_type(cell.state).map(|t| t.dtype)) else {
            continue;
        };
        let fresh = cell.ops.iter().all(|o| !taken.contains(&(o.ptr as usize)));
        if fresh && self_contained(&cell.ops, &cell.results) && target.backend().fused_rnn_cells(dtype) {
            taken.extend(cell.ops.iter().map(|o| o.ptr as usize));
            cells.push((cell, sizes, dtype));
        }
    }
    let mut done = Rewrites::default();
    for (cell, sizes, dtype) in cells {
        rewrite(cell, sizes, dtype, &mut done);
    }
    Ok(())
}
