//! One `tile.kernel` to one `ascend.kernel`: every block value becomes a UB tile
//! (`ascend.alloc`), every block op the vector op that writes its tile, loads and stores
//! `copy_in` / `copy_out` (strided where [`Access`] proves it), scalars stay upstream
//! `arith`, a looped reduction's carried blocks become accumulator tiles updated in
//! place. The tiles are then placed in the UB ([`crate::ascend::ub::place`]); a kernel
//! whose tiles do not fit is reported with the bytes it needs.

use super::access::Access;
use crate::ascend::ub::{place, Request};
use crate::lower_loop_to_tile::TileError;
use fuselab_dialects::ascend::names as ascend_op;
use fuselab_dialects::tile::names as tile_op;
use fuselab_dialects::{
    build::{Builder, Value},
    ir,
};
use mlir_sys::{MlirAttribute, MlirOperation, MlirType, MlirValue};
use std::collections::HashMap;

/// The target's parameters a kernel is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Vector cores a kernel is spread over.
    pub cores: i64,
    /// UB bytes per core.
    pub ub_bytes: u64,
    /// UB buffer alignment in bytes.
    pub alignment: u64,
    /// Double-buffer the tiles copied in and out (two slots each).
    pub double_buffer: bool,
}

/// A converted kernel, or how many UB bytes it would need.
pub enum Outcome {
    /// The `ascend.kernel` (detached).
    Fits(MlirOperation),
    /// Its tiles need this many bytes.
    Overflow(u64),
}

fn err(op: MlirOperation, m: impl Into<String>) -> TileError {
    TileError {
        op,
        message: m.into(),
    }
}

/// A UB tile being built.
struct Tile {
    alloc: MlirOperation,
    value: Value,
    bytes: u64,
    start: usize,
    end: usize,
    copied_in: bool,
    copied_out: bool,
}

#[derive(Clone, Copy)]
enum M {
    Scalar(Value),
    Tile(usize),
}

struct Convert {
    b: Builder,
    /// The `ascend.block_loop`: tiles are declared before it.
    block_loop: MlirOperation,
    tiles: Vec<Tile>,
    values: HashMap<usize, M>,
    /// What is known of index tiles' values, by tile.
    access: HashMap<usize, Access>,
    /// Integer constants among the scalars (by tile-IR value).
    constants: HashMap<usize, i64>,
    pos: usize,
    /// Pure ops already converted, by [`Convert::cse_key`], one scope per open block
    /// (a loop body's values are not available after it).
    seen: Vec<HashMap<String, M>>,
}

/// Bytes of one element of `ty` in the UB (an index is an int32, a bool a byte).
fn element_bytes(ty: MlirType) -> u64 {
    let text = ir::type_string(ty);
    match text.as_str() {
        "f16" | "bf16" => 2,
        "i64" | "f64" => 8,
        "i1" | "i8" => 1,
        _ => 4,
    }
}

fn shape_of(ty: MlirType) -> Vec<i64> {
    unsafe {
        (0..mlir_sys::mlirShapedTypeGetRank(ty))
            .map(|d| mlir_sys::mlirShapedTypeGetDimSize(ty, d as isize))
            .collect()
    }
}

fn is_tensor(ty: MlirType) -> bool {
    unsafe { mlir_sys::mlirTypeIsARankedTensor(ty) }
}

/// Converts `kernel` for `params`.
pub fn convert(kernel: MlirOperation, params: &Params) -> Result<Outcome, TileError> {
    let name = ir::attr(kernel, "sym_name")
        .and_then(fuselab_dialects::attrs::string_raw)
        .ok_or_else(|| err(kernel, "tile kernel without a name"))?;
    let grid = ir::i64s(kernel, "grid");
    if grid.len() != 1 {
        return Err(err(
            kernel,
            "only one-dimensional grids are lowered to Ascend kernels",
        ));
    }
    let programs = grid[0];
    let body = ir::body(kernel).ok_or_else(|| err(kernel, "tile kernel without a body"))?;
    let args = ir::block_arguments(body);
    let types: Vec<MlirType> = args.iter().map(|&a| ir::value_type(a)).collect();
    for &t in &types {
        let n = shape_of(t).iter().product::<i64>();
        if n > i64::from(i32::MAX) {
            return Err(err(
                kernel,
                format!("a buffer of {n} elements: Ascend kernels address GM with int32 offsets"),
            ));
        }
    }
    let mut b = Builder::new(ir::location(kernel));
    let ctx = b.context();
    let block_dim = params.cores.min(programs).max(1);
    let attributes = [
        ("sym_name", ir::string_attr(ctx, &name)),
        ("block_dim", ir::i64_attr(ctx, block_dim)),
        ("programs", ir::i64_attr(ctx, programs)),
        (
            "tile",
            ir::attr(kernel, "block").unwrap_or_else(|| ir::i64_array_attr(ctx, &[1, 1])),
        ),
        ("ub_bytes", ir::i64_attr(ctx, 0)),
        ("ub_capacity", ir::i64_attr(ctx, params.ub_bytes as i64)),
    ];
    let outer = b.open(ascend_op::KERNEL, &[], &[], &attributes, &types);
    let index = b.index_type();
    let lp = b.open(ascend_op::BLOCK_LOOP, &[], &[], &[], &[index]);
    let mut c = Convert {
        b,
        block_loop: lp.op,
        tiles: Vec::new(),
        values: HashMap::new(),
        access: HashMap::new(),
        constants: HashMap::new(),
        pos: 0,
        seen: vec![HashMap::new()],
    };
    for (a, &v) in args.iter().zip(&outer.args) {
        c.values.insert(a.ptr as usize, M::Scalar(v));
    }
    let result = c.block(body, Some(lp.args[0]));
    c.b.close("gpu.yield", &[]);
    c.b.close("gpu.yield", &[]);
    if let Err(e) = result {
        unsafe { mlir_sys::mlirOperationDestroy(outer.op) };
        return Err(e);
    }
    let requests: Vec<Request> = c
        .tiles
        .iter()
        .map(|t| Request {
            bytes: t.bytes,
            depth: if params.double_buffer && (t.copied_in || t.copied_out) {
                2
            } else {
                1
            },
            start: t.start,
            end: t.end,
        })
        .collect();
    let (addresses, span) = place(&requests, params.alignment);
    if span > params.ub_bytes {
        unsafe { mlir_sys::mlirOperationDestroy(outer.op) };
        return Ok(Outcome::Overflow(span));
    }
    for ((t, r), a) in c.tiles.iter().zip(&requests).zip(addresses) {
        let queue = if t.copied_in {
            "vecin"
        } else if t.copied_out {
            "vecout"
        } else {
            "veccalc"
        };
        ir::set_attr(t.alloc, "address", ir::i64_attr(ctx, a as i64));
        ir::set_attr(t.alloc, "depth", ir::i64_attr(ctx, r.depth as i64));
        ir::set_attr(t.alloc, "queue", ir::string_attr(ctx, queue));
    }
    ir::set_attr(outer.op, "ub_bytes", ir::i64_attr(ctx, span as i64));
    Ok(Outcome::Fits(outer.op))
}

impl Convert {
    fn get(&self, op: MlirOperation, v: MlirValue) -> Result<M, TileError> {
        self.values
            .get(&(v.ptr as usize))
            .copied()
            .ok_or_else(|| err(op, "reads a value the Ascend lowering has not converted"))
    }

    fn scalar(&self, op: MlirOperation, v: MlirValue) -> Result<Value, TileError> {
        match self.get(op, v)? {
            M::Scalar(s) => Ok(s),
            M::Tile(_) => Err(err(op, "a block where a scalar is expected")),
        }
    }

    /// The tile of `v`, marked alive at the current op.
    fn tile(&mut self, op: MlirOperation, v: MlirValue) -> Result<Value, TileError> {
        match self.get(op, v)? {
            M::Tile(t) => {
                self.tiles[t].end = self.pos;
                Ok(self.tiles[t].value)
            }
            M::Scalar(_) => Err(err(op, "a scalar where a block is expected")),
        }
    }

    /// A new tile of the tensor type `ty` (index elements as int32), alive from here.
    fn new_tile(&mut self, ty: MlirType) -> (usize, Value) {
        let shape = shape_of(ty);
        let mut element = unsafe { mlir_sys::mlirShapedTypeGetElementType(ty) };
        if unsafe { mlir_sys::mlirTypeIsAIndex(element) } {
            element = self.b.int_type(32);
        }
        let ctx = self.b.context();
        let space = ir::string_attr(ctx, "ub");
        let memref = unsafe {
            mlir_sys::mlirMemRefTypeGet(
                element,
                shape.len() as isize,
                shape.as_ptr(),
                mlir_sys::mlirAttributeGetNull(),
                space,
            )
        };
        let attrs: [(&str, MlirAttribute); 3] = [
            ("address", ir::i64_attr(ctx, 0)),
            ("depth", ir::i64_attr(ctx, 1)),
            ("queue", ir::string_attr(ctx, "veccalc")),
        ];
        let alloc = ir::create(
            ascend_op::ALLOC,
            self.b.location(),
            &[],
            &[memref],
            &attrs,
            Vec::new(),
        );
        ir::insert_before(self.block_loop, alloc);
        let value = ir::result(alloc, 0);
        let bytes = shape.iter().product::<i64>().max(1) as u64 * element_bytes(element);
        self.tiles.push(Tile {
            alloc,
            value,
            bytes,
            start: self.pos,
            end: self.pos,
            copied_in: false,
            copied_out: false,
        });
        (self.tiles.len() - 1, value)
    }

    /// The tile for `op`'s result (alive from here), recorded as its value.
    fn result_tile(&mut self, op: MlirOperation) -> (usize, Value) {
        let r = ir::result(op, 0);
        let (t, v) = self.new_tile(ir::value_type(r));
        self.values.insert(r.ptr as usize, M::Tile(t));
        (t, v)
    }

    /// What is known of the offsets in `v`'s tile.
    fn access_of(&self, v: MlirValue) -> Access {
        match self.values.get(&(v.ptr as usize)) {
            Some(M::Tile(t)) => self.access.get(t).copied().unwrap_or(Access::Gather),
            _ => Access::Gather,
        }
    }

    /// Records what is known of the offsets in the tile of `op`'s result.
    fn set_access(&mut self, op: MlirOperation, a: Access) {
        if let Some(M::Tile(t)) = self.values.get(&(ir::result(op, 0).ptr as usize)) {
            self.access.insert(*t, a);
        }
    }

    /// The ops of `block` (the kernel's body, or a loop's); `program` binds
    /// `tile.program_id`.
    fn block(&mut self, block: mlir_sys::MlirBlock, program: Option<Value>) -> Result<(), TileError> {
        for op in ir::block_ops(block) {
            self.pos += 1;
            self.b.at(ir::location(op));
            let name = ir::op_name(op);
            match name.as_str() {
                "gpu.yield" | "scf.yield" => {}
                tile_op::PROGRAM_ID => {
                    let p = program.ok_or_else(|| err(op, "program_id inside a loop body"))?;
                    self.values.insert(ir::result(op, 0).ptr as usize, M::Scalar(p));
                }
                "scf.for" => self.for_loop(op)?,
                _ => {
                    let key = self.cse_key(op, &name);
                    if let Some(m) = key
                        .as_ref()
                        .and_then(|k| self.seen.iter().rev().find_map(|s| s.get(k)).copied())
                    {
                        self.values.insert(ir::result(op, 0).ptr as usize, m);
                        continue;
                    }
                    if matches!(name.as_str(), tile_op::STORE | tile_op::BARRIER) {
                        // Later loads may see what these wrote.
                        for scope in &mut self.seen {
                            scope.retain(|k, _| !k.starts_with(tile_op::LOAD));
                        }
                    }
                    self.op(op, &name)?;
                    if let Some(k) = key {
                        let m = self.values.get(&(ir::result(op, 0).ptr as usize)).copied();
                        if let (Some(m), Some(scope)) = (m, self.seen.last_mut()) {
                            scope.insert(k, m);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The key under which `op` is the same as an earlier op with that key: its name,
    /// converted operands, attributes and result type; `None` for ops with effects
    /// other than a load's (loads are keyed until the next store or barrier).
    fn cse_key(&self, op: MlirOperation, name: &str) -> Option<String> {
        if ir::result_count(op) != 1
            || !(name.starts_with("arith.") || name.starts_with("math.") || name.starts_with(tile_op::PREFIX))
        {
            return None;
        }
        let mut key = name.to_string();
        for v in ir::operands(op) {
            match self.values.get(&(v.ptr as usize))? {
                M::Scalar(s) => key.push_str(&format!(" s{:x}", s.ptr as usize)),
                M::Tile(t) => key.push_str(&format!(" t{t}")),
            }
        }
        for (k, a) in ir::named_attributes(op) {
            key.push_str(&format!(" {k}={}", ir::attr_string(a)));
        }
        key.push_str(&format!(
            " : {}",
            ir::type_string(ir::value_type(ir::result(op, 0)))
        ));
        Some(key)
    }

    fn op(&mut self, op: MlirOperation, name: &str) -> Result<(), TileError> {
        let operands = ir::operands(op);
        let ctx = self.b.context();
        if ir::result_count(op) == 0 {
            match name {
                tile_op::STORE => {
                    let gm = self.scalar(op, operands[0])?;
                    let offsets = self.tile(op, operands[1])?;
                    let src = self.tile(op, operands[2])?;
                    let mask = self.tile(op, operands[3])?;
                    if let Some(M::Tile(t)) = self.values.get(&(operands[2].ptr as usize)).copied() {
                        self.tiles[t].copied_out = true;
                    }
                    let stride = self.stride_attr(operands[1]);
                    self.b
                        .op(ascend_op::COPY_OUT, &[gm, offsets, src, mask], &[], &stride);
                }
                tile_op::BARRIER => {
                    self.b.op(ascend_op::BARRIER, &[], &[], &[]);
                }
                other => return Err(err(op, format!("the Ascend lowering cannot handle '{other}'"))),
            }
            return Ok(());
        }
        let result = ir::result(op, 0);
        let ty = ir::value_type(result);
        if !is_tensor(ty) {
            // A scalar: the same op on the converted scalars.
            let args = operands
                .iter()
                .map(|&v| self.scalar(op, v))
                .collect::<Result<Vec<_>, _>>()?;
            let named = ir::named_attributes(op);
            let attributes: Vec<(&str, MlirAttribute)> =
                named.iter().map(|(k, a)| (k.as_str(), *a)).collect();
            let v = self.b.value(name, &args, ty, &attributes);
            if name == "arith.constant" {
                if let Some(k) = ir::attr(op, "value").and_then(|a| {
                    fuselab_dialects::attrs::integer(unsafe { melior::ir::Attribute::from_raw(a) })
                }) {
                    self.constants.insert(result.ptr as usize, k);
                }
            }
            self.values.insert(result.ptr as usize, M::Scalar(v));
            return Ok(());
        }
        match name {
            tile_op::TRANSPOSE => {
                return Err(err(
                    op,
                    "the Ascend lowering has no layout conversion ('tile.transpose' is the GPU's, through shared memory)",
                ));
            }
            tile_op::ARANGE => {
                let axis = ir::integer(op, "axis").unwrap_or(0);
                let (_, dst) = self.result_tile(op);
                self.b.op(
                    ascend_op::ARANGE,
                    &[dst],
                    &[],
                    &[("axis", ir::i64_attr(ctx, axis))],
                );
                self.set_access(op, Access::arange(axis));
            }
            tile_op::SPLAT => {
                let s = self.scalar(op, operands[0])?;
                let (_, dst) = self.result_tile(op);
                self.b.op(ascend_op::DUP, &[dst, s], &[], &[]);
                let known = self.constants.get(&(operands[0].ptr as usize)).copied();
                self.set_access(op, known.map_or(Access::Strided { r: 0, c: 0 }, Access::Const));
            }
            tile_op::BROADCAST => {
                let src = self.tile(op, operands[0])?;
                let (_, dst) = self.result_tile(op);
                self.b.op(ascend_op::BROADCAST, &[dst, src], &[], &[]);
                let a = self.access_of(operands[0]);
                self.set_access(op, a);
            }
            tile_op::LOAD => {
                let gm = self.scalar(op, operands[0])?;
                let offsets = self.tile(op, operands[1])?;
                let mask = self.tile(op, operands[2])?;
                let other = self.scalar(op, operands[3])?;
                let (t, dst) = self.result_tile(op);
                self.tiles[t].copied_in = true;
                let stride = self.stride_attr(operands[1]);
                self.b
                    .op(ascend_op::COPY_IN, &[gm, offsets, mask, other, dst], &[], &stride);
            }
            tile_op::REDUCE => {
                let src = self.tile(op, operands[0])?;
                let (_, dst) = self.result_tile(op);
                let axis = ir::integer(op, "axis").unwrap_or(1);
                // The intrinsic's scratch (`ReduceSum(dst, src, work, n)`): one lane along
                // the axis, alive at this op only, so it never overlaps a live tile.
                let src_ty = ir::value_type(operands[0]);
                let lane: Vec<i64> = shape_of(src_ty)
                    .iter()
                    .enumerate()
                    .map(|(d, &n)| if d as i64 == axis { n } else { 1 })
                    .collect();
                let element = unsafe { mlir_sys::mlirShapedTypeGetElementType(src_ty) };
                let lane_ty = unsafe {
                    mlir_sys::mlirRankedTensorTypeGet(
                        lane.len() as isize,
                        lane.as_ptr(),
                        element,
                        mlir_sys::mlirAttributeGetNull(),
                    )
                };
                let (_, work) = self.new_tile(lane_ty);
                let attrs = [
                    (
                        "kind",
                        ir::attr(op, "kind").unwrap_or_else(|| ir::string_attr(ctx, "sum")),
                    ),
                    ("axis", ir::i64_attr(ctx, axis)),
                ];
                self.b.op(ascend_op::REDUCE, &[dst, src, work], &[], &attrs);
            }
            "arith.constant" => {
                // A dense splat block: its scalar, duplicated.
                let a = ir::attr(op, "value").ok_or_else(|| err(op, "constant without a value"))?;
                let splat = unsafe {
                    if !mlir_sys::mlirAttributeIsADenseElements(a)
                        || !mlir_sys::mlirDenseElementsAttrIsSplat(a)
                    {
                        return Err(err(
                            op,
                            "only splat block constants are lowered to Ascend kernels",
                        ));
                    }
                    mlir_sys::mlirDenseElementsAttrGetSplatValue(a)
                };
                let element = unsafe { mlir_sys::mlirShapedTypeGetElementType(ty) };
                let s = self.b.constant(splat, element);
                let (_, dst) = self.result_tile(op);
                self.b.op(ascend_op::DUP, &[dst, s], &[], &[]);
            }
            _ => self.elementwise(op, name, &operands)?,
        }
        Ok(())
    }

    /// `stride = [r, c]` of a copy at `offsets`, when they are strided.
    fn stride_attr(&self, offsets: MlirValue) -> Vec<(&'static str, MlirAttribute)> {
        match self.access_of(offsets).strides() {
            Some((r, c)) => vec![("stride", ir::i64_array_attr(self.b.context(), &[r, c]))],
            None => Vec::new(),
        }
    }

    /// An upstream `arith` / `math` op on blocks: `unary`, `binary` or `select`.
    fn elementwise(
        &mut self,
        op: MlirOperation,
        name: &str,
        operands: &[MlirValue],
    ) -> Result<(), TileError> {
        let srcs = operands
            .iter()
            .map(|&v| self.tile(op, v))
            .collect::<Result<Vec<_>, _>>()?;
        let combined = match operands {
            [a] => self.access_of(*a),
            [a, b] => match (name, self.rebuilt(*a, *b).or_else(|| self.rebuilt(*b, *a))) {
                // a + (x - a) = x: the floordiv / remainder split of a flat index
                // added back together.
                ("arith.addi", Some(x)) => self.access_of(x),
                _ => Access::combine(name, self.access_of(*a), self.access_of(*b)),
            },
            _ => Access::Gather,
        };
        let (_, dst) = self.result_tile(op);
        let ctx = self.b.context();
        let mut attributes = vec![("op", ir::string_attr(ctx, name))];
        if let Some(p) = ir::attr(op, "predicate") {
            attributes.push(("predicate", p));
        }
        let mut all = vec![dst];
        all.extend(&srcs);
        match (name, srcs.len()) {
            ("arith.select", 3) => {
                self.b.op(ascend_op::SELECT, &all, &[], &[]);
            }
            (_, 1) => {
                self.b.op(ascend_op::UNARY, &all, &[], &attributes);
            }
            (_, 2) => {
                self.b.op(ascend_op::BINARY, &all, &[], &attributes);
            }
            _ => {
                return Err(err(
                    op,
                    format!("the Ascend lowering cannot handle '{name}' on blocks"),
                ))
            }
        }
        self.set_access(op, combined);
        Ok(())
    }

    /// `x` when `b` is `x - a` (an `arith.subi` whose subtrahend converted to `a`'s
    /// tile).
    fn rebuilt(&self, a: MlirValue, b: MlirValue) -> Option<MlirValue> {
        let sub = ir::defining_op(b).filter(|&d| ir::op_name(d) == "arith.subi")?;
        let tile = |v: MlirValue| match self.values.get(&(v.ptr as usize)) {
            Some(M::Tile(t)) => Some(*t),
            _ => None,
        };
        (tile(ir::operand(sub, 1))? == tile(a)?).then(|| ir::operand(sub, 0))
    }

    /// `scf.for` carrying blocks: one accumulator tile per carried block, updated in
    /// place (`unary "copy"` where the body yields another tile).
    fn for_loop(&mut self, op: MlirOperation) -> Result<(), TileError> {
        let operands = ir::operands(op);
        let (lb, ub, step) = (
            self.scalar(op, operands[0])?,
            self.scalar(op, operands[1])?,
            self.scalar(op, operands[2])?,
        );
        let ctx = self.b.context();
        let copy = [("op", ir::string_attr(ctx, "copy"))];
        let mut accumulators = Vec::new();
        for (i, &init) in operands[3..].iter().enumerate() {
            let src = self.tile(op, init)?;
            let (t, acc) = self.new_tile(ir::value_type(ir::result(op, i)));
            self.b.op(ascend_op::UNARY, &[acc, src], &[], &copy);
            accumulators.push(t);
        }
        let body = ir::body(op).ok_or_else(|| err(op, "loop without a body"))?;
        let args = ir::block_arguments(body);
        let open = self.b.open_for(lb, ub, step, &[]);
        self.values.insert(args[0].ptr as usize, M::Scalar(open.args[0]));
        for (a, &t) in args[1..].iter().zip(&accumulators) {
            self.values.insert(a.ptr as usize, M::Tile(t));
        }
        let start = self.pos;
        self.seen.push(HashMap::new());
        let converted = self.block(body, None);
        self.seen.pop();
        converted?;
        let yield_op = *ir::block_ops(body)
            .last()
            .ok_or_else(|| err(op, "empty loop body"))?;
        for (&y, &t) in ir::operands(yield_op).iter().zip(&accumulators) {
            let src = self.tile(yield_op, y)?;
            if src.ptr != self.tiles[t].value.ptr {
                let acc = self.tiles[t].value;
                self.tiles[t].end = self.pos;
                self.b.op(ascend_op::UNARY, &[acc, src], &[], &copy);
            }
        }
        self.b.close("scf.yield", &[]);
        self.pos += 1;
        // Tiles from before the loop that it reads live through all its iterations.
        let end = self.pos;
        for t in &mut self.tiles {
            if t.start < start && t.end >= start {
                t.end = t.end.max(end);
            }
        }
        for (i, &t) in accumulators.iter().enumerate() {
            self.tiles[t].end = self.tiles[t].end.max(end);
            self.values.insert(ir::result(op, i).ptr as usize, M::Tile(t));
        }
        Ok(())
    }
}
