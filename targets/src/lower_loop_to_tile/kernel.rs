//! One `tile.kernel`: a run of nodes sharing rows, computed block by block — index
//! blocks from `arange`, loads through the nodes' index maps, bodies on blocks (f16 /
//! bf16 in f32, rounded after every op as eager PyTorch does), reductions with a
//! register accumulator over RBLOCK chunks, masked stores.

use super::tiles::{tiled_warps, transposed_tiles, Tiles, Transposed};
use super::*;
use crate::math::widen;
use fuselab_dialects::loops::ordered_ranges;
use fuselab_dialects::tile::names as tile_op;
use fuselab_dialects::{
    build::{CmpI, Open},
    loops::index::contiguous_index,
};
use fuselab_passes::analysis::reduction_hint::reads_outer;
use fuselab_passes::analysis::rows::Recomputed;
use mlir_sys::MlirAffineExpr;

mod eval;
mod index_math;
mod loop_order;
mod view;

use index_math::fits_32_bits;

/// The state of the kernel being built.
struct Kernel {
    /// Host memref -> the kernel's argument.
    args: HashMap<usize, Value>,
    /// Reduction results of this kernel's members, by loop value: `[XBLOCK, 1]` blocks.
    regs: HashMap<usize, Value>,
    /// The rows of this program (`[XBLOCK, 1]`) and which exist.
    x: Value,
    xmask: Value,
    /// `arange(RBLOCK)` along the inner axis (`[1, RBLOCK]`), when RBLOCK > 1.
    rs: Option<Value>,
    xb: i64,
    rb: i64,
    /// The mask of what is being computed now.
    mask: V,
    /// Reductions of this kernel that only its members read ([`kernel_local`]).
    local: HashSet<usize>,
    /// `arange(XBLOCK)`, and a tiled kernel's tiles and where this program's starts.
    xs: Value,
    tiles: Option<(Tiles, V)>,
    /// A tiled kernel's rows in the transposed order, once its row coords exist.
    transposed: Option<Transposed>,
    /// The row coords of the program's rows and the ranges they index.
    rows: Vec<V>,
    prefix: Vec<i64>,
    /// Kernel-local nodes already evaluated at a read, by where and how.
    recomputed: HashMap<Recomputed, V>,
    /// The inner coords of a pass that one chunk covers, by block, extent and extents:
    /// every such pass of the program's members reads the same values, so a member
    /// recomputed by several of them is built once ([`Recomputed`] keys by them).
    single_chunk: HashMap<(usize, i64, Vec<i64>), ChunkCoords>,
}

/// A chunk's inner position (`r0 + arange(RBLOCK)`), its mask and the inner coords.
type ChunkCoords = (V, V, Vec<V>);

impl Kernel {
    /// Whether `coords` start with the program's own row coords.
    fn at_rows(&self, coords: &[V]) -> bool {
        let same = |a: &V, b: &V| Lowering::value_of(*a).ptr == Lowering::value_of(*b).ptr;
        !self.rows.is_empty()
            && coords.len() >= self.rows.len()
            && coords.iter().zip(&self.rows).all(|(a, b)| same(a, b))
    }

    /// Whether a load at `index` over `coords` reads the program's own rows of a
    /// row-major buffer of the rows' shape.
    fn reads_own_rows(&self, index: &fuselab_dialects::loops::index::IndexExpr, coords: &[V]) -> bool {
        self.at_rows(coords) && coords.len() == self.rows.len() && *index == contiguous_index(&self.prefix)
    }
}

/// The reductions of `run` whose every use is a `loop.load` in the body of a member of
/// `run`: such a load reads the reader's own row (the shared-row rule that put them in
/// one kernel), which the program holds in registers — no one needs the buffer.
fn kernel_local(run: &[MlirOperation]) -> HashSet<usize> {
    let members: HashSet<usize> = run.iter().map(|m| m.ptr as usize).collect();
    let read_in_run = |u: MlirOperation| {
        let parent = unsafe { mlir_sys::mlirBlockGetParentOperation(ir::parent_block(u)) };
        ir::op_name(u) == names::LOAD && members.contains(&(parent.ptr as usize))
    };
    run.iter()
        .filter(|&&m| ir::op_name(m) == names::REDUCTION)
        .map(|&m| ir::result(m, 0))
        .filter(|&r| ir::users(r).into_iter().all(read_in_run))
        .map(|r| r.ptr as usize)
        .collect()
}

impl Lowering {
    fn elem(v: Value) -> MlirType {
        let ty = ir::value_type(v);
        unsafe {
            if mlir_sys::mlirTypeIsARankedTensor(ty) {
                mlir_sys::mlirShapedTypeGetElementType(ty)
            } else {
                ty
            }
        }
    }

    pub(super) fn value_of(v: V) -> Value {
        match v {
            V::S(v) | V::B(v, _) => v,
        }
    }

    /// `v` as a block of `shape` (splat or broadcast).
    fn block(&mut self, v: V, shape: [i64; 2]) -> Value {
        match v {
            V::B(x, s) if s == shape => x,
            _ => {
                let value = Self::value_of(v);
                let ty = self.b.tensor_type(&shape, Self::elem(value));
                let name = if matches!(v, V::S(_)) {
                    tile_op::SPLAT
                } else {
                    tile_op::BROADCAST
                };
                self.b.value(name, &[value], ty, &[])
            }
        }
    }

    /// `name` on `operands` (scalars and blocks, broadcast to their common shape),
    /// producing `element` values.
    fn op_on(
        &mut self,
        name: &str,
        operands: &[V],
        element: MlirType,
        attributes: &[(&str, mlir_sys::MlirAttribute)],
    ) -> V {
        let mut shape: Option<[i64; 2]> = None;
        for v in operands {
            if let V::B(_, s) = v {
                shape = Some(match shape {
                    None => *s,
                    Some(t) => [t[0].max(s[0]), t[1].max(s[1])],
                });
            }
        }
        match shape {
            None => {
                let args: Vec<Value> = operands.iter().map(|&v| Self::value_of(v)).collect();
                V::S(self.b.value(name, &args, element, attributes))
            }
            Some(shape) => {
                let args: Vec<Value> = operands.iter().map(|&v| self.block(v, shape)).collect();
                let ty = self.b.tensor_type(&shape, element);
                V::B(self.b.value(name, &args, ty, attributes), shape)
            }
        }
    }

    pub(super) fn index(&mut self, c: i64) -> V {
        V::S(self.b.index(c))
    }

    pub(super) fn iop(&mut self, name: &str, a: V, b: V) -> V {
        let index = self.b.index_type();
        self.op_on(name, &[a, b], index, &[])
    }

    fn cmp(&mut self, pred: CmpI, a: V, b: V) -> V {
        let (i1, i64t) = (self.b.int_type(1), self.b.int_type(64));
        let p = self.b.int_attr(i64t, pred as i64);
        self.op_on("arith.cmpi", &[a, b], i1, &[("predicate", p)])
    }

    /// A mask block of `shape` that is true everywhere.
    fn all_true(&mut self, shape: [i64; 2]) -> V {
        let t = self.b.int(1, 1);
        V::B(self.block(V::S(t), shape), shape)
    }

    /// The affine expression `e` of `dims` and `syms` on index values.
    fn affine(&mut self, e: MlirAffineExpr, dims: &[V], syms: &[V]) -> V {
        use mlir_sys::*;
        unsafe {
            if mlirAffineExprIsADim(e) {
                return dims[mlirAffineDimExprGetPosition(e) as usize];
            }
            if mlirAffineExprIsASymbol(e) {
                return syms[mlirAffineSymbolExprGetPosition(e) as usize];
            }
            if mlirAffineExprIsAConstant(e) {
                return self.index(mlirAffineConstantExprGetValue(e));
            }
            let (l, r) = (mlirAffineBinaryOpExprGetLHS(e), mlirAffineBinaryOpExprGetRHS(e));
            let constant = mlirAffineExprIsAConstant(r).then(|| mlirAffineConstantExprGetValue(r));
            let a = self.affine(l, dims, syms);
            if mlirAffineExprIsAFloorDiv(e) {
                if let Some(c) = constant.filter(|&c| c > 0) {
                    return self.floordiv(a, c);
                }
            }
            if mlirAffineExprIsAMod(e) {
                if let Some(c) = constant.filter(|&c| c > 0) {
                    return self.modulo(a, c);
                }
            }
            let b = self.affine(r, dims, syms);
            let name = if mlirAffineExprIsAAdd(e) {
                "arith.addi"
            } else if mlirAffineExprIsAMul(e) {
                "arith.muli"
            } else if mlirAffineExprIsAFloorDiv(e) {
                "arith.floordivsi"
            } else if mlirAffineExprIsACeilDiv(e) {
                "arith.ceildivsi"
            } else {
                "arith.remsi"
            };
            self.iop(name, a, b)
        }
    }

    /// The flat offset of `op`'s `index` map (a `loop.load`) at `dims` / `syms`.
    fn load_offset(&mut self, op: MlirOperation, dims: &[V], syms: &[V]) -> Result<V, TileError> {
        let map = ir::attr(op, "index").ok_or_else(|| err(op, "load without index"))?;
        let map = unsafe { mlir_sys::mlirAffineMapAttrGetValue(map) };
        let e = unsafe { mlir_sys::mlirAffineMapGetResult(map, 0) };
        Ok(self.affine(e, dims, syms))
    }

    /// A masked block load of `buf` at `offset` (0 where masked), widened to f32 for a
    /// half buffer.
    fn load(&mut self, k: &Kernel, buf: &Buf, offset: V) -> V {
        let shape = match (offset, k.mask) {
            (V::B(_, s), V::B(_, m)) => [s[0].max(m[0]), s[1].max(m[1])],
            (V::B(_, s), _) | (_, V::B(_, s)) => s,
            _ => [1, 1],
        };
        let off = self.block(offset, shape);
        let mask = self.block(k.mask, shape);
        let element = element_type(&self.b, buf.ty.dtype);
        let zero = if buf.ty.dtype.is_float() {
            self.b.constant(self.b.float_attr(element, 0.0), element)
        } else {
            self.b.constant(self.b.int_attr(element, 0), element)
        };
        let ty = self.b.tensor_type(&shape, element);
        let arg = k.args[&(buf.v.ptr as usize)];
        let v = self.b.value(tile_op::LOAD, &[arg, off, mask, zero], ty, &[]);
        if buf.ty.dtype.is_half() {
            let f32t = self.b.f32_type();
            let wide = self.b.tensor_type(&shape, f32t);
            return V::B(self.b.cast("arith.extf", v, wide), shape);
        }
        V::B(v, shape)
    }

    /// `v` rounded to `half` and widened back (eager semantics of a half op).
    fn round(&mut self, v: V, half: Option<DType>) -> V {
        let Some(dtype) = half else { return v };
        let narrow = element_type(&self.b, dtype);
        let f32t = self.b.f32_type();
        let n = self.op_on("arith.truncf", &[v], narrow, &[]);
        self.op_on("arith.extf", &[n], f32t, &[])
    }

    /// One kernel for `run` (nodes sharing their first `k` ranges as rows).
    pub(super) fn tile_kernel(
        &mut self,
        label: &str,
        run: &[MlirOperation],
        k: usize,
    ) -> Result<(), TileError> {
        let loc = ir::location(run[0]);
        self.b.at(loc);
        let prefix: Vec<i64> = ordered_ranges(run[0])[..k].to_vec();
        let xnumel: i64 = prefix.iter().product();
        let inner = |m: MlirOperation| -> i64 {
            if ir::op_name(m) == names::REDUCTION {
                i64s(m, "reduction_ranges").iter().product()
            } else {
                ordered_ranges(m)[k..].iter().product()
            }
        };
        let rnumel = run.iter().map(|&m| inner(m)).max().unwrap_or(1);
        let outer = run.iter().any(|&m| reads_outer(m) == Some(true));
        let (xb, rb, warps) = self.config.launch_for(outer, xnumel, rnumel);
        let tiles = if rb == 1 {
            transposed_tiles(run, &prefix, xb, &self.inline)
        } else {
            None
        };
        let warps = if tiles.is_some() { tiled_warps(xb) } else { warps };
        let grid = (xnumel + xb - 1) / xb;
        // Buffers: what the members write, then what they read. A reduction read only
        // by this kernel's members stays in registers and gets no buffer (Inductor
        // removes such kernel-local buffers the same way).
        let local = kernel_local(run);
        let mut outs = Vec::new();
        for &m in run {
            if local.contains(&(ir::result(m, 0).ptr as usize)) {
                continue;
            }
            let out = self.result_buffer(m)?;
            self.bufs.insert(ir::result(m, 0).ptr as usize, out.clone());
            outs.push(out);
        }
        let mut host_args: Vec<Value> = Vec::new();
        let push = |v: Value, list: &mut Vec<Value>| {
            if !list.iter().any(|w| w.ptr == v.ptr) {
                list.push(v);
            }
        };
        for out in &outs {
            push(out.v, &mut host_args);
        }
        for &m in run {
            let mut sources = Vec::new();
            self.reads(m, &mut sources, &mut HashSet::new());
            for s in sources.into_iter().filter(|s| !local.contains(s)) {
                let v = mlir_sys::MlirValue { ptr: s as *mut _ };
                push(self.buffer(m, v)?.v, &mut host_args);
            }
        }
        self.narrow = self.config.narrow_index && fits_32_bits(&host_args, grid * xb * rb);
        let symbol = self.symbol(label);
        let types: Vec<MlirType> = host_args.iter().map(|&v| ir::value_type(v)).collect();
        let i64t = self.b.int_type(64);
        let attributes = [
            ("sym_name", self.b.string_attr(&symbol)),
            ("grid", ir::i64_array_attr(self.b.context(), &[grid])),
            ("block", ir::i64_array_attr(self.b.context(), &[xb, rb])),
            ("num_warps", self.b.int_attr(i64t, warps)),
        ];
        let host_block = self.b.pop();
        // No insertion block: the kernel is built detached (it lives at module level).
        let Open { op: kernel, args } = self.b.open(tile_op::KERNEL, &[], &[], &attributes, &types);
        let mut kstate = self.preamble(&host_args, &args, xnumel, xb, rb, tiles);
        kstate.local = local;
        let result = self.members_in(&mut kstate, run, &prefix, &inner);
        self.b.close(names::YIELD, &[]);
        if let Some(block) = host_block {
            self.b.push(block);
        }
        if let Err(e) = result {
            ir::erase(kernel);
            return Err(e);
        }
        if self.config.hoist_loads {
            super::hoist::hoist_input_loads(kernel);
        }
        self.b.at(loc);
        self.launch(kernel, &symbol, &host_args);
        Ok(())
    }

    /// The program's rows and masks: `pid * XBLOCK + arange(XBLOCK)`, or with `tiles`
    /// the rows of one [`Tiles`] tile.
    fn preamble(
        &mut self,
        host_args: &[Value],
        args: &[Value],
        xnumel: i64,
        xb: i64,
        rb: i64,
        tiles: Option<Tiles>,
    ) -> Kernel {
        let index = self.b.index_type();
        let i64t = self.b.int_type(64);
        let axis0 = self.b.int_attr(i64t, 0);
        let pid = self.b.value(tile_op::PROGRAM_ID, &[], index, &[("axis", axis0)]);
        let col = self.b.tensor_type(&[xb, 1], index);
        let xs = self.b.value(tile_op::ARANGE, &[], col, &[("axis", axis0)]);
        let tiles = tiles.map(|t| (t, self.tile_start(V::S(pid), t)));
        let x = match tiles {
            None => {
                let step = self.b.index(xb);
                let start = self.b.binary("arith.muli", pid, step);
                self.iop("arith.addi", V::S(start), V::B(xs, [xb, 1]))
            }
            Some((t, start)) => self.tile_rows(start, V::B(xs, [xb, 1]), t, false),
        };
        // Sizes that divide the block need no mask (Triton specializes on divisibility
        // the same way): a constant-true mask lets the GPU lowering drop the selects and
        // branches, and LLVM vectorize the accesses.
        let xmask = if xnumel % xb == 0 {
            self.all_true([xb, 1])
        } else {
            let limit = self.index(xnumel);
            self.cmp(CmpI::Slt, x, limit)
        };
        let rs = (rb > 1).then(|| {
            let row = self.b.tensor_type(&[1, rb], index);
            let axis1 = self.b.int_attr(i64t, 1);
            self.b.value(tile_op::ARANGE, &[], row, &[("axis", axis1)])
        });
        Kernel {
            args: host_args
                .iter()
                .zip(args)
                .map(|(h, a)| (h.ptr as usize, *a))
                .collect(),
            regs: HashMap::new(),
            x: Self::value_of(x),
            xmask: Self::value_of(xmask),
            rs,
            xb,
            rb,
            mask: xmask,
            local: HashSet::new(),
            xs,
            tiles,
            transposed: None,
            rows: Vec::new(),
            prefix: Vec::new(),
            recomputed: HashMap::new(),
            single_chunk: HashMap::new(),
        }
    }

    /// The members of one kernel, in order.
    fn members_in(
        &mut self,
        k: &mut Kernel,
        run: &[MlirOperation],
        prefix: &[i64],
        inner: &dyn Fn(MlirOperation) -> i64,
    ) -> Result<(), TileError> {
        let x = V::B(k.x, [k.xb, 1]);
        let row_coords = self.unravel(x, prefix);
        k.rows = row_coords.clone();
        k.prefix = prefix.to_vec();
        if let Some((t, start)) = k.tiles.filter(|_| self.config.layout_conversion) {
            k.transposed = Some(self.transposed_rows(start, k.xs, t, prefix));
        }
        let mut stored: Vec<usize> = Vec::new();
        for &m in run {
            self.b.at(ir::location(m));
            let mut sources = Vec::new();
            self.reads(m, &mut sources, &mut HashSet::new());
            if sources.iter().any(|s| stored.contains(s)) {
                self.b.op(tile_op::BARRIER, &[], &[], &[]);
                stored.clear();
            }
            let extent = inner(m);
            let result = ir::result(m, 0).ptr as usize;
            if ir::op_name(m) == names::REDUCTION {
                let red = self.reduction(k, m, &row_coords, extent)?;
                if !k.local.contains(&result) {
                    let out = self.buffer(m, ir::result(m, 0))?;
                    let xm = V::B(k.xmask, [k.xb, 1]);
                    self.store(k, &out, x, red, xm);
                }
                k.regs.insert(result, Self::value_of(red));
            } else {
                let out = self.buffer(m, ir::result(m, 0))?;
                self.pointwise(k, m, &row_coords, extent, &out)?;
                stored.push(ir::result(m, 0).ptr as usize);
            }
        }
        Ok(())
    }

    /// A masked store of `value` (narrowed to the buffer's type) at `offset`.
    fn store(&mut self, k: &Kernel, buf: &Buf, offset: V, value: V, mask: V) {
        let shape = [value, offset, mask].iter().fold([1, 1], |s, v| match v {
            V::B(_, t) => [s[0].max(t[0]), s[1].max(t[1])],
            V::S(_) => s,
        });
        let element = element_type(&self.b, buf.ty.dtype);
        let value = if buf.ty.dtype.is_half() {
            self.op_on("arith.truncf", &[value], element, &[])
        } else {
            value
        };
        let (o, v, m) = (
            self.block(offset, shape),
            self.block(value, shape),
            self.block(mask, shape),
        );
        let arg = k.args[&(buf.v.ptr as usize)];
        self.b.op(tile_op::STORE, &[arg, o, v, m], &[], &[]);
    }

    /// The inner positions `r0 + arange(RBLOCK)` (masked below `extent`) and the coords
    /// over `extents`.
    fn inner_coords(&mut self, k: &Kernel, r0: Value, extent: i64, extents: &[i64]) -> ChunkCoords {
        let r = match k.rs {
            Some(rs) => self.iop("arith.addi", V::S(r0), V::B(rs, [1, k.rb])),
            None => V::S(r0),
        };
        let rmask = if extent % k.rb == 0 {
            self.all_true([1, k.rb])
        } else {
            let limit = self.index(extent);
            self.cmp(CmpI::Slt, r, limit)
        };
        let xm = V::B(k.xmask, [k.xb, 1]);
        let i1 = self.b.int_type(1);
        let mask = self.op_on("arith.andi", &[xm, rmask], i1, &[]);
        let coords = self.unravel(r, extents);
        (r, mask, coords)
    }

    /// Opens the loop over RBLOCK chunks of `extent` carrying `carried`, or nothing when
    /// one chunk covers it; returns the carried values inside, whether a loop was
    /// opened, and the chunk's inner coords ([`Lowering::inner_coords`]) over `extents`.
    /// The coords of a single chunk are built once per block, extent and extents: the
    /// members of a persistent kernel then share them, and with them the values of the
    /// members they recompute (Inductor's persistent reductions hold every value of the
    /// row in registers and compute each once). Without it a chain of members each read
    /// by a row reduction was rebuilt in every reduction's pass: code quadratic in the
    /// chain (issue 44, item 4).
    fn open_chunks(
        &mut self,
        k: &mut Kernel,
        extent: i64,
        extents: &[i64],
        carried: &[Value],
    ) -> (Vec<Value>, bool, ChunkCoords) {
        if extent <= k.rb {
            let block = self.b.block().map_or(0, |b| b.ptr as usize);
            let key = (block, extent, extents.to_vec());
            if let Some(coords) = k.single_chunk.get(&key) {
                return (carried.to_vec(), false, coords.clone());
            }
            let r0 = self.b.index(0);
            let coords = self.inner_coords(k, r0, extent, extents);
            k.single_chunk.insert(key, coords.clone());
            return (carried.to_vec(), false, coords);
        }
        let (lo, hi, step) = (self.b.index(0), self.b.index(extent), self.b.index(k.rb));
        let open = self.b.open_for(lo, hi, step, carried);
        let coords = self.inner_coords(k, open.args[0], extent, extents);
        (open.args[1..].to_vec(), true, coords)
    }

    /// A pointwise member: its row positions in RBLOCK chunks, stored at `x * R + r` —
    /// or, for a member iterating in its `loop_order`, at the row-major index of its
    /// own dims (a strided store; Inductor's reordered node writes the same way).
    fn pointwise(
        &mut self,
        k: &mut Kernel,
        m: MlirOperation,
        rows: &[V],
        extent: i64,
        out: &Buf,
    ) -> Result<(), TileError> {
        let ranges = ordered_ranges(m);
        let inner_ranges = &ranges[rows.len()..];
        let x = V::B(k.x, [k.xb, 1]);
        if extent == 1 && inner_ranges.iter().all(|&r| r == 1) {
            k.mask = V::B(k.xmask, [k.xb, 1]);
            let mut coords = rows.to_vec();
            for _ in inner_ranges {
                coords.push(self.index(0));
            }
            let (coords, offset) = self.logical(m, coords, x);
            let v = self.eval(k, m, &coords)?;
            self.store(k, out, offset, v, k.mask);
            return Ok(());
        }
        let (_, looped, (r, mask, inner)) = self.open_chunks(k, extent, inner_ranges, &[]);
        k.mask = mask;
        let mut coords = rows.to_vec();
        coords.extend(inner);
        let re = self.index(extent);
        let base = self.iop("arith.muli", x, re);
        let in_order = self.iop("arith.addi", base, r);
        let (coords, offset) = self.logical(m, coords, in_order);
        let result = self.eval(k, m, &coords);
        let stored = result.map(|v| {
            self.store(k, out, offset, v, mask);
        });
        if looped {
            self.b.close("scf.yield", &[]);
        }
        stored
    }

    /// A reduction member (one value per row): an accumulator block over RBLOCK chunks,
    /// then `tile.reduce` along the inner axis; `[XBLOCK, 1]`.
    fn reduction(
        &mut self,
        k: &mut Kernel,
        m: MlirOperation,
        rows: &[V],
        extent: i64,
    ) -> Result<V, TileError> {
        let kind = ir::attr(m, "kind")
            .and_then(fuselab_dialects::attrs::string_raw)
            .unwrap_or_default();
        let out_ty =
            ir::tensor_type(ir::result(m, 0)).ok_or_else(|| err(m, "result is not a supported tensor"))?;
        let float = out_ty.dtype.is_float();
        let acc_ty = if float {
            self.b.f32_type()
        } else {
            element_type(&self.b, out_ty.dtype)
        };
        let (identity, combine) = match (kind.as_str(), float) {
            ("sum", true) => (self.b.float_attr(acc_ty, 0.0), "arith.addf"),
            ("prod", true) => (self.b.float_attr(acc_ty, 1.0), "arith.mulf"),
            ("max", true) => (self.b.float_attr(acc_ty, f64::NEG_INFINITY), "arith.maximumf"),
            ("min", true) => (self.b.float_attr(acc_ty, f64::INFINITY), "arith.minimumf"),
            ("sum", false) => (self.b.int_attr(acc_ty, 0), "arith.addi"),
            ("prod", false) => (self.b.int_attr(acc_ty, 1), "arith.muli"),
            ("max", false) if out_ty.dtype == DType::I1 => (self.b.int_attr(acc_ty, 0), "arith.ori"),
            ("max", false) => (self.b.int_attr(acc_ty, i64::MIN), "arith.maxsi"),
            ("min", false) => (self.b.int_attr(acc_ty, i64::MAX), "arith.minsi"),
            _ => {
                return Err(err(
                    m,
                    format!("reduction kind '{kind}' is not supported by the GPU code generator"),
                ))
            }
        };
        let rranges = i64s(m, "reduction_ranges");
        let shape = [k.xb, k.rb];
        let id = self.b.constant(identity, acc_ty);
        let acc0 = self.block(V::S(id), shape);
        let (carried, looped, (_, mask, inner)) = self.open_chunks(k, extent, &rranges, &[acc0]);
        k.mask = mask;
        let mut coords = rows.to_vec();
        coords.extend(inner);
        let body = self.eval(k, m, &coords);
        let next = body.map(|v| {
            let v = self.block(v, shape);
            let id = self.b.constant(identity, acc_ty);
            let masked = self.op_on("arith.select", &[mask, V::B(v, shape), V::S(id)], acc_ty, &[]);
            let acc = V::B(carried[0], shape);
            Self::value_of(self.op_on(combine, &[acc, masked], acc_ty, &[]))
        });
        let acc = if looped {
            let yielded = match next {
                Ok(v) => v,
                Err(e) => {
                    self.b.close("scf.yield", &[carried[0]]);
                    return Err(e);
                }
            };
            self.b.close("scf.yield", &[yielded])[0]
        } else {
            next?
        };
        let i64t = self.b.int_type(64);
        let reduced = self.b.tensor_type(&[k.xb, 1], acc_ty);
        let attributes = [
            ("kind", self.b.string_attr(&kind)),
            ("axis", self.b.int_attr(i64t, 1)),
        ];
        Ok(V::B(
            self.b.value(tile_op::REDUCE, &[acc], reduced, &attributes),
            [k.xb, 1],
        ))
    }
}
