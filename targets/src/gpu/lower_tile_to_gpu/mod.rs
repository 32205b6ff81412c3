//! `--lower-tile-to-gpu`: `tile` kernels to upstream `gpu` kernels (`gpu.func` in a
//! `gpu.module @fuselab_kernels`) over scalar `arith`/`math`/`memref`/`scf`.
//!
//! Each block is distributed over the program's `T = 32 * num_warps` threads as
//! Triton's blocked layout with one element per thread per *slot*: element `e = s * T +
//! tid` of the row-major `[XBLOCK, RBLOCK]` block is held by thread `tid` in slot `s`
//! (`S = XBLOCK * RBLOCK / T` slots). A `[XBLOCK, 1]` or `[1, RBLOCK]` block is held in
//! the same layout, replicated along its size-1 axis (Triton's slice layout), so
//! broadcasts are free and every elementwise op becomes `S` scalar ops. Consecutive
//! threads hold consecutive elements: loads and stores of contiguous blocks coalesce.
//!
//! `tile.reduce` along the inner axis combines, per row, the thread's own slots, then
//! the lanes of a warp by `gpu.shuffle xor` butterflies, then the warps of a row through
//! workgroup (shared) memory between `gpu.barrier`s — Triton's reduction lowering; every
//! thread ends with its rows' results. A store of a `[XBLOCK, 1]` block is done by the
//! threads of inner position 0 only. Masked loads read index 0 instead (no
//! out-of-bounds address) and select `other`.
//!
//! The host function keeps its `tile.launch`es, now naming `@fuselab_kernels::@<kernel>`
//! and carrying `grid` and `threads`.

use fuselab_dialects::tile::names as tile_op;
use fuselab_dialects::{
    build::{Builder, CmpI, OwnedModule, Value},
    ir,
    loops::names,
};
use fuselab_passes::registry::{PassContext, PassFailed, PassId, PassInfo};
use melior::ir::{operation::OperationLike as _, OperationRef};
use mlir_sys::{MlirAttribute, MlirBlock, MlirOperation, MlirType};
use std::collections::HashMap;

mod loads;
mod reduce;
mod transpose;

static ID: PassId = PassId::new();

/// The registry entry.
pub const INFO: PassInfo = PassInfo {
    argument: "lower-tile-to-gpu",
    summary: "Lower tile kernels to gpu.func kernels over scalar arith/memref/scf (blocked layout, shuffle + shared-memory reductions)",
    anchor: "builtin.module",
    options: &[],
    run,
    id: &ID,
};

/// The `gpu.module` holding the kernels.
pub const KERNEL_MODULE: &str = "fuselab_kernels";

struct Failure {
    op: MlirOperation,
    message: String,
}

fn fail(op: MlirOperation, m: impl Into<String>) -> Failure {
    Failure {
        op,
        message: m.into(),
    }
}

fn run(module: OperationRef<'_, '_>, cx: &PassContext) -> Result<(), PassFailed> {
    let raw = module.to_raw();
    let block = ir::body(raw).ok_or(PassFailed)?;
    let kernels = ir::ops_named(block, tile_op::KERNEL);
    if kernels.is_empty() {
        return Ok(());
    }
    let scratch = OwnedModule::new(ir::location(raw));
    let mut b = Builder::new(ir::location(raw));
    let name = b.string_attr(KERNEL_MODULE);
    let gpu_module = ir::create(
        "gpu.module",
        ir::location(raw),
        &[],
        &[],
        &[("sym_name", name)],
        vec![ir::new_region(ir::new_block(&[], ir::location(raw)))],
    );
    ir::append(scratch.body(), gpu_module);
    let gpu_block = ir::body(gpu_module).ok_or(PassFailed)?;
    let mut launch_info = HashMap::new();
    for &k in &kernels {
        match lower_kernel(&mut b, k, gpu_block) {
            Ok(info) => {
                let sym = ir::attr(k, "sym_name")
                    .and_then(fuselab_dialects::attrs::string_raw)
                    .unwrap_or_default();
                launch_info.insert(sym, info);
            }
            Err(e) => {
                cx.sink.error(
                    unsafe { melior::ir::Location::from_raw(ir::location(e.op)) },
                    format!("cannot lower to GPU code: {}", e.message),
                );
                return Err(PassFailed);
            }
        }
    }
    // The launches name the gpu.func and carry their launch shape; variants (from
    // --tile-warp-variants) their threads, on the same grid.
    let ctx = b.context();
    let i64t = b.int_type(64);
    let nested = |leaf: &str| {
        let leaf_ref = b.symbol_ref(leaf);
        unsafe {
            let root = mlir_sys::MlirStringRef {
                data: KERNEL_MODULE.as_ptr() as *const _,
                length: KERNEL_MODULE.len(),
            };
            mlir_sys::mlirSymbolRefAttrGet(ctx, root, 1, &leaf_ref)
        }
    };
    for launch in ir::collect_ops(raw, |n| n == tile_op::LAUNCH) {
        let Some(callee) = ir::attr(launch, "kernel") else {
            continue;
        };
        let leaf = ir::symbol_leaf(callee).unwrap_or_default();
        let Some(&(grid, threads)) = launch_info.get(&leaf) else {
            continue;
        };
        let mut refs = Vec::new();
        let mut variant_threads = Vec::new();
        for v in ir::attr(launch, "variants")
            .map(ir::array_elements)
            .unwrap_or_default()
        {
            let name = ir::symbol_leaf(v).unwrap_or_default();
            match launch_info.get(&name) {
                Some(&(g, t)) if g == grid => {
                    refs.push(nested(&name));
                    variant_threads.push(t);
                }
                found => {
                    cx.sink.error(
                        unsafe { melior::ir::Location::from_raw(ir::location(launch)) },
                        match found {
                            Some(_) => format!(
                                "cannot lower to GPU code: variant @{name} has another grid than @{leaf}"
                            ),
                            None => format!("cannot lower to GPU code: variant @{name} is not a tile kernel"),
                        },
                    );
                    return Err(PassFailed);
                }
            }
        }
        if !refs.is_empty() {
            ir::set_attr(launch, "variants", ir::array_attr(ctx, &refs));
            ir::set_attr(
                launch,
                "variant_threads",
                ir::i64_array_attr(ctx, &variant_threads),
            );
        }
        ir::set_attr(launch, "kernel", nested(&leaf));
        ir::set_attr(launch, "grid", ir::i64_array_attr(ctx, &[grid]));
        ir::set_attr(launch, "threads", b.int_attr(i64t, threads));
    }
    for k in kernels {
        ir::erase(k);
    }
    ir::detach(gpu_module);
    match ir::block_ops(block).first() {
        Some(&first) => ir::insert_before(first, gpu_module),
        None => ir::append(block, gpu_module),
    }
    let unit = b.unit_attr();
    ir::set_attr(raw, "gpu.container_module", unit);
    if !ir::verify(raw) {
        cx.sink.error(
            module.location(),
            "the generated GPU code does not verify (a fuselab bug)",
        );
        return Err(PassFailed);
    }
    Ok(())
}

/// A tile value lowered: a scalar, or one scalar per slot.
#[derive(Clone, Debug)]
enum L {
    S(Value),
    P(Vec<Value>),
}

struct Kernel<'a> {
    b: &'a mut Builder,
    threads: i64,
    xb: i64,
    rb: i64,
    slots: usize,
    /// Adjacent block elements per thread (Triton's sizePerThread): slots `4c .. 4c+3`
    /// of a thread are consecutive elements, so contiguous accesses become 128-bit ones.
    vec: usize,
    tid: Value,
    /// Per slot: row and inner position in the block.
    xi: Vec<Value>,
    ri: Vec<Value>,
    /// Per slot: whether its element exists (`e < XBLOCK * RBLOCK`); `None` if all do.
    active: Vec<Option<Value>>,
    vals: HashMap<usize, L>,
    /// The kernel's entry block (workgroup buffers are added to it) and their count.
    entry: MlirBlock,
    workgroup: usize,
    loads: loads::LoadCache,
}

/// Lowers `kernel` into a `gpu.func` appended to `gpu_block`; returns its grid size and
/// threads per program.
fn lower_kernel(b: &mut Builder, kernel: MlirOperation, gpu_block: MlirBlock) -> Result<(i64, i64), Failure> {
    let name = ir::attr(kernel, "sym_name")
        .and_then(fuselab_dialects::attrs::string_raw)
        .ok_or_else(|| fail(kernel, "kernel without a name"))?;
    let block = ir::i64s(kernel, "block");
    let grid = ir::i64s(kernel, "grid");
    let warps = ir::integer(kernel, "num_warps").unwrap_or(4);
    let (&[xb, rb], &[grid]) = (block.as_slice(), grid.as_slice()) else {
        return Err(fail(kernel, "kernel without a 2-d block and a 1-d grid"));
    };
    let pow2 = |v: i64| v > 0 && (v & (v - 1)) == 0;
    if !pow2(xb) || !pow2(rb) || !(1..=32).contains(&warps) {
        return Err(fail(
            kernel,
            "block sizes must be powers of two and num_warps in 1..=32",
        ));
    }
    let threads = 32 * warps;
    let body = ir::body(kernel).ok_or_else(|| fail(kernel, "kernel without a body"))?;
    let arg_types: Vec<MlirType> = ir::block_arguments(body)
        .iter()
        .map(|&a| ir::value_type(a))
        .collect();
    b.at(ir::location(kernel));
    let unit = b.unit_attr();
    let i32s = b.i32_array_attr(&[threads as i32, 1, 1]);
    // Every argument is a buffer of its own (the launch plan allocates each once and
    // passes each once per launch) with the allocator's alignment: `noalias` lets LLVM
    // keep loaded values and computed ones across stores to other buffers, and read
    // inputs through the non-coherent cache (`ld.global.nc`).
    let arg_attrs: Vec<MlirAttribute> = arg_types.iter().map(|_| buffer_arg_attrs(b)).collect();
    let arg_attrs = ir::array_attr(b.context(), &arg_attrs);
    let (func, entry) = b.function(
        &name,
        &arg_types,
        true,
        &[
            ("gpu.kernel", unit),
            ("known_block_size", i32s),
            ("arg_attrs", arg_attrs),
        ],
    );
    // gpu.func, not func.func: same attributes, its own op name.
    let gpu_func = ir::create(
        "gpu.func",
        ir::location(kernel),
        &[],
        &[],
        &op_attributes(
            func,
            &[
                "sym_name",
                "function_type",
                "gpu.kernel",
                "known_block_size",
                "arg_attrs",
            ],
        ),
        vec![take_region(func)],
    );
    ir::erase(func);
    ir::append(gpu_block, gpu_func);
    b.push(entry);
    let index = b.index_type();
    let x = dim_x(b);
    let tid = b.value("gpu.thread_id", &[], index, &[("dimension", x)]);
    let slots = ((xb * rb + threads - 1) / threads).max(1) as usize;
    let vec = if slots.is_multiple_of(4) && (rb == 1 || rb >= 4) {
        4
    } else {
        1
    };
    let mut k = Kernel {
        b,
        threads,
        xb,
        rb,
        slots,
        vec,
        tid,
        xi: Vec::new(),
        ri: Vec::new(),
        active: Vec::new(),
        vals: HashMap::new(),
        entry,
        workgroup: 0,
        loads: loads::LoadCache::default(),
    };
    k.layout();
    for (a, v) in ir::block_arguments(body)
        .into_iter()
        .zip(ir::block_arguments(entry))
    {
        k.vals.insert(a.ptr as usize, L::S(v));
    }
    let result = k.ops(body);
    if k.workgroup > 0 {
        let count = k.b.int_attr(k.b.int_type(64), k.workgroup as i64);
        ir::set_attr(gpu_func, "workgroup_attributions", count);
    }
    k.b.pop();
    result?;
    Ok((grid, threads))
}

/// `{llvm.noalias, llvm.align = 16}`: a distinct buffer, 16-byte aligned (the device
/// allocators align to 256 bytes).
fn buffer_arg_attrs(b: &Builder) -> MlirAttribute {
    ir::dictionary_attr(
        b.context(),
        &[
            ("llvm.noalias", b.unit_attr()),
            ("llvm.align", b.int_attr(b.int_type(64), 16)),
        ],
    )
}

/// The attributes of `op` named in `names`.
fn op_attributes(op: MlirOperation, names: &[&'static str]) -> Vec<(&'static str, MlirAttribute)> {
    names
        .iter()
        .filter_map(|&n| ir::attr(op, n).map(|a| (n, a)))
        .collect()
}

/// Moves `op`'s first region out (its body) into a new region.
fn take_region(op: MlirOperation) -> mlir_sys::MlirRegion {
    unsafe {
        let region = mlir_sys::mlirRegionCreate();
        mlir_sys::mlirRegionTakeBody(region, ir::region(op, 0));
        region
    }
}

/// `#gpu<dim x>`.
fn dim_x(b: &Builder) -> MlirAttribute {
    ir::parse_attr(b.context(), "#gpu<dim x>").unwrap_or_else(|| b.unit_attr())
}

impl Kernel<'_> {
    /// Each slot's row, inner position and whether it exists. Slot `s = V c + k` of
    /// thread `tid` holds element `e = c T V + tid V + k` of the row-major block; the
    /// row and inner position are written without dividing `k` out, so that the `V`
    /// slots of a chunk differ by constants (LLVM then merges their accesses).
    fn layout(&mut self) {
        let ctx = self.b.context();
        let d0 = fuselab_dialects::build::Affine::dim(ctx, 0);
        let (t, v, rb) = (self.threads, self.vec as i64, self.rb);
        for s in 0..self.slots as i64 {
            let (c, k) = (s / v, s % v);
            let chunk = c * t * v;
            let e = (d0 * v).add_const(chunk + k);
            let (xi, ri) = if rb == 1 {
                (self.b.apply_expr(e, &[self.tid], &[]), self.b.index(0))
            } else if rb >= t * v {
                let xi = self.b.index(chunk / rb);
                let ri = self
                    .b
                    .apply_expr((d0 * v).add_const(chunk % rb + k), &[self.tid], &[]);
                (xi, ri)
            } else {
                let lanes = rb / v;
                let xi = self
                    .b
                    .apply_expr(d0.floordiv(lanes).add_const(chunk / rb), &[self.tid], &[]);
                let ri = self
                    .b
                    .apply_expr((d0.modulo(lanes) * v).add_const(k), &[self.tid], &[]);
                (xi, ri)
            };
            let active = ((c + 1) * t * v > self.xb * rb).then(|| {
                let ev = self.b.apply_expr(e, &[self.tid], &[]);
                let n = self.b.index(self.xb * rb);
                self.b.cmpi(CmpI::Slt, ev, n)
            });
            self.xi.push(xi);
            self.ri.push(ri);
            self.active.push(active);
        }
    }

    /// `mask` of slot `s` and whether the slot exists (a block smaller than the
    /// program's threads).
    fn slot_mask(&mut self, mask: Value, s: usize) -> Value {
        match self.active[s] {
            None => mask,
            Some(a) if is_true(mask) => a,
            Some(a) => self.b.binary("arith.andi", mask, a),
        }
    }

    /// Whether every slot of a vector group (more than one slot, some not known to be
    /// there) is there: the `and` of their masks; `None` for a group of one slot or one
    /// whose masks are all true.
    fn group_mask(&mut self, group: &[usize], masks: &[Value]) -> Option<Value> {
        if group.len() < 2 || group.iter().all(|&s| is_true(masks[s])) {
            return None;
        }
        let mut all = masks[group[0]];
        for &s in &group[1..] {
            all = if is_true(all) {
                masks[s]
            } else if is_true(masks[s]) {
                all
            } else {
                self.b.binary("arith.andi", all, masks[s])
            };
        }
        Some(all)
    }

    fn get(&self, op: MlirOperation, v: mlir_sys::MlirValue) -> Result<L, Failure> {
        self.vals
            .get(&(v.ptr as usize))
            .cloned()
            .ok_or_else(|| fail(op, "operand defined outside the kernel"))
    }

    /// Per-slot values of `v` (a scalar repeated).
    fn slots_of(&self, l: &L) -> Vec<Value> {
        match l {
            L::S(v) => vec![*v; self.slots],
            L::P(vs) => vs.clone(),
        }
    }

    fn ops(&mut self, block: MlirBlock) -> Result<(), Failure> {
        for op in ir::block_ops(block) {
            self.b.at(ir::location(op));
            self.op(op)?;
        }
        Ok(())
    }

    fn op(&mut self, op: MlirOperation) -> Result<(), Failure> {
        let name = ir::op_name(op);
        // Blocks live in the kernel's layout: its block shape or a slice of it.
        for i in 0..ir::result_count(op) {
            let dims = shape(ir::value_type(ir::result(op, i)));
            let fits = match dims.as_slice() {
                [] => true,
                &[x, r] => (x == self.xb || x == 1) && (r == self.rb || r == 1),
                _ => false,
            };
            if !fits {
                return Err(fail(
                    op,
                    format!(
                        "a block of shape {dims:?} in a kernel of block [{}, {}] (blocks are the kernel's shape or one of its [x, 1] / [1, r] slices)",
                        self.xb, self.rb
                    ),
                ));
            }
        }
        let index = self.b.index_type();
        let set = |k: &mut Self, l: L| {
            k.vals.insert(ir::result(op, 0).ptr as usize, l);
        };
        match name.as_str() {
            tile_op::PROGRAM_ID => {
                let x = dim_x(self.b);
                let v = self.b.value("gpu.block_id", &[], index, &[("dimension", x)]);
                set(self, L::S(v));
            }
            tile_op::ARANGE => {
                let axis = ir::integer(op, "axis").unwrap_or(0);
                let l = if axis == 0 {
                    self.xi.clone()
                } else {
                    self.ri.clone()
                };
                set(self, L::P(l));
            }
            tile_op::SPLAT | tile_op::BROADCAST => {
                let v = self.get(op, ir::operand(op, 0))?;
                let l = L::P(self.slots_of(&v));
                set(self, l);
            }
            tile_op::LOAD => {
                let key = self.loads.key(op);
                if let Some(slots) = self.loads.get(&key) {
                    set(self, L::P(slots));
                    return Ok(());
                }
                let o = ir::operands(op);
                let buf = match self.get(op, o[0])? {
                    L::S(v) => v,
                    L::P(_) => return Err(fail(op, "a block of buffers")),
                };
                let (off, mask) = (
                    self.slots_of(&self.get(op, o[1])?),
                    self.slots_of(&self.get(op, o[2])?),
                );
                let other = self.get(op, o[3])?;
                let other = self.slots_of(&other);
                // A slot past the block (a block smaller than the program's threads)
                // loads nothing: its offsets belong to no row of this program, and a
                // gathered index read there would be garbage.
                let masks: Vec<Value> = (0..self.slots).map(|s| self.slot_mask(mask[s], s)).collect();
                let mut out = Vec::new();
                for group in (0..self.slots).collect::<Vec<_>>().chunks(self.vec) {
                    if group.iter().all(|&s| is_true(masks[s])) {
                        out.extend(group.iter().map(|&s| self.b.load(buf, off[s])));
                        continue;
                    }
                    let all = self.group_mask(group, &masks);
                    // Every element of the group is there (all but a row's last group,
                    // in practice): plain loads, which LLVM merges into one vector
                    // access where the offsets are contiguous; else one masked load
                    // per slot, reading index 0 where the mask is false.
                    let ty = element(ir::value_type(ir::result(op, 0)));
                    let branch = all.map(|all| self.b.open_if_else(all, &vec![ty; group.len()]));
                    if let Some(branch) = branch {
                        let plain: Vec<Value> = group.iter().map(|&s| self.b.load(buf, off[s])).collect();
                        self.b.else_branch(branch, &plain);
                    }
                    let c0 = self.b.index(0);
                    let mut masked = Vec::new();
                    for &s in group {
                        let at = self.b.select(masks[s], off[s], c0);
                        let v = self.b.load(buf, at);
                        masked.push(self.b.select(masks[s], v, other[s]));
                    }
                    match branch {
                        Some(_) => out.extend(self.b.close("scf.yield", &masked)),
                        None => out.extend(masked),
                    }
                }
                self.loads.insert(key, out.clone());
                set(self, L::P(out));
            }
            tile_op::STORE => {
                let o = ir::operands(op);
                self.loads.forget(o[0]);
                let L::S(buf) = self.get(op, o[0])? else {
                    return Err(fail(op, "a block of buffers"));
                };
                let off = self.slots_of(&self.get(op, o[1])?);
                let val = self.slots_of(&self.get(op, o[2])?);
                let mask = self.slots_of(&self.get(op, o[3])?);
                // A per-row block is stored by the threads at inner position 0 only.
                let per_row = self.rb > 1 && shape(ir::value_type(o[2])).get(1) == Some(&1);
                let mut conds = Vec::new();
                for (s, &m) in mask.iter().enumerate() {
                    let mut cond = m;
                    if per_row {
                        let c0 = self.b.index(0);
                        let first = self.b.cmpi(CmpI::Eq, self.ri[s], c0);
                        cond = if is_true(cond) {
                            first
                        } else {
                            self.b.binary("arith.andi", cond, first)
                        };
                    }
                    conds.push(self.slot_mask(cond, s));
                }
                for group in (0..self.slots).collect::<Vec<_>>().chunks(self.vec) {
                    // As for loads: the whole group stored by plain stores (merged
                    // where contiguous) when every element is there, else one guarded
                    // store per slot.
                    let all = if per_row {
                        None
                    } else {
                        self.group_mask(group, &conds)
                    };
                    let branch = all.map(|all| self.b.open_if_else(all, &[]));
                    if let Some(branch) = branch {
                        for &s in group {
                            self.b.store(val[s], buf, off[s]);
                        }
                        self.b.else_branch(branch, &[]);
                    }
                    for &s in group {
                        if is_true(conds[s]) {
                            self.b.store(val[s], buf, off[s]);
                            continue;
                        }
                        self.b.open_if(conds[s]);
                        self.b.store(val[s], buf, off[s]);
                        self.b.close("scf.yield", &[]);
                    }
                    if branch.is_some() {
                        self.b.close("scf.yield", &[]);
                    }
                }
            }
            tile_op::REDUCE => {
                let v = self.slots_of(&self.get(op, ir::operand(op, 0))?);
                let kind = ir::attr(op, "kind")
                    .and_then(fuselab_dialects::attrs::string_raw)
                    .unwrap_or_default();
                let l = self.reduce(op, &kind, v)?;
                set(self, L::P(l));
            }
            tile_op::TRANSPOSE => {
                let v = self.slots_of(&self.get(op, ir::operand(op, 0))?);
                let l = self.transpose(op, v)?;
                set(self, L::P(l));
            }
            tile_op::BARRIER => {
                self.b.op("gpu.barrier", &[], &[], &[]);
            }
            "scf.for" => self.for_loop(op)?,
            names::YIELD => {
                self.b.op("gpu.return", &[], &[], &[]);
            }
            _ => self.elementwise(op)?,
        }
        Ok(())
    }

    /// An `arith` / `math` op: per slot on blocks, as is on scalars.
    fn elementwise(&mut self, op: MlirOperation) -> Result<(), Failure> {
        let name = ir::op_name(op);
        if !(name.starts_with("arith.") || name.starts_with("math.")) || ir::result_count(op) != 1 {
            return Err(fail(
                op,
                format!("the GPU lowering cannot handle '{name}' in a tile kernel"),
            ));
        }
        let operands: Vec<L> = ir::operands(op)
            .into_iter()
            .map(|v| self.get(op, v))
            .collect::<Result<_, _>>()?;
        let named = ir::named_attributes(op);
        let attributes: Vec<(&str, mlir_sys::MlirAttribute)> =
            named.iter().map(|(k, a)| (k.as_str(), *a)).collect();
        let ty = ir::value_type(ir::result(op, 0));
        let element = element(ty);
        let l = if operands.iter().all(|l| matches!(l, L::S(_))) && !is_tensor(ty) {
            let args: Vec<Value> = operands.iter().map(|l| self.slots_of(l)[0]).collect();
            L::S(self.b.value(&name, &args, element, &attributes))
        } else {
            let per: Vec<Vec<Value>> = operands.iter().map(|l| self.slots_of(l)).collect();
            let f32_sin_cos =
                (name == "math.sin" || name == "math.cos") && unsafe { mlir_sys::mlirTypeIsAF32(element) };
            if f32_sin_cos {
                // All slots' fast sides together, one branch to the exact side.
                let values = crate::math::Math { b: self.b }.sin_cos_group(&per[0], name == "math.cos");
                self.vals.insert(ir::result(op, 0).ptr as usize, L::P(values));
                return Ok(());
            }
            L::P(
                (0..self.slots)
                    .map(|s| {
                        let args: Vec<Value> = per.iter().map(|p| p[s]).collect();
                        // `true and m` is `m`: known-true masks stay recognisable.
                        if name == "arith.andi" && args.len() == 2 {
                            if is_true(args[0]) {
                                return args[1];
                            }
                            if is_true(args[1]) {
                                return args[0];
                            }
                        }
                        self.b.value(&name, &args, element, &attributes)
                    })
                    .collect(),
            )
        };
        self.vals.insert(ir::result(op, 0).ptr as usize, l);
        Ok(())
    }

    /// `scf.for` carrying blocks: one carried scalar per slot.
    fn for_loop(&mut self, op: MlirOperation) -> Result<(), Failure> {
        let o = ir::operands(op);
        let bounds: Vec<Value> = o[..3]
            .iter()
            .map(|&v| match self.get(op, v) {
                Ok(L::S(s)) => Ok(s),
                _ => Err(fail(op, "loop bounds must be scalars")),
            })
            .collect::<Result<_, _>>()?;
        let mut inits = Vec::new();
        let mut widths = Vec::new();
        for &v in &o[3..] {
            let l = self.get(op, v)?;
            match &l {
                L::S(s) => {
                    inits.push(*s);
                    widths.push(None);
                }
                L::P(p) => {
                    inits.extend(p.iter().copied());
                    widths.push(Some(p.len()));
                }
            }
        }
        let open = self.b.open_for(bounds[0], bounds[1], bounds[2], &inits);
        let body = ir::body(op).ok_or_else(|| fail(op, "loop without a body"))?;
        let args = ir::block_arguments(body);
        self.vals.insert(args[0].ptr as usize, L::S(open.args[0]));
        let mut at = 1;
        for (a, w) in args[1..].iter().zip(&widths) {
            let l = match w {
                None => L::S(open.args[at]),
                Some(n) => L::P(open.args[at..at + n].to_vec()),
            };
            at += w.unwrap_or(1);
            self.vals.insert(a.ptr as usize, l);
        }
        let ops = ir::block_ops(body);
        let (last, rest) = ops
            .split_last()
            .ok_or_else(|| fail(op, "loop without a terminator"))?;
        for &inner in rest {
            self.b.at(ir::location(inner));
            self.op(inner)?;
        }
        let mut yielded = Vec::new();
        for v in ir::operands(*last) {
            match self.get(*last, v)? {
                L::S(s) => yielded.push(s),
                L::P(p) => yielded.extend(p),
            }
        }
        let results = self.b.close("scf.yield", &yielded);
        let mut at = 0;
        for (i, w) in widths.iter().enumerate() {
            let l = match w {
                None => L::S(results[at]),
                Some(n) => L::P(results[at..at + n].to_vec()),
            };
            at += w.unwrap_or(1);
            self.vals.insert(ir::result(op, i).ptr as usize, l);
        }
        Ok(())
    }
}

/// Whether `v` is the constant `true`.
fn is_true(v: Value) -> bool {
    ir::defining_op(v).is_some_and(|d| {
        ir::op_name(d) == "arith.constant"
            && unsafe {
                mlir_sys::mlirTypeIsAInteger(ir::value_type(v))
                    && mlir_sys::mlirIntegerTypeGetWidth(ir::value_type(v)) == 1
            }
            && ir::attr(d, "value").is_some_and(|a| unsafe { mlir_sys::mlirIntegerAttrGetValueInt(a) } != 0)
    })
}

fn is_tensor(ty: MlirType) -> bool {
    unsafe { mlir_sys::mlirTypeIsARankedTensor(ty) }
}

/// The element type of a block type (the type itself for a scalar).
fn element(ty: MlirType) -> MlirType {
    if is_tensor(ty) {
        unsafe { mlir_sys::mlirShapedTypeGetElementType(ty) }
    } else {
        ty
    }
}

/// The shape of a block type.
fn shape(ty: MlirType) -> Vec<i64> {
    if !is_tensor(ty) {
        return Vec::new();
    }
    unsafe {
        (0..mlir_sys::mlirShapedTypeGetRank(ty) as isize)
            .map(|d| mlir_sys::mlirShapedTypeGetDimSize(ty, d))
            .collect()
    }
}
