//! A functional simulator of a Spyre program: runs a loop function after the three
//! Spyre passes as the device would lay it out, and returns its results.
//!
//! - **Device memory**: every buffer not in LX is an array of its *device* elements in
//!   its stick layout (padding included, initialized to NaN); graph inputs are copied in
//!   through their layouts, results copied out through theirs; `spyre.restickify` copies
//!   a buffer into another layout.
//! - **Cores**: every op runs core by core; core `c` computes exactly its box of the op's
//!   dims under the op's `spyre.core_split` (stick dims in whole sticks). A reduction
//!   split over cores combines the cores' partial results in device memory. An extern
//!   (matmul, convolution) is computed from its operands in device memory, and each core
//!   stores its box of the result.
//! - **LX**: each core has a [`LX_CAPACITY`]-byte array; a buffer placed at address `A`
//!   stores each core's box at `A` (row-major over the box, stick dim in whole sticks; a
//!   graph input cloned into LX is copied there, box by box, before its first reader),
//!   values encoded in the buffer's dtype. A core reads only its own LX: an element its
//!   box does not hold is an error; overlapping placements overwrite each other.
//!
//! So a wrong layout, split or placement changes the numbers (or fails), and `fuse-run
//! --target=spyre` checks them against the aten oracle.

use super::layout::{element_bytes, row_major_strides};
use super::plan::{core_box, read_all, Decisions, LxPlacement};
use super::program::{BufferDef, OpKind, Program, ProgramIr};
use super::residency::{lx_box, lx_extents};
use super::scratchpad::LX_CAPACITY;
use fuselab_dialects::{ir, loops::names};
use fuselab_exec::{
    loops::{combiner, extern_result, view_result, CompiledNode},
    splat_or_dense,
    tensor::{decode, encode, round_to},
    ExecError, Tensor,
};
use mlir_sys::MlirOperation;
use std::collections::{HashMap, HashSet};

/// Where one core keeps its box of an LX buffer: the box (half-open ranges per dim) and
/// the byte stride of each dim within it.
struct LxMap {
    bx: Vec<(i64, i64)>,
    strides: Vec<i64>,
}

struct Machine<'a> {
    p: &'a Program,
    d: &'a Decisions,
    pir: &'a ProgramIr,
    /// Device memory per buffer (`None`: in LX, or not computed yet).
    hbm: Vec<Option<Vec<f64>>>,
    /// Each core's LX.
    lx: Vec<Vec<u8>>,
    by_value: HashMap<usize, usize>,
    /// Each LX buffer's box on each core, by `(buffer, core)`.
    boxes: Vec<Vec<Option<Option<LxMap>>>>,
}

fn coords_of(shape: &[i64], flat: i64) -> Vec<i64> {
    let mut coords = Vec::with_capacity(shape.len());
    coords_into(shape, flat, &mut coords);
    coords
}

impl Machine<'_> {
    /// Byte address in `core`'s LX of element `coords` of buffer `b` placed at `at`.
    /// How `core` addresses buffer `b` in its LX (computed once per buffer and core).
    fn lx_map(&mut self, b: usize, core: i64) -> Option<&LxMap> {
        let (p, d) = (self.p, self.d);
        let slot = &mut self.boxes[b][core as usize];
        slot.get_or_insert_with(|| {
            let bx = lx_box(p, d, b, core)?;
            let (extents, element) = lx_extents(p, d, b, &bx);
            let mut strides = row_major_strides(&extents);
            strides.iter_mut().for_each(|s| *s *= element);
            Some(LxMap { bx, strides })
        })
        .as_ref()
    }

    /// Byte address in `core`'s LX of element `coords` of buffer `b` placed at `at`.
    fn lx_address(&mut self, b: usize, at: &LxPlacement, core: i64, coords: &[i64]) -> Result<usize, String> {
        let name = &self.p.buffers[b].name;
        let bytes = element_bytes(self.p.buffers[b].dtype);
        let map = self
            .lx_map(b, core)
            .ok_or_else(|| format!("core {core} reads {name} from LX, which it did not compute"))?;
        let mut offset = 0;
        for ((&c, &(lo, hi)), &stride) in coords.iter().zip(&map.bx).zip(&map.strides) {
            if c < lo || c >= hi {
                return Err(format!(
                    "core {core} reads element {coords:?} of {name} from its LX, which holds only {:?}",
                    map.bx
                ));
            }
            offset += (c - lo) * stride;
        }
        let address = at.address + offset;
        if address + bytes > LX_CAPACITY {
            return Err(format!("{name} at LX byte {address} is past the capacity"));
        }
        Ok(address as usize)
    }

    fn read(&mut self, b: usize, coords: &[i64], core: i64) -> Result<f64, String> {
        let buffer = &self.p.buffers[b];
        if let Some(at) = self.d.lx[b] {
            let a = self.lx_address(b, &at, core, coords)?;
            let n = element_bytes(buffer.dtype) as usize;
            return Ok(decode(buffer.dtype, &self.lx[core as usize][a..a + n]));
        }
        if self.hbm[b].is_none() {
            self.materialize(b)?;
        }
        self.read_hbm(b, coords)
            .ok_or_else(|| format!("{} is read before it is computed", self.p.buffers[b].name))
    }

    fn write(&mut self, b: usize, coords: &[i64], core: i64, v: f64) -> Result<(), String> {
        let buffer = &self.p.buffers[b];
        if let Some(at) = self.d.lx[b] {
            let v = round_to(v, buffer.dtype);
            let a = self.lx_address(b, &at, core, coords)?;
            let n = element_bytes(buffer.dtype) as usize;
            encode(buffer.dtype, v, &mut self.lx[core as usize][a..a + n]);
            return Ok(());
        }
        self.write_hbm(b, coords, v);
        Ok(())
    }

    /// Writes element `coords` of `b` in device memory.
    fn write_hbm(&mut self, b: usize, coords: &[i64], v: f64) {
        let buffer = &self.p.buffers[b];
        let v = round_to(v, buffer.dtype);
        let i = self.d.layouts[b].device_index(coords, &buffer.shape) as usize;
        let elements = self.d.layouts[b].device_elements() as usize;
        let m = self.hbm[b].get_or_insert_with(|| vec![f64::NAN; elements]);
        m[i] = v;
    }

    /// Element `coords` of `b` from device memory.
    fn read_hbm(&self, b: usize, coords: &[i64]) -> Option<f64> {
        let i = self.d.layouts[b].device_index(coords, &self.p.buffers[b].shape);
        self.hbm[b].as_ref().and_then(|m| m.get(i as usize).copied())
    }

    /// Each core copies the box of graph input `b` its readers touch into its LX (the
    /// input's clone, at its first reader).
    fn clone_input(&mut self, b: usize, cores: usize) -> Result<(), String> {
        for core in 0..cores as i64 {
            let Some(bx) = lx_box(self.p, self.d, b, core) else {
                continue;
            };
            let mut err = None;
            for_each_in_box(&bx, |point| {
                if err.is_some() {
                    return;
                }
                let v = self.read_hbm(b, point).unwrap_or(f64::NAN);
                if let Err(e) = self.write(b, point, core, v) {
                    err = Some(e);
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Stores host tensor `t` as buffer `b`'s device memory.
    fn store_host(&mut self, b: usize, t: &Tensor) -> Result<(), String> {
        for (flat, &v) in t.data.iter().enumerate() {
            let coords = coords_of(&t.shape, flat as i64);
            self.write(b, &coords, 0, v)?;
        }
        Ok(())
    }

    /// A constant's or a restickify's device memory, on first use.
    fn materialize(&mut self, b: usize) -> Result<(), String> {
        match self.p.buffers[b].def {
            BufferDef::Constant => {
                let op = ir::defining_op(self.pir.values[b]).ok_or("a constant without its op")?;
                let t = splat_or_dense(op)?;
                self.store_host(b, &t)
            }
            BufferDef::Restickify(src) => {
                let t = self.host(src)?;
                self.store_host(b, &t)
            }
            _ => Err(format!(
                "{} is read before it is computed",
                self.p.buffers[b].name
            )),
        }
    }

    /// Buffer `b`'s host tensor, read out of device memory.
    fn host(&mut self, b: usize) -> Result<Tensor, String> {
        let buffer = self.p.buffers[b].clone();
        let n: i64 = buffer.shape.iter().product();
        let data = (0..n)
            .map(|flat| {
                let coords = coords_of(&buffer.shape, flat);
                match self.read_hbm(b, &coords) {
                    Some(v) => Ok(v),
                    None => self.read(b, &coords, 0),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Tensor::new(buffer.shape, buffer.dtype, data))
    }

    /// The output coordinates of op `o`'s kept-dim point `kept`.
    fn out_coords(&self, o: usize, kept: &[i64]) -> Vec<i64> {
        let op = &self.p.ops[o];
        let mut c = vec![0; self.p.buffers[op.out].shape.len()];
        for (j, h) in op.out_dims.iter().enumerate() {
            if let Some(h) = h {
                c[*h] = kept[j];
            }
        }
        c
    }

    fn run_node(&mut self, o: usize) -> Result<(), ExecError> {
        let node_op = self.pir.ops[o];
        let node = CompiledNode::new(node_op)?;
        let reads: Vec<usize> = node
            .buffers()
            .iter()
            .map(|v| {
                self.by_value
                    .get(&(v.ptr as usize))
                    .copied()
                    .ok_or_else(|| ExecError::at(node_op, "loads an unknown buffer"))
            })
            .collect::<Result<_, _>>()?;
        let op = self.p.ops[o].clone();
        let out = op.out;
        let out_dtype = self.p.buffers[out].dtype;
        let (init, combine) = combiner(node_op, out_dtype)?;
        let split = self.d.split[o].clone();
        let cores: i64 = split.iter().product();
        let partial = (op.kept..op.dims.len()).any(|j| split[j] > 1);
        let mut written: HashSet<Vec<i64>> = HashSet::new();
        let mut env = Vec::new();
        for core in 0..cores {
            let Some(bx) = core_box(self.p, o, self.d.stick[o], &split, core) else {
                continue;
            };
            let (kept_box, red_box) = bx.split_at(op.kept);
            let mut point = vec![0i64; op.dims.len()];
            let mut failure: Option<String> = None;
            for_each_in_box(kept_box, |kept| {
                if failure.is_some() {
                    return;
                }
                point[..op.kept].copy_from_slice(kept);
                let mut acc = init;
                let mut coords = Vec::new();
                let mut eval = |point: &[i64], m: &mut Machine| -> Result<f64, String> {
                    node.eval(&mut env, point, &mut |slot, flat| {
                        let b = reads[slot];
                        coords_into(&m.p.buffers[b].shape, flat, &mut coords);
                        m.read(b, &coords, core)
                    })
                };
                let result = if op.kept == op.dims.len() {
                    eval(&point, self)
                } else {
                    let mut err = None;
                    for_each_in_box(red_box, |r| {
                        if err.is_some() {
                            return;
                        }
                        point[op.kept..].copy_from_slice(r);
                        match eval(&point, self) {
                            Ok(v) => acc = round_to(combine(acc, v), out_dtype),
                            Err(e) => err = Some(e),
                        }
                    });
                    err.map_or(Ok(acc), Err)
                };
                let coords = self.out_coords(o, kept);
                let stored = result.and_then(|v| {
                    let v = if partial && !written.insert(coords.clone()) {
                        combine(self.read(out, &coords, core)?, v)
                    } else {
                        v
                    };
                    self.write(out, &coords, core, v)
                });
                if let Err(e) = stored {
                    failure = Some(e);
                }
            });
            if let Some(e) = failure {
                return Err(ExecError::at(node_op, format!("Spyre simulator: {e}")));
            }
        }
        Ok(())
    }

    fn run_extern(&mut self, o: usize) -> Result<(), ExecError> {
        let op_ir = self.pir.ops[o];
        let operands = self.p.ops[o]
            .reads
            .iter()
            .map(|r| self.host(r.buffer))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| ExecError::at(op_ir, format!("Spyre simulator: {e}")))?;
        let result = extern_result(op_ir, &operands)?;
        let split = self.d.split[o].clone();
        let kept = self.p.ops[o].kept;
        let cores: i64 = split.iter().product();
        for core in 0..cores {
            let Some(bx) = core_box(self.p, o, self.d.stick[o], &split, core) else {
                continue;
            };
            let mut err = None;
            // A K split (matmul) computes partial sums; the combined result is stored by
            // the cores owning the output box (the k = 0 part).
            if bx[kept..].iter().any(|&(lo, _)| lo > 0) {
                continue;
            }
            for_each_in_box(&bx[..kept], |point| {
                if err.is_some() {
                    return;
                }
                let coords = self.out_coords(o, point);
                let flat = coords.iter().zip(&result.shape).fold(0, |f, (&c, &n)| f * n + c);
                if let Err(e) = self.write(self.p.ops[o].out, &coords, core, result.data[flat as usize]) {
                    err = Some(e);
                }
            });
            if let Some(e) = err {
                return Err(ExecError::at(op_ir, format!("Spyre simulator: {e}")));
            }
        }
        Ok(())
    }
}

/// Calls `f` with every point of `bx` (half-open ranges), row-major.
fn for_each_in_box(bx: &[(i64, i64)], mut f: impl FnMut(&[i64])) {
    if bx.iter().any(|&(lo, hi)| lo >= hi) {
        return;
    }
    let mut point: Vec<i64> = bx.iter().map(|&(lo, _)| lo).collect();
    loop {
        f(&point);
        let mut d = bx.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            point[d] += 1;
            if point[d] < bx[d].1 {
                break;
            }
            point[d] = bx[d].0;
        }
    }
}

/// Runs `func` (after `--spyre-assign-layouts`, `--spyre-divide-work` and
/// `--spyre-plan-scratchpad`) on `inputs` as the device would; returns its results.
pub fn simulate(func: MlirOperation, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError> {
    let located = |(op, m): (MlirOperation, String)| ExecError::at(op, m);
    let pir = ProgramIr::read(func).map_err(located)?;
    let d = read_all(&pir, func, "spyre simulator").map_err(located)?;
    let p = &pir.program;
    let mut by_value = HashMap::new();
    for b in 0..p.buffers.len() {
        by_value.insert(pir.values[b].ptr as usize, b);
        by_value.insert(pir.outer[b].ptr as usize, b);
    }
    let cores = (0..p.ops.len())
        .map(|o| d.split[o].iter().product::<i64>())
        .chain(std::iter::once(1))
        .max()
        .unwrap_or(1) as usize;
    let mut m = Machine {
        p,
        d: &d,
        pir: &pir,
        hbm: vec![None; p.buffers.len()],
        lx: vec![vec![0u8; LX_CAPACITY as usize]; cores],
        by_value,
        boxes: (0..p.buffers.len())
            .map(|_| (0..cores).map(|_| None).collect())
            .collect(),
    };
    for (b, buffer) in p.buffers.iter().enumerate() {
        if let BufferDef::Input(i) = buffer.def {
            let t = inputs
                .get(i)
                .ok_or_else(|| ExecError::msg(format!("missing input #{i}")))?;
            for (flat, &v) in t.data.iter().enumerate() {
                m.write_hbm(b, &coords_of(&t.shape, flat as i64), v);
            }
        }
    }
    for o in 0..p.ops.len() {
        for b in 0..p.buffers.len() {
            let starts_here = d.lx[b].is_some_and(|l| l.start == o as i64);
            if starts_here && matches!(p.buffers[b].def, BufferDef::Input(_)) {
                m.clone_input(b, cores)
                    .map_err(|e| ExecError::at(pir.ops[o], format!("Spyre simulator: {e}")))?;
            }
        }
        match p.ops[o].kind {
            OpKind::Pointwise | OpKind::Reduction(_) => m.run_node(o)?,
            OpKind::Matmul | OpKind::Extern(_) => m.run_extern(o)?,
        }
    }
    let block = ir::body(func).ok_or_else(|| ExecError::msg("function without a body"))?;
    let ret = ir::block_ops(block)
        .into_iter()
        .find(|op| ir::op_name(*op) == "func.return")
        .ok_or_else(|| ExecError::msg("function without func.return"))?;
    ir::operands(ret)
        .into_iter()
        .map(|v| {
            let view = ir::defining_op(v).filter(|op| ir::op_name(*op) == names::VIEW);
            let base = view.map_or(v, |op| ir::operand(op, 0));
            let b = *m
                .by_value
                .get(&(base.ptr as usize))
                .ok_or_else(|| ExecError::at(ret, "returns an unknown buffer"))?;
            let t = m
                .host(b)
                .map_err(|e| ExecError::at(ret, format!("Spyre simulator: {e}")))?;
            match view {
                Some(op) => view_result(op, &t),
                None => Ok(t),
            }
        })
        .collect()
}

/// Writes the coordinates of `flat` in a row-major tensor of `shape` into `out`.
fn coords_into(shape: &[i64], flat: i64, out: &mut Vec<i64>) {
    out.clear();
    out.resize(shape.len(), 0);
    let mut rest = flat;
    for d in (0..shape.len()).rev() {
        let n = shape[d].max(1);
        out[d] = rest % n;
        rest /= n;
    }
}
