//! Nodes as loop nests: a node's body copied op by op, kernel-local members recomputed
//! where they are read, members sharing one row nest when every read stays in its row.

use super::*;

impl Gen {
    /// Emits the body of `node` with its block arguments bound to `ivs`; returns the
    /// SSA name of the yielded value.
    pub(super) fn body(
        &mut self,
        node: MlirOperation,
        ivs: &[String],
        indent: &str,
    ) -> Result<String, CodegenError> {
        let block = ir::first_block(ir::region(node, 0)).ok_or_else(|| err(node, "node without a body"))?;
        let mut names: HashMap<usize, String> = HashMap::new();
        for (a, iv) in ir::block_arguments(block).iter().zip(ivs) {
            names.insert(a.ptr as usize, iv.clone());
        }
        for op in ir::block_ops(block) {
            let name = ir::op_name(op);
            let operands: Vec<MlirValue> = ir::operands(op);
            let get = |v: &MlirValue| -> Result<String, CodegenError> {
                names
                    .get(&(v.ptr as usize))
                    .cloned()
                    .ok_or_else(|| err(op, "operand defined outside the body"))
            };
            if name == "gpu.yield" {
                return get(&operands[0]);
            }
            let res = self.name("v");
            if name == names::LOAD {
                let syms: Vec<String> = operands[1..].iter().map(get).collect::<Result<_, _>>()?;
                if let Some(&producer) = self.inline.get(&(operands[0].ptr as usize)) {
                    // A kernel-local pointwise producer: recompute it at the loaded
                    // position instead of loading.
                    let ranges = i64s(producer, "ranges");
                    // Fast path: the read is at the producer's own contiguous index of
                    // the reader's leading loop variables (same iteration space): reuse
                    // them. Otherwise unravel the flat index over the producer's ranges.
                    let contiguous = contiguous_index(&ranges);
                    let same_space = syms.is_empty()
                        && ivs.len() >= ranges.len()
                        && ir::attr(op, "index")
                            .and_then(fuselab_dialects::loops::index::from_affine_map_attr)
                            .is_some_and(|(e, _, _)| {
                                e == contiguous.drop_unit_dims(&ranges) || e == contiguous
                            })
                        && all_ranges(node).starts_with(&ranges);
                    let pdims = if same_space {
                        ivs[..ranges.len()].to_vec()
                    } else {
                        let idx = self.load_index(op, ivs, &syms, indent)?;
                        self.unravel_index(&idx, &ranges, indent)
                    };
                    let v = self.body(producer, &pdims, indent)?;
                    names.insert(ir::result(op, 0).ptr as usize, v);
                    continue;
                }
                let buf = self.buffer(op, operands[0])?;
                let idx = self.load_index(op, ivs, &syms, indent)?;
                let _ = writeln!(
                    self.out,
                    "{indent}{res} = memref.load {}[{idx}] : {}",
                    buf.ssa,
                    memref(&buf.ty)
                );
                if buf.ty.dtype.is_half() {
                    let wide = self.widened(&res, buf.ty.dtype, indent);
                    names.insert(ir::result(op, 0).ptr as usize, wide);
                    continue;
                }
            } else {
                let ops: Vec<String> = operands.iter().map(get).collect::<Result<_, _>>()?;
                // f16 / bf16 values are computed in f32 (and rounded after each op, below).
                let types: Vec<String> = operands
                    .iter()
                    .map(|v| widen(&ir::type_string(ir::value_type(*v))))
                    .collect();
                let declared = ir::value_type(ir::result(op, 0));
                let result_ty = widen(&ir::type_string(declared));
                // A value declared f16 / bf16 is rounded to it (and widened back) after
                // its op, as eager PyTorch stores every op's result: without this a
                // fused chain is more precise than the unfused program, and differs
                // from it by more than half-precision tolerances where later ops amplify
                // (a 3-element layer_norm after sin/erf in bf16). Inductor's
                // `emulate_precision_casts` does the same.
                // SAFETY: a type of a live value.
                let half =
                    DType::from_mlir(unsafe { melior::ir::Type::from_raw(declared) }).filter(|d| d.is_half());
                if (name == "arith.extf" || name == "arith.truncf") && types.first() == Some(&result_ty) {
                    // A cast between f32 and a half type: a rounding in f32.
                    let v = self.round_to(&ops[0], half, indent);
                    names.insert(ir::result(op, 0).ptr as usize, v);
                    continue;
                }
                if result_ty == "f32" && ops.len() == 1 {
                    let mut lines = crate::cpu::math::Lines {
                        out: &mut self.out,
                        fresh: &mut self.fresh,
                        indent,
                    };
                    if let Some(v) = crate::cpu::math::expand(&mut lines, &name, &ops[0]) {
                        let v = self.round_to(&v, half, indent);
                        names.insert(ir::result(op, 0).ptr as usize, v);
                        continue;
                    }
                }
                let mut attrs = Vec::new();
                unsafe {
                    for i in 0..mlir_sys::mlirOperationGetNumAttributes(op) {
                        let na = mlir_sys::mlirOperationGetAttribute(op, i);
                        let key = melior::StringRef::from_raw(mlir_sys::mlirIdentifierStr(na.name));
                        attrs.push(format!(
                            "{} = {}",
                            key.as_str().unwrap_or_default(),
                            widen(&ir::attr_string(na.attribute))
                        ));
                    }
                }
                let attrs = if attrs.is_empty() {
                    String::new()
                } else {
                    format!(" {{{}}}", attrs.join(", "))
                };
                let _ = writeln!(
                    self.out,
                    "{indent}{res} = \"{name}\"({}){attrs} : ({}) -> {result_ty}",
                    ops.join(", "),
                    types.join(", ")
                );
                let v = self.round_to(&res, half, indent);
                names.insert(ir::result(op, 0).ptr as usize, v);
                continue;
            }
            names.insert(ir::result(op, 0).ptr as usize, res);
        }
        Err(err(node, "body without gpu.yield"))
    }

    /// Emits `op` (a pointwise or reduction node writing `out`) inside a nest whose
    /// loop variables `prefix` cover its leading ranges.
    pub(super) fn node_in(
        &mut self,
        op: MlirOperation,
        out: Buf,
        prefix: &[String],
        indent: &str,
    ) -> Result<(), CodegenError> {
        let ranges = i64s(op, "ranges");
        let rranges = i64s(op, "reduction_ranges");
        let (inner, ind) = self.open_loops(&ranges[prefix.len()..], indent);
        let mut ivs = prefix.to_vec();
        ivs.extend(inner);
        let value = if ir::op_name(op) == names::REDUCTION {
            let kind = ir::attr(op, "kind")
                .and_then(fuselab_dialects::attrs::string_raw)
                .unwrap_or_default();
            let float = out.ty.dtype.is_float();
            let e = out.ty.dtype.mlir_name();
            let (init, combine) = match (kind.as_str(), float) {
                ("sum", true) => ("0.0".to_string(), "arith.addf"),
                ("sum", false) => ("0".to_string(), "arith.addi"),
                ("max", true) => ("0xFF800000".to_string(), "arith.maximumf"),
                ("min", true) => ("0x7F800000".to_string(), "arith.minimumf"),
                ("max", false) if out.ty.dtype == DType::I1 => ("0".to_string(), "arith.ori"),
                ("max", false) => (i64::MIN.to_string(), "arith.maxsi"),
                ("min", false) => (i64::MAX.to_string(), "arith.minsi"),
                _ => {
                    return Err(err(
                        op,
                        format!("reduction kind '{kind}' is not supported by the CPU code generator"),
                    ))
                }
            };
            // f16 / bf16 rows accumulate in f32 (as Inductor's CPU code does).
            let acc_e = if float { "f32" } else { e };
            let acc0 = self.name("a");
            let _ = writeln!(self.out, "{ind}{acc0} = arith.constant {init} : {acc_e}");
            let acc = self.open_accumulation(&rranges, &acc0, acc_e, &ind);
            let mut all = ivs.clone();
            all.extend(acc.ivs.iter().cloned());
            let v = self.body(op, &all, &acc.indent)?;
            let next = self.name("n");
            // Float accumulations may be reassociated (as every parallel or vectorized
            // reduction is), so LLVM vectorizes the row loop with partial sums.
            let flags = if float { " fastmath<reassoc>" } else { "" };
            let _ = writeln!(
                self.out,
                "{}{next} = {combine} {}, {v}{flags} : {acc_e}",
                acc.indent, acc.carried
            );
            self.close_accumulation(acc, next)
        } else {
            self.body(op, &ivs, &ind)?
        };
        let value = if out.ty.dtype.is_half() {
            self.narrowed(&value, out.ty.dtype, &ind)
        } else {
            value
        };
        let flat = self.flat_index(&ivs, &ranges, &ind);
        let _ = writeln!(
            self.out,
            "{ind}memref.store {value}, {}[{flat}] : {}",
            out.ssa,
            memref(&out.ty)
        );
        self.close_loops(ranges.len() - prefix.len(), indent);
        self.bufs.insert(ir::result(op, 0).ptr as usize, out);
        Ok(())
    }

    /// Opens the nest of one step over the leading extents `prefix`, whose iterations
    /// are independent: when the step does at least [`PARALLEL_WORK`] element operations
    /// (`work`), the leading dims (collapsed until there are at least 16 rows) are split
    /// into chunks run by `scf.parallel` (lowered by `async-parallel-for` onto the MLIR
    /// async runtime's thread pool); the rest are `scf.for`.
    pub(super) fn open_nest(&mut self, prefix: &[i64], work: i64) -> Nest {
        let base = "    ";
        let mut nest = Nest {
            ivs: Vec::new(),
            indent: base.to_string(),
            closers: Vec::new(),
        };
        let chunks = if self.parallel {
            (work / PARALLEL_WORK).min(MAX_CHUNKS)
        } else {
            1
        };
        let j = (1..=prefix.len())
            .find(|&j| prefix[..j].iter().product::<i64>() >= 16)
            .unwrap_or(prefix.len());
        let rows: i64 = prefix[..j].iter().product();
        let chunks = chunks.min(rows);
        if chunks >= 2 {
            let size = (rows + chunks - 1) / chunks;
            let chunks = (rows + size - 1) / size;
            let c0 = self.index_const(0, base);
            let c1 = self.index_const(1, base);
            let cn = self.index_const(chunks, base);
            let (t, lo, hi, f) = (self.name("t"), self.name("lo"), self.name("hi"), self.name("f"));
            let _ = writeln!(
                self.out,
                "{base}scf.parallel ({t}) = ({c0}) to ({cn}) step ({c1}) {{"
            );
            let ind = format!("{base}  ");
            let _ = writeln!(
                self.out,
                "{ind}{lo} = affine.apply affine_map<(d0) -> (d0 * {size})>({t})"
            );
            let _ = writeln!(
                self.out,
                "{ind}{hi} = affine.min affine_map<(d0) -> (d0 * {size} + {size}, {rows})>({t})"
            );
            let _ = writeln!(self.out, "{ind}scf.for {f} = {lo} to {hi} step {c1} {{");
            nest.closers.push(format!("{ind}}}"));
            nest.closers.push(format!("{ind}scf.reduce\n{base}}}"));
            nest.indent = format!("{ind}  ");
            // The collapsed dims' indices.
            let indent = nest.indent.clone();
            nest.ivs = self.unravel_index(&f, &prefix[..j], &indent);
        } else {
            let (ivs, ind) = self.open_loops(&prefix[..j], base);
            for k in 0..j {
                nest.closers.insert(0, format!("{base}{}}}", "  ".repeat(k)));
            }
            nest.ivs = ivs;
            nest.indent = ind;
        }
        let ind = nest.indent.clone();
        let (ivs, inner) = self.open_loops(&prefix[j..], &ind);
        for k in 0..prefix.len() - j {
            nest.closers.insert(0, format!("{ind}{}}}", "  ".repeat(k)));
        }
        nest.ivs.extend(ivs);
        nest.indent = inner;
        nest
    }

    pub(super) fn close_nest(&mut self, nest: Nest) {
        for line in nest.closers {
            let _ = writeln!(self.out, "{line}");
        }
    }

    /// One step: `members` (pointwise / reduction nodes, in order) share the nest over
    /// their common leading ranges when every read of another member's buffer stays in
    /// the same row of it ([`Gen::row_prefix`]): the row is computed once per member,
    /// in order, while it is in cache, and rows run in parallel. Otherwise each member
    /// is a step of its own.
    pub(super) fn step(&mut self, members: &[MlirOperation]) -> Result<(), CodegenError> {
        let k = self.row_prefix(members);
        if k == 0 && members.len() > 1 {
            for &m in members {
                self.step(&[m])?;
            }
            return Ok(());
        }
        let prefix: Vec<i64> = i64s(members[0], "ranges")[..k].to_vec();
        let work: i64 = members
            .iter()
            .map(|&m| all_ranges(m).iter().product::<i64>())
            .sum();
        let outs = members
            .iter()
            .map(|&m| self.result_buffer(m))
            .collect::<Result<Vec<_>, _>>()?;
        let nest = self.open_nest(&prefix, work);
        let ind = nest.indent.clone();
        for (&m, out) in members.iter().zip(outs) {
            self.node_in(m, out, &nest.ivs, &ind)?;
        }
        self.close_nest(nest);
        Ok(())
    }

    /// How many leading ranges `members` can share (see [`Gen::step`]): the longest
    /// common prefix of their ranges such that every read of a member's buffer by a
    /// later member (directly or through kernel-local values recomputed at the read)
    /// is at an index whose row, the index `floordiv` the row size, is the reader's
    /// own row. 0 when none does, or for a single node: all its ranges.
    pub(super) fn row_prefix(&self, members: &[MlirOperation]) -> usize {
        let ranges: Vec<Vec<i64>> = members.iter().map(|&m| i64s(m, "ranges")).collect();
        if members.len() == 1 {
            return ranges[0].len();
        }
        let mut k = ranges.iter().map(Vec::len).min().unwrap_or(0);
        while k > 0 && ranges.iter().any(|r| r[..k] != ranges[0][..k]) {
            k -= 1;
        }
        let outputs: HashMap<usize, MlirOperation> = members
            .iter()
            .map(|&m| (ir::result(m, 0).ptr as usize, m))
            .collect();
        while k > 0 {
            let local = members.iter().all(|&m| {
                let full = all_ranges(m);
                let dims: Vec<IndexExpr> = (0..full.len()).map(IndexExpr::dim).collect();
                self.reads_in_row(m, &dims, &full, k, &outputs)
            });
            if local {
                return k;
            }
            k -= 1;
        }
        0
    }

    /// Whether every load in `node`'s body (its loop variables being `dims`, over the
    /// reader's variables with extents `full`) of a buffer in `outputs` reads the
    /// reader's row for a shared prefix of `k` ranges.
    pub(super) fn reads_in_row(
        &self,
        node: MlirOperation,
        dims: &[IndexExpr],
        full: &[i64],
        k: usize,
        outputs: &HashMap<usize, MlirOperation>,
    ) -> bool {
        let Some(block) = ir::first_block(ir::region(node, 0)) else {
            return false;
        };
        for op in ir::block_ops(block) {
            if ir::op_name(op) != names::LOAD {
                continue;
            }
            let source = ir::operand(op, 0).ptr as usize;
            let Some((index, _, nsyms)) =
                ir::attr(op, "index").and_then(fuselab_dialects::loops::index::from_affine_map_attr)
            else {
                return false;
            };
            let syms: Vec<IndexExpr> = (0..nsyms).map(IndexExpr::sym).collect();
            let at = index.substitute(dims, &syms, full);
            if let Some(&producer) = self.inline.get(&source) {
                let pdims = unravel(&at, &i64s(producer, "ranges"), full);
                if !self.reads_in_row(producer, &pdims, full, k, outputs) {
                    return false;
                }
            } else if let Some(&writer) = outputs.get(&source) {
                let row: i64 = i64s(writer, "ranges")[k..].iter().product();
                let want = contiguous_index(&full[..k]).drop_unit_dims(full);
                if at.has_symbols() || at.floordiv(row.max(1), full).drop_unit_dims(full) != want {
                    return false;
                }
            }
        }
        true
    }
}
