//! Runs a function in KTIR form as the device would (the functional simulator's
//! machine), every address taken from the program's views:
//!
//! - **HBM** is one byte array of `spyre.hbm_bytes` bytes, filled with `0xFF` (NaN in
//!   every float type) before the inputs are copied in; a view reads and writes element
//!   `coords` at `address + device_index(coords) * bytes` of its stick layout, values
//!   encoded in the buffer's dtype.
//! - **LX**: each core has a [`LX_CAPACITY`]-byte array; an LX view's element is at
//!   `address` plus its offset in the running core's piece (row-major over the piece, the
//!   stick dim in whole sticks). A core reads only its own LX: an element its piece does
//!   not hold is an error; overlapping placements overwrite each other.
//! - **Kernels** run compute tile by compute tile (0 .. cores-1), each tile's body
//!   interpreted once per point of its loops; `scf.for` carries values; scalar ops are
//!   the loop interpreter's ([`scalar_op`]), rounded to their result type.
//! - **Host**: `copy_in` / `copy_out` go through views on core 0, `spyre.extern` calls the
//!   library kernel on its operand views' tensors and writes its result view.
//!
//! So a wrong address, piece, layout or table in the KTIR changes the numbers (or
//! fails), and `fuse-run --target=spyre` checks them against the aten oracle.

use crate::{
    loops::{extern_result_as, reduction_of, view_result, Combine},
    scalar::{scalar_op, Scalar, ScalarOp},
    shaped::{dtype_of, element_type, shape_of},
    splat_or_dense,
    tensor::{accumulation_dtype, decode, encode, round_to, unflatten},
    ExecError, Tensor,
};
use fuselab_dialects::{
    ir,
    loops::{index::from_affine_map_results, index::IndexExpr, names as loop_names},
    spyre::{
        attrs::{piece_extents, read_layout, DeviceLayout},
        ktir as names,
        layout::{element_bytes, row_major_strides},
        LX_CAPACITY,
    },
    types::{DType, TensorType},
};
use mlir_sys::{MlirBlock, MlirOperation};
use std::collections::HashMap;

/// The byte HBM is filled with before a program runs.
const HBM_FILL: u8 = 0xFF;

/// One core's piece of an LX view: its box (half-open per host dim) and the byte stride
/// of each dim in it.
type Piece = (Vec<(i64, i64)>, Vec<i64>);

/// A memory view, read from its op.
struct View {
    lx: bool,
    address: i64,
    shape: Vec<i64>,
    dtype: DType,
    layout: DeviceLayout,
    /// LX: each core's piece (its box and the byte stride of each dim in it; `None`:
    /// the core holds none).
    pieces: Vec<Option<Piece>>,
}

impl View {
    fn read(op: MlirOperation) -> Result<Self, ExecError> {
        let bad = |m: &str| ExecError::at(op, format!("memory view: {m}"));
        let ty = ir::value_type(ir::result(op, 0));
        let dtype = dtype_of(op, element_type(ty))?;
        let shape = shape_of(ty);
        let space = ir::attr(op, "memory_space")
            .and_then(fuselab_dialects::attrs::string_raw)
            .ok_or_else(|| bad("no memory_space"))?;
        let lx = match space.as_str() {
            names::HBM => false,
            names::LX => true,
            other => return Err(bad(&format!("unknown memory space '{other}'"))),
        };
        let address = ir::integer(op, "address").ok_or_else(|| bad("no address"))?;
        let layout = ir::attr(op, "layout")
            .and_then(|d| read_layout(d, &shape, dtype))
            .ok_or_else(|| bad("no layout or one that does not fit its shape"))?;
        let mut pieces = Vec::new();
        if lx {
            let flat = ir::i64s(op, "pieces");
            let rank = shape.len().max(1);
            if !flat.len().is_multiple_of(2 * rank) {
                return Err(bad("pieces is not a box per core"));
            }
            // A rank-0 buffer's piece is written [0, 1] (held) or [0, 0] (not).
            for core in flat.chunks(2 * rank) {
                let pairs: Vec<(i64, i64)> = core.chunks(2).map(|c| (c[0], c[1])).collect();
                if pairs.iter().any(|&(lo, hi)| lo >= hi) {
                    pieces.push(None);
                    continue;
                }
                let bx: Vec<(i64, i64)> = pairs.into_iter().take(shape.len()).collect();
                let (extents, element) = piece_extents(&layout, dtype, &bx);
                let mut strides = row_major_strides(&extents);
                strides.iter_mut().for_each(|s| *s *= element);
                pieces.push(Some((bx, strides)));
            }
        }
        Ok(Self {
            lx,
            address,
            shape,
            dtype,
            layout,
            pieces,
        })
    }

    /// The byte address of element `coords` as compute tile `core` sees it, checked
    /// against a memory of `len` bytes.
    fn address(&self, coords: &[i64], core: usize, len: usize) -> Result<usize, String> {
        if coords.iter().zip(&self.shape).any(|(&c, &n)| c < 0 || c >= n) {
            return Err(format!(
                "element {coords:?} is outside the view's shape {:?}",
                self.shape
            ));
        }
        let bytes = element_bytes(self.dtype);
        let at = if self.lx {
            let (bx, strides) = self.pieces.get(core).and_then(Option::as_ref).ok_or_else(|| {
                format!("core {core} reads element {coords:?} from its LX, which holds none of it")
            })?;
            let mut offset = 0;
            for ((&c, &(lo, hi)), &s) in coords.iter().zip(bx).zip(strides) {
                if c < lo || c >= hi {
                    return Err(format!(
                        "core {core} reads element {coords:?} from its LX, which holds only {bx:?}"
                    ));
                }
                offset += (c - lo) * s;
            }
            self.address + offset
        } else {
            self.address + self.layout.device_index(coords, &self.shape) * bytes
        };
        if at < 0 || (at + bytes) as usize > len {
            let memory = if self.lx { "LX" } else { "HBM" };
            return Err(format!(
                "element {coords:?} at {memory} byte {at} is past the memory's {len} bytes"
            ));
        }
        Ok(at as usize)
    }
}

/// An index map applied to registers: its results over `args` (dims, then symbols).
struct Map {
    exprs: Vec<IndexExpr>,
    dims: usize,
    args: Vec<usize>,
}

/// A compiled kernel body op.
enum Instr {
    Scalar {
        op: ScalarOp,
        ty: Scalar,
        args: Vec<usize>,
        out: usize,
    },
    TileId {
        out: usize,
    },
    Extract {
        table: usize,
        args: Vec<usize>,
        out: usize,
    },
    Tile {
        view: usize,
        map: Map,
        out: usize,
    },
    Apply {
        map: Map,
        out: usize,
    },
    Load {
        tile: usize,
        out: usize,
    },
    Store {
        value: usize,
        tile: usize,
        combine: Option<Combine>,
    },
    For(Box<Loop>),
}

struct Loop {
    lo: usize,
    hi: usize,
    step: usize,
    iv: usize,
    inits: Vec<usize>,
    carried: Vec<usize>,
    body: Vec<Instr>,
    yields: Vec<usize>,
    results: Vec<usize>,
}

/// A kernel ready to run: its code, views and tables.
#[derive(Default)]
struct Kernel {
    regs: HashMap<usize, usize>,
    tiles: HashMap<usize, usize>,
    views: Vec<View>,
    view_of: HashMap<usize, usize>,
    /// Constant index tables: shape and row-major values.
    tables: Vec<(Vec<i64>, Vec<i64>)>,
    table_of: HashMap<usize, usize>,
}

impl Kernel {
    fn reg(&mut self, v: mlir_sys::MlirValue) -> usize {
        let n = self.regs.len();
        *self.regs.entry(v.ptr as usize).or_insert(n)
    }

    fn used(&self, op: MlirOperation, v: mlir_sys::MlirValue) -> Result<usize, ExecError> {
        self.regs
            .get(&(v.ptr as usize))
            .copied()
            .ok_or_else(|| ExecError::at(op, "uses a value the kernel does not define"))
    }

    fn args(&self, op: MlirOperation, from: usize) -> Result<Vec<usize>, ExecError> {
        ir::operands(op)[from..]
            .iter()
            .map(|&v| self.used(op, v))
            .collect()
    }

    /// Compiles `block`; returns its code and its terminator's operands.
    fn block(&mut self, block: MlirBlock) -> Result<(Vec<Instr>, Vec<usize>), ExecError> {
        let mut code = Vec::new();
        for op in ir::block_ops(block) {
            let name = ir::op_name(op);
            let out = || ir::result(op, 0);
            match name.as_str() {
                "scf.yield" | loop_names::YIELD => return Ok((code, self.args(op, 0)?)),
                names::TILE_ID => code.push(Instr::TileId { out: self.reg(out()) }),
                names::VIEW => {
                    self.view_of.insert(out().ptr as usize, self.views.len());
                    self.views.push(View::read(op)?);
                }
                "arith.constant" if ir::type_string(ir::value_type(out())).starts_with("tensor") => {
                    let t = index_table(op)?;
                    self.table_of.insert(out().ptr as usize, self.tables.len());
                    self.tables.push(t);
                }
                "tensor.extract" => {
                    let table = *self
                        .table_of
                        .get(&(ir::operand(op, 0).ptr as usize))
                        .ok_or_else(|| ExecError::at(op, "extracts from no constant table"))?;
                    let args = self.args(op, 1)?;
                    code.push(Instr::Extract {
                        table,
                        args,
                        out: self.reg(out()),
                    });
                }
                names::ACCESS_TILE => {
                    let view = *self
                        .view_of
                        .get(&(ir::operand(op, 0).ptr as usize))
                        .ok_or_else(|| ExecError::at(op, "an access tile of no memory view"))?;
                    let (exprs, dims, _) = ir::attr(op, "base_map")
                        .and_then(from_affine_map_results)
                        .ok_or_else(|| ExecError::at(op, "an access tile without a base_map"))?;
                    if exprs.len() != self.views[view].shape.len() {
                        return Err(ExecError::at(op, "base_map gives another rank than the view's"));
                    }
                    let map = Map {
                        exprs,
                        dims,
                        args: self.args(op, 1)?,
                    };
                    let n = self.tiles.len();
                    let out = *self.tiles.entry(out().ptr as usize).or_insert(n);
                    code.push(Instr::Tile { view, map, out });
                }
                names::LOAD => {
                    let tile = self.tile(op, 0)?;
                    code.push(Instr::Load {
                        tile,
                        out: self.reg(out()),
                    });
                }
                names::STORE => {
                    let tile = self.tile(op, 1)?;
                    let combine = match ir::attr(op, "combine").and_then(fuselab_dialects::attrs::string_raw)
                    {
                        None => None,
                        Some(k) => Some(
                            reduction_of(&k)
                                .ok_or_else(|| ExecError::at(op, format!("unknown combine '{k}'")))?
                                .1,
                        ),
                    };
                    let value = self.used(op, ir::operand(op, 0))?;
                    code.push(Instr::Store { value, tile, combine });
                }
                "scf.for" => code.push(Instr::For(Box::new(self.for_loop(op)?))),
                "affine.apply" => {
                    let (exprs, dims, _) = ir::attr(op, "map")
                        .and_then(from_affine_map_results)
                        .filter(|(e, _, _)| e.len() == 1)
                        .ok_or_else(|| ExecError::at(op, "an affine.apply of no single-result index map"))?;
                    let map = Map {
                        exprs,
                        dims,
                        args: self.args(op, 0)?,
                    };
                    code.push(Instr::Apply {
                        map,
                        out: self.reg(out()),
                    });
                }
                _ => {
                    let ty = Scalar::of(ir::value_type(out()))
                        .ok_or_else(|| ExecError::at(op, format!("'{name}' of an unsupported type")))?;
                    let sop = scalar_op(op, &name, ty)?;
                    let args = self.args(op, 0)?;
                    code.push(Instr::Scalar {
                        op: sop,
                        ty,
                        args,
                        out: self.reg(out()),
                    });
                }
            }
        }
        Ok((code, Vec::new()))
    }

    fn tile(&self, op: MlirOperation, i: usize) -> Result<usize, ExecError> {
        self.tiles
            .get(&(ir::operand(op, i).ptr as usize))
            .copied()
            .ok_or_else(|| ExecError::at(op, "not an access tile"))
    }

    fn for_loop(&mut self, op: MlirOperation) -> Result<Loop, ExecError> {
        let operands = self.args(op, 0)?;
        let body = ir::body(op).ok_or_else(|| ExecError::at(op, "scf.for without a body"))?;
        let args = ir::block_arguments(body);
        let iv = self.reg(args[0]);
        let carried: Vec<usize> = args[1..].iter().map(|&a| self.reg(a)).collect();
        let (code, yields) = self.block(body)?;
        let results = (0..ir::result_count(op))
            .map(|i| self.reg(ir::result(op, i)))
            .collect();
        Ok(Loop {
            lo: operands[0],
            hi: operands[1],
            step: operands[2],
            iv,
            inits: operands[3..].to_vec(),
            carried,
            body: code,
            yields,
            results,
        })
    }
}

/// HBM and the cores' LX.
struct Memory {
    hbm: Vec<u8>,
    lx: Vec<Vec<u8>>,
}

impl Memory {
    fn bytes(&mut self, lx: bool, core: usize) -> &mut Vec<u8> {
        if lx {
            &mut self.lx[core]
        } else {
            &mut self.hbm
        }
    }

    fn read(&mut self, view: &View, coords: &[i64], core: usize) -> Result<f64, String> {
        let m = self.bytes(view.lx, core);
        let at = view.address(coords, core, m.len())?;
        Ok(decode(
            view.dtype,
            &m[at..at + element_bytes(view.dtype) as usize],
        ))
    }

    fn write(&mut self, view: &View, coords: &[i64], core: usize, v: f64) -> Result<(), String> {
        let m = self.bytes(view.lx, core);
        let at = view.address(coords, core, m.len())?;
        encode(
            view.dtype,
            round_to(v, view.dtype),
            &mut m[at..at + element_bytes(view.dtype) as usize],
        );
        Ok(())
    }
}

/// One compute tile's state.
struct Tile<'a> {
    k: &'a Kernel,
    core: usize,
    regs: Vec<f64>,
    /// Each access tile's `(in LX, byte address, dtype)`.
    tiles: Vec<(bool, usize, DType)>,
    ints: Vec<i64>,
    coords: Vec<i64>,
    /// The running value of each element a combining store wrote in this kernel, keyed
    /// `(in LX, core, byte address)`: the reduction accumulates in f32 for f16 and bf16
    /// elements ([`accumulation_dtype`]), the element holds it rounded to its type.
    written: &'a mut HashMap<(bool, usize, usize), f64>,
}

impl Tile<'_> {
    /// `map`'s results into `coords`.
    fn eval(&mut self, map: &Map) {
        self.ints.clear();
        self.ints.extend(map.args.iter().map(|&r| self.regs[r] as i64));
        let (d, s) = self.ints.split_at(map.dims);
        self.coords.clear();
        self.coords.extend(map.exprs.iter().map(|e| e.eval(d, s)));
    }

    fn exec(&mut self, code: &[Instr], mem: &mut Memory) -> Result<(), String> {
        for instr in code {
            match instr {
                Instr::Scalar { op, ty, args, out } => {
                    let mut a = [0.0; 3];
                    for (slot, &r) in a.iter_mut().zip(args) {
                        *slot = self.regs[r];
                    }
                    self.regs[*out] = ty.round(op.apply(&a[..args.len().min(3)]));
                }
                Instr::TileId { out } => self.regs[*out] = self.core as f64,
                Instr::Extract { table, args, out } => {
                    let (shape, data) = &self.k.tables[*table];
                    let mut flat = 0i64;
                    for (&r, &n) in args.iter().zip(shape) {
                        let i = self.regs[r] as i64;
                        if i < 0 || i >= n {
                            return Err(format!("table index {i} outside {shape:?}"));
                        }
                        flat = flat * n + i;
                    }
                    self.regs[*out] = data[flat as usize] as f64;
                }
                Instr::Tile { view, map, out } => {
                    self.eval(map);
                    let v = &self.k.views[*view];
                    let len = mem.bytes(v.lx, self.core).len();
                    let at = v.address(&self.coords, self.core, len)?;
                    self.tiles[*out] = (v.lx, at, v.dtype);
                }
                Instr::Apply { map, out } => {
                    self.eval(map);
                    self.regs[*out] = self.coords[0] as f64;
                }
                Instr::Load { tile, out } => {
                    let (lx, at, dtype) = self.tiles[*tile];
                    let m = mem.bytes(lx, self.core);
                    self.regs[*out] = decode(dtype, &m[at..at + element_bytes(dtype) as usize]);
                }
                Instr::Store { value, tile, combine } => {
                    let (lx, at, dtype) = self.tiles[*tile];
                    let n = element_bytes(dtype) as usize;
                    let m = mem.bytes(lx, self.core);
                    let mut v = self.regs[*value];
                    let key = (lx, if lx { self.core } else { 0 }, at);
                    match combine {
                        Some(f) => {
                            if let Some(&running) = self.written.get(&key) {
                                v = round_to(f(running, v), accumulation_dtype(dtype));
                            }
                            self.written.insert(key, v);
                        }
                        // A plain store over an element a combining store wrote: the
                        // next combining store reads what it left.
                        None => {
                            if let Some(running) = self.written.get_mut(&key) {
                                *running = round_to(v, dtype);
                            }
                        }
                    }
                    encode(dtype, round_to(v, dtype), &mut m[at..at + n]);
                }
                Instr::For(l) => {
                    for (&c, &i) in l.carried.iter().zip(&l.inits) {
                        self.regs[c] = self.regs[i];
                    }
                    let (lo, hi, step) = (
                        self.regs[l.lo] as i64,
                        self.regs[l.hi] as i64,
                        self.regs[l.step] as i64,
                    );
                    if step <= 0 {
                        return Err("scf.for with a step below 1".into());
                    }
                    let mut i = lo;
                    while i < hi {
                        self.regs[l.iv] = i as f64;
                        self.exec(&l.body, mem)?;
                        for (&c, &y) in l.carried.iter().zip(&l.yields) {
                            self.regs[c] = self.regs[y];
                        }
                        i += step;
                    }
                    for (&r, &c) in l.results.iter().zip(&l.carried) {
                        self.regs[r] = self.regs[c];
                    }
                }
            }
        }
        Ok(())
    }
}

/// A constant `tensor<... x index>` (a per-core table) as its shape and values.
fn index_table(op: MlirOperation) -> Result<(Vec<i64>, Vec<i64>), ExecError> {
    let bad = || ExecError::at(op, "a kernel constant that is no dense index table");
    let ty = ir::value_type(ir::result(op, 0));
    let attr = ir::attr(op, "value").ok_or_else(bad)?;
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseElements(attr) || ir::type_string(element_type(ty)) != "index" {
            return Err(bad());
        }
        let shape = shape_of(ty);
        let n = mlir_sys::mlirElementsAttrGetNumElements(attr);
        let data = if mlir_sys::mlirDenseElementsAttrIsSplat(attr) {
            vec![mlir_sys::mlirDenseElementsAttrGetInt64SplatValue(attr); n as usize]
        } else {
            (0..n)
                .map(|i| mlir_sys::mlirDenseElementsAttrGetIndexValue(attr, i as isize) as i64)
                .collect()
        };
        Ok((shape, data))
    }
}

fn run_kernel(op: MlirOperation, mem: &mut Memory) -> Result<(), ExecError> {
    let cores = ir::integer(op, "cores").unwrap_or(1);
    if cores < 1 || cores as usize > mem.lx.len() {
        return Err(ExecError::at(
            op,
            format!("a kernel over {cores} cores (the machine has {})", mem.lx.len()),
        ));
    }
    let body = ir::body(op).ok_or_else(|| ExecError::at(op, "kernel without a body"))?;
    let mut k = Kernel::default();
    let (code, _) = k.block(body)?;
    let mut written = HashMap::new();
    for core in 0..cores as usize {
        let mut t = Tile {
            k: &k,
            core,
            regs: vec![0.0; k.regs.len()],
            tiles: vec![(false, 0, DType::F32); k.tiles.len()],
            ints: Vec::new(),
            coords: Vec::new(),
            written: &mut written,
        };
        t.exec(&code, mem)
            .map_err(|e| ExecError::at(op, format!("Spyre simulator, compute tile {core}: {e}")))?;
    }
    Ok(())
}

/// Every element of `view` as a host tensor (read on core 0).
fn read_view(view: &View, mem: &mut Memory) -> Result<Tensor, String> {
    let n: i64 = view.shape.iter().product();
    let mut coords = vec![0; view.shape.len()];
    let data = (0..n as usize)
        .map(|flat| {
            unflatten(&view.shape, flat, &mut coords);
            mem.read(view, &coords, 0)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Tensor::new(view.shape.clone(), view.dtype, data))
}

/// Writes host tensor `t` through `view` (on core 0).
fn write_view(view: &View, t: &Tensor, mem: &mut Memory) -> Result<(), String> {
    if t.shape != view.shape {
        return Err(format!(
            "a tensor of shape {:?} into a view of {:?}",
            t.shape, view.shape
        ));
    }
    let mut coords = vec![0; t.shape.len()];
    for (flat, &v) in t.data.iter().enumerate() {
        unflatten(&t.shape, flat, &mut coords);
        mem.write(view, &coords, 0, v)?;
    }
    Ok(())
}

fn extern_call(op: MlirOperation, mem: &mut Memory) -> Result<(), ExecError> {
    let body = ir::body(op).ok_or_else(|| ExecError::at(op, "extern without a body"))?;
    let mut all = HashMap::new();
    for inner in ir::block_ops(body) {
        if ir::op_name(inner) == names::VIEW {
            all.insert(ir::result(inner, 0).ptr as usize, View::read(inner)?);
        }
    }
    let views: Vec<&View> = ir::block_ops(body)
        .last()
        .map(|y| ir::operands(*y))
        .unwrap_or_default()
        .iter()
        .map(|v| all.get(&(v.ptr as usize)))
        .collect::<Option<_>>()
        .ok_or_else(|| ExecError::at(op, "an extern yields something other than its memory views"))?;
    let (out, operands) = views
        .split_last()
        .ok_or_else(|| ExecError::at(op, "an extern without views"))?;
    let tensors = operands
        .iter()
        .map(|v| read_view(v, mem))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ExecError::at(op, format!("Spyre simulator: {e}")))?;
    let ty = TensorType {
        shape: out.shape.clone(),
        dtype: out.dtype,
    };
    let result = extern_result_as(op, &tensors, &ty)?;
    write_view(out, &result, mem).map_err(|e| ExecError::at(op, format!("Spyre simulator: {e}")))
}

/// Runs `func` (in KTIR form: `--spyre-lower-to-ktir`) on `inputs`; returns its results.
pub fn run(func: MlirOperation, inputs: &[Tensor]) -> Result<Vec<Tensor>, ExecError> {
    let block = ir::body(func).ok_or_else(|| ExecError::msg("function without a body"))?;
    let hbm = ir::integer(func, names::HBM_BYTES)
        .ok_or_else(|| ExecError::at(func, "not in KTIR form: run --spyre-lower-to-ktir first"))?;
    let ops = ir::block_ops(block);
    let cores = ops
        .iter()
        .filter(|op| ir::op_name(**op) == names::KERNEL)
        .filter_map(|op| ir::integer(*op, "cores"))
        .chain(std::iter::once(1))
        .max()
        .unwrap_or(1);
    let mut mem = Memory {
        hbm: vec![HBM_FILL; hbm.max(0) as usize],
        lx: vec![vec![0u8; LX_CAPACITY as usize]; cores as usize],
    };
    let mut values: HashMap<usize, Tensor> = HashMap::new();
    for (i, arg) in ir::block_arguments(block).into_iter().enumerate() {
        let t = inputs
            .get(i)
            .ok_or_else(|| ExecError::msg(format!("missing input #{i}")))?;
        values.insert(arg.ptr as usize, t.clone());
    }
    let mut views: HashMap<usize, View> = HashMap::new();
    let located = |op: MlirOperation| move |e: String| ExecError::at(op, format!("Spyre simulator: {e}"));
    for op in ops {
        let name = ir::op_name(op);
        let value = |values: &HashMap<usize, Tensor>, v: mlir_sys::MlirValue| {
            values
                .get(&(v.ptr as usize))
                .cloned()
                .ok_or_else(|| ExecError::at(op, "uses a value the host program does not hold"))
        };
        match name.as_str() {
            "arith.constant" => {
                if let Ok(t) = splat_or_dense(op) {
                    values.insert(ir::result(op, 0).ptr as usize, t);
                }
            }
            names::VIEW => {
                views.insert(ir::result(op, 0).ptr as usize, View::read(op)?);
            }
            names::COPY_IN => {
                let t = value(&values, ir::operand(op, 0))?;
                write_view(view_at(&views, op, 1)?, &t, &mut mem).map_err(located(op))?;
            }
            names::COPY_OUT => {
                let t = read_view(view_at(&views, op, 0)?, &mut mem).map_err(located(op))?;
                values.insert(ir::result(op, 0).ptr as usize, t);
            }
            names::KERNEL => run_kernel(op, &mut mem)?,
            names::EXTERN => extern_call(op, &mut mem)?,
            loop_names::VIEW => {
                let t = view_result(op, &value(&values, ir::operand(op, 0))?)?;
                values.insert(ir::result(op, 0).ptr as usize, t);
            }
            "func.return" => {
                return ir::operands(op).into_iter().map(|v| value(&values, v)).collect();
            }
            other => {
                return Err(ExecError::at(
                    op,
                    format!("the KTIR host program does not know '{other}'"),
                ))
            }
        }
    }
    Err(ExecError::at(func, "function without func.return"))
}

/// The memory view that operand `i` of host op `op` is.
fn view_at(views: &HashMap<usize, View>, op: MlirOperation, i: usize) -> Result<&View, ExecError> {
    views
        .get(&(ir::operand(op, i).ptr as usize))
        .ok_or_else(|| ExecError::at(op, "not a memory view"))
}
