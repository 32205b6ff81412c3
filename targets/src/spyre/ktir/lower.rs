//! A function after the three Spyre passes to its KTIR form, as the decisions say:
//!
//! - **HBM**: every buffer not in LX (graph inputs always) gets a device-memory byte
//!   address, in buffer order, 128-byte aligned, its size the device bytes of its stick
//!   layout (padding included); the function records the total (`spyre.hbm_bytes`).
//!   Inputs and constants are copied in through their views (`spyre.copy_in`), results
//!   read out (`spyre.copy_out`, then the function's `loop.view` where it returns one).
//! - **Kernels**: one `spyre.kernel` per pointwise or reduction op, over the cores of its
//!   `spyre.core_split`: each compute tile reads its box of the op's dims from a per-core
//!   table (`arith.constant` + `tensor.extract`: the boxes `--spyre-divide-work`
//!   implies, stick dims in whole sticks), loops over it (`scf.for`, a reduction's
//!   accumulator carried), evaluates the op's body with each `loop.load` turned into an
//!   access tile of the buffer's view (host coordinates from the load's index map) and
//!   a `spyre.load`, and stores the result through the output's view (`combine` where a
//!   reduction dim is split over cores: the cores' partial results meet in memory).
//! - **Views**: a buffer placed in LX (`spyre.lx`) is read and written through its LX
//!   view (address and each core's piece), everything else through its HBM view.
//! - **Copies**: a restickify is a one-core copy kernel between two HBM views; a graph
//!   input cloned into LX is copied, each core its piece, before its first reader.
//! - **Externs** (matmul, convolution) are `spyre.extern` host calls on HBM views.

use super::names;
use crate::spyre::{
    attrs::layout_attr,
    plan::{op_stick_elements, read_all, work_dims, Decisions},
    program::{BufferDef, OpKind, ProgramIr},
    residency::lx_box,
};
use fuselab_dialects::{
    build::{Builder, Value},
    ir,
    loops::{
        index::{affine_map_of, from_affine_map_attr, unravel, IndexExpr},
        names as loop_names,
    },
    types::DType,
};
use mlir_sys::{MlirOperation, MlirType};
use std::collections::HashMap;

type Located = (MlirOperation, String);

/// Alignment of HBM addresses (one stick).
pub const HBM_ALIGNMENT: i64 = 128;

struct Lowering<'a> {
    pir: &'a ProgramIr,
    d: &'a Decisions,
    b: Builder,
    /// Each buffer's HBM address (`None`: only in LX).
    hbm: Vec<Option<i64>>,
    /// Cores an LX view describes pieces for.
    cores: i64,
    by_value: HashMap<usize, usize>,
    /// Each op's index, by its node.
    op_of: HashMap<usize, usize>,
    /// Each LX buffer's `pieces` attribute (the same in every kernel that uses it).
    pieces: HashMap<usize, mlir_sys::MlirAttribute>,
    /// The views of the kernel being built, by `(buffer, in LX)`.
    views: HashMap<(usize, bool), Value>,
    func_name: String,
}

/// Rewrites `func` (after `--spyre-assign-layouts`, `--spyre-divide-work` and
/// `--spyre-plan-scratchpad`) into its KTIR form.
pub fn lower(func: MlirOperation) -> Result<(), Located> {
    let pir = ProgramIr::read(func)?;
    let d = read_all(&pir, func, "spyre-lower-to-ktir")?;
    let p = &pir.program;
    let mut next = 0;
    let hbm: Vec<Option<i64>> = (0..p.buffers.len())
        .map(|b| {
            let in_hbm = d.lx[b].is_none() || matches!(p.buffers[b].def, BufferDef::Input(_));
            in_hbm.then(|| {
                let at = next;
                next += (d.layouts[b].device_bytes() + HBM_ALIGNMENT - 1) / HBM_ALIGNMENT * HBM_ALIGNMENT;
                at
            })
        })
        .collect();
    let mut by_value = HashMap::new();
    for b in 0..p.buffers.len() {
        by_value.insert(pir.values[b].ptr as usize, b);
        by_value.insert(pir.outer[b].ptr as usize, b);
    }
    let cores = (0..p.ops.len())
        .map(|o| d.split[o].iter().product::<i64>())
        .chain(std::iter::once(1))
        .max()
        .unwrap_or(1);
    let func_name = ir::attr(func, "sym_name")
        .and_then(fuselab_dialects::attrs::string_raw)
        .unwrap_or_default();
    let block = ir::body(func).ok_or((func, "function without a body".to_string()))?;
    let old = ir::block_ops(block);
    let ret = *old
        .last()
        .filter(|r| ir::op_name(**r) == "func.return")
        .ok_or((func, "function without func.return".to_string()))?;
    ir::detach(ret);
    let mut l = Lowering {
        pir: &pir,
        d: &d,
        b: Builder::new(ir::location(func)),
        hbm,
        cores,
        by_value,
        op_of: pir
            .ops
            .iter()
            .enumerate()
            .map(|(o, op)| (op.ptr as usize, o))
            .collect(),
        pieces: HashMap::new(),
        views: HashMap::new(),
        func_name,
    };
    l.b.push(block);
    l.host_copies_in(func);
    let built = l.steps(&old[..old.len() - 1]).and_then(|()| l.returns(ret));
    // The function keeps its terminator even when the lowering failed half-way.
    ir::append(block, ret);
    built?;
    for &op in old[..old.len() - 1].iter().rev() {
        if ir::op_name(op) != "arith.constant" {
            ir::erase(op);
        }
    }
    let ctx = ir::context(func);
    ir::set_attr(func, names::HBM_BYTES, ir::i64_attr(ctx, next));
    Ok(())
}

impl Lowering<'_> {
    fn buffer_of(&self, at: MlirOperation, v: Value) -> Result<usize, Located> {
        self.by_value
            .get(&(v.ptr as usize))
            .copied()
            .ok_or((at, "reads a value the Spyre program does not know".to_string()))
    }

    fn op_index(&self, op: MlirOperation) -> Option<usize> {
        self.op_of.get(&(op.ptr as usize)).copied()
    }

    /// Lowers the function's top-level ops `ops` (a `loop.kernel` member by member).
    fn steps(&mut self, ops: &[MlirOperation]) -> Result<(), Located> {
        for &top in ops {
            let members = match ir::op_name(top).as_str() {
                loop_names::KERNEL => ir::body(top).map(ir::block_ops).unwrap_or_default(),
                _ => vec![top],
            };
            for op in members {
                self.step(op)?;
            }
        }
        Ok(())
    }

    /// Lowers one top-level op or kernel member.
    fn step(&mut self, op: MlirOperation) -> Result<(), Located> {
        let name = ir::op_name(op);
        if name == crate::spyre::attrs::names::RESTICKIFY {
            let b = self.buffer_of(op, ir::result(op, 0))?;
            let BufferDef::Restickify(src) = self.pir.program.buffers[b].def else {
                return Err((op, "a restickify the Spyre program does not know".into()));
            };
            let full: Vec<(i64, i64)> = self.pir.program.buffers[b]
                .shape
                .iter()
                .map(|&n| (0, n))
                .collect();
            let label = format!("restickify_{}", self.pir.program.buffers[b].name);
            return self.copy_kernel(op, &label, (src, false), (b, false), &[Some(full)]);
        }
        let Some(o) = self.op_index(op) else {
            return Ok(());
        };
        let pir = self.pir;
        let p = &pir.program;
        // Graph inputs come first among the buffers.
        let inputs = p
            .buffers
            .iter()
            .take_while(|x| matches!(x.def, BufferDef::Input(_)))
            .count();
        for b in 0..inputs {
            if self.d.lx[b].is_some_and(|l| l.start == o as i64) {
                let boxes: Vec<_> = (0..self.cores).map(|c| lx_box(p, self.d, b, c)).collect();
                let label = format!("clone_{}", p.buffers[b].name);
                self.copy_kernel(op, &label, (b, false), (b, true), &boxes)?;
            }
        }
        match p.ops[o].kind {
            OpKind::Pointwise | OpKind::Reduction(_) => self.node_kernel(o),
            OpKind::Matmul | OpKind::Extern(_) => self.extern_call(o),
        }
    }

    fn element_type(&self, b: usize) -> MlirType {
        unsafe { mlir_sys::mlirShapedTypeGetElementType(ir::value_type(self.pir.values[b])) }
    }

    fn memref(&self, shape: &[i64], element: MlirType, space: &str) -> MlirType {
        let dims: String = shape.iter().map(|n| format!("{n}x")).collect();
        let text = format!("memref<{dims}{}, \"{space}\">", ir::type_string(element));
        ir::parse_type(self.b.context(), &text).unwrap_or(element)
    }

    /// Buffer `b`'s view in LX (`lx`) or HBM, built once per kernel.
    fn view(&mut self, b: usize, lx: bool) -> Value {
        if let Some(&v) = self.views.get(&(b, lx)) {
            return v;
        }
        let v = self.new_view(b, lx);
        self.views.insert((b, lx), v);
        v
    }

    fn new_view(&mut self, b: usize, lx: bool) -> Value {
        let ctx = self.b.context();
        let pir = self.pir;
        let p = &pir.program;
        let buffer = &p.buffers[b];
        let space = if lx { names::LX } else { names::HBM };
        let ty = self.memref(&buffer.shape, self.element_type(b), space);
        let address = if lx {
            self.d.lx[b].map_or(0, |l| l.address)
        } else {
            self.hbm[b].unwrap_or(0)
        };
        let mut attrs = vec![
            ("memory_space", ir::string_attr(ctx, space)),
            ("address", ir::i64_attr(ctx, address)),
            ("layout", layout_attr(ctx, &self.d.layouts[b])),
        ];
        if lx {
            // Per core its box's [lo, hi) per dim; a rank-0 buffer's [0, 1] where held.
            let (d, cores) = (self.d, self.cores);
            let pieces = *self.pieces.entry(b).or_insert_with(|| {
                let flat: Vec<i64> = (0..cores)
                    .flat_map(|c| match lx_box(p, d, b, c) {
                        Some(bx) if bx.is_empty() => vec![0, 1],
                        Some(bx) => bx.into_iter().flat_map(|(lo, hi)| [lo, hi]).collect(),
                        None => [0, 0].repeat(buffer.shape.len().max(1)),
                    })
                    .collect();
                ir::i64_array_attr(ctx, &flat)
            });
            attrs.push(("pieces", pieces));
        }
        self.b.value(names::VIEW, &[], ty, &attrs)
    }

    /// An access tile of view `view` (of buffer `b`) at host coordinates `coords` of
    /// `indices` (dims, then symbols).
    fn tile(
        &mut self,
        at: MlirOperation,
        b: usize,
        lx: bool,
        coords: &[IndexExpr],
        dims: usize,
        indices: &[Value],
    ) -> Result<Value, Located> {
        let view = *self.views.get(&(b, lx)).ok_or((
            at,
            "internal error: a view not built at the kernel's top".to_string(),
        ))?;
        let text = affine_map_of(coords, dims, indices.len() - dims);
        let map = ir::parse_attr(self.b.context(), &text).ok_or((at, format!("bad access map {text}")))?;
        let space = if lx { names::LX } else { names::HBM };
        let ty = self.memref(&[], self.element_type(b), space);
        let mut operands = vec![view];
        operands.extend_from_slice(indices);
        Ok(self
            .b
            .value(names::ACCESS_TILE, &operands, ty, &[("base_map", map)]))
    }

    /// Opens `spyre.kernel` over `cores` cores, builds the views it uses (`views`:
    /// buffer, in LX) and returns each dim's `(lo, hi)` for the running compute tile.
    fn open_kernel(
        &mut self,
        at: MlirOperation,
        label: &str,
        cores: i64,
        bounds: &Bounds<'_>,
        views: &[(usize, bool)],
    ) -> Result<Vec<(Value, Value)>, Located> {
        let ctx = self.b.context();
        let name = format!("{}_{}", self.func_name, crate::symbol_part(label));
        self.b.at(ir::location(at));
        self.b.open(
            names::KERNEL,
            &[],
            &[],
            &[
                ("sym_name", ir::string_attr(ctx, &name)),
                ("cores", ir::i64_attr(ctx, cores)),
            ],
            &[],
        );
        self.views.clear();
        let index = self.b.index_type();
        let id = self.b.value(names::TILE_ID, &[], index, &[]);
        for &(b, lx) in views {
            self.view(b, lx);
        }
        match bounds {
            Bounds::Split {
                split,
                per,
                unit,
                size,
            } => Ok(self.split_bounds(id, split, per, unit, size)),
            Bounds::Table(boxes) => self.table_bounds(at, id, boxes),
        }
    }

    /// Core `id`'s box under `split` (as [`core_box`]): part `p_j = (id / prod(split[j+1..]))
    /// mod split[j]`, `lo = min(p_j * per_j * unit_j, size_j)`, `hi = min((p_j + 1) * per_j *
    /// unit_j, size_j)`.
    fn split_bounds(
        &mut self,
        id: Value,
        split: &[i64],
        per: &[i64],
        unit: &[i64],
        size: &[i64],
    ) -> Vec<(Value, Value)> {
        (0..split.len())
            .map(|j| {
                let stride: i64 = split[j + 1..].iter().product();
                let step = per[j] * unit[j];
                if split[j] == 1 {
                    return (self.b.index(0), self.b.index(size[j].min(step)));
                }
                let q = if stride == 1 {
                    id
                } else {
                    let s = self.b.index(stride);
                    self.b.binary("arith.divsi", id, s)
                };
                let n = self.b.index(split[j]);
                let part = self.b.binary("arith.remsi", q, n);
                let step_v = self.b.index(step);
                let lo = self.b.binary("arith.muli", part, step_v);
                let hi = self.b.binary("arith.addi", lo, step_v);
                if step * split[j] <= size[j] {
                    return (lo, hi);
                }
                let n = self.b.index(size[j]);
                (
                    self.b.binary("arith.minsi", lo, n),
                    self.b.binary("arith.minsi", hi, n),
                )
            })
            .collect()
    }

    /// Core `id`'s box read from a per-core table of `boxes` (`None`: idle).
    fn table_bounds(
        &mut self,
        at: MlirOperation,
        id: Value,
        boxes: &[Option<Vec<(i64, i64)>>],
    ) -> Result<Vec<(Value, Value)>, Located> {
        let ctx = self.b.context();
        let index = self.b.index_type();
        let rank = boxes.iter().flatten().map(Vec::len).max().unwrap_or(0);
        if rank == 0 {
            return Ok(Vec::new());
        }
        let rows: Vec<String> = boxes
            .iter()
            .map(|bx| {
                let bx = bx.clone().unwrap_or_else(|| vec![(0, 0); rank]);
                let cells: Vec<String> = bx
                    .iter()
                    .flat_map(|&(lo, hi)| [lo.to_string(), hi.to_string()])
                    .collect();
                format!("[{}]", cells.join(", "))
            })
            .collect();
        let ty_text = format!("tensor<{}x{}xindex>", boxes.len(), 2 * rank);
        let ty = ir::parse_type(ctx, &ty_text).ok_or((at, "bad box table type".to_string()))?;
        let value = ir::parse_attr(ctx, &format!("dense<[{}]> : {ty_text}", rows.join(", ")))
            .ok_or((at, "bad box table".to_string()))?;
        let table = self.b.constant(value, ty);
        Ok((0..rank)
            .map(|j| {
                let (c_lo, c_hi) = (self.b.index(2 * j as i64), self.b.index(2 * j as i64 + 1));
                let lo = self.b.value("tensor.extract", &[table, id, c_lo], index, &[]);
                let hi = self.b.value("tensor.extract", &[table, id, c_hi], index, &[]);
                (lo, hi)
            })
            .collect())
    }

    /// A kernel copying `src` to `dst` (buffers, in LX or not) over each core's box.
    fn copy_kernel(
        &mut self,
        at: MlirOperation,
        label: &str,
        src: (usize, bool),
        dst: (usize, bool),
        boxes: &[Option<Vec<(i64, i64)>>],
    ) -> Result<(), Located> {
        let rank = self.pir.program.buffers[dst.0].shape.len();
        let cores = boxes.len() as i64;
        let bounds = self.open_kernel(at, label, cores, &Bounds::Table(boxes), &[src, dst])?;
        let one = self.b.index(1);
        let ivs: Vec<Value> = bounds
            .iter()
            .map(|&(lo, hi)| self.b.open_for(lo, hi, one, &[]).args[0])
            .collect();
        let identity: Vec<IndexExpr> = (0..rank).map(IndexExpr::dim).collect();
        let from = self.tile(at, src.0, src.1, &identity, rank, &ivs)?;
        let element = self.element_type(src.0);
        let v = self.b.value(names::LOAD, &[from], element, &[]);
        let to = self.tile(at, dst.0, dst.1, &identity, rank, &ivs)?;
        self.b.op(names::STORE, &[v, to], &[], &[]);
        for _ in 0..rank {
            self.b.close("scf.yield", &[]);
        }
        self.b.close("gpu.yield", &[]);
        Ok(())
    }

    /// Op `o` (pointwise or reduction) as a kernel.
    fn node_kernel(&mut self, o: usize) -> Result<(), Located> {
        let (pir, d) = (self.pir, self.d);
        let p = &pir.program;
        let node = pir.ops[o];
        let op = p.ops[o].clone();
        let split = d.split[o].clone();
        let cores = split.iter().product::<i64>().max(1);
        let (work, _) = work_dims(p, o, d.stick[o]);
        let e = op_stick_elements(p, o);
        let bounds = Bounds::Split {
            per: work.iter().zip(&split).map(|(w, &s)| w.size / s.max(1)).collect(),
            unit: (0..split.len())
                .map(|j| if d.stick[o] == Some(j) { e } else { 1 })
                .collect(),
            size: op.dims.clone(),
            split: split.clone(),
        };
        let mut views = Vec::new();
        for load in ir::collect_ops(node, |n| n == loop_names::LOAD) {
            let b = self.buffer_of(load, ir::operand(load, 0))?;
            views.push((b, d.lx[b].is_some()));
        }
        views.push((op.out, d.lx[op.out].is_some()));
        let bounds = self.open_kernel(node, &op.name, cores, &bounds, &views)?;
        let one = self.b.index(1);
        let mut ivs = Vec::with_capacity(op.dims.len());
        for &(lo, hi) in &bounds[..op.kept] {
            ivs.push(self.b.open_for(lo, hi, one, &[]).args[0]);
        }
        let out_dtype = p.buffers[op.out].dtype;
        let value = if let OpKind::Reduction(kind) = &op.kind {
            let (init, _) =
                fuselab_exec::loops::combiner(node, out_dtype).map_err(|e| (node, e.to_string()))?;
            let element = self.element_type(op.out);
            let mut acc = self.scalar(element, out_dtype, init);
            for &(lo, hi) in &bounds[op.kept..] {
                let f = self.b.open_for(lo, hi, one, &[acc]);
                ivs.push(f.args[0]);
                acc = f.args[1];
            }
            let v = self.body(node, &op.dims, &ivs)?;
            if ir::value_type(v).ptr != element.ptr {
                return Err((
                    node,
                    "a reduction whose body yields another type than its result's".into(),
                ));
            }
            let name = combine_op(kind, out_dtype)
                .ok_or((node, format!("reduction kind '{kind}' has no KTIR combine")))?;
            let mut next = self.b.binary(name, acc, v);
            for _ in op.kept..op.dims.len() {
                next = self.b.close("scf.yield", &[next])[0];
            }
            next
        } else {
            self.body(node, &op.dims, &ivs)?
        };
        let shape = &p.buffers[op.out].shape;
        let coords: Vec<IndexExpr> = (0..shape.len())
            .map(|h| {
                op.out_dims
                    .iter()
                    .position(|&x| x == Some(h))
                    .map_or(IndexExpr::constant(0), IndexExpr::dim)
            })
            .collect();
        let to = self.tile(
            node,
            op.out,
            d.lx[op.out].is_some(),
            &coords,
            op.kept,
            &ivs[..op.kept],
        )?;
        let partial = (op.kept..op.dims.len()).any(|j| split[j] > 1);
        let mut attrs = Vec::new();
        if let (true, OpKind::Reduction(kind)) = (partial, &op.kind) {
            attrs.push(("combine", ir::string_attr(self.b.context(), kind)));
        }
        self.b.op(names::STORE, &[value, to], &[], &attrs);
        for _ in 0..op.kept {
            self.b.close("scf.yield", &[]);
        }
        self.b.close("gpu.yield", &[]);
        Ok(())
    }

    /// A scalar constant `v` of `element` (`dtype`).
    fn scalar(&mut self, element: MlirType, dtype: DType, v: f64) -> Value {
        let attr = if dtype.is_float() {
            self.b.float_attr(element, v)
        } else {
            self.b.int_attr(element, v as i64)
        };
        self.b.constant(attr, element)
    }

    /// Clones `node`'s body at loop variables `ivs` into the open block, each `loop.load`
    /// an access tile and a `spyre.load`; returns the yielded value.
    fn body(&mut self, node: MlirOperation, ranges: &[i64], ivs: &[Value]) -> Result<Value, Located> {
        let body = ir::body(node).ok_or((node, "a node without a body".to_string()))?;
        let mut map: HashMap<usize, Value> = HashMap::new();
        for (a, &iv) in ir::block_arguments(body).iter().zip(ivs) {
            map.insert(a.ptr as usize, iv);
        }
        let lookup = |map: &HashMap<usize, Value>, op: MlirOperation, v: Value| {
            map.get(&(v.ptr as usize))
                .copied()
                .ok_or((op, "uses a value from outside its node's body".to_string()))
        };
        for op in ir::block_ops(body) {
            let name = ir::op_name(op);
            if name == loop_names::YIELD {
                return lookup(&map, op, ir::operand(op, 0));
            }
            let operands = ir::operands(op);
            if name == loop_names::LOAD {
                let b = self.buffer_of(op, operands[0])?;
                let (expr, dims, _) = ir::attr(op, "index")
                    .and_then(from_affine_map_attr)
                    .ok_or((op, "a load without an index map".to_string()))?;
                let coords = unravel(&expr, &self.pir.program.buffers[b].shape, ranges);
                let mut indices = ivs[..dims.min(ivs.len())].to_vec();
                for &s in &operands[1..] {
                    indices.push(lookup(&map, op, s)?);
                }
                self.b.at(ir::location(op));
                let lx = self.d.lx[b].is_some();
                let tile = self.tile(op, b, lx, &coords, dims, &indices)?;
                let v = self
                    .b
                    .value(names::LOAD, &[tile], ir::value_type(ir::result(op, 0)), &[]);
                map.insert(ir::result(op, 0).ptr as usize, v);
                continue;
            }
            let c = ir::clone(op);
            for (i, &v) in operands.iter().enumerate() {
                ir::set_operand(c, i, lookup(&map, op, v)?);
            }
            if let Some(block) = self.b.block() {
                ir::append(block, c);
            }
            for i in 0..ir::result_count(op) {
                map.insert(ir::result(op, i).ptr as usize, ir::result(c, i));
            }
        }
        Err((node, "a node body without gpu.yield".into()))
    }

    /// An extern op as a `spyre.extern` host call on HBM views (its operands, then its
    /// result).
    fn extern_call(&mut self, o: usize) -> Result<(), Located> {
        let node = self.pir.ops[o];
        let attrs: Vec<(String, mlir_sys::MlirAttribute)> = ir::named_attributes(node)
            .into_iter()
            .filter(|(n, _)| !n.starts_with("spyre."))
            .collect();
        let attrs: Vec<(&str, mlir_sys::MlirAttribute)> =
            attrs.iter().map(|(n, a)| (n.as_str(), *a)).collect();
        self.b.at(ir::location(node));
        self.b.open(names::EXTERN, &[], &[], &attrs, &[]);
        self.views.clear();
        let mut views = Vec::new();
        for v in ir::operands(node) {
            let b = self.buffer_of(node, v)?;
            views.push(self.view(b, false));
        }
        let out = self.pir.program.ops[o].out;
        views.push(self.view(out, false));
        self.b.close("gpu.yield", &views);
        Ok(())
    }

    /// Copies the graph inputs and the constants into their HBM views.
    fn host_copies_in(&mut self, func: MlirOperation) {
        self.b.at(ir::location(func));
        self.views.clear();
        let pir = self.pir;
        for (b, buffer) in pir.program.buffers.iter().enumerate() {
            if matches!(buffer.def, BufferDef::Input(_) | BufferDef::Constant) {
                if let Some(op) = ir::defining_op(self.pir.values[b]) {
                    self.b.at(ir::location(op));
                }
                let view = self.new_view(b, false);
                self.b.op(names::COPY_IN, &[self.pir.values[b], view], &[], &[]);
            }
        }
    }

    /// Reads each returned buffer out of its view (then through the function's
    /// `loop.view`, if it returns one) and makes `ret` return those.
    fn returns(&mut self, ret: MlirOperation) -> Result<(), Located> {
        self.b.at(ir::location(ret));
        for (i, v) in ir::operands(ret).into_iter().enumerate() {
            let view_op = ir::defining_op(v).filter(|op| ir::op_name(*op) == loop_names::VIEW);
            let base = view_op.map_or(v, |op| ir::operand(op, 0));
            let b = self.buffer_of(ret, base)?;
            let lx = self.hbm[b].is_none();
            let view = self.new_view(b, lx);
            let ty = ir::value_type(base);
            let host = self.b.value(names::COPY_OUT, &[view], ty, &[]);
            let result = match view_op {
                Some(op) => {
                    let c = ir::clone(op);
                    ir::set_operand(c, 0, host);
                    if let Some(block) = self.b.block() {
                        ir::append(block, c);
                    }
                    ir::result(c, 0)
                }
                None => host,
            };
            ir::set_operand(ret, i, result);
        }
        Ok(())
    }
}

/// How a kernel's compute tiles find their boxes.
enum Bounds<'a> {
    /// From the op's core split (arith on the compute tile id): parts, per-part size in
    /// units, elements per unit (a stick, or 1), and each dim's size.
    Split {
        split: Vec<i64>,
        per: Vec<i64>,
        unit: Vec<i64>,
        size: Vec<i64>,
    },
    /// From a per-core table (`None`: the core is idle).
    Table(&'a [Option<Vec<(i64, i64)>>]),
}

/// The `arith` op a reduction of `kind` combines with in `dtype`.
fn combine_op(kind: &str, dtype: DType) -> Option<&'static str> {
    fuselab_dialects::loops::combine_op(kind, dtype.is_float(), dtype == DType::I1)
}
