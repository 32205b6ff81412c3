//! Nodes as loop nests: a node's body rebuilt op by op, kernel-local members recomputed
//! where they are read, members sharing one row nest when every read stays in its row.

use super::*;
use fuselab_passes::analysis::rows::{reads_at_own_position, shared_row_prefix};

/// Whether `node` is a member of a `loop.kernel`.
fn in_kernel(node: MlirOperation) -> bool {
    // SAFETY: a live op's block and that block's parent.
    let parent = unsafe { mlir_sys::mlirBlockGetParentOperation(ir::parent_block(node)) };
    !parent.ptr.is_null() && ir::op_name(parent) == names::KERNEL
}

impl Gen {
    /// Builds the body of `node` with its block arguments bound to `ivs`; returns the
    /// yielded value. Each op is built at its own location.
    pub(super) fn body(&mut self, node: MlirOperation, ivs: &[Value]) -> Result<Value, CodegenError> {
        let outer = self.b.location();
        let value = self.body_ops(node, ivs);
        self.b.at(outer);
        value
    }

    fn body_ops(&mut self, node: MlirOperation, ivs: &[Value]) -> Result<Value, CodegenError> {
        let block = ir::first_block(ir::region(node, 0)).ok_or_else(|| err(node, "node without a body"))?;
        let mut values: HashMap<usize, Value> = HashMap::new();
        for (a, &iv) in ir::block_arguments(block).iter().zip(ivs) {
            values.insert(a.ptr as usize, iv);
        }
        for op in ir::block_ops(block) {
            self.b.at(ir::location(op));
            let name = ir::op_name(op);
            let operands: Vec<mlir_sys::MlirValue> = ir::operands(op);
            let get = |v: &mlir_sys::MlirValue| -> Result<Value, CodegenError> {
                values
                    .get(&(v.ptr as usize))
                    .copied()
                    .ok_or_else(|| err(op, "operand defined outside the body"))
            };
            if name == "gpu.yield" {
                return get(&operands[0]);
            }
            let result = ir::result(op, 0).ptr as usize;
            if let Some(&(memref, prefix)) = self.row_scratch.loads.get(&(op.ptr as usize)) {
                // Reduced into the row scratch by an earlier member of this row nest.
                let ranges = all_ranges(node);
                let flat = self.flat_index(&ivs[prefix..], &ranges[prefix..]);
                let v = self.b.load(memref, flat);
                values.insert(result, v);
                continue;
            }
            if name == names::LOAD {
                let syms: Vec<Value> = operands[1..].iter().map(get).collect::<Result<_, _>>()?;
                if let Some(&producer) = self.inline.get(&(operands[0].ptr as usize)) {
                    // A kernel-local pointwise producer: recompute it at the loaded
                    // position instead of loading.
                    let ranges = i64s(producer, "ranges");
                    // Fast path: the read is at the producer's own contiguous index of
                    // the reader's leading loop variables (same iteration space): reuse
                    // them. Otherwise unravel the flat index over the producer's ranges.
                    let same_space = reads_at_own_position(op, node, producer, ivs.len(), syms.len());
                    let read_with: &[Value] = if same_space { &ivs[..ranges.len()] } else { ivs };
                    let key = self.b.block().map(|block| {
                        Recomputed::new(
                            producer,
                            block,
                            op,
                            same_space,
                            read_with.iter().chain(&syms).copied(),
                            &[],
                        )
                    });
                    if let Some(&v) = key.as_ref().and_then(|key| self.recomputed.get(key)) {
                        values.insert(result, v);
                        continue;
                    }
                    let pdims = if same_space {
                        read_with.to_vec()
                    } else {
                        let idx = self.load_index(op, ivs, &syms)?;
                        self.unravel_index(idx, &ranges)
                    };
                    let v = self.body(producer, &pdims)?;
                    if let Some(key) = key {
                        self.recomputed.insert(key, v);
                    }
                    values.insert(result, v);
                    continue;
                }
                let buf = self.buffer(op, operands[0])?;
                let idx = self.load_index(op, ivs, &syms)?;
                let m = self.val(&buf);
                let mut v = self.b.load(m, idx);
                if buf.ty.dtype.is_half() {
                    v = self.widened(v, buf.ty.dtype);
                }
                values.insert(result, v);
                continue;
            }
            let args: Vec<Value> = operands.iter().map(get).collect::<Result<_, _>>()?;
            // f16 / bf16 values are computed in f32 (and rounded after each op, below).
            let types: Vec<MlirType> = operands.iter().map(|v| widen(ir::value_type(*v))).collect();
            let declared = ir::value_type(ir::result(op, 0));
            let result_ty = widen(declared);
            // A value declared f16 / bf16 is rounded to it (and widened back) after its
            // op, as eager PyTorch stores every op's result: without this a fused chain
            // is more precise than the unfused program, and differs from it by more than
            // half-precision tolerances where later ops amplify (a 3-element layer_norm
            // after sin/erf in bf16). Inductor's `emulate_precision_casts` does the same.
            // SAFETY: a type of a live value.
            let half =
                DType::from_mlir(unsafe { melior::ir::Type::from_raw(declared) }).filter(|d| d.is_half());
            let same = |a: MlirType, b: MlirType| unsafe { mlir_sys::mlirTypeEqual(a, b) };
            if (name == "arith.extf" || name == "arith.truncf")
                && types.first().is_some_and(|&t| same(t, result_ty))
            {
                // A cast between f32 and a half type: a rounding in f32 — unless it is
                // an op-math rounding inside a kernel that keeps f32.
                let opmath = ir::attr(op, fuselab_dialects::loops::OPMATH).is_some();
                let half = half.filter(|_| !(opmath && self.fp32_in_kernels && in_kernel(node)));
                let v = self.round_to(args[0], half);
                values.insert(result, v);
                continue;
            }
            // Inside a fused kernel with fp32_in_kernels: no rounding between ops.
            let half = half.filter(|_| !(self.fp32_in_kernels && in_kernel(node)));
            if same(result_ty, self.b.f32_type()) && args.len() == 1 {
                if let Some(v) = crate::math::expand(&mut self.b, &name, args[0]) {
                    let v = self.round_to(v, half);
                    values.insert(result, v);
                    continue;
                }
            }
            let named = ir::named_attributes(op);
            let attributes: Vec<(&str, mlir_sys::MlirAttribute)> =
                named.iter().map(|(k, a)| (k.as_str(), widen_attr(*a))).collect();
            let v = self.b.value(&name, &args, result_ty, &attributes);
            let v = self.round_to(v, half);
            values.insert(result, v);
        }
        Err(err(node, "body without gpu.yield"))
    }

    /// Builds `op` (a pointwise or reduction node writing `out`) inside a nest whose
    /// loop variables `prefix` cover its leading ranges.
    pub(super) fn node_in(
        &mut self,
        op: MlirOperation,
        out: Buf,
        prefix: &[Value],
    ) -> Result<(), CodegenError> {
        self.b.at(ir::location(op));
        let ranges = i64s(op, "ranges");
        let rranges = i64s(op, "reduction_ranges");
        let inner = self.open_loops(&ranges[prefix.len()..]);
        let mut ivs = prefix.to_vec();
        ivs.extend(inner);
        let value = if ir::op_name(op) == names::REDUCTION {
            let kind = ir::attr(op, "kind")
                .and_then(fuselab_dialects::attrs::string_raw)
                .unwrap_or_default();
            let float = out.ty.dtype.is_float();
            // f16 / bf16 rows accumulate in f32 (as Inductor's CPU code does).
            let acc_ty = if float {
                self.b.f32_type()
            } else {
                storage_type(&self.b, out.ty.dtype)
            };
            let (init, combine) = match (kind.as_str(), float) {
                ("sum", true) => (self.b.float_attr(acc_ty, 0.0), "arith.addf"),
                ("sum", false) => (self.b.int_attr(acc_ty, 0), "arith.addi"),
                ("prod", true) => (self.b.float_attr(acc_ty, 1.0), "arith.mulf"),
                ("prod", false) => (self.b.int_attr(acc_ty, 1), "arith.muli"),
                ("max", true) => (self.b.float_attr(acc_ty, f64::NEG_INFINITY), "arith.maximumf"),
                ("min", true) => (self.b.float_attr(acc_ty, f64::INFINITY), "arith.minimumf"),
                ("max", false) if out.ty.dtype == DType::I1 => (self.b.int_attr(acc_ty, 0), "arith.ori"),
                ("max", false) => (self.b.int_attr(acc_ty, i64::MIN), "arith.maxsi"),
                ("min", false) => (self.b.int_attr(acc_ty, i64::MAX), "arith.minsi"),
                _ => {
                    return Err(err(
                        op,
                        format!("reduction kind '{kind}' is not supported by the CPU code generator"),
                    ))
                }
            };
            let acc0 = self.b.constant(init, acc_ty);
            let acc = self.open_accumulation(&rranges, acc0);
            let mut all = ivs.clone();
            all.extend(acc.ivs.iter().copied());
            let v = self.body(op, &all)?;
            if let Some(&memref) = self.row_scratch.stores.get(&(op.ptr as usize)) {
                let flat = self.flat_index(&acc.ivs, &rranges);
                self.b.store(v, memref, flat);
            }
            let next = if float {
                self.reassociated(combine, acc.carried, v)
            } else {
                self.b.value(combine, &[acc.carried, v], acc_ty, &[])
            };
            self.close_accumulation(acc, next)
        } else {
            self.body(op, &ivs)?
        };
        let value = if out.ty.dtype.is_half() {
            self.narrowed(value, out.ty.dtype)
        } else {
            value
        };
        let flat = self.flat_index(&ivs, &ranges);
        let m = self.val(&out);
        self.b.store(value, m, flat);
        self.close_loops(ranges.len() - prefix.len());
        self.bufs.insert(ir::result(op, 0).ptr as usize, out);
        Ok(())
    }

    /// Opens the nest of one step over the leading extents `prefix`, whose iterations
    /// are independent: when the step does at least `parallel_min_work` element operations
    /// (`work`), the leading dims (collapsed until there are at least 16 rows) are split
    /// into chunks run by an `scf.parallel` whose body calls the step's rows as a
    /// function of their own (`@<kernel>_rows<n>(lo, hi, buffers...)`, never inlined);
    /// the rest are `scf.for`. Outlined, the rows' code is the serial code: the
    /// buffers are arguments, not pointers loaded from the parallel body's captured
    /// context, which LLVM must reload after every store (layernorm's rows ran 5x slower
    /// inside `scf.parallel` on one core).
    pub(super) fn open_nest(&mut self, prefix: &[i64], work: i64) -> Nest {
        self.open_nest_passing(prefix, work, &[]).0
    }

    /// [`Gen::open_nest`] for a nest whose body also reads the index values `extra`
    /// (loop variables of enclosing loops): an outlined body takes them as arguments
    /// after its row range. Returns the nest and the values to use inside it.
    pub(super) fn open_nest_passing(
        &mut self,
        prefix: &[i64],
        work: i64,
        extra: &[Value],
    ) -> (Nest, Vec<Value>) {
        let mut inside = extra.to_vec();
        let mut nest = Nest {
            ivs: Vec::new(),
            closers: Vec::new(),
            caller: None,
        };
        // No parallel step inside another one's chunk.
        let chunks = if self.parallel && !self.func.runs_in_parallel_loop() {
            (work / self.parallel_min_work).min(MAX_CHUNKS)
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
            let c0 = self.b.index(0);
            let c1 = self.b.index(1);
            let cn = self.b.index(chunks);
            let segments = self.b.i32_array_attr(&[1, 1, 1, 0]);
            let index = self.b.index_type();
            let t = self
                .b
                .open(
                    "scf.parallel",
                    &[c0, cn, c1],
                    &[],
                    &[("operandSegmentSizes", segments)],
                    &[index],
                )
                .args[0];
            let ctx = self.b.context();
            let d0 = Affine::dim(ctx, 0);
            let lo = self.b.apply_expr(d0 * size, &[t], &[]);
            let bounds = fuselab_dialects::build::affine_map(
                ctx,
                1,
                0,
                &[(d0 * size).add_const(size), Affine::constant(ctx, rows)],
            );
            let hi = self.b.value("affine.min", &[t], index, &[("map", bounds)]);
            let entry = self.outline_rows(lo, hi, extra);
            self.b.close("scf.reduce", &[]);
            self.b.push(entry);
            let range = ir::block_arguments(entry);
            let (lo, hi) = (range[0], range[1]);
            inside = range[2..2 + extra.len()].to_vec();
            nest.caller = Some(std::mem::replace(
                &mut self.func,
                Function {
                    entry,
                    globals: BTreeMap::new(),
                    param_offset: 2 + extra.len(),
                },
            ));
            let one = self.b.index(1);
            let f = self.b.open_for(lo, hi, one, &[]).args[0];
            nest.closers.push("scf.yield");
            // The collapsed dims' indices.
            nest.ivs = self.unravel_index(f, &prefix[..j]);
        } else {
            nest.ivs = self.open_loops(&prefix[..j]);
            nest.closers.extend(std::iter::repeat_n("scf.yield", j));
        }
        let ivs = self.open_loops(&prefix[j..]);
        nest.closers
            .splice(0..0, std::iter::repeat_n("scf.yield", prefix.len() - j));
        nest.ivs.extend(ivs);
        (nest, inside)
    }

    pub(super) fn close_nest(&mut self, nest: Nest) {
        for terminator in nest.closers {
            self.b.close(terminator, &[]);
        }
        if let Some(caller) = nest.caller {
            self.b.close("func.return", &[]);
            self.func = caller;
        }
    }

    /// Calls `@<kernel>_rows<n>(lo, hi, extra..., buffer parameters...)` here and creates
    /// that function (private, `noinline`, before the calling function); returns its
    /// entry block, whose first two arguments are the row range, then `extra`'s.
    fn outline_rows(&mut self, lo: Value, hi: Value, extra: &[Value]) -> MlirBlock {
        let caller = unsafe { mlir_sys::mlirBlockGetParentOperation(self.func.entry) };
        let name = ir::attr(caller, "sym_name")
            .and_then(fuselab_dialects::attrs::string_raw)
            .unwrap_or_default();
        let symbol = self.symbols.fresh(&format!("{name}_rows"));
        let mut inputs = vec![self.b.index_type(); 2 + extra.len()];
        inputs.extend(self.params.iter().copied());
        // `passthrough` is what convert-func-to-llvm carries to LLVM (`no_inline` is dropped).
        let no_inline = ir::array_attr(self.b.context(), &[self.b.string_attr("noinline")]);
        let (function, entry) = self
            .b
            .function(&symbol, &inputs, false, &[("passthrough", no_inline)]);
        ir::insert_before(caller, function);
        let mut args = vec![lo, hi];
        args.extend_from_slice(extra);
        args.extend_from_slice(&ir::block_arguments(self.func.entry)[self.func.param_offset..]);
        self.b.call(&symbol, &args);
        entry
    }

    /// One step: `members` (pointwise / reduction nodes, in order) share the nest over
    /// their common leading ranges when every read of another member's buffer stays in
    /// the same row of it ([`shared_row_prefix`]): the row is computed once per member,
    /// in order, while it is in cache, and rows run in parallel. Otherwise each member
    /// is a step of its own.
    pub(super) fn step(&mut self, members: &[MlirOperation]) -> Result<(), CodegenError> {
        let k = shared_row_prefix(members, &self.inline);
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
        self.b.at(ir::location(members[0]));
        let nest = self.open_nest(&prefix, work);
        self.plan_row_scratches(members, &prefix);
        for (&m, out) in members.iter().zip(outs) {
            self.node_in(m, out, &nest.ivs)?;
        }
        self.row_scratch = Default::default();
        self.close_nest(nest);
        Ok(())
    }
}
