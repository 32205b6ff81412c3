//! `tile.reduce` on the blocked layout: a thread's own slots, then a `gpu.shuffle xor`
//! butterfly within the warp, then the warps of a row through workgroup (shared)
//! memory between `gpu.barrier`s — Triton's reduction lowering.

use super::*;

impl Kernel<'_> {
    fn combine(&mut self, kind: &str, a: Value, b: Value) -> Value {
        let ty = ir::value_type(a);
        let float = unsafe { mlir_sys::mlirTypeIsAFloat(ty) };
        let bool_ = unsafe { mlir_sys::mlirTypeIsAInteger(ty) && mlir_sys::mlirIntegerTypeGetWidth(ty) == 1 };
        let name = match (kind, float) {
            ("sum", true) => "arith.addf",
            ("prod", true) => "arith.mulf",
            ("max", true) => "arith.maximumf",
            ("min", true) => "arith.minimumf",
            ("max", false) if bool_ => "arith.ori",
            ("min", false) if bool_ => "arith.andi",
            ("sum", false) => "arith.addi",
            ("prod", false) => "arith.muli",
            ("max", false) => "arith.maxsi",
            _ => "arith.minsi",
        };
        self.b.binary(name, a, b)
    }

    /// `v` from the lane `lane ^ offset` of this warp (any 1-, 32- or 64-bit scalar).
    fn shuffle_xor(&mut self, v: Value, offset: i64) -> Value {
        let ty = ir::value_type(v);
        let i32t = self.b.int_type(32);
        let (off, width) = (self.b.int(32, offset), self.b.int(32, 32));
        let mode =
            ir::parse_attr(self.b.context(), "#gpu<shuffle_mode xor>").unwrap_or_else(|| self.b.unit_attr());
        let i1 = self.b.int_type(1);
        let bits = unsafe {
            if mlir_sys::mlirTypeIsAInteger(ty) {
                mlir_sys::mlirIntegerTypeGetWidth(ty)
            } else if mlir_sys::mlirTypeIsAF64(ty) {
                64
            } else {
                32
            }
        };
        let shuffle32 = |b: &mut Builder, x: Value| -> Value {
            let op = b.op(
                "gpu.shuffle",
                &[x, off, width],
                &[ir::value_type(x), i1],
                &[("mode", mode)],
            );
            ir::result(op, 0)
        };
        match bits {
            32 => shuffle32(self.b, v),
            1 => {
                let w = self.b.cast("arith.extui", v, i32t);
                let s = shuffle32(self.b, w);
                self.b.cast("arith.trunci", s, ty)
            }
            _ => {
                let i64t = self.b.int_type(64);
                let as_int = if unsafe { mlir_sys::mlirTypeIsAF64(ty) } {
                    self.b.cast("arith.bitcast", v, i64t)
                } else {
                    v
                };
                let lo = self.b.cast("arith.trunci", as_int, i32t);
                let k32 = self.b.int(64, 32);
                let shifted = self.b.binary("arith.shrui", as_int, k32);
                let hi = self.b.cast("arith.trunci", shifted, i32t);
                let (lo, hi) = (shuffle32(self.b, lo), shuffle32(self.b, hi));
                let lo = self.b.cast("arith.extui", lo, i64t);
                let hi = self.b.cast("arith.extui", hi, i64t);
                let hi = self.b.binary("arith.shli", hi, k32);
                let joined = self.b.binary("arith.ori", hi, lo);
                if unsafe { mlir_sys::mlirTypeIsAF64(ty) } {
                    self.b.cast("arith.bitcast", joined, ty)
                } else {
                    joined
                }
            }
        }
    }

    /// Combines `v` over lanes `lane ^ o` for `o` = `span/2 .. 1` (a butterfly: every
    /// lane of each aligned group of `span` lanes ends with the group's result).
    fn butterfly(&mut self, kind: &str, mut v: Value, span: i64) -> Value {
        let mut o = span.min(32) / 2;
        while o >= 1 {
            let other = self.shuffle_xor(v, o);
            v = self.combine(kind, v, other);
            o /= 2;
        }
        v
    }

    /// A new workgroup (shared memory) buffer of `n` elements of `ty`.
    pub(super) fn workgroup_buffer(&mut self, n: i64, ty: MlirType) -> Value {
        let space = ir::parse_attr(self.b.context(), "#gpu.address_space<workgroup>");
        let mt = unsafe {
            mlir_sys::mlirMemRefTypeGet(
                ty,
                1,
                &n,
                mlir_sys::mlirAttributeGetNull(),
                space.unwrap_or(mlir_sys::mlirAttributeGetNull()),
            )
        };
        self.workgroup += 1;
        unsafe { mlir_sys::mlirBlockAddArgument(self.entry, mt, self.b.location()) }
    }

    /// Each warp's `partials[j]` (one per row group `j`) combined over the `per` warps of
    /// its group through shared memory; every thread gets its group's result.
    fn across_warps(&mut self, kind: &str, partials: &[Value], per: i64) -> Vec<Value> {
        let warps = self.threads / 32;
        let ty = ir::value_type(partials[0]);
        let is_bool =
            unsafe { mlir_sys::mlirTypeIsAInteger(ty) && mlir_sys::mlirIntegerTypeGetWidth(ty) == 1 };
        let i32t = self.b.int_type(32);
        let stored_ty = if is_bool { i32t } else { ty };
        let smem = self.workgroup_buffer(partials.len() as i64 * warps, stored_ty);
        let ctx = self.b.context();
        let d0 = fuselab_dialects::build::Affine::dim(ctx, 0);
        let warp = self.b.apply_expr(d0.floordiv(32), &[self.tid], &[]);
        let lane = self.b.apply_expr(d0.modulo(32), &[self.tid], &[]);
        let c0 = self.b.index(0);
        let lane0 = self.b.cmpi(CmpI::Eq, lane, c0);
        for (j, &p) in partials.iter().enumerate() {
            let at = self.b.apply_expr(
                d0 + fuselab_dialects::build::Affine::constant(ctx, j as i64 * warps),
                &[warp],
                &[],
            );
            let v = if is_bool {
                self.b.cast("arith.extui", p, i32t)
            } else {
                p
            };
            self.b.open_if(lane0);
            self.b.store(v, smem, at);
            self.b.close("scf.yield", &[]);
        }
        self.b.op("gpu.barrier", &[], &[], &[]);
        let first = self.b.apply_expr((d0.floordiv(per)) * per, &[warp], &[]);
        let mut out = Vec::new();
        for (j, &partial) in partials.iter().enumerate() {
            let mut acc: Option<Value> = None;
            for w in 0..per {
                let at = self.b.apply_expr(
                    d0 + fuselab_dialects::build::Affine::constant(ctx, j as i64 * warps + w),
                    &[first],
                    &[],
                );
                let mut v = self.b.load(smem, at);
                if is_bool {
                    v = self.b.cast("arith.trunci", v, ty);
                }
                acc = Some(match acc {
                    None => v,
                    Some(a) => self.combine(kind, a, v),
                });
            }
            out.push(acc.unwrap_or(partial));
        }
        self.b.op("gpu.barrier", &[], &[], &[]);
        out
    }

    /// `tile.reduce` along the inner axis (see the module documentation).
    pub(super) fn reduce(
        &mut self,
        op: MlirOperation,
        kind: &str,
        values: Vec<Value>,
    ) -> Result<Vec<Value>, Failure> {
        let axis = ir::integer(op, "axis").unwrap_or(1);
        if axis != 1 {
            return Err(fail(op, "only reductions along the inner axis are lowered"));
        }
        if self.rb == 1 {
            return Ok(values);
        }
        let (t, v) = (self.threads, self.vec);
        if self.rb >= t * v as i64 {
            // A row spans RBLOCK / T slots of every thread: the thread's own, then the
            // warp's lanes, then the program's warps.
            let per_row = (self.rb / t) as usize;
            let mut partials = Vec::new();
            for row in values.chunks(per_row) {
                let local = self.local(kind, row);
                partials.push(self.butterfly(kind, local, 32));
            }
            let rows = self.across_warps(kind, &partials, t / 32);
            return Ok((0..self.slots).map(|s| rows[s / per_row]).collect());
        }
        // Each chunk of V slots is one row's, the row spread over RBLOCK / V consecutive
        // lanes (and over warps when that is more than 32).
        let lanes = self.rb / v as i64;
        let mut partials = Vec::new();
        for chunk in values.chunks(v) {
            let local = self.local(kind, chunk);
            partials.push(self.butterfly(kind, local, lanes));
        }
        if lanes > 32 {
            partials = self.across_warps(kind, &partials, lanes / 32);
        }
        Ok((0..self.slots).map(|s| partials[s / v]).collect())
    }

    /// The combination of `values` in one thread.
    fn local(&mut self, kind: &str, values: &[Value]) -> Value {
        let mut acc = values[0];
        for &x in &values[1..] {
            acc = self.combine(kind, acc, x);
        }
        acc
    }
}
