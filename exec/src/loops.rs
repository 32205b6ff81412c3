//! An interpreter of the `loop` dialect: realized buffers, node bodies (compiled once per
//! node into a small instruction list, then run per element), reductions, `loop.kernel`
//! groups with `loop.output`, `loop.extern` library calls with operand views, and
//! `loop.view` outputs. Every `arith`/`math` result is rounded to the type the op
//! declares, so an f32 body computes in f32 as compiled code would; a reduction
//! accumulates in its result type. Meant for small shapes: it checks semantics, not speed.

use crate::{
    aten::{convolution, matmul, ConvParams},
    constant::splat_or_dense,
    scalar::{bool_f, cmpf, cmpi, int_attr, scalar_op, Scalar, ScalarOp},
    tensor::{accumulation_dtype, nan_max, nan_min, numel, round_to, Tensor},
    ExecError,
};
use fuselab_dialects::ir;
use fuselab_dialects::{
    loops::{index::from_affine_map_attr, index::IndexExpr, names},
    types::{DType, TensorType},
};
use mlir_sys::{MlirOperation, MlirValue};
use std::collections::HashMap;

/// A runtime value: a buffer, or a kernel's tuple of buffers.
#[derive(Clone, Debug)]
enum Value {
    Buffer(Tensor),
    Tuple(Vec<Tensor>),
}

#[derive(Clone, Debug)]
enum Instr {
    Const(f64),
    /// Load from operand buffer `buffer` of the node at `index` (with `syms` slots).
    Load {
        buffer: usize,
        index: IndexExpr,
        syms: Vec<usize>,
    },
    Unary(fn(f64) -> f64, usize),
    Binary(fn(f64, f64) -> f64, usize, usize),
    Select(usize, usize, usize),
    /// `arith.cmpf` (`float`) or `arith.cmpi` with its predicate number.
    Compare {
        float: bool,
        predicate: i64,
        a: usize,
        b: usize,
    },
    /// `affine.apply`: `expr` over dims = the first `dims` operand slots, syms the rest.
    Affine {
        expr: IndexExpr,
        dims: Vec<usize>,
        syms: Vec<usize>,
    },
}

/// A compiled body: instructions write slots `args..`; `result` is the yielded slot.
struct Body {
    args: usize,
    code: Vec<(Instr, Scalar)>,
    result: usize,
    /// Buffers loaded, in operand order of first use.
    buffers: Vec<MlirValue>,
}

/// Compiles the body of a node (its first block).
fn compile(node: MlirOperation) -> Result<Body, ExecError> {
    let block =
        ir::first_block(ir::region(node, 0)).ok_or_else(|| ExecError::at(node, "node without a body"))?;
    let args = ir::block_arguments(block);
    let mut slot: HashMap<usize, usize> = HashMap::new();
    for (i, a) in args.iter().enumerate() {
        slot.insert(a.ptr as usize, i);
    }
    let mut body = Body {
        args: args.len(),
        code: Vec::new(),
        result: 0,
        buffers: Vec::new(),
    };
    for op in ir::block_ops(block) {
        let name = ir::op_name(op);
        let operands: Vec<MlirValue> = ir::operands(op);
        let get = |i: usize| -> Result<usize, ExecError> {
            operands
                .get(i)
                .and_then(|v| slot.get(&(v.ptr as usize)).copied())
                .ok_or_else(|| ExecError::at(op, format!("'{name}' reads a value defined outside the body")))
        };
        if name == "gpu.yield" {
            body.result = get(0)?;
            return Ok(body);
        }
        if name == names::LOAD {
            let buffer = operands[0];
            let b = match body.buffers.iter().position(|v| v.ptr == buffer.ptr) {
                Some(b) => b,
                None => {
                    body.buffers.push(buffer);
                    body.buffers.len() - 1
                }
            };
            let (index, _, _) = ir::attr(op, "index")
                .and_then(from_affine_map_attr)
                .ok_or_else(|| ExecError::at(op, "load without an affine index"))?;
            let syms = (1..operands.len()).map(get).collect::<Result<Vec<_>, _>>()?;
            let ty = Scalar::of(ir::value_type(ir::result(op, 0)))
                .ok_or_else(|| ExecError::at(op, "load of an unsupported type"))?;
            body.code.push((
                Instr::Load {
                    buffer: b,
                    index,
                    syms,
                },
                ty,
            ));
        } else {
            let ty = Scalar::of(ir::value_type(ir::result(op, 0)))
                .ok_or_else(|| ExecError::at(op, format!("'{name}' has an unsupported result type")))?;
            let instr = match name.as_str() {
                "affine.apply" => {
                    let (expr, num_dims, _) = ir::attr(op, "map")
                        .and_then(from_affine_map_attr)
                        .ok_or_else(|| ExecError::at(op, "affine.apply without a single-result map"))?;
                    let all = (0..operands.len()).map(get).collect::<Result<Vec<_>, _>>()?;
                    let (dims, syms) = all.split_at(num_dims.min(all.len()));
                    Instr::Affine {
                        expr,
                        dims: dims.to_vec(),
                        syms: syms.to_vec(),
                    }
                }
                _ => match scalar_op(op, &name, ty)? {
                    ScalarOp::Const(c) => Instr::Const(c),
                    ScalarOp::Unary(f) => Instr::Unary(f, get(0)?),
                    ScalarOp::Binary(f) => Instr::Binary(f, get(0)?, get(1)?),
                    ScalarOp::Select => Instr::Select(get(0)?, get(1)?, get(2)?),
                    ScalarOp::Compare { float, predicate } => Instr::Compare {
                        float,
                        predicate,
                        a: get(0)?,
                        b: get(1)?,
                    },
                },
            };
            // Casts are the identity on the f64 value: the result rounding applies the
            // target type (`fptosi` truncates first).
            body.code.push((instr, ty));
        }
        slot.insert(ir::result(op, 0).ptr as usize, body.args + body.code.len() - 1);
    }
    Err(ExecError::at(node, "body without gpu.yield"))
}

impl Body {
    /// Evaluates the body for loop variables `dims`, reading buffers from `buffers`.
    fn eval(&self, env: &mut Vec<f64>, dims: &[i64], buffers: &[&Tensor]) -> Result<f64, String> {
        self.eval_with(env, dims, &mut |buffer, flat| {
            let t = buffers[buffer];
            if flat < 0 || flat as usize >= t.data.len() {
                return Err(format!(
                    "load at offset {flat} is out of bounds of a buffer of {} elements",
                    t.data.len()
                ));
            }
            Ok(t.data[flat as usize])
        })
    }

    /// Evaluates the body for loop variables `dims`; `read(buffer, offset)` gives the
    /// element at flat storage offset `offset` of loaded buffer number `buffer`.
    fn eval_with(
        &self,
        env: &mut Vec<f64>,
        dims: &[i64],
        read: &mut dyn FnMut(usize, i64) -> Result<f64, String>,
    ) -> Result<f64, String> {
        env.clear();
        env.extend(dims.iter().map(|&d| d as f64));
        let mut syms = Vec::new();
        for (instr, ty) in &self.code {
            let v = match instr {
                Instr::Const(c) => *c,
                Instr::Load {
                    buffer,
                    index,
                    syms: s,
                } => {
                    syms.clear();
                    syms.extend(s.iter().map(|&k| env[k] as i64));
                    read(*buffer, index.eval(dims, &syms))?
                }
                Instr::Unary(f, a) => f(env[*a]),
                Instr::Binary(f, a, b) => f(env[*a], env[*b]),
                Instr::Affine {
                    expr,
                    dims: d,
                    syms: s,
                } => {
                    let dv: Vec<i64> = d.iter().map(|&k| env[k] as i64).collect();
                    let sv: Vec<i64> = s.iter().map(|&k| env[k] as i64).collect();
                    expr.eval(&dv, &sv) as f64
                }
                Instr::Compare {
                    float,
                    predicate,
                    a,
                    b,
                } => {
                    let (x, y) = (env[*a], env[*b]);
                    bool_f(if *float {
                        cmpf(*predicate, x, y)
                    } else {
                        cmpi(*predicate, x, y)
                    })
                }
                Instr::Select(c, a, b) => {
                    if env[*c] != 0.0 {
                        env[*a]
                    } else {
                        env[*b]
                    }
                }
            };
            env.push(ty.round(v));
        }
        Ok(env[self.result])
    }
}

fn i64_list(op: MlirOperation, name: &str) -> Vec<i64> {
    ir::attr(op, name)
        .and_then(|a| fuselab_dialects::attrs::i64_array(unsafe { melior::ir::Attribute::from_raw(a) }))
        .unwrap_or_default()
}

fn result_type(op: MlirOperation) -> Result<TensorType, ExecError> {
    ir::tensor_type(ir::result(op, 0)).ok_or_else(|| ExecError::at(op, "result is not a supported tensor"))
}

struct Interp {
    values: HashMap<usize, Value>,
}

impl Interp {
    fn buffer(&self, op: MlirOperation, v: MlirValue) -> Result<&Tensor, ExecError> {
        match self.values.get(&(v.ptr as usize)) {
            Some(Value::Buffer(t)) => Ok(t),
            _ => Err(ExecError::at(op, "reads a buffer that has no value yet")),
        }
    }

    fn node(&self, op: MlirOperation) -> Result<Tensor, ExecError> {
        let body = compile(op)?;
        let out = result_type(op)?;
        let ranges = i64_list(op, "ranges");
        let rranges = i64_list(op, "reduction_ranges");
        let buffers: Vec<&Tensor> = body
            .buffers
            .iter()
            .map(|&b| self.buffer(op, b))
            .collect::<Result<_, _>>()?;
        let mut env = Vec::with_capacity(body.args + body.code.len());
        let mut dims = vec![0i64; ranges.len() + rranges.len()];
        let n = numel(&ranges);
        let mut data = Vec::with_capacity(n);
        let is_reduction = ir::op_name(op) == names::REDUCTION;
        let (init, combine) = combiner(op, out.dtype)?;
        let acc_dtype = accumulation_dtype(out.dtype);
        let rn = numel(&rranges);
        for flat in 0..n {
            crate::tensor::unflatten(&ranges, flat, &mut dims[..ranges.len()]);
            if !is_reduction {
                data.push(
                    body.eval(&mut env, &dims, &buffers)
                        .map_err(|m| ExecError::at(op, m))?,
                );
                continue;
            }
            let mut acc = init;
            for r in 0..rn {
                crate::tensor::unflatten(&rranges, r, &mut dims[ranges.len()..]);
                let v = body
                    .eval(&mut env, &dims, &buffers)
                    .map_err(|m| ExecError::at(op, m))?;
                acc = round_to(combine(acc, v), acc_dtype);
            }
            data.push(round_to(acc, out.dtype));
        }
        if data.len() != out.numel() as usize {
            return Err(ExecError::at(op, "ranges do not cover the result"));
        }
        Ok(Tensor::new(out.shape, out.dtype, data))
    }

    /// An operand of an extern through its view (`[offset, sizes..., strides...]`).
    fn viewed(base: &Tensor, view: &[i64]) -> Tensor {
        if view.is_empty() {
            return base.clone();
        }
        let rank = (view.len() - 1) / 2;
        gather_layout(base, view[0], &view[1..=rank], &view[rank + 1..])
    }

    fn extern_call(&self, op: MlirOperation) -> Result<Tensor, ExecError> {
        let operands: Vec<Tensor> = ir::operands(op)
            .iter()
            .map(|&v| self.buffer(op, v).cloned())
            .collect::<Result<_, ExecError>>()?;
        extern_result(op, &operands)
    }
}

/// How a reduction combines two values.
pub type Combine = fn(f64, f64) -> f64;

/// A reduction of `kind` (`sum`, `prod`, `max`, `min`): its identity (before rounding
/// to a type) and how it combines two values (max and min propagate NaN); `None` for
/// another kind.
pub fn reduction_of(kind: &str) -> Option<(f64, Combine)> {
    Some(match kind {
        "sum" => (0.0, |a, b| a + b),
        "prod" => (1.0, |a, b| a * b),
        "max" => (f64::NEG_INFINITY, nan_max),
        "min" => (f64::INFINITY, nan_min),
        _ => return None,
    })
}

/// A reduction node's identity (in its result type `dtype`) and combining function; a
/// pointwise node's: `(0, first)`.
pub fn combiner(op: MlirOperation, dtype: DType) -> Result<(f64, Combine), ExecError> {
    let is_reduction = ir::op_name(op) == names::REDUCTION;
    let kind = ir::attr(op, "kind")
        .and_then(fuselab_dialects::attrs::string_raw)
        .unwrap_or_default();
    let (init, combine): (f64, Combine) = match reduction_of(&kind) {
        Some(reduction) => reduction,
        None if is_reduction => {
            return Err(ExecError::at(
                op,
                format!("reduction kind '{kind}' is not supported"),
            ))
        }
        None => (0.0, |a, _| a),
    };
    // The identity in the result's type: for bools, max (`any`) starts false and min
    // starts true (-inf and +inf would both round to true).
    let init = match (dtype, kind.as_str()) {
        (DType::I1, "max") => 0.0,
        (DType::I1, "min") => 1.0,
        _ => round_to(init, dtype),
    };
    Ok((init, combine))
}

/// A node's body compiled once, evaluated per element with the caller's reads (for
/// executors that keep buffers their own way, such as a device simulator).
pub struct CompiledNode(Body);

impl CompiledNode {
    /// Compiles `node` (a `loop.pointwise` or `loop.reduction`).
    pub fn new(node: MlirOperation) -> Result<Self, ExecError> {
        compile(node).map(Self)
    }

    /// The buffers the body loads, numbered as `read` sees them.
    pub fn buffers(&self) -> &[MlirValue] {
        &self.0.buffers
    }

    /// The body's value at loop variables `dims` (ranges, then reduction ranges);
    /// `read(buffer, offset)` gives the element at flat storage offset `offset` of
    /// buffer number `buffer`. `env` is scratch space.
    pub fn eval(
        &self,
        env: &mut Vec<f64>,
        dims: &[i64],
        read: &mut dyn FnMut(usize, i64) -> Result<f64, String>,
    ) -> Result<f64, String> {
        self.0.eval_with(env, dims, read)
    }
}

/// What `loop.view` `op` shows of `base`.
pub fn view_result(op: MlirOperation, base: &Tensor) -> Result<Tensor, ExecError> {
    let layout = i64_list(op, "layout");
    let out = result_type(op)?;
    let rank = out.rank();
    if layout.len() != 1 + 2 * rank {
        return Err(ExecError::at(op, "bad layout"));
    }
    let t = gather_layout(base, layout[0], &layout[1..=rank], &layout[rank + 1..]);
    Ok(Tensor {
        dtype: out.dtype,
        ..t
    })
}

/// The result of extern `op` (a `loop.extern`) on its operand buffers (before their
/// `operand_views`, which this applies).
pub fn extern_result(op: MlirOperation, buffers: &[Tensor]) -> Result<Tensor, ExecError> {
    extern_result_as(op, buffers, &result_type(op)?)
}

/// [`extern_result`] for an op that carries the extern's attributes without its result
/// (a device dialect's host call), of type `out`.
pub fn extern_result_as(
    op: MlirOperation,
    buffers: &[Tensor],
    out: &TensorType,
) -> Result<Tensor, ExecError> {
    // A channels-last convolution computes the logical result, then stores it in its
    // buffer's dim order.
    let stored = fuselab_dialects::loops::StoredOrder::of(op).map_err(|m| ExecError::at(op, m))?;
    let out = match &stored {
        Some(order) => TensorType {
            shape: order.logical_shape(&out.shape),
            dtype: out.dtype,
        },
        None => out.clone(),
    };
    let views: Vec<Vec<i64>> = fuselab_dialects::loops::operand_views(op);
    let operands: Vec<Tensor> = buffers
        .iter()
        .enumerate()
        .map(|(i, t)| Interp::viewed(t, views.get(i).map_or(&[][..], Vec::as_slice)))
        .collect();
    let kind = ir::attr(op, "kind")
        .and_then(fuselab_dialects::attrs::string_raw)
        .unwrap_or_default();
    let result = match kind.as_str() {
        "mm" | "bmm" => {
            let prod = matmul(&operands[0], &operands[1], &out);
            match operands.get(2) {
                Some(bias) => {
                    let offset = out.rank() - bias.rank();
                    let mut data = prod.data.clone();
                    crate::tensor::for_each_index(&out.shape.clone(), |idx| {
                        let mut f = 0i64;
                        for d in 0..bias.rank() {
                            let i = if bias.shape[d] == 1 { 0 } else { idx[d + offset] };
                            f = f * bias.shape[d] + i;
                        }
                        let at = crate::tensor::flat_index(&out.shape, idx);
                        data[at] += bias.data[f as usize];
                    });
                    Tensor::new(out.shape.clone(), out.dtype, data)
                }
                None => prod,
            }
        }
        // The fused attention kernel writes [B, L, H, Ev] (heads after rows).
        "sdpa" => {
            let scale = ir::float(op, "scale")
                .ok_or_else(|| ExecError::at(op, "an sdpa extern without its scale"))?;
            let at = fuselab_dialects::loops::sdpa_operands(op)
                .ok_or_else(|| ExecError::at(op, "an sdpa extern without its operand positions"))?;
            let logical = crate::attention::sdpa(
                &operands[at[0]],
                &operands[at[1]],
                &operands[at[2]],
                at.get(3).map(|&m| &operands[m]),
                scale,
                out.dtype,
            );
            crate::attention::heads_last(&logical)
        }
        "lstm_cell" | "gru_cell" => {
            let cell = fuselab_dialects::aten::CellKind::of_extern(&kind)
                .ok_or_else(|| ExecError::at(op, "not a recurrent cell"))?;
            let biases: Vec<&Tensor> = operands[2..].iter().collect();
            crate::rnn_cell::fused_cell(cell, &operands[0], &operands[1], &biases, out.dtype)
                .ok_or_else(|| ExecError::at(op, format!("operands that do not fit a {kind}")))?
        }
        "convolution" => {
            let params = ConvParams::of(op, operands[0].rank() - 2);
            convolution(&params, &operands[0], &operands[1], operands.get(2), &out)
        }
        "concat" => {
            // The slices' starts from the operand tensors (a device dialect's host call
            // has no operand values to read them from).
            let dim = ir::integer(op, "dim")
                .and_then(|d| usize::try_from(d).ok())
                .filter(|&d| operands.iter().all(|t| d < t.rank()))
                .ok_or_else(|| ExecError::at(op, "concat without a valid 'dim'"))?;
            let mut data = vec![0.0; out.numel() as usize];
            let mut next = 0;
            for part in &operands {
                let start = next;
                next += part.shape[dim];
                crate::tensor::for_each_index(&part.shape, |idx| {
                    let mut at = idx.to_vec();
                    at[dim] += start;
                    data[crate::tensor::flat_index(&out.shape, &at)] =
                        part.data[crate::tensor::flat_index(&part.shape, idx)];
                });
            }
            Tensor::new(out.shape.clone(), out.dtype, data)
        }
        other => {
            return Err(ExecError::at(
                op,
                format!("extern kind '{other}' is not supported"),
            ))
        }
    };
    Ok(match stored {
        Some(order) => {
            let logical = out.contiguous_strides();
            let shape: Vec<i64> = order.0.iter().map(|&d| out.shape[d]).collect();
            let strides: Vec<i64> = order.0.iter().map(|&d| logical[d]).collect();
            gather_layout(&result, 0, &shape, &strides)
        }
        None => result,
    })
}

impl Interp {
    fn run_ops(&mut self, ops: &[MlirOperation]) -> Result<Option<Vec<Tensor>>, ExecError> {
        for &op in ops {
            let name = ir::op_name(op);
            let value = match name.as_str() {
                names::POINTWISE | names::REDUCTION => Value::Buffer(self.node(op)?),
                names::EXTERN => Value::Buffer(self.extern_call(op)?),
                names::KERNEL => {
                    let block = ir::body(op).ok_or_else(|| ExecError::at(op, "kernel without a body"))?;
                    let inner = ir::block_ops(block);
                    let (last, members) = inner
                        .split_last()
                        .ok_or_else(|| ExecError::at(op, "empty kernel"))?;
                    self.run_ops(members)?;
                    let outs = ir::operands(*last)
                        .iter()
                        .map(|&v| self.buffer(op, v).cloned())
                        .collect::<Result<Vec<_>, _>>()?;
                    Value::Tuple(outs)
                }
                names::OUTPUT => {
                    let index = int_attr(op, "index").unwrap_or(0) as usize;
                    match self.values.get(&(ir::operand(op, 0).ptr as usize)) {
                        Some(Value::Tuple(items)) => Value::Buffer(
                            items
                                .get(index)
                                .cloned()
                                .ok_or_else(|| ExecError::at(op, "output index out of range"))?,
                        ),
                        _ => return Err(ExecError::at(op, "loop.output of something other than a kernel")),
                    }
                }
                names::VIEW => Value::Buffer(view_result(op, self.buffer(op, ir::operand(op, 0))?)?),
                "arith.constant" => Value::Buffer(splat_or_dense(op).map_err(|m| ExecError::at(op, m))?),
                "func.return" => {
                    return ir::operands(op)
                        .iter()
                        .map(|&v| self.buffer(op, v).cloned())
                        .collect::<Result<Vec<_>, _>>()
                        .map(Some)
                }
                other => {
                    return Err(ExecError::at(
                        op,
                        format!("the loop interpreter cannot run '{other}'"),
                    ))
                }
            };
            self.values.insert(ir::result(op, 0).ptr as usize, value);
        }
        Ok(None)
    }
}

/// The tensor `sizes` read from `base`'s storage at `offset + sum(i_d * strides_d)`.
fn gather_layout(base: &Tensor, offset: i64, sizes: &[i64], strides_: &[i64]) -> Tensor {
    let mut data = Vec::with_capacity(numel(sizes));
    crate::tensor::for_each_index(sizes, |idx| {
        let flat = offset + idx.iter().zip(strides_).map(|(i, s)| i * s).sum::<i64>();
        data.push(base.data.get(flat as usize).copied().unwrap_or(f64::NAN));
    });
    Tensor {
        shape: sizes.to_vec(),
        dtype: base.dtype,
        data,
    }
}

/// Runs `func` (a `func.func` in the loop dialect) on `inputs`; returns its results.
pub fn run_loop(func: MlirOperation, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError> {
    let (block, args) = crate::bind_arguments(func, inputs)?;
    let mut interp = Interp {
        values: HashMap::new(),
    };
    for (a, t) in args.iter().zip(inputs) {
        interp.values.insert(a.ptr as usize, Value::Buffer(t.clone()));
    }
    interp
        .run_ops(&ir::block_ops(block))?
        .ok_or_else(|| ExecError::msg("function without func.return"))
}
