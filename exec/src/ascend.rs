//! An interpreter of the `ascend` dialect (docs/dialects/ascend.md), as the device would
//! run it: each of a kernel's `block_dim` cores has its own Unified Buffer, a byte array
//! of the kernel's `ub_capacity`, and runs its programs (`c, c + block_dim, ...`) one
//! after another; every UB tile lives at its planned address (slot `k mod depth` for the
//! core's `k`-th program) and holds its elements in its declared type (f16 as 2 bytes,
//! an index as an int32, a bool as a byte). GM buffers are the host's tensors, rounded to
//! their element type where a `copy_out` writes them. A tile placed past the UB, a copy
//! outside its GM buffer or an index beyond int32 is an error, never a wrong number; two
//! live tiles placed over each other change the numbers (the UB starts filled with a
//! byte pattern, so reading what nothing wrote does too).
//!
//! The host function runs its steps in order: `memref.alloc` (a temporary, NaN-filled),
//! `ascend.launch`, `ascend.extern` (the library kernel on the host tensors: mm, bmm,
//! convolution) and `memref.copy`.

use crate::{
    loops::{extern_result_as, reduction_of},
    scalar::{scalar_op, Scalar},
    shaped::{dtype_of, element_type, shape_of},
    tensor::{decode, encode, round_to},
    ExecError, Tensor,
};
use fuselab_dialects::ascend::names as ascend_op;
use fuselab_dialects::{
    ir,
    types::{DType, TensorType},
};
use mlir_sys::{MlirBlock, MlirOperation, MlirValue};
use std::collections::HashMap;

/// The byte the UB is filled with before a kernel runs.
const UB_FILL: u8 = 0xA5;

/// Bytes of one element of `dtype` in the UB.
fn bytes_of(dtype: DType) -> usize {
    match dtype {
        DType::F32 | DType::I32 => 4,
        DType::F16 | DType::BF16 => 2,
        DType::I64 => 8,
        DType::I1 => 1,
    }
}

/// A UB tile: where its current slot starts, its shape and element type.
#[derive(Clone, Debug)]
struct TileRef {
    address: usize,
    shape: Vec<i64>,
    dtype: DType,
}

impl TileRef {
    fn numel(&self) -> usize {
        self.shape.iter().product::<i64>().max(0) as usize
    }
}

/// A runtime value of a kernel.
#[derive(Clone, Debug)]
enum Rv {
    Scalar(f64),
    Gm(usize),
    Tile(TileRef),
}

/// An allocation of the kernel: its op, first slot's address, slot size, slots.
struct Alloc {
    value: usize,
    address: usize,
    slot: usize,
    depth: usize,
    shape: Vec<i64>,
    dtype: DType,
}

struct Core<'a> {
    ub: Vec<u8>,
    gm: &'a mut [Tensor],
    env: HashMap<usize, Rv>,
}

impl Core<'_> {
    fn get(&self, op: MlirOperation, v: MlirValue) -> Result<&Rv, ExecError> {
        self.env
            .get(&(v.ptr as usize))
            .ok_or_else(|| ExecError::at(op, "reads a value the interpreter has not computed"))
    }

    fn scalar(&self, op: MlirOperation, v: MlirValue) -> Result<f64, ExecError> {
        match self.get(op, v)? {
            Rv::Scalar(s) => Ok(*s),
            _ => Err(ExecError::at(op, "a scalar operand is not a scalar")),
        }
    }

    fn tile(&self, op: MlirOperation, v: MlirValue) -> Result<TileRef, ExecError> {
        match self.get(op, v)? {
            Rv::Tile(t) => Ok(t.clone()),
            _ => Err(ExecError::at(op, "a tile operand is not a UB tile")),
        }
    }

    fn gm(&self, op: MlirOperation, v: MlirValue) -> Result<usize, ExecError> {
        match self.get(op, v)? {
            Rv::Gm(g) => Ok(*g),
            _ => Err(ExecError::at(op, "a GM operand is not a kernel argument")),
        }
    }

    fn read(&self, t: &TileRef) -> Vec<f64> {
        let b = bytes_of(t.dtype);
        (0..t.numel())
            .map(|i| decode(t.dtype, &self.ub[t.address + i * b..t.address + (i + 1) * b]))
            .collect()
    }

    fn write(&mut self, t: &TileRef, values: &[f64]) {
        let b = bytes_of(t.dtype);
        for (i, &v) in values.iter().enumerate() {
            encode(
                t.dtype,
                v,
                &mut self.ub[t.address + i * b..t.address + (i + 1) * b],
            );
        }
    }

    fn ops(&mut self, block: MlirBlock) -> Result<(), ExecError> {
        for op in ir::block_ops(block) {
            self.op(op)?;
        }
        Ok(())
    }

    fn op(&mut self, op: MlirOperation) -> Result<(), ExecError> {
        let name = ir::op_name(op);
        let o = ir::operands(op);
        match name.as_str() {
            "gpu.yield" | "scf.yield" | ascend_op::BARRIER => {}
            "scf.for" => {
                let (lb, ub, step) = (
                    self.scalar(op, o[0])?,
                    self.scalar(op, o[1])?,
                    self.scalar(op, o[2])?,
                );
                if !o[3..].is_empty() || step <= 0.0 {
                    return Err(ExecError::at(
                        op,
                        "a loop with carried values or a non-positive step",
                    ));
                }
                let body = ir::body(op).ok_or_else(|| ExecError::at(op, "loop without a body"))?;
                let iv = ir::block_arguments(body)[0].ptr as usize;
                let mut i = lb;
                while i < ub {
                    self.env.insert(iv, Rv::Scalar(i));
                    self.ops(body)?;
                    i += step;
                }
            }
            ascend_op::ARANGE => {
                let dst = self.tile(op, o[0])?;
                let axis = ir::integer(op, "axis").unwrap_or(0) as usize;
                let mut idx = vec![0i64; dst.shape.len()];
                let values: Vec<f64> = (0..dst.numel())
                    .map(|f| {
                        crate::tensor::unflatten(&dst.shape, f, &mut idx);
                        idx.get(axis).copied().unwrap_or(0) as f64
                    })
                    .collect();
                self.write(&dst, &values);
            }
            ascend_op::DUP => {
                let dst = self.tile(op, o[0])?;
                let v = self.scalar(op, o[1])?;
                if dst.dtype == DType::I32 && !(f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&v) {
                    return Err(ExecError::at(op, format!("{v} does not fit the int32 tile")));
                }
                let v = round_to(v, dst.dtype);
                self.write(&dst, &vec![v; dst.numel()]);
            }
            ascend_op::BROADCAST => {
                let (dst, src) = (self.tile(op, o[0])?, self.tile(op, o[1])?);
                if dst.shape.len() != src.shape.len() {
                    return Err(ExecError::at(op, "broadcast between tiles of different ranks"));
                }
                let s = self.read(&src);
                let mut idx = vec![0i64; dst.shape.len()];
                let values: Vec<f64> = (0..dst.numel())
                    .map(|f| {
                        crate::tensor::unflatten(&dst.shape, f, &mut idx);
                        for (i, &n) in idx.iter_mut().zip(&src.shape) {
                            if n == 1 {
                                *i = 0;
                            }
                        }
                        s[crate::tensor::flat_index(&src.shape, &idx)]
                    })
                    .collect();
                self.write(&dst, &values);
            }
            ascend_op::COPY_IN => {
                let g = self.gm(op, o[0])?;
                let (offsets, mask) = (self.tile(op, o[1])?, self.tile(op, o[2])?);
                let other = self.scalar(op, o[3])?;
                let dst = self.tile(op, o[4])?;
                let (off, m) = (self.read(&offsets), self.read(&mask));
                let buf = &self.gm[g];
                let mut values = Vec::with_capacity(dst.numel());
                for i in 0..dst.numel() {
                    if m[i] == 0.0 {
                        values.push(other);
                        continue;
                    }
                    let at = off[i];
                    if at < 0.0 || at as usize >= buf.data.len() {
                        return Err(ExecError::at(
                            op,
                            format!(
                                "copy_in reads GM offset {at}, outside a buffer of {} elements",
                                buf.data.len()
                            ),
                        ));
                    }
                    values.push(buf.data[at as usize]);
                }
                self.write(&dst, &values);
            }
            ascend_op::COPY_OUT => {
                let g = self.gm(op, o[0])?;
                let (offsets, src, mask) = (self.tile(op, o[1])?, self.tile(op, o[2])?, self.tile(op, o[3])?);
                let (off, v, m) = (self.read(&offsets), self.read(&src), self.read(&mask));
                let buf = &mut self.gm[g];
                for i in 0..src.numel() {
                    if m[i] == 0.0 {
                        continue;
                    }
                    let at = off[i];
                    if at < 0.0 || at as usize >= buf.data.len() {
                        return Err(ExecError::at(
                            op,
                            format!(
                                "copy_out writes GM offset {at}, outside a buffer of {} elements",
                                buf.data.len()
                            ),
                        ));
                    }
                    buf.data[at as usize] = round_to(v[i], buf.dtype);
                }
            }
            ascend_op::UNARY | ascend_op::BINARY | ascend_op::SELECT => {
                let dst = self.tile(op, o[0])?;
                let srcs = o[1..]
                    .iter()
                    .map(|&v| self.tile(op, v).map(|t| self.read(&t)))
                    .collect::<Result<Vec<_>, _>>()?;
                let which = if name == ascend_op::SELECT {
                    "arith.select".to_string()
                } else {
                    ir::attr(op, "op")
                        .and_then(fuselab_dialects::attrs::string_raw)
                        .unwrap_or_default()
                };
                let values: Vec<f64> = if which == "copy" {
                    srcs[0].iter().map(|&v| round_to(v, dst.dtype)).collect()
                } else {
                    let f = scalar_op(op, &which, Scalar::Typed(dst.dtype))?;
                    let mut args = vec![0.0; srcs.len()];
                    (0..dst.numel())
                        .map(|i| {
                            for (a, s) in args.iter_mut().zip(&srcs) {
                                *a = s[i];
                            }
                            round_to(f.apply(&args), dst.dtype)
                        })
                        .collect()
                };
                self.write(&dst, &values);
            }
            ascend_op::REDUCE => {
                let (dst, src) = (self.tile(op, o[0])?, self.tile(op, o[1])?);
                let axis = ir::integer(op, "axis").unwrap_or(1) as usize;
                let kind = ir::attr(op, "kind")
                    .and_then(fuselab_dialects::attrs::string_raw)
                    .unwrap_or_default();
                let (init, combine) = reduction_of(&kind)
                    .ok_or_else(|| ExecError::at(op, format!("reduction kind '{kind}' is not supported")))?;
                if axis >= src.shape.len() || dst.shape.get(axis) != Some(&1) {
                    return Err(ExecError::at(op, "the reduced axis is not kept with size 1"));
                }
                // Bools: `any` (max) starts false and `all` (min) true; ±inf would both
                // round to true.
                let init = match (dst.dtype, kind.as_str()) {
                    (DType::I1, "max") => 0.0,
                    (DType::I1, "min") => 1.0,
                    _ => round_to(init, dst.dtype),
                };
                let s = self.read(&src);
                let mut acc = vec![init; dst.numel()];
                let mut idx = vec![0i64; src.shape.len()];
                for (f, &v) in s.iter().enumerate() {
                    crate::tensor::unflatten(&src.shape, f, &mut idx);
                    idx[axis] = 0;
                    let at = crate::tensor::flat_index(&dst.shape, &idx);
                    acc[at] = round_to(combine(acc[at], v), dst.dtype);
                }
                // The intrinsic overwrites its scratch tile (here: the first lane's running
                // results), so a work tile placed over a live tile changes the numbers.
                let work = o
                    .get(2)
                    .ok_or_else(|| ExecError::at(op, "a reduction without its work tile"))
                    .and_then(|&w| self.tile(op, w))?;
                let stride: usize = src.shape[axis + 1..].iter().product::<i64>() as usize;
                let mut running = init;
                let scratch: Vec<f64> = (0..work.numel())
                    .map(|i| {
                        if let Some(&v) = s.get(i * stride) {
                            running = combine(running, v);
                        }
                        running
                    })
                    .collect();
                self.write(&work, &scratch);
                self.write(&dst, &acc);
            }
            _ if ir::result_count(op) == 1 => {
                let r = ir::result(op, 0);
                let ty = Scalar::of(ir::value_type(r))
                    .ok_or_else(|| ExecError::at(op, format!("'{name}' has an unsupported result type")))?;
                let args = o
                    .iter()
                    .map(|&v| self.scalar(op, v))
                    .collect::<Result<Vec<_>, _>>()?;
                let v = ty.round(scalar_op(op, &name, ty)?.apply(&args));
                self.env.insert(r.ptr as usize, Rv::Scalar(v));
            }
            other => {
                return Err(ExecError::at(
                    op,
                    format!("the Ascend interpreter cannot run '{other}'"),
                ))
            }
        }
        Ok(())
    }
}

/// Runs the `ascend.kernel` `kernel` on the host buffers `gm` (by kernel argument).
fn run_kernel(kernel: MlirOperation, buffers: &mut [Tensor], args: &[usize]) -> Result<(), ExecError> {
    let body = ir::body(kernel).ok_or_else(|| ExecError::at(kernel, "kernel without a body"))?;
    let capacity = ir::integer(kernel, "ub_capacity").unwrap_or(0).max(0) as usize;
    let programs = ir::integer(kernel, "programs").unwrap_or(1);
    let block_dim = ir::integer(kernel, "block_dim").unwrap_or(1).max(1);
    let params = ir::block_arguments(body);
    if params.len() != args.len() {
        return Err(ExecError::at(kernel, "launched with a wrong number of buffers"));
    }
    let mut allocs = Vec::new();
    let mut block_loop = None;
    for op in ir::block_ops(body) {
        match ir::op_name(op).as_str() {
            ascend_op::ALLOC => {
                let v = ir::result(op, 0);
                let ty = ir::value_type(v);
                let dtype = dtype_of(op, element_type(ty))?;
                let shape = shape_of(ty);
                let bytes = shape.iter().product::<i64>().max(1) as usize * bytes_of(dtype);
                let slot = bytes.div_ceil(32) * 32;
                let address = ir::integer(op, "address").unwrap_or(-1);
                let depth = ir::integer(op, "depth").unwrap_or(1).max(1) as usize;
                if address < 0 || address as usize + slot * depth > capacity {
                    return Err(ExecError::at(
                        op,
                        format!(
                            "a tile at UB bytes [{address}, {}) is outside the Unified Buffer of {capacity} bytes",
                            address + (slot * depth) as i64
                        ),
                    ));
                }
                allocs.push(Alloc {
                    value: v.ptr as usize,
                    address: address as usize,
                    slot,
                    depth,
                    shape,
                    dtype,
                });
            }
            ascend_op::BLOCK_LOOP => block_loop = ir::body(op),
            _ => {}
        }
    }
    let lp = block_loop.ok_or_else(|| ExecError::at(kernel, "kernel without a block loop"))?;
    let program = ir::block_arguments(lp)[0].ptr as usize;
    // Kernel arguments may repeat a buffer; the kernel sees them by argument.
    let mut gm: Vec<Tensor> = args.iter().map(|&b| buffers[b].clone()).collect();
    for core in 0..block_dim {
        let mut c = Core {
            ub: vec![UB_FILL; capacity],
            gm: &mut gm,
            env: HashMap::new(),
        };
        for (i, p) in params.iter().enumerate() {
            c.env.insert(p.ptr as usize, Rv::Gm(i));
        }
        for (k, p) in (core..programs).step_by(block_dim as usize).enumerate() {
            for a in &allocs {
                c.env.insert(
                    a.value,
                    Rv::Tile(TileRef {
                        address: a.address + (k % a.depth) * a.slot,
                        shape: a.shape.clone(),
                        dtype: a.dtype,
                    }),
                );
            }
            c.env.insert(program, Rv::Scalar(p as f64));
            c.ops(lp)?;
        }
    }
    // Written-back GM: a buffer passed twice takes the last argument's copy.
    for (i, &b) in args.iter().enumerate() {
        buffers[b] = gm[i].clone();
    }
    Ok(())
}

/// The buffers a host step's region yields.
fn yielded(op: MlirOperation, ids: &HashMap<usize, usize>) -> Result<Vec<usize>, ExecError> {
    let last = ir::body(op)
        .and_then(|b| ir::block_ops(b).last().copied())
        .ok_or_else(|| ExecError::at(op, "a host step without its buffers"))?;
    ir::operands(last)
        .iter()
        .map(|v| {
            ids.get(&(v.ptr as usize))
                .copied()
                .ok_or_else(|| ExecError::at(op, "an unknown buffer"))
        })
        .collect()
}

/// Runs the host function `function` of the `ascend` module `module` on `inputs`.
pub fn run_ascend(
    module: MlirOperation,
    function: &str,
    inputs: &[Tensor],
) -> Result<Vec<Tensor>, ExecError> {
    let body = ir::body(module).ok_or_else(|| ExecError::msg("module without a body"))?;
    let ops = ir::block_ops(body);
    let kernels: HashMap<String, MlirOperation> = ops
        .iter()
        .filter(|&&o| ir::op_name(o) == ascend_op::KERNEL)
        .map(|&o| {
            (
                ir::attr(o, "sym_name")
                    .and_then(fuselab_dialects::attrs::string_raw)
                    .unwrap_or_default(),
                o,
            )
        })
        .collect();
    let func = ops
        .iter()
        .copied()
        .find(|&o| {
            ir::op_name(o) == "func.func"
                && ir::attr(o, "sym_name")
                    .and_then(fuselab_dialects::attrs::string_raw)
                    .as_deref()
                    == Some(function)
        })
        .ok_or_else(|| ExecError::msg(format!("no host function @{function}")))?;
    let num_inputs = ir::integer(func, "fuselab.num_inputs").unwrap_or(0) as usize;
    let block = ir::body(func).ok_or_else(|| ExecError::at(func, "function without a body"))?;
    let params = ir::block_arguments(block);
    if inputs.len() != num_inputs {
        return Err(ExecError::at(
            func,
            format!("takes {num_inputs} inputs, got {}", inputs.len()),
        ));
    }
    let shapes = ir::attr(func, "fuselab.arg_shapes")
        .map(ir::array_elements)
        .unwrap_or_default();
    let mut ids: HashMap<usize, usize> = HashMap::new();
    let mut buffers: Vec<Tensor> = Vec::new();
    for (i, p) in params.iter().enumerate() {
        let t = match inputs.get(i) {
            Some(t) => t.clone(),
            None => {
                let ty = ir::value_type(*p);
                // The logical shape where the attribute gives one (the buffers are flat).
                let shape = shapes
                    .get(i)
                    .and_then(|&a| {
                        fuselab_dialects::attrs::i64_array(unsafe { melior::ir::Attribute::from_raw(a) })
                    })
                    .unwrap_or_else(|| shape_of(ty));
                let dtype = dtype_of(func, element_type(ty))?;
                fresh(shape, dtype)
            }
        };
        ids.insert(p.ptr as usize, buffers.len());
        buffers.push(t);
    }
    for op in ir::block_ops(block) {
        match ir::op_name(op).as_str() {
            "memref.alloc" => {
                let v = ir::result(op, 0);
                let ty = ir::value_type(v);
                let shape = ir::i64s(op, "fuselab.shape");
                let shape = if shape.is_empty() { shape_of(ty) } else { shape };
                ids.insert(v.ptr as usize, buffers.len());
                buffers.push(fresh(shape, dtype_of(op, element_type(ty))?));
            }
            ascend_op::LAUNCH => {
                let args = yielded(op, &ids)?;
                let callee = ir::attr(op, "kernel").map(ir::attr_string).unwrap_or_default();
                let name = callee.trim_start_matches('@').trim_matches('"');
                let kernel = kernels
                    .get(name)
                    .ok_or_else(|| ExecError::at(op, format!("launch of an unknown kernel {callee}")))?;
                run_kernel(*kernel, &mut buffers, &args)?;
            }
            ascend_op::EXTERN => {
                let args = yielded(op, &ids)?;
                let (&out, ins) = args
                    .split_last()
                    .ok_or_else(|| ExecError::at(op, "an extern without buffers"))?;
                let shape = ir::i64s(op, "fuselab.shape");
                let ty = TensorType {
                    shape: if shape.is_empty() {
                        buffers[out].shape.clone()
                    } else {
                        shape
                    },
                    dtype: buffers[out].dtype,
                };
                let operands: Vec<Tensor> = ins.iter().map(|&b| buffers[b].clone()).collect();
                let r = extern_result_as(op, &operands, &ty)?;
                let view = ir::i64s(op, "fuselab.out_view");
                let dst = &mut buffers[out];
                if view.is_empty() {
                    if r.data.len() != dst.data.len() {
                        return Err(ExecError::at(op, "an extern's result does not fill its buffer"));
                    }
                    dst.data.clone_from(&r.data);
                } else {
                    let rank = (view.len() - 1) / 2;
                    let (sizes, strides) = (&view[1..=rank], &view[rank + 1..]);
                    let mut idx = vec![0i64; rank];
                    for (f, &v) in r.data.iter().enumerate() {
                        crate::tensor::unflatten(sizes, f, &mut idx);
                        let at = view[0] + idx.iter().zip(strides).map(|(i, s)| i * s).sum::<i64>();
                        dst.data[at as usize] = round_to(v, dst.dtype);
                    }
                }
            }
            "memref.copy" => {
                let o = ir::operands(op);
                let (s, d) = (ids[&(o[0].ptr as usize)], ids[&(o[1].ptr as usize)]);
                let data = buffers[s].data.clone();
                buffers[d].data = data.into_iter().map(|v| round_to(v, buffers[d].dtype)).collect();
            }
            "func.return" => {}
            other => return Err(ExecError::at(op, format!("the Ascend host cannot run '{other}'"))),
        }
    }
    Ok(buffers[num_inputs..params.len()].to_vec())
}

/// A buffer nothing has written yet: NaN (floats) or 0.
fn fresh(shape: Vec<i64>, dtype: DType) -> Tensor {
    let n = shape.iter().product::<i64>().max(0) as usize;
    let fill = if dtype.is_float() { f64::NAN } else { 0.0 };
    Tensor::new(shape, dtype, vec![fill; n])
}
