//! The code generator's text primitives: fresh names, loop nests and accumulations, flat
//! and unravelled indices, buffers, half-precision rounding, pointers for library calls.

use super::*;

impl Gen {
    pub(super) fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("%{prefix}{}", self.fresh)
    }

    pub(super) fn index_const(&mut self, v: i64, indent: &str) -> String {
        let n = self.name("c");
        let _ = writeln!(self.out, "{indent}{n} = arith.constant {v} : index");
        n
    }

    pub(super) fn buffer(&self, op: MlirOperation, v: MlirValue) -> Result<Buf, CodegenError> {
        self.bufs
            .get(&(v.ptr as usize))
            .cloned()
            .ok_or_else(|| err(op, "reads a value the CPU code generator has no buffer for"))
    }

    /// The buffer a node writes: its output argument if it is returned directly, else a
    /// fresh allocation.
    pub(super) fn result_buffer(&mut self, op: MlirOperation) -> Result<Buf, CodegenError> {
        let result = ir::result(op, 0);
        if let Some(b) = self.direct_out.get(&(result.ptr as usize)) {
            return Ok(b.clone());
        }
        let ty = ir::tensor_type(result).ok_or_else(|| err(op, "result is not a supported tensor"))?;
        Ok(self.scratch(&ty.shape, ty.dtype))
    }

    /// Opens `scf.for` loops over `ranges`; returns the induction variables and the
    /// indentation inside.
    pub(super) fn open_loops(&mut self, ranges: &[i64], indent: &str) -> (Vec<String>, String) {
        let mut ivs = Vec::new();
        let mut ind = indent.to_string();
        let c0 = self.index_const(0, indent);
        let c1 = self.index_const(1, indent);
        for &r in ranges {
            let ub = self.index_const(r, &ind);
            let iv = self.name("i");
            let _ = writeln!(self.out, "{ind}scf.for {iv} = {c0} to {ub} step {c1} {{");
            ivs.push(iv);
            ind.push_str("  ");
        }
        (ivs, ind)
    }

    /// Opens `scf.for` loops over `ranges` that carry one accumulator of type `e`,
    /// starting at `init`.
    pub(super) fn open_accumulation(
        &mut self,
        ranges: &[i64],
        init: &str,
        e: &'static str,
        indent: &str,
    ) -> Accumulation {
        let c0 = self.index_const(0, indent);
        let c1 = self.index_const(1, indent);
        let mut acc = Accumulation {
            ivs: Vec::new(),
            carried: init.to_string(),
            results: Vec::new(),
            outer: indent.to_string(),
            indent: indent.to_string(),
            elem: e,
        };
        for &r in ranges {
            let ub = self.index_const(r, &acc.indent);
            let (iv, arg, res) = (self.name("r"), self.name("acc"), self.name("red"));
            let _ = writeln!(
                self.out,
                "{}{res} = scf.for {iv} = {c0} to {ub} step {c1} iter_args({arg} = {}) -> ({e}) {{",
                acc.indent, acc.carried
            );
            acc.ivs.push(iv);
            acc.results.push(res);
            acc.carried = arg;
            acc.indent.push_str("  ");
        }
        acc
    }

    /// Yields `next` through the loops of `acc`; returns the accumulated value.
    pub(super) fn close_accumulation(&mut self, acc: Accumulation, next: String) -> String {
        let mut yielded = next;
        for k in (0..acc.results.len()).rev() {
            let _ = writeln!(
                self.out,
                "{}{}scf.yield {yielded} : {}",
                acc.outer,
                "  ".repeat(k + 1),
                acc.elem
            );
            let _ = writeln!(self.out, "{}{}}}", acc.outer, "  ".repeat(k));
            yielded = acc.results[k].clone();
        }
        yielded
    }

    pub(super) fn close_loops(&mut self, n: usize, indent: &str) {
        for k in (0..n).rev() {
            let _ = writeln!(self.out, "{indent}{}}}", "  ".repeat(k));
        }
    }

    /// `affine.apply` of the contiguous offset of `ivs` over `ranges`.
    pub(super) fn flat_index(&mut self, ivs: &[String], ranges: &[i64], indent: &str) -> String {
        if ivs.is_empty() {
            return self.index_const(0, indent);
        }
        let mut expr = String::new();
        let mut stride = 1i64;
        for d in (0..ranges.len()).rev() {
            if !expr.is_empty() {
                expr.insert_str(0, " + ");
            }
            expr.insert_str(0, &format!("d{d} * {stride}"));
            stride *= ranges[d];
        }
        let dims: Vec<String> = (0..ranges.len()).map(|d| format!("d{d}")).collect();
        let n = self.name("x");
        let _ = writeln!(
            self.out,
            "{indent}{n} = affine.apply affine_map<({}) -> ({expr})>({})",
            dims.join(", "),
            ivs.join(", ")
        );
        n
    }

    /// `affine.apply` of the `index` map of the load `op` to the loop variables `ivs`
    /// and the indirect indices `syms`.
    pub(super) fn load_index(
        &mut self,
        op: MlirOperation,
        ivs: &[String],
        syms: &[String],
        indent: &str,
    ) -> Result<String, CodegenError> {
        let map = ir::attr(op, "index")
            .map(ir::attr_string)
            .ok_or_else(|| err(op, "load without index"))?;
        let idx = self.name("x");
        let syms = if syms.is_empty() {
            String::new()
        } else {
            format!("[{}]", syms.join(", "))
        };
        let _ = writeln!(
            self.out,
            "{indent}{idx} = affine.apply {map}({}){syms}",
            ivs.join(", ")
        );
        Ok(idx)
    }

    /// The indices over row-major `extents` of the flat index `flat` (which is below
    /// their product): `flat` itself for one extent.
    pub(super) fn unravel_index(&mut self, flat: &str, extents: &[i64], indent: &str) -> Vec<String> {
        if extents.len() == 1 {
            return vec![flat.to_string()];
        }
        let mut stride: i64 = extents.iter().product();
        extents
            .iter()
            .map(|&extent| {
                stride /= extent.max(1);
                let d = self.name("x");
                let _ = writeln!(
                    self.out,
                    "{indent}{d} = affine.apply affine_map<(d0) -> ((d0 floordiv {}) mod {})>({flat})",
                    stride.max(1),
                    extent.max(1)
                );
                d
            })
            .collect()
    }

    /// A global buffer of `shape` and `dtype`. Intermediate buffers are module globals,
    /// allocated once when the code is loaded (as a caching allocator would), so calls do
    /// not pay for malloc and page faults; every function that uses one starts with its
    /// `memref.get_global`.
    pub(super) fn scratch(&mut self, shape: &[i64], dtype: DType) -> Buf {
        let b = Buf {
            ssa: self.name("buf"),
            ty: TensorType {
                shape: shape.to_vec(),
                dtype,
            },
        };
        self.alloc_of.insert(b.ssa.clone(), self.allocs.len());
        self.allocs.push(b.clone());
        b
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
        let (ivs, ind) = self.open_loops(&[src.ty.numel().max(1)], "    ");
        let v = self.name("v");
        let _ = writeln!(
            self.out,
            "{ind}{v} = memref.load {}[{}] : {}",
            src.ssa,
            ivs[0],
            memref(&src.ty)
        );
        let w = if src.ty.dtype.is_half() {
            self.widened(&v, src.ty.dtype, &ind)
        } else {
            self.narrowed(&v, dst.ty.dtype, &ind)
        };
        let _ = writeln!(
            self.out,
            "{ind}memref.store {w}, {}[{}] : {}",
            dst.ssa,
            ivs[0],
            memref(&dst.ty)
        );
        self.close_loops(1, "    ");
    }

    /// The f32 value `v` rounded to `half` (and widened back), or `v` itself.
    pub(super) fn round_to(&mut self, v: &str, half: Option<DType>, indent: &str) -> String {
        match half {
            Some(dtype) => {
                let narrow = self.narrowed(v, dtype, indent);
                self.widened(&narrow, dtype, indent)
            }
            None => v.to_string(),
        }
    }

    /// The f32 value of a loaded half element `v` (bf16 is stored as its i16 bits).
    pub(super) fn widened(&mut self, v: &str, dtype: DType, indent: &str) -> String {
        let w = self.name("w");
        if dtype == DType::BF16 {
            let (a, b, k) = (self.name("w"), self.name("w"), self.name("w"));
            let _ = writeln!(self.out, "{indent}{a} = arith.extui {v} : i16 to i32");
            let _ = writeln!(self.out, "{indent}{k} = arith.constant 16 : i32");
            let _ = writeln!(self.out, "{indent}{b} = arith.shli {a}, {k} : i32");
            let _ = writeln!(self.out, "{indent}{w} = arith.bitcast {b} : i32 to f32");
        } else {
            let _ = writeln!(
                self.out,
                "{indent}{w} = arith.extf {v} : {} to f32",
                dtype.mlir_name()
            );
        }
        w
    }

    /// The half element to store for the f32 value `v`: f16 by `arith.truncf`, bf16 as
    /// its i16 bits rounded to nearest even (NaN kept quiet).
    pub(super) fn narrowed(&mut self, v: &str, dtype: DType, indent: &str) -> String {
        if dtype != DType::BF16 {
            let w = self.name("w");
            let _ = writeln!(
                self.out,
                "{indent}{w} = arith.truncf {v} : f32 to {}",
                dtype.mlir_name()
            );
            return w;
        }
        let n: Vec<String> = (0..9).map(|_| self.name("w")).collect();
        let lines = [
            format!("{} = arith.bitcast {v} : f32 to i32", n[0]),
            format!("{} = arith.constant 16 : i32", n[1]),
            format!("{} = arith.shrui {}, {} : i32", n[2], n[0], n[1]),
            format!("{} = arith.constant 1 : i32", n[3]),
            format!("{} = arith.andi {}, {} : i32", n[4], n[2], n[3]),
            format!("{} = arith.constant 32767 : i32", n[5]),
            // bits + 0x7fff + lsb, then the upper half: round to nearest even.
            format!("{} = arith.addi {}, {} : i32", n[6], n[4], n[5]),
            format!("{} = arith.addi {}, {} : i32", n[7], n[0], n[6]),
            format!("{} = arith.shrui {}, {} : i32", n[8], n[7], n[1]),
        ];
        for line in lines {
            let _ = writeln!(self.out, "{indent}{line}");
        }
        let (t, nan, q, bad) = (self.name("w"), self.name("w"), self.name("w"), self.name("w"));
        let _ = writeln!(self.out, "{indent}{t} = arith.trunci {} : i32 to i16", n[8]);
        let _ = writeln!(self.out, "{indent}{q} = arith.constant 32704 : i16");
        let _ = writeln!(self.out, "{indent}{bad} = arith.cmpf uno, {v}, {v} : f32");
        let _ = writeln!(self.out, "{indent}{nan} = arith.select {bad}, {q}, {t} : i16");
        nan
    }

    /// The aligned base address of `buf` (an `index`).
    pub(super) fn pointer(&mut self, buf: &Buf, indent: &str) -> String {
        let p = self.name("p");
        let _ = writeln!(
            self.out,
            "{indent}{p} = memref.extract_aligned_pointer_as_index {} : {} -> index",
            buf.ssa,
            memref(&buf.ty)
        );
        p
    }

    /// The i64 address of element `iv * stride + offset` (f32) from `pointer`.
    pub(super) fn address(
        &mut self,
        pointer: &str,
        iv: Option<&str>,
        stride: i64,
        offset: i64,
        indent: &str,
    ) -> String {
        let x = self.name("x");
        match iv {
            Some(iv) => {
                let _ = writeln!(
                    self.out,
                    "{indent}{x} = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * {} + {})>({iv})[{pointer}]",
                    stride * 4,
                    offset * 4
                );
            }
            None => {
                let _ = writeln!(
                    self.out,
                    "{indent}{x} = affine.apply affine_map<()[s0] -> (s0 + {})>()[{pointer}]",
                    offset * 4
                );
            }
        }
        let a = self.name("addr");
        let _ = writeln!(self.out, "{indent}{a} = arith.index_cast {x} : index to i64");
        a
    }
}
