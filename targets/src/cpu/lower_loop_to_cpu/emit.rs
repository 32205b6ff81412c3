//! The code generator's primitives: buffers and the globals a function takes, loop
//! nests and accumulations, flat and unravelled indices, half-precision rounding,
//! pointers for library calls.

use super::*;

/// Scratch of a nest's work ([`Gen::nest_scratch`]).
pub(super) enum NestScratch {
    /// On the stack of a parallel chunk's outlined function (used only there).
    Stack(Value),
    /// A global, which each function reaches through its own `memref.get_global`.
    Global(Buf),
}

impl Gen {
    pub(super) fn buffer(&self, op: MlirOperation, v: mlir_sys::MlirValue) -> Result<Buf, CodegenError> {
        self.bufs
            .get(&(v.ptr as usize))
            .cloned()
            .ok_or_else(|| err(op, "reads a value the CPU code generator has no buffer for"))
    }

    /// The memref value of `buf` in the function being generated: a parameter, or the
    /// global's `memref.get_global`, made on first use and kept at the top of the
    /// function in global order (so a function takes only the globals it uses, and its
    /// size follows what it does, not how many buffers came before it).
    pub(super) fn val(&mut self, buf: &Buf) -> Value {
        match buf.id {
            BufId::Param(i) => ir::block_arguments(self.func.entry)[self.func.param_offset + i],
            BufId::Global(i) => {
                if let Some(&(_, v)) = self.func.globals.get(&i) {
                    return v;
                }
                let ty = memref(&self.b, &buf.ty);
                let name = self.b.symbol_ref(&format!("{}_g{i}", self.prefix));
                let loc = unsafe { mlir_sys::mlirBlockGetParentOperation(self.func.entry) };
                let op = ir::create(
                    "memref.get_global",
                    ir::location(loc),
                    &[],
                    &[ty],
                    &[("name", name)],
                    Vec::new(),
                );
                let entry = self.func.entry;
                match self.func.globals.range(i..).next() {
                    Some((_, &(next, _))) => ir::insert_before(next, op),
                    None => match self.func.globals.values().next_back() {
                        Some(&(last, _)) => unsafe {
                            mlir_sys::mlirBlockInsertOwnedOperationAfter(entry, last, op)
                        },
                        None => unsafe { mlir_sys::mlirBlockInsertOwnedOperation(entry, 0, op) },
                    },
                }
                let v = ir::result(op, 0);
                self.func.globals.insert(i, (op, v));
                v
            }
        }
    }

    /// Opens `scf.for` loops over `ranges`; returns the induction variables. Close with
    /// [`Gen::close_loops`].
    pub(super) fn open_loops(&mut self, ranges: &[i64]) -> Vec<Value> {
        let c0 = self.b.index(0);
        let c1 = self.b.index(1);
        ranges
            .iter()
            .map(|&r| {
                let ub = self.b.index(r);
                self.b.open_for(c0, ub, c1, &[]).args[0]
            })
            .collect()
    }

    /// Closes `n` loops of [`Gen::open_loops`].
    pub(super) fn close_loops(&mut self, n: usize) {
        for _ in 0..n {
            self.b.close("scf.yield", &[]);
        }
    }

    /// Opens `scf.for` loops over `ranges` that carry one accumulator, starting at
    /// `init`.
    pub(super) fn open_accumulation(&mut self, ranges: &[i64], init: Value) -> Accumulation {
        let c0 = self.b.index(0);
        let c1 = self.b.index(1);
        let mut acc = Accumulation {
            ivs: Vec::new(),
            carried: init,
            depth: 0,
        };
        for &r in ranges {
            let ub = self.b.index(r);
            let open = self.b.open_for(c0, ub, c1, &[acc.carried]);
            acc.ivs.push(open.args[0]);
            acc.carried = open.args[1];
            acc.depth += 1;
        }
        acc
    }

    /// Yields `next` through the loops of `acc`; returns the accumulated value.
    pub(super) fn close_accumulation(&mut self, acc: Accumulation, next: Value) -> Value {
        let mut yielded = next;
        for _ in 0..acc.depth {
            yielded = self.b.close("scf.yield", &[yielded])[0];
        }
        yielded
    }

    /// `affine.apply` of the contiguous offset of `ivs` over `ranges`.
    pub(super) fn flat_index(&mut self, ivs: &[Value], ranges: &[i64]) -> Value {
        if ivs.is_empty() {
            return self.b.index(0);
        }
        let ctx = self.b.context();
        let strides = contiguous_strides(ranges);
        let mut expr = Affine::dim(ctx, 0) * strides[0];
        for (d, &stride) in strides.iter().enumerate().skip(1) {
            expr = expr + Affine::dim(ctx, d) * stride;
        }
        self.b.apply_expr(expr, ivs, &[])
    }

    /// `affine.apply` of the `index` map of the load `op` to the loop variables `ivs`
    /// and the indirect indices `syms`.
    pub(super) fn load_index(
        &mut self,
        op: MlirOperation,
        ivs: &[Value],
        syms: &[Value],
    ) -> Result<Value, CodegenError> {
        let map = ir::attr(op, "index").ok_or_else(|| err(op, "load without index"))?;
        Ok(self.b.apply(map, ivs, syms))
    }

    /// The indices over row-major `extents` of the flat index `flat` (which is below
    /// their product): `flat` itself for one extent.
    pub(super) fn unravel_index(&mut self, flat: Value, extents: &[i64]) -> Vec<Value> {
        if extents.len() == 1 {
            return vec![flat];
        }
        let ctx = self.b.context();
        let mut stride: i64 = extents.iter().product();
        extents
            .iter()
            .map(|&extent| {
                stride /= extent.max(1);
                let e = Affine::dim(ctx, 0).floordiv(stride.max(1)).modulo(extent.max(1));
                self.b.apply_expr(e, &[flat], &[])
            })
            .collect()
    }

    /// A global buffer of `shape` and `dtype`. Intermediate buffers are module globals,
    /// allocated once when the code is loaded (as a caching allocator would), so calls do
    /// not pay for malloc and page faults; every function that uses one starts with its
    /// `memref.get_global` ([`Gen::val`]).
    pub(super) fn scratch(&mut self, shape: &[i64], dtype: DType) -> Buf {
        let b = Buf {
            id: BufId::Global(self.allocs.len()),
            ty: TensorType {
                shape: shape.to_vec(),
                dtype,
            },
        };
        self.allocs.push(b.clone());
        b
    }

    /// `n` f32 of scratch for the work of a nest ([`Gen::open_nest`]): on the stack of
    /// the outlined function when the nest became parallel chunks (one per thread), else
    /// a global.
    pub(super) fn nest_scratch(&mut self, outlined: bool, n: i64) -> NestScratch {
        if outlined {
            NestScratch::Stack(self.stack_buffer(n))
        } else {
            NestScratch::Global(self.scratch(&[n], DType::F32))
        }
    }

    /// The memref of `scratch` in the function being generated (a global's own
    /// `memref.get_global` there: a nest opened inside may be outlined apart).
    pub(super) fn nest_scratch_memref(&mut self, scratch: &NestScratch) -> Value {
        match scratch {
            NestScratch::Stack(v) => *v,
            NestScratch::Global(buf) => self.val(buf),
        }
    }

    /// `src` converted to `dtype` in a scratch buffer (`src` itself if it has it).
    pub(super) fn convert(&mut self, src: &Buf, dtype: DType) -> Buf {
        if src.ty.dtype == dtype {
            return src.clone();
        }
        let dst = self.scratch(&src.ty.shape, dtype);
        self.copy_converting(src, &dst);
        dst
    }

    /// Copies `src` into `dst` element by element, between f32 and a half type.
    pub(super) fn copy_converting(&mut self, src: &Buf, dst: &Buf) {
        let ivs = self.open_loops(&[src.ty.numel().max(1)]);
        let s = self.val(src);
        let v = self.b.load(s, ivs[0]);
        let w = if src.ty.dtype.is_half() {
            self.widened(v, src.ty.dtype)
        } else {
            self.narrowed(v, dst.ty.dtype)
        };
        let d = self.val(dst);
        self.b.store(w, d, ivs[0]);
        self.close_loops(1);
    }

    /// The f32 value `v` rounded to `half` (and widened back), or `v` itself.
    pub(super) fn round_to(&mut self, v: Value, half: Option<DType>) -> Value {
        match half {
            Some(dtype) => {
                let narrow = self.narrowed(v, dtype);
                self.widened(narrow, dtype)
            }
            None => v,
        }
    }

    /// The f32 value of a loaded half element `v` (bf16 is stored as its i16 bits).
    pub(super) fn widened(&mut self, v: Value, dtype: DType) -> Value {
        let f32t = self.b.f32_type();
        if dtype == DType::BF16 {
            let i32t = self.b.int_type(32);
            let a = self.b.cast("arith.extui", v, i32t);
            let k = self.b.int(32, 16);
            let bits = self.b.binary("arith.shli", a, k);
            self.b.cast("arith.bitcast", bits, f32t)
        } else {
            self.b.cast("arith.extf", v, f32t)
        }
    }

    /// The half element to store for the f32 value `v`: f16 by `arith.truncf`, bf16 as
    /// its i16 bits rounded to nearest even (NaN kept quiet).
    pub(super) fn narrowed(&mut self, v: Value, dtype: DType) -> Value {
        if dtype != DType::BF16 {
            let ty = storage_type(&self.b, dtype);
            return self.b.cast("arith.truncf", v, ty);
        }
        let (i32t, i16t) = (self.b.int_type(32), self.b.int_type(16));
        let bits = self.b.cast("arith.bitcast", v, i32t);
        let sixteen = self.b.int(32, 16);
        let high = self.b.binary("arith.shrui", bits, sixteen);
        let one = self.b.int(32, 1);
        let lsb = self.b.binary("arith.andi", high, one);
        let half_ulp = self.b.int(32, 32767);
        // bits + 0x7fff + lsb, then the upper half: round to nearest even.
        let bias = self.b.binary("arith.addi", lsb, half_ulp);
        let rounded = self.b.binary("arith.addi", bits, bias);
        let upper = self.b.binary("arith.shrui", rounded, sixteen);
        let t = self.b.cast("arith.trunci", upper, i16t);
        let quiet = self.b.int(16, 32704);
        let bad = self.b.cmpf(fuselab_dialects::build::CmpF::Uno, v, v);
        self.b.select(bad, quiet, t)
    }

    /// The aligned base address of `buf` (an `index`).
    pub(super) fn pointer(&mut self, buf: &Buf) -> Value {
        let m = self.val(buf);
        self.memref_pointer(m)
    }

    /// The aligned base address of the memref `m` (an `index`).
    pub(super) fn memref_pointer(&mut self, m: Value) -> Value {
        let index = self.b.index_type();
        self.b
            .value("memref.extract_aligned_pointer_as_index", &[m], index, &[])
    }

    /// The i64 address of element `iv * stride + offset` (f32) from `pointer`.
    pub(super) fn address(&mut self, pointer: Value, iv: Option<Value>, stride: i64, offset: i64) -> Value {
        match iv {
            Some(iv) => self.strided_address(pointer, &[iv], &[stride], offset),
            None => self.strided_address(pointer, &[], &[], offset),
        }
    }

    /// The i64 address of the f32 element `offset + sum(ivs[i] strides[i])` from
    /// `pointer`.
    pub(super) fn strided_address(
        &mut self,
        pointer: Value,
        ivs: &[Value],
        strides: &[i64],
        offset: i64,
    ) -> Value {
        let ctx = self.b.context();
        let mut expr = Affine::sym(ctx, 0).add_const(offset * 4);
        for (d, &stride) in strides.iter().enumerate() {
            expr = expr + Affine::dim(ctx, d) * (stride * 4);
        }
        let x = self.b.apply_expr(expr, ivs, &[pointer]);
        let i64t = self.b.int_type(64);
        self.b.cast("arith.index_cast", x, i64t)
    }

    /// The f32 `a combine b` with `fastmath<reassoc>`: float accumulations may be
    /// reassociated (as every parallel or vectorized reduction is), so LLVM vectorizes
    /// the row loop they accumulate in with partial results.
    pub(super) fn reassociated(&mut self, combine: &str, a: Value, b: Value) -> Value {
        let f32t = self.b.f32_type();
        let attributes: Vec<_> = ir::parse_attr(self.b.context(), "#arith.fastmath<reassoc>")
            .map(|fm| ("fastmath", fm))
            .into_iter()
            .collect();
        self.b.value(combine, &[a, b], f32t, &attributes)
    }
}
